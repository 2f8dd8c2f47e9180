//! Owns the fast checks: at each 5-minute mark (UTC, multiples of 300 seconds) the scheduler
//! passes, every cabinet with an enabled rule checked every 5 minutes has its lifetime counters
//! at the marks the store lacks read from the platform (the mark, and on a cabinet's first
//! check the marks back to 24 hours before it) and stored, marks older than 25 hours dropped,
//! and those rules run at the mark through the same pass, guards, act and log as the hourly
//! run. A jump of the clock is caught up to its last mark only: a 5-minute check of the past
//! is worthless. A cabinet whose check would not fit in 5 minutes of its token's pace is
//! checked every k × 5 minutes instead, which the log says. Blocking.

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use crate::domain::rule::{Every, State, FAST_REACH_HOURS};
use crate::services::Services;
use crate::store::{cabinets, campaigns, marks, rules, StoreError};

/// The step between marks, in seconds.
pub const MARK: i64 = 300;
/// How long marks are kept, in seconds: a day's reach and an hour.
pub const KEPT: i64 = (FAST_REACH_HOURS as i64 + 1) * 3600;
/// How far back a cabinet's first check reads marks, in seconds.
const FIRST_BACK: i64 = FAST_REACH_HOURS as i64 * 3600;

/// The newest mark at or before `now` (Unix seconds).
pub fn mark_of(now: DateTime<Utc>) -> i64 {
    let t = now.timestamp();
    t - t.rem_euclid(MARK)
}

fn time_of(mark: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(mark, 0).unwrap_or_default()
}

/// The mark a fast check is due at by `now`: a mark has passed since the last one checked, and
/// some enabled rule is checked every 5 minutes. `None` when nothing is due.
pub fn due(conn: &Connection, now: DateTime<Utc>) -> Result<Option<i64>, StoreError> {
    let mark = mark_of(now);
    if marks::position(conn)?.is_some_and(|last| last >= mark) {
        return Ok(None);
    }
    if rules::cabinets_checked(conn, Every::FiveMinutes)?.is_empty() {
        return Ok(None);
    }
    Ok(Some(mark))
}

/// Runs the fast checks of every cabinet that has them at `mark`, then drops the marks older
/// than [`KEPT`] (of cabinets whose fast rules are gone too) and records the mark as checked. A cabinet that fails is logged and the others still run.
pub fn run_mark(s: &Services, mark: i64) -> Result<(), StoreError> {
    for account in
        s.db.read_blocking(|c| rules::cabinets_checked(c, Every::FiveMinutes))?
    {
        if let Err(e) = check_cabinet(s, account, mark) {
            tracing::error!(account, error = %e, "a cabinet's fast checks failed");
        }
    }
    s.db.write_blocking(|tx| {
        marks::prune(tx, mark - KEPT)?;
        marks::set_position(tx, mark)
    })
}

/// How many marks apart a cabinet with `states` can be checked within its token's pace (1:
/// at every mark), from the platform's cost of one check.
fn spacing(s: &Services, states: &[State]) -> i64 {
    let active = states.iter().filter(|st| st.active).count();
    spacing_for(s.platform.fast_check_cost(states.len(), active))
}

/// Marks apart for a check of `cost` (calls, calls per second): as many as its calls need at
/// that pace, at least one.
fn spacing_for(cost: Option<(u64, u32)>) -> i64 {
    match cost {
        None => 1,
        Some((calls, per_second)) => {
            let room = (MARK as u64).saturating_mul(u64::from(per_second.max(1)));
            i64::try_from(calls.div_ceil(room))
                .unwrap_or(i64::MAX)
                .max(1)
        }
    }
}

/// One cabinet's fast check at `mark`: the counters at the marks it lacks, then its rules.
fn check_cabinet(s: &Services, account: i64, mark: i64) -> Result<(), StoreError> {
    let Some(cabinet) = s.db.read_blocking(|c| cabinets::get(c, account))? else {
        return Ok(());
    };
    if !cabinet.is_active {
        return Ok(());
    }
    let (states, latest) = s.db.read_blocking(|c| {
        Ok::<_, StoreError>((
            campaigns::rule_states(c, account)?,
            marks::latest(c, account)?,
        ))
    })?;
    let k = spacing(s, &states);
    if k > 1 {
        if (mark / MARK) % k != 0 {
            return Ok(());
        }
        if mark % 3600 < k * MARK {
            tracing::warn!(
                account,
                cabinet = %cabinet.name,
                minutes = k * 5,
                "a 5-minute check of this cabinet does not fit its token's pace; it is checked every {} minutes instead",
                k * 5
            );
        }
    }
    let from = latest.map_or(mark - FIRST_BACK, |l| (l + MARK).max(mark - FIRST_BACK));
    let ends: Vec<DateTime<Utc>> = (0..)
        .map(|i| from + i * MARK)
        .take_while(|m| *m <= mark)
        .map(time_of)
        .collect();
    if !ends.is_empty() {
        let reports = match s.platform.reports(account, &ends) {
            Ok(reports) => reports,
            Err(e) => {
                tracing::warn!(account, error = %e, "the 5-minute figures could not be read; the cabinet's fast rules wait for the next mark");
                return Ok(());
            }
        };
        s.db.write_blocking(|tx| {
            for (end, lines) in ends.iter().zip(&reports) {
                marks::save(tx, account, end.timestamp(), lines)?;
            }
            Ok::<_, StoreError>(())
        })?;
    }
    super::run_rules(s, account, time_of(mark), Every::FiveMinutes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_is_the_last_multiple_of_five_minutes() {
        let t = DateTime::from_timestamp(1_700_000_299, 0).unwrap();
        assert_eq!(mark_of(t), 1_700_000_100);
        assert_eq!(mark_of(time_of(1_700_000_100)), 1_700_000_100);
        assert_eq!(KEPT, 25 * 3600);
    }

    #[test]
    fn a_check_over_its_tokens_pace_is_spread_over_as_many_marks_as_its_calls_need() {
        assert_eq!(spacing_for(None), 1, "the simulator makes no calls");
        assert_eq!(
            spacing_for(Some((1_500, 5))),
            1,
            "1,500 calls fit 5 minutes at 5/s"
        );
        assert_eq!(spacing_for(Some((1_501, 5))), 2);
        assert_eq!(spacing_for(Some((10_010, 5))), 7, "every 35 minutes");
        assert_eq!(
            spacing_for(Some((10, 0))),
            1,
            "a pace of 0 reads as 1 a second"
        );
    }
}
