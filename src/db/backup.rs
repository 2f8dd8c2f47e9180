//! Owns backups of the data folder: a consistent snapshot of the database taken while a server
//! runs and writes (SQLite's online backup, inside one read transaction) with the uploaded
//! media beside it, verified before it counts; the names of backups and the rotation of
//! scheduled ones. Restoring one is `restore`, the lock a serving process holds `lock`, the
//! file steps both share `files`, and `BackupError` `error`.
//!
//! A backup is a folder: `adcab.db` and `media/`, copied off the box as one. It holds password
//! hashes and webhook secrets, so every folder and file made here is private to its owner
//! (0700, 0600), whatever the umask.

mod error;
mod files;
mod lock;
mod restore;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

use super::{media_folder, schema};
use crate::primitives::private_file;
use files::{copy_media, folder_bytes, folder_of, sync_file, Staging};

pub use error::BackupError;
pub use lock::ServeLock;
pub use restore::restore;

/// The database's name inside a backup folder.
pub const DB_FILE: &str = "adcab.db";
const MEDIA: &str = "media";
/// Scheduled backups in `[backup] dir` are named this, then the time they were taken.
pub const SCHEDULED_PREFIX: &str = "adcab-";

/// What a verified backup holds.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Report {
    pub path: String,
    /// Bytes of the whole backup folder: the database and the media files.
    pub bytes: u64,
    /// Rows of every table, as the snapshot and the copy both counted them.
    pub tables: BTreeMap<String, i64>,
}

/// Rows of every table the connection sees (the `sqlite_*` tables aside).
fn row_counts(conn: &Connection) -> rusqlite::Result<BTreeMap<String, i64>> {
    let names: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
             ORDER BY name",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    names
        .into_iter()
        .map(|name| {
            let n = conn.query_row(&format!("SELECT COUNT(*) FROM \"{name}\""), [], |r| {
                r.get(0)
            })?;
            Ok((name, n))
        })
        .collect()
}

/// Takes a backup of the database `source` (a connection on the live file at `db_path`) into
/// the new folder `to`: the pages and the row counts are read in one read transaction, so the
/// copy is exactly the database as of one moment, while writers go on; then the media files
/// are copied, the copy is checked (`integrity_check`, the same row counts), and only then is
/// the folder put in place under its name. Nothing is left at `to` when any step fails.
pub fn snapshot(source: &Connection, db_path: &Path, to: &Path) -> Result<Report, BackupError> {
    if to.exists() {
        return Err(BackupError::Exists(to.to_path_buf()));
    }
    folder_of(to)?;
    let staging = Staging::new(to)?;
    let copy_path = staging.path.join(DB_FILE);
    let counted = copy_database(source, &copy_path)?;
    copy_media(&media_folder(db_path), &staging.path.join(MEDIA))?;
    let copy = Connection::open_with_flags(&copy_path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(database("cannot open the copy"))?;
    let integrity =
        schema::integrity_check(&copy).map_err(database("cannot run the integrity check"))?;
    if integrity != "ok" {
        return Err(BackupError::CopyDamaged(integrity));
    }
    let recounted = row_counts(&copy).map_err(copy_failed("cannot count the copy"))?;
    drop(copy);
    if recounted != counted {
        return Err(BackupError::CountsDiffer);
    }
    let bytes = folder_bytes(&staging.path)?;
    staging.finish(to)?;
    Ok(Report {
        path: to.display().to_string(),
        bytes,
        tables: counted,
    })
}

/// Copies every page of `source` into a new file at `to`, and counts the rows, in one read
/// transaction. Returns the counts.
fn copy_database(source: &Connection, to: &Path) -> Result<BTreeMap<String, i64>, BackupError> {
    private_file(to).map_err(|e| BackupError::files("cannot create the copy", e))?;
    let mut dest = Connection::open(to).map_err(copy_failed("cannot create the copy"))?;
    // A read on the service's readers is in a transaction already (`db::readers`).
    let own = source.is_autocommit();
    if own {
        source
            .execute_batch("BEGIN")
            .map_err(database("cannot start reading the database"))?;
    }
    let copied = (|| -> rusqlite::Result<BTreeMap<String, i64>> {
        let counts = row_counts(source)?;
        let backup = rusqlite::backup::Backup::new(source, &mut dest)?;
        // Every page in one step: the source is read under the transaction already open.
        for _ in 0..100 {
            match backup.step(-1)? {
                rusqlite::backup::StepResult::Done => return Ok(counts),
                _ => std::thread::sleep(std::time::Duration::from_millis(50)),
            }
        }
        Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            Some("the destination stayed locked".into()),
        ))
    })();
    let ended = if own {
        source.execute_batch("COMMIT")
    } else {
        Ok(())
    };
    let counts = copied.map_err(database("cannot copy the database"))?;
    ended.map_err(database("cannot finish reading the database"))?;
    dest.pragma_update(None, "journal_mode", "DELETE")
        .map_err(copy_failed("cannot finish the copy"))?;
    drop(dest);
    sync_file(to)?;
    Ok(counts)
}

/// A failed SQLite step on the live database, said as the operator reads it.
fn database(doing: &'static str) -> impl Fn(rusqlite::Error) -> BackupError {
    move |source| BackupError::Database { doing, source }
}

/// A failed SQLite step on the new copy.
fn copy_failed(doing: &'static str) -> impl Fn(rusqlite::Error) -> BackupError {
    move |source| BackupError::Copy { doing, source }
}

/// The scheduled backups in `dir`, oldest first (their names sort by time).
pub fn scheduled(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with(SCHEDULED_PREFIX)
                })
                .filter(|e| e.path().join(DB_FILE).is_file())
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// Removes the oldest scheduled backups in `dir` beyond the newest `keep`; returns how many.
pub fn rotate(dir: &Path, keep: usize) -> Result<usize, BackupError> {
    let found = scheduled(dir);
    let extra = found.len().saturating_sub(keep);
    for old in &found[..extra] {
        fs::remove_dir_all(old)
            .map_err(|e| BackupError::files(format!("cannot remove {}", old.display()), e))?;
    }
    Ok(extra)
}

/// The name of a backup taken at `stamp` (UTC, `YYYYMMDDTHHMMSSZ`): scheduled ones start with
/// [`SCHEDULED_PREFIX`], the one before a migration names the schema it was taken from.
pub fn name(kind: Kind, stamp: &str) -> String {
    match kind {
        Kind::Scheduled => format!("{SCHEDULED_PREFIX}{stamp}"),
        Kind::BeforeMigration { from } => format!("pre-migration-v{from}-{stamp}"),
    }
}

/// Why a backup is taken, for its name.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Scheduled,
    BeforeMigration { from: i64 },
}

/// How a backup's name writes the (UTC) time it was taken.
const STAMP: &str = "%Y%m%dT%H%M%SZ";

/// A time as a backup's name writes it.
pub fn stamp(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format(STAMP).to_string()
}

/// The current wall time as a backup stamp.
pub fn stamp_now() -> String {
    stamp(chrono::Utc::now())
}

/// When a scheduled backup was taken, read from its name.
pub fn taken_at(path: &Path) -> Option<chrono::DateTime<chrono::Utc>> {
    let name = path.file_name()?.to_str()?;
    let stamp = name.strip_prefix(SCHEDULED_PREFIX)?;
    chrono::NaiveDateTime::parse_from_str(stamp, STAMP)
        .ok()
        .map(|t| t.and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::PARTIAL_UPLOAD;

    pub(super) fn live(dir: &Path) -> (PathBuf, Connection) {
        let path = dir.join("data/adcab.db");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut conn = crate::db::open_connection(&path).unwrap();
        schema::migrate(&mut conn).unwrap();
        conn.execute_batch(
            "INSERT INTO users (email, plan, subscription, created_at) VALUES ('a@x', 'agency', 'active', '2026-01-01T00:00:00Z')",
        )
        .unwrap();
        (path, conn)
    }

    #[test]
    fn a_snapshot_is_verified_and_counts_every_table() {
        let dir = tempfile::tempdir().unwrap();
        let (path, conn) = live(dir.path());
        fs::create_dir_all(media_folder(&path)).unwrap();
        fs::write(media_folder(&path).join("m_1"), b"jpeg").unwrap();
        fs::write(
            media_folder(&path).join(format!("{PARTIAL_UPLOAD}x")),
            b"half",
        )
        .unwrap();
        let to = dir.path().join("b1");
        let report = snapshot(&conn, &path, &to).unwrap();
        assert_eq!(report.tables["users"], 1);
        assert!(report.tables.contains_key("campaigns"));
        assert!(to.join(DB_FILE).is_file());
        assert_eq!(fs::read(to.join("media/m_1")).unwrap(), b"jpeg");
        assert!(!to.join(format!("media/{PARTIAL_UPLOAD}x")).exists());
        assert!(report.bytes > 4);
        let again = snapshot(&conn, &path, &to).unwrap_err().to_string();
        assert!(again.contains("already exists"), "{again}");
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains("partial"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn rotation_keeps_the_newest() {
        let dir = tempfile::tempdir().unwrap();
        for stamp in ["20260101T000000Z", "20260102T000000Z", "20260103T000000Z"] {
            let b = dir.path().join(name(Kind::Scheduled, stamp));
            fs::create_dir_all(&b).unwrap();
            fs::write(b.join(DB_FILE), b"x").unwrap();
        }
        fs::create_dir_all(dir.path().join("unrelated")).unwrap();
        assert_eq!(rotate(dir.path(), 2).unwrap(), 1);
        let left: Vec<String> = scheduled(dir.path())
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, ["adcab-20260102T000000Z", "adcab-20260103T000000Z"]);
        assert!(dir.path().join("unrelated").exists());
    }
}
