use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::*;
use crate::db::{open_connection, panic_text, Open};

/// A writer on a fresh file holding a table `t (n)`, with at most `capacity` operations
/// waiting, each for at most `wait`.
fn writer(dir: &Path, capacity: usize, wait: Duration) -> (Writer, PathBuf) {
    let path = dir.join("w.db");
    let conn = open_connection(&path).unwrap();
    conn.execute_batch("CREATE TABLE t (n INTEGER)").unwrap();
    (Writer::start(conn, capacity, wait), path)
}

fn insert(tx: &Transaction, n: i64) -> Result<(), StoreError> {
    tx.execute("INSERT INTO t (n) VALUES (?1)", [n])?;
    Ok(())
}

fn rows(conn: &Connection) -> Vec<i64> {
    let mut stmt = conn.prepare("SELECT n FROM t ORDER BY n").unwrap();
    let rows = stmt.query_map([], |r| r.get(0)).unwrap();
    rows.collect::<rusqlite::Result<_>>().unwrap()
}

fn waiting(writer: &Writer) -> usize {
    writer.queue.state.lock().waiting.len()
}

/// Runs `then` while an operation holds the writer; it lets go once `then` returns.
fn while_held<R>(writer: &Writer, then: impl FnOnce() -> R) -> R {
    let (holding, held) = mpsc::channel();
    let (release, released) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        let holder = s.spawn(move || {
            writer.run_blocking(move |_, _| {
                holding.send(()).unwrap();
                let _ = released.recv();
                Ok::<_, StoreError>(())
            })
        });
        held.recv().unwrap();
        let value = then();
        drop(release);
        holder
            .join()
            .unwrap()
            .expect("the holder, started, waits past the deadline");
        value
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_blocking_write_not_started_in_time_is_withdrawn_and_answered_busy() {
    let dir = tempfile::tempdir().unwrap();
    let (writer, _) = writer(dir.path(), 8, Duration::from_millis(200));
    let mut ran = false;
    let (refused, took) = while_held(&writer, || {
        let started = Instant::now();
        let refused = writer.run_blocking(|tx, _| {
            ran = true;
            insert(tx, 1)
        });
        (refused, started.elapsed())
    });
    assert!(matches!(refused, Err(StoreError::Busy)), "{refused:?}");
    assert!(
        took >= Duration::from_millis(200),
        "it waited first: {took:?}"
    );
    assert!(!ran, "the withdrawn write never ran");
    assert_eq!(waiting(&writer), 0, "nor is it left in the queue");
    writer
        .run_blocking(|tx, _| insert(tx, 2))
        .expect("the writer goes on");
}

#[test]
fn an_async_write_not_started_in_time_is_withdrawn_and_answered_busy() {
    let dir = tempfile::tempdir().unwrap();
    let (writer, _) = writer(dir.path(), 8, Duration::from_millis(200));
    let ran = Arc::new(AtomicBool::new(false));
    let runs = ran.clone();
    let refused = while_held(&writer, || {
        runtime().block_on(writer.run(move |tx, _| {
            runs.store(true, Ordering::SeqCst);
            insert(tx, 1)
        }))
    });
    assert!(matches!(refused, Err(StoreError::Busy)), "{refused:?}");
    assert!(!ran.load(Ordering::SeqCst), "the withdrawn write never ran");
    assert_eq!(waiting(&writer), 0);
}

#[test]
fn a_full_queue_answers_busy_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (writer, path) = writer(dir.path(), 1, Duration::from_secs(10));
    std::thread::scope(|s| {
        let (queued, refused, took) = while_held(&writer, || {
            let queued = s.spawn(|| writer.run_blocking(|tx, _| insert(tx, 1)));
            while waiting(&writer) == 0 {
                std::thread::yield_now();
            }
            let started = Instant::now();
            let refused = writer.run_blocking(|tx, _| insert(tx, 2));
            (queued, refused, started.elapsed())
        });
        assert!(matches!(refused, Err(StoreError::Busy)), "{refused:?}");
        assert!(took < Duration::from_secs(1), "refused at once: {took:?}");
        queued.join().unwrap().expect("the queued write runs");
    });
    assert_eq!(rows(&open_connection(&path).unwrap()), [1]);
}

#[test]
fn a_panicking_write_is_rolled_back_its_caller_panics_and_the_writer_lives_on() {
    let dir = tempfile::tempdir().unwrap();
    let (writer, path) = writer(dir.path(), 8, Duration::from_secs(10));
    let writer = Arc::new(writer);
    let panicked = catch_unwind(AssertUnwindSafe(|| {
        writer.run_blocking(|tx, _| -> Result<(), StoreError> {
            insert(tx, 1)?;
            panic!("boom")
        })
    }));
    assert_eq!(panic_text(panicked.unwrap_err()), "boom");
    let (in_task, rt) = (writer.clone(), runtime());
    let task = rt.block_on(rt.spawn(async move {
        in_task
            .run(|tx, _| -> Result<(), StoreError> {
                insert(tx, 2)?;
                panic!("boom again")
            })
            .await
    }));
    assert_eq!(panic_text(task.unwrap_err().into_panic()), "boom again");
    writer
        .run_blocking(|tx, _| insert(tx, 3))
        .expect("the writer lives on");
    assert_eq!(
        rows(&open_connection(&path).unwrap()),
        [3],
        "both rolled back"
    );
}

#[test]
fn dropping_the_last_handle_ends_the_writer_and_closes_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.db");
    let db = Db::open(&path, Open::Create).unwrap();
    db.write_blocking(|tx| crate::db::schema::stamp_version(tx))
        .unwrap();
    db.read_blocking(crate::db::schema::pending).unwrap();
    let log = dir.path().join("d.db-wal");
    assert!(log.exists());
    drop(db);
    assert!(
        !log.exists(),
        "the last connection to close removes the write-ahead log"
    );
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
