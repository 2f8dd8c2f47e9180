//! Owns the hourly report on the Telegram Ads API: every ad's status and lifetime counters
//! from `getAdsList`, taken back to the hour's end (or to each of several hours' ends, after
//! hours the platform could not be reached) with the 5-minute stats series (`getAdStats`, at
//! most 1,000 intervals a call, read in pages) so that each hour gets exactly its own
//! delivery. Only ads whose counters moved since before the first hour closed cost stats calls
//! and a write of what was seen.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::state::{self, Seen};
use super::wire::Call;
use super::{map, Account, Telegram};
use crate::clock;
use crate::domain::ad::AdCounters;
use crate::domain::money::Money;
use crate::domain::stats::Totals;
use crate::domain::time::Month;
use crate::platform::PlatformError;

/// The stats series' step: five minutes.
const STEP: i64 = 300;
/// Intervals one `getAdStats` call may ask for.
const MAX_INTERVALS: i64 = 1_000;

/// Every ad's counters as they stood at each of `ends` (oldest first, none later than now):
/// `getAdsList` once, and for each ad whose counters moved since the first end, its 5-minute
/// series from there to now, read once in pages of at most 1,000 intervals and taken off the
/// present counters back to each end.
pub(super) fn reports(
    tg: &Telegram,
    account: &Account,
    ends: &[DateTime<Utc>],
) -> Result<Vec<Vec<AdCounters>>, PlatformError> {
    let now = tg
        .db
        .read_blocking(clock::now)
        .map_err(PlatformError::store)?;
    let now_unix = now.timestamp();
    let ends: Vec<i64> = ends.iter().map(|e| e.timestamp().min(now_unix)).collect();
    let Some(&first) = ends.first() else {
        return Ok(Vec::new());
    };
    let changed_at = clock::iso(now);
    let ads = tg.all_ads(account, false)?;
    let seen = tg
        .db
        .read_blocking(|c| state::seen_all(c, account.id))
        .map_err(PlatformError::store)?;
    let mut reports: Vec<Vec<AdCounters>> =
        ends.iter().map(|_| Vec::with_capacity(ads.len())).collect();
    let mut seen_now = Vec::with_capacity(ads.len());
    for ad in &ads {
        let Some(line) = map::counters(ad, &changed_at) else {
            tracing::warn!(account = account.id, ad = %ad, "an ad adcab cannot read; skipped");
            continue;
        };
        let lifetime = line.totals();
        let moved = match seen.get(&line.ad_id) {
            Some(s) => s.totals != lifetime || s.at > first,
            None => !lifetime.is_idle(),
        };
        let mut series = if moved {
            series_between(tg, account, line.ad_id, first, now_unix)?
        } else {
            Vec::new()
        };
        series.sort_by_key(|(from, _)| *from);
        for (report, after) in reports.iter_mut().zip(delivered_after(&series, &ends)) {
            report.push(back_to(line.clone(), &after));
        }
        // An ad that did not move keeps what was seen of it: its counters as they stood
        // before the first end, so it stays unmoved until they change.
        if moved {
            seen_now.push((
                line.ad_id,
                Seen {
                    totals: lifetime,
                    at: now_unix,
                },
            ));
        }
    }
    if !seen_now.is_empty() {
        tg.db
            .write_blocking(|tx| state::set_seen(tx, account.id, &seen_now))
            .map_err(PlatformError::store)?;
    }
    Ok(reports)
}

/// What `series` (oldest interval first) delivered from each of `ends` (oldest first) on: one
/// walk back from the newest interval, each end's sum growing from the next one's.
fn delivered_after(series: &[(i64, Totals)], ends: &[i64]) -> Vec<Totals> {
    let mut sums = vec![Totals::default(); ends.len()];
    let mut rows = series.iter().rev().peekable();
    let mut running = Totals::default();
    for (sum, &end) in sums.iter_mut().zip(ends).rev() {
        while let Some((_, totals)) = rows.next_if(|(from, _)| *from >= end) {
            running.add(totals);
        }
        *sum = running;
    }
    sums
}

/// A line's counters less what was delivered after the hour: as they stood at its end. The
/// money spent after it was still on the ad then.
fn back_to(line: AdCounters, after: &Totals) -> AdCounters {
    let at = line.totals().gain_since(after);
    AdCounters {
        budget: line
            .budget
            .checked_add(line.spent.checked_sub(at.spent).unwrap_or(Money::ZERO))
            .unwrap_or(line.budget),
        spent: at.spent,
        views: at.views,
        opens: at.opens,
        clicks: at.clicks,
        actions: at.actions,
        ..line
    }
}

/// The ad's delivery from `from` (an hour's end) up to now, interval by interval (each row's
/// start and counters) from the 5-minute series, read in pages of at most 1,000 intervals.
fn series_between(
    tg: &Telegram,
    account: &Account,
    ad: i64,
    from: i64,
    now: i64,
) -> Result<Vec<(i64, Totals)>, PlatformError> {
    let end = now - now.rem_euclid(STEP) + STEP;
    let mut series = Vec::new();
    let mut start = from - from.rem_euclid(STEP);
    while start < end {
        let to = (start + STEP * MAX_INTERVALS).min(end);
        let params = account.scoped(super::map(json!({
            "ad_id": ad, "from_time": start, "to_time": to, "interval": STEP
        })));
        let rows = tg.call(account, &Call::read("getAdStats", params))?;
        for row in rows.as_array().into_iter().flatten() {
            let at = row
                .get("from_time")
                .and_then(Value::as_i64)
                .unwrap_or(start);
            series.push((at, row_totals(row)));
        }
        start = to;
    }
    Ok(series)
}

/// Each ad's delivery in `month` from `getAccountReport` (ads deleted since included).
pub(super) fn month_report(
    tg: &Telegram,
    account: &Account,
    month: Month,
) -> Result<Vec<(i64, Totals)>, PlatformError> {
    let params = account.scoped(super::map(
        json!({ "year": month.year, "month": month.month }),
    ));
    let rows = tg.call(account, &Call::read("getAccountReport", params))?;
    Ok(rows
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|row| Some((row.get("ad_id")?.as_i64()?, row_totals(row))))
        .collect())
}

fn row_totals(row: &Value) -> Totals {
    let count = |name: &str| row.get(name).and_then(Value::as_i64);
    Totals {
        views: count("views").unwrap_or(0),
        opens: count("opens").unwrap_or(0),
        clicks: count("clicks").unwrap_or(0),
        actions: count("actions").or_else(|| count("joins")).unwrap_or(0),
        spent: row
            .get("spent_budget")
            .and_then(map::money)
            .unwrap_or(Money::ZERO),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::campaign::Status;

    #[test]
    fn a_line_is_taken_back_to_the_hour_end_with_its_budget_restored() {
        let line = AdCounters {
            ad_id: 1,
            status: Status::Active,
            active: true,
            budget: Money::from_micros(7_000_000),
            spent: Money::from_micros(3_000_000),
            views: 1_500,
            opens: 0,
            clicks: 150,
            actions: 30,
            status_changed_at: "t".into(),
            decline_reason: None,
        };
        let after = Totals {
            views: 500,
            opens: 0,
            clicks: 50,
            actions: 10,
            spent: Money::from_micros(1_000_000),
        };
        let at = back_to(line, &after);
        assert_eq!((at.views, at.clicks, at.actions), (1_000, 100, 20));
        assert_eq!(at.spent, Money::from_micros(2_000_000));
        assert_eq!(at.budget, Money::from_micros(8_000_000));
    }

    #[test]
    fn each_end_sums_what_was_delivered_from_it_on() {
        let views = |n| Totals {
            views: n,
            ..Totals::default()
        };
        let series = [
            (0, views(1)),
            (300, views(2)),
            (600, views(4)),
            (900, views(8)),
        ];
        let after: Vec<i64> = delivered_after(&series, &[0, 300, 600, 1200])
            .iter()
            .map(|t| t.views)
            .collect();
        assert_eq!(after, [15, 14, 12, 0]);
    }

    #[test]
    fn stats_rows_sum_with_the_older_actions_name() {
        let row: Value = serde_json::from_str(
            r#"{"from_time": 0, "to_time": 300, "views": 10, "joins": 2, "spent_budget": 0.025}"#,
        )
        .unwrap();
        let t = row_totals(&row);
        assert_eq!((t.views, t.actions), (10, 2));
        assert_eq!(t.spent, Money::from_micros(25_000));
    }
}
