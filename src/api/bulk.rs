//! Owns `POST /v1/campaigns/bulk`: eight actions over at most 1,000 live campaigns of one
//! cabinet, duplicates ignored; any id that is not a live campaign there refuses the whole
//! call with `UNKNOWN_AD_IDS` and nothing queued. Per-campaign refusals go to the task.

use crate::ops::campaigns::fields as campaign_fields;
use std::collections::HashSet;

use rusqlite::Connection;

use super::error::ApiError;
use super::idempotency::Claim;

use super::write::Target;
use super::Ctx;
use crate::domain::campaign::{Source, Status};
use crate::domain::fields::Fields;
use crate::domain::money::CabinetType;
use crate::domain::task::{BulkAction, Extra, ExtraValue, Payload, TaskKind};
use crate::http::AppState;
use crate::http::Reply;
use crate::store::campaigns;
use crate::store::tasks::NewTask;

const MAX_IDS: usize = 1000;

pub async fn bulk(state: &AppState, ctx: &Ctx, claim: Claim) -> Result<(Reply, bool), ApiError> {
    let target = Target::cabinet(ctx)?;
    let (action, ids) = parse(&mut target.fields(), target.cabinet.cabinet_type)?;
    let owner = ctx.principal.user.id;
    let account = target.cabinet.id;
    let reply = state
        .services
        .db
        .write(move |tx| {
            let task = new_task(tx, owner, account, Source::Api, action, ids)?;
            super::tasks::queue(tx, &task.as_new(), &claim)
        })
        .await?;
    state.wake.notify_one();
    Ok((reply, true))
}

/// Reads a bulk request's `action`, `ad_ids` (duplicates dropped) and the action's own field
/// for a cabinet of `kind`; every other field is refused.
pub fn parse(f: &mut Fields, kind: CabinetType) -> Result<(BulkAction, Vec<i64>), ApiError> {
    let name = f.required_string("action")?;
    let extra = BulkAction::extra(&name).ok_or_else(|| {
        let names: Vec<&str> = BulkAction::names().collect();
        ApiError::validation(
            "action",
            format!("action must be one of {}.", names.join(", ")),
        )
    })?;
    let ids = f
        .ids("ad_ids", MAX_IDS)?
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
            campaign_fields::cpm(f, kind)?
                .ok_or_else(|| ApiError::validation("cpm", "cpm is required."))?,
        ),
        Extra::Schedule => {
            ExtraValue::Schedule(campaign_fields::schedule(f, None)?.ok_or_else(|| {
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
    Ok((action, unique))
}

/// A bulk task of `owner` over `ids` of one cabinet, queued through `source`, once every id is
/// a live campaign there (else `UNKNOWN_AD_IDS`, nothing queued); the caller inserts it in the
/// same transaction.
pub fn new_task(
    tx: &Connection,
    owner: i64,
    account: i64,
    source: Source,
    action: BulkAction,
    ids: Vec<i64>,
) -> Result<BulkTask, ApiError> {
    let mut missing = Vec::new();
    for ad in &ids {
        let live = campaigns::status_of(tx, account, *ad)?
            .is_some_and(|(status, _)| status != Status::Deleted);
        if !live {
            missing.push(*ad);
        }
    }
    if !missing.is_empty() {
        return Err(ApiError::UnknownAdIds { missing });
    }
    Ok(BulkTask {
        owner,
        account,
        source,
        kind: action.kind(),
        payload: Payload::Bulk {
            action,
            ad_ids: ids,
        },
    })
}

/// A checked bulk task, ready to insert.
pub struct BulkTask {
    owner: i64,
    account: i64,
    source: Source,
    kind: TaskKind,
    payload: Payload,
}

impl BulkTask {
    pub fn as_new(&self) -> NewTask<'_> {
        NewTask {
            owner_id: self.owner,
            account_id: self.account,
            kind: self.kind,
            payload: &self.payload,
            source: self.source,
        }
    }
}
