//! Owns the idempotency keys the connector sends (§6): derived from adcab's own ids, so that a
//! repeated operation replays on the platform instead of running twice.

use crate::primitives::sha256_hex;

/// The idempotency key of one of adcab's operations on one cabinet: the same operation
/// (a task item, a budget call's key) always sends the same key, so a retry replays.
pub(super) fn operation_key(kind: &str, account: i64, token: &str) -> String {
    format!(
        "{kind}-{}",
        &sha256_hex(&format!("{account}:{token}"))[..40]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_keys_are_stable_per_cabinet_and_operation() {
        let a = operation_key("budget", 5, "task:7:0");
        assert_eq!(a, operation_key("budget", 5, "task:7:0"));
        assert_ne!(a, operation_key("budget", 6, "task:7:0"));
        assert_ne!(a, operation_key("budget", 5, "task:7:1"));
        assert!(a.starts_with("budget-") && a.len() <= 128);
    }
}
