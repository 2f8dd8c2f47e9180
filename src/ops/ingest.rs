//! Owns recording inbound conversions, the service's highest-volume write. Each event is
//! attributed (its ref or invite link, to campaigns the sender reaches) and stored, or
//! updated when its `txid` was seen. A request's events are one grouped write of the
//! database's writer: the requests waiting for it share one transaction (each in a savepoint
//! of its own) and are answered only after its commit, so every accepted event is committed
//! before its answer and many requests share one commit. The writer's queue is bounded: when
//! it is full, or a request is not started in time, the request is answered "busy" (503)
//! instead of waiting without end.

use std::collections::HashMap;
use std::sync::Arc;

use rusqlite::Transaction;

use crate::clock;
use crate::db::Db;
use crate::domain::conversion::{Event, EventType, Target};
use crate::metrics::Metrics;
use crate::store::conversions::Recorder;
use crate::store::refs;
use crate::store::StoreError;

/// Who sent events: the person whose key or tracker token it was, and the active cabinets
/// they reach through it.
#[derive(Debug, Clone)]
pub struct Sender {
    pub holder: i64,
    pub accounts: Vec<i64>,
}

/// An event that was stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub id: i64,
    pub account_id: i64,
    pub ad_ids: Vec<i64>,
    pub event_type: EventType,
    /// An event with this `txid` existed and was updated.
    pub deduped: bool,
}

/// Why an event was not stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The event names an `account_id` its sender does not reach.
    AccountNotFound,
    /// No campaign the sender reaches carries its ref or invite link.
    RefNotFound,
    /// Campaigns in several of the sender's cabinets carry it.
    AmbiguousRef,
}

/// What became of one event.
pub type Outcome = Result<Recorded, Refusal>;

/// Records conversions for requests: each request's events are one grouped write, sharing
/// a transaction with the requests queued right behind it.
pub struct Ingest {
    db: Db,
    metrics: Arc<Metrics>,
}

impl Ingest {
    pub fn new(db: Db, metrics: Arc<Metrics>) -> Ingest {
        Ingest { db, metrics }
    }

    /// Records the events (already checked) once they are committed, one outcome per event
    /// in order.
    pub async fn record(
        &self,
        sender: Sender,
        events: Vec<Event>,
    ) -> Result<Vec<Outcome>, StoreError> {
        let size = events.len();
        let recorded = self
            .db
            .write_grouped(size, move |tx| record_all(tx, &sender, &events))
            .await;
        let outcome = if recorded.is_ok() {
            "recorded"
        } else {
            "failed"
        };
        self.metrics.ingested(outcome, size as u64);
        recorded
    }
}

/// Attributes and stores one request's events.
fn record_all(
    tx: &Transaction,
    sender: &Sender,
    events: &[Event],
) -> Result<Vec<Outcome>, StoreError> {
    let now = clock::iso(clock::now(tx)?);
    let mut found = HashMap::new();
    let mut recorder = Recorder::new(tx)?;
    let outcomes = events
        .iter()
        .map(|event| {
            let campaigns = campaigns(tx, &mut found, &event.target)?;
            record(&mut recorder, campaigns, sender, event, &now)
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    recorder.finish()?;
    Ok(outcomes)
}

/// The campaigns (cabinet, ad) whose links carry `target`, read once per transaction.
fn campaigns<'f>(
    conn: &rusqlite::Connection,
    found: &'f mut HashMap<Target, Vec<(i64, i64)>>,
    target: &Target,
) -> Result<&'f [(i64, i64)], StoreError> {
    if !found.contains_key(target) {
        found.insert(target.clone(), refs::find(conn, target)?);
    }
    Ok(&found[target])
}

/// Attributes one event among the `campaigns` carrying its ref and stores it. Attribution
/// failures are the event's outcome; store failures abort the transaction.
fn record(
    recorder: &mut Recorder,
    campaigns: &[(i64, i64)],
    sender: &Sender,
    event: &Event,
    now: &str,
) -> Result<Outcome, StoreError> {
    if let Some(account) = event.account_id {
        if !sender.accounts.contains(&account) {
            return Ok(Err(Refusal::AccountNotFound));
        }
    }
    let mut reached = campaigns.iter().filter(|(account, _)| {
        sender.accounts.contains(account) && event.account_id.is_none_or(|a| a == *account)
    });
    let Some(&(account, first)) = reached.next() else {
        return Ok(Err(Refusal::RefNotFound));
    };
    let mut ads = vec![first];
    for &(other, ad) in reached {
        if other != account {
            return Ok(Err(Refusal::AmbiguousRef));
        }
        ads.push(ad);
    }
    let (id, deduped) = recorder.upsert(sender.holder, event, account, &ads, now)?;
    Ok(Ok(Recorded {
        id,
        account_id: account,
        ad_ids: ads,
        event_type: event.event,
        deduped,
    }))
}
