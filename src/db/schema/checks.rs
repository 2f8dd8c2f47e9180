//! Owns the checks of a database file: what `adcab check` and `adcab restore` find in one,
//! read without changing it (SQLite's integrity check, then what `serve` requires of its
//! schema), and the quick check `serve` runs before its first write, within a time budget.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode};

use super::{check_tables, current, known, SchemaError, LEDGERS};

/// What `adcab check` and `adcab restore` find in a database file, read without changing it.
#[derive(Debug, PartialEq)]
pub struct Inspection {
    /// The newest service migration recorded (0 for an empty file).
    pub schema: i64,
    /// `PRAGMA integrity_check`: "ok", or the first problems it names.
    pub integrity: String,
    /// Why this binary would refuse the file (a damaged page, no adcab schema, a newer one, a
    /// missing table); `None` when it can run on it, migrating it first when it is older.
    pub refused: Option<SchemaError>,
}

impl Inspection {
    /// Whether this binary can serve the file.
    pub fn sound(&self) -> bool {
        self.refused.is_none()
    }
}

/// Opens the file read-only and checks it: SQLite's integrity check, then what `serve` checks
/// of its schema ([`complete`]).
pub fn inspect(path: &Path) -> Result<Inspection, SchemaError> {
    if !path.exists() {
        return Err(SchemaError::Missing(path.to_path_buf()));
    }
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|source| SchemaError::Open {
            path: path.to_path_buf(),
            source,
        })?;
    let read = || -> rusqlite::Result<Inspection> {
        let schema = current(&conn)?;
        let integrity = integrity_check(&conn)?;
        let refused = if integrity != "ok" {
            Some(SchemaError::IntegrityFailed(integrity.clone()))
        } else {
            complete(&conn).err()
        };
        Ok(Inspection {
            schema,
            integrity,
            refused,
        })
    };
    read().map_err(|source| SchemaError::Unreadable {
        path: path.to_path_buf(),
        source,
    })
}

/// `PRAGMA integrity_check`: "ok", or the first ten problems it names.
pub fn integrity_check(conn: &Connection) -> rusqlite::Result<String> {
    let mut stmt = conn.prepare("PRAGMA integrity_check(10)")?;
    let found = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(found.join("; "))
}

/// What SQLite's quick check of a file found in the time it had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integrity {
    /// It read every page and found none damaged.
    Intact { took: Duration },
    /// It ran out of time before the last page (a large file): nothing found in what it read.
    Unfinished { budget: Duration },
}

/// How many of SQLite's steps the quick check takes between two looks at the clock.
const CHECK_STEPS: i32 = 10_000;

/// Runs `PRAGMA quick_check` (the structure of every page, without comparing indexes to their
/// tables) on a read-only connection of its own, stopping it after `budget`. Damage is an
/// error, the end of a sentence about the file naming what SQLite found.
pub fn quick_check(path: &Path, budget: Duration) -> Result<Integrity, SchemaError> {
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(SchemaError::CheckNotOpened)?;
    let started = Instant::now();
    let deadline = started + budget;
    conn.progress_handler(CHECK_STEPS, Some(move || Instant::now() >= deadline));
    let found = conn.prepare("PRAGMA quick_check(10)").and_then(|mut stmt| {
        stmt.query_map([], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<String>>>()
    });
    match found {
        Ok(rows) if rows == ["ok"] => Ok(Integrity::Intact {
            took: started.elapsed(),
        }),
        Ok(rows) => Err(SchemaError::Damaged(rows.join("; "))),
        Err(e) => match e.sqlite_error_code() {
            Some(ErrorCode::OperationInterrupted) => Ok(Integrity::Unfinished { budget }),
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
                Err(SchemaError::Damaged(e.to_string()))
            }
            _ => Err(SchemaError::CheckNotRun(e)),
        },
    }
}

/// What `serve` requires of a database it did not create, checked without changing it: an
/// adcab schema (an empty or foreign file has none), every recorded migration one this binary
/// knows, and every table the recorded migrations leave. An older database passes: `serve`
/// brings it up to date.
pub fn complete(conn: &Connection) -> Result<(), SchemaError> {
    for ledger in &LEDGERS {
        known(conn, ledger)?;
    }
    if current(conn)? == 0 {
        return Err(SchemaError::NoSchema);
    }
    check_tables(conn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::schema::{migrate, version};

    #[test]
    fn a_migrated_file_is_sound_and_a_missing_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.db");
        assert!(inspect(&path)
            .unwrap_err()
            .to_string()
            .contains("no database"));
        crate::db::Db::open(&path, crate::db::Open::Create).unwrap();
        let found = inspect(&path).unwrap();
        assert_eq!(found.schema, version());
        assert_eq!(found.integrity, "ok");
        assert_eq!(found.refused, None);
        assert!(found.sound());
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("INSERT INTO schema_migrations (version, applied_at) VALUES (99, 'x')")
            .unwrap();
        let newer = inspect(&path).unwrap();
        assert!(!newer.sound());
        assert!(
            newer
                .refused
                .unwrap()
                .to_string()
                .contains("schema version 99 is newer"),
            "refused as serve refuses it"
        );
    }

    #[test]
    fn an_empty_or_foreign_file_or_a_missing_table_is_not_complete_and_an_older_one_is() {
        let empty = Connection::open_in_memory().unwrap();
        let err = complete(&empty).unwrap_err().to_string();
        assert!(err.contains("no adcab schema"), "{err}");
        empty
            .execute_batch("CREATE TABLE notes (body TEXT)")
            .unwrap();
        let err = complete(&empty).unwrap_err().to_string();
        assert!(err.contains("no adcab schema"), "a foreign table: {err}");

        let older = super::super::tests::applied_before(13);
        complete(&older).expect("serve migrates an older database");
        older.execute_batch("DROP TABLE cabinets").unwrap();
        let err = complete(&older).unwrap_err().to_string();
        assert!(err.contains("table cabinets is missing"), "{err}");

        let mut current = Connection::open_in_memory().unwrap();
        migrate(&mut current).unwrap();
        complete(&current).unwrap();
        current
            .execute_batch(
                "INSERT INTO sim_schema_migrations (version, applied_at) VALUES (7, 'x')",
            )
            .unwrap();
        let err = complete(&current).unwrap_err().to_string();
        assert!(err.contains("simulator schema version 7 is newer"), "{err}");
    }

    /// A database file of `rows` users, closed (its log copied in), and its size in pages.
    fn file_with_users(path: &Path, rows: usize) -> u64 {
        let mut conn = Connection::open(path).unwrap();
        migrate(&mut conn).unwrap();
        let tx = conn.transaction().unwrap();
        for i in 0..rows {
            tx.execute(
                "INSERT INTO users (email, plan, created_at) VALUES (?1, 'pro', 'x')",
                [format!("user{i}@example.com")],
            )
            .unwrap();
        }
        tx.commit().unwrap();
        let pages: u64 = conn
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .unwrap();
        drop(conn);
        pages
    }

    #[test]
    fn the_quick_check_finds_a_damaged_page_and_stops_at_its_budget() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.db");
        let pages = file_with_users(&path, 3000);
        let long = Duration::from_secs(60);
        assert!(matches!(
            quick_check(&path, long),
            Ok(Integrity::Intact { .. })
        ));
        assert_eq!(
            quick_check(&path, Duration::ZERO),
            Ok(Integrity::Unfinished {
                budget: Duration::ZERO
            })
        );

        let page_size = 4096;
        let mut bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() as u64, pages * page_size);
        let middle = (pages / 2 * page_size) as usize;
        for (i, b) in bytes[middle..middle + page_size as usize]
            .iter_mut()
            .enumerate()
        {
            *b = (i * 7 + 13) as u8;
        }
        std::fs::write(&path, bytes).unwrap();
        let err = quick_check(&path, long).unwrap_err().to_string();
        assert!(err.contains("damaged"), "{err}");
        assert!(
            !inspect(&path).is_ok_and(|found| found.sound()),
            "check refuses it too"
        );
    }
}
