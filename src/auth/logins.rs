//! Owns who may try a password: the attempts to sign in to the web panel per email and per
//! client address in a window (each counted before its password is checked, taken back when it
//! matched), and the password checks, at most a few at once.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

use crate::db::Gate;
use crate::domain::password;
use crate::store::StoreError;

/// The window over which failed logins are counted, in seconds.
pub const WINDOW: u64 = 15 * 60;
/// Most accounts and addresses with failures remembered at once; past it the oldest windows go.
const TRACKED: usize = 50_000;
/// Passwords checked at once. Each check is Argon2id over 19 MiB, so this bounds the memory
/// and the threads logins take, however many arrive.
const VERIFYING: usize = 2;
/// Logins that may wait for a check, and how long; one more is told to try again shortly.
const VERIFY_QUEUE: usize = 16;
const VERIFY_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Logins per email and per client address in the current window, counted before their
/// password is checked, and the admission to the password checks.
pub struct LoginLimiter {
    counts: Mutex<Counts>,
    verifying: Gate,
}

impl Default for LoginLimiter {
    fn default() -> Self {
        LoginLimiter {
            counts: Mutex::default(),
            verifying: Gate::new(VERIFYING, VERIFY_QUEUE),
        }
    }
}

/// Both counts under one lock, so an attempt is reserved against both limits at once.
#[derive(Default)]
struct Counts {
    accounts: Failures,
    addresses: Failures,
}

#[derive(Default)]
struct Failures {
    /// Key → (window start, attempts counted in it).
    seen: HashMap<String, (u64, u32)>,
}

impl Failures {
    fn count(&mut self, key: &str, now: u64) -> u32 {
        match self.seen.get(key) {
            Some((start, n)) if now < start + WINDOW => *n,
            Some(_) => {
                self.seen.remove(key);
                0
            }
            None => 0,
        }
    }

    /// Counts one attempt; returns the start of the window it counts in.
    fn add(&mut self, key: &str, now: u64) -> u64 {
        if self.seen.len() >= TRACKED && !self.seen.contains_key(key) {
            self.seen.retain(|_, (start, _)| now < *start + WINDOW);
            if self.seen.len() >= TRACKED {
                let oldest = self.seen.values().map(|(s, _)| *s).min().unwrap_or(now);
                self.seen.retain(|_, (start, _)| *start > oldest);
            }
        }
        let entry = self.seen.entry(key.to_string()).or_insert((now, 0));
        if now >= entry.0 + WINDOW {
            *entry = (now, 0);
        }
        entry.1 += 1;
        entry.0
    }

    /// Takes back one attempt counted in the window that started at `start`, if that window
    /// is still the key's.
    fn take_back(&mut self, key: &str, start: u64) {
        if let Some((s, n)) = self.seen.get_mut(key) {
            if *s == start && *n > 0 {
                *n -= 1;
            }
        }
    }
}

/// One login attempt, counted as a failure from the moment it was reserved: concurrent
/// guesses cannot all pass the check that comes before their passwords are verified. It stays
/// counted unless [`Attempt::take_back`] says the password matched or was never checked.
pub struct Attempt<'a> {
    limiter: &'a LoginLimiter,
    account: String,
    address: String,
    windows: (u64, u64),
}

impl Attempt<'_> {
    pub fn take_back(self) {
        let mut counts = lock(&self.limiter.counts);
        counts.accounts.take_back(&self.account, self.windows.0);
        counts.addresses.take_back(&self.address, self.windows.1);
    }
}

impl LoginLimiter {
    /// Counts an attempt for `email` from `address` at `now`, unless either has reached its
    /// limit (`limits`: per account, per address); `None` then, and nothing is counted.
    pub fn reserve(
        &self,
        limits: (u32, u32),
        email: &str,
        address: IpAddr,
        now: u64,
    ) -> Option<Attempt<'_>> {
        let account = email.to_ascii_lowercase();
        let address = address.to_string();
        let mut counts = lock(&self.counts);
        if counts.accounts.count(&account, now) >= limits.0
            || counts.addresses.count(&address, now) >= limits.1
        {
            return None;
        }
        let windows = (
            counts.accounts.add(&account, now),
            counts.addresses.add(&address, now),
        );
        Some(Attempt {
            limiter: self,
            account,
            address,
            windows,
        })
    }

    /// Checks `password` against `stored` (a decoy hash when the email is unknown, so both
    /// take as long) off the runtime, at most [`VERIFYING`] at once; `Busy` when no check
    /// frees up within [`VERIFY_WAIT`] or [`VERIFY_QUEUE`] logins already wait.
    pub async fn verify(
        &self,
        password: String,
        stored: Option<String>,
    ) -> Result<bool, StoreError> {
        let permit = self.verifying.enter(VERIFY_WAIT).await?;
        Ok(crate::db::in_request(move || {
            let _permit = permit;
            let hash = stored.as_deref().unwrap_or(password::decoy());
            password::verify(&password, hash) && stored.is_some()
        })
        .await)
    }
}

fn lock(m: &Mutex<Counts>) -> std::sync::MutexGuard<'_, Counts> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_count_per_window_and_per_key() {
        let limiter = LoginLimiter::default();
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        let other: IpAddr = "192.0.2.2".parse().unwrap();
        for _ in 0..3 {
            assert!(limiter.reserve((3, 100), "A@x.org", ip, 1000).is_some());
        }
        assert!(
            limiter.reserve((3, 100), "a@x.org", other, 1001).is_none(),
            "the account"
        );
        assert!(
            limiter.reserve((3, 100), "b@x.org", ip, 1001).is_some(),
            "another account"
        );
        assert!(
            limiter.reserve((100, 4), "c@x.org", ip, 1001).is_none(),
            "the address"
        );
        assert!(
            limiter
                .reserve((3, 3), "a@x.org", ip, 1000 + WINDOW)
                .is_some(),
            "a new window"
        );
    }

    #[test]
    fn an_attempt_taken_back_no_longer_counts() {
        let limiter = LoginLimiter::default();
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        for _ in 0..5 {
            limiter
                .reserve((2, 100), "a@x.org", ip, 1000)
                .unwrap()
                .take_back();
        }
        let kept = limiter.reserve((2, 100), "a@x.org", ip, 1000).unwrap();
        drop(kept);
        assert!(limiter.reserve((2, 100), "a@x.org", ip, 1000).is_some());
        assert!(
            limiter.reserve((2, 100), "a@x.org", ip, 1000).is_none(),
            "two kept attempts reach a limit of two"
        );
    }

    #[test]
    fn concurrent_attempts_never_pass_the_limit() {
        let limiter = LoginLimiter::default();
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        let reserved = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..40 {
                s.spawn(|| {
                    if let Some(attempt) = limiter.reserve((5, 100), "a@x.org", ip, 1000) {
                        reserved.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        drop(attempt);
                    }
                });
            }
        });
        assert_eq!(reserved.into_inner(), 5);
    }

    #[test]
    fn the_remembered_attempts_stay_bounded() {
        let mut f = Failures::default();
        for i in 0..(TRACKED + 10) {
            f.add(&i.to_string(), i as u64 / 1000);
        }
        assert!(f.seen.len() <= TRACKED, "{}", f.seen.len());
    }
}
