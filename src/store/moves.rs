//! Owns `automation_moves`: the money automation moved, or set out to move, into campaigns,
//! each move with its idempotency token, recorded before the platform is asked and kept apart
//! from the rules, so a crash or a deleted rule never lets the cabinet's daily cap be passed.

use rusqlite::{params, Connection};

use super::StoreError;
use crate::domain::money::Money;
use crate::domain::rule::Move;
use crate::domain::time;

/// A move about to be asked of the platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMove<'a> {
    pub token: &'a str,
    pub account_id: i64,
    pub rule_id: i64,
    pub ad_id: i64,
    pub at: &'a str,
    pub moved: Money,
    /// Its entry in the rule's log.
    pub log_id: i64,
}

/// Records a move as `planned`, before the platform is asked.
pub fn plan(conn: &Connection, m: &NewMove) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO automation_moves (token, account_id, rule_id, ad_id, at, moved_micros,
            state, log_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'planned', ?7)",
    )?
    .execute(params![
        m.token,
        m.account_id,
        m.rule_id,
        m.ad_id,
        m.at,
        m.moved.micros(),
        m.log_id
    ])?;
    Ok(())
}

/// What the platform answered: the money moved (`done`), or it did not (`failed`).
pub fn settle(conn: &Connection, token: &str, done: bool) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE automation_moves SET state = ?2 WHERE token = ?1")?
        .execute(params![token, if done { "done" } else { "failed" }])?;
    Ok(())
}

/// The cabinet's moves at or after `since` that moved money or may have: every one but the
/// failed, whatever became of the rule.
pub fn since(conn: &Connection, account: i64, since: &str) -> Result<Vec<Move>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT rule_id, at, moved_micros FROM automation_moves
         WHERE account_id = ?1 AND at >= ?2 AND state <> 'failed'",
    )?;
    let moves = stmt.query_map(params![account, since], |r| {
        let at: String = r.get(1)?;
        Ok(Move {
            rule_id: r.get(0)?,
            at: time::parse_iso(&at)
                .ok_or_else(|| super::unreadable("automation_moves.at", &at))?,
            moved: Money::from_micros(r.get(2)?),
            dry: false,
        })
    })?;
    Ok(moves.collect::<rusqlite::Result<_>>()?)
}

/// A move still `planned`: the platform's answer was never learnt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsettled {
    pub token: String,
    pub rule_id: i64,
    pub ad_id: i64,
    pub moved: Money,
    pub log_id: Option<i64>,
}

/// The cabinet's moves still `planned`, oldest first.
pub fn unsettled(conn: &Connection, account: i64) -> Result<Vec<Unsettled>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT token, rule_id, ad_id, moved_micros, log_id FROM automation_moves
         WHERE account_id = ?1 AND state = 'planned' ORDER BY id",
    )?;
    let rows = stmt.query_map([account], |r| {
        Ok(Unsettled {
            token: r.get(0)?,
            rule_id: r.get(1)?,
            ad_id: r.get(2)?,
            moved: Money::from_micros(r.get(3)?),
            log_id: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
