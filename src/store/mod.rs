//! Owns the service's tables: plain SQL in small functions, one statement each, taking a
//! `&Connection` (a `&Transaction` derefs to one). One file per table family. The store's one
//! error, `StoreError`, says "busy", "conflict", "corrupt" or "SQLite failed"; "no rows" is
//! `None` (`optional`). It knows nothing of HTTP.

pub mod alerts;
pub mod attention;
pub mod auto_cpm;
pub mod bot;
pub mod cabinets;
pub mod campaigns;
pub mod clock;
pub mod conversions;
pub mod converted;
pub mod deliveries;
pub mod events;
pub mod groups;
pub mod history;
pub mod idempotency;
pub mod invites;
pub mod kept;
pub mod kept_check;
pub mod keys;
pub mod marks;
pub mod media;
pub mod moves;
pub mod outbox;
pub mod peers;
pub mod proposals;
pub mod rates;
pub mod reconcile;
pub mod refs;
pub mod report_sends;
pub mod reports;
pub mod retention;
pub mod rules;
pub mod runs;
pub mod scheduler;
pub mod sessions;
pub mod stats;
pub mod tasks;
pub mod teams;
pub mod transfers;
pub mod users;
pub mod zone_days;

use rusqlite::{Row, RowIndex};

pub use crate::db::StoreError;
use crate::domain::ad::DeclineReason;
use crate::domain::campaign::Status;

/// A list of ids as the JSON array `json_each` reads.
pub fn ids_json(ids: &[i64]) -> String {
    let items: Vec<String> = ids.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(","))
}

/// Reads a TEXT column into a domain value with `parse`. A value it does not know is an error
/// naming the column (`what`) and the value, never quietly read as some default.
pub fn parsed<I: RowIndex + Copy, T>(
    r: &Row,
    index: I,
    what: &str,
    parse: impl FnOnce(&str) -> Option<T>,
) -> rusqlite::Result<T> {
    // Read in place; a value that is not text fails as reading it into a String does, with
    // the column's index and type.
    let Ok(text) = r.get_ref(index)?.as_str() else {
        return Err(match r.get::<_, String>(index) {
            Err(e) => e,
            Ok(text) => unreadable(what, &text),
        });
    };
    parse(text).ok_or_else(|| unreadable(what, text))
}

/// The error for a stored value the code cannot read.
pub fn unreadable(what: &str, value: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        0,
        rusqlite::types::Type::Text,
        format!("{what} holds {value:?}, which this adcab cannot read").into(),
    )
}

/// A decline reason read from its two columns (short reason, explanation); `None` without a
/// reason.
pub fn decline_reason<I: RowIndex>(
    r: &Row,
    text: I,
    description: I,
) -> rusqlite::Result<Option<DeclineReason>> {
    let text: Option<String> = r.get(text)?;
    let description: Option<String> = r.get(description)?;
    Ok(text.and_then(|t| DeclineReason::new(&t, description.as_deref())))
}

/// The values of a copy's two decline columns (short reason, explanation) for a platform's
/// status and reason: both null unless the ad is `Declined`, so a copy that leaves that
/// status loses its reason whatever the platform still says.
pub fn decline_columns(
    status: Status,
    reason: Option<&DeclineReason>,
) -> [rusqlite::types::Value; 2] {
    use rusqlite::types::Value;
    match reason.filter(|_| status == Status::Declined) {
        Some(r) => [
            r.text().to_string().into(),
            r.description().map(str::to_string).into(),
        ],
        None => [Value::Null, Value::Null],
    }
}

/// Turns "no rows" into `None`.
pub fn optional<T>(r: rusqlite::Result<T>) -> Result<Option<T>, StoreError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The statement a writer keeps in `slot`, prepared from `sql` the first time it is needed (a
/// writer of many rows keeps its statements rather than hashing their text into the
/// connection's cache for each row).
pub fn kept_statement<'s, 'c>(
    slot: &'s mut Option<rusqlite::CachedStatement<'c>>,
    conn: &'c rusqlite::Connection,
    sql: &str,
) -> Result<&'s mut rusqlite::CachedStatement<'c>, StoreError> {
    Ok(match slot {
        Some(stmt) => stmt,
        slot => slot.insert(conn.prepare_cached(sql)?),
    })
}

/// For unit tests: a migrated in-memory database holding person 1 and their euro cabinet 7.
#[cfg(test)]
pub fn test_db() -> rusqlite::Connection {
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    crate::db::schema::migrate(&mut conn).unwrap();
    conn.execute_batch(
        "INSERT INTO users (id, email, plan, created_at) VALUES (1, 'a@example.com', 'pro', 't');
         INSERT INTO cabinets (id, owner_id, name, cabinet_type, balance_updated_at, min_budget,
            created_at) VALUES (7, 1, 'c', 'euro', 't', 1, 't');",
    )
    .unwrap();
    conn
}

/// For unit tests: the steps of `sql`'s query plan (the details `EXPLAIN QUERY PLAN` gives),
/// with every parameter bound to `value` (a plan does not depend on the values bound).
#[cfg(test)]
pub fn test_plan(conn: &rusqlite::Connection, sql: &str, value: i64) -> Vec<String> {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let bound = vec![value; stmt.parameter_count()];
    stmt.query_map(rusqlite::params_from_iter(bound), |r| r.get(3))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// For unit tests: campaign `ad` of cabinet `account`, active, as the sync stores one.
#[cfg(test)]
pub fn test_campaign(conn: &rusqlite::Connection, account: i64, ad: i64) {
    conn.execute(
        "INSERT INTO campaigns (account_id, ad_id, title, text, status, active, promote_url,
            link_kind, target_type, targeting, cpm_micros, views_per_user, created_at,
            synced_at, status_changed_at, no_budget)
         VALUES (?1, ?2, 'ad', 't', 'active', 1, 'https://t.me/a', 'channel', 'channels', '{}',
            1, 1, 0, 't', 't', 0)",
        [account, ad],
    )
    .unwrap();
    conn.execute(
        "UPDATE campaign_counters SET budget_micros = 1 WHERE account_id = ?1 AND ad_id = ?2",
        [account, ad],
    )
    .unwrap();
}
