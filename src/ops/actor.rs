//! Owns who makes a change to a cabinet, as every operation on one takes it: the face it came
//! through (what the history records), the person it is done for, and the cabinet. A key or a
//! person holds one only once the write rules they share (`auth::check_write_cabinet`) let
//! them change it; the task worker holds one for a task's owner while the cabinet can still
//! take the task; automation holds one for the cabinet's owner, and an AI assistant (an MCP
//! client) one for its key's holder, under the same write rules, named in the history by the
//! client's name. An operation that takes an `Actor` needs no access check of its own.

use std::sync::Arc;

use crate::auth::{self, AuthError};
use crate::domain::campaign::Source;
use crate::domain::task::Outcome;
use crate::store::cabinets::{Cabinet, Reachable};
use crate::store::history::Author;
use crate::store::tasks::Task;

/// Someone allowed to change one cabinet.
#[derive(Debug, Clone)]
pub struct Actor {
    source: Source,
    user: i64,
    cabinet: Cabinet,
    /// The assistant (an MCP client, by the name it gave) acting through a key.
    client: Option<Arc<str>>,
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
            client: None,
        })
    }

    /// An AI assistant, the MCP client named `client`, acting with the key of `user` on the
    /// cabinet `reach` finds: automation under the write rules of a person (as
    /// [`Actor::writer`]); the history names the source `automation`, the person and the client.
    pub fn assistant(user: i64, reach: &Reachable, client: Arc<str>) -> Result<Actor, AuthError> {
        let actor = Actor::writer(Source::Automation, user, reach)?;
        Ok(Actor {
            client: Some(client),
            ..actor
        })
    }

    /// The worker carrying out `task` on its cabinet, for the person and through the face that
    /// queued it (their write access was checked then). Refused, with the sentence the task
    /// fails with, when the cabinet is gone, deactivated or its platform session expired.
    pub fn for_task(task: &Task, cabinet: Option<Cabinet>) -> Result<Actor, Outcome> {
        match cabinet {
            None => Err(Outcome::CabinetGone),
            Some(c) if !c.is_active => Err(Outcome::CabinetInactive),
            Some(c) if c.auth_expired => Err(Outcome::SessionExpired),
            Some(cabinet) => Ok(Actor {
                source: task.source,
                user: task.owner_id,
                cabinet,
                client: None,
            }),
        }
    }

    /// Automation (a rule, Auto CPM) acting on `cabinet` for its owner, within its own guards.
    pub fn automation(cabinet: Cabinet) -> Actor {
        Actor {
            source: Source::Automation,
            user: cabinet.owner_id,
            cabinet,
            client: None,
        }
    }

    /// adcab itself acting on `cabinet` on its own clock (a schedule following its zone), for
    /// the cabinet's owner.
    pub fn system(cabinet: Cabinet) -> Actor {
        Actor {
            source: Source::System,
            user: cabinet.owner_id,
            cabinet,
            client: None,
        }
    }

    /// The operator at the command line acting on `cabinet` for its owner.
    pub fn operator(cabinet: Cabinet) -> Actor {
        Actor {
            source: Source::Operator,
            user: cabinet.owner_id,
            cabinet,
            client: None,
        }
    }

    /// Where the change came from, for the history and the tasks.
    pub fn source(&self) -> Source {
        self.source
    }

    /// Who the history names for the actor's changes: its source and its person, except for
    /// automation, which acts on its own (the rule that acted is named by the change), and
    /// adcab itself; an assistant is named with the person whose key it holds.
    pub fn author(&self) -> Author {
        let author = match (self.source, &self.client) {
            (Source::Automation, Some(_)) => Author::person(self.source, self.user),
            (Source::Automation | Source::System, _) => Author::from(self.source),
            (
                Source::Api
                | Source::Task
                | Source::Panel
                | Source::Sync
                | Source::Operator
                | Source::Telegram,
                _,
            ) => Author::person(self.source, self.user),
        };
        author.with_client(self.client.clone())
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

/// Who asks for a change of a person's keys or tasks: the operator at the command line, who
/// may change anyone's, or a person in the panel, who may change only their own live ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Operator,
    Person(i64),
}

impl By {
    /// Whether a key or task of `owner` is theirs to change.
    pub fn may_change(self, owner: i64) -> bool {
        match self {
            By::Operator => true,
            By::Person(me) => me == owner,
        }
    }
}
