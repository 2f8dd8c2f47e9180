//! Owns the campaign page's edits: the edit form (the API's `PATCH` fields, the schedule as
//! the week grid), the Auto CPM form, and sending either (or the bid changed in place) as the
//! edit the API makes (`ops::campaigns::edit`: its checks and sentences, the platform call, the
//! history, here with source `panel` and the values before the change).

use maud::{html, Markup};
use serde_json::{Map, Value};

use super::super::super::session::Session;
use super::super::super::{redirect, week, Form, Visit, WebError};
use super::super::{auto_cpm, ops_error, Refused};
use super::{answer, refuse, Which};
use crate::domain::money::CabinetType;
use crate::domain::schedule::Schedule;
use crate::domain::ParseError;
use crate::http::Reply;
use crate::ops::campaigns::command::Edit;
use crate::ops::campaigns::edit as ops;
use crate::ops::campaigns::OpsError;
use crate::store::campaigns::CampaignRow;

/// How an edit form field is written and sent.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    /// A string.
    Text,
    /// A string; empty sends `null` (removes it).
    Clearable,
    /// An amount in the cabinet's currency, as a string.
    Money,
    /// An amount; empty sends `null` (removes the cap).
    ClearableMoney,
    /// A whole number.
    Count,
    /// On or off.
    Switch,
}

/// The fields the edit form changes (the API's `PATCH` fields), with their labels' keys.
const EDITED: [(&str, &str, Field); 8] = [
    ("title", "campaign-title", Field::Text),
    ("text", "campaign-text", Field::Text),
    ("promote_url", "campaign-link", Field::Text),
    (
        "website_name",
        "campaign-website-name-edit",
        Field::Clearable,
    ),
    ("cpm", "campaign-bid", Field::Money),
    (
        "daily_budget",
        "campaign-daily-budget-edit",
        Field::ClearableMoney,
    ),
    (
        "views_per_user",
        "campaign-views-per-user-edit",
        Field::Count,
    ),
    ("active", "campaign-switched", Field::Switch),
];

/// Marks a form that carries the week grid: without it, no box ticked is no change rather
/// than "around the clock".
const GRID: &str = "schedule.grid";

/// The campaign's value of an edited field, as the form writes it.
pub(super) fn current(row: &CampaignRow, kind: CabinetType, field: &str) -> String {
    match field {
        "title" => row.title.clone(),
        "text" => row.text.clone(),
        "promote_url" => row.promote_url.clone(),
        "website_name" => row.website_name.clone().unwrap_or_default(),
        "cpm" => kind.render(row.cpm),
        "daily_budget" => row.daily_budget.map(|m| kind.render(m)).unwrap_or_default(),
        "views_per_user" => row.views_per_user.to_string(),
        _ => if row.active { "on" } else { "off" }.into(),
    }
}

/// A changed field's value as the API's body takes it.
fn sent_value(how: Field, sent: &str) -> Value {
    match how {
        Field::Text | Field::Money => Value::from(sent),
        Field::Clearable | Field::ClearableMoney if sent.is_empty() => Value::Null,
        Field::Clearable | Field::ClearableMoney => Value::from(sent),
        Field::Count => sent
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| Value::from(sent)),
        Field::Switch => Value::Bool(sent == "on"),
    }
}

/// The edit form, filled from the campaign or from what a refused form sent.
pub(super) fn form(
    visit: &Visit,
    session: &Session,
    row: &CampaignRow,
    kind: CabinetType,
    refused: Option<&Refused>,
) -> Markup {
    let value = |field: &str| {
        refused
            .and_then(|r| r.sent.get(field))
            .map(str::to_string)
            .unwrap_or_else(|| current(row, kind, field))
    };
    let schedule = row
        .schedule
        .as_ref()
        .and_then(|s| Schedule::stored(s).ok())
        .map(|s| s.named_as(row.schedule_zone.as_deref()));
    let names_field =
        |r: &&Refused, field: &str| r.param == field || r.param.starts_with(&format!("{field}."));
    html! {
        form #edit method="post" action={ "/campaigns/" (row.account_id) "/" (row.ad_id) "/edit" } {
            input type="hidden" name="csrf" value=(session.csrf);
            @for (field, label, how) in EDITED {
                label {
                    (visit.t(label))
                    @if how == Field::Money || how == Field::ClearableMoney { " (" (kind.currency()) ")" }
                    @match how {
                        Field::Switch => select name=(field) {
                            option value="on" selected[value(field) == "on"] { (visit.t("campaign-on")) }
                            option value="off" selected[value(field) == "off"] { (visit.t("campaign-off")) }
                        },
                        _ => input type="text" name=(field) value=(value(field));,
                    }
                }
                @if let Some(r) = refused.filter(|r| names_field(r, field)) {
                    p.error role="alert" data-param=(field) { (r.message) }
                }
            }
            input type="hidden" name=(GRID) value="1";
            div.scroll-x { (week::input(visit, schedule.as_ref(), refused.filter(|r| r.sent.get(GRID).is_some()).map(|r| r.sent))) }
            @if let Some(r) = refused.filter(|r| names_field(r, "schedule")) {
                p.error role="alert" data-param=(r.param) { (r.message) }
            }
            @if let Some(r) = refused.filter(|r| !r.param.starts_with(auto_cpm::PARAM) && !names_field(r, "schedule") && !EDITED.iter().any(|(f, _, _)| names_field(r, f))) {
                p.error role="alert" data-param=(r.param) { (r.message) }
            }
            p.muted { (visit.t("campaign-edit-help")) }
            button.primary type="submit" { (visit.t("common-save")) }
        }
    }
}

/// `POST /campaigns/{account_id}/{ad_id}/auto-cpm`: the Auto CPM form as the edit
/// `{"auto_cpm": {...}}` the API makes too.
pub async fn set_auto_cpm<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    send(visit, session, form, args, Which::Edit, |_, _| {
        Ok(auto_cpm::form_body(form))
    })
    .await
}

/// `POST /campaigns/{account_id}/{ad_id}/edit`: the fields that differ from the campaign's
/// (the week grid's schedule among them), as the edit `PATCH /v1/campaigns/{ad_id}` makes too.
pub async fn edit<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    send(visit, session, form, args, Which::Edit, |row, kind| {
        let mut body = Map::new();
        for (field, _, how) in EDITED {
            let Some(sent) = form.get(field) else {
                continue;
            };
            if sent != current(row, kind, field) {
                body.insert(field.into(), sent_value(how, sent));
            }
        }
        if form.get(GRID).is_some() {
            let sent = week::from_form(form)?;
            let stored = row
                .schedule
                .as_ref()
                .and_then(|s| Schedule::stored(s).ok())
                .map(|s| s.named_as(row.schedule_zone.as_deref()));
            let now = sent.as_ref().and_then(|s| Schedule::stored(s).ok());
            if sent.is_some() != stored.is_some() || now != stored {
                body.insert("schedule".into(), sent.unwrap_or(Value::Null));
            }
        }
        Ok(body)
    })
    .await
}

/// Sends a form of the campaign's page as an edit, read from the fields `body` builds from the
/// campaign and its currency (or the refusal it makes); the history keeps the bid before the
/// change (`was`). A refusal is shown beside its field of form `which`, in the person's
/// language; success returns to `back` (a same-origin path) or the campaign's page.
pub(super) async fn send<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
    which: Which,
    body: impl FnOnce(&CampaignRow, CabinetType) -> Result<Map<String, Value>, ParseError>,
) -> Result<Reply, WebError> {
    let (account, ad) = super::ids(args)?;
    session.person.cabinet(account).ok_or(WebError::NotFound)?;
    let actor = session.person.actor(account)?;
    let kind = actor.cabinet().cabinet_type;
    let at = (account, ad);
    let found = visit
        .state
        .panel_work(move |s| {
            let row = ops::live(s, account, ad)?;
            let stored = ops::stored_auto_cpm(s, account, ad)?;
            Ok::<_, OpsError>((row, stored))
        })
        .await?;
    let (row, stored) = found.map_err(ops_error)?;
    let body = match body(&row, kind) {
        Ok(body) => body,
        Err(e) => {
            let said = answer::invalid(visit, &e);
            return refuse(visit, session, at, which, form, said).await;
        }
    };
    if body.is_empty() {
        let said = ("body".into(), visit.t("campaign-refused-nothing"));
        return refuse(visit, session, at, which, form, said).await;
    }
    let mut details = body.clone();
    if body.contains_key("cpm") {
        details.insert(
            "was".into(),
            serde_json::json!({ "cpm": kind.render(row.cpm) }),
        );
    }
    let body = Value::Object(body);
    let caps = visit.state.services.platform.capabilities();
    let command = match Edit::read(
        &body,
        actor.cabinet(),
        caps,
        &row,
        stored,
        Value::Object(details),
    ) {
        Ok(command) => command,
        Err(e) => {
            let said = answer::invalid(visit, &e);
            return refuse(visit, session, at, which, form, said).await;
        }
    };
    let edited = visit
        .state
        .panel_work(move |s| ops::edit(s, &actor, &row, command))
        .await?;
    match edited {
        Ok(_) => Ok(redirect(&answer::back(form, account, ad))),
        Err(e) => match answer::refusal(visit, kind, &e) {
            Some(said) => refuse(visit, session, at, which, form, said).await,
            None => Err(ops_error(e)),
        },
    }
}
