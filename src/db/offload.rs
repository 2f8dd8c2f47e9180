//! Owns running blocking work off the async runtime on tokio's blocking pool: a background
//! loop's step, whose panic comes back as [`Panicked`] so the loop can log it and go on, and a
//! request's work, whose panic carries on in the request as if the work had run inline; and
//! bulk background work on threads of its own at a lower CPU priority.

/// A panic in blocking work of a background loop, with what it said.
#[derive(Debug)]
pub struct Panicked(pub String);

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Panicked {}

/// Runs blocking work of a background loop on tokio's blocking pool; `Err` carries what a
/// panic there said, so the loop can log it and go on.
pub async fn blocking<T, F>(f: F) -> Result<T, Panicked>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| match e.try_into_panic() {
            Ok(panic) => Panicked(panic_text(panic)),
            Err(e) => Panicked(e.to_string()),
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

/// The nice value of a thread doing bulk background work ([`background_priority`]).
pub const BACKGROUND_NICE: i32 = 10;

/// Lowers the calling thread's CPU priority to [`BACKGROUND_NICE`], for a thread of its own
/// that does bulk background work ([`in_background`]: the hourly sync's workers, reading the
/// platform's reports and planning the writes, and the readers building the hour's digests;
/// the checkpoints copying the log), so that when the cores are short it yields them to the
/// one writer and to requests. Call it only on a thread that ends with its work: without
/// privileges a thread's priority cannot be raised again, so a pooled thread would keep it.
/// A refusal leaves the priority as it was (the work is the same, only its turn on the CPU
/// changes).
pub fn background_priority() {
    // SAFETY: setpriority reads and writes no memory of this process; PRIO_PROCESS with a
    // thread id names that thread alone on Linux (nice is a per-thread attribute).
    #[allow(unsafe_code)]
    let refused = unsafe {
        libc::setpriority(
            libc::PRIO_PROCESS,
            libc::gettid() as libc::id_t,
            BACKGROUND_NICE,
        )
    } != 0;
    if refused {
        tracing::debug!(error = %std::io::Error::last_os_error(), "a background thread keeps its priority");
    }
}

/// Runs `work` on each of `items`, up to `workers` at once, each worker a thread of its own
/// at the background priority ([`background_priority`]) taking the next item as it finishes
/// one; the results come in the order of `items`. A worker stops at its first error, the
/// others finish the items left, and the first worker's error is returned. A panic in `work`
/// carries on in the caller once every worker has stopped.
pub fn in_background<T, R, E>(
    items: &[T],
    workers: usize,
    work: impl Fn(&T) -> Result<R, E> + Sync,
) -> Result<Vec<R>, E>
where
    T: Sync,
    R: Send,
    E: Send,
{
    let next = std::sync::atomic::AtomicUsize::new(0);
    let run = || -> Result<Vec<(usize, R)>, E> {
        background_priority();
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return Ok(done);
            };
            done.push((i, work(item)?));
        }
    };
    let workers = workers.clamp(1, items.len().max(1));
    let finished: Vec<Result<Vec<(usize, R)>, E>> = std::thread::scope(|scope| {
        let running: Vec<_> = (0..workers).map(|_| scope.spawn(run)).collect();
        running
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut done = Vec::with_capacity(items.len());
    for worker in finished {
        done.extend(worker?);
    }
    done.sort_unstable_by_key(|(i, _)| *i);
    Ok(done.into_iter().map(|(_, r)| r).collect())
}

/// The message a panic carried.
pub fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// The nice value in a thread's `stat` file under `/proc` (its 19th field), for tests.
#[cfg(test)]
pub fn nice_in_stat(stat: &std::path::Path) -> i32 {
    let stat = std::fs::read_to_string(stat).unwrap();
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    fields[16].parse().unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calling thread's nice value.
    fn nice_of_this_thread() -> i32 {
        nice_in_stat("/proc/thread-self/stat".as_ref())
    }

    #[test]
    fn background_priority_lowers_only_the_calling_thread() {
        let before = nice_of_this_thread();
        let lowered = std::thread::spawn(|| {
            background_priority();
            nice_of_this_thread()
        })
        .join()
        .unwrap();
        assert_eq!(lowered, BACKGROUND_NICE.max(before));
        assert_eq!(
            nice_of_this_thread(),
            before,
            "the spawning thread keeps its own"
        );
    }

    #[test]
    fn in_background_answers_in_the_order_of_the_items_from_lowered_threads() {
        let items: Vec<u64> = (0..50).collect();
        let caller = std::thread::current().id();
        let done = in_background(&items, 3, |&n| {
            assert_ne!(
                std::thread::current().id(),
                caller,
                "not on the caller's thread"
            );
            // Uneven work, so that the workers finish their items out of order.
            std::thread::sleep(std::time::Duration::from_micros((n % 7) * 200));
            Ok::<_, String>((n * n, nice_of_this_thread()))
        })
        .unwrap();
        let squares: Vec<u64> = done.iter().map(|(sq, _)| *sq).collect();
        assert_eq!(squares, items.iter().map(|n| n * n).collect::<Vec<_>>());
        let before = nice_of_this_thread();
        assert!(done
            .iter()
            .all(|(_, nice)| *nice == BACKGROUND_NICE.max(before)));
    }

    #[test]
    fn in_background_returns_an_error_and_still_does_the_other_items() {
        let items: Vec<u32> = (0..20).collect();
        let done = std::sync::atomic::AtomicUsize::new(0);
        let outcome = in_background(&items, 2, |&n| {
            if n == 3 {
                return Err(format!("item {n} failed"));
            }
            done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(n)
        });
        assert_eq!(outcome, Err("item 3 failed".to_string()));
        assert_eq!(
            done.load(std::sync::atomic::Ordering::Relaxed),
            19,
            "the other worker did every item left"
        );
    }
}
