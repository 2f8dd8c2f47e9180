//! Owns the `transfers` table (migration 35): every move of money between an agency's main
//! account and one of its client cabinets, with its status on the platform, the key it was sent
//! with, who asked and when, and when a transfer still in progress is checked next.

use rusqlite::{params, Connection, Row};

use super::{optional, parsed, StoreError};
use crate::domain::funds::{Direction, TransferState};
use crate::domain::money::Money;

/// One transfer as stored.
#[derive(Debug, Clone)]
pub struct TransferRow {
    pub id: i64,
    pub account_id: i64,
    pub main_account_id: i64,
    pub direction: Direction,
    pub amount: Money,
    pub status: TransferState,
    pub platform_id: Option<String>,
    pub idempotency_key: String,
    pub source: String,
    pub user_id: Option<i64>,
    pub requested_at: String,
    pub settled_at: Option<String>,
    pub error: Option<String>,
}

/// A transfer about to be asked of the platform.
#[derive(Debug, Clone)]
pub struct NewTransfer<'a> {
    pub account_id: i64,
    pub main_account_id: i64,
    pub direction: Direction,
    pub amount: Money,
    pub idempotency_key: &'a str,
    pub source: &'a str,
    pub user_id: Option<i64>,
}

const COLUMNS: &str = "id, account_id, main_account_id, direction, amount_micros, status,
    platform_id, idempotency_key, source, user_id, requested_at, settled_at, error";

fn from_row(r: &Row) -> rusqlite::Result<TransferRow> {
    Ok(TransferRow {
        id: r.get("id")?,
        account_id: r.get("account_id")?,
        main_account_id: r.get("main_account_id")?,
        direction: parsed(r, "direction", "transfers.direction", Direction::parse)?,
        amount: Money::from_micros(r.get("amount_micros")?),
        status: parsed(r, "status", "transfers.status", TransferState::parse)?,
        platform_id: r.get("platform_id")?,
        idempotency_key: r.get("idempotency_key")?,
        source: r.get("source")?,
        user_id: r.get("user_id")?,
        requested_at: r.get("requested_at")?,
        settled_at: r.get("settled_at")?,
        error: r.get("error")?,
    })
}

/// Records a transfer before the platform is asked (status `in_progress`, no platform id
/// yet): a crash between the call and its answer leaves a row that is checked again at
/// `check_at`.
pub fn insert(
    conn: &Connection,
    t: &NewTransfer,
    now: &str,
    check_at: &str,
) -> Result<i64, StoreError> {
    conn.execute(
        "INSERT INTO transfers (account_id, main_account_id, direction, amount_micros, status,
            idempotency_key, source, user_id, requested_at, next_check_at)
         VALUES (?1, ?2, ?3, ?4, 'in_progress', ?5, ?6, ?7, ?8, ?9)",
        params![
            t.account_id,
            t.main_account_id,
            t.direction.as_str(),
            t.amount.micros(),
            t.idempotency_key,
            t.source,
            t.user_id,
            now,
            check_at
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<TransferRow>, StoreError> {
    optional(
        conn.prepare_cached(&format!("SELECT {COLUMNS} FROM transfers WHERE id = ?1"))?
            .query_row([id], from_row),
    )
}

/// The transfer sent with `key`, if any: a repeat of the same request finds it.
pub fn by_key(conn: &Connection, key: &str) -> Result<Option<TransferRow>, StoreError> {
    optional(
        conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM transfers WHERE idempotency_key = ?1"
        ))?
        .query_row([key], from_row),
    )
}

/// Records where a transfer stands: settled (with the time) or still in progress (checked
/// again at `next_check`).
pub fn set_status(
    conn: &Connection,
    id: i64,
    status: TransferState,
    platform_id: Option<&str>,
    error: Option<&str>,
    now: &str,
    next_check: Option<&str>,
) -> Result<(), StoreError> {
    let settled = (status != TransferState::InProgress).then_some(now);
    conn.execute(
        "UPDATE transfers SET status = ?2, platform_id = COALESCE(?3, platform_id), error = ?4,
            settled_at = ?5, next_check_at = ?6
         WHERE id = ?1",
        params![id, status.as_str(), platform_id, error, settled, next_check],
    )?;
    Ok(())
}

/// A cabinet's transfers, newest first, at most `limit`.
pub fn of_cabinet(
    conn: &Connection,
    account: i64,
    limit: i64,
) -> Result<Vec<TransferRow>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM transfers WHERE account_id = ?1 ORDER BY id DESC LIMIT ?2"
    ))?;
    let rows = stmt.query_map(params![account, limit], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Transfers still in progress whose next check is due at `now`, oldest first.
pub fn due(conn: &Connection, now: &str, limit: i64) -> Result<Vec<TransferRow>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM transfers
         WHERE status = 'in_progress' AND next_check_at <= ?1 ORDER BY id LIMIT ?2"
    ))?;
    let rows = stmt.query_map(params![now, limit], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Money moved into the cabinet in `[from, to)` (ISO times), completed or still in progress:
/// what a monthly top-up cap counts.
pub fn moved_in_between(
    conn: &Connection,
    account: i64,
    from: &str,
    to: &str,
) -> Result<Money, StoreError> {
    let micros: i64 = conn.query_row(
        "SELECT COALESCE(SUM(amount_micros), 0) FROM transfers
         WHERE account_id = ?1 AND direction = 'in' AND status IN ('in_progress', 'completed')
           AND requested_at >= ?2 AND requested_at < ?3",
        params![account, from, to],
        |r| r.get(0),
    )?;
    Ok(Money::from_micros(micros))
}

/// The completed transfers that touch `account` (as the client cabinet or as its main account)
/// and settled in `[from, to)` (ISO times), oldest first: what a statement lists where the
/// platform keeps no ledger of its own.
pub fn settled_between(
    conn: &Connection,
    account: i64,
    from: &str,
    to: &str,
) -> Result<Vec<TransferRow>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM transfers
         WHERE (account_id = ?1 OR main_account_id = ?1) AND status = 'completed'
           AND COALESCE(settled_at, requested_at) >= ?2 AND COALESCE(settled_at, requested_at) < ?3
         ORDER BY COALESCE(settled_at, requested_at), id"
    ))?;
    let rows = stmt.query_map(params![account, from, to], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
