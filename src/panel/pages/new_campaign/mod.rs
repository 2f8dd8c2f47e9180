//! Owns `/campaigns/new`: the form that creates campaigns in a cabinet the person may change
//! (GET), and its submission (POST): "Preview" draws the ad as Telegram shows it beside the
//! form; "Create" reads the form into the create command the API's `POST /v1/campaigns` reads
//! (`ops::campaigns::command::Create`, after the panel's own checks of the text's length and
//! the platform's minimum bid) and queues it as one task with the same operation
//! (`ops::campaigns::create::queue`), one ad or several (bulk), then sends the person to the
//! tasks page. A refusal shows beside its field in the person's language. The platform
//! look-ups the form uses as the person types are in `lookup`; the form itself in `form`.

mod fields;
mod form;
mod lookup;
mod media;
mod preview;
mod refusal;

pub use lookup::{cities, link, peers, preview};
pub use media::upload;

use super::super::session::Session;
use super::super::{redirect, Form, Visit, WebError};
use super::{ops_error, queue_tasks};
use crate::domain::campaign::TargetType;
use crate::domain::money::Money;
use crate::domain::ParseError;
use crate::http::Reply;
use crate::ops::campaigns::command::Create;
use crate::ops::campaigns::create as ops;
use crate::ops::OpsError;
use crate::store::cabinets::Reachable;
use form::Shown;
use refusal::Refusal;

/// The cabinets the person may create campaigns in.
fn writable(session: &Session) -> Vec<&Reachable> {
    session
        .person
        .active()
        .filter(|r| session.person.writable(r.cabinet.id).is_ok())
        .collect()
}

/// `GET /campaigns/new` (`?account_id=N` picks the cabinet): the empty form. A person with
/// no cabinet they may change is refused.
pub async fn show<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let cabinets = writable(session);
    if cabinets.is_empty() {
        return Err(WebError::Forbidden(visit.t("new-no-cabinet")));
    }
    let chosen = visit.query.get("account_id").and_then(|a| a.parse().ok());
    Ok(form::page(
        visit,
        session,
        &Shown {
            cabinets: &cabinets,
            chosen,
            sent: None,
            refusals: &[],
            preview: None,
        },
    ))
}

/// `POST /campaigns/new`: with `preview`, the form again with the ad drawn; else the create.
pub async fn create<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    sent: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let cabinets = writable(session);
    let account = sent.get("account_id").and_then(|a| a.parse::<i64>().ok());
    let again = |refusals: &[Refusal], preview: Option<usize>| {
        let page = form::page(
            visit,
            session,
            &Shown {
                cabinets: &cabinets,
                chosen: account,
                sent: Some(sent),
                refusals,
                preview,
            },
        );
        if refusals.is_empty() {
            page
        } else {
            page.with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY)
        }
    };
    let Some(account) = account.filter(|a| session.person.cabinet(*a).is_some()) else {
        if cabinets.is_empty() {
            return Err(WebError::Forbidden(visit.t("new-no-cabinet")));
        }
        let refused = Refusal {
            field: "account_id".into(),
            message: visit.t("new-err-cabinet"),
        };
        return Ok(again(&[refused], None));
    };
    // Another cabinet chosen without the page's script: the form again, for that cabinet.
    if sent.get("switch_cabinet").is_some() {
        return Ok(again(&[], None));
    }
    // A viewer (or a cabinet that cannot be changed now) is refused with the API's reason.
    let actor = session.person.actor(account)?;
    let cabinet = actor.cabinet().clone();
    let refuse = |e: &ParseError| vec![refusal::translate(e, visit.lang)];
    let (body, count) = match fields::create(sent, visit.zone) {
        Ok(read) => read,
        Err(e) => return Ok(again(&refuse(&e), None)),
    };
    if sent.get("preview").is_some() {
        return Ok(again(&[], Some(count)));
    }
    let caps = visit.state.services.platform.capabilities();
    let command = match Create::read(&body, &cabinet, caps) {
        Ok(command) => command,
        Err(e) => return Ok(again(&refuse(&e), None)),
    };
    if let Some(refused) = platform_rules(visit, sent, &cabinet) {
        return Ok(again(&[refused], None));
    }
    match queue_tasks(visit, move |tx| ops::queue(tx, &actor, command)).await {
        Ok(_) => Ok(redirect("/tasks")),
        Err(OpsError::Invalid(e)) => Ok(again(&refuse(&e), None)),
        Err(e) => Err(ops_error(e)),
    }
}

/// The platform's rules the form can check before the task runs (where the platform would
/// refuse the ad only then): the text's length and the minimum bid of the target type.
fn platform_rules(
    visit: &Visit,
    sent: &Form,
    cabinet: &crate::store::cabinets::Cabinet,
) -> Option<Refusal> {
    let caps = visit.state.services.platform.capabilities();
    let limit = caps.text_chars;
    let texts = std::iter::once(sent.get("text").unwrap_or(""))
        .chain(sent.get("variants").unwrap_or("").lines().map(str::trim));
    for text in texts {
        let count = text.chars().count();
        if count > limit {
            return Some(Refusal {
                field: "text".into(),
                message: visit.ta(
                    "new-err-text-long",
                    &[("count", count.into()), ("limit", limit.into())],
                ),
            });
        }
    }
    let kind = cabinet.cabinet_type;
    let target = sent.get("target_type").and_then(TargetType::parse)?;
    let min = caps.min_cpm(kind, target)?;
    let cpm = Money::parse(sent.get("cpm")?.trim(), kind.scale()).ok()?;
    (cpm < min).then(|| Refusal {
        field: "cpm".into(),
        message: visit.ta(
            "new-err-cpm-min",
            &[("min", visit.fmt().money(kind, min).into())],
        ),
    })
}
