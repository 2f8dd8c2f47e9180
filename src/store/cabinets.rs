//! Owns the `cabinets` table: the service's copy of each ad account, its owner, flags and the
//! balance as last read from the platform; and the query of which cabinets a person reaches.

use rusqlite::{params, Connection, Row};

use super::StoreError;
use super::{optional, parsed, unreadable};
use crate::domain::access::Access;
use crate::domain::agency::{FeePercent, ReportSchedule};
use crate::domain::money::{CabinetType, Money};
use crate::i18n::Lang;

#[derive(Debug, Clone)]
pub struct Cabinet {
    pub id: i64,
    pub owner_id: i64,
    pub name: String,
    pub cabinet_type: CabinetType,
    pub is_active: bool,
    pub balance: Money,
    pub balance_updated_at: String,
    pub min_budget: i64,
    pub ad_button: bool,
    pub crypto_filters: bool,
    pub auth_expired: bool,
    pub locked: bool,
}

/// A cabinet as one person reaches it.
#[derive(Debug, Clone)]
pub struct Reachable {
    pub cabinet: Cabinet,
    pub access: Access,
    pub owner_subscription_active: bool,
}

/// The columns `from_row` reads, qualified with the alias `c`; each query selects them first,
/// and what it adds follows at [`EXTRA`].
const COLUMNS: &str = "c.id, c.owner_id, c.name, c.cabinet_type, c.is_active, c.balance_micros,
    c.balance_updated_at, c.min_budget, c.ad_button, c.crypto_filters, c.auth_expired, c.locked";

/// The position of the first column a query selects after [`COLUMNS`].
const EXTRA: usize = 12;

/// A row as a cabinet, its columns read by position (a key's reach reads a hundred rows on
/// each request; by name, each value looked through the row's column names); a
/// `cabinet_type` this adcab does not know is an unreadable row (the table takes any text:
/// the type's parse is the check).
fn from_row(r: &Row) -> rusqlite::Result<Cabinet> {
    Ok(Cabinet {
        id: r.get(0)?,
        owner_id: r.get(1)?,
        name: r.get(2)?,
        cabinet_type: parsed(r, 3, "cabinets.cabinet_type", CabinetType::parse)?,
        is_active: r.get(4)?,
        balance: Money::from_micros(r.get(5)?),
        balance_updated_at: r.get(6)?,
        min_budget: r.get(7)?,
        ad_button: r.get(8)?,
        crypto_filters: r.get(9)?,
        auth_expired: r.get(10)?,
        locked: r.get(11)?,
    })
}

pub fn insert(conn: &Connection, c: &Cabinet, now: &str) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO cabinets (id, owner_id, name, cabinet_type, is_active, balance_micros,
            balance_updated_at, min_budget, ad_button, crypto_filters, auth_expired, locked, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            c.id,
            c.owner_id,
            c.name,
            c.cabinet_type.as_str(),
            c.is_active,
            c.balance.micros(),
            c.balance_updated_at,
            c.min_budget,
            c.ad_button,
            c.crypto_filters,
            c.auth_expired,
            c.locked,
            now
        ],
    )?;
    Ok(())
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<Cabinet>, StoreError> {
    optional(
        conn.prepare_cached(&format!("SELECT {COLUMNS} FROM cabinets c WHERE c.id = ?1"))?
            .query_row([id], from_row),
    )
}

/// Cabinets the hourly sync reads: active ones whose platform session is valid.
pub fn syncable(conn: &Connection) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn
        .prepare("SELECT id FROM cabinets WHERE is_active = 1 AND auth_expired = 0 ORDER BY id")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The end of the last hour whose report the hourly sync stored for the cabinet.
pub fn synced_through(conn: &Connection, account: i64) -> Result<Option<String>, StoreError> {
    Ok(optional(conn.query_row(
        "SELECT synced_through FROM cabinets WHERE id = ?1",
        [account],
        |r| r.get::<_, Option<String>>(0),
    ))?
    .flatten())
}

/// [`synced_through`] of each of `accounts`, in their order, in one statement (`None` for a
/// cabinet never synced or not there).
pub fn synced_through_of(
    conn: &Connection,
    accounts: &[i64],
) -> Result<Vec<Option<String>>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, synced_through FROM cabinets
         WHERE id IN (SELECT value FROM json_each(?1))",
    )?;
    let mut found = std::collections::HashMap::new();
    let mut rows = stmt.query([super::ids_json(accounts)])?;
    while let Some(r) = rows.next()? {
        found.insert(r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?);
    }
    Ok(accounts
        .iter()
        .map(|a| found.get(a).cloned().flatten())
        .collect())
}

/// The cabinet's copies' revision (schema 61): counted up by every write that adds, removes or
/// locally changes one of its campaigns' copies, and by every report the hourly sync stores
/// ([`set_synced_through`]). `None` when there is no such cabinet.
pub fn copies_rev(conn: &Connection, account: i64) -> Result<Option<i64>, StoreError> {
    optional(
        conn.prepare_cached("SELECT copies_rev FROM cabinets WHERE id = ?1")?
            .query_row([account], |r| r.get(0)),
    )
}

/// What was read of a cabinet's copies outside the write transaction that uses it (on a
/// reader, so the single writer does not), with the cabinet's copies' revision as it stood.
pub struct Revised<T> {
    account: i64,
    rev: Option<i64>,
    value: T,
}

impl<T> Revised<T> {
    /// Reads the revision and then the value, in `conn`'s one read transaction.
    pub fn read(
        conn: &Connection,
        account: i64,
        read: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<Revised<T>, StoreError> {
        let rev = copies_rev(conn, account)?;
        Ok(Revised {
            account,
            rev,
            value: read(conn)?,
        })
    }

    /// The value read, when the revision in `conn` (the write transaction) is the one it was
    /// read at; `None` when it moved (or there is no such cabinet), and the value must be read
    /// again.
    pub fn current(self, conn: &Connection) -> Result<Option<T>, StoreError> {
        let now = copies_rev(conn, self.account)?;
        Ok((now.is_some() && now == self.rev).then_some(self.value))
    }

    /// [`Revised::current`], or else the value read again with `read` in `conn`.
    pub fn current_or_else(
        self,
        conn: &Connection,
        read: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match self.current(conn)? {
            Some(value) => Ok(value),
            None => read(conn),
        }
    }
}

/// Records that the hourly sync stored the cabinet's report up to `end` (never moving it back)
/// and counts the copies' revision up: the report moved the copies' marks and state, so what
/// any other reader read of them before is not current ([`Revised`]).
pub fn set_synced_through(conn: &Connection, account: i64, end: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET copies_rev = copies_rev + 1,
            synced_through = CASE WHEN synced_through IS NULL OR synced_through < ?2 THEN ?2
                ELSE synced_through END
         WHERE id = ?1",
        params![account, end],
    )?;
    Ok(())
}

/// Every cabinet's id, whatever its state.
pub fn all_ids(conn: &Connection) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare("SELECT id FROM cabinets ORDER BY id")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn count(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM cabinets", [], |r| r.get(0))?)
}

/// Every cabinet the person can open: their own (as owner) and those an agency on the Agency
/// plan shares with them (as manager or viewer). Inactive ones included; callers filter.
/// Each comes with the access level and whether its owner's subscription is active.
pub fn reachable_by(conn: &Connection, user: i64) -> Result<Vec<Reachable>, StoreError> {
    let sql = format!(
        "SELECT {COLUMNS}, 'owner' AS access, o.subscription = 'active' AS owner_active
           FROM cabinets c JOIN users o ON o.id = c.owner_id WHERE c.owner_id = ?1
         UNION ALL
         SELECT {COLUMNS}, s.access, a.subscription = 'active' FROM cabinet_shares s
           JOIN cabinets c ON c.id = s.cabinet_id
           JOIN users a ON a.id = s.agency_id AND a.plan = 'agency' AND a.id = c.owner_id
         WHERE s.member_id = ?1
         ORDER BY 1"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map([user], |r| {
        Ok(Reachable {
            cabinet: from_row(r)?,
            access: parsed(r, EXTRA, "cabinet access", Access::parse)?,
            owner_subscription_active: r.get(EXTRA + 1)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Where a cabinet lives on a real platform; both empty for a simulated one.
#[derive(Debug, Clone)]
pub struct PlatformLink {
    /// The platform's own account id.
    pub platform_id: Option<String>,
    /// The sealed credential the connector calls it with.
    pub credential: Option<String>,
    pub kind: CabinetType,
}

/// A cabinet's platform link; `None` for an unknown cabinet.
pub fn connection(conn: &Connection, id: i64) -> Result<Option<PlatformLink>, StoreError> {
    let row = conn
        .prepare_cached("SELECT platform_id, credential, cabinet_type FROM cabinets WHERE id = ?1")?
        .query_row([id], |r| {
            let kind: String = r.get(2)?;
            Ok(PlatformLink {
                platform_id: r.get(0)?,
                credential: r.get(1)?,
                kind: CabinetType::parse(&kind)
                    .ok_or_else(|| unreadable("cabinets.cabinet_type", &kind))?,
            })
        });
    optional(row)
}

/// A cabinet as `admin cabinet list` shows it: the row and its platform account id.
#[derive(Debug, Clone)]
pub struct Listed {
    pub cabinet: Cabinet,
    pub platform_id: Option<String>,
}

/// Every cabinet (of one owner, when given), by id.
pub fn list(conn: &Connection, owner: Option<i64>) -> Result<Vec<Listed>, StoreError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS}, c.platform_id FROM cabinets c
         WHERE ?1 IS NULL OR c.owner_id = ?1 ORDER BY c.id"
    ))?;
    let rows = stmt.query_map([owner], |r| {
        Ok(Listed {
            cabinet: from_row(r)?,
            platform_id: r.get(EXTRA)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The cabinet connected to a platform account, if any.
pub fn by_platform_id(conn: &Connection, platform_id: &str) -> Result<Option<i64>, StoreError> {
    optional(conn.query_row(
        "SELECT id FROM cabinets WHERE platform_id = ?1",
        [platform_id],
        |r| r.get(0),
    ))
}

/// The id a newly connected cabinet gets: after every other, in the same range as the
/// simulator's account ids.
pub fn next_id(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.query_row(
        "SELECT COALESCE(MAX(id) + 1, 5000000001) FROM cabinets",
        [],
        |r| r.get(0),
    )?)
}

/// Removes a cabinet that has nothing yet (a connect whose import failed).
pub fn delete_empty(conn: &Connection, id: i64) -> Result<(), StoreError> {
    conn.execute(
        "DELETE FROM cabinets WHERE id = ?1
           AND NOT EXISTS (SELECT 1 FROM campaigns WHERE account_id = ?1)",
        [id],
    )?;
    Ok(())
}

/// Records where a cabinet lives on its platform and the sealed credential to reach it.
pub fn set_connection(
    conn: &Connection,
    id: i64,
    platform_id: &str,
    credential: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET platform_id = ?2, credential = ?3 WHERE id = ?1",
        params![id, platform_id, credential],
    )?;
    Ok(())
}

pub fn set_active(conn: &Connection, id: i64, active: bool) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET is_active = ?2 WHERE id = ?1",
        params![id, active],
    )?;
    Ok(())
}

pub fn set_balance(
    conn: &Connection,
    id: i64,
    balance: Money,
    now: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET balance_micros = ?2, balance_updated_at = ?3 WHERE id = ?1",
        params![id, balance.micros(), now],
    )?;
    Ok(())
}

pub fn set_auth_expired(conn: &Connection, id: i64, expired: bool) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET auth_expired = ?2 WHERE id = ?1",
        params![id, expired],
    )?;
    Ok(())
}

pub fn set_locked(conn: &Connection, id: i64, locked: bool) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET locked = ?2 WHERE id = ?1",
        params![id, locked],
    )?;
    Ok(())
}

/// An agency's terms with a client cabinet (migration 32); `None` fields are not set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Terms {
    pub monthly_topup_cap: Option<Money>,
    pub fee: Option<FeePercent>,
    pub report: Option<ReportSchedule>,
}

pub fn terms(conn: &Connection, id: i64) -> Result<Option<Terms>, StoreError> {
    optional(conn.query_row(
        "SELECT monthly_topup_cap_micros, fee_percent, report_schedule FROM cabinets
         WHERE id = ?1",
        [id],
        |r| {
            let fee: Option<String> = r.get(1)?;
            let report: Option<String> = r.get(2)?;
            Ok(Terms {
                monthly_topup_cap: r.get::<_, Option<i64>>(0)?.map(Money::from_micros),
                fee: fee
                    .map(|t| FeePercent::parse(&t).ok_or_else(|| unreadable("fee_percent", &t)))
                    .transpose()?,
                report: report
                    .map(|t| {
                        ReportSchedule::parse(&t).ok_or_else(|| unreadable("report_schedule", &t))
                    })
                    .transpose()?,
            })
        },
    ))
}

pub fn set_monthly_topup_cap(
    conn: &Connection,
    id: i64,
    cap: Option<Money>,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET monthly_topup_cap_micros = ?2 WHERE id = ?1",
        params![id, cap.map(Money::micros)],
    )?;
    Ok(())
}

pub fn set_fee(conn: &Connection, id: i64, fee: Option<FeePercent>) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET fee_percent = ?2 WHERE id = ?1",
        params![id, fee.map(|f| f.to_string())],
    )?;
    Ok(())
}

pub fn set_report_schedule(
    conn: &Connection,
    id: i64,
    report: Option<ReportSchedule>,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET report_schedule = ?2 WHERE id = ?1",
        params![id, report.map(ReportSchedule::as_str)],
    )?;
    Ok(())
}

/// Sets (or with `None` clears) the language of the cabinet's client reports (migration 40).
pub fn set_report_language(
    conn: &Connection,
    id: i64,
    language: Option<Lang>,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET report_language = ?2 WHERE id = ?1",
        params![id, language.map(Lang::code)],
    )?;
    Ok(())
}

/// The language of the cabinet's client reports, when one is set.
pub fn report_language(conn: &Connection, id: i64) -> Result<Option<Lang>, StoreError> {
    let code: Option<Option<String>> = optional(conn.query_row(
        "SELECT report_language FROM cabinets WHERE id = ?1",
        [id],
        |r| r.get(0),
    ))?;
    Ok(code.flatten().as_deref().and_then(Lang::parse))
}

/// Where a cabinet stands in an agency's money (migration 35): the agency's main account, or a
/// client cabinet related to the main account `main`, or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgencyRole {
    Main,
    Related { main: i64 },
    Neither,
}

pub fn agency_role(conn: &Connection, id: i64) -> Result<Option<AgencyRole>, StoreError> {
    optional(conn.query_row(
        "SELECT is_main, main_account_id FROM cabinets WHERE id = ?1",
        [id],
        |r| {
            let main: bool = r.get(0)?;
            let related: Option<i64> = r.get(1)?;
            Ok(match (main, related) {
                (true, _) => AgencyRole::Main,
                (false, Some(main)) => AgencyRole::Related { main },
                (false, None) => AgencyRole::Neither,
            })
        },
    ))
}

/// Marks a cabinet as an agency's main account (or not).
pub fn set_main(conn: &Connection, id: i64, main: bool) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET is_main = ?2 WHERE id = ?1",
        params![id, main],
    )?;
    Ok(())
}

/// Records that a cabinet is a client cabinet related to the main account `main`.
pub fn set_main_account(conn: &Connection, id: i64, main: i64) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET main_account_id = ?2 WHERE id = ?1",
        params![id, main],
    )?;
    Ok(())
}

/// The main accounts of one owner, by id.
pub fn mains_of(conn: &Connection, owner: i64) -> Result<Vec<i64>, StoreError> {
    let mut stmt =
        conn.prepare("SELECT id FROM cabinets WHERE owner_id = ?1 AND is_main = 1 ORDER BY id")?;
    let rows = stmt.query_map([owner], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The client cabinets related to the main account `main`, by id.
pub fn related_to(conn: &Connection, main: i64) -> Result<Vec<i64>, StoreError> {
    let mut stmt =
        conn.prepare("SELECT id FROM cabinets WHERE main_account_id = ?1 ORDER BY id")?;
    let rows = stmt.query_map([main], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{keys, test_db};

    #[test]
    fn the_columns_a_reach_reads_move_the_access_generation_and_no_other_does() {
        let conn = test_db();
        let read: Vec<&str> = COLUMNS
            .split(',')
            .map(|c| c.trim().trim_start_matches("c."))
            .collect();
        let columns = keys::test_columns_moving_access(&conn, "cabinets", "id = 7");
        for name in &read {
            assert!(columns.iter().any(|(c, _)| c == name), "{name}");
        }
        for (column, moved) in &columns {
            assert_eq!(*moved, read.contains(&column.as_str()), "{column}");
        }
        assert!(
            columns.iter().any(|(c, moved)| c == "copies_rev" && !moved),
            "the hour's column is among the unread"
        );
    }
}
