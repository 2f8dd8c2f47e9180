//! Owns `POST /v1/campaigns/bulk`: the body read as a bulk change (`ops::campaigns::bulk`), its
//! task queued under the request's idempotency claim; an id that is not a live campaign of the
//! cabinet refuses the whole call with `UNKNOWN_AD_IDS` and nothing queued. Per-campaign
//! refusals go to the task.

use super::error::ApiError;
use super::idempotency::Claim;
use super::write::Target;
use super::{tasks, Ctx};
use crate::http::{AppState, Reply};
use crate::ops::campaigns::bulk;

pub async fn bulk(state: &AppState, ctx: &Ctx, claim: Claim) -> Result<(Reply, bool), ApiError> {
    let Target { body, actor, .. } = Target::cabinet(ctx)?;
    let kind = actor.cabinet().cabinet_type;
    let caps = state.services.platform.capabilities();
    let command = bulk::read(&body.fields(), kind, caps)?;
    tasks::queue(state, claim, kind, move |tx| {
        bulk::queue(tx, &actor, command)
    })
    .await
}
