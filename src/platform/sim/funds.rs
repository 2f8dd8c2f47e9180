//! Owns the simulator's agency money: client accounts opened under a main account (by key, so
//! a repeat opens nothing again), transfers between them (by key; an amount of 100 or more
//! settles only after two minutes of the service clock, so a trial sees a transfer in
//! progress), and each account's transactions, paged newest first with opaque cursors. The
//! ledger is complete (as the platform's is, promote-api §8.3): every move of an account's free
//! balance is booked, transfers here, money into and back from ads' budgets (`ad`, the ad's id
//! in `peer_account`) and outside money (`external`: an account's opening balance, an
//! operator's `set_balance`) in `mod.rs`, so the balance now less the later items is the
//! balance at any past moment.

use chrono::Duration;
use rusqlite::{params, Connection, OptionalExtension};

use super::rows::account_kind;
use super::{Simulator, FIRST_ACCOUNT_ID};
use crate::clock;
use crate::domain::funds::{Direction, RelatedInfo, TransferState};
use crate::domain::money::{Money, MICROS_PER_UNIT};
use crate::platform::{
    OpenedRelated, PlatformError, Transaction, TransactionPage, TransactionPeer, TransferReport,
};
use crate::store::StoreError;

/// A transfer of at least this many units settles after [`SLOW_SETTLE_SECONDS`].
const SLOW_FROM_UNITS: i64 = 100;
const SLOW_SETTLE_SECONDS: i64 = 120;

fn balance(conn: &Connection, account: i64) -> Result<Option<Money>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT balance_micros FROM sim_accounts WHERE id = ?1",
            [account],
            |r| r.get(0),
        )
        .optional()?
        .map(Money::from_micros))
}

fn add(conn: &Connection, account: i64, delta: i64) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE sim_accounts SET balance_micros = balance_micros + ?2 WHERE id = ?1",
        params![account, delta],
    )?;
    Ok(())
}

/// Books one transaction of an account (negative: money left it).
pub(super) fn book(
    conn: &Connection,
    account: i64,
    amount: i64,
    peer_type: &str,
    peer: Option<i64>,
) -> Result<(), StoreError> {
    let at = clock::iso(clock::now(conn)?);
    conn.execute(
        "INSERT INTO sim_transactions (account_id, at, amount_micros, peer_type, peer_account)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![account, at, amount, peer_type, peer],
    )?;
    Ok(())
}

/// Completes every transfer whose time has come: the money reaches the account it went to.
fn settle_due(conn: &Connection) -> Result<(), StoreError> {
    let now = clock::iso(clock::now(conn)?);
    let due: Vec<(i64, i64, i64, i64)> = {
        let mut stmt = conn.prepare(
            "SELECT id, main_id, related_id, amount_micros FROM sim_transfers
             WHERE status = 'in_progress' AND settles_at <= ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([&now], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (id, main, related, amount) in due {
        let (to, from, peer_type) = if amount > 0 {
            (related, main, "main_account")
        } else {
            (main, related, "related_account")
        };
        add(conn, to, amount.abs())?;
        book(conn, to, amount.abs(), peer_type, Some(from))?;
        conn.execute(
            "UPDATE sim_transfers SET status = 'completed' WHERE id = ?1",
            [id],
        )?;
    }
    Ok(())
}

/// A transfer as reported: its state and both balances now.
fn report(conn: &Connection, id: i64) -> Result<Option<TransferReport>, StoreError> {
    let row: Option<(i64, i64, String)> = conn
        .query_row(
            "SELECT main_id, related_id, status FROM sim_transfers WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let Some((main, related, status)) = row else {
        return Ok(None);
    };
    Ok(Some(TransferReport {
        id: id.to_string(),
        state: TransferState::parse(&status).unwrap_or(TransferState::InProgress),
        main_balance: balance(conn, main)?.unwrap_or(Money::ZERO),
        balance: balance(conn, related)?.unwrap_or(Money::ZERO),
        error: None,
    }))
}

/// The main account of a related one.
fn main_of(conn: &Connection, related: i64) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT main_id FROM sim_accounts WHERE id = ?1",
            [related],
            |r| r.get::<_, Option<i64>>(0),
        )
        .optional()?
        .flatten())
}

impl Simulator {
    pub(super) fn sim_open_related(
        &self,
        main: i64,
        info: &RelatedInfo,
        key: &str,
    ) -> Result<OpenedRelated, PlatformError> {
        self.take_fault(main)?;
        let title = info.title.clone();
        let (id, kind, name) = self
            .db
            .write_blocking(|tx| {
                let Some(kind) = account_kind(tx, main)? else {
                    return Ok(Err(PlatformError::NotFound));
                };
                let earlier: Option<(i64, Option<String>)> = tx
                    .query_row(
                        "SELECT id, title FROM sim_accounts WHERE main_id = ?1 AND open_key = ?2",
                        params![main, key],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()?;
                if let Some((id, title)) = earlier {
                    return Ok(Ok((id, kind, title.unwrap_or_default())));
                }
                let next: i64 = tx.query_row(
                    "SELECT COALESCE(MAX(id) + 1, ?1) FROM sim_accounts",
                    [FIRST_ACCOUNT_ID],
                    |r| r.get(0),
                )?;
                tx.execute(
                    "INSERT INTO sim_accounts (id, cabinet_type, balance_micros, main_id, open_key, title)
                     VALUES (?1, ?2, 0, ?3, ?4, ?5)",
                    params![next, kind.as_str(), main, key, title],
                )?;
                Ok(Ok((next, kind, title.clone())))
            })
            .map_err(PlatformError::store)??;
        Ok(OpenedRelated {
            account: Some(id),
            link: None,
            kind,
            name,
        })
    }

    pub(super) fn sim_transfer(
        &self,
        related: i64,
        direction: Direction,
        amount: Money,
        key: &str,
    ) -> Result<TransferReport, PlatformError> {
        self.take_fault(related)?;
        let key = format!("{related}:{key}");
        self.db
            .write_blocking(|tx| {
                settle_due(tx)?;
                let earlier: Option<i64> = tx
                    .query_row("SELECT id FROM sim_transfers WHERE key = ?1", [&key], |r| {
                        r.get(0)
                    })
                    .optional()?;
                if let Some(id) = earlier {
                    return Ok(report(tx, id)?.ok_or(PlatformError::NotFound));
                }
                let Some(main) = main_of(tx, related)? else {
                    return Ok(Err(PlatformError::Refused(
                        "the account is not a client account of a main account".into(),
                    )));
                };
                let (from, to) = match direction {
                    Direction::In => (main, related),
                    Direction::Out => (related, main),
                };
                if balance(tx, from)?.is_none_or(|b| b < amount) {
                    return Ok(Err(PlatformError::InsufficientBalance));
                }
                let now = clock::now(tx)?;
                let slow = amount.micros() >= SLOW_FROM_UNITS * MICROS_PER_UNIT;
                let settles = if slow {
                    now + Duration::seconds(SLOW_SETTLE_SECONDS)
                } else {
                    now
                };
                let signed = match direction {
                    Direction::In => amount.micros(),
                    Direction::Out => -amount.micros(),
                };
                add(tx, from, -amount.micros())?;
                let peer_type = if from == main {
                    "related_account"
                } else {
                    "main_account"
                };
                book(tx, from, -amount.micros(), peer_type, Some(to))?;
                tx.execute(
                    "INSERT INTO sim_transfers (key, main_id, related_id, amount_micros, status, settles_at)
                     VALUES (?1, ?2, ?3, ?4, 'in_progress', ?5)",
                    params![key, main, related, signed, clock::iso(settles)],
                )?;
                let id = tx.last_insert_rowid();
                settle_due(tx)?;
                Ok(report(tx, id)?.ok_or(PlatformError::NotFound))
            })
            .map_err(PlatformError::store)?
    }

    pub(super) fn sim_transfer_status(
        &self,
        related: i64,
        id: &str,
    ) -> Result<TransferReport, PlatformError> {
        self.take_fault(related)?;
        let id: i64 = id.parse().map_err(|_| PlatformError::NotFound)?;
        self.db
            .write_blocking(|tx| {
                settle_due(tx)?;
                report(tx, id)
            })
            .map_err(PlatformError::store)?
            .ok_or(PlatformError::NotFound)
    }

    pub(super) fn sim_transactions(
        &self,
        account: i64,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<TransactionPage, PlatformError> {
        self.take_fault(account)?;
        let before = match cursor {
            None => i64::MAX,
            Some(c) => c
                .strip_prefix("t:")
                .and_then(|n| n.parse::<i64>().ok())
                .ok_or_else(|| PlatformError::Rejected {
                    reason: "The cursor is not one this list handed out.".into(),
                    param: Some("cursor"),
                    min_cpm: None,
                })?,
        };
        let limit = limit.clamp(1, 1000) as i64;
        self.db
            .write_blocking(|tx| {
                settle_due(tx)?;
                if account_kind(tx, account)?.is_none() {
                    return Ok(Err(PlatformError::NotFound));
                }
                let total: i64 = tx.query_row(
                    "SELECT COUNT(*) FROM sim_transactions WHERE account_id = ?1",
                    [account],
                    |r| r.get(0),
                )?;
                // `peer_account` holds the other account's id, or for an `ad` the ad's id in
                // this account (its title while the simulator still has the ad).
                let mut stmt = tx.prepare(
                    "SELECT t.id, t.at, t.amount_micros, t.peer_type, t.peer_account,
                            CASE WHEN t.peer_type = 'ad'
                                 THEN COALESCE(json_extract(d.spec, '$.title'), '')
                                 ELSE COALESCE(a.title, '') END
                     FROM sim_transactions t
                     LEFT JOIN sim_accounts a ON a.id = t.peer_account AND t.peer_type <> 'ad'
                     LEFT JOIN sim_ads d ON d.account_id = t.account_id AND d.ad_id = t.peer_account
                        AND t.peer_type = 'ad'
                     WHERE t.account_id = ?1 AND t.id < ?2 ORDER BY t.id DESC LIMIT ?3",
                )?;
                let rows: Vec<(i64, String, i64, String, Option<i64>, String)> = stmt
                    .query_map(params![account, before, limit + 1], |r| {
                        Ok((
                            r.get(0)?,
                            r.get(1)?,
                            r.get(2)?,
                            r.get(3)?,
                            r.get(4)?,
                            r.get(5)?,
                        ))
                    })?
                    .collect::<rusqlite::Result<_>>()?;
                let more = rows.len() as i64 > limit;
                let mut items = Vec::new();
                let mut last = None;
                for (id, at, amount, peer_type, peer, title) in
                    rows.into_iter().take(limit as usize)
                {
                    last = Some(id);
                    let peer = match (peer_type.as_str(), peer) {
                        ("main_account", _) => TransactionPeer::MainAccount,
                        ("related_account", Some(p)) => TransactionPeer::Related {
                            account: p.to_string(),
                            title,
                        },
                        ("external", _) => TransactionPeer::External(None),
                        ("ad", Some(ad_id)) => TransactionPeer::Ad { ad_id, title },
                        (other, _) => TransactionPeer::Other(other.to_string()),
                    };
                    items.push(Transaction {
                        at: clock::parse_iso(&at).ok_or_else(|| {
                            StoreError::Corrupt(format!("sim transaction at {at:?}"))
                        })?,
                        amount: Money::from_micros(amount),
                        peer,
                    });
                }
                Ok(Ok(TransactionPage {
                    total,
                    items,
                    next: if more {
                        last.map(|id| format!("t:{id}"))
                    } else {
                        None
                    },
                }))
            })
            .map_err(PlatformError::store)?
    }
}
