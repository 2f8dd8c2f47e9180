//! Owns the service's clockwork over the service clock: every closed hour is synced (all
//! cabinets, hour by hour, in order), its digests are queued at five past the next hour, and
//! status changes recorded anywhere (API, panel, tasks, sync) become `status_change` webhooks
//! within a tick. A jump of the clock (`adcab sim advance`) is caught up within about a tick.
//! Where it stands is kept in the database, so a restart resumes at the first hour not done.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::{watch, Notify};

use crate::clock;
use crate::db;
use crate::error::ApiError;
use crate::store::{events as status_events, scheduler};
use crate::webhooks::events;
use crate::{sync, Services};

/// How often the loop looks at the clock when nothing is due.
const TICK: Duration = Duration::from_millis(250);
/// Digests of an hour go out this long after it closed.
const DIGEST_DELAY: chrono::Duration = chrono::Duration::minutes(5);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// An hour was synced.
    Synced(DateTime<Utc>),
    /// An hour's digests were queued.
    Digested(DateTime<Utc>),
    /// Status changes were queued as webhooks.
    Notified,
    /// Nothing was due.
    Idle,
}

/// Runs the clockwork until `stop` turns true; wakes `outbox` whenever it queued webhooks.
pub async fn run(services: Services, outbox: Arc<Notify>, mut stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        let s = services.clone();
        match db::blocking(move || step(&s)).await {
            Ok(Step::Idle) => {}
            Ok(_) => {
                outbox.notify_one();
                continue;
            }
            Err(e) => tracing::error!(error = %e, "scheduler step failed"),
        }
        tokio::select! {
            _ = tokio::time::sleep(TICK) => {}
            _ = stop.changed() => {}
        }
    }
}

/// Does the one thing due first by the service clock: the digests of the hour after which
/// everything was synced (due at five past the next hour), else the sync of the next closed
/// hour, else the status changes waiting. Blocking.
pub fn step(s: &Services) -> Result<Step, ApiError> {
    let (now, next_sync, next_digest) = s.db.write_blocking(|tx| {
        let now = clock::now(tx)?;
        let (sync, digest) = scheduler::get(tx)?;
        let parse = |t: Option<String>| t.as_deref().and_then(clock::parse_iso);
        match (parse(sync), parse(digest)) {
            (Some(sync), Some(digest)) => Ok((now, sync, digest)),
            _ => {
                let start = clock::hour_start(now);
                scheduler::set(tx, &clock::iso(start), &clock::iso(start))?;
                Ok((now, start, start))
            }
        }
    })?;
    let hour = chrono::Duration::hours(1);
    if next_digest < next_sync && next_digest + hour + DIGEST_DELAY <= now {
        s.db.write_blocking(|tx| {
            events::queue_digests(tx, next_digest)?;
            scheduler::set(tx, &clock::iso(next_sync), &clock::iso(next_digest + hour))
        })?;
        return Ok(Step::Digested(next_digest));
    }
    if next_sync + hour <= now {
        let latest = now < next_sync + hour + hour;
        sync::sync_hour(s, next_sync, latest)?;
        s.db.write_blocking(|tx| {
            events::queue_status_changes(tx)?;
            scheduler::set(tx, &clock::iso(next_sync + hour), &clock::iso(next_digest))
        })?;
        return Ok(Step::Synced(next_sync));
    }
    if s.db.read_blocking(status_events::any_unsent)? {
        s.db.write_blocking(|tx| events::queue_status_changes(tx))?;
        return Ok(Step::Notified);
    }
    Ok(Step::Idle)
}
