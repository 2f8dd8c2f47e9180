//! Owns what a month's reconciliation reads and corrects of the stored delivery: each ad's sums
//! over a span (hourly rows, and daily rows retention rolled up inside it), and a correction of
//! one ad's rows so the span's sums come to the platform's.

use std::collections::HashMap;

use rusqlite::{params, Connection};

use super::stats::totals_at;
use super::StoreError;
use crate::domain::stats::Totals;

/// Each ad's stored delivery in the hours starting in `[from, to)`.
pub fn of_ads(
    conn: &Connection,
    account: i64,
    from: &str,
    to: &str,
) -> Result<HashMap<i64, Totals>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT ad_id, SUM(views), SUM(opens), SUM(clicks), SUM(actions), SUM(spent_micros)
         FROM (
            SELECT ad_id, views, opens, clicks, actions, spent_micros FROM hourly_stats
            WHERE account_id = ?1 AND hour >= ?2 AND hour < ?3
            UNION ALL
            SELECT ad_id, views, opens, clicks, actions, spent_micros FROM daily_stats
            WHERE account_id = ?1 AND day || 'T00:00:00Z' >= ?2 AND day < substr(?3, 1, 10))
         GROUP BY ad_id",
    )?;
    let rows = stmt.query_map(params![account, from, to], |r| {
        Ok((r.get(0)?, totals_at(r, 1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One stored row of an ad's delivery: an hour's, or a day's rolled up by retention.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    Hour(String),
    Day(String),
}

/// The part of the delivery a reconciliation corrects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Delta {
    pub views: i64,
    pub clicks: i64,
    pub spent_micros: i64,
}

/// What a correction changed: the hours whose rows changed (for the cabinet's hourly sums) and
/// the rolled-up days, each with what it moved.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Corrected {
    pub hours: Vec<String>,
    pub days: Vec<(String, Delta)>,
}

/// Adds `delta` to ad `ad`'s stored delivery in `[from, to)`: what it adds goes to its latest
/// row there (a new hourly row at `last_hour` when it has none); what it takes comes off its
/// latest rows first, none going below zero.
pub fn correct(
    conn: &Connection,
    (account, ad): (i64, i64),
    (from, to): (&str, &str),
    last_hour: &str,
    delta: Delta,
) -> Result<Corrected, StoreError> {
    let mut rows: Vec<(Slot, [i64; 3])> = Vec::new();
    let mut hours = conn.prepare(
        "SELECT hour, views, clicks, spent_micros FROM hourly_stats
         WHERE account_id = ?1 AND ad_id = ?2 AND hour >= ?3 AND hour < ?4 ORDER BY hour DESC",
    )?;
    for row in hours.query_map(params![account, ad, from, to], |r| {
        Ok((Slot::Hour(r.get(0)?), [r.get(1)?, r.get(2)?, r.get(3)?]))
    })? {
        rows.push(row?);
    }
    let mut days = conn.prepare(
        "SELECT day, views, clicks, spent_micros FROM daily_stats
         WHERE account_id = ?1 AND ad_id = ?2 AND day || 'T00:00:00Z' >= ?3
            AND day < substr(?4, 1, 10) ORDER BY day DESC",
    )?;
    for row in days.query_map(params![account, ad, from, to], |r| {
        Ok((Slot::Day(r.get(0)?), [r.get(1)?, r.get(2)?, r.get(3)?]))
    })? {
        rows.push(row?);
    }
    if rows.is_empty() {
        rows.push((Slot::Hour(last_hour.to_string()), [0; 3]));
        conn.execute(
            "INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions,
                spent_micros) VALUES (?1, ?2, ?3, 0, 0, 0, 0, 0)",
            params![account, ad, last_hour],
        )?;
    }
    let original: Vec<[i64; 3]> = rows.iter().map(|(_, v)| *v).collect();
    for (field, change) in [delta.views, delta.clicks, delta.spent_micros]
        .into_iter()
        .enumerate()
    {
        if change >= 0 {
            rows[0].1[field] = rows[0].1[field].saturating_add(change);
            continue;
        }
        let mut owed = change.unsigned_abs() as i64;
        for (_, values) in rows.iter_mut() {
            let taken = values[field].min(owed);
            values[field] -= taken;
            owed -= taken;
        }
    }
    let mut changed = Corrected::default();
    for ((slot, [views, clicks, spent]), before) in rows.iter().zip(original) {
        if before == [*views, *clicks, *spent] {
            continue;
        }
        match slot {
            Slot::Hour(hour) => {
                conn.execute(
                    "UPDATE hourly_entries SET views = ?4, clicks = ?5, spent_micros = ?6
                     WHERE account_id = ?1 AND ad_id = ?2 AND hour = ?3",
                    params![account, ad, hour, views, clicks, spent],
                )?;
                changed.hours.push(hour.clone());
            }
            Slot::Day(day) => {
                conn.execute(
                    "UPDATE daily_stats SET views = ?4, clicks = ?5, spent_micros = ?6
                     WHERE account_id = ?1 AND ad_id = ?2 AND day = ?3",
                    params![account, ad, day, views, clicks, spent],
                )?;
                let moved = Delta {
                    views: views - before[0],
                    clicks: clicks - before[1],
                    spent_micros: spent - before[2],
                };
                changed.days.push((day.clone(), moved));
            }
        }
    }
    Ok(changed)
}
