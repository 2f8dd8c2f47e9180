//! Owns `POST /v1/campaigns`, `POST /v1/campaigns/{ad_id}/copy` and `POST
//! /v1/campaigns/{ad_id}/recreate`: the body read into the create, copy or recreate command
//! (`ops::campaigns::create`, `ops::campaigns::recreate`, every field rule with its exact
//! `param`), then its task queued in the transaction that also stores the Idempotency-Key's
//! answer, so the task and the answer exist together or not at all.

use super::error::ApiError;
use super::idempotency::Claim;
use super::write::Target;
use super::{tasks, Ctx};
use crate::http::{AppState, Reply};
use crate::ops::campaigns::command::Create;
use crate::ops::campaigns::create;
use crate::ops::campaigns::recreate::{self, Recreate};

pub async fn create(state: &AppState, ctx: &Ctx, claim: Claim) -> Result<(Reply, bool), ApiError> {
    let Target { body, actor, .. } = Target::cabinet(ctx)?;
    let caps = state.services.platform.capabilities();
    let command = Create::read(&body.fields(), actor.cabinet(), caps)?;
    let kind = actor.cabinet().cabinet_type;
    tasks::queue(state, claim, kind, move |tx| {
        create::queue(tx, &actor, command)
    })
    .await
}

pub async fn copy(
    state: &AppState,
    ctx: &Ctx,
    ad: &str,
    claim: Claim,
) -> Result<(Reply, bool), ApiError> {
    let Target {
        body,
        actor,
        campaign,
    } = Target::campaign(state, ctx, ad).await?;
    let caps = state.services.platform.capabilities();
    let command = Create::copy(&body.fields(), actor.cabinet(), &campaign, caps)?;
    let kind = actor.cabinet().cabinet_type;
    tasks::queue(state, claim, kind, move |tx| {
        create::queue(tx, &actor, command)
    })
    .await
}

pub async fn recreate(
    state: &AppState,
    ctx: &Ctx,
    ad: &str,
    claim: Claim,
) -> Result<(Reply, bool), ApiError> {
    let Target {
        body,
        actor,
        campaign,
    } = Target::campaign(state, ctx, ad).await?;
    let caps = state.services.platform.capabilities();
    let kind = actor.cabinet().cabinet_type;
    let command = Recreate::read(&body.fields(), actor.cabinet(), &campaign, caps)
        .map_err(|e| ApiError::of_ops(e, kind))?;
    tasks::queue(state, claim, kind, move |tx| {
        recreate::queue(tx, &actor, command)
    })
    .await
}
