//! Owns the hourly sync of every cabinet: the platform's report of each campaign (status,
//! switch, money, counters) into the stored copies, what each gained since the last sync as
//! its stats of that hour, status changes for the webhook sender, the balance, and the full
//! re-read of running campaigns spread over the hours. The scheduler runs it off the runtime.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};

use crate::clock;
use crate::domain::ad::AdCounters;
use crate::domain::money::Money;
use crate::domain::stats::Totals;
use crate::ops::write_back::{apply_all_settings, confirm_missing, store_balance};
use crate::platform::PlatformError;
use crate::services::Services;
use crate::store::cabinets::Revised;
use crate::store::campaigns::{Reported, SyncState};
use crate::store::events::{self, StatusChange};
use crate::store::history::Source;
use crate::store::StoreError;
use crate::store::{cabinets, campaigns, runs, stats};

/// A running campaign's settings are re-read in full once they are this old, which is the
/// third hourly sync after its last full read.
const FULL_READ_AFTER: Duration = Duration::minutes(150);

/// A cabinet's report for the end of an hour as the platform gave it, with the local
/// revision of each stored copy read just before it was asked for (shared by the reports of
/// one read, which may catch up many hours).
pub struct Report {
    account: i64,
    hour: DateTime<Utc>,
    revs: Arc<HashMap<i64, i64>>,
    lines: Vec<AdCounters>,
    balance: Option<Money>,
}

impl Report {
    /// The ads the platform listed.
    fn listed(&self) -> HashSet<i64> {
        self.lines.iter().map(|line| line.ad_id).collect()
    }
}

/// Hours before the one being synced that a cabinet's sync catches up at most: a month.
const MAX_CATCH_UP_HOURS: i64 = 31 * 24;

/// Asks the platform for a cabinet's report at the end of the hour starting at `hour` and for
/// its balance (a failed balance read leaves the stored one), after reports at the end of each
/// hour since the last one stored for the cabinet, when the platform could not be reached for
/// those (at most [`MAX_CATCH_UP_HOURS`]): oldest first, so that each hour keeps its own
/// delivery. The stored copies' local revisions are read first.
pub fn read_reports(
    services: &Services,
    account: i64,
    hour: DateTime<Utc>,
) -> Result<Result<Vec<Report>, PlatformError>, StoreError> {
    let (revs, through) = services.db.read_blocking(|c| {
        let revs = campaigns::local_revs(c, account)?;
        Ok::<_, StoreError>((revs, cabinets::synced_through(c, account)?))
    })?;
    let first = through
        .as_deref()
        .and_then(clock::parse_iso)
        .filter(|t| *t < hour)
        .map_or(hour, |t| t.max(hour - Duration::hours(MAX_CATCH_UP_HOURS)));
    let starts: Vec<DateTime<Utc>> = (0..)
        .map(|i| first + Duration::hours(i))
        .take_while(|h| *h <= hour)
        .collect();
    let ends: Vec<DateTime<Utc>> = starts.iter().map(|h| *h + Duration::hours(1)).collect();
    let lines = match services.platform.reports(account, &ends) {
        Ok(lines) => lines,
        Err(e) => return Ok(Err(e)),
    };
    let revs = Arc::new(revs);
    let mut reports: Vec<Report> = starts
        .into_iter()
        .zip(lines)
        .map(|(hour, lines)| Report {
            account,
            hour,
            revs: revs.clone(),
            lines,
            balance: None,
        })
        .collect();
    if let Some(last) = reports.last_mut() {
        last.balance = services.platform.balance(account).ok();
    }
    Ok(Ok(reports))
}

/// Stores a report in one transaction: each copy's counters, and what each gained since the
/// last sync as its stats of the hour; the switch, budget and status (a status change recorded
/// for the webhook sender) only of copies adcab did not change after the report was read, whose
/// own state is newer; the cabinet's hour, and its balance unless such a change came between.
/// The copies' sync state is read on a reader first, after the cabinet's copies' revision; the
/// transaction reads it again only when the revision moved meanwhile. Returns the service
/// clock's now.
pub fn store_report(services: &Services, report: &Report) -> Result<DateTime<Utc>, StoreError> {
    let account = report.account;
    let hour = clock::iso(report.hour);
    let states = |c: &rusqlite::Connection| campaigns::sync_states(c, account);
    let read = services
        .db
        .read_blocking(|c| Revised::read(c, account, states))?;
    services.db.write_blocking(|tx| {
        let now = clock::now(tx)?;
        let stored = read.current_or_else(tx, states)?;
        let mut day_spends = stats::day_spends(tx, account, report.hour)?;
        // Each line of a stored copy, with what the copy gained since its mark.
        let listed: Vec<(&AdCounters, &SyncState, Totals)> = report
            .lines
            .iter()
            .filter_map(|line| {
                let state = stored.get(&line.ad_id)?;
                Some((line, state, line.totals().gain_since(&state.mark)))
            })
            .collect();
        // The campaigns that gained in the hour: the rows written, added to their runs.
        let gained: Vec<i64> = listed
            .iter()
            .filter(|(_, _, gain)| !gain.is_idle())
            .map(|(line, _, _)| line.ad_id)
            .collect();
        let mut runs = runs::for_hour(tx, account, &hour, &gained)?;
        let mut newer_balance = false;
        let (mut gains, mut counters) = (stats::Gains::new(tx)?, campaigns::CounterWrites::new(tx));
        for &(line, state, ref gain) in &listed {
            let unchanged = report.revs.get(&line.ad_id) == Some(&state.local_rev);
            let moved = unchanged && state.status != line.status;
            let reported = if !unchanged {
                // A money move stored meanwhile stored the balance after it, too.
                newer_balance = true;
                Reported::CountersOnly
            } else if moved || !state.same_switch(line) {
                Reported::State {
                    status_moved: moved,
                    wide_moved: !state.same_wide_row(line),
                }
            } else {
                Reported::CountersOnly
            };
            gains.record(account, line.ad_id, &hour, gain, &mut runs)?;
            // What the hour's rows hold once this line's gain is in (a report listing an ad
            // twice adds both).
            let day_spend = day_spends.entry(line.ad_id).or_default();
            *day_spend = day_spend.saturating_add(gain.spent.micros());
            let day_spend = *day_spend;
            counters.apply(account, line, reported, Some(day_spend))?;
            if moved {
                let change = StatusChange {
                    account_id: account,
                    ad_id: line.ad_id,
                    tme_path: state.tme_path.as_deref(),
                    old: state.status,
                    new: line.status,
                    source: Source::Sync,
                    decline_reason: line.decline_reason.as_ref(),
                };
                events::record(tx, &change, &line.status_changed_at)?;
            }
        }
        stats::total_cabinet_hour(tx, account, &hour)?;
        // Each copy the report listed had its day's spend written with its counters; the
        // others' may move as the day's window moves on.
        if listed.len() < stored.len() {
            stats::keep_day_spend(tx, account, report.hour)?;
        }
        store_balance(tx, account, report.balance.filter(|_| !newer_balance))?;
        cabinets::set_synced_through(tx, account, &clock::iso(report.hour + Duration::hours(1)))?;
        Ok::<_, StoreError>(now)
    })
}

/// Brings every campaign of a cabinet to the end of the hour starting at `hour`: the
/// platform's report goes into the stored copies ([`read_reports`], [`store_report`]; after
/// hours it could not be reached, each missed hour's report first), ads the
/// report no longer lists are confirmed gone, and with `full_reads`, running campaigns whose
/// settings are older than [`FULL_READ_AFTER`] are re-read in full, at most a third of the
/// running ones per hour (the stalest first), so re-reads spread over the hours; their
/// counters stay the report's ([`apply_all_settings`]).
pub fn sync_cabinet(
    services: &Services,
    account: i64,
    hour: DateTime<Utc>,
    full_reads: bool,
) -> Result<Result<(), PlatformError>, StoreError> {
    let reports = match read_reports(services, account, hour)? {
        Ok(reports) => reports,
        Err(e) => return Ok(Err(e)),
    };
    let mut now = None;
    for report in &reports {
        now = Some(store_report(services, report)?);
    }
    let (Some(now), Some(last)) = (now, reports.last()) else {
        return Ok(Ok(()));
    };
    let listed = last.listed();
    if let Err(e) = confirm_missing(services, account, &listed)? {
        tracing::warn!(account, error = %e, "missing ads not confirmed; retried next hour");
    }
    if full_reads {
        let cutoff = clock::iso(now - FULL_READ_AFTER);
        let stale = services
            .db
            .read_blocking(|c| campaigns::stale_running(c, account, &cutoff))?;
        if !stale.is_empty() {
            match services.platform.get_ads(account, &stale) {
                Ok(snaps) => apply_all_settings(services, account, &snaps)?,
                Err(e) => {
                    tracing::warn!(account, error = %e, "full re-read failed; retried next hour")
                }
            }
        }
    }
    Ok(Ok(()))
}

/// Syncs every cabinet for the hour starting at `hour`, as many at once as the platform
/// takes ([`crate::platform::Platform::parallel_reads`]), each on a thread of its own at a
/// background priority ([`crate::db::in_background`]: the writer they feed and requests go
/// first when the cores are short). A cabinet the platform does not answer for keeps its
/// copy; its gains count in the next hour it is synced.
pub fn sync_hour(
    services: &Services,
    hour: DateTime<Utc>,
    full_reads: bool,
) -> Result<(), StoreError> {
    let accounts = services.db.read_blocking(cabinets::syncable)?;
    let workers = services.platform.parallel_reads();
    crate::db::in_background(&accounts, workers, |&account| {
        if let Err(e) = sync_cabinet(services, account, hour, full_reads)? {
            tracing::warn!(account, hour = %clock::iso(hour), error = %e, "cabinet not synced");
        }
        Ok::<_, StoreError>(())
    })?;
    Ok(())
}
