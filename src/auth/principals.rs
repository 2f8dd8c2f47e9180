//! Owns the principals kept between requests: each key's, by the SHA-256 of its text, as of
//! the access generation it was read at (schema 75). A request reads the generation first in
//! its snapshot and takes a kept principal only when it was read at that same generation; any
//! write that could change one (a revoked key, a narrowed scope, a lost share, a plan or a
//! cabinet's state) has moved the generation in its own transaction.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use super::Principal;

/// Principals kept at most: past it, those kept are dropped and read again as asked for. A
/// key reaching a hundred cabinets holds some 20 KB (each cabinet's row with two short texts),
/// so at most some 20 MB are kept.
const KEPT: usize = 1024;

/// The kept principals, shared by every face that authenticates a key.
#[derive(Default)]
pub struct Principals {
    kept: Mutex<Kept>,
}

/// The principals read at one generation, by key hash.
#[derive(Default)]
struct Kept {
    generation: i64,
    by_hash: HashMap<String, Arc<Principal>>,
}

impl Principals {
    /// The principal of the key with this hash, when one was kept at `generation`.
    pub fn get(&self, generation: i64, hash: &str) -> Option<Arc<Principal>> {
        let kept = self.kept.lock();
        if kept.generation != generation {
            return None;
        }
        kept.by_hash.get(hash).cloned()
    }

    /// Keeps a principal read at `generation`. One read at an older generation than those kept
    /// is not kept (a slower request's snapshot); a newer one drops those kept.
    pub fn keep(&self, generation: i64, hash: String, principal: Arc<Principal>) {
        let mut kept = self.kept.lock();
        if generation < kept.generation {
            return;
        }
        if generation > kept.generation || kept.by_hash.len() >= KEPT {
            kept.by_hash.clear();
            kept.generation = generation;
        }
        kept.by_hash.insert(hash, principal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::keys::KeyRow;
    use crate::store::users::User;

    fn principal(user: i64) -> Arc<Principal> {
        Arc::new(Principal {
            key: KeyRow {
                id: user,
                user_id: user,
                manage: true,
                postbacks: false,
                partner: false,
                scope_all: true,
                webhook_url: None,
                webhook_secret: "s".into(),
                revoked: false,
                last_used_at: None,
            },
            user: User {
                id: user,
                email: format!("{user}@example.com"),
                plan: crate::domain::access::Plan::Pro,
                subscription_active: true,
                language: None,
                time_zone: None,
                attention_seen_at: None,
            },
            reach: Vec::new(),
            plan_includes_api: true,
            plan_active: true,
        })
    }

    #[test]
    fn a_principal_is_given_only_at_the_generation_it_was_read_at() {
        let kept = Principals::default();
        kept.keep(5, "a".into(), principal(1));
        assert_eq!(kept.get(5, "a").unwrap().user.id, 1);
        assert!(kept.get(5, "b").is_none());
        assert!(kept.get(4, "a").is_none());
        assert!(kept.get(6, "a").is_none());
    }

    #[test]
    fn a_newer_generation_drops_the_older_and_an_older_one_is_not_kept() {
        let kept = Principals::default();
        kept.keep(5, "a".into(), principal(1));
        kept.keep(6, "b".into(), principal(2));
        assert!(kept.get(5, "a").is_none());
        assert!(
            kept.get(6, "a").is_none(),
            "read at 5, not to be given at 6"
        );
        kept.keep(5, "a".into(), principal(1));
        assert!(kept.get(5, "a").is_none());
        assert!(kept.get(6, "a").is_none());
        assert_eq!(kept.get(6, "b").unwrap().user.id, 2);
    }

    #[test]
    fn past_the_bound_those_kept_are_dropped() {
        let kept = Principals::default();
        for i in 0..KEPT {
            kept.keep(1, i.to_string(), principal(1));
        }
        assert!(kept.get(1, "0").is_some());
        kept.keep(1, "last".into(), principal(2));
        assert!(kept.get(1, "0").is_none());
        assert_eq!(kept.get(1, "last").unwrap().user.id, 2);
        assert_eq!(kept.kept.lock().by_hash.len(), 1);
    }
}
