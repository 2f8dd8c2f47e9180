//! Owns `/rules`: the automation rules of the cabinets a person reaches, each in words (scope,
//! conditions, action, guards, state), a rule's log and its preview over the last seven days;
//! and, for owners and managers, the forms that create a rule, switch one on or off and delete
//! it. A new rule's form is read by [`rule_ops::read`] and stored by [`rule_ops::create`], as
//! the API's body is, so its checks and messages are the API's. `words` says a rule and its log
//! in sentences.

mod words;

use words::{
    action_words, change_words, conditions_words, guards_words, matched_words, metric_name,
    scope_words, state_badges,
};

use maud::{html, Markup};
use serde_json::{json, Map, Value};

use super::super::format::time;
use super::super::session::Session;
use super::super::{layout, redirect, Form, Visit, WebError};
use super::{ops_error, sentence};
use crate::domain::fields::Body;
use crate::domain::money::CabinetType;
use crate::domain::rule::{ActionKind, Metric, Op};
use crate::domain::ParseError;
use crate::http::Reply;
use crate::jobs::automation::{self, preview};
use crate::ops::rule as rule_ops;
use crate::ops::OpsError;
use crate::primitives::unix_now;
use crate::ratelimit::Holder;
use crate::store::cabinets::Reachable;
use crate::store::groups::{self, Group};
use crate::store::rules::{self, RuleRow};
use crate::store::StoreError;

/// Condition rows the form offers.
const ROWS: usize = 3;
/// Log entries the log page lists.
const LOG: usize = 100;
/// Evaluations the preview page lists.
const PREVIEWED: usize = 50;

/// A new rule the API's checks refused: the form as sent, the place on the form the refusal
/// belongs to, and the API's `param` and sentence.
struct Refused<'f> {
    sent: &'f Form,
    slot: String,
    param: String,
    message: String,
}

pub async fn list<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    render(visit, session, None).await
}

async fn render(
    visit: &Visit<'_>,
    session: &Session,
    refused: Option<Refused<'_>>,
) -> Result<Reply, WebError> {
    let person = &session.person;
    let accounts: Vec<i64> = person.active().map(|r| r.cabinet.id).collect();
    let found = visit.state.services.db.read(move |c| {
        Ok::<_, StoreError>((rules::list(c, &accounts)?, groups::list(c, &accounts)?))
    });
    let (found, groups) = found.await?;
    let writable: Vec<&Reachable> = person
        .active()
        .filter(|r| person.writable(r.cabinet.id).is_ok())
        .collect();
    let body = html! {
        header.page { div {
            h1 { "Rules" }
            p.muted { "After each hourly sync adcab checks every enabled rule on the cabinet's live campaigns and acts where its conditions hold, within its guards." }
        } }
        @if person.active().next().is_none() {
            div.empty { "No cabinets yet: rules watch a cabinet's campaigns." }
        }
        @for reach in person.active() {
            @let id = reach.cabinet.id;
            @let mine: Vec<&RuleRow> = found.iter().filter(|r| r.account_id == id).collect();
            h2 { (reach.cabinet.name) " " span.muted { "· " (id) } }
            @if mine.is_empty() {
                div.empty { "No rules in this cabinet yet." }
            } @else {
                (table(session, reach, &mine, &groups))
            }
        }
        h2 { "New rule" }
        @if writable.is_empty() {
            div.empty { "Rules are created by a cabinet's owner and managers. "
                @if let Some(Err(why)) = person.active().next().map(|r| person.writable(r.cabinet.id)) { (why.sentence()) } }
            @if let Some(r) = &refused { p.error role="alert" data-param=(r.param) { (r.message) } }
        } @else {
            (new_form(session, &writable, &groups, refused.as_ref()))
        }
    };
    let reply = layout::page(visit, session, "/rules", "Rules", body);
    Ok(match refused {
        Some(_) => reply.with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY),
        None => reply,
    })
}

fn table(session: &Session, reach: &Reachable, list: &[&RuleRow], groups: &[Group]) -> Markup {
    let kind = reach.cabinet.cabinet_type;
    let can_write = session.person.writable(reach.cabinet.id).is_ok();
    html! {
        div.table-wrap { table {
            thead { tr {
                th { "Rule" } th { "Campaigns" } th { "When" } th { "Then" } th { "Guards" }
                th { "State" } th {}
            } }
            tbody { @for r in list { tr id={ "rule-" (r.id) } {
                td { strong { (r.spec.name) } br; span.muted { "#" (r.id) } }
                td { (scope_words(&r.spec.scope, groups)) }
                td { (conditions_words(&r.spec, kind)) }
                td { (action_words(&r.spec.action, kind)) }
                td { (guards_words(&r.spec)) }
                td { (state_badges(&r.spec)) }
                td {
                    a href={ "/rules/" (r.id) "/log" } { "Log" }
                    form method="get" action={ "/rules/" (r.id) "/preview" } {
                        button type="submit" { "Preview" }
                    }
                    @if can_write {
                        @let (path, label) = if r.spec.enabled { ("disable", "Disable") } else { ("enable", "Enable") };
                        form method="post" action={ "/rules/" (r.id) "/" (path) } {
                            input type="hidden" name="csrf" value=(session.csrf);
                            button type="submit" { (label) }
                        }
                        form method="post" action={ "/rules/" (r.id) "/delete" } {
                            input type="hidden" name="csrf" value=(session.csrf);
                            button type="submit" { "Delete" }
                        }
                    }
                }
            } } }
        } }
    }
}

/// The sentence of a refusal that belongs at `slot` on the form.
fn error_at(refused: Option<&Refused>, slot: &str) -> Markup {
    html! {
        @if let Some(r) = refused.filter(|r| r.slot == slot) {
            p.error role="alert" data-param=(r.param) { (r.message) }
        }
    }
}

fn new_form(
    session: &Session,
    writable: &[&Reachable],
    groups: &[Group],
    refused: Option<&Refused>,
) -> Markup {
    // What the form shows in a field: what was sent, else the default.
    let sent = |name: &str, default: &str| {
        let given = refused.map(|r| r.sent.get(name).unwrap_or(""));
        given.unwrap_or(default).to_string()
    };
    let scope = sent("scope", "cabinet");
    let action = sent("action", "pause");
    let text = |name: &str, label: &str, help: &str| {
        html! { label { (label) input type="text" name=(name) value=(sent(name, "")); small { (help) } } }
    };
    html! {
        form.card #new-rule method="post" action="/rules" {
            input type="hidden" name="csrf" value=(session.csrf);
            (error_at(refused, "form"))
            label { "Cabinet"
                select name="account_id" { @for r in writable {
                    @let id = r.cabinet.id.to_string();
                    option value=(id) selected[sent("account_id", "") == id] { (r.cabinet.name) " · " (r.cabinet.cabinet_type.currency()) }
                } }
                small { "The rule watches this cabinet's live campaigns; amounts are in its currency." }
            }
            (error_at(refused, "account_id"))
            label { "Name" input type="text" name="name" maxlength="100" value=(sent("name", ""));
                small { "1 to 100 characters; alerts and the campaign history name the rule by it." } }
            (error_at(refused, "name"))
            fieldset {
                legend { "Campaigns" }
                label { span { input type="radio" name="scope" value="cabinet" checked[scope == "cabinet"]; " The whole cabinet" } }
                label { span { input type="radio" name="scope" value="group" checked[scope == "group"]; " The campaigns of a group" }
                    select name="group_id" {
                        option value="" { "–" }
                        @for g in groups { @let id = g.id.to_string();
                            option value=(id) selected[sent("group_id", "") == id] { (g.name) " (cabinet " (g.account_id) ")" } }
                    } }
                label { span { input type="radio" name="scope" value="ads" checked[scope == "ads"]; " These campaigns" }
                    input type="text" name="ad_ids" placeholder="12, 14" value=(sent("ad_ids", "")); }
                small.muted { "Only live campaigns are checked. A group must be the chosen cabinet's; campaign ids are separated by commas." }
                (error_at(refused, "scope"))
            }
            label { "Match"
                select name="match" {
                    option value="all" selected[sent("match", "all") == "all"] { "all conditions hold" }
                    option value="any" selected[sent("match", "all") == "any"] { "any condition holds" }
                }
                small { "Whether every condition below must hold on a campaign, or one is enough." } }
            (error_at(refused, "match"))
            fieldset {
                legend { "Conditions" }
                @for i in 0..ROWS { (condition_row(i, &sent)) (error_at(refused, &format!("row{i}"))) }
                small.muted { "Up to 3; leave a row's metric empty to skip it. The value is a number (money in the cabinet's currency, CTR in percent) or, for status, a status such as Active. The window is the hours looked back from the synced hour: 1 to 168, empty for 24; budget and status take none." }
                (error_at(refused, "conditions"))
            }
            fieldset {
                legend { "Action" }
                label { "Do" select name="action" {
                    @for kind in ActionKind::ALL {
                        option value=(kind.name()) selected[action == kind.name()] { (words::action_label(kind)) }
                    }
                } small { "Only the fields of the chosen action are read." } }
                div.filters { (text("cpm", "New bid (set the bid)", "Greater than 0.")) }
                div.filters {
                    (text("percent", "Percent (change the bid)", "-90 to 500, not 0; negative lowers the bid."))
                    (text("min_cpm", "Lowest bid", "The bid never goes below it."))
                    (text("max_cpm", "Highest bid", "At least the lowest bid."))
                }
                div.filters {
                    (text("amount", "Amount (add budget)", "Added from the cabinet balance each run."))
                    (text("max_per_day", "At most a day", "Per rule over 24 hours; at least the amount."))
                }
                (text("text", "Alert text (send an alert)", "1 to 500 characters, sent to Telegram and the alert webhook."))
                (error_at(refused, "action"))
            }
            div.filters {
                label { "Cooldown (hours)" input type="text" inputmode="numeric" name="cooldown_hours" value=(sent("cooldown_hours", "24"));
                    small { "0 to 168: the least time between two runs on one campaign." } }
                label { "Runs a day" input type="text" inputmode="numeric" name="max_runs_per_day" value=(sent("max_runs_per_day", "1"));
                    small { "1 to 24: runs on one campaign in 24 hours." } }
            }
            (error_at(refused, "cooldown_hours"))
            (error_at(refused, "max_runs_per_day"))
            label { span { input type="checkbox" name="dry_run" value="1" checked[sent("dry_run", "") == "1"]; " Dry run" }
                small { "Only log what the rule would do; nothing changes. Its guards still count." } }
            (error_at(refused, "dry_run"))
            button.primary type="submit" { "Create rule" }
        }
    }
}

fn condition_row(i: usize, sent: &dyn Fn(&str, &str) -> String) -> Markup {
    let metric = sent(&format!("metric{i}"), "");
    let op = sent(&format!("op{i}"), ">");
    html! {
        div.filters {
            label { "Metric" select name={ "metric" (i) } {
                option value="" { "–" }
                @for m in Metric::ALL { option value=(m.as_str()) selected[metric == m.as_str()] { (metric_name(m)) } }
            } }
            label { "Is" select name={ "op" (i) } {
                @for o in Op::ALL { option value=(o.as_str()) selected[op == o.as_str()] { (o.as_str()) } }
            } }
            label { "Value" input type="text" name={ "value" (i) } value=(sent(&format!("value{i}"), "")); }
            label { "Window (hours)" input type="text" inputmode="numeric" name={ "window" (i) } placeholder="24" value=(sent(&format!("window{i}"), "")); }
        }
    }
}

/// An object of the pairs whose value is not an empty string: a field left empty is not sent.
fn object<'k>(pairs: impl IntoIterator<Item = (&'k str, Value)>) -> Map<String, Value> {
    let given = pairs.into_iter().filter(|(_, v)| v != "");
    given.map(|(k, v)| (k.to_string(), v)).collect()
}

/// The form as the API's body for a new rule (without `account_id`), and for each condition
/// of the body the form row it came from.
fn body_of(form: &Form) -> (Map<String, Value>, Vec<usize>) {
    let text = |name: &str| form.get(name).map(str::trim).unwrap_or("").to_string();
    // A whole number as a JSON number; anything else as sent, for the API to name.
    let number = |s: String| s.parse::<i64>().map_or(Value::from(s), Value::from);
    let row = |i: usize| move |name: &str| text(&format!("{name}{i}"));
    let filled = |i: &usize| ["metric", "value", "window"].map(row(*i)) != ["", "", ""];
    let rows: Vec<usize> = (0..ROWS).filter(filled).collect();
    let conditions: Vec<Value> = rows
        .iter()
        .map(|i| {
            let f = row(*i);
            Value::Object(object([
                ("metric", f("metric").into()),
                ("op", f("op").into()),
                ("value", f("value").into()),
                ("window_hours", number(f("window"))),
            ]))
        })
        .collect();
    let scope = match text("scope").as_str() {
        "group" => json!({ "group_id": number(text("group_id")) }),
        "ads" => {
            let ids = text("ad_ids");
            let ids = ids.split([',', ' ']).filter(|s| !s.is_empty());
            json!({ "ad_ids": ids.map(|id| number(id.into())).collect::<Vec<_>>() })
        }
        _ => json!({}),
    };
    let kind = text("action");
    let fields = ActionKind::parse(&kind).map_or(&[][..], ActionKind::fields);
    let action = [("type", kind.into())]
        .into_iter()
        .chain(fields.iter().map(|f| (*f, Value::from(text(f)))));
    let body = object([
        ("name", text("name").into()),
        ("scope", scope),
        ("match", text("match").into()),
        ("conditions", conditions.into()),
        ("action", object(action).into()),
        ("cooldown_hours", number(text("cooldown_hours"))),
        ("max_runs_per_day", number(text("max_runs_per_day"))),
        ("dry_run", (text("dry_run") == "1").into()),
    ]);
    (body, rows)
}

/// Where on the form a refusal naming `param` is shown.
fn slot(param: &str, rows: &[usize]) -> String {
    let row = param
        .strip_prefix("conditions[")
        .and_then(|rest| rest.split(']').next()?.parse::<usize>().ok())
        .and_then(|j| rows.get(j));
    if let Some(row) = row {
        return format!("row{row}");
    }
    match param.split(['.', '[']).next().unwrap_or("") {
        head @ ("account_id" | "name" | "scope" | "match" | "conditions" | "action"
        | "cooldown_hours" | "max_runs_per_day" | "dry_run") => head.into(),
        _ => "form".into(),
    }
}

/// `POST /rules`: a new rule, read and checked as `POST /api/v1/rules` reads and checks it; a
/// refusal is shown on the form beside the field it names.
pub async fn create<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let (body, rows) = body_of(form);
    match add(visit, session, form, body).await {
        Ok(id) => Ok(redirect(&format!("/rules#rule-{id}"))),
        Err(OpsError::Invalid(e)) => {
            let refused = Refused {
                sent: form,
                slot: slot(&e.param, &rows),
                param: e.param,
                message: e.message,
            };
            render(visit, session, Some(refused)).await
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
    let account = form.get("account_id").and_then(|a| a.parse::<i64>().ok());
    let actor = account
        .ok_or_else(|| "Choose a cabinet.".to_string())
        .and_then(|a| session.person.actor(a).map_err(|e| e.sentence()))
        .map_err(|why| ParseError::new("account_id", why))?;
    let spec = rule_ops::read(&Value::Object(body), actor.cabinet().cabinet_type, None)?;
    let db = &visit.state.services.db;
    Ok(db
        .write(move |tx| rule_ops::create(tx, &actor, &spec))
        .await?
        .id)
}

/// The rule `segment` names, in an active cabinet the person reaches, with its currency.
async fn reachable(
    visit: &Visit<'_>,
    session: &Session,
    segment: &str,
) -> Result<(RuleRow, CabinetType), WebError> {
    let id: i64 = segment.parse().map_err(|_| WebError::NotFound)?;
    let rule = visit.state.services.db.read(move |c| rules::get(c, id));
    let rule = rule.await?.ok_or(WebError::NotFound)?;
    let reach = session.person.cabinet(rule.account_id);
    Ok((rule, reach.ok_or(WebError::NotFound)?.cabinet.cabinet_type))
}

/// `POST /rules/{id}/enable`.
pub async fn enable<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    change(visit, session, args[0], Some(true)).await
}

/// `POST /rules/{id}/disable`.
pub async fn disable<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    change(visit, session, args[0], Some(false)).await
}

/// `POST /rules/{id}/delete`.
pub async fn delete<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    change(visit, session, args[0], None).await
}

/// Switches a rule on or off as `PATCH /api/v1/rules/{id}` with `{"enabled": on}` does, or
/// (`None`) deletes it with its log as `DELETE /api/v1/rules/{id}` does.
async fn change(
    visit: &Visit<'_>,
    session: &Session,
    segment: &str,
    enabled: Option<bool>,
) -> Result<Reply, WebError> {
    let (rule, kind) = reachable(visit, session, segment).await?;
    let actor = session.person.actor(rule.account_id)?;
    let (id, db) = (rule.id, &visit.state.services.db);
    let Some(on) = enabled else {
        db.write(move |tx| rule_ops::delete(tx, &actor, id))
            .await
            .map_err(ops_error)?;
        return Ok(redirect("/rules"));
    };
    let body = Body::of(object([("enabled", on.into())]));
    let change = rule_ops::read_change(&body, kind, &rule).map_err(|e| ops_error(e.into()))?;
    db.write(move |tx| rule_ops::update(tx, &actor, id, change))
        .await
        .map_err(ops_error)?;
    Ok(redirect(&format!("/rules#rule-{id}")))
}

/// Evaluations as the log and the preview list them: `at`, `ad_id`, `matched`, `action`,
/// `outcome` and `reason`, as in the API's answers.
fn lines_table(account: i64, lines: &[Value]) -> Markup {
    html! {
        div.table-wrap { table {
            thead { tr {
                th { "When" } th { "Campaign" } th { "Matched" } th { "Action" } th { "Outcome" } th { "Reason" }
            } }
            tbody { @for l in lines { tr {
                @let outcome = l["outcome"].as_str().unwrap_or("");
                td { (time(l["at"].as_str().unwrap_or(""))) }
                td { a href={ "/campaigns/" (account) "/" (l["ad_id"]) } { "#" (l["ad_id"]) } }
                td { (matched_words(&l["matched"])) }
                td { (change_words(&l["action"])) }
                td {
                    @let class = match outcome {
                        "acted" => "active",
                        "dry_run" | "would_act" => "review",
                        "failed" => "declined",
                        _ => "",
                    };
                    span class={ "badge " (class) } { (outcome.replace('_', " ")) }
                }
                td {
                    @if let Some(why) = l["reason"].as_str() { (why) }
                    @if let Some(warning) = l["warning"].as_str() { span.warning { (sentence(warning)) } }
                }
            } } }
        } }
    }
}

/// A page of one rule: the rule in words, then `section` (its log or its preview).
fn rule_page(
    visit: &Visit<'_>,
    session: &Session,
    (rule, kind): &(RuleRow, CabinetType),
    section: Markup,
) -> Reply {
    let body = html! {
        p.muted { a href="/rules" { "Rules" } " · #" (rule.id) " · cabinet " (rule.account_id) }
        h1 { (rule.spec.name) " " (state_badges(&rule.spec)) }
        div.card {
            (conditions_words(&rule.spec, *kind))
            p { "Then: " (action_words(&rule.spec.action, *kind)) ". " span.muted { (guards_words(&rule.spec)) } }
        }
        (section)
    };
    layout::page(visit, session, "/rules", &rule.spec.name, body)
}

/// `GET /rules/{id}/log`: the rule's last 100 evaluations, newest first.
pub async fn log<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let found = reachable(visit, session, args[0]).await?;
    let id = found.0.id;
    let entries = visit
        .state
        .services
        .db
        .read(move |c| rules::log(c, id, None, LOG));
    let reviews = visit
        .state
        .services
        .platform
        .capabilities()
        .bid_edit_reviews;
    let lines: Vec<Value> = entries
        .await?
        .into_iter()
        .map(|e| {
            json!({ "at": e.at, "ad_id": e.ad_id, "matched": e.matched, "action": e.action,
            "warning": automation::warning(&found.0, &e.outcome, reviews),
            "outcome": e.outcome, "reason": e.reason })
        })
        .collect();
    let section = html! {
        h2 { "Log" }
        @if lines.is_empty() {
            div.empty { "Nothing logged yet: after each hourly sync the log keeps what the rule did, would have done in a dry run, or what a guard held back." }
        } @else {
            p.muted { "The last " (LOG) " evaluations, newest first." }
            (lines_table(found.0.account_id, &lines))
        }
    };
    Ok(rule_page(visit, session, &found, section))
}

/// `GET /rules/{id}/preview`: what the rule would have done over the last seven days. It
/// changes nothing, so it is a page rather than a form.
pub async fn preview<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let found = reachable(visit, session, args[0]).await?;
    let (rule, kind) = found.clone();
    let who = Holder::Person(session.person.user.id);
    let state = visit.state;
    let data = match preview::kept_or_new(
        &state.services,
        &state.previews,
        &state.limiter,
        who,
        rule,
        kind,
    )
    .await
    {
        Ok(data) => data,
        Err(preview::Refused::Limited(info)) => {
            return Err(WebError::RateLimited {
                retry_after: info.retry_after(unix_now()),
            })
        }
        Err(preview::Refused::Store(e)) => return Err(e.into()),
    };
    let listed = data["evaluations"].as_array().map(Vec::as_slice);
    let lines = listed.unwrap_or_default();
    let lines = &lines[..lines.len().min(PREVIEWED)];
    let (acts, skipped) = (&data["would_act"], &data["skipped"]);
    let section = html! {
        h2 { "Preview" }
        p #preview-counts {
            "From " (time(data["from"].as_str().unwrap_or(""))) " to " (time(data["to"].as_str().unwrap_or("")))
            " the rule would have acted " strong { (acts) } " time" @if acts != 1 { "s" }
            "; its guards would have held back " strong { (skipped) } "."
        }
        p.muted { "Replayed hour by hour on the stored figures from the campaigns' state now. Nothing was changed." }
        @if let Some(warning) = data["review_warning"].as_str() {
            p.warning #review-warning role="note" { (sentence(warning)) }
        }
        @if lines.is_empty() {
            div.empty { "The conditions held on no campaign in these seven days." }
        } @else {
            p.muted { "The first " (lines.len()) " evaluations:" }
            (lines_table(found.0.account_id, lines))
        }
    };
    Ok(rule_page(visit, session, &found, section))
}
