//! Owns running blocking work off the async runtime on tokio's blocking pool: a background
//! loop's step, whose panic comes back as [`Panicked`] so the loop can log it and go on, and a
//! request's work, whose panic carries on in the request as if the work had run inline; and
//! the lower CPU priority of a thread of its own doing bulk background work.

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
/// that does bulk background work (the hourly sync's workers, reading the platform's reports
/// and planning the writes), so that when the cores are short it yields them to the one writer
/// it feeds, and to requests. Call it only on a thread that ends with its work: without
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

/// The message a panic carried.
pub fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calling thread's nice value, from `/proc/thread-self/stat` (its 19th field).
    fn nice_of_this_thread() -> i32 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        fields[16].parse().unwrap()
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
}
