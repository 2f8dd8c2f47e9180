//! Owns the task worker: claim a runnable task, run one item of it against the platform,
//! commit what the item produced together with the task's progress, complete. Every platform
//! call carries a reference unique to its task item (a create's client reference, a budget
//! move's token), so an item repeated after a crash finds its first result instead of acting
//! twice. The loop sleeps only when nothing is runnable; a new task wakes it.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::sync::{watch, Notify};

use crate::clock;
use crate::db;
use crate::domain::campaign::Status;
use crate::domain::schedule::Schedule;
use crate::domain::task::{BulkAction, Outcome as Ended, Payload, Recreation, TaskStatus};
use crate::ops::campaigns::recreate::{self, Unfit};
use crate::ops::campaigns::{self as campaign_ops, Entry, Refusal};
use crate::ops::Actor;
use crate::ops::{lookup, write_back};
use crate::platform::{AdDraft, PlatformError};
use crate::services::Services;
use crate::store::tasks::{self, Task};
use crate::store::StoreError;
use crate::store::{cabinets, campaigns};

/// Consecutive platform timeouts on one item before the whole task fails.
const MAX_TIMEOUTS: i64 = 3;
/// How long the loop waits for work when the queue is empty.
const IDLE: Duration = Duration::from_millis(500);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Ran,
    Empty,
}

/// Runs tasks until `stop` turns true; the item in progress then finishes before returning.
pub async fn run(services: Services, wake: Arc<Notify>, mut stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        let s = services.clone();
        match db::blocking(move || run_one(&s)).await {
            Ok(Ok(Step::Ran)) => continue,
            Ok(Ok(Step::Empty)) => {}
            Ok(Err(e)) => tracing::error!(error = %e, "task step failed"),
            Err(panic) => tracing::error!(%panic, "task step panicked"),
        }
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(IDLE) => {}
            _ = stop.changed() => {}
        }
    }
}

/// Does one unit of work: one item of the next runnable task. Blocking. One step runs at a
/// time per [`Services`], so it may be called from anywhere beside the worker loop (a test
/// driving tasks to their end).
pub fn run_one(s: &Services) -> Result<Step, StoreError> {
    let _step = s.task_step.lock();
    let claimed = s.db.write_blocking(|tx| {
        let Some(id) = tasks::next_runnable(tx)? else {
            return Ok(None);
        };
        let now = clock::iso(clock::now(tx)?);
        let task = match tasks::get(tx, id)? {
            Some(task) => task,
            None => return Ok(Some(None)),
        };
        if task.status == TaskStatus::Pending {
            tasks::start(tx, id, &now)?;
        }
        Ok::<_, StoreError>(Some(Some(task)))
    });
    let task = match claimed {
        Ok(None) => return Ok(Step::Empty),
        Ok(Some(None)) => return Ok(Step::Ran),
        Ok(Some(Some(task))) => task,
        Err(StoreError::Corrupt(what)) => return fail_unreadable(s, &what),
        Err(e) => return Err(e),
    };
    let payload = match Payload::from_json(task.kind, &task.payload) {
        Ok(payload) => payload,
        Err(what) => {
            unreadable(s, &task, &what.to_string())?;
            return Ok(Step::Ran);
        }
    };
    let done: HashSet<i64> =
        s.db.read_blocking(|c| tasks::done_items(c, task.id))?
            .into_iter()
            .collect();
    let Some(idx) = (0..task.total).find(|i| !done.contains(i)) else {
        finish(s, &task, None)?;
        return Ok(Step::Ran);
    };
    let cabinet = s.db.read_blocking(|c| cabinets::get(c, task.account_id))?;
    let actor = match Actor::for_task(&task, cabinet) {
        Ok(actor) => actor,
        Err(reason) => {
            finish(s, &task, Some(&reason))?;
            return Ok(Step::Ran);
        }
    };
    let outcome = match &payload {
        Payload::Create {
            group_id,
            campaigns,
        } => create_item(s, &actor, &task, campaigns, *group_id, idx)?,
        Payload::Recreate { items } => recreate_item(s, &actor, &task, items, idx)?,
        Payload::Bulk { action, ad_ids } => bulk_item(s, &actor, &task, action, ad_ids, idx)?,
    };
    match outcome {
        Outcome::Unreadable(what) => unreadable(s, &task, &what)?,
        Outcome::Done { stop } => {
            if stop || done.len() as i64 + 1 == task.total {
                finish(s, &task, None)?;
            }
        }
        Outcome::OutOfBalance => {
            let reason = Ended::OutOfBalance { item: idx }.stored();
            s.db.write_blocking(|tx| tasks::pause(tx, task.id, &reason))?;
        }
        Outcome::Again => {}
        Outcome::Wait(wait) => {
            let until = crate::primitives::unix_now() as i64 + wait.as_secs().max(1) as i64;
            s.db.write_blocking(|tx| tasks::wait(tx, task.id, until))?;
        }
        Outcome::Timeout => {
            let count =
                s.db.write_blocking(|tx| tasks::count_timeout(tx, task.id))?;
            if count >= MAX_TIMEOUTS {
                finish(s, &task, Some(&Ended::PlatformSilent))?;
            }
        }
    }
    Ok(Step::Ran)
}

/// The outcome of an item the platform did not take for a reason of the moment (no money, no
/// answer, an expired session, a wait asked for, the service's own store failing): nothing is
/// recorded for it. `None` for a
/// refusal of the item itself, which is recorded as its error.
fn held(e: &PlatformError) -> Option<Outcome> {
    match e {
        PlatformError::InsufficientBalance => Some(Outcome::OutOfBalance),
        PlatformError::Unreachable(_) | PlatformError::StorageFull | PlatformError::Internal(_) => {
            Some(Outcome::Timeout)
        }
        PlatformError::AuthExpired => Some(Outcome::Again),
        PlatformError::RateLimited(wait) => Some(Outcome::Wait(*wait)),
        PlatformError::Refused(_)
        | PlatformError::Rejected { .. }
        | PlatformError::NotFound
        | PlatformError::Unsupported(_) => None,
    }
}

enum Outcome {
    /// The item is recorded; `stop` ends the task early (a create stops at its first failure).
    Done {
        stop: bool,
    },
    OutOfBalance,
    Timeout,
    /// Nothing was recorded; the next step sees why (a cabinet whose session just expired).
    Again,
    /// The platform asked to wait: the task is held that long (other cabinets' tasks run
    /// meanwhile) and the item runs again after, not counted as a failure.
    Wait(Duration),
    /// The stored task is damaged (an unknown type, a payload without the item): it fails,
    /// and nothing runs on made-up values.
    Unreadable(String),
}

/// Fails a task whose stored data cannot be read, and says what was wrong in the log.
fn unreadable(s: &Services, task: &Task, what: &str) -> Result<(), StoreError> {
    tracing::error!(
        task = task.id,
        what,
        "a stored task cannot be read; failing it"
    );
    finish(s, task, Some(&Ended::Unreadable))
}

/// Fails the next runnable task when its very row cannot be read (an unknown type or status),
/// by id, so the queue goes on.
fn fail_unreadable(s: &Services, what: &str) -> Result<Step, StoreError> {
    let failed = s.db.write_blocking(|tx| {
        let Some(id) = tasks::next_runnable(tx)? else {
            return Ok(None);
        };
        let error = Ended::Unreadable.stored();
        tasks::fail(tx, id, &error, &clock::iso(clock::now(tx)?))?;
        Ok::<_, StoreError>(Some(id))
    })?;
    tracing::error!(task = ?failed, what, "a stored task cannot be read; failing it");
    Ok(Step::Ran)
}

fn finish(s: &Services, task: &Task, failure: Option<&Ended>) -> Result<(), StoreError> {
    s.db.write_blocking(|tx| {
        let now = clock::iso(clock::now(tx)?);
        match failure {
            Some(error) => tasks::fail(tx, task.id, &error.stored(), &now),
            None => tasks::complete(tx, task.id, &now),
        }
    })
}

fn create_item(
    s: &Services,
    actor: &Actor,
    task: &Task,
    campaigns: &[AdDraft],
    group: Option<i64>,
    idx: i64,
) -> Result<Outcome, StoreError> {
    let Some(draft) = campaigns.get(idx as usize) else {
        return Ok(Outcome::Unreadable(format!("no campaign {idx}")));
    };
    let mut draft = draft.clone();
    draft.client_ref = Some(format!("task:{}:{idx}", task.id));
    let kept = draft.dates;
    draft.dates = kept.to_send(s.db.read_blocking(clock::now)?.timestamp());
    let account = actor.cabinet().id;
    match s.platform.create_ad(account, &draft) {
        Ok(mut snap) => {
            // adcab's record keeps the dates asked for, sent or held while switched off.
            snap.dates = kept;
            let balance = s.platform.balance(account).ok();
            s.db.write_blocking(|tx| {
                if campaigns::get(tx, snap.account_id, snap.ad_id)?.is_none() {
                    write_back::store_created(
                        tx,
                        &snap,
                        group,
                        actor.author(),
                        &s.config.conversions.tracker_params,
                    )?;
                    let zone = draft.schedule_zone.as_deref();
                    campaigns::set_schedule_zone(tx, snap.account_id, snap.ad_id, zone)?;
                }
                lookup::keep(tx, s, &snap.peers)?;
                tasks::record_item(tx, task, idx, Some(snap.ad_id), None)?;
                write_back::store_balance(tx, account, balance)
            })?;
            Ok(Outcome::Done { stop: false })
        }
        Err(e) => match held(&e) {
            Some(outcome) => Ok(outcome),
            None => {
                let error = e.to_string();
                s.db.write_blocking(|tx| tasks::record_item(tx, task, idx, None, Some(&error)))?;
                Ok(Outcome::Done { stop: true })
            }
        },
    }
}

/// One item of a recreate, in two steps that each repeat safely. First the new campaign: made
/// with the item's token as its client reference (a repeat gets the same ad back), stored
/// with `recreated_from` and the token in its history. Then the declined one deleted with a
/// token of its own (a repeat reports the first result), stored with `recreated_as`. An item
/// resumed after a crash finds its first step in the new campaign's history and goes on with
/// the delete, so the new campaign is made once and the old one is deleted only after it.
fn recreate_item(
    s: &Services,
    actor: &Actor,
    task: &Task,
    items: &[Recreation],
    idx: i64,
) -> Result<Outcome, StoreError> {
    let Some(item) = items.get(idx as usize) else {
        return Ok(Outcome::Unreadable(format!("no campaign {idx}")));
    };
    let account = actor.cabinet().id;
    let token = format!("task:{}:{idx}", task.id);
    let made =
        s.db.read_blocking(|c| recreate::made_under(c, account, &token))?;
    let new = match made {
        Some(new) => new,
        None => {
            let checked =
                s.db.read_blocking(|c| recreate::check_declined(c, account, item.from))?;
            let error = match checked {
                Ok(()) => None,
                Err(Unfit::NotDeclined) => Some(Ended::NotDeclined.stored()),
                Err(Unfit::Gone) => Some(Ended::NoSuchCampaign.stored()),
            };
            if let Some(error) = error {
                return record_refusal(s, task, idx, item.from, &error);
            }
            let mut draft = item.campaign.clone();
            draft.client_ref = Some(token.clone());
            let snap = match s.platform.create_ad(account, &draft) {
                Ok(snap) => snap,
                Err(e) => {
                    return match held(&e) {
                        Some(outcome) => Ok(outcome),
                        None => record_refusal(s, task, idx, item.from, &e.to_string()),
                    }
                }
            };
            let stored = (actor.author(), &s.config.conversions.tracker_params[..]);
            s.db.write_blocking(|tx| {
                recreate::store_new(tx, &snap, item.group_id, item.from, &token, stored)?;
                let zone = draft.schedule_zone.as_deref();
                campaigns::set_schedule_zone(tx, snap.account_id, snap.ad_id, zone)?;
                lookup::keep(tx, s, &snap.peers)
            })?;
            snap.ad_id
        }
    };
    let gone =
        s.db.read_blocking(|c| campaigns::get(c, account, item.from))?
            .is_none_or(|row| row.status == Status::Deleted);
    let deleted = if gone {
        Ok(())
    } else {
        match s
            .platform
            .delete_ad(account, item.from, &format!("{token}:old"))
        {
            Ok(_) | Err(PlatformError::NotFound) => Ok(()),
            Err(e) => match held(&e) {
                Some(outcome) => return Ok(outcome),
                None => Err(format!(
                    "The new campaign {new} was made, but the declined one was not deleted: {e}"
                )),
            },
        }
    };
    let balance = s.platform.balance(account).ok();
    s.db.write_blocking(|tx| {
        let by = actor.author();
        recreate::store_old(tx, account, item.from, new, deleted.is_ok(), by)?;
        tasks::record_item(
            tx,
            task,
            idx,
            Some(new),
            deleted.as_ref().err().map(String::as_str),
        )?;
        write_back::store_balance(tx, account, balance)
    })?;
    Ok(Outcome::Done { stop: false })
}

fn bulk_item(
    s: &Services,
    actor: &Actor,
    task: &Task,
    action: &BulkAction,
    ad_ids: &[i64],
    idx: i64,
) -> Result<Outcome, StoreError> {
    let account = actor.cabinet().id;
    let Some(&ad) = ad_ids.get(idx as usize) else {
        return Ok(Outcome::Unreadable(format!("no campaign {idx}")));
    };
    let row =
        s.db.read_blocking(|c| campaigns::get(c, account, ad))?
            .filter(|r| r.status != Status::Deleted);
    let Some(row) = row else {
        return record_refusal(s, task, idx, ad, &Ended::NoSuchCampaign.stored());
    };
    if let Some(refusal) = campaign_ops::refusal(&row, action) {
        let ended = match refusal {
            Refusal::InsufficientAdBalance => Ended::AdBalance,
            Refusal::AutoCpmLocked => Ended::AutoCpmLocked,
            Refusal::ViewerZoneNeedsUsers => Ended::ViewerZone,
            Refusal::NotDeclined => Ended::NotDeclined,
        };
        return record_refusal(s, task, idx, ad, &ended.stored());
    }
    let token = format!("task:{}:{idx}", task.id);
    match campaign_ops::ask(s, actor, ad, action, &token) {
        Ok(made) => {
            let details = json!({ "task": task.id });
            let entry = Entry {
                action: &format!("bulk_{}", action.name()),
                details: &details,
                rule: None,
            };
            s.db.write_blocking(|tx| {
                campaign_ops::store(tx, s, actor, ad, &made, &entry)?;
                if let BulkAction::SetSchedule(schedule) = action {
                    let zone = schedule.as_ref().and_then(Schedule::zone_name);
                    campaigns::set_schedule_zone(tx, account, ad, zone)?;
                }
                tasks::record_item(tx, task, idx, Some(ad), None)
            })?;
            Ok(Outcome::Done { stop: false })
        }
        Err(e) => match held(&e) {
            Some(outcome) => Ok(outcome),
            None => record_refusal(s, task, idx, ad, &e.to_string()),
        },
    }
}

fn record_refusal(
    s: &Services,
    task: &Task,
    idx: i64,
    ad: i64,
    error: &str,
) -> Result<Outcome, StoreError> {
    s.db.write_blocking(|tx| tasks::record_item(tx, task, idx, Some(ad), Some(error)))?;
    Ok(Outcome::Done { stop: false })
}
