//! Owns `SchemaError`: why a database file is not one this binary runs on, or why its schema
//! could not be read, checked or brought up to date. `Display` is the end of a sentence about
//! the file ("its table campaigns is missing; ..."), which callers begin with the file's name.

use std::fmt;
use std::path::PathBuf;

use crate::db::sentence;

/// Why a database's schema was refused or could not be worked on.
#[derive(Debug, PartialEq)]
pub enum SchemaError {
    /// There is no file at the path.
    Missing(PathBuf),
    /// The file did not open (read-only, for a look at it).
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// The file opened, but its schema or pages could not be read.
    Unreadable {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// The quick check could not open the file.
    CheckNotOpened(rusqlite::Error),
    /// The quick check could not run.
    CheckNotRun(rusqlite::Error),
    /// SQLite's check found damaged pages; the text is what it named.
    Damaged(String),
    /// SQLite's full integrity check did not answer "ok"; the text is what it named.
    IntegrityFailed(String),
    /// A migration failed, and nothing of its ledger's pending ones was applied.
    Migration {
        ledger: &'static str,
        version: i64,
        source: rusqlite::Error,
    },
    /// The database records a version of one of its schemas (`what`) that this binary does not
    /// know: a newer adcab wrote it.
    Newer {
        what: &'static str,
        version: i64,
        known: i64,
    },
    /// The file holds no adcab schema: an empty file, or another program's database.
    NoSchema,
    /// A table the recorded migrations leave is not there.
    TableMissing(&'static str),
    /// SQLite failed reading or writing the ledgers.
    Sqlite(rusqlite::Error),
}

impl From<rusqlite::Error> for SchemaError {
    fn from(e: rusqlite::Error) -> Self {
        SchemaError::Sqlite(e)
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaError::Missing(path) => write!(f, "there is no database at {}", path.display()),
            SchemaError::Open { path, source } => {
                write!(f, "cannot open {}: {source}", path.display())
            }
            SchemaError::Unreadable { path, source } => {
                write!(f, "cannot read {}: {}", path.display(), sentence(source))
            }
            SchemaError::CheckNotOpened(e) => write!(
                f,
                "cannot open it for its integrity check: {}",
                sentence(e)
            ),
            SchemaError::CheckNotRun(e) => {
                write!(f, "cannot run its integrity check: {}", sentence(e))
            }
            SchemaError::Damaged(what) => write!(
                f,
                "its pages are damaged ({what}); restore a backup (adcab restore --from PATH)"
            ),
            SchemaError::IntegrityFailed(what) => {
                write!(f, "it failed its integrity check: {what}")
            }
            SchemaError::Migration {
                ledger,
                version,
                source,
            } => write!(
                f,
                "migration {version} of {ledger} failed: {}",
                sentence(source)
            ),
            SchemaError::Newer {
                what,
                version,
                known,
            } => write!(
                f,
                "its {what} version {version} is newer than this adcab knows (up to {known}); run the adcab that wrote it, or restore a backup made for this version"
            ),
            SchemaError::NoSchema => f.write_str(
                "it is not an adcab database: it holds no adcab schema (an empty file, or another program's SQLite database); point [storage] path at adcab's database, or at a new path for `adcab init` to create",
            ),
            SchemaError::TableMissing(table) => write!(
                f,
                "its table {table} is missing; the file was changed outside adcab (restore a backup)"
            ),
            SchemaError::Sqlite(e) => f.write_str(&sentence(e)),
        }
    }
}

impl std::error::Error for SchemaError {}
