//! Owns SQLite: opening the database (only `serve` and `init` create one; its schema is brought
//! up to date by `schema`), the service's pragmas, and running statements off the async runtime
//! with backpressure: one writer and a small read pool, each waited for with a deadline, and
//! async callers admitted through bounded queues so that a burst is answered "busy" instead of
//! piling up blocked threads. It knows nothing of tables beyond the migration ledger.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, Transaction};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub mod backup;
mod error;
pub mod schema;

pub use error::StoreError;

/// Read connections kept open; a read waits for one when all are busy.
const READ_POOL: usize = 8;
/// How long SQLite itself waits for a lock another process (the panel) holds.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a caller waits for the writer or a read connection before it is told "busy".
const WAIT: Duration = Duration::from_secs(10);
/// Async callers that may wait for the writer, and for a read connection, at one time;
/// one more is refused at once.
const WRITE_QUEUE: usize = 256;
const READ_QUEUE: usize = 512;

/// A commit that leaves more than this many pages in the write-ahead log copies them into the
/// database itself (SQLite's default is 1,000). `serve` checkpoints in the background every
/// [`CHECKPOINT_EVERY`], so commits only pay for it when that falls behind.
const AUTOCHECKPOINT_PAGES: i64 = 20_000;

/// Each connection reads the first this-many bytes of the database through a memory map
/// (`mmap_size`): a page it reads is the operating system's cached page itself, not a copy
/// made by a `pread` call into the connection's own 2 MB cache. A list page over a hundred
/// cabinets reads pages all over the table; with the copies, a third of its time was in the
/// kernel. The map is shared by every connection and process; it costs address space, not
/// memory. It covers 16 GiB, several times the size a year of 10,000 campaigns reaches under
/// the default retention (about 2 GB): newly written pages sit at the end of the file, and
/// with a smaller map the hottest ones would be the ones read by copy. (SQLite's own ceiling
/// is 2 GiB unless raised at build time: `SQLITE_MAX_MMAP_SIZE` in `.cargo/config.toml`.)
const MMAP_BYTES: i64 = 16 << 30;
/// How often `serve` copies the write-ahead log into the database.
pub const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);
/// How long the quick check at start may read the file. A small database is read whole in
/// well under a second; on a large one (several GB) the check stops here, so that a start
/// never waits long for it, and says it did not finish.
pub const INTEGRITY_BUDGET: Duration = Duration::from_secs(5);

/// How a database file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    /// Create the file (and its folder) when it is missing, private to its owner: `serve` and
    /// `init`.
    Create,
    /// The file must exist: every other command, so a wrong path never yields an empty database.
    Existing,
}

/// A handle on the database file. Cheap to clone; every call runs on a blocking thread.
#[derive(Clone)]
pub struct Db {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    writer: parking_lot::Mutex<Connection>,
    readers: Mutex<Readers>,
    /// Signalled when a read connection is handed back.
    returned: Condvar,
    write_gate: Gate,
    read_gate: Gate,
    /// Callers on blocking threads waiting for the writer (the simulator's writes inside a
    /// request, the worker, the sync), which a yielding write gives way to as it does to the
    /// gate's queue.
    blocked: AtomicUsize,
    /// What [`Db::check_integrity`] found, once it found no damage.
    integrity: OnceLock<schema::Integrity>,
}

/// Idle read connections, and how many are open in all.
struct Readers {
    idle: Vec<Connection>,
    open: usize,
}

impl Db {
    /// Opens the database at `path` and brings its schema up to date. Errors are sentences
    /// for the operator, naming the file.
    pub fn open(path: &Path, how: Open) -> Result<Db, String> {
        Db::open_upgrading(path, how, None)
    }

    /// [`Db::open`], first taking a backup into `backups` when the database has tables and
    /// migrations of this binary are still to be applied to it; it refuses to migrate when
    /// the backup fails.
    pub fn open_upgrading(path: &Path, how: Open, backups: Option<&Path>) -> Result<Db, String> {
        let shown = path.display();
        match how {
            Open::Existing if !path.exists() => {
                return Err(format!(
                    "there is no database at {shown}; check [storage] path in the config (relative paths are read from the config file's folder), or create it with `adcab init`"
                ))
            }
            Open::Existing => {}
            Open::Create => create_private(path)?,
        }
        let mut writer = open_connection(path)
            .map_err(|e| format!("cannot open the database at {shown}: {}", sentence(&e)))?;
        if let Some(dir) = backups {
            backup_before_migrating(&writer, path, dir)
                .map_err(|e| format!("the database at {shown}: {e}"))?;
        }
        schema::migrate(&mut writer).map_err(|e| format!("the database at {shown}: {e}"))?;
        Ok(Db {
            inner: Arc::new(Inner {
                path: path.to_path_buf(),
                writer: parking_lot::Mutex::new(writer),
                readers: Mutex::new(Readers {
                    idle: Vec::new(),
                    open: 0,
                }),
                returned: Condvar::new(),
                write_gate: Gate::new(1, WRITE_QUEUE),
                read_gate: Gate::new(READ_POOL, READ_QUEUE),
                blocked: AtomicUsize::new(0),
                integrity: OnceLock::new(),
            }),
        })
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Copies what it can of the write-ahead log into the database without waiting for anyone
    /// (a passive checkpoint). Returns the frames in the log and how many are now copied.
    pub fn checkpoint(&self) -> Result<(i64, i64), StoreError> {
        self.read_blocking(|c| {
            Ok(c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                Ok((r.get(1)?, r.get(2)?))
            })?)
        })
    }

    /// The folder beside the database where uploads are kept.
    pub fn media_folder(&self) -> PathBuf {
        media_folder(&self.inner.path)
    }

    /// Proves the database takes writes (records the schema version in its header), so a
    /// read-only file is reported before the server says it is serving.
    pub fn check_writable(&self) -> Result<(), String> {
        self.write_blocking(|tx| schema::stamp_version(tx))
            .map_err(|e| {
                format!(
                    "the database at {} does not take writes: {e}",
                    self.path().display()
                )
            })
    }

    /// SQLite's quick check of the file (every page's structure, at most [`INTEGRITY_BUDGET`]),
    /// run once for this handle and remembered: `serve` runs it before its first write and its
    /// readiness reports it. Damage, or a check that could not run, is an error naming the file.
    pub fn check_integrity(&self) -> Result<schema::Integrity, String> {
        if let Some(found) = self.inner.integrity.get() {
            return Ok(*found);
        }
        let found = schema::quick_check(&self.inner.path, INTEGRITY_BUDGET)
            .map_err(|e| format!("the database at {}: {e}", self.path().display()))?;
        Ok(*self.inner.integrity.get_or_init(|| found))
    }

    /// Runs `f` on a read connection, off the async runtime. `Busy` when the read queue is
    /// full or no connection frees up in time. The caller's error type `E` takes the store's.
    pub async fn read<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Connection) -> Result<T, E> + Send + 'static,
    {
        let permit = self.inner.read_gate.enter(WAIT).await?;
        let db = self.clone();
        in_request(move || {
            let _permit = permit;
            db.read_blocking(f)
        })
        .await
    }

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
        let permit = self.inner.write_gate.enter(WAIT).await?;
        let db = self.clone();
        in_request(move || {
            let _permit = permit;
            let queued = Yield(&db.inner);
            db.write_blocking(|tx| f(tx, &queued))
        })
        .await
    }

    /// The blocking form of [`Db::read`], for code already on a blocking thread.
    pub fn read_blocking<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        let lease = self.take_reader()?;
        f(lease.conn.as_ref().expect("a lease holds its connection"))
    }

    /// An idle read connection, a new one while fewer than [`READ_POOL`] are open, or else
    /// the next one handed back within [`WAIT`]. The lease hands it back when dropped, even
    /// on a panic.
    fn take_reader(&self) -> Result<Lease<'_>, StoreError> {
        let deadline = Instant::now() + WAIT;
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
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(StoreError::Busy);
            }
            readers = self
                .inner
                .returned
                .wait_timeout(readers, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// The blocking form of [`Db::write`], for code already on a blocking thread. Waits at
    /// most [`WAIT`] for the writer.
    pub fn write_blocking<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Transaction) -> Result<T, E>,
    ) -> Result<T, E> {
        let _held = WriterHeld::take();
        let mut conn = match self.inner.writer.try_lock() {
            Some(conn) => conn,
            None => {
                let _waiting = Waiting::join(&self.inner.blocked, usize::MAX)?;
                self.inner
                    .writer
                    .try_lock_for(WAIT)
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

/// Copies the write-ahead log into the database every [`CHECKPOINT_EVERY`] until `stop` turns
/// true, without waiting for readers or writers (a passive checkpoint), so that no request's
/// commit pays for copying what many commits wrote (the hourly sync writes thousands of
/// pages).
pub async fn checkpoints(db: Db, mut stop: tokio::sync::watch::Receiver<bool>) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(CHECKPOINT_EVERY) => {}
            _ = stop.changed() => return,
        }
        let db = db.clone();
        match blocking(move || db.checkpoint()).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "checkpoint failed"),
            Err(panic) => tracing::error!(panic, "checkpoint panicked"),
        }
    }
}

/// What a [`Db::write_yielding`] transaction looks at between steps: whether anyone waits
/// for the writer.
pub struct Yield<'a>(&'a Inner);

impl Yield<'_> {
    /// True when anyone waits for the writer: a request in the gate's queue, or a caller on a
    /// blocking thread.
    pub fn wanted(&self) -> bool {
        self.0.write_gate.waiting.load(Ordering::SeqCst) > 0
            || self.0.blocked.load(Ordering::SeqCst) > 0
    }
}

/// Admission of async callers to a scarce resource: at most `permits` hold it at once, at
/// most `queue` wait for it, each for a bounded time. Anyone beyond is refused with `Busy`.
pub struct Gate {
    permits: Arc<Semaphore>,
    waiting: AtomicUsize,
    queue: usize,
}

impl Gate {
    pub fn new(permits: usize, queue: usize) -> Gate {
        Gate {
            permits: Arc::new(Semaphore::new(permits)),
            waiting: AtomicUsize::new(0),
            queue,
        }
    }

    /// A permit, held until dropped (move it into the blocking work it guards), waited for
    /// at most `wait`.
    pub async fn enter(&self, wait: Duration) -> Result<OwnedSemaphorePermit, StoreError> {
        if let Ok(permit) = self.permits.clone().try_acquire_owned() {
            return Ok(permit);
        }
        let _waiting = Waiting::join(&self.waiting, self.queue)?;
        match tokio::time::timeout(wait, self.permits.clone().acquire_owned()).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(_)) | Err(_) => Err(StoreError::Busy),
        }
    }
}

/// One place in a gate's queue, given back when the waiter leaves (even when cancelled).
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn join(count: &'a AtomicUsize, queue: usize) -> Result<Waiting<'a>, StoreError> {
        if count.fetch_add(1, Ordering::SeqCst) >= queue {
            count.fetch_sub(1, Ordering::SeqCst);
            return Err(StoreError::Busy);
        }
        Ok(Waiting(count))
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
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

/// Runs blocking work of a background loop on tokio's blocking pool; `Err` carries what a
/// panic there said, so the loop can log it and go on.
pub async fn blocking<T, F>(f: F) -> Result<T, String>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| match e.try_into_panic() {
            Ok(panic) => panic_text(panic),
            Err(e) => e.to_string(),
        })
}

/// Runs blocking work of a request on tokio's blocking pool; a panic there carries on in the
/// request, as if the work had run inline (the request answers it `500`).
pub async fn in_request<T, F>(f: F) -> T
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(value) => value,
        Err(e) => match e.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(e) => panic!("blocking work was cancelled: {e}"),
        },
    }
}

/// The message a panic carried.
pub fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Temporary files of uploads still being received start with this.
pub const PARTIAL_UPLOAD: &str = ".upload-";

/// The folder beside the database at `db_path` where uploads are kept.
pub fn media_folder(db_path: &Path) -> PathBuf {
    db_path.parent().unwrap_or(Path::new(".")).join("media")
}

/// Creates the database file at `path` when it is missing, and its folder when that is missing
/// too, private to their owner whatever the umask (SQLite gives the file's write-ahead log
/// and shared memory the file's own mode).
fn create_private(path: &Path) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        crate::primitives::private_dir(dir)
            .map_err(|e| format!("cannot create the folder {}: {e}", dir.display()))?;
    }
    match crate::primitives::private_file(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(format!(
            "cannot create the database {}: {e}",
            path.display()
        )),
    }
}

/// Takes a backup of a database with tables into `dir` when migrations are pending for it.
fn backup_before_migrating(conn: &Connection, path: &Path, dir: &Path) -> Result<(), String> {
    let from = schema::current(conn).map_err(|e| sentence(&e))?;
    let pending = schema::pending(conn).map_err(|e| e.to_string())?;
    if from == 0 || pending == 0 {
        return Ok(());
    }
    let to = dir.join(backup::name(
        backup::Kind::BeforeMigration { from },
        &backup::stamp_now(),
    ));
    let report = backup::snapshot(conn, path, &to)
        .map_err(|e| format!("the backup before migrating failed, so nothing was migrated: {e}"))?;
    tracing::info!(backup = %report.path, from, to = schema::version(), "backed up before migrating");
    Ok(())
}

/// Opens one connection with WAL, a busy timeout, foreign keys, `synchronous=NORMAL` and a
/// memory map of the file.
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
    conn.pragma_update(None, "wal_autocheckpoint", AUTOCHECKPOINT_PAGES)?;
    conn.pragma_update(None, "mmap_size", MMAP_BYTES)?;
    Ok(())
}

/// A SQLite error as a sentence for the operator: a lock held elsewhere and a file that is
/// not a database are said plainly.
pub fn sentence(e: &rusqlite::Error) -> String {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
            "it is locked by another process (a server or panel command busy with it); try again"
                .into()
        }
        Some(rusqlite::ErrorCode::NotADatabase) => "the file is not an adcab database".into(),
        Some(rusqlite::ErrorCode::ReadOnly) => "the file is read-only for this user".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_up_to_date_database_opens_without_a_write_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        drop(Db::open(&path, Open::Create).unwrap());
        let holder = open_connection(&path).unwrap();
        holder.execute_batch("BEGIN IMMEDIATE").unwrap();
        let started = Instant::now();
        let opened = Db::open(&path, Open::Existing);
        assert!(opened.is_ok(), "{:?}", opened.err());
        assert!(
            started.elapsed() < BUSY_TIMEOUT,
            "opening waited for the writer held elsewhere"
        );
        holder.execute_batch("ROLLBACK").unwrap();
    }

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
    fn only_create_makes_a_missing_database() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("m.db");
        let err = Db::open(&path, Open::Existing).err().unwrap();
        assert!(err.contains(&path.display().to_string()), "{err}");
        assert!(!path.exists());
        Db::open(&path, Open::Create).unwrap();
        assert!(path.exists());
    }

    #[test]
    fn a_created_database_its_folder_log_and_shared_memory_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data").join("p.db");
        let db = Db::open(&path, Open::Create).unwrap();
        db.write_blocking(|tx| schema::stamp_version(tx)).unwrap();
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        for file in ["p.db", "p.db-wal", "p.db-shm"] {
            assert_eq!(mode(&dir.path().join("data").join(file)), 0o600, "{file}");
        }
    }

    #[test]
    fn commits_leave_pages_in_the_log_until_a_checkpoint_copies_them() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("c.db"), Open::Create).unwrap();
        db.checkpoint().unwrap();
        for i in 0..50 {
            db.write_blocking(|tx| {
                Ok::<_, StoreError>(tx.execute(
                    "INSERT INTO users (email, plan, created_at) VALUES (?1, 'pro', 'x')",
                    [format!("u{i}@x")],
                )?)
            })
            .unwrap();
        }
        let (log, copied) = db.checkpoint().unwrap();
        assert!(log >= 50, "each commit left its pages in the log: {log}");
        assert_eq!(
            copied, log,
            "a passive checkpoint copies them when nobody reads"
        );
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

    #[tokio::test]
    async fn a_gate_lets_one_wait_refuses_the_next_and_gives_up_in_time() {
        let gate = Arc::new(Gate::new(1, 1));
        let held = gate.enter(WAIT).await.unwrap();
        let g = gate.clone();
        let waiter = tokio::spawn(async move { g.enter(WAIT).await.map(drop) });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let started = Instant::now();
        assert!(matches!(gate.enter(WAIT).await, Err(StoreError::Busy)));
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "refused at once"
        );
        drop(held);
        assert!(waiter.await.unwrap().is_ok(), "the waiter gets the permit");
        let _held = gate.enter(WAIT).await.unwrap();
        let started = Instant::now();
        assert!(matches!(
            gate.enter(Duration::from_millis(100)).await,
            Err(StoreError::Busy)
        ));
        assert!(
            started.elapsed() >= Duration::from_millis(100),
            "it waited first"
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
        let mapped: i64 = conn
            .query_row("PRAGMA mmap_size", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mapped, MMAP_BYTES);
        assert_eq!(mode, "wal");
        assert_eq!(fk, 1);
        assert_eq!(sync, 1, "NORMAL");
        assert_eq!(busy, 5000);
    }
}
