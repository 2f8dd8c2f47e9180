//! Owns `WebError`, why a panel request failed: each is a page of its own, with its status and
//! the sentence the person reads. A store failure is a generic page (logged with the request id
//! by `answer`, never shown); the lower layers' errors come in through `From`.

use hyper::StatusCode;

use crate::auth::AuthError;
use crate::store::StoreError;

/// Why a panel request failed; each is a page of its own.
#[derive(Debug)]
pub enum WebError {
    NotFound,
    /// The person may not see or do this; the sentence says why.
    Forbidden(String),
    /// A state-changing request without the session's CSRF token.
    Csrf,
    /// A state-changing request sent from another site.
    CrossSite,
    BadRequest(String),
    /// The change cannot be made in the state things are in; the sentence says why.
    Conflict(String),
    MethodNotAllowed,
    /// The person's changes passed the write budget a key has; `retry_after` seconds.
    RateLimited {
        retry_after: u64,
    },
    Store(StoreError),
}

impl From<StoreError> for WebError {
    fn from(e: StoreError) -> Self {
        WebError::Store(e)
    }
}

/// A person's change refused by the access rules: the page says why, as the API would.
impl From<AuthError> for WebError {
    fn from(e: AuthError) -> Self {
        WebError::Forbidden(e.sentence())
    }
}

impl WebError {
    pub(super) fn status(&self) -> StatusCode {
        match self {
            WebError::NotFound => StatusCode::NOT_FOUND,
            WebError::Forbidden(_) | WebError::Csrf | WebError::CrossSite => StatusCode::FORBIDDEN,
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::Conflict(_) => StatusCode::CONFLICT,
            WebError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            WebError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            WebError::Store(StoreError::Busy | StoreError::Full) => StatusCode::SERVICE_UNAVAILABLE,
            WebError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub(super) fn sentence(&self) -> String {
        match self {
            WebError::NotFound => "There is no such page, or it is not yours to see.".into(),
            WebError::Forbidden(why) => why.clone(),
            WebError::Csrf => {
                "This form has expired. Go back, reload the page and send it again.".into()
            }
            WebError::CrossSite => "A change sent from another site was refused.".into(),
            WebError::BadRequest(why) | WebError::Conflict(why) => why.clone(),
            WebError::MethodNotAllowed => "This page does not take that kind of request.".into(),
            WebError::RateLimited { retry_after } => format!(
                "You are making changes faster than adcab takes them. Wait {retry_after} seconds and send it again."
            ),
            WebError::Store(StoreError::Busy) => {
                "adcab is busy right now. Try again in a moment.".into()
            }
            WebError::Store(StoreError::Full) => {
                "adcab cannot store changes right now. Try again later; the operator was told."
                    .into()
            }
            WebError::Store(_) => {
                "Something went wrong on our side. It was logged; try again.".into()
            }
        }
    }
}
