//! Owns the one writer: a thread that owns the write connection and runs, one at a time, the
//! operations every caller sends it through one bounded queue, each answered on its own reply
//! (awaited by async callers without taking a thread, waited for by blocking ones). Each
//! operation runs in a transaction of its own (conversion ingest sends the requests waiting
//! for it as one operation, `ops::ingest`). A full queue is answered "busy" at once; an operation not started within [`WAIT`] is withdrawn and
//! answered "busy". A panic in an operation rolls it back and carries on in its caller; the
//! writer lives on. A write asked for from inside a write (on the writer thread) would wait for
//! itself: it panics instead.

use std::any::Any;
use std::cell::Cell;
use std::panic::resume_unwind;
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::Mutex;
use rusqlite::{Connection, Transaction};
use tokio::sync::oneshot;

use super::{Db, StoreError};
use queue::{Queue, Reply};

mod queue;
#[cfg(test)]
mod tests;
mod thread;

/// Operations that may wait for the writer at one time; one more is refused at once.
pub(super) const QUEUE: usize = 256;
/// How long an operation may wait for the writer to start it; then it is withdrawn and its
/// caller told "busy".
pub(super) const WAIT: Duration = Duration::from_secs(10);

/// Said when a write is asked for on the writer thread, from inside a write.
const NESTED: &str =
    "nested write transaction on one thread: never call the platform or write inside Db::write";

impl Db {
    /// Runs `f` in one write transaction on the writer thread; an error rolls everything back.
    /// `Busy` when the writer's queue is full or `f` does not start within [`WAIT`].
    pub async fn write<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Transaction) -> Result<T, E> + Send + 'static,
    {
        self.inner.writer.run(move |tx, _| f(tx)).await
    }

    /// [`Db::write`] for long background work: `f` also gets a [`Yield`] that tells it when
    /// others are queued for the writer, so it can stop early, commit what it did and let
    /// them go first.
    pub async fn write_yielding<T, E, F>(&self, f: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Transaction, &Yield) -> Result<T, E> + Send + 'static,
    {
        self.inner.writer.run(f).await
    }

    /// The blocking form of [`Db::write`], for code already on a blocking thread; `f` may
    /// borrow the caller's stack. Waits at most [`WAIT`] for the writer to start it.
    pub fn write_blocking<T, E>(
        &self,
        f: impl FnOnce(&Transaction) -> Result<T, E> + Send,
    ) -> Result<T, E>
    where
        T: Send,
        E: From<StoreError> + Send,
    {
        self.inner.writer.run_blocking(move |tx, _| f(tx))
    }
}

/// What a [`Db::write_yielding`] transaction looks at between steps: whether anyone waits
/// for the writer.
pub struct Yield<'a>(&'a Queue);

impl Yield<'_> {
    /// True when anyone waits for the writer: an operation in its queue, from a request or a
    /// caller on a blocking thread.
    pub fn wanted(&self) -> bool {
        self.0.wanted()
    }
}

/// The writer thread and the queue in front of it. Dropping it ends the thread once the
/// queue is empty and waits for it, so the write connection is closed when the last handle
/// on the database goes.
pub(super) struct Writer {
    queue: Arc<Queue>,
    thread: Option<JoinHandle<()>>,
}

impl Writer {
    /// Starts the writer thread on `conn`, with at most `capacity` operations waiting, each
    /// for at most `wait`.
    pub(super) fn start(conn: Connection, capacity: usize, wait: Duration) -> Writer {
        let queue = Arc::new(Queue::new(capacity, wait));
        let serving = queue.clone();
        let thread = std::thread::Builder::new()
            .name("adcab-writer".into())
            .spawn(move || thread::serve(conn, &serving))
            .expect("the writer thread starts");
        Writer {
            queue,
            thread: Some(thread),
        }
    }

    /// Queues `work` and awaits its answer without holding a thread. A caller that goes away
    /// before its operation started takes it back.
    async fn run<T, E, F>(&self, work: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Transaction, &Yield) -> Result<T, E> + Send + 'static,
    {
        let (job, outcome) = job(work);
        let (reply, mut answered) = oneshot::channel();
        let place = self.queue.push(job, Reply::Async(reply))?;
        let finished = match tokio::time::timeout(self.queue.wait, &mut answered).await {
            Ok(finished) => finished.ok(),
            Err(_) if place.withdraw() => return Err(StoreError::Busy.into()),
            Err(_) => answered.await.ok(),
        };
        settle(&outcome, finished)
    }

    /// Queues `work`, which may borrow the caller's stack, and waits for its answer.
    fn run_blocking<'a, T, E, F>(&self, work: F) -> Result<T, E>
    where
        T: Send + 'a,
        E: From<StoreError> + Send + 'a,
        F: FnOnce(&Transaction, &Yield) -> Result<T, E> + Send + 'a,
    {
        let (job, outcome) = job(work);
        let (reply, answered) = mpsc::sync_channel(1);
        // SAFETY: the writer thread may hold the job only while this caller waits for it. From
        // the push below, this function does not return before the job is dropped: either the
        // writer answers (it drops the job before it replies, `Queued::answer`, and a `Queued`
        // dropped whole drops its job before its reply, as fields drop in order), or this
        // caller withdraws the job from the queue and drops it here (`Place::withdraw`, under
        // the queue's lock, so it is the writer's or the caller's, never both). Once the writer
        // took it, the caller waits without a deadline. Nothing in between can unwind (the
        // waits and the lock do not panic). The job is `Send`, so what it borrows may be used
        // on the writer thread.
        #[allow(unsafe_code)]
        let job = unsafe { std::mem::transmute::<Box<dyn Job + 'a>, Box<dyn Job>>(job) };
        let place = self.queue.push(job, Reply::Blocking(reply))?;
        let finished = match answered.recv_timeout(self.queue.wait) {
            Ok(finished) => Some(finished),
            Err(mpsc::RecvTimeoutError::Timeout) if place.withdraw() => {
                return Err(StoreError::Busy.into())
            }
            Err(mpsc::RecvTimeoutError::Timeout) => answered.recv().ok(),
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
        };
        settle(&outcome, finished)
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.queue.close();
        if let Some(thread) = self.thread.take() {
            // The last handle may go with an operation the writer thread itself drops; that
            // thread ends on its own once this returns.
            if thread.thread().id() != std::thread::current().id() {
                let _ = thread.join();
            }
        }
    }
}

thread_local! {
    /// True on the writer thread.
    static ON_WRITER: Cell<bool> = const { Cell::new(false) };
}

/// A write asked for on the writer thread (a platform call or a write inside a write
/// transaction) would wait for itself: it panics instead, and that operation's caller with it.
fn refuse_nested() {
    assert!(!ON_WRITER.get(), "{NESTED}");
}

/// A panic's payload, carried to the caller of the operation that raised it.
type Panic = Box<dyn Any + Send>;

/// How an operation ended: its outcome is in its slot, or it panicked.
type Finished = Result<(), Panic>;

/// Where an operation leaves its outcome for its caller.
type Slot<T, E> = Arc<Mutex<Option<Result<T, E>>>>;

/// The caller's outcome once answered: the operation's own, a panic carried on, or "failed"
/// when the writer stopped without answering.
fn settle<T, E: From<StoreError>>(
    outcome: &Slot<T, E>,
    finished: Option<Finished>,
) -> Result<T, E> {
    match finished {
        Some(Ok(())) => outcome
            .lock()
            .take()
            .expect("an answered operation leaves its outcome"),
        Some(Err(panic)) => resume_unwind(panic),
        None => Err(StoreError::Failed("the database writer has stopped".into()).into()),
    }
}

/// An operation for the writer, whatever its caller's types.
trait Job: Send {
    /// Runs the work in `tx`; true when it succeeded and its writes are to be kept.
    fn run(&mut self, tx: &Transaction, queue: &Yield) -> bool;
    /// Its writes were not kept after all (the transaction could not begin or commit): `e`
    /// becomes its outcome.
    fn fail(&mut self, e: StoreError);
}

/// The operation doing `work`, and the slot its outcome will be left in. Refused on the writer
/// thread (see [`refuse_nested`]).
fn job<'a, T, E, F>(work: F) -> (Box<dyn Job + 'a>, Slot<T, E>)
where
    T: Send + 'a,
    E: From<StoreError> + Send + 'a,
    F: FnOnce(&Transaction, &Yield) -> Result<T, E> + Send + 'a,
{
    refuse_nested();
    let outcome = Slot::default();
    let job = Box::new(Task {
        work: Some(work),
        outcome: outcome.clone(),
    });
    (job, outcome)
}

/// A caller's work and the slot for its outcome.
struct Task<F, T, E> {
    work: Option<F>,
    outcome: Slot<T, E>,
}

impl<F, T, E> Job for Task<F, T, E>
where
    F: FnOnce(&Transaction, &Yield) -> Result<T, E> + Send,
    T: Send,
    E: From<StoreError> + Send,
{
    fn run(&mut self, tx: &Transaction, queue: &Yield) -> bool {
        let work = self.work.take().expect("an operation runs once");
        let outcome = work(tx, queue);
        let succeeded = outcome.is_ok();
        *self.outcome.lock() = Some(outcome);
        succeeded
    }

    fn fail(&mut self, e: StoreError) {
        *self.outcome.lock() = Some(Err(e.into()));
    }
}
