//! Owns the errors of the persistence layers: `StoreError`, the one error of a statement or a
//! transaction (this module and `store`: busy, conflict, corrupt, full, failed or SQLite's
//! own, classified from SQLite's codes), and `OpenError`, why a database file could not be
//! opened, brought up to date or trusted, said as a sentence for the operator naming the file.

use std::path::PathBuf;

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

impl StoreError {
    /// The same failure for each of several writes whose shared transaction it ended (SQLite's
    /// own error cannot be copied, so it is passed on as its text).
    pub fn shared(&self) -> StoreError {
        match self {
            StoreError::Busy => StoreError::Busy,
            StoreError::Conflict => StoreError::Conflict,
            StoreError::Full => StoreError::Full,
            StoreError::Corrupt(what) => StoreError::Corrupt(what.clone()),
            StoreError::Failed(what) => StoreError::Failed(what.clone()),
            StoreError::Sqlite(_) => StoreError::Failed(self.to_string()),
        }
    }
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

/// Why the database file at `path` could not be opened, brought up to date or trusted. Each
/// is printed as a sentence for the operator that names the file.
#[derive(Debug)]
pub enum OpenError {
    /// Only `serve` and `init` create a database; every other command needs it to exist.
    Missing { path: PathBuf },
    /// The database's folder could not be created.
    Folder {
        dir: PathBuf,
        source: std::io::Error,
    },
    /// The database file could not be created.
    File {
        path: PathBuf,
        source: std::io::Error,
    },
    /// SQLite could not open the file or set the connection's pragmas.
    Connect {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// The schema's version could not be read.
    Version {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// The migrations still to apply could not be counted.
    Pending { path: PathBuf, source: StoreError },
    /// The backup taken before migrating failed, so nothing was migrated, for the backup's
    /// reason (boxed: a backup's error is large and this one is rare).
    Backup {
        path: PathBuf,
        reason: Box<crate::db::backup::BackupError>,
    },
    /// Bringing the schema up to date failed, for the migration's reason.
    Migrate {
        path: PathBuf,
        reason: crate::db::schema::SchemaError,
    },
    /// The database does not take writes (a read-only file, a lock held elsewhere).
    NotWritable { path: PathBuf, source: StoreError },
    /// The quick check found a damaged page, or could not run.
    Damaged {
        path: PathBuf,
        reason: crate::db::schema::SchemaError,
    },
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Missing { path } => write!(
                f,
                "there is no database at {}; check [storage] path in the config (relative paths are read from the config file's folder), or create it with `adcab init`",
                path.display()
            ),
            OpenError::Folder { dir, source } => {
                write!(f, "cannot create the folder {}: {source}", dir.display())
            }
            OpenError::File { path, source } => {
                write!(f, "cannot create the database {}: {source}", path.display())
            }
            OpenError::Connect { path, source } => write!(
                f,
                "cannot open the database at {}: {}",
                path.display(),
                super::sentence(source)
            ),
            OpenError::Version { path, source } => write!(
                f,
                "the database at {}: {}",
                path.display(),
                super::sentence(source)
            ),
            OpenError::Pending { path, source } => {
                write!(f, "the database at {}: {source}", path.display())
            }
            OpenError::Backup { path, reason } => write!(
                f,
                "the database at {}: the backup before migrating failed, so nothing was migrated: {reason}",
                path.display()
            ),
            OpenError::Migrate { path, reason } | OpenError::Damaged { path, reason } => {
                write!(f, "the database at {}: {reason}", path.display())
            }
            OpenError::NotWritable { path, source } => write!(
                f,
                "the database at {} does not take writes: {source}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for OpenError {}
