//! Owns acting on one campaign where it is seen: the action bar of its page (an on/off switch,
//! add or withdraw budget, the bid in place, copy with changes into a group, recreate while
//! declined, delete after a confirmation) and the forms it posts, which the list and home pages
//! post too: `POST /campaigns/{account_id}/{ad_id}/pause|resume|budget|cpm|copy|recreate|delete`.
//! Each goes through the operation the API's call makes (`ops::campaigns`), then returns to
//! `back` (a same-origin path, else the campaign's page); a refusal is the campaign's page
//! again with the sentence beside its field, in the person's language.

use maud::{html, Markup};
use serde_json::{json, Map, Value};

use super::super::super::session::Session;
use super::super::super::{redirect, Form, Visit, WebError};
use super::super::{ops_error, queue_tasks, Refused};
use super::answer::{back, invalid, refusal};
use super::{edit, ids, own_path, refuse, Shown, Which};
use crate::domain::campaign::Status;
use crate::domain::money::CabinetType;
use crate::http::Reply;
use crate::ops::campaigns::command::Create;
use crate::ops::campaigns::recreate::{self, Recreate};
use crate::ops::campaigns::{budget as budget_ops, create, edit as ops, OpsError};
use crate::store::campaigns::CampaignRow;
use crate::store::groups::Group;

/// The hidden fields every action form carries: the CSRF token and where to return.
fn hidden(session: &Session, back: &str) -> Markup {
    html! {
        input type="hidden" name="csrf" value=(session.csrf);
        input type="hidden" name="back" value=(back);
    }
}

/// A refusal's sentence beside its form's fields.
fn error(refused: Option<&Refused>) -> Markup {
    html! {
        @if let Some(r) = refused {
            p.error role="alert" data-param=(r.param) { (r.message) }
        }
    }
}

/// The action bar of a campaign the person may change.
pub(super) fn bar(
    visit: &Visit,
    session: &Session,
    row: &CampaignRow,
    kind: CabinetType,
    groups: &[Group],
    shown: Option<&Shown>,
) -> Markup {
    let (account, ad) = (row.account_id, row.ad_id);
    let base = own_path(account, ad);
    let url = |action: &str| format!("{base}/{action}");
    let back = match shown {
        Some(s) => back(s.refused.sent, account, ad),
        None => base.clone(),
    };
    let of = |which| Shown::of(shown, which);
    let sent = |which, field: &str| {
        of(which)
            .and_then(|r| r.sent.get(field))
            .unwrap_or("")
            .to_string()
    };
    let caps = visit.state.services.platform.capabilities();
    let min = caps.min_cpm(kind, row.target_type);
    let cpm_now = of(Which::Cpm)
        .and_then(|r| r.sent.get("cpm"))
        .map_or_else(|| kind.render(row.cpm), str::to_string);
    let direction = sent(Which::Budget, "direction");
    html! {
        div.actions role="toolbar" aria-label=(visit.t("campaign-actions-bar")) {
            form.switch-form method="post" action=(url(if row.active { "pause" } else { "resume" })) {
                (hidden(session, &back))
                button.switch type="submit" role="switch" aria-checked=(if row.active { "true" } else { "false" })
                    title=(visit.t(if row.active { "campaign-pause" } else { "campaign-resume" })) {
                    span.knob aria-hidden="true" {}
                    span { (visit.t(if row.active { "campaign-on" } else { "campaign-off" })) }
                }
                (error(of(Which::Switch)))
            }
            form.inline #cpm method="post" action=(url("cpm")) {
                (hidden(session, &back))
                label {
                    (visit.t("campaign-bid")) " (" (kind.currency()) ")"
                    input type="text" inputmode="decimal" name="cpm" value=(cpm_now) size="7";
                }
                button type="submit" { (visit.t("campaign-set-bid")) }
                @if let Some(min) = min {
                    small.muted { (visit.ta("campaign-min-cpm", &[("min", visit.fmt().money(kind, min).into())])) }
                }
                (error(of(Which::Cpm)))
            }
            details.act #act-budget open[of(Which::Budget).is_some()] {
                summary { (visit.t("campaign-budget-move")) }
                form #budget method="post" action=(url("budget")) {
                    (hidden(session, &back))
                    p.muted { (visit.ta("campaign-budget-now", &[("amount", visit.fmt().money(kind, row.budget).into())])) }
                    label {
                        (visit.t("campaign-amount")) " (" (kind.currency()) ")"
                        input type="text" inputmode="decimal" name="amount" value=(sent(Which::Budget, "amount")) required;
                    }
                    div.buttons {
                        button type="submit" name="direction" value="add" aria-pressed=[(direction == "add").then_some("true")] { (visit.t("campaign-budget-add")) }
                        button type="submit" name="direction" value="withdraw" aria-pressed=[(direction == "withdraw").then_some("true")] { (visit.t("campaign-budget-withdraw")) }
                    }
                    (error(of(Which::Budget)))
                }
            }
            details.act #act-copy open[of(Which::Copy).is_some()] {
                summary { (visit.t("campaign-copy")) }
                form #copy method="post" action=(url("copy")) {
                    (hidden(session, &back))
                    p.muted { (visit.t("campaign-copy-help")) }
                    label { (visit.t("campaign-title")) input type="text" name="title" value=(sent(Which::Copy, "title")) placeholder=(row.title); }
                    label { (visit.t("campaign-bid")) " (" (kind.currency()) ")" input type="text" inputmode="decimal" name="cpm" value=(sent(Which::Copy, "cpm")) placeholder=(kind.render(row.cpm)); }
                    label { (visit.t("campaign-budget")) " (" (kind.currency()) ")" input type="text" inputmode="decimal" name="budget" value=(sent(Which::Copy, "budget")); }
                    label {
                        (visit.t("campaign-group"))
                        select name="group_id" {
                            option value="" { (visit.t("campaign-group-same")) }
                            @for g in groups {
                                option value=(g.id) selected[sent(Which::Copy, "group_id") == g.id.to_string()] { (g.name) }
                            }
                        }
                    }
                    button.primary type="submit" { (visit.t("campaign-copy-send")) }
                    (error(of(Which::Copy)))
                }
            }
            @if row.status == Status::Declined {
                form.inline #recreate method="post" action=(url("recreate")) {
                    (hidden(session, &back))
                    button type="submit" { (visit.t("campaign-recreate")) }
                    (error(of(Which::Recreate)))
                }
            } @else {
                (error(of(Which::Recreate)))
            }
            details.act.danger #act-delete open[of(Which::Delete).is_some()] {
                summary { (visit.t("campaign-delete")) }
                form #delete method="post" action=(url("delete")) {
                    (hidden(session, &back))
                    p { strong { (visit.t("campaign-delete-ask")) } }
                    p.muted { (visit.t("campaign-delete-help")) }
                    input type="hidden" name="confirm" value="yes";
                    button.danger type="submit" { (visit.t("campaign-delete-yes")) }
                    (error(of(Which::Delete)))
                }
            }
        }
    }
}

/// What every action starts from: the path's ids, the person's actor in the cabinet (a viewer
/// is refused here) and the live campaign.
async fn start(
    visit: &Visit<'_>,
    session: &Session,
    args: &[&str],
) -> Result<(crate::ops::Actor, CampaignRow), WebError> {
    let (account, ad) = ids(args)?;
    session.person.cabinet(account).ok_or(WebError::NotFound)?;
    let actor = session.person.actor(account)?;
    let row = visit
        .state
        .panel_work(move |s| ops::live(s, account, ad))
        .await?
        .map_err(ops_error)?;
    Ok((actor, row))
}

/// Answers an operation's outcome: back on success, the page with the refusal beside form
/// `which`, or the failure's page.
async fn finish<T>(
    visit: &Visit<'_>,
    session: &Session,
    form: &Form,
    (account, ad): (i64, i64),
    which: Which,
    kind: CabinetType,
    done: Result<T, OpsError>,
) -> Result<Reply, WebError> {
    match done {
        Ok(_) => Ok(redirect(&back(form, account, ad))),
        Err(e) => match refusal(visit, kind, &e) {
            Some(said) => refuse(visit, session, (account, ad), which, form, said).await,
            None => Err(ops_error(e)),
        },
    }
}

async fn switch(
    visit: &Visit<'_>,
    session: &Session,
    form: &Form,
    args: &[&str],
    active: bool,
) -> Result<Reply, WebError> {
    let (actor, row) = start(visit, session, args).await?;
    let (at, kind) = ((row.account_id, row.ad_id), actor.cabinet().cabinet_type);
    let ad = row.ad_id;
    let done = visit
        .state
        .panel_work(move |s| ops::switch(s, &actor, ad, active))
        .await?;
    finish(visit, session, form, at, Which::Switch, kind, done).await
}

/// `POST .../pause`: switches the campaign off, as `POST /v1/campaigns/{ad_id}/pause`.
pub async fn pause<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    switch(visit, session, form, args, false).await
}

/// `POST .../resume`: switches the campaign on, as `POST /v1/campaigns/{ad_id}/resume`.
pub async fn resume<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    switch(visit, session, form, args, true).await
}

/// `POST .../budget` (`amount`, `direction` = `add|withdraw`): the budget move of `POST
/// /v1/campaigns/{ad_id}/budget`.
pub async fn budget<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let (actor, row) = start(visit, session, args).await?;
    let (at, kind) = ((row.account_id, row.ad_id), actor.cabinet().cabinet_type);
    let body = json!({
        "action": form.get("direction").unwrap_or(""),
        "amount": form.get("amount").unwrap_or(""),
    });
    let op = match budget_ops::read(&body, kind) {
        Ok(op) => op,
        Err(e) => {
            let said = invalid(visit, &e);
            return refuse(visit, session, at, Which::Budget, form, said).await;
        }
    };
    let token = format!("budget:panel:{}", uuid::Uuid::new_v4());
    let done = visit
        .state
        .panel_work(move |s| budget_ops::move_budget(s, &actor, &row, op, &token))
        .await?;
    finish(visit, session, form, at, Which::Budget, kind, done).await
}

/// `POST .../cpm` (`cpm`): the bid changed in place, as an edit of the bid alone.
pub async fn cpm<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    edit::send(visit, session, form, args, Which::Cpm, |row, kind| {
        let mut body = Map::new();
        let sent = form.get("cpm").unwrap_or("").trim();
        if sent != edit::current(row, kind, "cpm") {
            body.insert("cpm".into(), Value::from(sent));
        }
        Ok(body)
    })
    .await
}

/// `POST .../copy` (`title?`, `cpm?`, `budget?`, `group_id?`; empty is "as the original"):
/// queued as the copy task of `POST /v1/campaigns/{ad_id}/copy`.
pub async fn copy<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let (actor, row) = start(visit, session, args).await?;
    let (at, kind) = ((row.account_id, row.ad_id), actor.cabinet().cabinet_type);
    let mut body = Map::new();
    for field in ["title", "cpm", "budget"] {
        if let Some(v) = form.get(field).map(str::trim).filter(|v| !v.is_empty()) {
            body.insert(field.into(), Value::from(v));
        }
    }
    if let Some(g) = form.get("group_id").filter(|g| !g.is_empty()) {
        let id = g
            .parse::<i64>()
            .map_or_else(|_| Value::from(g), Value::from);
        body.insert("group_id".into(), id);
    }
    let caps = visit.state.services.platform.capabilities();
    let command = match Create::copy(&Value::Object(body), actor.cabinet(), &row, caps) {
        Ok(command) => command,
        Err(e) => {
            let said = invalid(visit, &e);
            return refuse(visit, session, at, Which::Copy, form, said).await;
        }
    };
    let done = queue_tasks(visit, move |tx| create::queue(tx, &actor, command)).await;
    finish(visit, session, form, at, Which::Copy, kind, done).await
}

/// `POST .../recreate`: a declined campaign made again as it is, queued as the recreate task
/// of `POST /v1/campaigns/{ad_id}/recreate`.
pub async fn recreate<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let (actor, row) = start(visit, session, args).await?;
    let (at, kind) = ((row.account_id, row.ad_id), actor.cabinet().cabinet_type);
    let caps = visit.state.services.platform.capabilities();
    let command = match Recreate::read(&json!({}), actor.cabinet(), &row, caps) {
        Ok(command) => command,
        Err(e) => {
            return finish::<()>(visit, session, form, at, Which::Recreate, kind, Err(e)).await
        }
    };
    let done = queue_tasks(visit, move |tx| recreate::queue(tx, &actor, command)).await;
    finish(visit, session, form, at, Which::Recreate, kind, done).await
}

/// `POST .../delete` (`confirm` = `yes`): deletes the campaign, as `DELETE
/// /v1/campaigns/{ad_id}`; without the confirmation nothing happens and the page asks again.
/// A deleted campaign's page has nothing to act on: `back` naming it returns to the list.
pub async fn delete<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let (actor, row) = start(visit, session, args).await?;
    let (account, ad) = (row.account_id, row.ad_id);
    let kind = actor.cabinet().cabinet_type;
    if form.get("confirm") != Some("yes") {
        let said = ("confirm".into(), visit.t("campaign-refused-confirm"));
        return refuse(visit, session, (account, ad), Which::Delete, form, said).await;
    }
    let token = format!("delete:{}", uuid::Uuid::new_v4());
    let done = visit
        .state
        .panel_work(move |s| ops::delete(s, &actor, &row, &token))
        .await?;
    match done {
        Ok(_) => {
            let mut to = back(form, account, ad);
            if to == own_path(account, ad) {
                to = format!("/campaigns?account_id={account}");
            }
            Ok(redirect(&to))
        }
        Err(e) => {
            finish::<()>(
                visit,
                session,
                form,
                (account, ad),
                Which::Delete,
                kind,
                Err(e),
            )
            .await
        }
    }
}
