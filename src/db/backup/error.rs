//! Owns `BackupError`: why a backup, a restore, the serve lock or the rotation of scheduled
//! backups failed. `Display` is the sentence the operator reads, naming the file.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::db::schema::SchemaError;
use crate::db::sentence;

/// Why a backup or a restore was not done. Nothing of it is left behind.
#[derive(Debug)]
pub enum BackupError {
    /// A backup goes to a new path; this one is taken.
    Exists(PathBuf),
    /// A step on files or folders failed: `doing` says which, and where ("cannot read /x").
    Files { doing: String, source: io::Error },
    /// SQLite failed a step on the live database, said as the operator reads SQLite's errors.
    Database {
        doing: &'static str,
        source: rusqlite::Error,
    },
    /// SQLite failed a step on the new copy, in its own words.
    Copy {
        doing: &'static str,
        source: rusqlite::Error,
    },
    /// The copy failed its integrity check; the text is what SQLite named.
    CopyDamaged(String),
    /// The copy's row counts differ from the database's.
    CountsDiffer,
    /// A server holds the database: its serve lock is taken.
    Serving { db: PathBuf, lock: PathBuf },
    /// Another process has the database open.
    InUse,
    /// The database's log did not settle: its journal stayed in this mode.
    LogKept(String),
    /// The backup is one `serve` would refuse.
    Refused {
        backup: PathBuf,
        problem: SchemaError,
    },
    /// The backup could not be looked at.
    Schema(SchemaError),
}

impl BackupError {
    /// A failed step on files: `doing` ("cannot read /x") and the system's error.
    pub(super) fn files(doing: impl Into<String>, source: io::Error) -> BackupError {
        BackupError::Files {
            doing: doing.into(),
            source,
        }
    }
}

impl fmt::Display for BackupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackupError::Exists(to) => write!(
                f,
                "{} already exists; a backup goes to a new path",
                to.display()
            ),
            BackupError::Files { doing, source } => write!(f, "{doing}: {source}"),
            BackupError::Database { doing, source } => write!(f, "{doing}: {}", sentence(source)),
            BackupError::Copy { doing, source } => write!(f, "{doing}: {source}"),
            BackupError::CopyDamaged(what) => {
                write!(f, "the copy failed its integrity check: {what}")
            }
            BackupError::CountsDiffer => {
                f.write_str("the copy's row counts differ from the database's")
            }
            BackupError::Serving { db, lock } => write!(
                f,
                "a server holds the database at {} (the lock {} is taken); stop it first (systemctl stop adcab)",
                db.display(),
                lock.display()
            ),
            BackupError::InUse => f.write_str(
                "another process has the database open (a panel command, a script, sqlite3); stop it first",
            ),
            BackupError::LogKept(mode) => write!(
                f,
                "cannot settle the database's log (its journal stayed {mode})"
            ),
            BackupError::Refused { backup, problem } => {
                write!(f, "the backup {}: {problem}", backup.display())
            }
            BackupError::Schema(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for BackupError {}
