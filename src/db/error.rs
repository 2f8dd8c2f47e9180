//! Owns `StoreError`, the one error of the persistence layers (this module and `store`):
//! busy, conflict, corrupt, failed or SQLite's own, classified from SQLite's codes.

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
    /// The disk (or SQLite's size limit) is full: nothing of the transaction was written.
    Full,
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
            Some(rusqlite::ErrorCode::DiskFull) => StoreError::Full,
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
            StoreError::Full => f.write_str("the disk is full"),
            StoreError::Corrupt(what) => write!(f, "unreadable stored value: {what}"),
            StoreError::Failed(what) => f.write_str(what),
            StoreError::Sqlite(e) => write!(f, "sqlite: {e}"),
        }
    }
}

impl std::error::Error for StoreError {}
