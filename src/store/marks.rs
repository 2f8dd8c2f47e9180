//! Owns `fast_marks` and where the fast checks stand: each ad's lifetime counters (and budget)
//! at 5-minute marks (Unix seconds, multiples of 300), which rules checked every 5 minutes
//! read their windows from, kept 25 hours; and the last mark the fast checks ran at.

use std::collections::HashMap;

use rusqlite::{params, Connection};

use super::StoreError;
use crate::domain::ad::AdCounters;
use crate::domain::stats::Totals;

/// The newest mark stored for the cabinet.
pub fn latest(conn: &Connection, account: i64) -> Result<Option<i64>, StoreError> {
    Ok(conn.query_row(
        "SELECT MAX(mark) FROM fast_marks WHERE account_id = ?1",
        [account],
        |r| r.get(0),
    )?)
}

/// Stores the cabinet's counters at `mark` (a mark already stored is replaced).
pub fn save(
    conn: &Connection,
    account: i64,
    mark: i64,
    lines: &[AdCounters],
) -> Result<(), StoreError> {
    let mut stmt = conn.prepare_cached(
        "INSERT OR REPLACE INTO fast_marks (account_id, ad_id, mark, views, opens, clicks,
            actions, spent_micros, budget_micros) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for l in lines {
        stmt.execute(params![
            account,
            l.ad_id,
            mark,
            l.views,
            l.opens,
            l.clicks,
            l.actions,
            l.spent.micros(),
            l.budget.micros()
        ])?;
    }
    Ok(())
}

/// Each ad's lifetime counters at those of `marks` that are stored, per ad.
pub fn at(
    conn: &Connection,
    account: i64,
    marks: &[i64],
) -> Result<HashMap<i64, Vec<(i64, Totals)>>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id, mark, views, opens, clicks, actions, spent_micros FROM fast_marks
         WHERE account_id = ?1 AND mark IN (SELECT value FROM json_each(?2))",
    )?;
    let list = super::ids_json(marks);
    let mut out: HashMap<i64, Vec<(i64, Totals)>> = HashMap::new();
    let rows = stmt.query_map(params![account, list], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)?,
            super::stats::totals_at(r, 2)?,
        ))
    })?;
    for row in rows {
        let (ad, mark, totals) = row?;
        out.entry(ad).or_default().push((mark, totals));
    }
    Ok(out)
}

/// Forgets every cabinet's marks before `before`, cabinet by cabinet through the key (a
/// condition on the mark alone would read the whole table).
pub fn prune(conn: &Connection, before: i64) -> Result<usize, StoreError> {
    Ok(conn.execute(
        "DELETE FROM fast_marks
         WHERE account_id IN (SELECT id FROM cabinets) AND mark < ?1",
        [before],
    )?)
}

/// The last mark the fast checks ran at; `None` before the first.
pub fn position(conn: &Connection) -> Result<Option<i64>, StoreError> {
    Ok(conn.query_row(
        "SELECT fast_mark FROM scheduler_state WHERE id = 1",
        [],
        |r| r.get(0),
    )?)
}

pub fn set_position(conn: &Connection, mark: i64) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE scheduler_state SET fast_mark = ?1 WHERE id = 1",
        [mark],
    )?;
    Ok(())
}
