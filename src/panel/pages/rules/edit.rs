//! Owns `/rules/{id}/edit`: a stored rule in the rule form (its conditions as rows, a tree as a
//! tree), for the cabinet's owners and managers, and saving it as `PATCH /api/v1/rules/{id}`
//! with every field does, through `ops::rule::read_change` and `ops::rule::update`; a rule
//! saved without a change is stored as it was.

use maud::html;
use serde_json::Value;

use super::super::super::session::Session;
use super::super::super::{layout, redirect, Form, Visit, WebError};
use super::super::ops_error;
use super::form::{body_of, rule_form, slot, Refused, Target};
use super::tree_form::Rows;
use super::{reachable, Reached};
use crate::domain::fields::Body;
use crate::domain::money::CabinetType;
use crate::domain::rule::{RuleSpec, Scope};
use crate::domain::ParseError;
use crate::http::Reply;
use crate::ops::rule as rule_ops;
use crate::ops::OpsError;
use crate::store::groups;

/// The form's fields of a stored rule, as a person would have filled them in.
fn form_of(account: i64, spec: &RuleSpec, kind: CabinetType) -> Form {
    let mut form = Form::default()
        .with("account_id", &account.to_string())
        .with("name", &spec.name);
    form = match &spec.scope {
        Scope::Cabinet => form.with("scope", "cabinet"),
        Scope::Group(g) => form.with("scope", "group").with("group_id", &g.to_string()),
        Scope::Ads(ads) => {
            let ids: Vec<String> = ads.iter().map(i64::to_string).collect();
            form.with("scope", "ads").with("ad_ids", &ids.join(", "))
        }
    };
    let action = spec.action.to_json(kind);
    if let Value::Object(fields) = &action {
        for (name, value) in fields {
            let text = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_string);
            form = form.with(if name == "type" { "action" } else { name }, &text);
        }
    }
    form.with("cooldown_hours", &spec.cooldown_hours.to_string())
        .with("max_runs_per_day", &spec.max_runs_per_day.to_string())
        .with("dry_run", if spec.dry_run { "1" } else { "" })
}

/// The edit page: the rule form over `sent` with `rows`, a refusal shown where it belongs.
async fn page(
    visit: &Visit<'_>,
    session: &Session,
    found: &Reached,
    refused: Refused<'_>,
    rows: &Rows,
) -> Result<Reply, WebError> {
    let account = found.rule.account_id;
    let reach = session.person.cabinet(account).ok_or(WebError::NotFound)?;
    session.person.writable(account)?;
    let listed = visit
        .state
        .services
        .db
        .read(move |c| groups::list(c, &[account]))
        .await?;
    let title = format!("{} · {}", visit.t("rules-edit-title"), found.rule.spec.name);
    let body = html! {
        header.page { div {
            h1 { (title) }
            p.muted { (found.cabinet) " · #" (found.rule.id) }
            p { a href="/rules" { (visit.t("templates-back")) } }
        } }
        (rule_form(visit.lang, session, &[reach], &listed, Some(&refused), rows, Target::Edit(found.rule.id)))
    };
    let reply = layout::page(visit, session, "/rules", &title, body);
    Ok(if refused.message.is_empty() {
        reply
    } else {
        reply.with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY)
    })
}

/// `GET /rules/{id}/edit`.
pub async fn edit<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let found = reachable(visit, session, args[0]).await?;
    let form = form_of(found.rule.account_id, &found.rule.spec, found.kind);
    let rows = Rows::of_spec(&found.rule.spec);
    page(visit, session, &found, Refused::kept(&form), &rows).await
}

/// `POST /rules/{id}/edit`: the rule as the form holds it, or the form back changed by a row's
/// button.
pub async fn save<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let found = reachable(visit, session, args[0]).await?;
    let mut rows = Rows::of_form(form);
    if let Some(edit) = form.get("edit") {
        rows.edit(edit);
        return page(visit, session, &found, Refused::kept(form), &rows).await;
    }
    let (mut body, paths) = body_of(form, &rows);
    // The form edits a rule across cabinets in place: its cabinets stay as stored (the API
    // changes them), whatever the form sent.
    if !found.rule.spec.cabinets.is_empty() {
        body.insert(
            "scope".into(),
            serde_json::json!({ "account_ids": found.rule.spec.cabinets }),
        );
    }
    let (rule, kind) = (found.rule.clone(), found.kind);
    let actor = session.person.actor(rule.account_id)?;
    // A rule across cabinets is changed only by one who may write to each of them.
    for covered in &rule.spec.cabinets {
        session.person.actor(*covered)?;
    }
    let id = rule.id;
    let changed = rule_ops::read_change(&Body::of(body), kind, &rule)
        .map_err(OpsError::from)
        .map(|change| (change, actor));

    let stored = match changed {
        Ok((change, actor)) => visit
            .state
            .services
            .db
            .write(move |tx| rule_ops::update(tx, &actor, id, change))
            .await
            .map(|_| ()),
        Err(e) => Err(e),
    };
    match stored {
        Ok(()) => Ok(redirect(&format!("/rules#rule-{id}"))),
        Err(OpsError::Invalid(e)) => {
            let refused = refusal(visit, form, e, &paths);
            page(visit, session, &found, refused, &rows).await
        }
        Err(e) => Err(ops_error(e)),
    }
}

fn refusal<'f>(
    visit: &Visit<'_>,
    form: &'f Form,
    e: ParseError,
    paths: &[(String, usize)],
) -> Refused<'f> {
    Refused {
        sent: form,
        slot: slot(&e.param, paths),
        message: super::super::why::worded(visit.lang, &e),
        param: e.param,
    }
}
