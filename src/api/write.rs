//! Owns what every write shares: the write target (its body, the key's actor on the cabinet it
//! acts on after the cabinet-level checks, and the live campaign it changes), and running an
//! operation with the platform's deadline, its failures mapped to the spec's codes.

use std::time::Duration;

use super::error::ApiError;
use super::{request, AppState, Ctx};
use crate::domain::campaign::{Source, Status};
use crate::domain::fields::Body;
use crate::domain::money::CabinetType;
use crate::ops::{Actor, OpsError};
use crate::platform::{PlatformError, Unreachable};
use crate::services::Services;
use crate::store::campaigns::{self, CampaignRow};

/// What a write with a JSON body acts on: its body, the key's actor on the cabinet (the body's
/// `account_id`, the query's, or the key's only one, after the cabinet-level checks) and, for
/// a write to one campaign, that live campaign. Loaded in the order their refusals take
/// precedence: the campaign id in the path, the body, the cabinet, the campaign.
pub struct Target<C = ()> {
    pub body: Body,
    pub actor: Actor,
    pub campaign: C,
}

impl Target {
    /// A write to the cabinet (create, bulk, a new rule).
    pub fn cabinet(ctx: &Ctx) -> Result<Target, ApiError> {
        let body = Body::parse(&ctx.body)?;
        let actor = actor(ctx, body.account_id()?)?;
        Ok(Target {
            body,
            actor,
            campaign: (),
        })
    }
}

impl Target<CampaignRow> {
    /// A write to the campaign `ad` names (edit, budget, copy).
    pub async fn campaign(
        state: &AppState,
        ctx: &Ctx,
        ad: &str,
    ) -> Result<Target<CampaignRow>, ApiError> {
        let ad = request::ad_id(ad)?;
        let Target { body, actor, .. } = Target::cabinet(ctx)?;
        let campaign = live_campaign(state, actor.cabinet().id, ad).await?;
        Ok(Target {
            body,
            actor,
            campaign,
        })
    }
}

/// The key's actor on the cabinet a write acts on: named (body or query) or the key's only
/// one, with write access, an owner with a subscription, a live platform session and no
/// automatic lock.
pub fn actor(ctx: &Ctx, account: Option<i64>) -> Result<Actor, ApiError> {
    let account = match account {
        Some(id) => Some(id),
        None => ctx.query.account_id()?,
    };
    let reach = ctx.principal.single(account)?;
    Ok(Actor::writer(Source::Api, ctx.principal.user.id, reach)?)
}

/// The stored campaign a write changes; deleted ones are not found.
pub async fn live_campaign(
    state: &AppState,
    account: i64,
    ad: i64,
) -> Result<CampaignRow, ApiError> {
    state
        .services
        .db
        .read(move |c| campaigns::get(c, account, ad))
        .await?
        .filter(|row| row.status != Status::Deleted)
        .ok_or(ApiError::CampaignNotFound)
}

/// Runs an operation that asks the platform, waiting at most `platform.call_timeout_ms` for
/// it (then `PLATFORM_UNAVAILABLE`, while the operation goes on and stores what it made); its
/// failures become the spec's errors, a low bid's minimum in the currency of `kind`.
pub async fn run<T, F>(state: &AppState, kind: CabinetType, op: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Services) -> Result<T, OpsError> + Send + 'static,
{
    let wait = Duration::from_millis(state.services.config.platform.call_timeout_ms);
    state
        .platform_call(wait, op)
        .await?
        .unwrap_or(Err(OpsError::Platform(PlatformError::Unreachable(
            Unreachable::Timeout,
        ))))
        .map_err(|e| ApiError::of_ops(e, kind))
}
