//! Owns SQLite: opening connections with the service's pragmas, applying the numbered migrations
//! in `sql/`, and running every statement off the async runtime (one writer, a small read pool).
//! It knows nothing of tables beyond the migration ledger.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, Transaction};

use crate::error::ApiError;

/// The numbered migrations, applied in order; each runs once, recorded in `schema_migrations`.
const MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("../sql/0001_foundation.sql")),
    (2, include_str!("../sql/0002_writes.sql")),
    (3, include_str!("../sql/0003_delivery.sql")),
    (4, include_str!("../sql/0004_sync.sql")),
    (5, include_str!("../sql/0005_conversions.sql")),
];

/// Read connections kept open; a read waits for one when all are busy.
const READ_POOL: usize = 8;
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A handle on the database file. Cheap to clone; every call runs on a blocking thread.
#[derive(Clone)]
pub struct Db {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Mutex<Readers>,
    /// Signalled when a read connection is handed back.
    returned: Condvar,
}

/// Idle read connections, and how many are open in all.
struct Readers {
    idle: Vec<Connection>,
    open: usize,
}

impl Db {
    /// Opens (creating when missing) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Db, String> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let mut writer = open_connection(path).map_err(|e| format!("cannot open database: {e}"))?;
        migrate(&mut writer).map_err(|e| format!("cannot migrate database: {e}"))?;
        Ok(Db {
            inner: Arc::new(Inner {
                path: path.to_path_buf(),
                writer: Mutex::new(writer),
                readers: Mutex::new(Readers {
                    idle: Vec::new(),
                    open: 0,
                }),
                returned: Condvar::new(),
            }),
        })
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Runs `f` on a read connection, off the async runtime.
    pub async fn read<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, ApiError> + Send + 'static,
    {
        let db = self.clone();
        blocking(move || db.read_blocking(f)).await
    }

    /// Runs `f` in one write transaction, off the async runtime; an error rolls everything back.
    pub async fn write<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction) -> Result<T, ApiError> + Send + 'static,
    {
        let db = self.clone();
        blocking(move || db.write_blocking(f)).await
    }

    /// The blocking form of [`Db::read`], for code already on a blocking thread.
    pub fn read_blocking<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let lease = self.take_reader()?;
        f(lease.conn.as_ref().expect("a lease holds its connection"))
    }

    /// An idle read connection, a new one while fewer than [`READ_POOL`] are open, or else
    /// the next one handed back. The lease hands it back when dropped, even on a panic.
    fn take_reader(&self) -> Result<Lease<'_>, ApiError> {
        let mut readers = self.inner.readers.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(conn) = readers.idle.pop() {
                return Ok(Lease {
                    inner: &self.inner,
                    conn: Some(conn),
                });
            }
            if readers.open < READ_POOL {
                readers.open += 1;
                drop(readers);
                return match open_connection(&self.inner.path) {
                    Ok(conn) => Ok(Lease {
                        inner: &self.inner,
                        conn: Some(conn),
                    }),
                    Err(e) => {
                        self.inner
                            .readers
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .open -= 1;
                        Err(e.into())
                    }
                };
            }
            readers = self
                .inner
                .returned
                .wait(readers)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    /// The blocking form of [`Db::write`], for code already on a blocking thread.
    pub fn write_blocking<T>(
        &self,
        f: impl FnOnce(&Transaction) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let _held = WriterHeld::take();
        let mut conn = self.inner.writer.lock().unwrap_or_else(|p| p.into_inner());
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let value = f(&tx)?;
        tx.commit()?;
        Ok(value)
    }
}

/// A read connection on loan from the pool.
struct Lease<'a> {
    inner: &'a Inner,
    conn: Option<Connection>,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            let mut readers = self.inner.readers.lock().unwrap_or_else(|p| p.into_inner());
            readers.idle.push(conn);
            self.inner.returned.notify_one();
        }
    }
}

thread_local! {
    static HOLDS_WRITER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks this thread as holding the writer. Taking it again on the same thread (a platform
/// call or a nested write inside a write transaction) would deadlock; it panics instead.
struct WriterHeld;

impl WriterHeld {
    fn take() -> WriterHeld {
        HOLDS_WRITER.with(|held| {
            assert!(
                !held.replace(true),
                "nested write transaction on one thread: never call the platform or write inside Db::write"
            );
        });
        WriterHeld
    }
}

impl Drop for WriterHeld {
    fn drop(&mut self) {
        HOLDS_WRITER.with(|held| held.set(false));
    }
}

/// Reads a nullable TEXT column holding JSON; malformed JSON is an error, never dropped.
pub fn json_column<T: serde::de::DeserializeOwned>(
    text: Option<String>,
) -> rusqlite::Result<Option<T>> {
    text.map(|t| {
        serde_json::from_str(&t).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
        })
    })
    .transpose()
}

/// Runs blocking work on tokio's blocking pool; a panic there becomes an internal error.
pub async fn blocking<T, F>(f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ApiError> + Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal(format!("blocking task failed: {e}")))?
}

/// Opens one connection with WAL, a busy timeout, foreign keys and `synchronous=NORMAL`.
pub fn open_connection(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    configure(&conn)?;
    Ok(conn)
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(())
}

/// Applies every migration not yet recorded; running it twice changes nothing.
pub fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
    )?;
    for (version, sql) in MIGRATIONS {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let done: bool = tx.query_row(
            "SELECT EXISTS(SELECT 1 FROM schema_migrations WHERE version = ?1)",
            [version],
            |r| r.get(0),
        )?;
        if !done {
            tx.execute_batch(sql)?;
            tx.execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (?1, datetime('now'))",
                [version],
            )?;
        }
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_apply_to_an_empty_database_and_twice_change_nothing() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        let versions: i64 = conn
            .query_row("SELECT COUNT(*) FROM schema_migrations", [], |r| r.get(0))
            .unwrap();
        assert_eq!(versions, MIGRATIONS.len() as i64);
        let clock_rows: i64 = conn
            .query_row("SELECT COUNT(*) FROM service_clock", [], |r| r.get(0))
            .unwrap();
        assert_eq!(clock_rows, 1);
    }

    #[test]
    fn a_nested_write_panics_instead_of_deadlocking() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("n.db")).unwrap();
        let inner = db.clone();
        let nested = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            db.write_blocking(|_| inner.write_blocking(|_| Ok(())))
        }));
        assert!(nested.is_err());
        assert!(
            db.write_blocking(|_| Ok(())).is_ok(),
            "the writer is usable afterwards"
        );
    }

    #[test]
    fn connections_carry_the_pragmas() {
        let dir = tempfile::tempdir().unwrap();
        let conn = open_connection(&dir.path().join("p.db")).unwrap();
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        let fk: i64 = conn
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap();
        let sync: i64 = conn
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap();
        let busy: i64 = conn
            .query_row("PRAGMA busy_timeout", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        assert_eq!(fk, 1);
        assert_eq!(sync, 1, "NORMAL");
        assert_eq!(busy, 5000);
    }
}
