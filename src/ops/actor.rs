//! Owns who makes a change to a cabinet, as every operation on one takes it: the face it came
//! through (what the history records), the person it is done for, and the cabinet, held only
//! once the write rules shared by keys and people (`auth::check_write_cabinet`) let them
//! change it. An operation that takes an `Actor` needs no access check of its own.

use crate::auth::{self, AuthError};
use crate::domain::campaign::Source;
use crate::store::cabinets::{Cabinet, Reachable};

/// Someone allowed to change one cabinet.
#[derive(Debug, Clone)]
pub struct Actor {
    source: Source,
    user: i64,
    cabinet: Cabinet,
}

impl Actor {
    /// `user`, through `source` (the API's key, the panel's session), on the cabinet `reach`
    /// finds them: refused unless they may change it (owner or manager access, an owner with
    /// a subscription, a live platform session, no automatic lock).
    pub fn writer(source: Source, user: i64, reach: &Reachable) -> Result<Actor, AuthError> {
        auth::check_write_cabinet(reach)?;
        Ok(Actor {
            source,
            user,
            cabinet: reach.cabinet.clone(),
        })
    }

    /// Where the change came from, for the history and the tasks.
    pub fn source(&self) -> Source {
        self.source
    }

    /// The person the change is made for (a task's owner).
    pub fn user(&self) -> i64 {
        self.user
    }

    /// The cabinet the actor may change.
    pub fn cabinet(&self) -> &Cabinet {
        &self.cabinet
    }
}
