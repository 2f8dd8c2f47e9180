//! Owns the admission of calls that wait on someone outside the service and are started by a
//! person rather than by a background loop: a webhook Test runs at most [`TESTS`] at once in
//! the process and one at a time per key, refused at once past that, so clicks cannot hold
//! the blocking threads that database work needs (a Test waits up to 21 s on a silent
//! receiver). The loops that call out on their own (webhook deliveries, Bot API sends, the
//! hourly sync, the task worker) are bounded by their own loops; platform calls made for
//! requests pass the HTTP layer's gate.

use std::collections::HashSet;

use parking_lot::Mutex;

/// Webhook Tests running at once in the process.
pub const TESTS: usize = 4;

/// Why a Test was not started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// A Test of the same key is still waiting for its receiver.
    SameKey,
    /// [`TESTS`] Tests are running.
    Full,
}

/// The Tests under way, by key.
#[derive(Default)]
pub struct Outbound {
    testing: Mutex<HashSet<i64>>,
}

/// A running Test's place, given back when dropped (even on a panic).
pub struct Turn<'a> {
    outbound: &'a Outbound,
    key: i64,
}

impl Outbound {
    /// A place for a Test of `key`, or why there is none now.
    pub fn test(&self, key: i64) -> Result<Turn<'_>, Refused> {
        let mut testing = self.testing.lock();
        if testing.contains(&key) {
            return Err(Refused::SameKey);
        }
        if testing.len() >= TESTS {
            return Err(Refused::Full);
        }
        testing.insert(key);
        Ok(Turn {
            outbound: self,
            key,
        })
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.outbound.testing.lock().remove(&self.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_test_per_key_and_a_few_in_all_each_place_given_back() {
        let out = Outbound::default();
        let first = out.test(1).unwrap();
        assert_eq!(out.test(1).err(), Some(Refused::SameKey));
        let others: Vec<Turn> = (2..=TESTS as i64).map(|k| out.test(k).unwrap()).collect();
        assert_eq!(out.test(99).err(), Some(Refused::Full));
        drop(first);
        assert!(out.test(1).is_ok(), "the key's place was given back");
        drop(others);
        assert!(out.test(99).is_ok());
    }
}
