//! Owns the single boundary where anything that went wrong becomes the spec's failure envelope:
//! one variant per spec code, each mapped to its HTTP status with no catch-all arm. Internal
//! detail is logged with the request id and never reaches the client.

use hyper::StatusCode;
use serde_json::{json, Map, Value};

use crate::auth::{AuthError, AuthFailure};
use crate::domain::media::{label, size_words};
use crate::domain::money::CabinetType;
use crate::domain::ParseError;
use crate::ops::campaigns::Refusal;
use crate::ops::funds::FundsRefusal;
use crate::ops::media::MediaRefusal;
use crate::ops::{OpsError, Owned};
use crate::platform::PlatformError;
use crate::store::StoreError;

#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// An access rule refused the request (its code and sentence are the access rules' own).
    Auth(AuthError),
    /// An access rule refused one of several cabinets a request names: `param` is where it
    /// names it (`scope.account_ids[1]`).
    AuthAt {
        error: AuthError,
        param: String,
    },
    CampaignNotFound,
    TaskNotFound,
    /// No such automation rule in the key's cabinets.
    RuleNotFound,
    /// No such proposal of a rule in the key's cabinets.
    ProposalNotFound,
    /// The proposal was decided already, or expired: its state.
    ProposalDecided {
        state: String,
    },
    /// No stats for the campaign and period.
    NoStats,
    /// Bad input: `param` is the path of the wrong field.
    Validation {
        param: String,
        message: String,
    },
    RateLimited {
        retry_after: u64,
    },
    UnknownAdIds {
        missing: Vec<i64>,
    },
    /// Not an upload of a media file the platform takes: `takes` names the types it does
    /// (`JPG, PNG or MP4`), `why` says what was wrong.
    UnsupportedMedia {
        takes: String,
        why: String,
    },
    /// The file is larger than the platform takes: `limit` bytes for a file of `media_type`,
    /// or for any file when its type is not known yet.
    FileTooLarge {
        limit: usize,
        media_type: Option<&'static str>,
    },
    /// The platform refused the change; `param`, `min_cpm` and `currency` as the spec lists.
    PlatformRejected {
        reason: String,
        param: Option<String>,
        min_cpm: Option<String>,
        currency: Option<&'static str>,
    },
    /// The platform could not be reached, did not answer in time or asked to wait; nothing is
    /// known to have changed. `what` says which, after "The ad platform".
    PlatformUnavailable {
        what: &'static str,
    },
    BudgetUnchanged,
    InsufficientAdBalance,
    /// A move of money or a client cabinet refused (`funds_error` words it).
    Funds(FundsRefusal),
    /// Auto CPM manages the campaign's bid: a manual `cpm` is refused (`CABINET_LOCKED`).
    AutoCpmLocked,
    /// Only a declined campaign is recreated (`CAMPAIGN_NOT_DECLINED`).
    CampaignNotDeclined,
    QueueFull {
        limit: u32,
    },
    IdempotencyKeyRequired,
    IdempotencyKeyInvalid,
    IdempotencyKeyReused,
    IdempotencyInProgress,
    IdempotencyUnavailable,
    BodyTooLarge,
    /// The request could not be read as HTTP (a malformed request line, header or body).
    BadRequest {
        why: String,
    },
    /// The request body did not arrive within the configured time.
    RequestTimeout,
    UriTooLong,
    HeadersTooLarge,
    /// The service is saturated (its store or platform queue is full, or waited too long);
    /// nothing was done.
    Busy,
    /// The service's disk is full: it cannot store the change (what a platform already made
    /// is stored by the next sync).
    StorageFull,
    RouteNotFound,
    MethodNotAllowed {
        allow: String,
    },
    /// The key's Receive postbacks switch is off.
    IngestDisabled,
    /// No campaign the sender reaches carries this ref or invite link.
    RefNotFound,
    /// Campaigns in several of the sender's cabinets carry this ref.
    AmbiguousRef,
    /// Something failed inside the service; the text goes to the log only.
    Internal(String),
}

impl ApiError {
    pub fn validation(param: impl Into<String>, message: impl Into<String>) -> ApiError {
        ApiError::Validation {
            param: param.into(),
            message: message.into(),
        }
    }

    /// The API error for an operation's failure, with a low bid's minimum in the currency of
    /// the cabinet (`kind`).
    pub fn of_ops(e: OpsError, kind: CabinetType) -> ApiError {
        match e {
            OpsError::NotFound => ApiError::CampaignNotFound,
            OpsError::RuleNotFound => ApiError::RuleNotFound,
            OpsError::NotYours(Owned::Task) => ApiError::TaskNotFound,
            OpsError::NotYours(Owned::Key) => ApiError::RouteNotFound,
            OpsError::Invalid(e) => e.into(),
            OpsError::Refused(Refusal::InsufficientAdBalance) => ApiError::InsufficientAdBalance,
            OpsError::Refused(Refusal::AutoCpmLocked) => ApiError::AutoCpmLocked,
            OpsError::Refused(Refusal::NotDeclined) => ApiError::CampaignNotDeclined,
            OpsError::Refused(r @ Refusal::ViewerZoneNeedsUsers) => {
                ApiError::validation("schedule.timezone", format!("{}.", r.sentence()))
            }
            OpsError::Media(MediaRefusal::Unsupported { media_type, takes }) => {
                ApiError::UnsupportedMedia {
                    takes,
                    why: format!("this platform does not take {} files", label(media_type)),
                }
            }
            OpsError::Media(MediaRefusal::TooLarge { media_type, limit }) => {
                ApiError::FileTooLarge {
                    limit,
                    media_type: Some(media_type),
                }
            }
            OpsError::BudgetUnchanged => ApiError::BudgetUnchanged,
            OpsError::UnknownAdIds(missing) => ApiError::UnknownAdIds { missing },
            OpsError::QueueFull { limit } => ApiError::QueueFull { limit },
            OpsError::Funds(r) => ApiError::Funds(r),
            OpsError::Platform(e) => ApiError::of_platform(e, kind),
            OpsError::Store(e) => e.into(),
            OpsError::Internal(detail) => ApiError::Internal(detail),
        }
    }

    /// The API error for a platform refusal, with the low bid's minimum in the cabinet currency.
    pub fn of_platform(e: PlatformError, kind: CabinetType) -> ApiError {
        match e {
            PlatformError::Unreachable(cause) => ApiError::PlatformUnavailable {
                what: cause.brief(),
            },
            PlatformError::RateLimited(_) => ApiError::PlatformUnavailable {
                what: "asked to wait before the next call",
            },
            PlatformError::StorageFull => ApiError::StorageFull,
            PlatformError::Internal(detail) => ApiError::Internal(detail),
            PlatformError::AuthExpired => ApiError::Auth(AuthError::CabinetAuthExpired),
            PlatformError::NotFound => ApiError::CampaignNotFound,
            PlatformError::Rejected {
                reason,
                param,
                min_cpm,
            } => ApiError::PlatformRejected {
                reason,
                param: param.map(str::to_string),
                currency: min_cpm.map(|_| kind.currency()),
                min_cpm: min_cpm.map(|m| kind.render(m)),
            },
            PlatformError::InsufficientBalance => ApiError::PlatformRejected {
                reason: "The cabinet balance is too low.".into(),
                param: Some("amount".into()),
                min_cpm: None,
                currency: None,
            },
            e @ (PlatformError::Refused(_) | PlatformError::Unsupported(_)) => {
                ApiError::PlatformRejected {
                    reason: e.to_string(),
                    param: None,
                    min_cpm: None,
                    currency: None,
                }
            }
        }
    }

    pub fn internal(detail: impl Into<String>) -> ApiError {
        ApiError::Internal(detail.into())
    }

    /// What went wrong, for logs and the operator: an internal error's detail, else the
    /// client's sentence.
    pub fn detail(&self) -> String {
        match self {
            ApiError::Internal(detail) => detail.clone(),
            other => other.message(),
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::AuthAt { error, .. } => ApiError::Auth(*error).status(),
            ApiError::Auth(e) => match e {
                AuthError::ApiKeyMissing
                | AuthError::ApiKeyInvalid
                | AuthError::NoAccounts
                | AuthError::TokenInvalid => StatusCode::UNAUTHORIZED,
                AuthError::Forbidden
                | AuthError::ReadOnlyKey
                | AuthError::WriteNotAllowed
                | AuthError::ViewOnlyAccess
                | AuthError::FeatureNotAvailable { .. }
                | AuthError::SubscriptionRequired
                | AuthError::AccountInactive => StatusCode::FORBIDDEN,
                AuthError::AccountIdRequired { .. } => StatusCode::BAD_REQUEST,
                AuthError::AccountNotFound => StatusCode::NOT_FOUND,
                AuthError::CabinetAuthExpired | AuthError::CabinetLocked => StatusCode::CONFLICT,
            },
            ApiError::IngestDisabled => StatusCode::FORBIDDEN,
            ApiError::Funds(r) => super::funds_error::status(*r),
            ApiError::Validation { .. }
            | ApiError::UnknownAdIds { .. }
            | ApiError::UnsupportedMedia { .. }
            | ApiError::PlatformRejected { .. }
            | ApiError::BudgetUnchanged
            | ApiError::InsufficientAdBalance
            | ApiError::IdempotencyKeyRequired
            | ApiError::IdempotencyKeyInvalid
            | ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::UriTooLong => StatusCode::URI_TOO_LONG,
            ApiError::HeadersTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            ApiError::FileTooLarge { .. } | ApiError::BodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::AutoCpmLocked
            | ApiError::CampaignNotDeclined
            | ApiError::IdempotencyInProgress
            | ApiError::AmbiguousRef
            | ApiError::ProposalDecided { .. } => StatusCode::CONFLICT,
            ApiError::IdempotencyKeyReused => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::QueueFull { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::IdempotencyUnavailable
            | ApiError::PlatformUnavailable { .. }
            | ApiError::Busy
            | ApiError::StorageFull => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::CampaignNotFound
            | ApiError::TaskNotFound
            | ApiError::RuleNotFound
            | ApiError::ProposalNotFound
            | ApiError::NoStats
            | ApiError::RefNotFound
            | ApiError::RouteNotFound => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Auth(e) | ApiError::AuthAt { error: e, .. } => e.code(),
            ApiError::CampaignNotFound => "CAMPAIGN_NOT_FOUND",
            ApiError::TaskNotFound => "TASK_NOT_FOUND",
            ApiError::RuleNotFound => "RULE_NOT_FOUND",
            ApiError::ProposalNotFound => "PROPOSAL_NOT_FOUND",
            ApiError::ProposalDecided { .. } => "PROPOSAL_DECIDED",
            ApiError::NoStats => "NOT_FOUND",
            ApiError::Validation { .. } => "VALIDATION_ERROR",
            ApiError::RateLimited { .. } => "RATE_LIMITED",
            ApiError::UnknownAdIds { .. } => "UNKNOWN_AD_IDS",
            ApiError::UnsupportedMedia { .. } => "UNSUPPORTED_MEDIA",
            ApiError::FileTooLarge { .. } => "FILE_TOO_LARGE",
            ApiError::PlatformRejected { .. } => "PLATFORM_REJECTED",
            ApiError::PlatformUnavailable { .. } => "PLATFORM_UNAVAILABLE",
            ApiError::BudgetUnchanged => "BUDGET_UNCHANGED",
            ApiError::InsufficientAdBalance => "INSUFFICIENT_AD_BALANCE",
            ApiError::Funds(r) => super::funds_error::code(*r),
            ApiError::AutoCpmLocked => "CABINET_LOCKED",
            ApiError::CampaignNotDeclined => "CAMPAIGN_NOT_DECLINED",
            ApiError::QueueFull { .. } => "QUEUE_FULL",
            ApiError::IdempotencyKeyRequired => "IDEMPOTENCY_KEY_REQUIRED",
            ApiError::IdempotencyKeyInvalid => "IDEMPOTENCY_KEY_INVALID",
            ApiError::IdempotencyKeyReused => "IDEMPOTENCY_KEY_REUSED",
            ApiError::IdempotencyInProgress => "IDEMPOTENCY_IN_PROGRESS",
            ApiError::IdempotencyUnavailable => "IDEMPOTENCY_UNAVAILABLE",
            ApiError::BodyTooLarge => "BODY_TOO_LARGE",
            ApiError::BadRequest { .. } => "BAD_REQUEST",
            ApiError::RequestTimeout => "REQUEST_TIMEOUT",
            ApiError::UriTooLong => "URI_TOO_LONG",
            ApiError::HeadersTooLarge => "HEADERS_TOO_LARGE",
            ApiError::Busy | ApiError::StorageFull => "SERVICE_UNAVAILABLE",
            ApiError::RouteNotFound => "ROUTE_NOT_FOUND",
            ApiError::MethodNotAllowed { .. } => "METHOD_NOT_ALLOWED",
            ApiError::IngestDisabled => "INGEST_DISABLED",
            ApiError::RefNotFound => "REF_NOT_FOUND",
            ApiError::AmbiguousRef => "AMBIGUOUS_REF",
            ApiError::Internal(_) => "INTERNAL_ERROR",
        }
    }

    /// The sentence shown to the client.
    pub fn message(&self) -> String {
        match self {
            ApiError::Auth(e) | ApiError::AuthAt { error: e, .. } => e.sentence(),
            ApiError::CampaignNotFound => "No such campaign in this key's cabinets.".into(),
            ApiError::TaskNotFound => "No such task for this key's owner.".into(),
            ApiError::RuleNotFound => "No such rule in the cabinets this key reaches.".into(),
            ApiError::ProposalNotFound => {
                "No such proposal in the cabinets this key reaches.".into()
            }
            ApiError::ProposalDecided { state } => format!("This proposal is already {state}."),
            ApiError::NoStats => "No stats for this campaign in this period.".into(),
            ApiError::Validation { message, .. } => message.clone(),
            ApiError::RateLimited { retry_after } => {
                format!("Rate limit exceeded; retry after {retry_after} seconds.")
            }
            ApiError::UnknownAdIds { .. } => {
                "Some ad_ids are not live campaigns of this cabinet; nothing was queued.".into()
            }
            ApiError::UnsupportedMedia { takes, why } => {
                format!("Upload a {takes} file in the field `file`: {why}.")
            }
            ApiError::FileTooLarge {
                limit,
                media_type: Some(media_type),
            } => format!(
                "The file is larger than {}, the most this platform takes for a {} file.",
                size_words(*limit),
                label(media_type)
            ),
            ApiError::FileTooLarge {
                limit,
                media_type: None,
            } => format!(
                "The file is larger than {}, the most this platform takes.",
                size_words(*limit)
            ),
            ApiError::PlatformRejected { reason, .. } => reason.clone(),
            ApiError::Funds(r) => r.sentence(),
            ApiError::PlatformUnavailable { what } => {
                format!("The ad platform {what}; read the campaign, then retry.")
            }
            ApiError::BudgetUnchanged => {
                "The platform accepted the top-up but the campaign budget did not move.".into()
            }
            ApiError::InsufficientAdBalance => {
                "The campaign has less budget than the amount to withdraw.".into()
            }
            ApiError::AutoCpmLocked => "Auto CPM manages this campaign's bid. Send \"auto_cpm\": \
                {\"enabled\": false} with the cpm to take the bid back."
                .into(),
            ApiError::CampaignNotDeclined => "Only a declined campaign can be recreated; \
                edit this one instead."
                .into(),
            ApiError::QueueFull { limit } => {
                format!("The cabinet already has {limit} operations queued.")
            }
            ApiError::IdempotencyKeyRequired => "This call needs an Idempotency-Key header.".into(),
            ApiError::IdempotencyKeyInvalid => {
                "The Idempotency-Key must be 8-255 characters.".into()
            }
            ApiError::IdempotencyKeyReused => {
                "This Idempotency-Key was used for a different request; use a new key.".into()
            }
            ApiError::IdempotencyInProgress => {
                "The first request with this Idempotency-Key is still running.".into()
            }
            ApiError::IdempotencyUnavailable => {
                "Nothing was done; retry with the same Idempotency-Key.".into()
            }
            ApiError::BodyTooLarge => "The request body is too large.".into(),
            ApiError::BadRequest { why } => format!("The request is not valid HTTP: {why}."),
            ApiError::RequestTimeout => {
                "The request body did not arrive in time; send it again.".into()
            }
            ApiError::UriTooLong => "The request URI is too long.".into(),
            ApiError::HeadersTooLarge => "The request headers are too large.".into(),
            ApiError::Busy => {
                "The service is busy and did nothing; retry after Retry-After seconds.".into()
            }
            ApiError::StorageFull => "The service cannot store changes right now; read what you \
                changed to see what was done, and retry after Retry-After seconds."
                .into(),
            ApiError::RouteNotFound => "No such endpoint.".into(),
            ApiError::MethodNotAllowed { allow } => {
                format!("Method not allowed on this endpoint; allowed: {allow}.")
            }
            ApiError::IngestDisabled => "Receive postbacks is off for this key.".into(),
            ApiError::RefNotFound => {
                "No campaign in this sender's cabinets carries this ref or invite link.".into()
            }
            ApiError::AmbiguousRef => {
                "Campaigns in several of this sender's cabinets carry this ref; send account_id."
                    .into()
            }
            ApiError::Internal(_) => "Internal server error.".into(),
        }
    }

    /// The failure envelope, with `param` and the code's extra context fields.
    pub fn body(&self, request_id: &str) -> Value {
        let mut body = Map::new();
        body.insert("success".into(), json!(false));
        body.insert("error".into(), json!(self.message()));
        body.insert("code".into(), json!(self.code()));
        match self {
            ApiError::Validation { param, .. } | ApiError::AuthAt { param, .. } => {
                body.insert("param".into(), json!(param));
            }
            ApiError::Auth(AuthError::AccountIdRequired { .. }) => {
                body.insert("param".into(), json!("account_id"));
            }
            ApiError::Auth(AuthError::FeatureNotAvailable { feature }) => {
                body.insert("feature".into(), json!(feature));
            }
            ApiError::UnknownAdIds { missing } => {
                body.insert("param".into(), json!("ad_ids"));
                body.insert("missing".into(), json!(missing));
            }
            ApiError::QueueFull { limit } => {
                body.insert("limit".into(), json!(limit));
            }
            ApiError::UnsupportedMedia { .. } => {
                body.insert("param".into(), json!("file"));
            }
            ApiError::FileTooLarge { limit, .. } => {
                body.insert("param".into(), json!("file"));
                body.insert("limit".into(), json!(limit));
            }
            ApiError::PlatformRejected {
                param,
                min_cpm,
                currency,
                ..
            } => {
                if let Some(param) = param {
                    body.insert("param".into(), json!(param));
                }
                if let Some(min_cpm) = min_cpm {
                    body.insert("min_cpm".into(), json!(min_cpm));
                }
                if let Some(currency) = currency {
                    body.insert("currency".into(), json!(currency));
                }
            }
            ApiError::IdempotencyKeyRequired | ApiError::IdempotencyKeyInvalid => {
                body.insert("param".into(), json!("Idempotency-Key"));
            }
            ApiError::ProposalDecided { state } => {
                body.insert("state".into(), json!(state));
            }
            ApiError::Auth(
                AuthError::ApiKeyMissing
                | AuthError::ApiKeyInvalid
                | AuthError::NoAccounts
                | AuthError::Forbidden
                | AuthError::ReadOnlyKey
                | AuthError::WriteNotAllowed
                | AuthError::ViewOnlyAccess
                | AuthError::SubscriptionRequired
                | AuthError::AccountInactive
                | AuthError::AccountNotFound
                | AuthError::TokenInvalid
                | AuthError::CabinetAuthExpired
                | AuthError::CabinetLocked,
            )
            | ApiError::CampaignNotFound
            | ApiError::TaskNotFound
            | ApiError::RuleNotFound
            | ApiError::ProposalNotFound
            | ApiError::NoStats
            | ApiError::RateLimited { .. }
            | ApiError::PlatformUnavailable { .. }
            | ApiError::BudgetUnchanged
            | ApiError::InsufficientAdBalance
            | ApiError::Funds(_)
            | ApiError::AutoCpmLocked
            | ApiError::CampaignNotDeclined
            | ApiError::IdempotencyKeyReused
            | ApiError::IdempotencyInProgress
            | ApiError::IdempotencyUnavailable
            | ApiError::BodyTooLarge
            | ApiError::BadRequest { .. }
            | ApiError::RequestTimeout
            | ApiError::UriTooLong
            | ApiError::HeadersTooLarge
            | ApiError::Busy
            | ApiError::StorageFull
            | ApiError::RouteNotFound
            | ApiError::MethodNotAllowed { .. }
            | ApiError::IngestDisabled
            | ApiError::RefNotFound
            | ApiError::AmbiguousRef
            | ApiError::Internal(_) => {}
        }
        body.insert("request_id".into(), json!(request_id));
        Value::Object(body)
    }
}

impl From<ParseError> for ApiError {
    fn from(e: ParseError) -> Self {
        ApiError::Validation {
            param: e.param,
            message: e.message,
        }
    }
}

impl From<AuthError> for ApiError {
    fn from(e: AuthError) -> Self {
        ApiError::Auth(e)
    }
}

impl From<AuthFailure> for ApiError {
    fn from(e: AuthFailure) -> Self {
        match e {
            AuthFailure::Refused(e) => ApiError::Auth(e),
            AuthFailure::Store(e) => e.into(),
        }
    }
}

impl From<crate::http::EncodeError> for ApiError {
    fn from(e: crate::http::EncodeError) -> Self {
        ApiError::Internal(e.0)
    }
}

impl From<StoreError> for ApiError {
    /// A store too busy to answer is "busy" and a full disk "unavailable" (503, retry);
    /// anything else from it is internal.
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Busy => ApiError::Busy,
            StoreError::Full => ApiError::StorageFull,
            other @ (StoreError::Conflict
            | StoreError::Corrupt(_)
            | StoreError::Failed(_)
            | StoreError::Sqlite(_)) => ApiError::Internal(other.to_string()),
        }
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::from(e).into()
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiError::Internal(detail) => write!(f, "internal error: {detail}"),
            other => f.write_str(&other.message()),
        }
    }
}

impl std::error::Error for ApiError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_errors_carry_no_detail_to_the_client() {
        let e = ApiError::internal("sqlite: disk I/O error at /secret/path");
        let body = e.body("req_1");
        assert_eq!(body["code"], "INTERNAL_ERROR");
        assert_eq!(e.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(!body.to_string().contains("secret"));
        assert_eq!(body["request_id"], "req_1");
    }

    #[test]
    fn an_unreachable_platform_keeps_its_code_and_names_the_cause_without_the_address() {
        use crate::platform::Unreachable;
        let refused = PlatformError::Unreachable(Unreachable::Refused("10.1.2.3:443".into()));
        let e = ApiError::of_platform(refused, CabinetType::Euro);
        assert_eq!(e.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(e.code(), "PLATFORM_UNAVAILABLE");
        assert_eq!(
            e.message(),
            "The ad platform refused the connection; read the campaign, then retry."
        );
        let timeout = ApiError::of_platform(
            PlatformError::Unreachable(Unreachable::Timeout),
            CabinetType::Euro,
        );
        assert_eq!(
            timeout.message(),
            "The ad platform did not answer in time; read the campaign, then retry."
        );
    }

    #[test]
    fn validation_errors_name_the_param() {
        let body = ApiError::validation("campaigns[2].channels[0]", "bad channel").body("r");
        assert_eq!(body["param"], "campaigns[2].channels[0]");
        assert_eq!(body["code"], "VALIDATION_ERROR");
        assert_eq!(body["success"], false);
    }
}
