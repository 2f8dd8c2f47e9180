//! Owns `/rules`: the automation rules of the cabinets a person reaches, each in sentences of
//! the page's language (scope, conditions, action, guards, state), and for owners and managers
//! the buttons that switch a rule on or off and delete it. `form` holds the new rule's form,
//! `templates` the template library's forms, `log` a rule's log and preview, `words` the
//! sentences.

mod edit;
mod form;
mod log;
mod templates;
mod tree_form;
mod words;

pub use edit::{edit, save};
pub use form::create;
pub use log::{log, preview};
pub use templates::{create as create_from_template, templates};

use std::collections::HashMap;

use maud::{html, Markup};

use super::super::session::{Person, Session};
use super::super::{export, layout, redirect, Form, Visit, WebError};
use super::ops_error;
use crate::domain::fields::Body;
use crate::domain::money::CabinetType;
use crate::domain::rule::Scope;
use crate::http::Reply;
use crate::i18n::Lang;
use crate::ops::rule as rule_ops;
use crate::store::cabinets::Reachable;
use crate::store::groups::{self, Group};
use crate::store::rules::{self, RuleRow};
use crate::store::{campaigns, StoreError};
use form::{object, rule_form, Refused, Target};
use tree_form::Rows;
use words::{
    across_words, action_words, conditions_words, guards_words, scope_words, state_badges,
};

pub async fn list<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    render(visit, session, None).await
}

/// What the list reads: the rules, the groups, and the titles of the campaigns rules name.
type Listed = (Vec<RuleRow>, Vec<Group>, HashMap<(i64, i64), String>);

async fn render(
    visit: &Visit<'_>,
    session: &Session,
    refused: Option<Refused<'_>>,
) -> Result<Reply, WebError> {
    let rows = refused
        .as_ref()
        .map_or_else(Rows::new, |r| Rows::of_form(r.sent));
    render_rows(visit, session, refused, rows).await
}

/// The page with the form as sent and its rows changed by a row's button.
async fn render_with(
    visit: &Visit<'_>,
    session: &Session,
    form: &Form,
    rows: Rows,
) -> Result<Reply, WebError> {
    render_rows(visit, session, Some(Refused::kept(form)), rows).await
}

async fn render_rows(
    visit: &Visit<'_>,
    session: &Session,
    refused: Option<Refused<'_>>,
    rows: Rows,
) -> Result<Reply, WebError> {
    let person = &session.person;
    let lang = visit.lang;
    let accounts: Vec<i64> = person.active().map(|r| r.cabinet.id).collect();
    let found = visit.state.services.db.read(move |c| {
        let found = rules::list(c, &accounts)?;
        let mut titles = HashMap::new();
        for r in &found {
            if let Scope::Ads(ads) = &r.spec.scope {
                for (ad, title) in campaigns::titles(c, r.account_id, ads)? {
                    titles.insert((r.account_id, ad), title);
                }
            }
        }
        Ok::<Listed, StoreError>((found, groups::list(c, &accounts)?, titles))
    });
    let (mut found, groups, titles) = found.await?;
    // A rule across cabinets shows where the person reaches every cabinet it covers, under each.
    found.retain(|r| r.spec.cabinets.iter().all(|c| person.cabinet(*c).is_some()));
    if let Some(format) = export::Format::requested(visit)? {
        return download(person, &found).reply(format);
    }
    let writable: Vec<&Reachable> = person
        .active()
        .filter(|r| person.writable(r.cabinet.id).is_ok())
        .collect();
    let title = visit.t("rules-title");
    let body = html! {
        header.page {
            div {
                h1 { (title) }
                p.muted { (visit.t("rules-lead")) }
            }
            @if !found.is_empty() { (export::links(visit, "/rules")) }
        }
        @if person.active().next().is_none() {
            div.empty { (visit.t("rules-no-cabinets")) }
        }
        @for reach in person.active() {
            @let id = reach.cabinet.id;
            @let mine: Vec<&RuleRow> = found.iter().filter(|r| r.account_id == id || r.spec.cabinets.contains(&id)).collect();
            h2 { (reach.cabinet.name) " " span.muted { "· " (id) } }
            @if mine.is_empty() {
                div.empty { (visit.t("rules-none")) }
            } @else {
                (table(visit, session, reach, &mine, &groups, &titles))
            }
        }
        h2 { (visit.t("rules-new")) }
        p { a href="/rules/templates" { (visit.t("templates-link")) } }
        @if writable.is_empty() {
            div.empty { (visit.t("rules-new-refused")) " "
                @if let Some(Err(why)) = person.active().next().map(|r| person.writable(r.cabinet.id)) { (why.sentence()) } }
            @if let Some(r) = &refused { p.error role="alert" data-param=(r.param) { (r.message) } }
        } @else {
            (rule_form(lang, session, &writable, &groups, refused.as_ref(), &rows, Target::New))
        }
    };
    let reply = layout::page(visit, session, "/rules", &title, body);
    Ok(match refused {
        Some(r) if !r.message.is_empty() => {
            reply.with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY)
        }
        Some(_) | None => reply,
    })
}

/// The columns of the rules' download: the API's rule object, field by field.
const COLUMNS: [&str; 14] = [
    "id",
    "account_id",
    "name",
    "enabled",
    "dry_run",
    "scope",
    "match",
    "conditions",
    "action",
    "cooldown_hours",
    "max_runs_per_day",
    "created_at",
    "updated_at",
    "every",
];

/// The rules as a download: each as the API's `GET /v1/rules` writes it.
fn download(person: &Person, found: &[RuleRow]) -> export::Table {
    let rows = found
        .iter()
        .filter_map(|r| {
            let kind = person.cabinet(r.account_id)?.cabinet.cabinet_type;
            let object = rule_ops::describe(r, kind);
            Some(
                COLUMNS
                    .iter()
                    .map(|c| export::Cell::from(&object[*c]))
                    .collect(),
            )
        })
        .collect();
    export::Table {
        name: "rules".into(),
        columns: COLUMNS.to_vec(),
        rows,
    }
}

fn table(
    visit: &Visit<'_>,
    session: &Session,
    reach: &Reachable,
    list: &[&RuleRow],
    groups: &[Group],
    titles: &HashMap<(i64, i64), String>,
) -> Markup {
    let (lang, fmt): (Lang, _) = (visit.lang, visit.fmt());
    let kind = reach.cabinet.cabinet_type;
    let account = reach.cabinet.id;
    let title = |ad: i64| titles.get(&(account, ad)).cloned();
    let can_write = session.person.writable(account).is_ok();
    let label = |key: &str| visit.t(key);
    html! {
        div.table-wrap { table.cards.rules {
            thead { tr {
                th { (label("rules-col-rule")) } th { (label("rules-col-scope")) } th { (label("rules-col-when")) }
                th { (label("rules-col-then")) } th { (label("rules-col-guards")) } th { (label("rules-col-state")) } th {}
            } }
            tbody { @for r in list { tr id={ "rule-" (r.id) } {
                td data-label=(label("rules-col-rule")) { strong { (r.spec.name) } br; span.muted { "#" (r.id) } }
                td data-label=(label("rules-col-scope")) {
                    @if r.spec.cabinets.is_empty() { (scope_words(lang, &r.spec.scope, groups, &title)) }
                    @else { (across_words(fmt, &r.spec, kind)) }
                }
                td data-label=(label("rules-col-when")) { (conditions_words(lang, &r.spec, kind)) }
                td data-label=(label("rules-col-then")) { (action_words(fmt, &r.spec.action, kind)) }
                td data-label=(label("rules-col-guards")) { (guards_words(lang, &r.spec)) }
                td data-label=(label("rules-col-state")) { (state_badges(lang, &r.spec)) }
                td data-label=(label("rules-col-actions")) {
                    a href={ "/rules/" (r.id) "/log" } { (label("rules-log")) }
                    @if can_write { " " a href={ "/rules/" (r.id) "/edit" } { (label("rules-edit")) } }
                    form method="get" action={ "/rules/" (r.id) "/preview" } {
                        button type="submit" { (label("rules-preview")) }
                    }
                    @if can_write {
                        @let (path, key) = if r.spec.enabled { ("disable", "rules-disable") } else { ("enable", "rules-enable") };
                        form method="post" action={ "/rules/" (r.id) "/" (path) } {
                            input type="hidden" name="csrf" value=(session.csrf);
                            button type="submit" { (label(key)) }
                        }
                        form method="post" action={ "/rules/" (r.id) "/delete" } {
                            input type="hidden" name="csrf" value=(session.csrf);
                            button type="submit" { (label("rules-delete")) }
                        }
                    }
                }
            } } }
        } }
    }
}

/// A rule a person reaches: the rule, its cabinet's currency and the cabinet's name.
struct Reached {
    rule: RuleRow,
    kind: CabinetType,
    cabinet: String,
}

/// The rule `segment` names, in an active cabinet the person reaches.
async fn reachable(
    visit: &Visit<'_>,
    session: &Session,
    segment: &str,
) -> Result<Reached, WebError> {
    let id: i64 = segment.parse().map_err(|_| WebError::NotFound)?;
    let rule = visit.state.services.db.read(move |c| rules::get(c, id));
    let rule = rule.await?.ok_or(WebError::NotFound)?;
    let reach = session.person.cabinet(rule.account_id);
    let reach = reach.ok_or(WebError::NotFound)?;
    if !rule
        .spec
        .cabinets
        .iter()
        .all(|c| session.person.cabinet(*c).is_some())
    {
        return Err(WebError::NotFound);
    }
    Ok(Reached {
        rule,
        kind: reach.cabinet.cabinet_type,
        cabinet: reach.cabinet.name.clone(),
    })
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
    let found = reachable(visit, session, segment).await?;
    let (rule, kind) = (found.rule, found.kind);
    let actor = session.person.actor(rule.account_id)?;
    // A rule across cabinets is changed only by one who may write to each of them.
    for covered in &rule.spec.cabinets {
        session.person.actor(*covered)?;
    }
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
