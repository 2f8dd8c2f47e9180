//! Owns the campaign writes answered at once: `PATCH /v1/campaigns/{ad_id}`, `pause`,
//! `resume`, `budget` and `DELETE`: each reads its request into the operation's command
//! (`ops::campaigns::edit`, `budget`: every field rule, the platform, the store, the history),
//! runs it with the platform's deadline, and answers with the campaign as every read shows it.

use serde_json::{json, Map, Value};

use super::campaign_object::Full;
use super::error::ApiError;
use super::request;
use super::write::{self, run, Target};
use super::Ctx;
use crate::domain::money::CabinetType;
use crate::http::{AppState, Reply};
use crate::ops::campaigns::budget;
use crate::ops::campaigns::command::Edit;
use crate::ops::campaigns::edit as ops;
use crate::ops::returns;
use crate::platform::Switch;
use crate::store::auto_cpm as auto_cpm_store;
use crate::store::campaigns;

/// The campaign as every read answers it (with its conversions and Auto CPM), and `meta`.
async fn answer(
    state: &AppState,
    kind: CabinetType,
    (account, ad): (i64, i64),
    meta: Map<String, Value>,
) -> Result<Reply, ApiError> {
    let (row, returns, auto) = state
        .services
        .db
        .read(move |c| {
            let row = campaigns::get(c, account, ad)?.ok_or(ApiError::CampaignNotFound)?;
            let day = crate::clock::now(c)?.date_naive();
            let returns = returns::of_campaign(c, &row, kind, day)?;
            let auto = auto_cpm_store::get(c, account, ad)?.map(|m| m.settings);
            Ok::<_, ApiError>((row, returns, auto))
        })
        .await?;
    Reply::ok_meta(
        Full::of(&row, kind)
            .with_conversions(&returns)
            .with_auto_cpm(auto.as_ref(), kind),
        Value::Object(meta),
    )
}

/// `PATCH /v1/campaigns/{ad_id}`.
pub async fn edit(state: &AppState, ctx: &Ctx, ad: &str) -> Result<Reply, ApiError> {
    let Target {
        body,
        actor,
        campaign: row,
    } = Target::campaign(state, ctx, ad).await?;
    let kind = actor.cabinet().cabinet_type;
    let (account, ad) = (actor.cabinet().id, row.ad_id);
    let stored = state
        .services
        .db
        .read(move |c| auto_cpm_store::get(c, account, ad))
        .await?
        .map(|m| m.settings);
    let command = Edit::read(
        &body.fields(),
        actor.cabinet(),
        state.services.platform.capabilities(),
        &row,
        stored,
        body.details(),
    )?;
    let edited = run(state, kind, move |s| ops::edit(s, &actor, &row, command)).await?;
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
    let actor = write::actor(ctx, None)?;
    let (account, kind) = (actor.cabinet().id, actor.cabinet().cabinet_type);
    let outcome = run(state, kind, move |s| ops::switch(s, &actor, ad, active)).await?;
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

/// `POST /v1/campaigns/{ad_id}/budget`.
pub async fn budget(state: &AppState, ctx: &Ctx, ad: &str) -> Result<Reply, ApiError> {
    let target = Target::campaign(state, ctx, ad).await?;
    let kind = target.actor.cabinet().cabinet_type;
    let op = budget::read(&target.body.fields(), kind)?;
    let Target {
        actor,
        campaign: row,
        ..
    } = target;
    let token = ctx
        .idempotency_key
        .as_ref()
        .map(|k| format!("budget:{}:{k}", ctx.principal.user.id))
        .unwrap_or_else(|| format!("budget:{}", uuid::Uuid::new_v4()));
    let at = (actor.cabinet().id, row.ad_id);
    let moved = run(state, kind, move |s| {
        budget::move_budget(s, &actor, &row, op, &token)
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
    let actor = write::actor(ctx, None)?;
    let (account, kind) = (actor.cabinet().id, actor.cabinet().cabinet_type);
    let row = write::live_campaign(state, account, ad).await?;
    let token = format!("delete:{}", uuid::Uuid::new_v4());
    run(state, kind, move |s| ops::delete(s, &actor, &row, &token)).await?;
    Reply::ok(json!({ "ad_id": ad, "account_id": account, "deleted": true }))
}
