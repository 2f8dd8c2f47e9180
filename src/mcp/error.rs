//! Owns what an MCP tool call answers when it fails: the API's code and sentence for each
//! refusal of the operations, the access rules and the session's own guards, through one
//! exhaustive match; a store or service failure is logged in full here and reaches the client
//! as a bare `INTERNAL_ERROR`, never with its detail.

use crate::auth::{AuthError, AuthFailure};
use crate::domain::money::CabinetType;
use crate::domain::ParseError;
use crate::ops::campaigns::Refusal;
use crate::ops::funds::FundsRefusal;
use crate::ops::media::MediaRefusal;
use crate::ops::{OpsError, Owned};
use crate::platform::PlatformError;
use crate::store::StoreError;

/// A tool call's failure as the client reads it: the spec's code and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    pub code: &'static str,
    pub message: String,
}

impl ToolError {
    pub fn new(code: &'static str, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            message: message.into(),
        }
    }

    /// An argument that does not read, named by `param`.
    pub fn invalid(param: &str, message: impl std::fmt::Display) -> ToolError {
        ToolError::new("VALIDATION_ERROR", format!("{param}: {message}"))
    }

    /// The session is read-only: no write tool runs in it.
    pub fn read_only() -> ToolError {
        ToolError::new(
            "READ_ONLY_SESSION",
            "This MCP session is read-only; no change was made.",
        )
    }

    /// The write would take the money moved in this session past its cap.
    pub fn money_cap(cap: &str, moved: &str, asked: &str) -> ToolError {
        ToolError::new(
            "MONEY_CAP_REACHED",
            format!(
                "This MCP session may move at most {cap}; it has moved {moved} and this call would move {asked} more. Nothing was done."
            ),
        )
    }

    /// The failure of an operation on a cabinet of `kind`.
    pub fn of_ops(e: OpsError, kind: CabinetType) -> ToolError {
        match e {
            OpsError::NotFound => ToolError::campaign_not_found(),
            OpsError::RuleNotFound => ToolError::new(
                "RULE_NOT_FOUND",
                "No such rule in the cabinets this key reaches.",
            ),
            OpsError::NotYours(Owned::Task) => {
                ToolError::new("TASK_NOT_FOUND", "No such task for this key's owner.")
            }
            OpsError::NotYours(Owned::Key) => ToolError::new("NOT_FOUND", "No such key."),
            OpsError::Invalid(e) => ToolError::of_parse(e),
            OpsError::Refused(r) => ToolError::of_refusal(r),
            OpsError::Media(MediaRefusal::Unsupported { .. }) => ToolError::new(
                "UNSUPPORTED_MEDIA",
                "This platform does not take files of this kind.",
            ),
            OpsError::Media(MediaRefusal::TooLarge { .. }) => {
                ToolError::new("FILE_TOO_LARGE", "The file is too large for this platform.")
            }
            OpsError::BudgetUnchanged => ToolError::new(
                "BUDGET_UNCHANGED",
                "The platform took the top-up but the campaign's budget did not move.",
            ),
            OpsError::UnknownAdIds(missing) => ToolError::new(
                "UNKNOWN_AD_IDS",
                format!("These are not live campaigns of the cabinet: {missing:?}."),
            ),
            OpsError::QueueFull { limit } => ToolError::new(
                "QUEUE_FULL",
                format!("The cabinet already has {limit} create tasks queued."),
            ),
            OpsError::Funds(r) => ToolError::of_funds(r),
            OpsError::Platform(e) => ToolError::of_platform(e, kind),
            OpsError::Store(e) => ToolError::of_store(e),
            OpsError::Internal(detail) => ToolError::internal(&detail),
        }
    }

    pub fn campaign_not_found() -> ToolError {
        ToolError::new(
            "CAMPAIGN_NOT_FOUND",
            "No such campaign in this key's cabinets.",
        )
    }

    pub fn of_parse(e: ParseError) -> ToolError {
        ToolError::new("VALIDATION_ERROR", e.message)
    }

    pub fn of_auth(e: AuthError) -> ToolError {
        ToolError::new(e.code(), e.sentence())
    }

    pub fn of_auth_failure(e: AuthFailure) -> ToolError {
        match e {
            AuthFailure::Refused(e) => ToolError::of_auth(e),
            AuthFailure::Store(e) => ToolError::of_store(e),
        }
    }

    fn of_refusal(r: Refusal) -> ToolError {
        let code = match r {
            Refusal::InsufficientAdBalance => "INSUFFICIENT_AD_BALANCE",
            Refusal::AutoCpmLocked => "CABINET_LOCKED",
            Refusal::ViewerZoneNeedsUsers => "VALIDATION_ERROR",
            Refusal::NotDeclined => "CAMPAIGN_NOT_DECLINED",
        };
        ToolError::new(code, format!("{}.", capitalized(r.sentence())))
    }

    fn of_funds(r: FundsRefusal) -> ToolError {
        let code = match r {
            FundsRefusal::NotAgency => "FEATURE_NOT_AVAILABLE",
            FundsRefusal::OwnerOnly => "OWNER_ONLY",
            FundsRefusal::NotMain => "NOT_A_MAIN_ACCOUNT",
            FundsRefusal::NotClientCabinet => "NOT_A_CLIENT_CABINET",
            FundsRefusal::MonthlyCap { .. } => "MONTHLY_TOPUP_CAP",
            FundsRefusal::NotEnoughMoney => "INSUFFICIENT_BALANCE",
        };
        ToolError::new(code, r.sentence())
    }

    fn of_platform(e: PlatformError, kind: CabinetType) -> ToolError {
        match e {
            PlatformError::Unreachable(cause) => ToolError::new(
                "PLATFORM_UNAVAILABLE",
                format!(
                    "The platform did not answer ({}); try again later.",
                    cause.brief()
                ),
            ),
            PlatformError::RateLimited(_) => ToolError::new(
                "PLATFORM_UNAVAILABLE",
                "The platform asked to wait before the next call; try again later.",
            ),
            PlatformError::StorageFull => ToolError::new(
                "SERVICE_UNAVAILABLE",
                "The service cannot store changes right now; try again later.",
            ),
            PlatformError::Internal(detail) => ToolError::internal(&detail),
            PlatformError::AuthExpired => ToolError::of_auth(AuthError::CabinetAuthExpired),
            PlatformError::NotFound => ToolError::campaign_not_found(),
            PlatformError::Rejected {
                reason, min_cpm, ..
            } => {
                let min = min_cpm
                    .map(|m| format!(" (minimum CPM {} {})", kind.render(m), kind.currency()))
                    .unwrap_or_default();
                ToolError::new("PLATFORM_REJECTED", format!("{reason}{min}"))
            }
            PlatformError::InsufficientBalance => {
                ToolError::new("PLATFORM_REJECTED", "The cabinet balance is too low.")
            }
            e @ (PlatformError::Refused(_) | PlatformError::Unsupported(_)) => {
                ToolError::new("PLATFORM_REJECTED", capitalized(&e.to_string()))
            }
        }
    }

    pub fn of_store(e: StoreError) -> ToolError {
        match e {
            StoreError::Busy | StoreError::Full => ToolError::new(
                "SERVICE_UNAVAILABLE",
                "The service is busy; try again shortly.",
            ),
            other @ (StoreError::Conflict
            | StoreError::Corrupt(_)
            | StoreError::Failed(_)
            | StoreError::Sqlite(_)) => ToolError::internal(&other.to_string()),
        }
    }

    /// A failure inside the service: logged in full, answered without its detail.
    pub fn internal(detail: &str) -> ToolError {
        tracing::error!(detail, "MCP tool call failed inside the service");
        ToolError::new("INTERNAL_ERROR", "Internal server error.")
    }
}

impl From<StoreError> for ToolError {
    fn from(e: StoreError) -> Self {
        ToolError::of_store(e)
    }
}

impl From<AuthError> for ToolError {
    fn from(e: AuthError) -> Self {
        ToolError::of_auth(e)
    }
}

impl From<ParseError> for ToolError {
    fn from(e: ParseError) -> Self {
        ToolError::of_parse(e)
    }
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
