//! Owns SQLite: opening the database (only `serve` and `init` create one; its schema is brought
//! up to date by `schema`), the service's pragmas, and the handle every caller shares: one
//! writer thread behind a bounded queue (`writer`) and a small read pool (`readers`), so that
//! statements run off the async runtime and a burst is answered "busy" instead of piling up
//! blocked threads. It knows nothing of tables beyond the migration ledger.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

pub mod backup;
mod error;
pub mod figures;
mod gate;
mod offload;
mod readers;
pub mod schema;
mod writer;

pub use error::{OpenError, StoreError};
pub use gate::Gate;
use offload::background_priority;
pub use offload::{blocking, in_background, in_request, panic_text, Panicked};
pub use writer::Yield;

/// How long SQLite itself waits for a lock another process (the panel) holds.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A commit that leaves more than this many pages in the write-ahead log copies them into the
/// database itself (SQLite's default is 1,000), for the commands that write without `serve`.
const AUTOCHECKPOINT_PAGES: i64 = 20_000;
/// While `serve` checkpoints in the background ([`checkpoints`]), the writer's commits copy the
/// log themselves only past this many pages (1 GiB of 4 KiB pages), a guard against a log that
/// no background checkpoint could empty. Below it no commit copies pages and waits for their
/// `fsync` while it holds the writer: during a retention pass the log passed
/// [`AUTOCHECKPOINT_PAGES`], and the request whose commit crossed it waited 50-80 ms.
const SERVE_AUTOCHECKPOINT_PAGES: i64 = 250_000;

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
/// Statements each connection keeps prepared (`prepare_cached`), least recently used dropped
/// first: more than the service has (about 200 places prepare one), so a statement is prepared
/// once per connection, not per request. With rusqlite's default of 16, a page that runs more
/// than 16 statements (the home page runs about 30) prepared most of them again on every
/// request: a fifth of the home page's time was SQLite parsing SQL.
const STATEMENT_CACHE: usize = 512;
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

/// A handle on the database file. Cheap to clone; the writer thread ends, and the file is
/// closed, when the last handle goes.
#[derive(Clone)]
pub struct Db {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    writer: writer::Writer,
    readers: readers::Readers,
    /// The cabinets' orders by a figure, kept by the readers.
    figure_orders: Arc<figures::Orders>,
    /// What [`Db::check_integrity`] found, once it found no damage.
    integrity: OnceLock<schema::Integrity>,
}

impl Db {
    /// Opens the database at `path` and brings its schema up to date.
    pub fn open(path: &Path, how: Open) -> Result<Db, OpenError> {
        Db::open_upgrading(path, how, None)
    }

    /// [`Db::open`], first taking a backup into `backups` when the database has tables and
    /// migrations of this binary are still to be applied to it; it refuses to migrate when
    /// the backup fails.
    pub fn open_upgrading(path: &Path, how: Open, backups: Option<&Path>) -> Result<Db, OpenError> {
        match how {
            Open::Existing if !path.exists() => {
                return Err(OpenError::Missing {
                    path: path.to_path_buf(),
                })
            }
            Open::Existing => {}
            Open::Create => create_private(path)?,
        }
        let mut conn = open_connection(path).map_err(|source| OpenError::Connect {
            path: path.to_path_buf(),
            source,
        })?;
        if let Some(dir) = backups {
            backup_before_migrating(&conn, path, dir)?;
        }
        schema::migrate(&mut conn).map_err(|reason| OpenError::Migrate {
            path: path.to_path_buf(),
            reason,
        })?;
        // The writer's statement journals (a statement inside a longer transaction keeps the
        // pages it first changes, to be undone alone) and temporary tables stay in memory,
        // rather than in temporary files once they pass 64 KiB.
        conn.pragma_update(None, "temp_store", "MEMORY")
            .map_err(|source| OpenError::Connect {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(Db {
            inner: Arc::new(Inner {
                path: path.to_path_buf(),
                writer: writer::Writer::start(conn, writer::QUEUE, writer::WAIT),
                readers: readers::Readers::new(path),
                figure_orders: Arc::default(),
                integrity: OnceLock::new(),
            }),
        })
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The cabinets' orders by a figure, for reads of this database to share.
    pub fn figure_orders(&self) -> Arc<figures::Orders> {
        self.inner.figure_orders.clone()
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
    pub fn check_writable(&self) -> Result<(), OpenError> {
        self.write_blocking(|tx| schema::stamp_version(tx))
            .map_err(|source| OpenError::NotWritable {
                path: self.path().to_path_buf(),
                source,
            })
    }

    /// SQLite's quick check of the file (every page's structure, at most [`INTEGRITY_BUDGET`]),
    /// run once for this handle and remembered: `serve` runs it before its first write and its
    /// readiness reports it. Damage, or a check that could not run, is an error naming the file.
    pub fn check_integrity(&self) -> Result<schema::Integrity, OpenError> {
        if let Some(found) = self.inner.integrity.get() {
            return Ok(*found);
        }
        let found = schema::quick_check(&self.inner.path, INTEGRITY_BUDGET).map_err(|reason| {
            OpenError::Damaged {
                path: self.path().to_path_buf(),
                reason,
            }
        })?;
        Ok(*self.inner.integrity.get_or_init(|| found))
    }
}

/// Copies the write-ahead log into the database every [`CHECKPOINT_EVERY`] until `stop` turns
/// true, without waiting for readers or writers (a passive checkpoint, on a read connection),
/// so that no request's commit pays for copying what many commits wrote (the hourly sync and
/// a retention pass write thousands of pages): meanwhile the writer's own commits checkpoint
/// only past [`SERVE_AUTOCHECKPOINT_PAGES`]. The copying runs on a thread of its own at the
/// background priority ([`background_priority`]): when the cores are short, the writer whose
/// pages it copies and the requests go first (during the hourly sync it took a core from the
/// writer for 0.4 s an hour).
pub async fn checkpoints(db: Db, mut stop: tokio::sync::watch::Receiver<bool>) {
    let (stopping, stopped) = std::sync::mpsc::channel::<()>();
    let copier = {
        let db = db.clone();
        std::thread::Builder::new()
            .name("adcab-wal".into())
            .spawn(move || copy_log(&db, &stopped))
    };
    let copier = match copier {
        Ok(copier) => copier,
        Err(e) => {
            tracing::error!(error = %e, "no checkpoint thread: the writer's commits copy the log");
            return;
        }
    };
    autocheckpoint(&db, SERVE_AUTOCHECKPOINT_PAGES).await;
    let _ = stop.changed().await;
    drop(stopping);
    if let Err(panic) = blocking(move || copier.join()).await {
        tracing::error!(%panic, "waiting for the checkpoint thread failed");
    }
    autocheckpoint(&db, AUTOCHECKPOINT_PAGES).await;
}

/// The checkpoint thread's loop: a passive checkpoint every [`CHECKPOINT_EVERY`] until the
/// other end of `stop` goes away.
fn copy_log(db: &Db, stop: &std::sync::mpsc::Receiver<()>) {
    background_priority();
    while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(CHECKPOINT_EVERY)
    {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| db.checkpoint())) {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "checkpoint failed"),
            Err(panic) => tracing::error!(panic = %panic_text(panic), "checkpoint panicked"),
        }
    }
}

/// Sets the pages past which the writer's commits checkpoint the log themselves.
async fn autocheckpoint(db: &Db, pages: i64) {
    let db = db.clone();
    let set = blocking(move || {
        db.write_blocking(|tx| {
            Ok::<_, StoreError>(tx.pragma_update(None, "wal_autocheckpoint", pages)?)
        })
    });
    match set.await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!(error = %e, "the writer's checkpoint threshold was not set"),
        Err(panic) => tracing::error!(%panic, "setting the checkpoint threshold panicked"),
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

/// Temporary files of uploads still being received start with this.
pub const PARTIAL_UPLOAD: &str = ".upload-";

/// The folder beside the database at `db_path` where uploads are kept.
pub fn media_folder(db_path: &Path) -> PathBuf {
    db_path.parent().unwrap_or(Path::new(".")).join("media")
}

/// The files SQLite keeps beside the database at `db_path` in WAL mode: its write-ahead log
/// and that log's shared-memory index.
pub fn log_files(db_path: &Path) -> [PathBuf; 2] {
    ["-wal", "-shm"].map(|suffix| {
        let mut name = db_path.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    })
}

/// Creates the database file at `path` when it is missing, and its folder when that is missing
/// too, private to their owner whatever the umask (SQLite gives the file's write-ahead log
/// and shared memory the file's own mode).
fn create_private(path: &Path) -> Result<(), OpenError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        crate::primitives::private_dir(dir).map_err(|source| OpenError::Folder {
            dir: dir.to_path_buf(),
            source,
        })?;
    }
    match crate::primitives::private_file(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(source) => Err(OpenError::File {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Takes a backup of a database with tables into `dir` when migrations are pending for it.
fn backup_before_migrating(conn: &Connection, path: &Path, dir: &Path) -> Result<(), OpenError> {
    let from = schema::current(conn).map_err(|source| OpenError::Version {
        path: path.to_path_buf(),
        source,
    })?;
    let pending = schema::pending(conn).map_err(|source| OpenError::Pending {
        path: path.to_path_buf(),
        source,
    })?;
    if from == 0 || pending == 0 {
        return Ok(());
    }
    let to = dir.join(backup::name(
        backup::Kind::BeforeMigration { from },
        &backup::stamp_now(),
    ));
    let report = backup::snapshot(conn, path, &to).map_err(|reason| OpenError::Backup {
        path: path.to_path_buf(),
        reason: Box::new(reason),
    })?;
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
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
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
    use std::time::Instant;

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
    fn a_connection_keeps_every_statement_it_prepared_for_the_next_use() {
        let dir = tempfile::tempdir().unwrap();
        let conn = open_connection(&dir.path().join("s.db")).unwrap();
        let statements: Vec<String> = (0..300).map(|i| format!("SELECT {i}")).collect();
        for sql in &statements {
            let mut stmt = conn.prepare_cached(sql).unwrap();
            assert_eq!(stmt.get_status(rusqlite::StatementStatus::Run), 0);
            stmt.query_row([], |r| r.get::<_, i64>(0)).unwrap();
        }
        // A statement taken from the cache is the one prepared and run above.
        let reused = statements
            .iter()
            .filter(|sql| {
                let stmt = conn.prepare_cached(sql).unwrap();
                stmt.get_status(rusqlite::StatementStatus::Run) == 1
            })
            .count();
        assert_eq!(reused, statements.len());
    }

    #[test]
    fn only_create_makes_a_missing_database() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("m.db");
        let err = Db::open(&path, Open::Existing).err().unwrap();
        let err = err.to_string();
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

    /// The nice value of a thread of this process named `name`.
    fn nice_of_thread_named(name: &str) -> Option<i32> {
        std::fs::read_dir("/proc/self/task")
            .unwrap()
            .find_map(|task| {
                let task = task.unwrap().path();
                let comm = std::fs::read_to_string(task.join("comm")).ok()?;
                (comm.trim_end() == name).then(|| offload::nice_in_stat(&task.join("stat")))
            })
    }

    #[test]
    fn while_serve_checkpoints_in_the_background_no_commit_copies_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("w.db"), Open::Create).unwrap();
        let threshold = |db: &Db| {
            db.write_blocking(|tx| {
                Ok::<i64, StoreError>(tx.query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0))?)
            })
            .unwrap()
        };
        assert_eq!(threshold(&db), AUTOCHECKPOINT_PAGES);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let running = rt.spawn(checkpoints(db.clone(), stopped));
        let raised = rt.block_on(async {
            for _ in 0..1000 {
                if threshold(&db) == SERVE_AUTOCHECKPOINT_PAGES {
                    return true;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            false
        });
        assert!(
            raised,
            "the background checkpoints raise the writer's threshold"
        );
        let lowered =
            offload::BACKGROUND_NICE.max(offload::nice_in_stat("/proc/thread-self/stat".as_ref()));
        // The thread lowers its own priority first thing; on a busy machine it may not have run
        // yet.
        let mut copier = None;
        for _ in 0..1000 {
            copier = nice_of_thread_named("adcab-wal");
            if copier == Some(lowered) {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(
            copier,
            Some(lowered),
            "it copies the log at the background priority"
        );
        stop.send(true).unwrap();
        rt.block_on(running).unwrap();
        assert_eq!(
            threshold(&db),
            AUTOCHECKPOINT_PAGES,
            "restored when it stops"
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
