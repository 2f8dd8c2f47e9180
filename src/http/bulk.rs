//! Owns `POST /v1/campaigns/bulk`: eight actions over at most 1,000 live campaigns of one
//! cabinet, duplicates ignored; any id that is not a live campaign there refuses the whole
//! call with `UNKNOWN_AD_IDS` and nothing queued. Per-campaign refusals go to the task.

use std::collections::HashSet;

use serde_json::json;

use super::error::ApiError;
use super::idempotency::Claim;
use super::input::{self, Fields};
use super::response::Reply;
use super::{write, AppState, Ctx};
use crate::domain::campaign::Status;
use crate::store::campaigns;
use crate::store::tasks::NewTask;

const MAX_IDS: usize = 1000;

/// Each action: its task type and the extra field it takes.
fn action(name: &str) -> Option<(&'static str, Option<&'static str>)> {
    Some(match name {
        "pause" | "resume" => ("status", None),
        "add_budget" | "withdraw_budget" => ("budget", Some("amount")),
        "withdraw_all_budget" => ("budget", None),
        "set_cpm" => ("cpm", Some("cpm")),
        "set_schedule" => ("schedule", Some("schedule")),
        "delete" => ("delete", None),
        _ => return None,
    })
}

pub async fn bulk(state: &AppState, ctx: &Ctx, claim: Claim) -> Result<(Reply, bool), ApiError> {
    let body = input::object(&ctx.body)?;
    let mut f = Fields::new(&body, "");
    let account = input::account_id(&mut f)?;
    let cabinet = write::cabinet(ctx, account)?.cabinet.clone();
    let kind = cabinet.cabinet_type;
    let name = f.required_string("action")?;
    let (task_type, extra) = action(&name).ok_or_else(|| {
        ApiError::validation(
            "action",
            "action must be pause, resume, add_budget, withdraw_budget, withdraw_all_budget, set_cpm, set_schedule or delete.",
        )
    })?;
    let ids = f
        .ints("ad_ids", MAX_IDS)?
        .ok_or_else(|| ApiError::validation("ad_ids", "ad_ids is required."))?;
    let mut seen = HashSet::with_capacity(ids.len());
    let unique: Vec<i64> = ids.into_iter().filter(|id| seen.insert(*id)).collect();
    if unique.is_empty() {
        return Err(ApiError::validation(
            "ad_ids",
            format!("ad_ids takes 1 to {MAX_IDS} ids."),
        ));
    }
    for field in ["amount", "cpm", "schedule"] {
        if f.has(field) && extra != Some(field) {
            return Err(ApiError::validation(
                field,
                format!("{field} is not used with action {name}."),
            ));
        }
    }
    let mut payload = json!({ "action": name, "ad_ids": unique });
    match extra {
        Some("amount") => {
            let amount = f
                .money("amount", kind.scale())?
                .filter(|a| a.micros() > 0)
                .ok_or_else(|| {
                    ApiError::validation("amount", "amount is required and must be greater than 0.")
                })?;
            payload["amount"] = json!(amount);
        }
        Some("cpm") => {
            let cpm = write::cpm(&mut f, kind)?
                .ok_or_else(|| ApiError::validation("cpm", "cpm is required."))?;
            payload["cpm"] = json!(cpm);
        }
        Some(_) => {
            if !f.has("schedule") {
                return Err(ApiError::validation(
                    "schedule",
                    "schedule is required: an object, or null to remove it.",
                ));
            }
            payload["schedule"] = json!(write::schedule(&mut f, None)?.flatten());
        }
        None => {}
    }
    f.deny_unknown()?;
    let owner = ctx.principal.user.id;
    let account = cabinet.id;
    let reply = state
        .services
        .db
        .write(move |tx| {
            let mut missing = Vec::new();
            for ad in &unique {
                let live = campaigns::status_of(tx, account, *ad)?
                    .is_some_and(|(status, _)| status != Status::Deleted);
                if !live {
                    missing.push(*ad);
                }
            }
            if !missing.is_empty() {
                return Err(ApiError::UnknownAdIds { missing });
            }
            let total = unique.len() as i64;
            let task = NewTask {
                owner_id: owner,
                account_id: account,
                kind: task_type,
                lane: "other",
                payload: &payload,
                total,
            };
            super::tasks::queue(tx, &task, &claim)
        })
        .await?;
    state.wake.notify_one();
    Ok((reply, true))
}
