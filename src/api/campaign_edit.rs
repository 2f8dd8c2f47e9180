//! Owns the campaign writes answered at once: `PATCH /v1/campaigns/{ad_id}`, `pause`,
//! `resume`, `budget` and `DELETE`. Each goes through the platform, then updates the stored
//! copy, the campaign history and the status-change records in one transaction.

use crate::ops::campaigns::fields as campaign_fields;
use serde_json::{json, Map, Value};

use super::campaign_object::Full;
use super::error::ApiError;
use super::request;
use super::write::{self, Target};
use super::Ctx;
use crate::clock;
use crate::domain::auto_cpm::{CpaFrom, Goal, Settings};
use crate::domain::fields::Fields;
use crate::domain::money::{CabinetType, Money, MAX_UNITS};
use crate::http::AppState;
use crate::http::Reply;
use crate::platform::{AdEdit, AdSnapshot, BudgetOp, Switch};
use crate::store::auto_cpm as auto_cpm_store;
use crate::store::campaigns::CampaignRow;
use crate::store::history::Source;
use crate::store::{cabinets, campaigns, conversions};
use crate::sync;

/// What a write changed: the platform's report of the ad (none when only Auto CPM changed) and
/// the Auto CPM settings to store.
struct Changed {
    account: i64,
    ad: i64,
    snap: Option<AdSnapshot>,
    auto_cpm: Option<Settings>,
}

impl Changed {
    fn platform(snap: AdSnapshot) -> Changed {
        Changed {
            account: snap.account_id,
            ad: snap.ad_id,
            snap: Some(snap),
            auto_cpm: None,
        }
    }
}

/// Applies the platform's report to the copy, stores the Auto CPM settings, records the
/// history entry, and answers with the campaign object (with its conversions and Auto CPM, as
/// every read shows it) and `meta`.
async fn finish(
    state: &AppState,
    kind: CabinetType,
    changed: Changed,
    change: (&'static str, Source),
    details: Value,
    meta: Map<String, Value>,
) -> Result<Reply, ApiError> {
    let (action, source) = change;
    let Changed {
        account,
        ad,
        snap,
        auto_cpm,
    } = changed;
    let params = state.services.config.conversions.tracker_params.clone();
    let (row, summary, auto) = state
        .services
        .db
        .write(move |tx| {
            if let Some(snap) = &snap {
                sync::apply(tx, snap, source, &params)?;
            }
            if let Some(settings) = &auto_cpm {
                auto_cpm_store::set(tx, account, ad, settings, &clock::iso(clock::now(tx)?))?;
            }
            sync::record_history(tx, account, ad, source, action, &details)?;
            let row = campaigns::get(tx, account, ad)?.ok_or(ApiError::CampaignNotFound)?;
            let summary = conversions::summary_of(tx, &row)?;
            let auto = auto_cpm_store::get(tx, account, ad)?.map(|m| m.settings);
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

/// `auto_cpm` of an edit: the settings sent over the stored ones. Switching on needs a goal,
/// a target and both bounds, sent now or kept from before.
fn auto_cpm(
    f: &mut Fields,
    kind: CabinetType,
    stored: Option<Settings>,
) -> Result<Option<Settings>, ApiError> {
    let Some(value) = f.raw("auto_cpm") else {
        return Ok(None);
    };
    let map = value
        .as_object()
        .ok_or_else(|| ApiError::validation("auto_cpm", "auto_cpm must be an object."))?;
    let mut a = Fields::new(map, "auto_cpm");
    let enabled = a
        .bool("enabled")?
        .ok_or_else(|| ApiError::validation("auto_cpm.enabled", "enabled is required."))?;
    let goal = match a.string("goal")? {
        None => None,
        Some(g) => Some(
            Goal::parse(&g)
                .ok_or_else(|| ApiError::validation("auto_cpm.goal", "goal is cpa or pace."))?,
        ),
    };
    let cpa_from = match a.string("cpa_from")? {
        None => None,
        Some(c) => Some(CpaFrom::parse(&c).ok_or_else(|| {
            ApiError::validation("auto_cpm.cpa_from", "cpa_from is actions or postbacks.")
        })?),
    };
    let target = a.positive_money("target", kind.scale())?;
    let min_cpm = a.positive_money("min_cpm", kind.scale())?;
    let max_cpm = a.positive_money("max_cpm", kind.scale())?;
    a.deny_unknown()?;
    let pick = |sent: Option<Money>, old: Option<Money>, name: &str| {
        sent.or(old).ok_or_else(|| {
            ApiError::validation(
                format!("auto_cpm.{name}"),
                format!("{name} is required to switch Auto CPM on."),
            )
        })
    };
    let settings = match (enabled, stored) {
        (false, Some(old)) => Settings {
            enabled: false,
            ..old
        },
        (false, None) if goal.is_none() && target.is_none() && cpa_from.is_none() => {
            return Ok(None)
        }
        _ => Settings {
            enabled,
            goal: goal.or(stored.map(|s| s.goal)).ok_or_else(|| {
                ApiError::validation("auto_cpm.goal", "goal is required to switch Auto CPM on.")
            })?,
            cpa_from: cpa_from
                .or(stored.map(|s| s.cpa_from))
                .unwrap_or(CpaFrom::Actions),
            target: pick(target, stored.map(|s| s.target), "target")?,
            min_cpm: pick(min_cpm, stored.map(|s| s.min_cpm), "min_cpm")?,
            max_cpm: pick(max_cpm, stored.map(|s| s.max_cpm), "max_cpm")?,
        },
    };
    if settings.min_cpm > settings.max_cpm {
        return Err(ApiError::validation(
            "auto_cpm.max_cpm",
            "max_cpm must be at least min_cpm.",
        ));
    }
    Ok(Some(settings))
}

pub async fn edit(state: &AppState, ctx: &Ctx, ad: &str) -> Result<Reply, ApiError> {
    let target = Target::campaign(state, ctx, ad).await?;
    edit_target(state, target, Source::Api).await
}

/// Edits the target's campaign with the fields of its body, as `PATCH /v1/campaigns/{ad_id}`
/// reads them; the change enters the history with `source`.
pub async fn edit_target(
    state: &AppState,
    target: Target<CampaignRow>,
    source: Source,
) -> Result<Reply, ApiError> {
    let (cabinet, row) = (target.cabinet.clone(), &target.campaign);
    let (kind, ad) = (cabinet.cabinet_type, row.ad_id);
    let mut f = target.fields();
    let media_token = f.string("media")?;
    let mut edit = AdEdit {
        title: f.string("title")?,
        text: f.string("text")?,
        promote_url: campaign_fields::promote_url(&mut f)?,
        cpm: campaign_fields::cpm(&mut f, kind)?,
        daily_budget: campaign_fields::daily_budget(&mut f, kind)?,
        views_per_user: f.int("views_per_user", 1, 4)?,
        schedule: campaign_fields::schedule(&mut f, Some(row.target_type))?
            .map(campaign_fields::schedule_json),
        media: None,
        picture: f.bool("picture")?,
        button: campaign_fields::button(&mut f, &cabinet)?,
        website_name: campaign_fields::clearable_string(&mut f, "website_name")?,
    };
    let active = f.bool("active")?;
    let (account, stored_ad) = (cabinet.id, ad);
    let stored = state
        .services
        .db
        .read(move |c| auto_cpm_store::get(c, account, stored_ad))
        .await?
        .map(|m| m.settings);
    let auto = auto_cpm(&mut f, kind, stored)?;
    f.deny_unknown()?;
    let releases = auto.is_some_and(|a| !a.enabled);
    if row.auto_cpm_enabled && edit.cpm.is_some() && !releases {
        return Err(ApiError::AutoCpmLocked);
    }
    edit.media = write::media(state, media_token, f.path("media"), cabinet.id).await?;
    if edit.is_empty() && active.is_none() && auto.is_none() {
        return Err(ApiError::validation(
            "body",
            "Send at least one field to change.",
        ));
    }
    let details = target.details();
    let mut snap = None;
    if !edit.is_empty() {
        let change = edit.clone();
        snap =
            Some(write::platform(state, kind, move |p| p.edit_ad(cabinet.id, ad, &change)).await?);
    }
    let mut meta = Map::new();
    if let Some(active) = active {
        let switched =
            write::platform(state, kind, move |p| p.switch_ad(cabinet.id, ad, active)).await;
        match switched {
            Ok((switched_snap, outcome)) => {
                match outcome {
                    Switch::Applied => {}
                    Switch::IntentOnly => {
                        meta.insert("status_intent_only".into(), json!(true));
                        if switched_snap.budget.micros() == 0 {
                            meta.insert(
                                "status_warning".into(),
                                json!(
                                    "The campaign has no budget; the switch applies once it has."
                                ),
                            );
                        }
                    }
                    Switch::AlreadySet => {
                        meta.insert("status_already_set".into(), json!(true));
                    }
                }
                snap = Some(switched_snap);
            }
            Err(e) if snap.is_some() => {
                meta.insert("status_warning".into(), json!(e.message()));
            }
            Err(e) => return Err(e),
        }
    }
    let changed = Changed {
        account: cabinet.id,
        ad,
        snap,
        auto_cpm: auto,
    };
    finish(
        state,
        kind,
        changed,
        ("edit", source),
        Value::Object(details),
        meta,
    )
    .await
}

pub async fn switch(
    state: &AppState,
    ctx: &Ctx,
    ad: &str,
    active: bool,
) -> Result<Reply, ApiError> {
    let ad = request::ad_id(ad)?;
    let cabinet = write::cabinet(ctx, None)?.cabinet.clone();
    write::live_campaign(state, cabinet.id, ad).await?;
    let (snap, outcome) = write::platform(state, cabinet.cabinet_type, move |p| {
        p.switch_ad(cabinet.id, ad, active)
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
    let action = if active { "resume" } else { "pause" };
    finish(
        state,
        cabinet.cabinet_type,
        Changed::platform(snap),
        (action, Source::Api),
        json!({ "active": active }),
        meta,
    )
    .await
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

pub async fn budget(state: &AppState, ctx: &Ctx, ad: &str) -> Result<Reply, ApiError> {
    let target = Target::campaign(state, ctx, ad).await?;
    let (cabinet, row) = (target.cabinet.clone(), &target.campaign);
    let (kind, ad) = (cabinet.cabinet_type, row.ad_id);
    let mut f = target.fields();
    let op = budget_op(&mut f, kind)?;
    match op {
        BudgetOp::Add(a) => {
            let after = row.budget.checked_add(a).ok_or_else(|| {
                ApiError::validation(
                    "amount",
                    format!("The campaign's budget would exceed {MAX_UNITS}."),
                )
            })?;
            campaign_fields::check_budget_floor(after, &cabinet)
                .map_err(|m| ApiError::validation("amount", m))?;
        }
        BudgetOp::Withdraw(a) => {
            let after = row
                .budget
                .checked_sub(a)
                .ok_or(ApiError::InsufficientAdBalance)?;
            campaign_fields::check_budget_floor(after, &cabinet).map_err(|m| {
                ApiError::validation("amount", format!("{m} Withdraw less, or use withdraw_all."))
            })?;
        }
        BudgetOp::WithdrawAll => {}
    }
    let token = ctx
        .idempotency_key
        .as_ref()
        .map(|k| format!("budget:{}:{k}", ctx.principal.user.id))
        .unwrap_or_else(|| format!("budget:{}", uuid::Uuid::new_v4()));
    let moved = write::platform(state, kind, move |p| {
        p.move_budget(cabinet.id, ad, op, &token)
    })
    .await?;
    let balance = moved.balance;
    state
        .services
        .db
        .write(move |tx| {
            let now = clock::iso(clock::now(tx)?);
            cabinets::set_balance(tx, cabinet.id, balance, &now)
        })
        .await?;
    if matches!(op, BudgetOp::Add(_)) && moved.moved.micros() == 0 {
        let params = state.services.config.conversions.tracker_params.clone();
        state
            .services
            .db
            .write(move |tx| sync::apply(tx, &moved.ad, Source::Api, &params))
            .await?;
        return Err(ApiError::BudgetUnchanged);
    }
    let partial = match op {
        BudgetOp::Withdraw(asked) => moved.moved < asked,
        BudgetOp::Add(_) | BudgetOp::WithdrawAll => false,
    };
    let mut meta = Map::new();
    meta.insert("moved".into(), json!(kind.render(moved.moved)));
    meta.insert("partial".into(), json!(partial));
    let (action, amount) = match op {
        BudgetOp::Add(a) => ("add", Some(a)),
        BudgetOp::Withdraw(a) => ("withdraw", Some(a)),
        BudgetOp::WithdrawAll => ("withdraw_all", None),
    };
    let details = json!({ "action": action, "amount": amount.map(|a| kind.render(a)), "moved": kind.render(moved.moved) });
    finish(
        state,
        kind,
        Changed::platform(moved.ad),
        ("budget", Source::Api),
        details,
        meta,
    )
    .await
}

pub async fn delete(state: &AppState, ctx: &Ctx, ad: &str) -> Result<Reply, ApiError> {
    let ad = request::ad_id(ad)?;
    let cabinet = write::cabinet(ctx, None)?.cabinet.clone();
    let row = write::live_campaign(state, cabinet.id, ad).await?;
    let removed = write::platform(state, cabinet.cabinet_type, move |p| {
        p.delete_ad(cabinet.id, ad, &format!("delete:{}", uuid::Uuid::new_v4()))
    })
    .await?;
    let balance =
        write::platform(state, cabinet.cabinet_type, move |p| p.balance(cabinet.id)).await;
    state
        .services
        .db
        .write(move |tx| {
            let now = clock::iso(clock::now(tx)?);
            sync::record_change(
                tx,
                &row,
                crate::domain::campaign::Status::Deleted,
                Source::Api,
                &now,
            )?;
            sync::record_history(
                tx,
                row.account_id,
                ad,
                Source::Api,
                "delete",
                &json!({ "removed": removed }),
            )?;
            if removed {
                campaigns::remove(tx, row.account_id, ad)?;
            } else {
                campaigns::mark_deleted(tx, row.account_id, ad, &now)?;
            }
            if let Ok(balance) = balance {
                cabinets::set_balance(tx, row.account_id, balance, &now)?;
            }
            Ok::<_, ApiError>(())
        })
        .await?;
    Reply::ok(json!({ "ad_id": ad, "account_id": cabinet.id, "deleted": true }))
}
