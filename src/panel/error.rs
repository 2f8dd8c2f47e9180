//! Owns `WebError`, why a panel request failed: each is a page of its own, with its status and
//! the sentence the person reads, in the page's language (the catalogue's `error-…` messages).
//! A store failure is a generic page (logged with the request id by `answer`, never shown);
//! the lower layers' errors come in through `From`.

use std::fmt;

use hyper::StatusCode;

use crate::auth::AuthError;
use crate::i18n::Lang;
use crate::store::StoreError;

/// Why a panel request failed; each is a page of its own.
#[derive(Debug)]
pub enum WebError {
    NotFound,
    /// The person may not see or do this; the sentence (in the page's language) says why.
    Forbidden(String),
    /// An access rule refused the person's change: worded by the catalogue.
    Denied(AuthError),
    /// A state-changing request without the session's CSRF token.
    Csrf,
    /// A state-changing request sent from another site.
    CrossSite,
    BadRequest(String),
    /// As `BadRequest`, with a sentence the catalogue words when the page is drawn (a field
    /// refused by a lower layer).
    Invalid(Words),
    /// The change cannot be made in the state things are in; the sentence says why.
    Conflict(String),
    /// As `Conflict`, with a sentence the catalogue words when the page is drawn.
    Refused(Words),
    MethodNotAllowed,
    /// The person's changes passed the write budget a key has; `retry_after` seconds.
    RateLimited {
        retry_after: u64,
    },
    Store(StoreError),
}

/// A sentence of the catalogue, worded in the language of the page it ends up on (for the
/// errors made where no page's language is known, such as [`super::pages::ops_error`]).
pub struct Words(Box<dyn Fn(Lang) -> String + Send + Sync>);

impl Words {
    pub fn new(words: impl Fn(Lang) -> String + Send + Sync + 'static) -> Words {
        Words(Box::new(words))
    }

    pub fn in_lang(&self, lang: Lang) -> String {
        (self.0)(lang)
    }
}

/// In English, for the log.
impl fmt::Debug for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.in_lang(Lang::En))
    }
}

impl From<StoreError> for WebError {
    fn from(e: StoreError) -> Self {
        WebError::Store(e)
    }
}

/// A person's change refused by the access rules: the page says why, as the API would.
impl From<AuthError> for WebError {
    fn from(e: AuthError) -> Self {
        WebError::Denied(e)
    }
}

impl WebError {
    pub(super) fn status(&self) -> StatusCode {
        match self {
            WebError::NotFound => StatusCode::NOT_FOUND,
            WebError::Forbidden(_) | WebError::Denied(_) | WebError::Csrf | WebError::CrossSite => {
                StatusCode::FORBIDDEN
            }
            WebError::BadRequest(_) | WebError::Invalid(_) => StatusCode::BAD_REQUEST,
            WebError::Conflict(_) | WebError::Refused(_) => StatusCode::CONFLICT,
            WebError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            WebError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            WebError::Store(StoreError::Busy | StoreError::Full) => StatusCode::SERVICE_UNAVAILABLE,
            WebError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The error page's heading: what kind of failure it is.
    pub(super) fn title(&self, lang: Lang) -> String {
        match self.status() {
            StatusCode::NOT_FOUND => lang.t("error-title-not-found"),
            StatusCode::FORBIDDEN => lang.t("error-title-forbidden"),
            StatusCode::BAD_REQUEST => lang.t("error-title-bad-request"),
            StatusCode::CONFLICT => lang.t("error-title-conflict"),
            StatusCode::METHOD_NOT_ALLOWED => lang.t("error-title-method"),
            StatusCode::TOO_MANY_REQUESTS => lang.t("error-title-too-many"),
            StatusCode::SERVICE_UNAVAILABLE => lang.t("error-title-unavailable"),
            _ => lang.t("error-title-internal"),
        }
    }

    /// The sentence the person reads, in `lang`.
    pub(super) fn sentence(&self, lang: Lang) -> String {
        match self {
            WebError::NotFound => lang.t("error-not-found"),
            WebError::Forbidden(why) | WebError::BadRequest(why) | WebError::Conflict(why) => {
                why.clone()
            }
            WebError::Denied(e) => denied(lang, *e),
            WebError::Refused(words) | WebError::Invalid(words) => words.in_lang(lang),
            WebError::Csrf => lang.t("error-csrf"),
            WebError::CrossSite => lang.t("error-cross-site"),
            WebError::MethodNotAllowed => lang.t("error-method"),
            WebError::RateLimited { retry_after } => lang.ta(
                "error-rate-limited",
                &[(
                    "seconds",
                    i64::try_from(*retry_after).unwrap_or(i64::MAX).into(),
                )],
            ),
            WebError::Store(StoreError::Busy) => lang.t("error-busy"),
            WebError::Store(StoreError::Full) => lang.t("error-full"),
            WebError::Store(_) => lang.t("error-internal"),
        }
    }
}

/// An access rule's refusal in `lang`: the API's sentence, in the person's words.
pub fn denied(lang: Lang, e: AuthError) -> String {
    match e {
        AuthError::ApiKeyMissing => lang.t("error-auth-key-missing"),
        AuthError::ApiKeyInvalid => lang.t("error-auth-key-invalid"),
        AuthError::NoAccounts => lang.t("error-auth-no-accounts"),
        AuthError::Forbidden => lang.t("error-auth-plan-keys"),
        AuthError::ReadOnlyKey => lang.t("error-auth-read-only-key"),
        AuthError::WriteNotAllowed => lang.t("error-auth-partner"),
        AuthError::ViewOnlyAccess => lang.t("error-auth-viewer"),
        AuthError::FeatureNotAvailable { .. } => lang.t("error-auth-plan"),
        AuthError::SubscriptionRequired => lang.t("error-auth-subscription"),
        AuthError::AccountInactive => lang.t("error-auth-inactive"),
        AuthError::AccountIdRequired { why } => {
            lang.ta("error-auth-account-id", &[("why", why.into())])
        }
        AuthError::AccountNotFound => lang.t("error-auth-no-cabinet"),
        AuthError::TokenInvalid => lang.t("error-auth-tracker"),
        AuthError::CabinetAuthExpired => lang.t("error-auth-expired"),
        AuthError::CabinetLocked => lang.t("error-auth-locked"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every error page's heading and sentence, in both languages: a missing message stops a
    /// debug build, and no sentence is empty or shows a store's detail.
    #[test]
    fn every_error_reads_in_both_languages() {
        let errors = || {
            vec![
                WebError::NotFound,
                WebError::Denied(AuthError::ViewOnlyAccess),
                WebError::Csrf,
                WebError::CrossSite,
                WebError::BadRequest("The form is badly encoded.".into()),
                WebError::Refused(Words::new(|l| l.t("error-busy"))),
                WebError::MethodNotAllowed,
                WebError::RateLimited { retry_after: 7 },
                WebError::Store(StoreError::Busy),
                WebError::Store(StoreError::Full),
                WebError::Store(StoreError::Failed("disk I/O at page 7".into())),
            ]
        };
        for lang in Lang::ALL {
            for e in errors() {
                let (title, sentence) = (e.title(lang), e.sentence(lang));
                assert!(!title.is_empty() && !sentence.is_empty(), "{e:?}");
                assert!(!sentence.contains("disk I/O"), "{sentence}");
            }
        }
        let ru = WebError::RateLimited { retry_after: 7 }.sentence(Lang::Ru);
        assert!(ru.contains("7 секунд"), "{ru}");
        for e in [
            AuthError::ApiKeyMissing,
            AuthError::ApiKeyInvalid,
            AuthError::NoAccounts,
            AuthError::Forbidden,
            AuthError::ReadOnlyKey,
            AuthError::WriteNotAllowed,
            AuthError::ViewOnlyAccess,
            AuthError::FeatureNotAvailable { feature: "rules" },
            AuthError::SubscriptionRequired,
            AuthError::AccountInactive,
            AuthError::AccountIdRequired {
                why: "two cabinets",
            },
            AuthError::AccountNotFound,
            AuthError::TokenInvalid,
            AuthError::CabinetAuthExpired,
            AuthError::CabinetLocked,
        ] {
            assert_eq!(
                denied(Lang::En, e),
                e.sentence(),
                "English reads as the API"
            );
            assert_ne!(denied(Lang::Ru, e), e.sentence());
        }
    }
}
