//! Owns the read pool: up to [`READ_POOL`] connections opened as needed and lent one at a
//! time, waited for with a deadline; async callers are admitted through a bounded [`Gate`]
//! and run on a blocking thread, so a burst of reads is answered "busy" instead of piling up
//! blocked threads. Reads never wait for the writer (the database is in WAL mode).

use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use rusqlite::Connection;

use super::gate::Gate;
use super::{in_request, open_connection, Db, StoreError};

/// Read connections kept open; a read waits for one when all are busy.
const READ_POOL: usize = 8;
/// Async callers that may wait for a read connection at one time; one more is refused at
/// once.
const READ_QUEUE: usize = 512;
/// How long a caller waits for a read connection before it is told "busy".
const WAIT: Duration = Duration::from_secs(10);

/// The pool of read connections on one database file.
pub(super) struct Readers {
    path: PathBuf,
    pool: Mutex<Pool>,
    /// Signalled when a read connection is handed back.
    returned: Condvar,
    gate: Gate,
}

/// Idle read connections, and how many are open in all.
struct Pool {
    idle: Vec<Connection>,
    open: usize,
}

impl Readers {
    pub(super) fn new(path: &Path) -> Readers {
        Readers {
            path: path.to_path_buf(),
            pool: Mutex::new(Pool {
                idle: Vec::new(),
                open: 0,
            }),
            returned: Condvar::new(),
            gate: Gate::new(READ_POOL, READ_QUEUE),
        }
    }

    /// An idle read connection, a new one while fewer than [`READ_POOL`] are open, or else
    /// the next one handed back within [`WAIT`]. The lease hands it back when dropped, even
    /// on a panic.
    fn take(&self) -> Result<Lease<'_>, StoreError> {
        let deadline = Instant::now() + WAIT;
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(conn) = pool.idle.pop() {
                return Ok(Lease {
                    readers: self,
                    conn: Some(conn),
                });
            }
            if pool.open < READ_POOL {
                pool.open += 1;
                drop(pool);
                return match open_connection(&self.path) {
                    Ok(conn) => Ok(Lease {
                        readers: self,
                        conn: Some(conn),
                    }),
                    Err(e) => {
                        self.pool.lock().unwrap_or_else(|p| p.into_inner()).open -= 1;
                        Err(e.into())
                    }
                };
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(StoreError::Busy);
            }
            pool = self
                .returned
                .wait_timeout(pool, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}

impl Db {
    /// Runs `f` on a read connection, off the async runtime. `Busy` when the read queue is
    /// full or no connection frees up in time. The caller's error type `E` takes the store's.
    pub async fn read<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Connection) -> Result<T, E> + Send + 'static,
    {
        let permit = self.inner.readers.gate.enter(WAIT).await?;
        let db = self.clone();
        in_request(move || {
            let _permit = permit;
            db.read_blocking(f)
        })
        .await
    }

    /// The blocking form of [`Db::read`], for code already on a blocking thread.
    pub fn read_blocking<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        let lease = self.inner.readers.take()?;
        f(lease.conn.as_ref().expect("a lease holds its connection"))
    }
}

/// A read connection on loan from the pool.
struct Lease<'a> {
    readers: &'a Readers,
    conn: Option<Connection>,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            let mut pool = self.readers.pool.lock().unwrap_or_else(|p| p.into_inner());
            pool.idle.push(conn);
            self.readers.returned.notify_one();
        }
    }
}
