//! Owns the connector's own tables (`tg_*`): each ad's lifetime counters as last read from the
//! platform and when, and deletes recorded by operation token.

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension};

use crate::domain::money::Money;
use crate::domain::stats::Totals;
use crate::store::StoreError;

/// An ad's lifetime counters as last read, and when (unix seconds of the service clock).
pub struct Seen {
    pub totals: Totals,
    pub at: i64,
}

/// Every ad of the account as last read, by ad id.
pub fn seen_all(conn: &Connection, account: i64) -> Result<HashMap<i64, Seen>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id, views, opens, clicks, actions, spent_micros, seen_at FROM tg_seen
         WHERE account_id = ?1",
    )?;
    let rows = stmt.query_map([account], |r| {
        Ok((
            r.get(0)?,
            Seen {
                totals: Totals {
                    views: r.get(1)?,
                    opens: r.get(2)?,
                    clicks: r.get(3)?,
                    actions: r.get(4)?,
                    spent: Money::from_micros(r.get(5)?),
                },
                at: r.get(6)?,
            },
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Stores each ad's counters as just read (`seen`, by ad id), in one statement prepared once
/// for all of them.
pub fn set_seen(conn: &Connection, account: i64, seen: &[(i64, Seen)]) -> Result<(), StoreError> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO tg_seen (account_id, ad_id, views, opens, clicks, actions, spent_micros, seen_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (account_id, ad_id) DO UPDATE SET views = excluded.views,
            opens = excluded.opens, clicks = excluded.clicks, actions = excluded.actions,
            spent_micros = excluded.spent_micros, seen_at = excluded.seen_at",
    )?;
    for (ad, s) in seen {
        stmt.execute(params![
            account,
            ad,
            s.totals.views,
            s.totals.opens,
            s.totals.clicks,
            s.totals.actions,
            s.totals.spent.micros(),
            s.at
        ])?;
    }
    Ok(())
}

/// What an earlier delete with this token did: `Some(removed)`.
pub fn recorded_delete(
    conn: &Connection,
    token: &str,
    account: i64,
    ad: i64,
) -> Result<Option<bool>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT removed FROM tg_deletes WHERE token = ?1 AND account_id = ?2 AND ad_id = ?3",
            params![token, account, ad],
            |r| r.get(0),
        )
        .optional()?)
}

pub fn record_delete(
    conn: &Connection,
    token: &str,
    account: i64,
    ad: i64,
    removed: bool,
    now: i64,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT OR REPLACE INTO tg_deletes (token, account_id, ad_id, removed, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![token, account, ad, removed, now],
    )?;
    Ok(())
}
