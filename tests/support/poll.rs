//! Owns the one polling loop with a deadline, shared by the tests, the browser driver and the
//! example that drives it.

use std::time::{Duration, Instant};

/// Polls `probe` every 20 ms until it gives a value and returns it, or `None` once `within`
/// has passed: the one loop for waiting on what a test cannot drive itself (the server's
/// background work, another process, a connection, the wall clock).
pub fn poll<T>(within: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(found) = probe() {
            return Some(found);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
