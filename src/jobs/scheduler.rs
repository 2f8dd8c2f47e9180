//! Owns the service's clockwork over the service clock: every closed hour is synced (all
//! cabinets, hour by hour, in order), the automation rules run on it (rules checked every 5
//! minutes at each 5-minute mark passed, after the hour's sync) and schedules given by
//! zone name move with their zone's clocks; its digests are
//! queued at five past the next hour, and status changes recorded anywhere (API, panel, tasks,
//! sync, automation) become `status_change` webhooks within a tick; a client cabinet's transfer
//! the platform left in progress is checked again every 30 seconds of the clock until it settles. A jump of the clock
//! (`adcab sim advance`) is caught up within about a tick. Where it stands is kept in the
//! database, so a restart resumes at the first hour not done.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::{watch, Notify};

use crate::clock;
use crate::db;
use crate::jobs::{automation, hourly_sync, zones};
use crate::services::Services;
use crate::store::StoreError;
use crate::store::{events as status_events, outbox, scheduler};
use crate::webhooks::events;

/// How often the loop looks at the clock when nothing is due.
const TICK: Duration = Duration::from_millis(250);
/// Digests of an hour go out this long after it closed.
const DIGEST_DELAY: chrono::Duration = chrono::Duration::minutes(5);
const HOUR: chrono::Duration = chrono::Duration::hours(1);
/// Readers building an hour's digests at once, one cabinet each at a time: as many as the
/// small machines adcab is built for have cores (the digests of 100 cabinets of 1,000
/// campaigns take 0.1-0.14 s on one, `sync_bench`'s line of reference); more would only
/// queue for the cores and take read connections from requests.
const DIGEST_READERS: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// An hour was synced.
    Synced(DateTime<Utc>),
    /// An hour's digests were queued.
    Digested(DateTime<Utc>),
    /// Status changes were queued as webhooks.
    Notified,
    /// The rules checked every 5 minutes ran at this mark (Unix seconds).
    Fast(i64),
    /// Client cabinets' transfers left in progress were checked (`ops::funds`).
    Transfers,
    /// Nothing was due.
    Idle,
}

/// Runs the clockwork until `stop` turns true; wakes `outbox` whenever it queued webhooks.
/// Looks at the clock every [`TICK`], and at once when this process moved it.
pub async fn run(services: Services, outbox: Arc<Notify>, mut stop: watch::Receiver<bool>) {
    let mut clock_moved = services.clock_moved.subscribe();
    while !*stop.borrow() {
        let s = services.clone();
        match db::blocking(move || step(&s)).await {
            Ok(Ok(Step::Idle)) => {}
            Ok(Ok(_)) => {
                outbox.notify_one();
                continue;
            }
            Ok(Err(e)) => tracing::error!(error = %e, "scheduler step failed"),
            Err(panic) => tracing::error!(%panic, "scheduler step panicked"),
        }
        tokio::select! {
            _ = tokio::time::sleep(TICK) => {}
            _ = clock_moved.changed() => {}
            _ = stop.changed() => {}
        }
    }
}

/// Where the scheduler stands at `now`.
struct Position {
    now: DateTime<Utc>,
    next_sync: DateTime<Utc>,
    next_digest: DateTime<Utc>,
}

impl Position {
    /// Reads it without writing; before the first start is recorded, both hours are the
    /// hour in progress.
    fn read(conn: &rusqlite::Connection) -> Result<Position, StoreError> {
        let now = clock::now(conn)?;
        let (sync, digest) = scheduler::get(conn)?;
        let start = clock::hour_start(now);
        let parse = |t: Option<String>| match t {
            None => Ok(start),
            Some(t) => clock::parse_iso(&t)
                .ok_or_else(|| StoreError::Corrupt(format!("scheduler_state hour {t:?}"))),
        };
        Ok(Position {
            now,
            next_sync: parse(sync)?,
            next_digest: parse(digest)?,
        })
    }

    fn sync_due(&self) -> bool {
        self.next_sync + HOUR <= self.now
    }

    fn digest_due(&self) -> bool {
        self.next_digest < self.next_sync && self.next_digest + HOUR + DIGEST_DELAY <= self.now
    }
}

/// True when everything due by the service clock is done: every closed hour synced, every
/// due digest queued, and no status change or webhook waiting to be sent.
pub fn idle(conn: &rusqlite::Connection) -> Result<bool, StoreError> {
    let at = Position::read(conn)?;
    Ok(!at.sync_due()
        && !at.digest_due()
        && automation::fast::due(conn, at.now)?.is_none()
        && !status_events::any_unsent(conn)?
        && !crate::ops::funds::pending_due(conn)?
        && outbox::is_empty(conn)?)
}

/// How long the oldest closed hour has waited for its sync, in seconds of the service clock
/// (zero when every closed hour is synced).
pub fn lag_seconds(conn: &rusqlite::Connection) -> Result<i64, StoreError> {
    let at = Position::read(conn)?;
    Ok((at.now - (at.next_sync + HOUR)).num_seconds().max(0))
}

/// Fixes where the scheduler starts before anything runs, so a clock moved right after
/// start-up is caught up from the hour the service started in.
pub async fn init(s: &Services) -> Result<(), StoreError> {
    s.db.write(|tx| {
        let at = Position::read(tx)?;
        scheduler::set(tx, &clock::iso(at.next_sync), &clock::iso(at.next_digest))
    })
    .await
}

/// Does the one thing due first by the service clock: the digests of the hour after which
/// everything was synced (due at five past the next hour; built by [`DIGEST_READERS`]
/// readers, queued by the writer), else the sync of the next closed
/// hour, else the fast checks of the last 5-minute mark passed, else the status changes
/// waiting. Blocking.
pub fn step(s: &Services) -> Result<Step, StoreError> {
    let at = s.db.read_blocking(Position::read)?;
    if at.digest_due() {
        let hour = at.next_digest;
        let cabinets = s.db.read_blocking(events::receiving_cabinets)?;
        let digests = crate::db::in_background(&cabinets, DIGEST_READERS, |&account| {
            let digest = s.db.read_blocking(|c| events::digest(c, account, hour))?;
            Ok::<_, StoreError>(digest.map(|d| (account, d.to_string())))
        })?;
        let digests: Vec<(i64, String)> = digests.into_iter().flatten().collect();
        s.db.write_blocking(|tx| {
            events::queue_digests(tx, &digests)?;
            scheduler::set(tx, &clock::iso(at.next_sync), &clock::iso(hour + HOUR))
        })?;
        return Ok(Step::Digested(hour));
    }
    if at.sync_due() {
        let hour = at.next_sync;
        let latest = at.now < hour + HOUR + HOUR;
        hourly_sync::sync_hour(s, hour, latest)?;
        automation::run_hour(s, hour);
        if let Err(e) = zones::run(s) {
            tracing::error!(error = %e, "following the schedules' zones failed");
        }
        s.db.write_blocking(|tx| {
            events::queue_status_changes(tx)?;
            scheduler::set(tx, &clock::iso(hour + HOUR), &clock::iso(at.next_digest))
        })?;
        return Ok(Step::Synced(hour));
    }
    if let Some(mark) = s.db.read_blocking(|c| automation::fast::due(c, at.now))? {
        automation::fast::run_mark(s, mark)?;
        s.db.write_blocking(|tx| events::queue_status_changes(tx))?;
        return Ok(Step::Fast(mark));
    }
    if s.db.read_blocking(crate::ops::funds::pending_due)? {
        crate::ops::funds::settle_pending(s)?;
        return Ok(Step::Transfers);
    }
    if s.db.read_blocking(status_events::any_unsent)? {
        s.db.write_blocking(|tx| events::queue_status_changes(tx))?;
        return Ok(Step::Notified);
    }
    Ok(Step::Idle)
}
