//! Owns the writer thread's work: each operation in a transaction of its own; a panic in an
//! operation is caught, rolled back and handed to its caller, so the thread lives on.

use std::panic::{catch_unwind, AssertUnwindSafe};

use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::queue::{Queue, Queued};
use super::{Panic, Yield, ON_WRITER};
use crate::db::figures::{Generations, Watched};
use crate::db::StoreError;

/// The writer thread: runs what the queue holds until it is closed and empty; the write
/// connection is closed when it returns.
pub(super) fn serve(conn: Connection, queue: &Queue) {
    ON_WRITER.set(true);
    let mut watched = Watched::new(conn);
    let (conn, generations) = watched.parts();
    while let Some(op) = queue.next() {
        alone(conn, generations, queue, op);
    }
}

fn begin(conn: &mut Connection) -> Result<Transaction<'_>, StoreError> {
    Ok(conn.transaction_with_behavior(TransactionBehavior::Immediate)?)
}

/// Runs an operation, catching a panic in it so that the writer lives on.
fn attempt(op: &mut Queued, tx: &Transaction, queue: &Queue) -> Result<bool, Panic> {
    catch_unwind(AssertUnwindSafe(|| op.job.run(tx, &Yield(queue))))
}

/// One operation in a transaction of its own, committed when it succeeded, with the
/// generations of the cabinets whose figures it changed.
fn alone(conn: &mut Connection, generations: &Generations, queue: &Queue, mut op: Queued) {
    let finished = match begin(conn) {
        Err(e) => {
            op.job.fail(e);
            Ok(())
        }
        Ok(tx) => match attempt(&mut op, &tx, queue) {
            Ok(true) => {
                if let Err(e) = generations.write(&tx) {
                    op.job.fail(e);
                } else if let Err(e) = tx.commit() {
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
