//! Owns what every write shares: the write target (its body, the cabinet it acts on after the
//! cabinet-level checks, and the live campaign it changes), a platform call with the
//! platform's refusals mapped to the spec's codes, and the fields a create, an edit and a copy
//! read alike.

use std::time::Duration;

use serde_json::{Map, Value};

use super::error::ApiError;
use super::{request, AppState, Ctx};
use crate::domain::campaign::Status;
use crate::domain::fields::{self, Fields};
use crate::domain::money::CabinetType;
use crate::platform::{Platform, PlatformError};
use crate::store::cabinets::{Cabinet, Reachable};
use crate::store::campaigns::{self, CampaignRow};
use crate::store::media;

/// What a write with a JSON body acts on: its body, the cabinet (the body's `account_id`, the
/// query's, or the key's only one, after the cabinet-level checks) and, for a write to one
/// campaign, that live campaign. Loaded in the order their refusals take precedence: the
/// campaign id in the path, the body, the cabinet, the campaign.
pub struct Target<C = ()> {
    body: Map<String, Value>,
    pub cabinet: Cabinet,
    pub campaign: C,
}

impl Target {
    /// A write to the cabinet (create, bulk).
    pub fn cabinet(ctx: &Ctx) -> Result<Target, ApiError> {
        let body = fields::object(&ctx.body)?;
        let account = fields::account_id(&mut Fields::new(&body, ""))?;
        let cabinet = cabinet(ctx, account)?.cabinet.clone();
        Ok(Target {
            body,
            cabinet,
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
        let Target { body, cabinet, .. } = Target::cabinet(ctx)?;
        let campaign = live_campaign(state, cabinet.id, ad).await?;
        Ok(Target {
            body,
            cabinet,
            campaign,
        })
    }
}

impl<C> Target<C> {
    /// The body as a change's history details: as sent, without the cabinet's id.
    pub fn details(&self) -> Map<String, Value> {
        let mut details = self.body.clone();
        details.remove("account_id");
        details.remove("accountId");
        details
    }

    /// The body's fields for the handler to read, the cabinet's id among those read.
    pub fn fields(&self) -> Fields<'_> {
        let mut fields = Fields::new(&self.body, "");
        fields.raw(fields::account_field(&fields));
        fields
    }
}

/// The cabinet a write acts on: named (body or query) or the key's only one, with write
/// access, an owner with a subscription, a live platform session and no automatic lock.
pub fn cabinet(ctx: &Ctx, account: Option<i64>) -> Result<&Reachable, ApiError> {
    let account = match account {
        Some(id) => Some(id),
        None => ctx.query.account_id()?,
    };
    let reach = ctx.principal.single(account)?;
    crate::auth::check_write_cabinet(reach)?;
    Ok(reach)
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

/// Runs a platform call off the runtime, waiting at most `platform.call_timeout_ms` for it
/// (then `PLATFORM_UNAVAILABLE`); its refusals become the spec's errors.
pub async fn platform<T, F>(state: &AppState, kind: CabinetType, call: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&dyn Platform) -> Result<T, PlatformError> + Send + 'static,
{
    let wait = Duration::from_millis(state.services.config.platform.call_timeout_ms);
    state
        .platform_call(wait, move |s| call(s.platform.as_ref()))
        .await?
        .unwrap_or(Err(PlatformError::Timeout))
        .map_err(|e| ApiError::of_platform(e, kind))
}

/// `media`: a token uploaded to this very cabinet; returns the token and its media type.
pub async fn media(
    state: &AppState,
    token: Option<String>,
    param: String,
    account: i64,
) -> Result<Option<(String, String)>, ApiError> {
    let Some(token) = token else {
        return Ok(None);
    };
    let lookup = token.clone();
    let found = state
        .services
        .db
        .read(move |c| media::get(c, &lookup))
        .await?;
    match found {
        Some(m) if m.account_id == account => Ok(Some((token, m.media_type))),
        Some(_) => Err(ApiError::validation(
            param,
            "This media token belongs to another cabinet.",
        )),
        None => Err(ApiError::validation(param, "Unknown media token.")),
    }
}
