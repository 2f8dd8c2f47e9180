//! Owns the automation rules over HTTP: `GET/POST /v1/rules` (a rule, or one from a template
//! of `GET /v1/rule-templates`), `GET/PATCH/DELETE /v1/rules/{id}`, `GET /v1/rules/{id}/log`
//! and `POST /v1/rules/{id}/preview`. A rule's body
//! is read, and the rule created, changed or deleted, by `ops::rule`, as the panel's forms are.

use serde_json::{json, Value};

use super::error::ApiError;
use super::write::{self, Target};
use super::Ctx;
use crate::domain::fields::Body;
use crate::domain::money::CabinetType;
use crate::domain::rule::templates::TEMPLATES;
use crate::http::{AppState, Reply};
use crate::jobs::automation::{self, preview};
use crate::ops::rule as rule_ops;
use crate::ops::Actor;
use crate::primitives::unix_now;
use crate::ratelimit::Holder;
use crate::store::rules::{self, RuleRow};

/// Log entries a page lists by default, and at most.
const LOG_PAGE: i64 = 100;
const LOG_PAGE_MAX: i64 = 500;

fn rule_id(segment: &str) -> Result<i64, ApiError> {
    Ok(crate::domain::id::parse("id", segment)?)
}

/// The rule `segment` names, in a cabinet the key reaches, with that cabinet's currency.
async fn reachable(
    state: &AppState,
    ctx: &Ctx,
    segment: &str,
) -> Result<(RuleRow, CabinetType), ApiError> {
    let id = rule_id(segment)?;
    let rule = state
        .services
        .db
        .read(move |c| rules::get(c, id))
        .await?
        .ok_or(ApiError::RuleNotFound)?;
    let reach = ctx
        .principal
        .cabinet(rule.account_id)
        .map_err(|_| ApiError::RuleNotFound)?;
    let kind = reach.cabinet.cabinet_type;
    // A rule across cabinets is the caller's to read only where it reaches every one of them.
    if !reaches_all(ctx, &rule) {
        return Err(ApiError::RuleNotFound);
    }
    Ok((rule, kind))
}

/// Whether the caller reaches every cabinet `rule` covers.
fn reaches_all(ctx: &Ctx, rule: &RuleRow) -> bool {
    rule.spec
        .cabinets
        .iter()
        .all(|id| ctx.principal.cabinet(*id).is_ok())
}

/// The caller's write actors on `cabinets` (a rule across cabinets, its home first), each
/// refusal naming where the body lists the cabinet.
fn writers(ctx: &Ctx, cabinets: &[i64]) -> Result<Vec<Actor>, ApiError> {
    cabinets
        .iter()
        .enumerate()
        .map(|(i, id)| {
            write::actor(ctx, Some(*id)).map_err(|e| match e {
                ApiError::Auth(error) => ApiError::AuthAt {
                    error,
                    param: format!("scope.account_ids[{i}]"),
                },
                other => other,
            })
        })
        .collect()
}

/// The writers a change of `rule` needs: on every cabinet it covers now and after `body`
/// (one cabinet's rule: its own).
fn writers_of(ctx: &Ctx, rule: &RuleRow, body: &Body) -> Result<Vec<Actor>, ApiError> {
    let after = match rule_ops::listed(&body.fields())? {
        Some(list) => list,
        None if body.has("scope") => Vec::new(),
        None => rule.spec.cabinets.clone(),
    };
    for (i, id) in rule.spec.cabinets.iter().enumerate() {
        if !after.contains(id) {
            writers(ctx, &[*id]).map_err(|e| match e {
                ApiError::AuthAt { error, .. } => ApiError::AuthAt {
                    error,
                    param: format!("rule.scope.account_ids[{i}]"),
                },
                other => other,
            })?;
        }
    }
    if after.is_empty() {
        return Ok(vec![write::actor(ctx, Some(rule.account_id))?]);
    }
    writers(ctx, &after)
}

pub async fn list(state: &AppState, ctx: &Ctx) -> Result<Reply, ApiError> {
    let reach = ctx.principal.scope(ctx.query.account_id()?)?;
    let kinds: Vec<(i64, CabinetType)> = reach
        .iter()
        .map(|r| (r.cabinet.id, r.cabinet.cabinet_type))
        .collect();
    let accounts: Vec<i64> = kinds.iter().map(|(id, _)| *id).collect();
    let list = state
        .services
        .db
        .read(move |c| rules::list(c, &accounts))
        .await?;
    let data: Vec<Value> = list
        .iter()
        .filter(|r| reaches_all(ctx, r))
        .filter_map(|r| {
            // A rule across cabinets listed under one of them: in its home cabinet's currency.
            let kind = match kinds.iter().find(|(id, _)| *id == r.account_id) {
                Some((_, kind)) => *kind,
                None => {
                    ctx.principal
                        .cabinet(r.account_id)
                        .ok()?
                        .cabinet
                        .cabinet_type
                }
            };
            Some(rule_ops::describe(r, kind))
        })
        .collect();
    Reply::ok(Value::Array(data))
}

pub async fn create(state: &AppState, ctx: &Ctx) -> Result<Reply, ApiError> {
    let body = Body::parse(&ctx.body)?;
    if let Some(cabinets) = rule_ops::listed(&body.fields())? {
        if body.account_id()?.is_some() {
            return Err(ApiError::validation(
                "account_id",
                "A rule across cabinets names them in scope.account_ids, without account_id.",
            ));
        }
        let actors = writers(ctx, &cabinets)?;
        let kind = actors[0].cabinet().cabinet_type;
        let spec = rule_ops::read(&body.fields(), kind, None)?;
        let rule = state
            .services
            .db
            .write(move |tx| rule_ops::create_across(tx, &actors, &spec))
            .await
            .map_err(|e| ApiError::of_ops(e, kind))?;
        return Reply::ok(rule_ops::describe(&rule, kind));
    }
    let Target { body, actor, .. } = Target::cabinet(ctx)?;
    let kind = actor.cabinet().cabinet_type;
    let fields = body.fields();
    let spec = if rule_ops::template::asks(&fields) {
        rule_ops::template::read(&fields, kind)?
    } else {
        rule_ops::read(&fields, kind, None)?
    };
    let rule = state
        .services
        .db
        .write(move |tx| rule_ops::create(tx, &actor, &spec))
        .await
        .map_err(|e| ApiError::of_ops(e, kind))?;
    Reply::ok(rule_ops::describe(&rule, kind))
}

/// `GET /v1/rule-templates`: the built-in library, the same for every key.
pub async fn templates(_state: &AppState, _ctx: &Ctx) -> Result<Reply, ApiError> {
    let list = TEMPLATES.iter().map(|t| t.to_json()).collect();
    Reply::ok(Value::Array(list))
}

pub async fn get(state: &AppState, ctx: &Ctx, id: &str) -> Result<Reply, ApiError> {
    let (rule, kind) = reachable(state, ctx, id).await?;
    Reply::ok(rule_ops::describe(&rule, kind))
}

pub async fn edit(state: &AppState, ctx: &Ctx, id: &str) -> Result<Reply, ApiError> {
    let (rule, kind) = reachable(state, ctx, id).await?;
    let body = Body::parse(&ctx.body)?;
    let actors = writers_of(ctx, &rule, &body)?;
    let change = rule_ops::read_change(&body, kind, &rule)?;
    let id = rule.id;
    let rule = state
        .services
        .db
        .write(move |tx| rule_ops::update_across(tx, &actors, id, change))
        .await
        .map_err(|e| ApiError::of_ops(e, kind))?;
    Reply::ok(rule_ops::describe(&rule, kind))
}

pub async fn delete(state: &AppState, ctx: &Ctx, id: &str) -> Result<Reply, ApiError> {
    let (rule, kind) = reachable(state, ctx, id).await?;
    let actor = write::actor(ctx, Some(rule.account_id))?;
    writers(ctx, &rule.spec.cabinets)?;
    let id = rule.id;
    state
        .services
        .db
        .write(move |tx| rule_ops::delete(tx, &actor, id))
        .await
        .map_err(|e| ApiError::of_ops(e, kind))?;
    Reply::ok(json!({ "id": id, "account_id": rule.account_id, "deleted": true }))
}

pub async fn log(state: &AppState, ctx: &Ctx, id: &str) -> Result<Reply, ApiError> {
    let (rule, _) = reachable(state, ctx, id).await?;
    let limit = ctx.query.int("limit", 1, LOG_PAGE_MAX)?.unwrap_or(LOG_PAGE);
    let before = ctx.query.int("before", 1, i64::MAX)?;
    let id = rule.id;
    let entries = state
        .services
        .db
        .read(move |c| rules::log(c, id, before, limit as usize))
        .await?;
    let next = (entries.len() as i64 == limit)
        .then(|| entries.last().map(|e| e.id))
        .flatten();
    let reviews = state.services.platform.capabilities().bid_edit_reviews;
    let data: Vec<Value> = entries
        .into_iter()
        .map(|e| {
            json!({
                "id": e.id,
                "at": e.at,
                "ad_id": e.ad_id,
                "warning": automation::warning(&rule, &e.outcome, reviews),
                "outcome": e.outcome,
                "reason": e.reason,
                "matched": e.matched,
                "action": e.action,
            })
        })
        .collect();
    Reply::ok_meta(
        Value::Array(data),
        json!({ "limit": limit, "next_before": next }),
    )
}

/// `POST /v1/rules/{id}/preview`: any key may ask; a preview not kept from earlier this hour
/// also counts against the key's write budget, whose figures the headers then show.
pub async fn preview(state: &AppState, ctx: &Ctx, id: &str) -> Result<Reply, ApiError> {
    let (rule, kind) = reachable(state, ctx, id).await?;
    let who = Holder::Key(ctx.principal.key.id);
    match preview::kept_or_new(
        &state.services,
        &state.previews,
        &state.limiter,
        who,
        rule,
        kind,
    )
    .await
    {
        Ok(data) => Reply::ok(data.as_ref().clone()),
        Err(preview::Refused::Limited(info)) => {
            *ctx.rate.lock().unwrap_or_else(|p| p.into_inner()) = Some(info);
            Err(ApiError::RateLimited {
                retry_after: info.retry_after(unix_now()),
            })
        }
        Err(preview::Refused::Store(e)) => Err(e.into()),
    }
}
