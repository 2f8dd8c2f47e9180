//! Owns restoring a backup: the backup folder put in place of the live database and its media,
//! refused while a server holds the database or another process has it open, and for a backup
//! `serve` would refuse. What it replaces is kept beside it; a failed restore leaves the files
//! as they were and no copy behind.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::files::{copy_media, copy_private, folder_of, sibling, Staging};
use super::{BackupError, ServeLock, DB_FILE, MEDIA};
use crate::db::{media_folder, schema};
use crate::primitives::restrict;

/// Puts the backup folder `from` in place of the database at `db_path` and its media folder.
/// Refuses while a server holds the database or another process has it open, and a backup
/// `serve` would refuse (damaged, not an adcab database, written by a newer adcab, a table
/// missing). The backup is copied beside the database first; the database file is swapped in
/// with one rename. The one it replaces is kept as `<db>.before-restore-<time>`, and the media
/// folder it replaces as `media.before-restore-<time>` (`<time>-2`, `-3`, ... when a restore of
/// the same second kept one already). A failed restore leaves the files as they were and no
/// copy behind.
pub fn restore(from: &Path, db_path: &Path, stamp: &str) -> Result<(), BackupError> {
    let _lock = ServeLock::acquire(db_path)?;
    let backup_db = from.join(DB_FILE);
    let found = schema::inspect(&backup_db).map_err(BackupError::Schema)?;
    if let Some(problem) = found.refused {
        return Err(BackupError::Refused {
            backup: backup_db,
            problem,
        });
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
        .map_err(|e| BackupError::files(format!("cannot flush {}", folder.display()), e))
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
fn take_over(db_path: &Path) -> Result<Connection, BackupError> {
    let database = |doing| move |source| BackupError::Database { doing, source };
    let conn = Connection::open_with_flags(db_path, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(database("cannot open the database"))?;
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
            return Err(BackupError::InUse)
        }
        Err(e) => return Err(database("cannot lock the database")(e)),
        Ok(()) => {}
    }
    let mode: String = conn
        .query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0))
        .map_err(database("cannot settle the database's log"))?;
    if mode != "delete" {
        return Err(BackupError::LogKept(mode));
    }
    for log in crate::db::log_files(db_path) {
        let _ = fs::remove_file(log);
    }
    Ok(conn)
}

/// Moves the staged database and media (`staging/adcab.db`, `staging/media`) in place of the
/// live ones, keeping those under `suffix`. A step that fails undoes the steps before it.
fn swap(staging: &Path, db_path: &Path, media: &Path, suffix: &str) -> Result<(), BackupError> {
    let private = |kept: &Path| {
        restrict(kept)
            .map_err(|e| BackupError::files(format!("cannot make {} private", kept.display()), e))
    };
    let mut undo = Undo::default();
    if db_path.exists() {
        let kept = sibling(db_path, &format!(".{suffix}"));
        fs::hard_link(db_path, &kept).map_err(|e| {
            BackupError::files(
                format!("cannot keep the current database as {}", kept.display()),
                e,
            )
        })?;
        undo.0.push(Step::Made(kept.clone()));
        private(&kept)?;
    }
    if media.exists() {
        let kept = media.with_file_name(format!("media.{suffix}"));
        fs::rename(media, &kept)
            .map_err(|e| BackupError::files("cannot move the media folder aside", e))?;
        undo.0.push(Step::Moved {
            from: media.to_path_buf(),
            to: kept.clone(),
        });
        private(&kept)?;
    }
    let staged_media = staging.join(MEDIA);
    fs::rename(&staged_media, media)
        .map_err(|e| BackupError::files("cannot put the media folder in place", e))?;
    undo.0.push(Step::Moved {
        from: staged_media,
        to: media.to_path_buf(),
    });
    fs::rename(staging.join(DB_FILE), db_path)
        .map_err(|e| BackupError::files("cannot put the database in place", e))?;
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

#[cfg(test)]
mod tests {
    use super::super::lock::lock_path;
    use super::super::tests::live;
    use super::super::{snapshot, ServeLock};
    use super::*;

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
        let err = restore(&to, &path, "x").unwrap_err().to_string();
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
        let reader = crate::db::open_connection(&path).unwrap();
        reader
            .execute_batch("BEGIN; SELECT COUNT(*) FROM users;")
            .unwrap();
        let folder = path.parent().unwrap();
        let before = names(folder);
        let err = restore(&to, &path, "20260101T000000Z")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("another process has the database open"),
            "{err}"
        );
        reader.execute_batch("COMMIT").unwrap();
        let err = restore(&to, &path, "20260101T000000Z")
            .unwrap_err()
            .to_string();
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
            let err = restore(from, &path, "20260101T000000Z")
                .unwrap_err()
                .to_string();
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
}
