//! Owns the service's tables: plain SQL in small functions, one statement each, taking a
//! `&Connection` (a `&Transaction` derefs to one). One file per table family. The store's one
//! error, `StoreError`, says "busy", "conflict", "corrupt" or "SQLite failed"; "no rows" is
//! `None` (`optional`). It knows nothing of HTTP.

pub mod cabinets;
pub mod campaigns;
pub mod clock;
pub mod conversions;
pub mod deliveries;
pub mod events;
pub mod groups;
pub mod history;
pub mod idempotency;
pub mod keys;
pub mod media;
pub mod outbox;
pub mod refs;
pub mod scheduler;
pub mod stats;
pub mod tasks;
pub mod teams;
pub mod users;

use rusqlite::{Row, RowIndex};

/// What can go wrong in the store.
#[derive(Debug)]
pub enum StoreError {
    /// The writer or a read connection did not free up in time, a queue in front of them was
    /// full, or another process held the database past SQLite's busy timeout. Nothing was done.
    Busy,
    /// A unique key is taken.
    Conflict,
    /// A stored value this code cannot read; the text names it.
    Corrupt(String),
    /// A failure passed on as text (to every request of a shared transaction, or from a part
    /// of the store that stopped).
    Failed(String),
    Sqlite(rusqlite::Error),
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        if matches!(
            e,
            rusqlite::Error::FromSqlConversionFailure(..)
                | rusqlite::Error::InvalidColumnType(..)
                | rusqlite::Error::IntegralValueOutOfRange(..)
        ) {
            return StoreError::Corrupt(e.to_string());
        }
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                StoreError::Busy
            }
            Some(rusqlite::ErrorCode::ConstraintViolation)
                if matches!(
                    &e,
                    rusqlite::Error::SqliteFailure(f, _)
                        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                            || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
                ) =>
            {
                StoreError::Conflict
            }
            _ => StoreError::Sqlite(e),
        }
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Busy => f.write_str("the database is busy"),
            StoreError::Conflict => f.write_str("a unique key is taken"),
            StoreError::Corrupt(what) => write!(f, "unreadable stored value: {what}"),
            StoreError::Failed(what) => f.write_str(what),
            StoreError::Sqlite(e) => write!(f, "sqlite: {e}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// A list of ids as the JSON array `json_each` reads.
pub fn ids_json(ids: &[i64]) -> String {
    let items: Vec<String> = ids.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(","))
}

/// Reads a TEXT column into a domain value with `parse`. A value it does not know is an error
/// naming the column (`what`) and the value, never quietly read as some default.
pub fn parsed<I: RowIndex, T>(
    r: &Row,
    index: I,
    what: &str,
    parse: impl FnOnce(&str) -> Option<T>,
) -> rusqlite::Result<T> {
    let text: String = r.get(index)?;
    parse(&text).ok_or_else(|| unreadable(what, &text))
}

/// The error for a stored value the code cannot read.
pub fn unreadable(what: &str, value: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        0,
        rusqlite::types::Type::Text,
        format!("{what} holds {value:?}, which this adcab cannot read").into(),
    )
}

/// Turns "no rows" into `None`.
pub fn optional<T>(r: rusqlite::Result<T>) -> Result<Option<T>, StoreError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
        Err(e) => Err(e.into()),
    }
}
