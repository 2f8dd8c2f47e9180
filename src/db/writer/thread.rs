//! Owns the writer thread's work: each operation in a transaction of its own, or grouped ones
//! in one shared transaction, each in a savepoint; a panic in an operation is caught, rolled
//! back and handed to its caller, so the thread lives on.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};

use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::queue::{Queue, Queued, Turn};
use super::{Finished, Panic, Yield, ON_WRITER};
use crate::db::StoreError;

/// What the other operations of a shared transaction are told when SQLite rolled it back
/// after one of them failed.
const ROLLED_BACK: &str = "a write sharing this transaction failed and SQLite rolled it back";

/// The writer thread: runs what the queue holds until it is closed and empty; the write
/// connection is closed when it returns.
pub(super) fn serve(mut conn: Connection, queue: &Queue) {
    ON_WRITER.set(true);
    while let Some(turn) = queue.next() {
        match turn {
            Turn::Alone(op) => alone(&mut conn, queue, op),
            Turn::Group(ops) => grouped(&mut conn, queue, ops.into()),
        }
    }
}

fn begin(conn: &mut Connection) -> Result<Transaction<'_>, StoreError> {
    Ok(conn.transaction_with_behavior(TransactionBehavior::Immediate)?)
}

/// Runs an operation, catching a panic in it so that the writer lives on.
fn attempt(op: &mut Queued, tx: &Transaction, queue: &Queue) -> Result<bool, Panic> {
    catch_unwind(AssertUnwindSafe(|| op.job.run(tx, &Yield(queue))))
}

/// One operation in a transaction of its own, committed when it succeeded.
fn alone(conn: &mut Connection, queue: &Queue, mut op: Queued) {
    let finished = match begin(conn) {
        Err(e) => {
            op.job.fail(e);
            Ok(())
        }
        Ok(tx) => match attempt(&mut op, &tx, queue) {
            Ok(true) => {
                if let Err(e) = tx.commit() {
                    op.job.fail(e.into());
                }
                Ok(())
            }
            Ok(false) => Ok(()),
            Err(panic) => Err(panic),
        },
    };
    op.answer(finished);
}

/// Grouped operations in one transaction, each in a savepoint; all are answered after the
/// commit. Should SQLite roll the whole transaction back after a failure, the operations it
/// held are told so and the rest run in a new one.
fn grouped(conn: &mut Connection, queue: &Queue, mut rest: VecDeque<Queued>) {
    while !rest.is_empty() {
        let tx = match begin(conn) {
            Ok(tx) => tx,
            Err(e) => {
                for mut op in rest {
                    op.job.fail(e.shared());
                    op.answer(Ok(()));
                }
                return;
            }
        };
        let (mut kept, mut ended, mut lost) = (Vec::new(), Vec::new(), None);
        while let Some(mut op) = rest.pop_front() {
            match in_savepoint(&mut op, &tx, queue) {
                Step::Kept => kept.push(op),
                Step::Undone(finished) => ended.push((op, finished)),
                Step::Lost(e, finished) => {
                    ended.push((op, finished));
                    lost = Some(e);
                    break;
                }
            }
        }
        let committed = match lost {
            None => tx.commit().map_err(StoreError::from),
            Some(e) => {
                drop(tx);
                Err(e)
            }
        };
        for mut op in kept {
            if let Err(e) = &committed {
                op.job.fail(e.shared());
            }
            op.answer(Ok(()));
        }
        for (op, finished) in ended {
            op.answer(finished);
        }
    }
}

/// What became of a grouped operation in its savepoint.
enum Step {
    /// It succeeded; its writes wait for the commit.
    Kept,
    /// It failed (or panicked) and its writes alone were undone.
    Undone(Finished),
    /// The shared transaction is lost, with the error for the operations it held.
    Lost(StoreError, Finished),
}

fn in_savepoint(op: &mut Queued, tx: &Transaction, queue: &Queue) -> Step {
    if let Err(e) = tx.execute_batch("SAVEPOINT grouped") {
        let e = StoreError::from(e);
        op.job.fail(e.shared());
        return Step::Lost(e, Ok(()));
    }
    let finished = match attempt(op, tx, queue) {
        Ok(true) => match tx.execute_batch("RELEASE grouped") {
            Ok(()) => return Step::Kept,
            Err(e) => {
                let e = StoreError::from(e);
                op.job.fail(e.shared());
                return Step::Lost(e, Ok(()));
            }
        },
        Ok(false) => Ok(()),
        Err(panic) => Err(panic),
    };
    if tx.is_autocommit() {
        return Step::Lost(StoreError::Failed(ROLLED_BACK.into()), finished);
    }
    match tx.execute_batch("ROLLBACK TO grouped; RELEASE grouped") {
        Ok(()) => Step::Undone(finished),
        Err(e) => Step::Lost(e.into(), finished),
    }
}
