//! Owns the writer: the one write connection behind a lock, taken by async callers through a
//! bounded [`Gate`] (then on a blocking thread) and by callers already on a blocking thread
//! directly, each waiting at most [`WAIT`]; a write inside a write on one thread panics
//! instead of deadlocking.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rusqlite::{Connection, Transaction};

use super::gate::{Gate, Waiting};
use super::{in_request, Db, StoreError};

/// Async callers that may wait for the writer at one time; one more is refused at once.
pub(super) const QUEUE: usize = 256;
/// How long a caller waits for the writer before it is told "busy".
pub(super) const WAIT: Duration = Duration::from_secs(10);

/// The write connection and who waits for it.
pub(super) struct Writer {
    conn: parking_lot::Mutex<Connection>,
    gate: Gate,
    /// Callers on blocking threads waiting for the writer (the simulator's writes inside a
    /// request, the worker, the sync), which a yielding write gives way to as it does to the
    /// gate's queue.
    blocked: AtomicUsize,
    wait: Duration,
}

impl Writer {
    pub(super) fn start(conn: Connection, capacity: usize, wait: Duration) -> Writer {
        Writer {
            conn: parking_lot::Mutex::new(conn),
            gate: Gate::new(1, capacity),
            blocked: AtomicUsize::new(0),
            wait,
        }
    }
}

impl Db {
    /// Runs `f` in one write transaction, off the async runtime; an error rolls everything
    /// back. `Busy` when the write queue is full or the writer does not free up in time.
    pub async fn write<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Transaction) -> Result<T, E> + Send + 'static,
    {
        self.write_yielding(move |tx, _| f(tx)).await
    }

    /// [`Db::write`] for long background work: `f` also gets a [`Yield`] that tells it when
    /// requests are queued for the writer, so it can stop early, commit what it did and let
    /// them go first.
    pub async fn write_yielding<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Transaction, &Yield) -> Result<T, E> + Send + 'static,
    {
        let permit = self.inner.writer.gate.enter(self.inner.writer.wait).await?;
        let db = self.clone();
        in_request(move || {
            let _permit = permit;
            let queued = Yield(&db.inner.writer);
            db.write_blocking(|tx| f(tx, &queued))
        })
        .await
    }

    /// The blocking form of [`Db::write`], for code already on a blocking thread. Waits at
    /// most [`WAIT`] for the writer.
    pub fn write_blocking<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Transaction) -> Result<T, E>,
    ) -> Result<T, E> {
        let _held = WriterHeld::take();
        let writer = &self.inner.writer;
        let mut conn = match writer.conn.try_lock() {
            Some(conn) => conn,
            None => {
                let _waiting = Waiting::join(&writer.blocked, usize::MAX)?;
                writer
                    .conn
                    .try_lock_for(writer.wait)
                    .ok_or(StoreError::Busy)?
            }
        };
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(StoreError::from)?;
        let value = f(&tx)?;
        tx.commit().map_err(StoreError::from)?;
        Ok(value)
    }
}

/// What a [`Db::write_yielding`] transaction looks at between steps: whether anyone waits
/// for the writer.
pub struct Yield<'a>(&'a Writer);

impl Yield<'_> {
    /// True when anyone waits for the writer: a request in the gate's queue, or a caller on a
    /// blocking thread.
    pub fn wanted(&self) -> bool {
        self.0.gate.waiting() > 0 || self.0.blocked.load(Ordering::SeqCst) > 0
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

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::db::Open;

    #[test]
    fn a_yielding_write_is_told_when_a_request_or_a_blocking_caller_waits_for_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("y.db"), Open::Create).unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        for blocking in [false, true] {
            rt.block_on(async {
                let (started, started_rx) = std::sync::mpsc::channel();
                let writer = db.clone();
                let long = async move {
                    writer
                        .write_yielding(move |_, queue| {
                            let alone = !queue.wanted();
                            started.send(()).unwrap();
                            let deadline = Instant::now() + Duration::from_secs(10);
                            while !queue.wanted() && Instant::now() < deadline {
                                std::thread::sleep(Duration::from_millis(1));
                            }
                            Ok::<_, StoreError>((alone, queue.wanted()))
                        })
                        .await
                };
                let long = tokio::spawn(long);
                tokio::task::spawn_blocking(move || started_rx.recv().unwrap())
                    .await
                    .unwrap();
                let other = db.clone();
                let waiter = if blocking {
                    tokio::task::spawn_blocking(move || {
                        other.write_blocking(|_| Ok::<_, StoreError>(()))
                    })
                } else {
                    tokio::spawn(async move { other.write(|_| Ok::<_, StoreError>(())).await })
                };
                let (alone, told) = long.await.unwrap().unwrap();
                waiter.await.unwrap().unwrap();
                assert!(alone, "nobody waited when it began (blocking: {blocking})");
                assert!(told, "the waiter was seen (blocking: {blocking})");
            });
        }
    }

    #[test]
    fn a_nested_write_panics_instead_of_deadlocking() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("n.db"), Open::Create).unwrap();
        let inner = db.clone();
        let nested = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            db.write_blocking(|_| inner.write_blocking(|_| Ok::<_, StoreError>(())))
        }));
        assert!(nested.is_err());
        assert!(
            db.write_blocking(|_| Ok::<_, StoreError>(())).is_ok(),
            "the writer is usable afterwards"
        );
    }
}
