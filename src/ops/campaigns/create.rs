//! Owns queuing new campaigns, for every face alike: a create or copy command (read in
//! `command`) becomes one `create` or `copy` task inside the caller's transaction (so a face's
//! own record, an Idempotency-Key's answer, commits with it), once its media tokens are the
//! cabinet's own, the cabinet's queue has room and the group is found or made. The task worker
//! makes the campaigns.

use rusqlite::Connection;

use super::command::{Create, Draft, GroupChoice};
use super::{media_of, OpsError};
use crate::clock;
use crate::domain::ad::AdDraft;
use crate::domain::dates::Sent;
use crate::domain::task::{Lane, Payload};
use crate::domain::{ParseError, Why};
use crate::ops::Actor;
use crate::store::groups;
use crate::store::tasks::{self, NewTask};

/// Create, copy and recreate tasks a cabinet may have queued before `QUEUE_FULL`.
pub const QUEUE_LIMIT: u32 = 5;
const DEFAULT_GROUP_COLOR: &str = "#4A90D9";

/// Queues `create` for `actor`'s cabinet as one task, in the caller's transaction: each
/// campaign's dates must be ahead of the service time and within a year, each media
/// token must be one uploaded to this cabinet, the cabinet may not have [`QUEUE_LIMIT`] tasks
/// of the kind queued, and the group is one of the cabinet's (or made, or found by its name).
/// Returns the task's id.
pub fn queue(tx: &Connection, actor: &Actor, create: Create) -> Result<i64, OpsError> {
    let account = actor.cabinet().id;
    let mut campaigns = Vec::with_capacity(create.drafts.len());
    let now = clock::now(tx)?.timestamp();
    for draft in create.drafts {
        campaigns.push(checked(tx, draft, account, now)?);
    }
    has_room(tx, account)?;
    let group_id = group_of(tx, account, create.group)?;
    let payload = Payload::Create {
        group_id,
        campaigns,
    };
    let task = NewTask {
        owner_id: actor.user(),
        account_id: account,
        kind: create.kind,
        payload: &payload,
        source: actor.source(),
    };
    Ok(tasks::insert(tx, &task, &clock::iso(clock::now(tx)?))?)
}

/// The draft ready to queue: its dates checked against the service clock's `now` (unix
/// seconds), with its uploaded media, which must be one uploaded to `account`.
pub(super) fn checked(
    tx: &Connection,
    Draft { mut ad, media, at }: Draft,
    account: i64,
    now: i64,
) -> Result<AdDraft, OpsError> {
    ad.dates.check(Sent::BOTH, now, &at)?;
    if let Some((token, param)) = media {
        let (token, media_type) = media_of(tx, token, param, account)?;
        ad.spec.media_token = Some(token);
        ad.spec.media_type = Some(media_type);
    }
    Ok(ad)
}

/// `QUEUE_FULL` when `account` already has [`QUEUE_LIMIT`] tasks queued in its create lane.
pub(super) fn has_room(tx: &Connection, account: i64) -> Result<(), OpsError> {
    if tasks::queued(tx, account, Lane::Create)? >= i64::from(QUEUE_LIMIT) {
        return Err(OpsError::QueueFull { limit: QUEUE_LIMIT });
    }
    Ok(())
}

/// The group `choice` names in `account`: one of the cabinet's, or made, or found by its name.
pub(super) fn group_of(
    tx: &Connection,
    account: i64,
    choice: GroupChoice,
) -> Result<Option<i64>, OpsError> {
    Ok(match choice {
        GroupChoice::None => None,
        GroupChoice::Existing(id) => Some(
            groups::get(tx, id)?
                .filter(|g| g.account_id == account)
                .ok_or_else(|| {
                    ParseError::new("group_id", "No such group in this cabinet.")
                        .because(Why::Unknown)
                })?
                .id,
        ),
        GroupChoice::New(name) => Some(match groups::find_by_name(tx, account, &name)? {
            Some(g) => g.id,
            None => groups::insert(tx, account, &name, DEFAULT_GROUP_COLOR)?,
        }),
    })
}
