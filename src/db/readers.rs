//! Owns the read pool: up to [`READ_POOL`] connections opened as needed and lent one at a
//! time, waited for with a deadline; and the reader threads, [`READ_POOL`] of their own, that
//! run async callers' reads. Async callers are admitted through a bounded [`Gate`] and handed
//! to a reader thread, so a burst of reads is answered "busy" instead of piling up blocked
//! threads, and never starts a thread: the threads are fixed, not taken from tokio's blocking
//! pool, which starts a new thread whenever none is counted idle, and a thread that has just
//! finished a read is not counted idle until it is scheduled again (on a loaded machine a
//! burst of short reads started dozens). Reads never wait for the writer (WAL mode).

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Condvar, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rusqlite::Connection;
use tokio::sync::oneshot;

use super::gate::Gate;
use super::{open_connection, Db, StoreError};

/// Read connections kept open, and reader threads; a read waits for a connection when all
/// are busy.
const READ_POOL: usize = 8;
/// Async callers that may wait for a read connection at one time; one more is refused at
/// once.
const READ_QUEUE: usize = 512;
/// How long a caller waits for a read connection before it is told "busy".
const WAIT: Duration = Duration::from_secs(10);

/// The pool of read connections on one database file, and the reader threads of async
/// callers (started with the first such read, ended when the database handle goes).
pub(super) struct Readers {
    shared: Arc<Shared>,
    gate: Gate,
    crew: OnceLock<Crew>,
}

/// What the reader threads and blocking callers share: the connections.
struct Shared {
    path: PathBuf,
    pool: Mutex<Pool>,
    /// Signalled when a read connection is handed back.
    returned: Condvar,
}

/// Idle read connections, and how many are open in all.
struct Pool {
    idle: Vec<Connection>,
    open: usize,
}

/// A read for a reader thread: it takes a connection, runs, and answers its caller.
type Job = Box<dyn FnOnce(&Shared) + Send>;

/// The reader threads and the channel that feeds them. The gate admits at most
/// [`READ_POOL`] reads at once, so a read sent here finds a thread free or about to be.
struct Crew {
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    threads: Vec<JoinHandle<()>>,
}

impl Crew {
    fn start(shared: &Arc<Shared>) -> Crew {
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        let threads = (0..READ_POOL)
            .map(|n| {
                let (queue, shared) = (queue.clone(), shared.clone());
                std::thread::Builder::new()
                    .name(format!("adcab-reader-{n}"))
                    .spawn(move || loop {
                        let next = queue.lock().unwrap_or_else(|p| p.into_inner()).recv();
                        match next {
                            Ok(job) => job(&shared),
                            Err(mpsc::RecvError) => return,
                        }
                    })
                    .expect("a reader thread starts")
            })
            .collect();
        Crew {
            jobs: Mutex::new(Some(jobs)),
            threads,
        }
    }

    /// Hands `job` to a reader thread; false when they have stopped.
    fn send(&self, job: Job) -> bool {
        let jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        jobs.as_ref().is_some_and(|jobs| jobs.send(job).is_ok())
    }
}

impl Drop for Readers {
    /// Stops the reader threads and waits for them, so the connections they hold are closed
    /// when the last handle on the database goes.
    fn drop(&mut self) {
        let Some(crew) = self.crew.take() else {
            return;
        };
        crew.jobs.lock().unwrap_or_else(|p| p.into_inner()).take();
        let here = std::thread::current().id();
        for thread in crew.threads {
            // The last handle may go with a read a reader thread itself drops; that thread
            // ends on its own once this returns.
            if thread.thread().id() != here {
                let _ = thread.join();
            }
        }
    }
}

impl Readers {
    pub(super) fn new(path: &Path) -> Readers {
        Readers {
            shared: Arc::new(Shared {
                path: path.to_path_buf(),
                pool: Mutex::new(Pool {
                    idle: Vec::new(),
                    open: 0,
                }),
                returned: Condvar::new(),
            }),
            gate: Gate::new(READ_POOL, READ_QUEUE),
            crew: OnceLock::new(),
        }
    }
}

impl Shared {
    /// An idle read connection, a new one while fewer than [`READ_POOL`] are open, or else
    /// the next one handed back within [`WAIT`]. The lease hands it back when dropped, even
    /// on a panic.
    fn take(&self) -> Result<Lease<'_>, StoreError> {
        let deadline = Instant::now() + WAIT;
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(conn) = pool.idle.pop() {
                return Ok(Lease {
                    shared: self,
                    conn: Some(conn),
                });
            }
            if pool.open < READ_POOL {
                pool.open += 1;
                drop(pool);
                return match open_connection(&self.path) {
                    Ok(conn) => Ok(Lease {
                        shared: self,
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

    /// Runs `f` on a read connection, in one read transaction: its statements read one
    /// snapshot of the database, and SQLite takes its read locks once for all of them rather
    /// than for each (a few system calls on the database and its shared-memory file each time:
    /// a quarter of the home page's reading, which runs some 30 statements). The transaction
    /// keeps nothing, so it ends the same whether `f` succeeds or fails.
    fn run<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        let lease = self.take()?;
        let conn = lease.conn.as_ref().expect("a lease holds its connection");
        let snapshot = conn.unchecked_transaction().map_err(StoreError::from)?;
        let outcome = f(conn);
        snapshot.finish().map_err(StoreError::from)?;
        outcome
    }
}

/// A read's outcome, or the panic it raised.
type Outcome<T> = Result<T, Box<dyn Any + Send>>;

impl Db {
    /// Runs `f` on a read connection, on a reader thread. `Busy` when the read queue is full
    /// or no connection frees up in time. The caller's error type `E` takes the store's. A
    /// panic in `f` carries on in the caller, as if `f` had run there.
    pub async fn read<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Connection) -> Result<T, E> + Send + 'static,
    {
        let readers = &self.inner.readers;
        let permit = readers.gate.enter(WAIT).await?;
        let (answer, answered) = oneshot::channel::<Outcome<Result<T, E>>>();
        let job: Job = Box::new(move |shared: &Shared| {
            let outcome = catch_unwind(AssertUnwindSafe(|| shared.run(f)));
            // The place goes once the connection is back, so the next read admitted finds it.
            drop(permit);
            // A caller that went away no longer wants the answer.
            let _ = answer.send(outcome);
        });
        let crew = readers.crew.get_or_init(|| Crew::start(&readers.shared));
        if !crew.send(job) {
            return Err(StoreError::Failed("the database readers have stopped".into()).into());
        }
        match answered.await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(panic)) => resume_unwind(panic),
            Err(_) => Err(StoreError::Failed("the database readers have stopped".into()).into()),
        }
    }

    /// The blocking form of [`Db::read`], for code already on a blocking thread: `f` runs on
    /// the caller's thread.
    pub fn read_blocking<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        self.inner.readers.shared.run(f)
    }
}

/// A read connection on loan from the pool.
struct Lease<'a> {
    shared: &'a Shared,
    conn: Option<Connection>,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            let mut pool = self.shared.pool.lock().unwrap_or_else(|p| p.into_inner());
            pool.idle.push(conn);
            self.shared.returned.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Open;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    }

    /// The kernel's id of the thread calling it (`/proc/thread-self` is `<pid>/task/<tid>`).
    fn tid() -> String {
        let link = std::fs::read_link("/proc/thread-self").unwrap();
        link.file_name().unwrap().to_string_lossy().into_owned()
    }

    #[test]
    fn a_burst_of_reads_runs_on_the_reader_threads_alone() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("r.db"), Open::Create).unwrap();
        let rt = runtime();
        let ran_on = rt.block_on(async {
            let reads: Vec<_> = (0..400)
                .map(|_| {
                    let db = db.clone();
                    tokio::spawn(async move {
                        db.read(|c| {
                            c.query_row("SELECT 1", [], |r| r.get::<_, i64>(0))?;
                            let name = std::thread::current().name().map(String::from);
                            Ok::<_, StoreError>((name, tid()))
                        })
                        .await
                    })
                })
                .collect();
            let mut ran_on = Vec::new();
            for read in reads {
                ran_on.push(read.await.unwrap().unwrap());
            }
            ran_on
        });
        let mut threads: Vec<String> = ran_on
            .into_iter()
            .map(|(name, tid)| {
                let name = name.unwrap_or_default();
                assert!(name.starts_with("adcab-reader-"), "a read ran on {name:?}");
                tid
            })
            .collect();
        threads.sort();
        threads.dedup();
        assert!(threads.len() <= READ_POOL, "{threads:?}");
        drop(db);
        for tid in &threads {
            assert!(
                !Path::new(&format!("/proc/self/task/{tid}")).exists(),
                "reader thread {tid} outlived the last handle"
            );
        }
    }

    #[test]
    fn a_panic_in_a_read_carries_on_in_its_caller_and_the_reader_lives_on() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("p.db"), Open::Create).unwrap();
        let rt = runtime();
        let d = db.clone();
        let panicked = rt.block_on(async move {
            tokio::spawn(async move {
                d.read(|_| -> Result<(), StoreError> { panic!("a read gave up") })
                    .await
            })
            .await
        });
        let panic = panicked.unwrap_err().into_panic();
        assert_eq!(crate::db::panic_text(panic), "a read gave up");
        for _ in 0..2 * READ_POOL {
            let one = rt
                .block_on(db.read(|c| {
                    Ok::<_, StoreError>(c.query_row("SELECT 1", [], |r| r.get::<_, i64>(0))?)
                }))
                .unwrap();
            assert_eq!(one, 1);
        }
    }
}
