//! Owns the new-rule form of `/rules`: its fields in the page's language (named as the API's
//! body names them), reading it into the API's body for [`rule_ops::read`] and storing it with
//! [`rule_ops::create`], so its checks and messages are the API's, and placing a refusal
//! beside the field it names.

use maud::{html, Markup};
use serde_json::{json, Map, Value};

use super::super::super::session::Session;
use super::super::super::{redirect, Form, Visit, WebError};
use super::super::ops_error;
use super::tree_form::Rows;
use super::words::action_label;
use crate::domain::rule::ActionKind;
use crate::domain::ParseError;
use crate::http::Reply;
use crate::i18n::Lang;
use crate::ops::rule as rule_ops;
use crate::ops::OpsError;
use crate::store::cabinets::Reachable;
use crate::store::groups::Group;

/// A rule the API's checks refused, or a form posted back by one of its buttons (no `message`):
/// the form as sent, the place on the form the refusal belongs to, and the API's `param` and
/// sentence.
pub struct Refused<'f> {
    pub sent: &'f Form,
    pub slot: String,
    pub param: String,
    pub message: String,
}

impl<'f> Refused<'f> {
    /// The form as sent, refused for nothing (a row's button posted it back).
    pub fn kept(sent: &'f Form) -> Refused<'f> {
        Refused {
            sent,
            slot: String::new(),
            param: String::new(),
            message: String::new(),
        }
    }
}

/// The sentence of a refusal that belongs at `slot` on the form.
fn error_at(refused: Option<&Refused>, slot: &str) -> Markup {
    html! {
        @if let Some(r) = refused.filter(|r| r.slot == slot && !r.message.is_empty()) {
            p.error role="alert" data-param=(r.param) { (r.message) }
        }
    }
}

/// Where a rule form posts and what its button says: a new rule, or rule `id` changed.
#[derive(Clone, Copy)]
pub enum Target {
    New,
    Edit(i64),
}

/// The rule form with its conditions as `rows`, posting to `target`.
pub fn rule_form(
    lang: Lang,
    session: &Session,
    writable: &[&Reachable],
    groups: &[Group],
    refused: Option<&Refused>,
    rows: &Rows,
    target: Target,
) -> Markup {
    // What the form shows in a field: what was sent, else the default.
    let sent = |name: &str, default: &str| {
        let given = refused.map(|r| r.sent.get(name).unwrap_or(""));
        given.unwrap_or(default).to_string()
    };
    let t = |key: &str| lang.t(key);
    let scope = sent("scope", "cabinet");
    let action = sent("action", "pause");
    let text = |name: &str, label: &str, help: &str| {
        html! { label { (t(label)) input type="text" name=(name) value=(sent(name, "")); small { (t(help)) } } }
    };
    html! {
        form.card #new-rule method="post" action=(match target { Target::New => "/rules".to_string(), Target::Edit(id) => format!("/rules/{id}/edit") }) {
            // The first submit button is the one Enter presses: saving, not a row's button.
            button.primary hidden type="submit" { (t("rules-form-submit")) }
            input type="hidden" name="csrf" value=(session.csrf);
            (error_at(refused, "form"))
            label { (t("rules-form-cabinet"))
                select name="account_id" { @for r in writable {
                    @let id = r.cabinet.id.to_string();
                    option value=(id) selected[sent("account_id", "") == id] { (r.cabinet.name) " · " (r.cabinet.cabinet_type.currency()) }
                } }
                small { (t("rules-form-cabinet-help")) }
            }
            (error_at(refused, "account_id"))
            label { (t("rules-form-name")) input type="text" name="name" maxlength="100" value=(sent("name", ""));
                small { (t("rules-form-name-help")) } }
            (error_at(refused, "name"))
            fieldset {
                legend { (t("rules-form-scope")) }
                label { span { input type="radio" name="scope" value="cabinet" checked[scope == "cabinet"]; " " (t("rules-form-scope-cabinet")) } }
                label { span { input type="radio" name="scope" value="group" checked[scope == "group"]; " " (t("rules-form-scope-group")) }
                    select name="group_id" {
                        option value="" { "–" }
                        @for g in groups { @let id = g.id.to_string();
                            option value=(id) selected[sent("group_id", "") == id] {
                                (lang.ta("rules-form-group-of", &[("name", g.name.as_str().into()), ("cabinet", g.account_id.to_string().into())]))
                            } }
                    } }
                label { span { input type="radio" name="scope" value="ads" checked[scope == "ads"]; " " (t("rules-form-scope-ads")) }
                    input type="text" name="ad_ids" placeholder="12, 14" value=(sent("ad_ids", "")); }
                small.muted { (t("rules-form-scope-help")) }
                @if writable.len() > 1 {
                    fieldset.across {
                        legend { (t("rules-form-across")) }
                        @for r in writable {
                            @let id = r.cabinet.id.to_string();
                            @let checked = refused.is_some_and(|f| f.sent.all("account_ids").any(|a| a == id));
                            label { span { input type="checkbox" name="account_ids" value=(id) checked[checked]; " " (r.cabinet.name) " · " (r.cabinet.cabinet_type.currency()) } }
                        }
                        (text("max_total_per_day", "rules-form-max-total", "rules-form-max-total-help"))
                        small.muted { (t("rules-form-across-help")) }
                    }
                    (error_at(refused, "max_total_per_day"))
                }
                (error_at(refused, "scope"))
            }
            fieldset.tree {
                legend { (t("rules-form-conditions")) }
                (super::tree_form::draw(lang, rows, &|slot| error_at(refused, slot)))
                small.muted { (t("rules-form-conditions-help")) }
                (error_at(refused, "conditions"))
            }
            fieldset {
                legend { (t("rules-form-action")) }
                label { (t("rules-form-do")) select name="action" {
                    @for kind in ActionKind::ALL {
                        option value=(kind.name()) selected[action == kind.name()] { (action_label(lang, kind)) }
                    }
                } small { (t("rules-form-do-help")) } }
                div.filters { (text("cpm", "rules-form-cpm", "rules-form-cpm-help")) }
                div.filters {
                    (text("percent", "rules-form-percent", "rules-form-percent-help"))
                    (text("min_cpm", "rules-form-min-cpm", "rules-form-min-cpm-help"))
                    (text("max_cpm", "rules-form-max-cpm", "rules-form-max-cpm-help"))
                }
                div.filters {
                    (text("amount", "rules-form-amount", "rules-form-amount-help"))
                    (text("max_per_day", "rules-form-max-per-day", "rules-form-max-per-day-help"))
                }
                (text("text", "rules-form-text", "rules-form-text-help"))
                (text("budget", "rules-form-budget", "rules-form-budget-help"))
                (error_at(refused, "action"))
            }
            label { (t("rules-form-every")) select name="every" {
                option value="1h" selected[sent("every", "1h") == "1h"] { (t("rules-form-every-hour")) }
                option value="5m" selected[sent("every", "1h") == "5m"] { (t("rules-form-every-5m")) }
            } small { (t("rules-form-every-help")) } }
            (error_at(refused, "every"))
            div.filters {
                label { (t("rules-form-cooldown")) input type="text" inputmode="numeric" name="cooldown_hours" value=(sent("cooldown_hours", "24"));
                    small { (t("rules-form-cooldown-help")) } }
                label { (t("rules-form-runs")) input type="text" inputmode="numeric" name="max_runs_per_day" value=(sent("max_runs_per_day", "1"));
                    small { (t("rules-form-runs-help")) } }
            }
            (error_at(refused, "cooldown_hours"))
            (error_at(refused, "max_runs_per_day"))
            label { span { input type="checkbox" name="dry_run" value="1" checked[sent("dry_run", "") == "1"]; " " (t("rules-form-dry-run")) }
                small { (t("rules-form-dry-run-help")) } }
            (error_at(refused, "dry_run"))
            button.primary type="submit" { (t(match target { Target::New => "rules-form-submit", Target::Edit(_) => "rules-form-save" })) }
        }
    }
}

/// An object of the pairs whose value is not an empty string: a field left empty is not sent.
pub fn object<'k>(pairs: impl IntoIterator<Item = (&'k str, Value)>) -> Map<String, Value> {
    let given = pairs.into_iter().filter(|(_, v)| v != "");
    given.map(|(k, v)| (k.to_string(), v)).collect()
}

/// The form as the API's body of a rule (without `account_id`), its conditions as `rows`
/// write them, and for each body path of a condition the form row it came from.
pub fn body_of(form: &Form, rows: &Rows) -> (Map<String, Value>, Vec<(String, usize)>) {
    let text = |name: &str| form.get(name).map(str::trim).unwrap_or("").to_string();
    // A whole number as a JSON number; anything else as sent, for the API to name.
    let number = |s: String| s.parse::<i64>().map_or(Value::from(s), Value::from);
    let (conditions, paths) = rows.to_body();
    let scope = match text("scope").as_str() {
        "group" => json!({ "group_id": number(text("group_id")) }),
        "ads" => {
            let ids = text("ad_ids");
            let ids = ids.split([',', ' ']).filter(|s| !s.is_empty());
            json!({ "ad_ids": ids.map(|id| number(id.into())).collect::<Vec<_>>() })
        }
        _ => json!({}),
    };
    // Cabinets ticked make a rule across them, whatever the campaigns' choice above.
    let cabinets: Vec<Value> = form
        .all("account_ids")
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(|id| number(id.into()))
        .collect();
    let scope = if cabinets.is_empty() {
        scope
    } else {
        json!({ "account_ids": cabinets })
    };
    let kind = text("action");
    let fields = ActionKind::parse(&kind).map_or(&[][..], ActionKind::fields);
    let action = [("type", kind.into())]
        .into_iter()
        .chain(fields.iter().map(|f| (*f, Value::from(text(f)))));
    let mut body = object([
        ("name", text("name").into()),
        ("scope", scope),
        ("action", object(action).into()),
        ("cooldown_hours", number(text("cooldown_hours"))),
        ("max_runs_per_day", number(text("max_runs_per_day"))),
        ("dry_run", (text("dry_run") == "1").into()),
        ("max_total_per_day", text("max_total_per_day").into()),
        ("every", text("every").into()),
    ]);
    body.extend(conditions);
    (body, paths)
}

/// Where on the form a refusal naming `param` is shown: the row of the longest condition path
/// it starts with, else the field it names.
pub fn slot(param: &str, paths: &[(String, usize)]) -> String {
    let row = paths
        .iter()
        .filter(|(at, _)| {
            param
                .strip_prefix(at.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        })
        .max_by_key(|(at, _)| at.len());
    if let Some((_, row)) = row {
        return format!("row{row}");
    }
    match param.split(['.', '[']).next().unwrap_or("") {
        head @ ("account_id" | "name" | "scope" | "match" | "conditions" | "action"
        | "cooldown_hours" | "max_runs_per_day" | "dry_run" | "max_total_per_day"
        | "every") => head.into(),
        _ => "form".into(),
    }
}

/// `POST /rules`: a new rule, read and checked as `POST /api/v1/rules` reads and checks it; a
/// refusal is shown on the form beside the field it names. A row's button (`edit`) posts the
/// form back changed, storing nothing.
pub async fn create<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    if let Some(edit) = form.get("edit") {
        let mut rows = Rows::of_form(form);
        rows.edit(edit);
        return super::render_with(visit, session, form, rows).await;
    }
    let rows = Rows::of_form(form);
    let (body, paths) = body_of(form, &rows);
    match add(visit, session, form, body).await {
        Ok(id) => Ok(redirect(&format!("/rules#rule-{id}"))),
        Err(OpsError::Invalid(e)) => {
            let refused = Refused {
                sent: form,
                slot: slot(&e.param, &paths),
                message: super::super::why::worded(visit.lang, &e),
                param: e.param,
            };
            super::render(visit, session, Some(refused)).await
        }
        Err(e) => Err(ops_error(e)),
    }
}

async fn add(
    visit: &Visit<'_>,
    session: &Session,
    form: &Form,
    body: Map<String, Value>,
) -> Result<i64, OpsError> {
    let body = Value::Object(body);
    if let Some(cabinets) = rule_ops::listed(&body)? {
        // A rule across cabinets: the person must be allowed to write to each.
        let actors = cabinets
            .iter()
            .enumerate()
            .map(|(i, id)| {
                session
                    .person
                    .actor(*id)
                    .map_err(|e| ParseError::new(format!("scope.account_ids[{i}]"), e.sentence()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let spec = rule_ops::read(&body, actors[0].cabinet().cabinet_type, None)?;
        let db = &visit.state.services.db;
        return Ok(db
            .write(move |tx| rule_ops::create_across(tx, &actors, &spec))
            .await?
            .id);
    }
    let account = form.get("account_id").and_then(|a| a.parse::<i64>().ok());
    let actor = account
        .ok_or_else(|| visit.t("rules-form-choose-cabinet"))
        .and_then(|a| session.person.actor(a).map_err(|e| e.sentence()))
        .map_err(|why| ParseError::new("account_id", why))?;
    let spec = rule_ops::read(&body, actor.cabinet().cabinet_type, None)?;
    let db = &visit.state.services.db;
    Ok(db
        .write(move |tx| rule_ops::create(tx, &actor, &spec))
        .await?
        .id)
}
