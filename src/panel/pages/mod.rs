//! Owns the panel's pages, one module per section.

pub mod auto_cpm;
pub mod cabinets;
pub mod campaign;
pub mod campaigns;
pub mod funds;
pub mod home;
pub mod keys;
pub mod new_campaign;
pub mod proposals;
pub mod rate_notes;
pub mod reports;
pub mod rules;
pub mod settings;
pub mod sim;
pub mod tasks;
pub mod team;
pub mod why;

use maud::{html, Markup};

use super::error::Words;
use super::{Form, Visit, WebError};
use crate::domain::campaign::Status;
use crate::i18n::Lang;
use crate::ops::campaigns::Refusal;
use crate::ops::funds::FundsRefusal;
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

/// A campaign status's name in the page's language (`Active`, `Активна`).
pub fn status_name(visit: &Visit<'_>, status: Status) -> String {
    match status {
        Status::Active => visit.t("status-active"),
        Status::InReview => visit.t("status-in-review"),
        Status::Declined => visit.t("status-declined"),
        Status::Paused => visit.t("status-paused"),
        Status::Stopped => visit.t("status-stopped"),
        Status::OnHold => visit.t("status-on-hold"),
        Status::Deleted => visit.t("status-deleted"),
    }
}

/// A campaign status as a coloured badge, named in the page's language.
pub fn status_badge(visit: &Visit<'_>, status: Status) -> Markup {
    let class = match status {
        Status::Active => "active",
        Status::InReview => "review",
        Status::Declined => "declined",
        Status::Paused => "paused",
        Status::OnHold => "hold",
        Status::Stopped | Status::Deleted => "",
    };
    html! { span class={ "badge " (class) } data-status=(status.as_str()) { (status_name(visit, status)) } }
}

/// Runs a blocking operation (one `adcab admin` runs too) off the runtime, through the
/// panel's gate ([`crate::http::AppState::panel_work`]).
pub async fn panel_op<T: Send + 'static>(
    visit: &Visit<'_>,
    op: impl FnOnce(&Services) -> Result<T, OpsError> + Send + 'static,
) -> Result<T, OpsError> {
    visit.state.panel_work(op).await?
}

/// Queues work for the task worker in one write (`f` puts the tasks in), then wakes the
/// worker when they were queued.
pub async fn queue_tasks<T, E, F>(visit: &Visit<'_>, f: F) -> Result<T, E>
where
    T: Send + 'static,
    E: From<StoreError> + Send + 'static,
    F: FnOnce(&rusqlite::Transaction) -> Result<T, E> + Send + 'static,
{
    let queued = visit.state.services.db.write(f).await;
    if queued.is_ok() {
        visit.state.wake.notify_one();
    }
    queued
}

/// An operation's failure as a page: a store failure is the generic page (logged, never shown),
/// a refusal says why (in the page's language where the panel words it, a field's refusal from
/// its typed reason ([`why`]); the platform's own reason as it was written).
pub fn ops_error(e: OpsError) -> WebError {
    let words = |f: fn(Lang) -> String| WebError::Refused(Words::new(f));
    match e {
        OpsError::NotFound | OpsError::RuleNotFound | OpsError::NotYours(_) => WebError::NotFound,
        OpsError::Store(e) => WebError::Store(e),
        OpsError::Platform(PlatformError::StorageFull) => WebError::Store(StoreError::Full),
        OpsError::Platform(PlatformError::Internal(detail)) => {
            WebError::Store(StoreError::Failed(detail))
        }
        OpsError::Invalid(e) => WebError::Invalid(Words::new(move |l| why::worded(l, &e))),
        OpsError::Refused(r) => match r {
            Refusal::InsufficientAdBalance => words(|l| l.t("error-less-budget")),
            Refusal::AutoCpmLocked => words(|l| l.t("error-auto-cpm-locked")),
            Refusal::ViewerZoneNeedsUsers => words(|l| l.t("error-viewer-zone")),
            Refusal::NotDeclined => words(|l| l.t("error-not-declined")),
        },
        OpsError::Media(r) => WebError::BadRequest(sentence(&r.sentence())),
        OpsError::UnknownAdIds(missing) => {
            let ids = missing
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            WebError::Refused(Words::new(move |l| {
                l.ta("error-not-live", &[("ids", ids.as_str().into())])
            }))
        }
        OpsError::QueueFull { limit } => WebError::Refused(Words::new(move |l| {
            l.ta("error-queue-full", &[("limit", i64::from(limit).into())])
        })),
        OpsError::Internal(detail) => WebError::Store(StoreError::Failed(detail)),
        OpsError::BudgetUnchanged => words(|l| l.t("error-budget-unchanged")),
        OpsError::Funds(r) => funds_error(r),
        OpsError::Platform(e) => platform_error(e),
    }
}

/// A refusal of agency money, in the page's language.
fn funds_error(r: FundsRefusal) -> WebError {
    let words = |f: fn(Lang) -> String| WebError::Refused(Words::new(f));
    match r {
        FundsRefusal::NotAgency => words(|l| l.t("error-funds-not-agency")),
        FundsRefusal::NotMain => words(|l| l.t("error-funds-not-main")),
        FundsRefusal::NotClientCabinet => words(|l| l.t("error-funds-not-client")),
        FundsRefusal::OwnerOnly => words(|l| l.t("error-funds-owner-only")),
        FundsRefusal::NotEnoughMoney => words(|l| l.t("error-funds-not-enough")),
        FundsRefusal::MonthlyCap { cap, left, kind } => {
            let cap = format!("{} {}", kind.render(cap), kind.currency());
            let left = format!("{} {}", kind.render(left), kind.currency());
            WebError::Refused(Words::new(move |l| {
                l.ta(
                    "error-funds-cap",
                    &[("cap", cap.as_str().into()), ("left", left.as_str().into())],
                )
            }))
        }
    }
}

/// The platform's refusal: in the page's language where adcab words it, the platform's own
/// reason as the platform gave it.
fn platform_error(e: PlatformError) -> WebError {
    let words = |f: fn(Lang) -> String| WebError::Refused(Words::new(f));
    match e {
        PlatformError::InsufficientBalance => words(|l| l.t("error-platform-balance")),
        PlatformError::NotFound => words(|l| l.t("error-platform-not-found")),
        PlatformError::AuthExpired => words(|l| l.t("error-platform-expired")),
        PlatformError::Unreachable(_) => words(|l| l.t("error-platform-unreachable")),
        PlatformError::Unsupported(_) => words(|l| l.t("error-platform-unsupported")),
        PlatformError::RateLimited(wait) => {
            let seconds = i64::try_from(wait.as_secs().max(1)).unwrap_or(i64::MAX);
            WebError::Refused(Words::new(move |l| {
                l.ta("error-platform-wait", &[("seconds", seconds.into())])
            }))
        }
        PlatformError::Refused(why) => WebError::Refused(Words::new(move |l| {
            l.ta("error-platform-refused", &[("why", sentence(&why).into())])
        })),
        PlatformError::Rejected { reason, .. } => WebError::Conflict(sentence(&reason)),
        PlatformError::StorageFull => WebError::Store(StoreError::Full),
        PlatformError::Internal(detail) => WebError::Store(StoreError::Failed(detail)),
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
        OpsError::Invalid(e) => WebError::Refused(Words::new(move |l| why::worded(l, &e))),
        OpsError::NotFound
        | OpsError::RuleNotFound
        | OpsError::NotYours(_)
        | OpsError::Refused(_)
        | OpsError::Media(_)
        | OpsError::BudgetUnchanged
        | OpsError::UnknownAdIds(_)
        | OpsError::QueueFull { .. }
        | OpsError::Funds(_)
        | OpsError::Platform(_)
        | OpsError::Store(_)
        | OpsError::Internal(_) => ops_error(e),
    }
}
