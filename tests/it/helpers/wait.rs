//! Owns waiting on what a test cannot drive from its own thread: one polling loop with a
//! deadline, and batches kept inside one rate-limit window.

use std::time::Duration;

use super::Resp;

#[path = "../../support/poll.rs"]
mod shared;
pub use shared::poll;

/// [`poll`] that fails the test, naming `what` it waited for, when `within` passes first.
#[track_caller]
pub fn wait_for<T>(within: Duration, what: &str, probe: impl FnMut() -> Option<T>) -> T {
    match poll(within, probe) {
        Some(found) => found,
        None => panic!("waited {within:?} for {what}"),
    }
}

/// Runs `batch` until all its answers fall in one rate-limit window (the same
/// `X-RateLimit-Reset`), retrying when a minute boundary falls between them; returns them.
pub fn in_one_rate_window(mut batch: impl FnMut() -> Vec<Resp>) -> Vec<Resp> {
    wait_for(
        Duration::from_secs(180),
        "requests inside one rate-limit window",
        || {
            let answers = batch();
            let same = answers
                .windows(2)
                .all(|w| w[0].header("x-ratelimit-reset") == w[1].header("x-ratelimit-reset"));
            same.then_some(answers)
        },
    )
}

/// Waits (at most 10 s) until at least ten seconds of the current minute of real time are
/// left, so requests sent now fall in one rate-limit window; for requests whose answers carry
/// no `X-RateLimit-Reset` to compare (the web panel's pages, a budget charged inside a handler).
pub fn well_inside_a_minute() {
    wait_for(Duration::from_secs(10), "a minute's start", || {
        let second = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
            % 60;
        (second < 50).then_some(())
    });
}
