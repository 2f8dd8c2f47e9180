//! Owns the list's bulk actions: the action bar (the API's bulk actions by their names, with
//! the one field they take) and `POST /campaigns/bulk`, which queues one bulk change per
//! cabinet through the operation the API's bulk calls too.

use std::collections::BTreeMap;

use maud::{html, Markup};
use serde_json::{Map, Value};

use super::super::super::session::Session;
use super::super::super::{redirect, Form, Visit, WebError};
use super::super::{ops_error, queue_tasks};
use super::render;
use crate::domain::capabilities::Capabilities;
use crate::domain::task::BulkKind;
use crate::domain::ParseError;
use crate::http::{Query, Reply};
use crate::i18n::Lang;
use crate::ops::campaigns::bulk::{self, Bulk};
use crate::ops::campaigns::OpsError;
use crate::ops::Actor;

/// The id of the bulk form; the rows' checkboxes name it, since the table holds forms of its
/// own (a form cannot hold another).
pub const FORM: &str = "bulk";

/// A bulk action as the form's list names it.
fn action_label(visit: &Visit, kind: BulkKind) -> String {
    visit.t(match kind {
        BulkKind::Pause => "campaigns-bulk-pause",
        BulkKind::Resume => "campaigns-bulk-resume",
        BulkKind::AddBudget => "campaigns-bulk-add-budget",
        BulkKind::WithdrawBudget => "campaigns-bulk-withdraw-budget",
        BulkKind::WithdrawAllBudget => "campaigns-bulk-withdraw-all-budget",
        BulkKind::SetCpm => "campaigns-bulk-set-cpm",
        BulkKind::SetSchedule => "campaigns-bulk-set-schedule",
        BulkKind::Delete => "campaigns-bulk-delete",
        BulkKind::Recreate => "campaigns-bulk-recreate",
    })
}

/// The bulk form: the action, its value and the list's query to come back to; the selected
/// rows join it through their checkboxes' `form` attribute.
pub fn action_bar(
    visit: &Visit,
    session: &Session,
    back: &str,
    problem: Option<&ParseError>,
) -> Markup {
    html! {
        form.filters id=(FORM) method="post" action="/campaigns/bulk" {
            input type="hidden" name="csrf" value=(session.csrf);
            input type="hidden" name="back" value=(back);
            label { (visit.t("campaigns-bulk-with"))
                select name="action" {
                    @for kind in BulkKind::ALL { option value=(kind.name()) { (action_label(visit, kind)) } }
                }
            }
            label { (visit.t("campaigns-bulk-value"))
                input type="text" name="value" placeholder=(visit.t("campaigns-bulk-placeholder"));
            }
            button.primary type="submit" { (visit.t("campaigns-bulk-apply")) }
            @if let Some(problem) = problem {
                p.error role="alert" data-param=(problem.param) { (problem.message) }
            }
        }
    }
}

/// `POST /campaigns/bulk`: the selected campaigns (`ad` = `account:ad`), grouped by cabinet,
/// each group one bulk change read and queued by the operation the API's bulk calls too; every
/// task is queued in one transaction, or none. Then the tasks page shows their progress.
pub async fn bulk<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let back = Query::parse(form.get("back").unwrap_or("")).unwrap_or_default();
    match checked(
        visit.lang,
        session,
        form,
        visit.state.services.platform.capabilities(),
    ) {
        Ok(groups) => {
            let queued = queue_tasks(visit, move |tx| {
                for (actor, command) in groups {
                    bulk::queue(tx, &actor, command)?;
                }
                Ok::<_, OpsError>(())
            })
            .await;
            match queued {
                Ok(()) => Ok(redirect("/tasks")),
                Err(OpsError::UnknownAdIds(_)) => {
                    let why = visit.t("campaigns-bulk-unknown");
                    render(
                        visit,
                        session,
                        &back,
                        Some(ParseError::new("ad_ids", why)),
                        None,
                    )
                    .await
                }
                Err(e) => Err(ops_error(e)),
            }
        }
        Err(problem) => render(visit, session, &back, Some(problem), None).await,
    }
}

/// The selection grouped by cabinet, each with the person's actor there and the bulk change
/// read as the API reads its body.
fn checked(
    lang: Lang,
    session: &Session,
    form: &Form,
    caps: &Capabilities,
) -> Result<Vec<(Actor, Bulk)>, ParseError> {
    let mut groups: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for v in form.all("ad") {
        let pair = v
            .split_once(':')
            .and_then(|(a, d)| Some((a.parse().ok()?, d.parse().ok()?)));
        let (account, ad): (i64, i64) = pair.ok_or_else(|| {
            ParseError::new(
                "ad_ids",
                lang.ta("campaigns-bulk-not-campaign", &[("value", v.into())]),
            )
        })?;
        groups.entry(account).or_default().push(ad);
    }
    if groups.is_empty() {
        return Err(ParseError::new("ad_ids", lang.t("campaigns-bulk-none")));
    }
    let action = form.get("action").unwrap_or("");
    let value = form.get("value").unwrap_or("").trim();
    let mut out = Vec::new();
    for (account, ids) in groups {
        let actor = session
            .person
            .actor(account)
            .map_err(|why| ParseError::new("ad_ids", why.sentence()))?;
        let mut body = Map::new();
        body.insert("action".into(), Value::from(action));
        body.insert("ad_ids".into(), Value::from(ids));
        match BulkKind::parse(action).and_then(|k| k.extra().field()) {
            Some("schedule") if value.is_empty() => {
                body.insert("schedule".into(), Value::Null);
            }
            Some("schedule") => {
                let parsed = serde_json::from_str(value)
                    .map_err(|_| ParseError::new("schedule", lang.t("campaigns-bulk-schedule")))?;
                body.insert("schedule".into(), parsed);
            }
            Some(field) if !value.is_empty() => {
                body.insert(field.into(), Value::from(value));
            }
            _ => {}
        }
        let kind = actor.cabinet().cabinet_type;
        let command = bulk::read(&Value::Object(body), kind, caps)?;
        out.push((actor, command));
    }
    Ok(out)
}
