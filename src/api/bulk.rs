//! Owns `POST /v1/campaigns/bulk`: the body read as a bulk change (`ops::campaigns::bulk`), its
//! task queued under the request's idempotency claim; an id that is not a live campaign of the
//! cabinet refuses the whole call with `UNKNOWN_AD_IDS` and nothing queued. Per-campaign
//! refusals go to the task.

use super::error::ApiError;
use super::idempotency::Claim;

use super::write::Target;
use super::Ctx;
use crate::domain::campaign::Source;
use crate::http::AppState;
use crate::http::Reply;
use crate::ops::campaigns::bulk;

pub async fn bulk(state: &AppState, ctx: &Ctx, claim: Claim) -> Result<(Reply, bool), ApiError> {
    let target = Target::cabinet(ctx)?;
    let kind = target.cabinet.cabinet_type;
    let caps = state.services.platform.capabilities();
    let (action, ids) = bulk::parse(&mut target.fields(), kind, caps)?;
    let owner = ctx.principal.user.id;
    let account = target.cabinet.id;
    let reply = state
        .services
        .db
        .write(move |tx| {
            let task = bulk::new_task(tx, owner, account, Source::Api, action, ids)
                .map_err(|e| ApiError::of_ops(e, kind))?;
            super::tasks::queue(tx, &task.as_new(), &claim)
        })
        .await?;
    state.wake.notify_one();
    Ok((reply, true))
}
