//! Owns the service's tables: plain SQL in small functions, one statement each, taking a
//! `&Connection` (a `&Transaction` derefs to one). One file per table family. "No rows" and
//! constraint violations become domain errors here, in `unique_violation` and `optional`.

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

use crate::error::ApiError;

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

/// True when `e` is a UNIQUE or PRIMARY KEY violation.
pub fn unique_violation(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _)
            if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
    )
}

/// Turns "no rows" into `None`.
pub fn optional<T>(r: rusqlite::Result<T>) -> Result<Option<T>, ApiError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
        Err(e) => Err(e.into()),
    }
}
