//! Owns the per-key request budgets: reads and writes each get a fixed window of one real
//! minute (transport time, not the service clock); conversions get a token bucket (a steady
//! rate per second and a burst reserve), charged per event. Held in memory: a restart starts
//! new windows and full buckets.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::config::LimitsConfig;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Budget {
    Read,
    Write,
    /// Inbound conversions, charged per event by the handler.
    Conversions,
}

impl Budget {
    /// The budget's name, as metrics label it.
    pub fn name(self) -> &'static str {
        match self {
            Budget::Read => "read",
            Budget::Write => "write",
            Budget::Conversions => "conversions",
        }
    }
}

/// Whose read and write windows: an API key's, or a person's in the web panel (whose changes
/// count against a write budget of the same size as a key's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Holder {
    Key(i64),
    Person(i64),
}

/// Whose conversion bucket: an API key's, or a person's tracker token's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sender {
    Key(i64),
    Tracker(i64),
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
    windows: Mutex<HashMap<(Holder, Budget), (u64, u32)>>,
    per_second: f64,
    burst: f64,
    /// Tokens left and when they were counted (unix seconds).
    buckets: Mutex<HashMap<Sender, (f64, f64)>>,
}

const WINDOW_SECONDS: u64 = 60;

impl RateLimiter {
    pub fn new(limits: &LimitsConfig) -> RateLimiter {
        RateLimiter {
            reads: limits.reads_per_minute,
            writes: limits.writes_per_minute,
            windows: Mutex::new(HashMap::new()),
            per_second: f64::from(limits.conversions_per_second.max(1)),
            burst: f64::from(limits.conversions_burst.max(1)),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one request of `who` against `budget` at real time `now` (unix seconds).
    pub fn check(&self, who: Holder, budget: Budget, now: u64) -> RateInfo {
        let limit = match budget {
            Budget::Read => self.reads,
            Budget::Write => self.writes,
            Budget::Conversions => 0,
        };
        let window = now - now % WINDOW_SECONDS;
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if windows.len() > 10_000 {
            windows.retain(|_, (start, _)| *start == window);
        }
        let entry = windows.entry((who, budget)).or_insert((window, 0));
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

impl RateLimiter {
    /// Takes up to `wanted` conversion tokens of `sender` at real time `now` (unix seconds,
    /// fractional): returns how many were granted (the first events of a request go ahead)
    /// and the headers' figures. `limit` is the burst reserve, `reset` when the bucket is
    /// full again; `allowed` is false when not one token was left.
    pub fn take_events(&self, sender: Sender, wanted: u32, now: f64) -> (u32, RateInfo) {
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() > 10_000 {
            let full_after = self.burst / self.per_second;
            buckets.retain(|_, (_, at)| now - *at < full_after);
        }
        let (tokens, at) = buckets.entry(sender).or_insert((self.burst, now));
        *tokens = (*tokens + (now - *at).max(0.0) * self.per_second).min(self.burst);
        *at = now;
        let granted = (*tokens).floor().min(f64::from(wanted)) as u32;
        *tokens -= f64::from(granted);
        let refill = ((self.burst - *tokens) / self.per_second).ceil() as u64;
        let info = RateInfo {
            limit: self.burst as u32,
            remaining: (*tokens).floor() as u32,
            reset: now as u64 + refill,
            allowed: granted > 0 || wanted == 0,
        };
        (granted, info)
    }

    /// Seconds until a conversion bucket holds one token again, at least one.
    pub fn events_retry_after(&self) -> u64 {
        (1.0 / self.per_second).ceil().max(1.0) as u64
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
        assert_eq!(l.check(Holder::Key(1), Budget::Read, t).remaining, 1);
        assert_eq!(l.check(Holder::Key(1), Budget::Read, t).remaining, 0);
        let refused = l.check(Holder::Key(1), Budget::Read, t + 1);
        assert!(!refused.allowed);
        assert_eq!(refused.reset, 1_000_080);
        assert_eq!(refused.retry_after(t + 1), 59);
        assert!(l.check(Holder::Key(1), Budget::Read, t + 60).allowed);
    }

    #[test]
    fn reads_writes_keys_and_people_have_separate_budgets() {
        let l = limiter(1, 1);
        let t = 60;
        assert!(l.check(Holder::Key(1), Budget::Read, t).allowed);
        assert!(!l.check(Holder::Key(1), Budget::Read, t).allowed);
        assert!(l.check(Holder::Key(1), Budget::Write, t).allowed);
        assert!(l.check(Holder::Key(2), Budget::Read, t).allowed);
        assert!(
            l.check(Holder::Person(1), Budget::Read, t).allowed,
            "a person in the panel is not key 1"
        );
    }

    fn bucket(per_second: u32, burst: u32) -> RateLimiter {
        let mut limits = crate::config::Config::default().limits;
        limits.conversions_per_second = per_second;
        limits.conversions_burst = burst;
        RateLimiter::new(&limits)
    }

    #[test]
    fn the_burst_is_spent_per_event_then_refills_at_the_rate() {
        let l = bucket(20, 1000);
        let key = Sender::Key(1);
        let (granted, info) = l.take_events(key, 1000, 100.0);
        assert_eq!((granted, info.remaining, info.limit), (1000, 0, 1000));
        assert_eq!(info.reset, 150, "1000 tokens at 20 a second");
        let (granted, info) = l.take_events(key, 5, 100.0);
        assert_eq!(granted, 0);
        assert!(!info.allowed);
        let (granted, _) = l.take_events(key, 50, 101.5);
        assert_eq!(
            granted, 30,
            "1.5 s refilled 30 events, the first 30 of 50 go ahead"
        );
        let (granted, _) = l.take_events(Sender::Tracker(1), 1, 101.5);
        assert_eq!(granted, 1, "a tracker token has its own bucket");
        let (_, info) = l.take_events(key, 0, 1000.0);
        assert_eq!(info.remaining, 1000, "never more than the burst reserve");
    }
}
