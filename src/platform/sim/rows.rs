//! Owns the simulator's rows: reading and writing an ad of `sim_ads`, an account's type and
//! balance in `sim_accounts` (balance moves checked in Rust, never in SQLite arithmetic).

use std::sync::OnceLock;

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::Value;

use crate::db::json_column;
use crate::domain::ad::{AdSnapshot, AdSpec, DeclineReason};
use crate::domain::campaign::Status;
use crate::domain::dates::Dates;
use crate::domain::money::{CabinetType, Money, MAX_MICROS, MAX_UNITS};
use crate::platform::PlatformError;
use crate::store::{decline_reason, parsed, StoreError};

use super::rules::rejected;

pub(super) fn load_snapshot(
    conn: &Connection,
    account: i64,
    ad: i64,
) -> Result<Option<AdSnapshot>, StoreError> {
    static READ: OnceLock<String> = OnceLock::new();
    ad_row(
        conn,
        &READ,
        SNAPSHOT_COLUMNS,
        [account, ad],
        snapshot_from_row,
    )
}

/// One ad's row of `sim_ads` by its key (`[account, ad]`), its `columns` mapped by `map`;
/// `None` when there is no such ad. The statement's text is built once, into `sql`.
pub(super) fn ad_row<T>(
    conn: &Connection,
    sql: &'static OnceLock<String>,
    columns: &str,
    key: [i64; 2],
    map: impl FnOnce(&Row) -> rusqlite::Result<T>,
) -> Result<Option<T>, StoreError> {
    let sql = sql.get_or_init(|| {
        format!("SELECT {columns} FROM sim_ads WHERE account_id = ?1 AND ad_id = ?2")
    });
    Ok(conn.prepare_cached(sql)?.query_row(key, map).optional()?)
}

/// Writes back every field a change can touch, the decline reason among them.
pub(super) fn save(
    conn: &Connection,
    ad: &AdSnapshot,
    review_from: Option<&str>,
) -> Result<(), StoreError> {
    let spec = serde_json::to_string(&ad.spec).map_err(|e| StoreError::Failed(e.to_string()))?;
    let reason = ad.decline_reason.as_ref();
    conn.execute(
        "UPDATE sim_ads SET spec = ?3, status = ?4, active = ?5, cpm_micros = ?6, budget_micros = ?7,
            daily_budget_micros = ?8, schedule = ?9, status_changed_at = ?10,
            review_requested_at = COALESCE(?11, review_requested_at), decline_reason = ?12,
            decline_description = ?13, starts_at = ?14, ends_at = ?15
         WHERE account_id = ?1 AND ad_id = ?2",
        params![
            ad.account_id,
            ad.ad_id,
            spec,
            ad.status.as_str(),
            ad.active,
            ad.cpm.micros(),
            ad.budget.micros(),
            ad.daily_budget.map(Money::micros),
            ad.schedule.as_ref().map(Value::to_string),
            ad.status_changed_at,
            review_from,
            reason.map(DeclineReason::text),
            reason.and_then(DeclineReason::description),
            ad.dates.starts_at,
            ad.dates.ends_at,
        ],
    )?;
    Ok(())
}

pub(super) fn balance_of(conn: &Connection, account: i64) -> Result<Money, PlatformError> {
    conn.query_row(
        "SELECT balance_micros FROM sim_accounts WHERE id = ?1",
        [account],
        |r| r.get(0),
    )
    .map(Money::from_micros)
    .map_err(|e| PlatformError::store(e.into()))
}

/// Moves the account's balance by `delta` micro-units, refusing to take it below zero or past
/// [`MAX_MICROS`] (checked here, so SQLite never turns an overflow into a float).
pub(super) fn add_balance(
    conn: &Connection,
    account: i64,
    delta: i64,
) -> Result<(), PlatformError> {
    let balance = balance_of(conn, account)?;
    let next = balance
        .micros()
        .checked_add(delta)
        .filter(|b| (0..=MAX_MICROS).contains(b))
        .ok_or_else(|| {
            rejected(
                format!("The cabinet balance would leave the range 0 to {MAX_UNITS}."),
                "amount",
            )
        })?;
    conn.execute(
        "UPDATE sim_accounts SET balance_micros = ?2 WHERE id = ?1",
        params![account, next],
    )
    .map(|_| ())
    .map_err(|e| PlatformError::store(e.into()))
}

/// The account's cabinet type; `None` when the simulator has no such account.
pub(super) fn account_kind(
    conn: &Connection,
    account: i64,
) -> Result<Option<CabinetType>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT cabinet_type FROM sim_accounts WHERE id = ?1",
            [account],
            |r| parsed(r, 0, "sim_accounts.cabinet_type", CabinetType::parse),
        )
        .optional()?)
}

/// The columns [`snapshot_from_row`] reads, by index in this order.
const SNAPSHOT_COLUMNS: &str = "spec, account_id, ad_id, status, active, cpm_micros, budget_micros,
    spent_micros, daily_budget_micros, schedule, starts_at, ends_at, views, opens, clicks, actions,
    created_at, status_changed_at, invite_link, decline_reason, decline_description";

fn snapshot_from_row(r: &Row) -> rusqlite::Result<AdSnapshot> {
    let spec: AdSpec = json_column(r.get(0)?)?.ok_or_else(|| {
        rusqlite::Error::InvalidColumnType(0, "spec".into(), rusqlite::types::Type::Null)
    })?;
    let peers = super::rules::peers_of(&spec.targeting);
    Ok(AdSnapshot {
        account_id: r.get(1)?,
        ad_id: r.get(2)?,
        spec,
        status: parsed(r, 3, "sim_ads.status", Status::parse)?,
        active: r.get(4)?,
        cpm: Money::from_micros(r.get(5)?),
        budget: Money::from_micros(r.get(6)?),
        spent: Money::from_micros(r.get(7)?),
        daily_budget: r.get::<_, Option<i64>>(8)?.map(Money::from_micros),
        schedule: json_column(r.get(9)?)?,
        dates: Dates {
            starts_at: r.get(10)?,
            ends_at: r.get(11)?,
        },
        views: r.get(12)?,
        opens: r.get(13)?,
        clicks: r.get(14)?,
        actions: r.get(15)?,
        created_at: r.get(16)?,
        status_changed_at: r.get(17)?,
        invite_link: r.get(18)?,
        decline_reason: decline_reason(r, 19, 20)?,
        peers,
    })
}
