//! Owns the retention pass (`[retention]`): hourly stats older than `hourly_stats_days` roll
//! into daily rows (campaign by campaign); conversions older than `conversions_days` (their
//! campaigns' running totals keep them), old webhook deliveries, sent status events and
//! idempotency records are removed. Cutoffs are read on the service clock, like the times the
//! rows carry. The pass works in small batches, each its own short write transaction, and
//! rests between them (see [`Pace`]), so the API is never held behind it for long.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::clock;
use crate::config::RetentionConfig;
use crate::services::Services;
use crate::store::{cabinets, retention, StoreError};

/// How hard a pass works.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    /// Campaigns whose old hourly stats one batch rolls up, at most (about a day's rows each
    /// in the steady state).
    pub campaigns: i64,
    /// Rows one batch of another kind removes, at most.
    pub rows: i64,
    /// The shortest pause after a batch of hourly stats that moved something.
    pub breather: Duration,
    /// The shortest pause after a batch of removals that left more to remove. A removal's
    /// cost is in copying the log rather than in the CPU: a removed conversion takes entries
    /// from eight B-trees (its row, its five indexes, its attributions and theirs), most of
    /// them ordered by campaign or by `txid`, so a batch leaves pages from all over the file
    /// in the log, and the background checkpoint that copies them into the database writes
    /// them one by one and waits for their `fsync`.
    pub spread: Duration,
    /// The pause after a batch is at least this many times as long as the batch took, so the
    /// pass keeps at most `1 / (1 + rest)` of one core and the requests have the rest.
    pub rest: u32,
}

impl Pace {
    /// The pace of `serve`'s hourly pass. A batch is one write transaction that stops early,
    /// after the campaign or the [`STEP`] rows in hand, as soon as a request waits for the
    /// writer; the pause after it lets the queue go first, and keeps the pass to a third of
    /// one core.
    ///
    /// Five campaigns a batch: over a year of 10,000 campaigns, a PATCH's p99 during a pass
    /// rose by 1.5-3 ms with twenty and by 0.2-0.5 ms with five; the pass takes about three
    /// times as long (`retention_bench --from`, in `docs/benchmarks`).
    ///
    /// Removals go 50 rows at most every 200 ms, 250 a second. A pass that removed a day of
    /// 10,000 campaigns' conversions 500 rows a batch (about 2,500 a second) left the
    /// checkpoints of those seconds 0.3-1.2 s of copying, against 40-70 ms a second while it
    /// rolled hours; meanwhile this machine's virtual CPUs stood still a fifth to two fifths
    /// of the time, and the requests of that second took up to 27 ms against 10-13 ms at
    /// worst without a pass (`year_bench --only=retention`, in `docs/benchmarks`). An hour's
    /// conversions (the steady state of the hourly pass) go in about two seconds; a day's,
    /// after a day without a pass, in about forty.
    pub const SERVICE: Pace = Pace {
        campaigns: 5,
        rows: 50,
        breather: Duration::from_millis(20),
        spread: Duration::from_millis(200),
        rest: 2,
    };

    /// Pauses after a batch that began at `began`: at least `shortest`, and [`Pace::rest`]
    /// times as long as the batch took.
    async fn rest_after(self, began: Instant, shortest: Duration) {
        let worked = began.elapsed();
        tokio::time::sleep(shortest.max(worked * self.rest)).await;
    }
}

/// Rows of a kind other than hourly stats removed between two looks at the writer's queue.
const STEP: i64 = 50;

/// What one pass moved and removed.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Pruned {
    /// Hourly stats rows rolled into daily rows.
    pub hourly_stats: u64,
    /// Conversions removed (their campaigns' running totals keep them).
    pub conversions: u64,
    pub webhook_deliveries: u64,
    pub status_events: u64,
    pub idempotency_records: u64,
    /// Rule log entries, Auto CPM decisions, alerts and their sends.
    pub automation: u64,
}

/// The cutoffs of a policy at `now`; `None` keeps that kind forever.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cutoffs {
    /// The start of a UTC day: hours before it roll up, so days roll whole.
    pub hourly_stats: Option<String>,
    pub conversions: Option<String>,
    pub deliveries: Option<String>,
    pub events: Option<String>,
    pub idempotency: Option<String>,
    pub automation: Option<String>,
}

impl Cutoffs {
    pub fn at(policy: &RetentionConfig, now: DateTime<Utc>) -> Cutoffs {
        let before = |days: u32| (days > 0).then(|| now - chrono::Duration::days(i64::from(days)));
        Cutoffs {
            hourly_stats: before(policy.hourly_stats_days)
                .map(|t| format!("{}T00:00:00Z", t.format("%Y-%m-%d"))),
            conversions: before(policy.conversions_days).map(clock::iso),
            deliveries: before(policy.deliveries_days).map(clock::iso),
            events: before(policy.events_days).map(clock::iso),
            idempotency: before(policy.idempotency_days).map(clock::iso),
            automation: before(policy.automation_days).map(clock::iso),
        }
    }
}

/// Runs one whole pass at the service's pace.
pub async fn pass(services: &Services) -> Result<Pruned, StoreError> {
    pass_paced(services, Pace::SERVICE).await
}

/// Runs one whole pass at `pace`: every kind, batch after batch, until nothing older than its
/// cutoff is left.
pub async fn pass_paced(services: &Services, pace: Pace) -> Result<Pruned, StoreError> {
    let db = &services.db;
    let now = db.read(clock::now).await?;
    let cut = Cutoffs::at(&services.config.retention, now);
    let mut done = Pruned::default();
    if let Some(cutoff) = cut.hourly_stats {
        let accounts = db.read(cabinets::all_ids).await?;
        for account in accounts {
            let c = cutoff.clone();
            let due = db.read(move |conn| retention::has_hours_before(conn, account, &c));
            if !due.await? {
                continue;
            }
            let mut after = 0;
            loop {
                let cutoff = cutoff.clone();
                let began = Instant::now();
                let (last, moved) = db
                    .write_yielding(move |tx, queue| {
                        let ads = retention::campaigns_after(tx, account, after, pace.campaigns)?;
                        let (mut last, mut moved) = (None, 0);
                        for ad in ads {
                            moved += retention::roll_campaign(tx, account, ad, &cutoff)?;
                            last = Some(ad);
                            if queue.wanted() {
                                break;
                            }
                        }
                        Ok::<_, StoreError>((last, moved))
                    })
                    .await?;
                let Some(last) = last else { break };
                after = last;
                done.hourly_stats += moved as u64;
                if moved > 0 {
                    pace.rest_after(began, pace.breather).await;
                }
            }
        }
    }
    type Batch = fn(&rusqlite::Connection, &str, i64) -> Result<usize, StoreError>;
    let kinds: [(Option<String>, Batch, &mut u64); 5] = [
        (
            cut.conversions,
            retention::prune_conversions,
            &mut done.conversions,
        ),
        (
            cut.deliveries,
            retention::prune_deliveries,
            &mut done.webhook_deliveries,
        ),
        (cut.events, retention::prune_events, &mut done.status_events),
        (
            cut.idempotency,
            retention::prune_idempotency,
            &mut done.idempotency_records,
        ),
        (
            cut.automation,
            retention::prune_automation,
            &mut done.automation,
        ),
    ];
    for (cutoff, batch, count) in kinds {
        let Some(cutoff) = cutoff else { continue };
        loop {
            let cutoff = cutoff.clone();
            let began = Instant::now();
            // What the batch removed, and whether it may have left some: each step's statement
            // takes what it is asked for while that many are left.
            let (removed, more) = db
                .write_yielding(move |tx, queue| {
                    let mut removed = 0;
                    while removed < pace.rows {
                        let asked = STEP.min(pace.rows - removed);
                        let step = batch(tx, &cutoff, asked)? as i64;
                        removed += step;
                        if step < asked {
                            return Ok::<_, StoreError>((removed, false));
                        }
                        if queue.wanted() {
                            break;
                        }
                    }
                    Ok((removed, true))
                })
                .await?;
            *count += removed as u64;
            if !more {
                break;
            }
            pace.rest_after(began, pace.spread).await;
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutoffs_follow_the_policy_and_keep_zero_forever() {
        let policy = RetentionConfig {
            hourly_stats_days: 35,
            deliveries_days: 30,
            events_days: 0,
            idempotency_days: 2,
            conversions_days: 400,
            automation_days: 90,
        };
        let now = clock::parse_iso("2026-03-10T15:20:00Z").unwrap();
        let cut = Cutoffs::at(&policy, now);
        assert_eq!(cut.hourly_stats.as_deref(), Some("2026-02-03T00:00:00Z"));
        assert_eq!(cut.deliveries.as_deref(), Some("2026-02-08T15:20:00Z"));
        assert_eq!(cut.events, None);
        assert_eq!(cut.idempotency.as_deref(), Some("2026-03-08T15:20:00Z"));
        assert_eq!(cut.conversions.as_deref(), Some("2025-02-03T15:20:00Z"));
        assert_eq!(cut.automation.as_deref(), Some("2025-12-10T15:20:00Z"));
    }
}
