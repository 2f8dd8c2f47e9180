//! Owns `POST /v1/campaigns/bulk`: eight actions over at most 1,000 live campaigns of one
//! cabinet, duplicates ignored; any id that is not a live campaign there refuses the whole
//! call with `UNKNOWN_AD_IDS` and nothing queued. Per-campaign refusals go to the task.

use std::collections::HashSet;

use super::error::ApiError;
use super::idempotency::Claim;

use super::response::Reply;
use super::write::{self, Target};
use super::{AppState, Ctx};
use crate::domain::campaign::Status;
use crate::domain::task::{BulkAction, Extra, ExtraValue, Payload};
use crate::store::campaigns;
use crate::store::tasks::NewTask;

const MAX_IDS: usize = 1000;

pub async fn bulk(state: &AppState, ctx: &Ctx, claim: Claim) -> Result<(Reply, bool), ApiError> {
    let target = Target::cabinet(ctx)?;
    let cabinet = &target.cabinet;
    let mut f = target.fields();
    let kind = cabinet.cabinet_type;
    let name = f.required_string("action")?;
    let extra = BulkAction::extra(&name).ok_or_else(|| {
        let names: Vec<&str> = BulkAction::names().collect();
        ApiError::validation(
            "action",
            format!("action must be one of {}.", names.join(", ")),
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
        if f.has(field) && extra.field() != Some(field) {
            return Err(ApiError::validation(
                field,
                format!("{field} is not used with action {name}."),
            ));
        }
    }
    let value = match extra {
        Extra::None => ExtraValue::None,
        Extra::Amount => ExtraValue::Money(
            f.money("amount", kind.scale())?
                .filter(|a| a.micros() > 0)
                .ok_or_else(|| {
                    ApiError::validation("amount", "amount is required and must be greater than 0.")
                })?,
        ),
        Extra::Cpm => ExtraValue::Money(
            write::cpm(&mut f, kind)?
                .ok_or_else(|| ApiError::validation("cpm", "cpm is required."))?,
        ),
        Extra::Schedule => {
            ExtraValue::Schedule(write::schedule(&mut f, None)?.ok_or_else(|| {
                ApiError::validation(
                    "schedule",
                    "schedule is required: an object, or null to remove it.",
                )
            })?)
        }
    };
    f.deny_unknown()?;
    let action = BulkAction::from_parts(&name, value)
        .ok_or_else(|| ApiError::internal(format!("bulk action {name} without its field")))?;
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
            let task = NewTask {
                owner_id: owner,
                account_id: account,
                kind: action.kind(),
                payload: &Payload::Bulk {
                    action,
                    ad_ids: unique,
                },
            };
            super::tasks::queue(tx, &task, &claim)
        })
        .await?;
    state.wake.notify_one();
    Ok((reply, true))
}
