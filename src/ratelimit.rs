//! Owns the per-key request budgets: reads and writes each get a fixed window of one real
//! minute (transport time, not the service clock). Held in memory: a restart starts new windows.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::config::LimitsConfig;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Budget {
    Read,
    Write,
}

/// What the rate-limit headers report, and whether this request may go ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateInfo {
    pub limit: u32,
    pub remaining: u32,
    /// Unix seconds when the window resets.
    pub reset: u64,
    pub allowed: bool,
}

impl RateInfo {
    /// Seconds until the window resets, at least one.
    pub fn retry_after(&self, now: u64) -> u64 {
        self.reset.saturating_sub(now).max(1)
    }
}

pub struct RateLimiter {
    reads: u32,
    writes: u32,
    windows: Mutex<HashMap<(i64, Budget), (u64, u32)>>,
}

const WINDOW_SECONDS: u64 = 60;

pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl RateLimiter {
    pub fn new(limits: &LimitsConfig) -> RateLimiter {
        RateLimiter {
            reads: limits.reads_per_minute,
            writes: limits.writes_per_minute,
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one request of `key` against `budget` at real time `now` (unix seconds).
    pub fn check(&self, key: i64, budget: Budget, now: u64) -> RateInfo {
        let limit = match budget {
            Budget::Read => self.reads,
            Budget::Write => self.writes,
        };
        let window = now - now % WINDOW_SECONDS;
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if windows.len() > 10_000 {
            windows.retain(|_, (start, _)| *start == window);
        }
        let entry = windows.entry((key, budget)).or_insert((window, 0));
        if entry.0 != window {
            *entry = (window, 0);
        }
        let allowed = entry.1 < limit;
        if allowed {
            entry.1 += 1;
        }
        RateInfo {
            limit,
            remaining: limit - entry.1,
            reset: window + WINDOW_SECONDS,
            allowed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(reads: u32, writes: u32) -> RateLimiter {
        let mut limits = crate::config::Config::default().limits;
        limits.reads_per_minute = reads;
        limits.writes_per_minute = writes;
        RateLimiter::new(&limits)
    }

    #[test]
    fn the_budget_runs_out_and_refills_with_the_next_window() {
        let l = limiter(2, 5);
        let t = 1_000_020;
        assert_eq!(l.check(1, Budget::Read, t).remaining, 1);
        assert_eq!(l.check(1, Budget::Read, t).remaining, 0);
        let refused = l.check(1, Budget::Read, t + 1);
        assert!(!refused.allowed);
        assert_eq!(refused.reset, 1_000_080);
        assert_eq!(refused.retry_after(t + 1), 59);
        assert!(l.check(1, Budget::Read, t + 60).allowed);
    }

    #[test]
    fn reads_writes_and_keys_have_separate_budgets() {
        let l = limiter(1, 1);
        let t = 60;
        assert!(l.check(1, Budget::Read, t).allowed);
        assert!(!l.check(1, Budget::Read, t).allowed);
        assert!(l.check(1, Budget::Write, t).allowed);
        assert!(l.check(2, Budget::Read, t).allowed);
    }
}
