//! Owns a bulk change's command, read the same from the API's body and the panel's selection:
//! one of eight actions over at most 1,000 live campaigns of one cabinet (duplicates dropped)
//! with the action's own field; and the task it queues, once every id is a live campaign
//! there (else nothing is queued). Each campaign's change is made later by the task worker
//! ([`super::ask`], [`super::store`]).

use std::collections::HashSet;

use rusqlite::Connection;

use super::fields as campaign_fields;
use super::OpsError;
use crate::domain::campaign::{Source, Status};
use crate::domain::capabilities::Capabilities;
use crate::domain::fields::Fields;
use crate::domain::money::CabinetType;
use crate::domain::task::{BulkAction, Extra, ExtraValue, Payload, TaskKind};
use crate::domain::ParseError;
use crate::store::campaigns;
use crate::store::tasks::NewTask;

/// Campaigns one bulk change names at most.
const MAX_IDS: usize = 1000;

/// Reads a bulk request's `action`, `ad_ids` (duplicates dropped) and the action's own field
/// for a cabinet of `kind` on a platform of `caps`; every other field is refused.
pub fn parse(
    f: &mut Fields,
    kind: CabinetType,
    caps: &Capabilities,
) -> Result<(BulkAction, Vec<i64>), ParseError> {
    let name = f.required_string("action")?;
    let extra = BulkAction::extra(&name).ok_or_else(|| {
        let names: Vec<&str> = BulkAction::names().collect();
        ParseError::new(
            "action",
            format!("action must be one of {}.", names.join(", ")),
        )
    })?;
    let ids = f
        .ids("ad_ids", MAX_IDS)?
        .ok_or_else(|| ParseError::new("ad_ids", "ad_ids is required."))?;
    let mut seen = HashSet::with_capacity(ids.len());
    let unique: Vec<i64> = ids.into_iter().filter(|id| seen.insert(*id)).collect();
    if unique.is_empty() {
        return Err(ParseError::new(
            "ad_ids",
            format!("ad_ids takes 1 to {MAX_IDS} ids."),
        ));
    }
    for field in ["amount", "cpm", "schedule"] {
        if f.has(field) && extra.field() != Some(field) {
            return Err(ParseError::new(
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
                    ParseError::new("amount", "amount is required and must be greater than 0.")
                })?,
        ),
        Extra::Cpm => ExtraValue::Money(
            campaign_fields::cpm(f, kind)?
                .ok_or_else(|| ParseError::new("cpm", "cpm is required."))?,
        ),
        Extra::Schedule => {
            ExtraValue::Schedule(campaign_fields::schedule(f, None, caps)?.ok_or_else(|| {
                ParseError::new(
                    "schedule",
                    "schedule is required: an object, or null to remove it.",
                )
            })?)
        }
    };
    f.deny_unknown()?;
    let action = BulkAction::from_parts(&name, value)
        .ok_or_else(|| ParseError::new("action", format!("action {name} takes no such field.")))?;
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
) -> Result<BulkTask, OpsError> {
    let mut missing = Vec::new();
    for ad in &ids {
        let live = campaigns::status_of(tx, account, *ad)?
            .is_some_and(|(status, _)| status != Status::Deleted);
        if !live {
            missing.push(*ad);
        }
    }
    if !missing.is_empty() {
        return Err(OpsError::UnknownAdIds(missing));
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
