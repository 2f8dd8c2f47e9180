//! Owns admission of async callers to a scarce resource (the read pool, platform calls, the
//! panel's blocking operations, password checks): at most so many hold it, at most so many
//! wait for it, each for a bounded time, and anyone beyond is told "busy" at once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::StoreError;

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

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    const WAIT: Duration = Duration::from_secs(10);

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
}
