//! Owns the retention pass (`[retention]`): hourly stats older than `hourly_stats_days` roll
//! into daily rows (campaign by campaign), conversions older than `conversions_days` into their campaigns' totals, and
//! old webhook deliveries, sent status events and idempotency records are removed. Cutoffs are
//! read on the service clock, like the times the rows carry. The pass works in batches of
//! [`BATCH`] rows, each its own short write transaction, and yields between them, so the API's
//! writes are never held behind it for long.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::config::RetentionConfig;
use crate::store::{cabinets, retention, StoreError};
use crate::{clock, Services};

/// Rows one batch moves or removes, at most.
pub const BATCH: i64 = 500;
/// Campaigns whose old hourly stats one batch rolls up: about a day's rows each in the
/// steady state, so a batch stays near [`BATCH`] rows.
const CAMPAIGNS: i64 = 20;
/// The pause between two batches: the pass holds the writer about a quarter of the time, and
/// requests waiting for it go first.
const BREATHER: Duration = Duration::from_millis(20);

/// What one pass moved and removed.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Pruned {
    /// Hourly stats rows rolled into daily rows.
    pub hourly_stats: u64,
    /// Conversions rolled into campaign totals and removed.
    pub conversions: u64,
    pub webhook_deliveries: u64,
    pub status_events: u64,
    pub idempotency_records: u64,
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
        }
    }
}

/// Runs one whole pass: every kind, batch after batch, until nothing older than its cutoff
/// is left.
pub async fn pass(services: &Services) -> Result<Pruned, StoreError> {
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
                let (last, moved) = db
                    .write(move |tx| {
                        let ads = retention::campaigns_after(tx, account, after, CAMPAIGNS)?;
                        let mut moved = 0;
                        for ad in &ads {
                            moved += retention::roll_campaign(tx, account, *ad, &cutoff)?;
                        }
                        Ok::<_, StoreError>((ads.last().copied(), moved))
                    })
                    .await?;
                let Some(last) = last else { break };
                after = last;
                done.hourly_stats += moved as u64;
                if moved > 0 {
                    tokio::time::sleep(BREATHER).await;
                }
            }
        }
    }
    type Batch = fn(&rusqlite::Connection, &str, i64) -> Result<usize, StoreError>;
    let kinds: [(Option<String>, Batch, &mut u64); 4] = [
        (
            cut.conversions,
            retention::roll_conversions,
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
    ];
    for (cutoff, batch, count) in kinds {
        let Some(cutoff) = cutoff else { continue };
        loop {
            let cutoff = cutoff.clone();
            let removed = db.write(move |tx| batch(tx, &cutoff, BATCH)).await?;
            if removed == 0 {
                break;
            }
            *count += removed as u64;
            tokio::time::sleep(BREATHER).await;
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
        };
        let now = clock::parse_iso("2026-03-10T15:20:00Z").unwrap();
        let cut = Cutoffs::at(&policy, now);
        assert_eq!(cut.hourly_stats.as_deref(), Some("2026-02-03T00:00:00Z"));
        assert_eq!(cut.deliveries.as_deref(), Some("2026-02-08T15:20:00Z"));
        assert_eq!(cut.events, None);
        assert_eq!(cut.idempotency.as_deref(), Some("2026-03-08T15:20:00Z"));
        assert_eq!(cut.conversions.as_deref(), Some("2025-02-03T15:20:00Z"));
    }
}
