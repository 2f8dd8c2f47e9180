//! Owns the panel's pages, one module per section.

pub mod auto_cpm;
pub mod cabinets;
pub mod campaign;
pub mod campaigns;
pub mod home;
pub mod keys;
pub mod rules;
pub mod sim;
pub mod tasks;
pub mod team;

use maud::{html, Markup};

use super::{Form, Visit, WebError};
use crate::domain::campaign::Status;
use crate::ops::OpsError;
use crate::platform::PlatformError;
use crate::services::Services;
use crate::store::StoreError;

/// A refused edit: what was sent, and the field it names with the sentence.
pub struct Refused<'f> {
    pub sent: &'f Form,
    pub param: String,
    pub message: String,
}

/// A campaign status as a coloured badge.
pub fn status_badge(status: Status) -> Markup {
    let class = match status {
        Status::Active => "active",
        Status::InReview => "review",
        Status::Declined => "declined",
        Status::Paused => "paused",
        Status::OnHold => "hold",
        Status::Stopped | Status::Deleted => "",
    };
    html! { span class={ "badge " (class) } { (status.as_str()) } }
}

/// Runs a blocking operation (one `adcab admin` runs too) off the runtime, through the
/// panel's gate ([`crate::http::AppState::panel_work`]).
pub async fn panel_op<T: Send + 'static>(
    visit: &Visit<'_>,
    op: impl FnOnce(&Services) -> Result<T, OpsError> + Send + 'static,
) -> Result<T, OpsError> {
    visit.state.panel_work(op).await?
}

/// An operation's failure as a page: a store failure is the generic page (logged, never shown),
/// a refusal says why.
pub fn ops_error(e: OpsError) -> WebError {
    match e {
        OpsError::NotFound | OpsError::RuleNotFound | OpsError::NotYours(_) => WebError::NotFound,
        OpsError::Store(e) => WebError::Store(e),
        OpsError::Platform(PlatformError::StorageFull) => WebError::Store(StoreError::Full),
        OpsError::Platform(PlatformError::Internal(detail)) => {
            WebError::Store(StoreError::Failed(detail))
        }
        OpsError::Invalid(e) => WebError::BadRequest(sentence(&e.message)),
        OpsError::Refused(r) => WebError::Conflict(sentence(r.sentence())),
        OpsError::Media(r) => WebError::BadRequest(sentence(&r.sentence())),
        OpsError::UnknownAdIds(missing) => WebError::Conflict(format!(
            "These are not live campaigns of the cabinet: {missing:?}."
        )),
        OpsError::QueueFull { limit } => WebError::Conflict(format!(
            "The cabinet already has {limit} operations queued."
        )),
        OpsError::Internal(detail) => WebError::Store(StoreError::Failed(detail)),
        OpsError::BudgetUnchanged => {
            WebError::Conflict("The platform took the top-up but the budget did not move.".into())
        }
        OpsError::Platform(e) => WebError::Conflict(sentence(&e.to_string())),
    }
}

/// A panel message (written for the operator's terminal) as a sentence: capitalised, with a
/// full stop.
pub fn sentence(message: &str) -> String {
    let mut chars = message.chars();
    let first = chars
        .next()
        .map(|c| c.to_uppercase().to_string())
        .unwrap_or_default();
    let rest: String = chars.collect();
    let stop = if rest.ends_with('.') { "" } else { "." };
    format!("{first}{rest}{stop}")
}

/// An operator's operation failed where the person's input leaves no field to name: an input
/// error is a conflict with its sentence, anything else the page [`ops_error`] makes of it.
pub fn internal(e: OpsError) -> WebError {
    match e {
        OpsError::Invalid(e) => WebError::Conflict(sentence(&e.message)),
        OpsError::NotFound
        | OpsError::RuleNotFound
        | OpsError::NotYours(_)
        | OpsError::Refused(_)
        | OpsError::Media(_)
        | OpsError::BudgetUnchanged
        | OpsError::UnknownAdIds(_)
        | OpsError::QueueFull { .. }
        | OpsError::Platform(_)
        | OpsError::Store(_)
        | OpsError::Internal(_) => ops_error(e),
    }
}
