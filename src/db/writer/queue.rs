//! Owns the bounded queue between the writer's callers and its thread: the operations waiting,
//! each with the reply its caller waits on, taken in turn or withdrawn by a caller that gave
//! up.

use std::collections::VecDeque;
use std::sync::mpsc;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};
use tokio::sync::oneshot;

use super::{Finished, Job};
use crate::db::StoreError;

/// How the writer answers a caller.
pub(super) enum Reply {
    Blocking(mpsc::SyncSender<Finished>),
    Async(oneshot::Sender<Finished>),
}

/// An operation in the queue.
pub(super) struct Queued {
    id: u64,
    /// Declared before `reply`, so that it is dropped first (see [`super::Writer::run_blocking`]).
    pub(super) job: Box<dyn Job>,
    reply: Reply,
}

impl Queued {
    /// Answers the caller once the operation, and whatever of the caller's it holds, is
    /// dropped.
    pub(super) fn answer(self, finished: Finished) {
        let Queued { job, reply, .. } = self;
        drop(job);
        match reply {
            Reply::Blocking(reply) => drop(reply.send(finished)),
            Reply::Async(reply) => drop(reply.send(finished)),
        }
    }
}

/// The operations waiting for the writer. No operation is dropped under its lock: dropping
/// one may drop a handle on the database, and with it the writer, which takes the lock.
pub(super) struct Queue {
    pub(super) state: Mutex<State>,
    /// Signalled when an operation is queued or the queue closes.
    arrived: Condvar,
    capacity: usize,
    pub(super) wait: Duration,
}

pub(super) struct State {
    pub(super) waiting: VecDeque<Queued>,
    last_id: u64,
    /// No operation is taken any more; the writer ends once the queue is empty.
    closed: bool,
}

impl Queue {
    pub(super) fn new(capacity: usize, wait: Duration) -> Queue {
        Queue {
            state: Mutex::new(State {
                waiting: VecDeque::new(),
                last_id: 0,
                closed: false,
            }),
            arrived: Condvar::new(),
            capacity,
            wait,
        }
    }

    /// Queues an operation, or refuses it at once: `Busy` when the queue is full.
    pub(super) fn push(&self, job: Box<dyn Job>, reply: Reply) -> Result<Place<'_>, StoreError> {
        let mut state = self.state.lock();
        if state.closed || state.waiting.len() >= self.capacity {
            let refused = if state.closed {
                StoreError::Failed("the database writer has stopped".into())
            } else {
                StoreError::Busy
            };
            drop(state);
            return Err(refused);
        }
        state.last_id += 1;
        let id = state.last_id;
        state.waiting.push_back(Queued { id, job, reply });
        drop(state);
        self.arrived.notify_one();
        Ok(Place { queue: self, id })
    }

    /// The next operation; `None` once the queue is closed and empty.
    pub(super) fn next(&self) -> Option<Queued> {
        let mut state = self.state.lock();
        loop {
            if let Some(first) = state.waiting.pop_front() {
                return Some(first);
            }
            if state.closed {
                return None;
            }
            self.arrived.wait(&mut state);
        }
    }

    pub(super) fn wanted(&self) -> bool {
        !self.state.lock().waiting.is_empty()
    }

    pub(super) fn close(&self) {
        self.state.lock().closed = true;
        self.arrived.notify_all();
    }
}

/// A caller's operation while it waits in the queue; taken back if the caller goes away.
pub(super) struct Place<'a> {
    queue: &'a Queue,
    id: u64,
}

impl Place<'_> {
    /// Takes the operation back if the writer has not started it; true when it did.
    pub(super) fn withdraw(&self) -> bool {
        let withdrawn = {
            let mut state = self.queue.state.lock();
            let at = state.waiting.iter().position(|q| q.id == self.id);
            at.and_then(|at| state.waiting.remove(at))
        };
        withdrawn.is_some()
    }
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        self.withdraw();
    }
}
