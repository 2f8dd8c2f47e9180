//! Owns backups of the data folder: a consistent snapshot of the database taken while a server
//! runs and writes (SQLite's online backup, inside one read transaction) with the uploaded
//! media beside it, verified before it counts; restoring one in place of the live files; the
//! lock a serving process holds so that a restore never runs under it; and the rotation of
//! scheduled backups.
//!
//! A backup is a folder: `adcab.db` and `media/`, copied off the box as one. It holds password
//! hashes and webhook secrets, so every folder and file made here is private to its owner
//! (0700, 0600), whatever the umask.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

use super::{media_folder, schema, sentence, PARTIAL_UPLOAD};
use crate::primitives::{private_dir, private_file, restrict};

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
pub fn snapshot(source: &Connection, db_path: &Path, to: &Path) -> Result<Report, String> {
    if to.exists() {
        return Err(format!(
            "{} already exists; a backup goes to a new path",
            to.display()
        ));
    }
    folder_of(to)?;
    let staging = Staging::new(to)?;
    let copy_path = staging.path.join(DB_FILE);
    let counted = copy_database(source, &copy_path)?;
    copy_media(&media_folder(db_path), &staging.path.join(MEDIA))?;
    let copy = Connection::open_with_flags(&copy_path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| format!("cannot open the copy: {}", sentence(&e)))?;
    let integrity = schema::integrity_check(&copy)
        .map_err(|e| format!("cannot run the integrity check: {}", sentence(&e)))?;
    if integrity != "ok" {
        return Err(format!("the copy failed its integrity check: {integrity}"));
    }
    let recounted = row_counts(&copy).map_err(|e| format!("cannot count the copy: {e}"))?;
    drop(copy);
    if recounted != counted {
        return Err("the copy's row counts differ from the database's".into());
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
fn copy_database(source: &Connection, to: &Path) -> Result<BTreeMap<String, i64>, String> {
    private_file(to).map_err(|e| format!("cannot create the copy: {e}"))?;
    let mut dest = Connection::open(to).map_err(|e| format!("cannot create the copy: {e}"))?;
    source
        .execute_batch("BEGIN")
        .map_err(|e| format!("cannot start reading the database: {}", sentence(&e)))?;
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
    let ended = source.execute_batch("COMMIT");
    let counts = copied.map_err(|e| format!("cannot copy the database: {}", sentence(&e)))?;
    ended.map_err(|e| format!("cannot finish reading the database: {}", sentence(&e)))?;
    dest.pragma_update(None, "journal_mode", "DELETE")
        .map_err(|e| format!("cannot finish the copy: {e}"))?;
    drop(dest);
    sync_file(to)?;
    Ok(counts)
}

/// Copies the media files (uploads still being received aside) into the new folder `to`.
fn copy_media(from: &Path, to: &Path) -> Result<(), String> {
    private_dir(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries = match fs::read_dir(from) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("cannot read {}: {e}", from.display())),
    };
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", from.display()))?;
        let name = entry.file_name();
        let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        if !is_file || name.to_string_lossy().starts_with(PARTIAL_UPLOAD) {
            continue;
        }
        copy_private(&entry.path(), &to.join(&name))?;
    }
    Ok(())
}

/// Copies the file `from` to the new file `to`, private to its owner from the start (not with
/// `from`'s mode, as `fs::copy` would), and flushes it to disk.
fn copy_private(from: &Path, to: &Path) -> Result<(), String> {
    let mut source =
        File::open(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    let mut target =
        private_file(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    std::io::copy(&mut source, &mut target)
        .and_then(|_| target.sync_all())
        .map_err(|e| format!("cannot copy {}: {e}", from.display()))
}

fn folder_bytes(folder: &Path) -> Result<u64, String> {
    let mut total = 0;
    for entry in fs::read_dir(folder).map_err(|e| format!("{}: {e}", folder.display()))? {
        let entry = entry.map_err(|e| format!("{}: {e}", folder.display()))?;
        let meta = entry
            .metadata()
            .map_err(|e| format!("{}: {e}", entry.path().display()))?;
        total += if meta.is_dir() {
            folder_bytes(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}

/// The folder `path` is in (`.` for a bare name), created (private) when missing.
fn folder_of(path: &Path) -> Result<&Path, String> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    private_dir(folder)
        .map_err(|e| format!("cannot create the folder {}: {e}", folder.display()))?;
    Ok(folder)
}

fn sync_file(path: &Path) -> Result<(), String> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| format!("cannot flush {} to disk: {e}", path.display()))
}

/// A folder being filled beside its final name; removed unless it is put in place.
struct Staging {
    path: PathBuf,
}

impl Staging {
    fn new(beside: &Path) -> Result<Staging, String> {
        let name = beside
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "backup".into());
        let path = beside.with_file_name(format!(
            ".{name}.partial-{}",
            crate::primitives::random_hex(6)
        ));
        private_dir(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(Staging { path })
    }

    fn finish(self, to: &Path) -> Result<(), String> {
        fs::rename(&self.path, to)
            .map_err(|e| format!("cannot move the backup to {}: {e}", to.display()))?;
        std::mem::forget(self);
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// The lock a serving process holds on its database for its whole life (`<db>.lock`, an
/// advisory file lock, released by the kernel when the process ends however it ends).
pub struct ServeLock {
    _file: File,
}

impl ServeLock {
    /// Takes the lock, or says who holds it.
    pub fn acquire(db_path: &Path) -> Result<ServeLock, String> {
        let path = lock_path(db_path);
        folder_of(&path)?;
        let file = match private_file(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                File::options().write(true).open(&path)
            }
            created => created,
        }
        .map_err(|e| format!("cannot open the lock file {}: {e}", path.display()))?;
        match file.try_lock() {
            Ok(()) => Ok(ServeLock { _file: file }),
            Err(fs::TryLockError::WouldBlock) => Err(format!(
                "a server holds the database at {} (the lock {} is taken); stop it first (systemctl stop adcab)",
                db_path.display(),
                path.display()
            )),
            Err(fs::TryLockError::Error(e)) => {
                Err(format!("cannot lock {}: {e}", path.display()))
            }
        }
    }
}

fn lock_path(db_path: &Path) -> PathBuf {
    let mut name = db_path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Puts the backup folder `from` in place of the database at `db_path` and its media folder.
/// Refuses while a server holds the database or another process has it open, and a backup
/// `serve` would refuse (damaged, not an adcab database, written by a newer adcab, a table
/// missing). The backup is copied beside the database first; the database file is swapped in
/// with one rename. The one it replaces is kept as `<db>.before-restore-<time>`, and the media
/// folder it replaces as `media.before-restore-<time>` (`<time>-2`, `-3`, ... when a restore of
/// the same second kept one already). A failed restore leaves the files as they were and no
/// copy behind.
pub fn restore(from: &Path, db_path: &Path, stamp: &str) -> Result<(), String> {
    let _lock = ServeLock::acquire(db_path)?;
    let backup_db = from.join(DB_FILE);
    if let Some(problem) = schema::inspect(&backup_db)?.refused {
        return Err(format!("the backup {}: {problem}", backup_db.display()));
    }
    let folder = folder_of(db_path)?;
    let staging = Staging::new(db_path)?;
    copy_private(&backup_db, &staging.path.join(DB_FILE))?;
    copy_media(&from.join(MEDIA), &staging.path.join(MEDIA))?;
    let media = media_folder(db_path);
    let suffix = free_suffix(db_path, &media, stamp);
    let current = if db_path.exists() {
        Some(take_over(db_path)?)
    } else {
        None
    };
    swap(&staging.path, db_path, &media, &suffix)?;
    drop(current);
    File::open(folder)
        .and_then(|d| d.sync_all())
        .map_err(|e| format!("cannot flush {}: {e}", folder.display()))
}

/// `before-restore-<stamp>`, with `-2`, `-3`, ... added when a kept database or media folder
/// already has that name (two restores within one second; restores never run at once, since
/// each holds the serve lock).
fn free_suffix(db_path: &Path, media: &Path, stamp: &str) -> String {
    (1..)
        .map(|n| match n {
            1 => format!("before-restore-{stamp}"),
            n => format!("before-restore-{stamp}-{n}"),
        })
        .find(|suffix| {
            !sibling(db_path, &format!(".{suffix}")).exists()
                && !media.with_file_name(format!("media.{suffix}")).exists()
        })
        .expect("some counter is free")
}

/// Takes the database at `db_path` for the restore: an exclusive lock on the file itself,
/// which SQLite grants only when no other connection (of any process) has the database open,
/// not even an idle one; then its write-ahead log is copied into it and removed, so that no
/// log of the replaced database is ever read against the restored one. The lock is held until
/// the returned connection is dropped.
fn take_over(db_path: &Path) -> Result<Connection, String> {
    let conn = Connection::open_with_flags(db_path, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(|e| format!("cannot open the database: {}", sentence(&e)))?;
    let taken = conn.busy_timeout(std::time::Duration::ZERO).and_then(|()| {
        conn.execute_batch(
            "PRAGMA locking_mode = EXCLUSIVE;
             BEGIN EXCLUSIVE; SELECT COUNT(*) FROM sqlite_master; COMMIT;",
        )
    });
    match taken {
        Err(e)
            if matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            ) =>
        {
            return Err(
                "another process has the database open (a panel command, a script, sqlite3); stop it first"
                    .into(),
            )
        }
        Err(e) => return Err(format!("cannot lock the database: {}", sentence(&e))),
        Ok(()) => {}
    }
    let mode: String = conn
        .query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0))
        .map_err(|e| format!("cannot settle the database's log: {}", sentence(&e)))?;
    if mode != "delete" {
        return Err(format!(
            "cannot settle the database's log (its journal stayed {mode})"
        ));
    }
    for suffix in ["-wal", "-shm"] {
        let _ = fs::remove_file(sibling(db_path, suffix));
    }
    Ok(conn)
}

/// Moves the staged database and media (`staging/adcab.db`, `staging/media`) in place of the
/// live ones, keeping those under `suffix`. A step that fails undoes the steps before it.
fn swap(staging: &Path, db_path: &Path, media: &Path, suffix: &str) -> Result<(), String> {
    let mut undo = Undo::default();
    if db_path.exists() {
        let kept = sibling(db_path, &format!(".{suffix}"));
        fs::hard_link(db_path, &kept).map_err(|e| {
            format!(
                "cannot keep the current database as {}: {e}",
                kept.display()
            )
        })?;
        undo.0.push(Step::Made(kept.clone()));
        restrict(&kept).map_err(|e| format!("cannot make {} private: {e}", kept.display()))?;
    }
    if media.exists() {
        let kept = media.with_file_name(format!("media.{suffix}"));
        fs::rename(media, &kept).map_err(|e| format!("cannot move the media folder aside: {e}"))?;
        undo.0.push(Step::Moved {
            from: media.to_path_buf(),
            to: kept.clone(),
        });
        restrict(&kept).map_err(|e| format!("cannot make {} private: {e}", kept.display()))?;
    }
    let staged_media = staging.join(MEDIA);
    fs::rename(&staged_media, media)
        .map_err(|e| format!("cannot put the media folder in place: {e}"))?;
    undo.0.push(Step::Moved {
        from: staged_media,
        to: media.to_path_buf(),
    });
    fs::rename(staging.join(DB_FILE), db_path)
        .map_err(|e| format!("cannot put the database in place: {e}"))?;
    undo.0.clear();
    Ok(())
}

/// What a swap did so far, undone (newest first) when it is dropped before the swap ends.
#[derive(Default)]
struct Undo(Vec<Step>);

enum Step {
    /// A new name was made for a file: removed again.
    Made(PathBuf),
    /// A folder was moved: moved back.
    Moved { from: PathBuf, to: PathBuf },
}

impl Drop for Undo {
    fn drop(&mut self) {
        for step in self.0.drain(..).rev() {
            let _ = match step {
                Step::Made(path) => fs::remove_file(path),
                Step::Moved { from, to } => fs::rename(to, from),
            };
        }
    }
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
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
pub fn rotate(dir: &Path, keep: usize) -> Result<usize, String> {
    let found = scheduled(dir);
    let extra = found.len().saturating_sub(keep);
    for old in &found[..extra] {
        fs::remove_dir_all(old).map_err(|e| format!("cannot remove {}: {e}", old.display()))?;
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

    fn live(dir: &Path) -> (PathBuf, Connection) {
        let path = dir.join("data/adcab.db");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut conn = super::super::open_connection(&path).unwrap();
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
        let again = snapshot(&conn, &path, &to).unwrap_err();
        assert!(again.contains("already exists"), "{again}");
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains("partial"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn restore_swaps_the_database_and_keeps_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let (path, conn) = live(dir.path());
        let to = dir.path().join("b1");
        snapshot(&conn, &path, &to).unwrap();
        conn.execute_batch(
            "INSERT INTO users (email, plan, subscription, created_at) VALUES ('b@x', 'agency', 'active', '2026-01-01T00:00:00Z')",
        )
        .unwrap();
        drop(conn);
        restore(&to, &path, "20260101T000000Z").unwrap();
        let back = Connection::open(&path).unwrap();
        let users: i64 = back
            .query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))
            .unwrap();
        assert_eq!(users, 1);
        let kept = Connection::open(sibling(&path, ".before-restore-20260101T000000Z")).unwrap();
        let before: i64 = kept
            .query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))
            .unwrap();
        assert_eq!(before, 2);
    }

    #[test]
    fn restore_refuses_while_the_lock_is_held() {
        let dir = tempfile::tempdir().unwrap();
        let (path, conn) = live(dir.path());
        let to = dir.path().join("b1");
        snapshot(&conn, &path, &to).unwrap();
        drop(conn);
        let held = ServeLock::acquire(&path).unwrap();
        let err = restore(&to, &path, "x").unwrap_err();
        assert!(err.contains("a server holds the database"), "{err}");
        drop(held);
        restore(&to, &path, "y").unwrap();
    }

    /// The names in a folder, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut found: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        found.sort();
        found
    }

    fn users(path: &Path) -> i64 {
        Connection::open(path)
            .unwrap()
            .query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn restore_refuses_while_another_connection_has_the_database_open_and_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let (path, conn) = live(dir.path());
        fs::create_dir_all(media_folder(&path)).unwrap();
        let to = dir.path().join("b1");
        snapshot(&conn, &path, &to).unwrap();
        conn.execute_batch(
            "INSERT INTO users (email, plan, subscription, created_at) VALUES ('b@x', 'agency', 'active', '2026-01-01T00:00:00Z')",
        )
        .unwrap();
        drop(conn);
        ServeLock::acquire(&path).map(drop).unwrap();
        let reader = super::super::open_connection(&path).unwrap();
        reader
            .execute_batch("BEGIN; SELECT COUNT(*) FROM users;")
            .unwrap();
        let folder = path.parent().unwrap();
        let before = names(folder);
        let err = restore(&to, &path, "20260101T000000Z").unwrap_err();
        assert!(
            err.contains("another process has the database open"),
            "{err}"
        );
        reader.execute_batch("COMMIT").unwrap();
        let err = restore(&to, &path, "20260101T000000Z").unwrap_err();
        assert!(err.contains("has the database open"), "an idle one: {err}");
        assert_eq!(names(folder), before, "no copy left behind");
        assert_eq!(users(&path), 2, "the database is untouched");

        drop(reader);
        restore(&to, &path, "20260101T000000Z").unwrap();
        assert_eq!(users(&path), 1);
    }

    #[test]
    fn two_restores_within_one_second_keep_both_replaced_databases() {
        let dir = tempfile::tempdir().unwrap();
        let (path, conn) = live(dir.path());
        fs::create_dir_all(media_folder(&path)).unwrap();
        fs::write(media_folder(&path).join("m_1"), b"jpeg").unwrap();
        let to = dir.path().join("b1");
        snapshot(&conn, &path, &to).unwrap();
        drop(conn);
        let stamp = "20260101T000000Z";
        restore(&to, &path, stamp).unwrap();
        restore(&to, &path, stamp).unwrap();
        let folder = path.parent().unwrap();
        assert_eq!(
            names(folder),
            [
                "adcab.db",
                "adcab.db.before-restore-20260101T000000Z",
                "adcab.db.before-restore-20260101T000000Z-2",
                "adcab.db.lock",
                "media",
                "media.before-restore-20260101T000000Z",
                "media.before-restore-20260101T000000Z-2",
            ]
        );
        assert_eq!(fs::read(media_folder(&path).join("m_1")).unwrap(), b"jpeg");
        assert_eq!(
            users(&path.with_file_name("adcab.db.before-restore-20260101T000000Z-2")),
            1
        );
    }

    #[test]
    fn restore_refuses_an_empty_foreign_or_incomplete_backup_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (path, conn) = live(dir.path());
        let good = dir.path().join("good");
        snapshot(&conn, &path, &good).unwrap();
        drop(conn);
        ServeLock::acquire(&path).map(drop).unwrap();
        let folder = path.parent().unwrap().to_path_buf();
        let before = names(&folder);
        let backup = |name: &str, make: &dyn Fn(&Path)| {
            let b = dir.path().join(name);
            fs::create_dir_all(&b).unwrap();
            make(&b.join(DB_FILE));
            b
        };
        let cases = [
            (
                backup("empty", &|db| fs::write(db, b"").unwrap()),
                "no adcab schema",
            ),
            (
                backup("foreign", &|db| {
                    Connection::open(db)
                        .unwrap()
                        .execute_batch(
                            "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');",
                        )
                        .unwrap()
                }),
                "no adcab schema",
            ),
            (
                backup("incomplete", &|db| {
                    fs::copy(good.join(DB_FILE), db).unwrap();
                    Connection::open(db)
                        .unwrap()
                        .execute_batch("DROP TABLE campaigns")
                        .unwrap()
                }),
                "table campaigns is missing",
            ),
            (
                backup("newer", &|db| {
                    fs::copy(good.join(DB_FILE), db).unwrap();
                    Connection::open(db)
                        .unwrap()
                        .execute_batch(
                            "INSERT INTO schema_migrations (version, applied_at) VALUES (99, 'x')",
                        )
                        .unwrap()
                }),
                "newer than this adcab knows",
            ),
        ];
        for (from, said) in &cases {
            let err = restore(from, &path, "20260101T000000Z").unwrap_err();
            assert!(err.contains(said), "{}: {err}", from.display());
            assert_eq!(names(&folder), before, "{}", from.display());
        }
        assert_eq!(users(&path), 1);
    }

    #[test]
    fn backups_and_what_restore_keeps_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let (path, conn) = live(dir.path());
        fs::create_dir_all(media_folder(&path)).unwrap();
        fs::write(media_folder(&path).join("m_1"), b"jpeg").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let to = dir.path().join("new/backups/b1");
        snapshot(&conn, &path, &to).unwrap();
        drop(conn);
        for folder in [&dir.path().join("new"), &to, &to.join(MEDIA)] {
            assert_eq!(mode(folder), 0o700, "{}", folder.display());
        }
        for file in [to.join(DB_FILE), to.join("media/m_1")] {
            assert_eq!(mode(&file), 0o600, "{}", file.display());
        }
        restore(&to, &path, "s").unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&media_folder(&path)), 0o700);
        assert_eq!(mode(&media_folder(&path).join("m_1")), 0o600);
        assert_eq!(mode(&sibling(&path, ".before-restore-s")), 0o600);
        assert_eq!(mode(&path.with_file_name("media.before-restore-s")), 0o700);
        assert_eq!(mode(&lock_path(&path)), 0o600);
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
