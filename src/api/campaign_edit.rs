//! Owns the campaign writes answered at once: `PATCH /v1/campaigns/{ad_id}`, `pause`,
//! `resume`, `budget` and `DELETE`: each reads its request into the operation's command,
//! runs the operation (`ops::campaigns::edit`: checks, the platform, the store, the history)
//! with the platform's deadline, and answers with the campaign as every read shows it.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::campaign_object::Full;
use super::error::ApiError;
use super::request;
use super::write::{self, Target};
use super::Ctx;
use crate::domain::fields::Fields;
use crate::domain::money::CabinetType;
use crate::http::{AppState, Reply};
use crate::ops::campaigns::edit::{self as ops, Edit};
use crate::ops::OpsError;
use crate::platform::{BudgetOp, PlatformError, Switch};
use crate::services::Services;
use crate::store::auto_cpm as auto_cpm_store;
use crate::store::history::Source;
use crate::store::{campaigns, conversions};

/// Runs an operation with the platform's deadline (`platform.call_timeout_ms`: past it
/// `PLATFORM_UNAVAILABLE`, while the operation goes on and stores what it made).
async fn run<T, F>(state: &AppState, kind: CabinetType, op: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Services) -> Result<T, OpsError> + Send + 'static,
{
    let wait = Duration::from_millis(state.services.config.platform.call_timeout_ms);
    state
        .platform_call(wait, op)
        .await?
        .unwrap_or(Err(OpsError::Platform(PlatformError::Timeout)))
        .map_err(|e| ApiError::of_ops(e, kind))
}

/// The campaign as every read answers it (with its conversions and Auto CPM), and `meta`.
async fn answer(
    state: &AppState,
    kind: CabinetType,
    (account, ad): (i64, i64),
    meta: Map<String, Value>,
) -> Result<Reply, ApiError> {
    let (row, summary, auto) = state
        .services
        .db
        .read(move |c| {
            let row = campaigns::get(c, account, ad)?.ok_or(ApiError::CampaignNotFound)?;
            let summary = conversions::summary_of(c, &row)?;
            let auto = auto_cpm_store::get(c, account, ad)?.map(|m| m.settings);
            Ok::<_, ApiError>((row, summary, auto))
        })
        .await?;
    Reply::ok_meta(
        Full::of(&row, kind)
            .with_conversions(&summary)
            .with_auto_cpm(auto.as_ref(), kind),
        Value::Object(meta),
    )
}

/// `PATCH /v1/campaigns/{ad_id}`.
pub async fn edit(state: &AppState, ctx: &Ctx, ad: &str) -> Result<Reply, ApiError> {
    let target = Target::campaign(state, ctx, ad).await?;
    let (cabinet, row) = (target.cabinet.clone(), target.campaign.clone());
    let kind = cabinet.cabinet_type;
    let (account, ad) = (cabinet.id, row.ad_id);
    let stored = state
        .services
        .db
        .read(move |c| auto_cpm_store::get(c, account, ad))
        .await?
        .map(|m| m.settings);
    let command = Edit::read(
        &mut target.fields(),
        state.services.platform.capabilities(),
        &cabinet,
        &row,
        stored,
        target.details(),
    )?;
    let edited = run(state, kind, move |s| {
        ops::edit(s, Source::Api, &cabinet, &row, command)
    })
    .await?;
    let mut meta = Map::new();
    match edited.switched {
        None => {}
        Some(Ok((Switch::Applied, _))) => {}
        Some(Ok((Switch::IntentOnly, budget))) => {
            meta.insert("status_intent_only".into(), json!(true));
            if budget.micros() == 0 {
                meta.insert(
                    "status_warning".into(),
                    json!("The campaign has no budget; the switch applies once it has."),
                );
            }
        }
        Some(Ok((Switch::AlreadySet, _))) => {
            meta.insert("status_already_set".into(), json!(true));
        }
        Some(Err(e)) => {
            let warning = ApiError::of_platform(e, kind).message();
            meta.insert("status_warning".into(), json!(warning));
        }
    }
    answer(state, kind, (account, ad), meta).await
}

/// `POST /v1/campaigns/{ad_id}/pause` and `/resume`.
pub async fn switch(
    state: &AppState,
    ctx: &Ctx,
    ad: &str,
    active: bool,
) -> Result<Reply, ApiError> {
    let ad = request::ad_id(ad)?;
    let cabinet = write::cabinet(ctx, None)?.cabinet.clone();
    let (account, kind) = (cabinet.id, cabinet.cabinet_type);
    let outcome = run(state, kind, move |s| {
        ops::switch(s, Source::Api, account, ad, active)
    })
    .await?;
    let mut meta = Map::new();
    match outcome {
        Switch::Applied => {}
        Switch::IntentOnly => {
            meta.insert("intent_only".into(), json!(true));
        }
        Switch::AlreadySet => {
            meta.insert("already_set".into(), json!(true));
        }
    }
    answer(state, kind, (account, ad), meta).await
}

/// The body of a budget change: `action` and, for `add` and `withdraw`, an `amount` above 0.
fn budget_op(f: &mut Fields, kind: CabinetType) -> Result<BudgetOp, ApiError> {
    let action = f.required_string("action")?;
    let asked = f.money("amount", kind.scale())?;
    f.deny_unknown()?;
    let amount = || {
        asked.filter(|a| a.micros() > 0).ok_or_else(|| {
            ApiError::validation("amount", "amount is required and must be greater than 0.")
        })
    };
    match action.as_str() {
        "add" => Ok(BudgetOp::Add(amount()?)),
        "withdraw" => Ok(BudgetOp::Withdraw(amount()?)),
        "withdraw_all" if asked.is_some() => Err(ApiError::validation(
            "amount",
            "withdraw_all takes no amount.",
        )),
        "withdraw_all" => Ok(BudgetOp::WithdrawAll),
        _ => Err(ApiError::validation(
            "action",
            "action must be add, withdraw or withdraw_all.",
        )),
    }
}

/// `POST /v1/campaigns/{ad_id}/budget`.
pub async fn budget(state: &AppState, ctx: &Ctx, ad: &str) -> Result<Reply, ApiError> {
    let target = Target::campaign(state, ctx, ad).await?;
    let (cabinet, row) = (target.cabinet.clone(), target.campaign.clone());
    let kind = cabinet.cabinet_type;
    let op = budget_op(&mut target.fields(), kind)?;
    let token = ctx
        .idempotency_key
        .as_ref()
        .map(|k| format!("budget:{}:{k}", ctx.principal.user.id))
        .unwrap_or_else(|| format!("budget:{}", uuid::Uuid::new_v4()));
    let at = (cabinet.id, row.ad_id);
    let moved = run(state, kind, move |s| {
        ops::move_budget(s, Source::Api, &cabinet, &row, op, &token)
    })
    .await?;
    let mut meta = Map::new();
    meta.insert("moved".into(), json!(kind.render(moved.moved)));
    meta.insert("partial".into(), json!(moved.partial));
    answer(state, kind, at, meta).await
}

/// `DELETE /v1/campaigns/{ad_id}`.
pub async fn delete(state: &AppState, ctx: &Ctx, ad: &str) -> Result<Reply, ApiError> {
    let ad = request::ad_id(ad)?;
    let cabinet = write::cabinet(ctx, None)?.cabinet.clone();
    let (account, kind) = (cabinet.id, cabinet.cabinet_type);
    let row = write::live_campaign(state, account, ad).await?;
    let token = format!("delete:{}", uuid::Uuid::new_v4());
    run(state, kind, move |s| {
        ops::delete(s, Source::Api, &row, &token)
    })
    .await?;
    Reply::ok(json!({ "ad_id": ad, "account_id": account, "deleted": true }))
}
