//! Owns what every write shares: the write target (its body, the cabinet it acts on after the
//! cabinet-level checks, and the live campaign it changes), a platform call with the
//! platform's refusals mapped to the spec's codes, and the fields a create, an edit and a copy
//! read alike.

use std::time::Duration;

use serde_json::{Map, Value};

use super::error::ApiError;
use super::input::{self, Fields};
use super::{request, AppState, Ctx};
use crate::domain::campaign::{Status, TargetType};
use crate::domain::link::PromoteLink;
use crate::domain::money::{CabinetType, Money, MAX_MICROS};
use crate::domain::schedule::Schedule;
use crate::domain::targeting::BUTTONS;
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
        let body = input::object(&ctx.body)?;
        let account = input::account_id(&mut Fields::new(&body, ""))?;
        let cabinet = cabinet(ctx, account)?.cabinet.clone();
        Ok(Target {
            body,
            cabinet,
            campaign: (),
        })
    }
}

impl Target<CampaignRow> {
    /// A write to a live campaign the caller already checked its right to change (the web
    /// panel, for a person): `body` as an API client would send it.
    pub fn of(body: Map<String, Value>, cabinet: Cabinet, campaign: CampaignRow) -> Self {
        Target {
            body,
            cabinet,
            campaign,
        }
    }

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
        fields.raw(input::account_field(&fields));
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
    check_platform_session(&reach.cabinet)?;
    Ok(reach)
}

/// Refuses a write to a cabinet whose platform session expired or that automatic management
/// locked.
pub fn check_platform_session(cabinet: &Cabinet) -> Result<(), ApiError> {
    if cabinet.auth_expired {
        return Err(ApiError::CabinetAuthExpired);
    }
    if cabinet.locked {
        return Err(ApiError::CabinetLocked);
    }
    Ok(())
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
        .map_err(|e| platform_error(e, kind))
}

/// The API error for a platform refusal, with the low bid's minimum in the cabinet currency.
pub fn platform_error(e: PlatformError, kind: CabinetType) -> ApiError {
    match e {
        PlatformError::Timeout | PlatformError::RateLimited(_) => ApiError::PlatformUnavailable,
        PlatformError::StorageFull => ApiError::StorageFull,
        PlatformError::Internal(detail) => ApiError::Internal(detail),
        PlatformError::AuthExpired => ApiError::CabinetAuthExpired,
        PlatformError::NotFound => ApiError::CampaignNotFound,
        PlatformError::Rejected {
            reason,
            param,
            min_cpm,
        } => ApiError::PlatformRejected {
            reason,
            param: param.map(str::to_string),
            currency: min_cpm.map(|_| kind.currency()),
            min_cpm: min_cpm.map(|m| kind.render(m)),
        },
        PlatformError::InsufficientBalance => ApiError::PlatformRejected {
            reason: "The cabinet balance is too low.".into(),
            param: Some("amount".into()),
            min_cpm: None,
            currency: None,
        },
        e @ (PlatformError::Refused(_) | PlatformError::Unsupported(_)) => {
            ApiError::PlatformRejected {
                reason: e.to_string(),
                param: None,
                min_cpm: None,
                currency: None,
            }
        }
    }
}

/// A bid: greater than zero, at the currency's scale.
pub fn cpm(f: &mut Fields, kind: CabinetType) -> Result<Option<Money>, ApiError> {
    f.positive_money("cpm", kind.scale())
}

/// A budget: `0` or at least the cabinet's `min_budget`.
pub fn budget(f: &mut Fields, cabinet: &Cabinet) -> Result<Option<Money>, ApiError> {
    let budget = f.money("budget", cabinet.cabinet_type.scale())?;
    if let Some(b) = budget {
        check_budget_floor(b, cabinet).map_err(|m| ApiError::validation(f.path("budget"), m))?;
    }
    Ok(budget)
}

/// Refuses an amount left on a campaign between zero and `min_budget`.
pub fn check_budget_floor(budget: Money, cabinet: &Cabinet) -> Result<(), String> {
    let floor = Money::from_units(cabinet.min_budget).unwrap_or(Money::from_micros(MAX_MICROS));
    if budget.micros() != 0 && budget < floor {
        return Err(format!(
            "A campaign's budget is 0 or at least the cabinet's min_budget of {} {}.",
            cabinet.min_budget,
            cabinet.cabinet_type.currency()
        ));
    }
    Ok(())
}

pub fn promote_url(f: &mut Fields) -> Result<Option<String>, ApiError> {
    let Some(url) = f.string("promote_url")? else {
        return Ok(None);
    };
    PromoteLink::parse(&url).map_err(|e| ApiError::validation(f.path("promote_url"), e))?;
    Ok(Some(url.trim().to_string()))
}

/// `button`: one of the spec's buttons, on a cabinet whose ad form has one; `null` clears it.
pub fn button(f: &mut Fields, cabinet: &Cabinet) -> Result<Option<Option<String>>, ApiError> {
    let Some(value) = f.raw("button") else {
        return Ok(None);
    };
    let path = f.path("button");
    if value.is_null() {
        return Ok(Some(None));
    }
    if !cabinet.ad_button {
        return Err(ApiError::validation(
            path,
            "This cabinet's ad form has no button.",
        ));
    }
    match value.as_str().filter(|b| BUTTONS.contains(b)) {
        Some(b) => Ok(Some(Some(b.to_string()))),
        None => Err(ApiError::validation(
            path,
            format!("button must be one of {}.", BUTTONS.join(", ")),
        )),
    }
}

/// `schedule`: an object (parsed) or `null` to remove it.
pub fn schedule(
    f: &mut Fields,
    target: Option<TargetType>,
) -> Result<Option<Option<Schedule>>, ApiError> {
    let Some(value) = f.raw("schedule") else {
        return Ok(None);
    };
    if value.is_null() {
        return Ok(Some(None));
    }
    Ok(Some(Some(Schedule::parse(
        value,
        &f.path("schedule"),
        target,
    )?)))
}

/// A schedule choice in the form the ad values carry it: the normalised object, or `None`.
pub fn schedule_json(schedule: Option<Schedule>) -> Option<Value> {
    schedule.as_ref().map(Schedule::to_json)
}

/// An optional string that `null` clears.
pub fn clearable_string(f: &mut Fields, name: &str) -> Result<Option<Option<String>>, ApiError> {
    match f.raw(name) {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::String(s)) => Ok(Some(Some(s.clone()))),
        Some(_) => Err(ApiError::validation(
            f.path(name),
            format!("{name} must be a string or null."),
        )),
    }
}

/// `daily_budget`: an amount greater than zero, or `null` to remove the cap.
pub fn daily_budget(f: &mut Fields, kind: CabinetType) -> Result<Option<Option<Money>>, ApiError> {
    if matches!(f.raw("daily_budget"), Some(Value::Null)) {
        return Ok(Some(None));
    }
    Ok(f.positive_money("daily_budget", kind.scale())?.map(Some))
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
