//! Owns the rules' proposals over HTTP: `GET /v1/proposals` (the pending ones of the key's
//! cabinets) and `POST /v1/proposals/{id}/approve|reject`, which decide one as the key's owner
//! through `ops::proposals` (as the panel and the bot do): a key that may write, in a cabinet
//! it reaches, where its owner has Manager or owner access.

use std::time::Duration;

use serde_json::Value;

use super::error::ApiError;
use super::Ctx;
use crate::clock;
use crate::http::{AppState, Reply};
use crate::ops::proposals::{self, Choice, ProposalError, Via};
use crate::store::proposals as store;

pub async fn list(state: &AppState, ctx: &Ctx) -> Result<Reply, ApiError> {
    let reach = ctx.principal.scope(ctx.query.account_id()?)?;
    let accounts: Vec<i64> = reach.iter().map(|r| r.cabinet.id).collect();
    let list = state
        .services
        .db
        .read(move |c| store::named(c, None, &accounts, &clock::iso(clock::now(c)?)))
        .await?;
    Reply::ok(Value::Array(list.iter().map(proposals::describe).collect()))
}

pub async fn approve(state: &AppState, ctx: &Ctx, id: &str) -> Result<Reply, ApiError> {
    decide(state, ctx, id, Choice::Approve).await
}

pub async fn reject(state: &AppState, ctx: &Ctx, id: &str) -> Result<Reply, ApiError> {
    decide(state, ctx, id, Choice::Reject).await
}

async fn decide(state: &AppState, ctx: &Ctx, id: &str, choice: Choice) -> Result<Reply, ApiError> {
    let id = crate::domain::id::parse("id", id)?;
    let found = state.services.db.read(move |c| store::get(c, id)).await?;
    let account = found.ok_or(ApiError::ProposalNotFound)?.account_id;
    ctx.principal
        .cabinet(account)
        .map_err(|_| ApiError::ProposalNotFound)?;
    ctx.principal.check_write_key()?;
    let user = ctx.principal.user.id;
    let wait = Duration::from_millis(state.services.config.platform.call_timeout_ms);
    let decided = state
        .platform_call(wait, move |s| {
            proposals::decide(s, user, Via::Api, id, choice)?;
            let named = proposals::get_for(s, user, id)?;
            Ok::<_, ProposalError>(named)
        })
        .await?
        .ok_or(ApiError::PlatformUnavailable {
            what: "did not answer in time (the decision goes on and is stored)",
        })?;
    match decided {
        Ok(Some(named)) => Reply::ok(proposals::describe(&named)),
        Ok(None) | Err(ProposalError::NotFound) => Err(ApiError::ProposalNotFound),
        Err(ProposalError::NoAccess(e)) => Err(ApiError::Auth(e)),
        Err(ProposalError::Decided(state)) => Err(ApiError::ProposalDecided { state }),
        Err(ProposalError::Store(e)) => Err(e.into()),
    }
}
