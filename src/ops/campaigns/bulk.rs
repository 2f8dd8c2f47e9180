//! Owns a bulk change, read the same from the API's body and the panel's selection: one of
//! nine actions over at most 1,000 live campaigns of one cabinet (duplicates dropped) with the
//! action's own field; and the task it queues in the caller's transaction, once every id is a
//! live campaign there (else nothing is queued). Each campaign's change is made later by the
//! task worker ([`super::ask`], [`super::store`]); a `recreate` queues a recreate task of the
//! campaigns unchanged ([`super::recreate`]), each refused there unless it is declined.

use std::collections::HashSet;

use rusqlite::Connection;
use serde::Deserialize;
use serde_json::Value;

use super::create::has_room;
use super::fields as campaign_fields;
use super::recreate;
use super::OpsError;
use crate::clock;
use crate::domain::campaign::Status;
use crate::domain::capabilities::Capabilities;
use crate::domain::fields;
use crate::domain::fields::wire::{present, Amount, Choice, Ids, Patch, Raw, Word};
use crate::domain::money::CabinetType;
use crate::domain::task::{BulkAction, BulkKind, Extra, ExtraValue, Payload, Recreation};
use crate::domain::{ParseError, Why};
use crate::ops::Actor;
use crate::store::campaigns;
use crate::store::tasks::{self, NewTask};

/// Campaigns one bulk change names at most.
const MAX_IDS: usize = 1000;

impl Choice for BulkKind {
    fn parse(word: &str) -> Option<BulkKind> {
        BulkKind::parse(word)
    }

    fn refusal() -> String {
        let names: Vec<&str> = BulkKind::ALL.iter().map(|k| k.name()).collect();
        format!("must be one of {}.", names.join(", "))
    }
}

/// A bulk change as sent; the action's own field is read once the action is known.
#[derive(Deserialize)]
struct BulkIn {
    action: Word<BulkKind>,
    ad_ids: Ids<MAX_IDS>,
    #[serde(default, deserialize_with = "present")]
    amount: Option<Raw>,
    #[serde(default, deserialize_with = "present")]
    cpm: Option<Raw>,
    #[serde(default, deserialize_with = "present")]
    schedule: Option<Raw>,
}

/// A checked bulk change: what it does and the campaigns, each once.
#[derive(Debug, Clone)]
pub struct Bulk {
    pub change: BulkChange,
    pub ad_ids: Vec<i64>,
}

/// What a bulk change does to each campaign.
#[derive(Debug, Clone)]
pub enum BulkChange {
    /// A change of each campaign in place.
    Action(BulkAction),
    /// Each declined campaign made again unchanged, then deleted.
    Recreate,
}

/// Reads a bulk change for a cabinet of `kind` on a platform of `caps`: `action`, `ad_ids` and the action's own
/// field; every other field is refused.
pub fn read(body: &Value, kind: CabinetType, caps: &Capabilities) -> Result<Bulk, ParseError> {
    let (sent, undeclared): (BulkIn, _) = fields::read_open(body, "")?;
    let Word(action_kind) = sent.action;
    let (name, extra) = (action_kind.name(), action_kind.extra());
    let mut seen = HashSet::with_capacity(sent.ad_ids.0.len());
    let ad_ids: Vec<i64> = sent
        .ad_ids
        .0
        .into_iter()
        .filter(|id| seen.insert(*id))
        .collect();
    if ad_ids.is_empty() {
        return Err(
            ParseError::new("ad_ids", format!("ad_ids takes 1 to {MAX_IDS} ids."))
                .because(Why::Required),
        );
    }
    let fields = [
        ("amount", sent.amount),
        ("cpm", sent.cpm),
        ("schedule", sent.schedule),
    ];
    if let Some((field, _)) = fields
        .iter()
        .find(|(field, value)| value.is_some() && extra.field() != Some(field))
    {
        return Err(
            ParseError::new(*field, format!("{field} is not used with action {name}."))
                .because(Why::NotHere),
        );
    }
    let [amount, cpm, schedule] = fields.map(|(_, value)| value.map(|Raw(v)| v));
    let amount_of = |value: Option<Value>, name: &str| {
        value
            .filter(|v| !v.is_null())
            .map(|v| fields::read_at::<Amount>(&v, name))
            .transpose()
    };
    let value = match extra {
        Extra::None => ExtraValue::None,
        Extra::Amount => ExtraValue::Money(
            amount_of(amount, "amount")?
                .map(|a| a.money("amount", "amount", kind.scale()))
                .transpose()?
                .filter(|a| a.micros() > 0)
                .ok_or_else(|| {
                    ParseError::new("amount", "amount is required and must be greater than 0.")
                        .because(Why::NotPositive)
                })?,
        ),
        Extra::Cpm => ExtraValue::Money(
            amount_of(cpm, "cpm")?
                .map(|a| campaign_fields::cpm(&a, "", kind))
                .transpose()?
                .ok_or_else(|| ParseError::new("cpm", "cpm is required.").because(Why::Required))?,
        ),
        Extra::Schedule => {
            let sent = match schedule {
                None => Patch::Keep,
                Some(Value::Null) => Patch::Clear,
                Some(v) => Patch::Set(Raw(v)),
            };
            ExtraValue::Schedule(campaign_fields::schedule(sent, "", None, caps)?.ok_or_else(
                || {
                    ParseError::new(
                        "schedule",
                        "schedule is required: an object, or null to remove it.",
                    )
                    .because(Why::Required)
                },
            )?)
        }
    };
    undeclared.refuse()?;
    let change = if action_kind == BulkKind::Recreate {
        BulkChange::Recreate
    } else {
        BulkChange::Action(BulkAction::from_parts(action_kind, value).ok_or_else(|| {
            ParseError::new("action", format!("action {name} takes no such field."))
                .because(Why::NotHere)
        })?)
    };
    Ok(Bulk { change, ad_ids })
}

/// Queues `bulk` on the actor's cabinet as one task, in the caller's transaction, once every
/// id is a live campaign there (else `UNKNOWN_AD_IDS`, nothing queued). Returns the task's id.
pub fn queue(tx: &Connection, actor: &Actor, bulk: Bulk) -> Result<i64, OpsError> {
    let account = actor.cabinet().id;
    let mut missing = Vec::new();
    for ad in &bulk.ad_ids {
        let live = campaigns::status_of(tx, account, *ad)?
            .is_some_and(|(status, _)| status != Status::Deleted);
        if !live {
            missing.push(*ad);
        }
    }
    if !missing.is_empty() {
        return Err(OpsError::UnknownAdIds(missing));
    }
    let action = match bulk.change {
        BulkChange::Action(action) => action,
        BulkChange::Recreate => return queue_recreate(tx, actor, &bulk.ad_ids),
    };
    let kind = action.kind();
    let payload = Payload::Bulk {
        action,
        ad_ids: bulk.ad_ids,
    };
    let task = NewTask {
        owner_id: actor.user(),
        account_id: account,
        kind,
        payload: &payload,
        source: actor.source(),
    };
    Ok(tasks::insert(tx, &task, &clock::iso(clock::now(tx)?))?)
}

/// Queues the recreate of `ad_ids` (live campaigns of the actor's cabinet), each unchanged in
/// its own group, once the cabinet's create queue has room.
fn queue_recreate(tx: &Connection, actor: &Actor, ad_ids: &[i64]) -> Result<i64, OpsError> {
    let cabinet = actor.cabinet();
    has_room(tx, cabinet.id)?;
    let mut items = Vec::with_capacity(ad_ids.len());
    for ad in ad_ids {
        let row = campaigns::get(tx, cabinet.id, *ad)?.ok_or(OpsError::NotFound)?;
        items.push(Recreation {
            from: row.ad_id,
            group_id: row.group_id,
            campaign: recreate::unchanged(&row, cabinet),
        });
    }
    recreate::insert(tx, actor, items)
}
