//! Owns the task worker: claim a runnable task, run one item of it against the platform,
//! commit what the item produced together with the task's progress, complete. Every platform
//! call carries a reference unique to its task item (a create's client reference, a budget
//! move's token), so an item repeated after a crash finds its first result instead of acting
//! twice. The loop sleeps only when nothing is runnable; a new task wakes it.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{watch, Notify};

use crate::clock;
use crate::db;
use crate::domain::campaign::{Status, TargetType};
use crate::domain::money::Money;
use crate::domain::schedule::Schedule;
use crate::platform::{AdDraft, AdEdit, AdSnapshot, BudgetOp, PlatformError};
use crate::store::history::Source;
use crate::store::tasks::{self, Task};
use crate::store::StoreError;
use crate::store::{cabinets, campaigns};
use crate::{sync, Services};

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
            Err(panic) => tracing::error!(panic, "task step panicked"),
        }
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(IDLE) => {}
            _ = stop.changed() => {}
        }
    }
}

/// Does one unit of work: one item of the next runnable task. Blocking.
pub fn run_one(s: &Services) -> Result<Step, StoreError> {
    let task = s.db.write_blocking(|tx| {
        let task = tasks::next_runnable(tx)?;
        if let Some(t) = task.as_ref().filter(|t| t.status == "pending") {
            tasks::start(tx, t.id, &clock::iso(clock::now(tx)?))?;
        }
        Ok::<_, StoreError>(task)
    })?;
    let Some(task) = task else {
        return Ok(Step::Empty);
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
    let blocked = match &cabinet {
        None => Some("The cabinet no longer exists."),
        Some(c) if !c.is_active => Some("The cabinet is deactivated."),
        Some(c) if c.auth_expired => {
            Some("The cabinet's platform session expired; reconnect it in the panel.")
        }
        Some(_) => None,
    };
    if let Some(reason) = blocked {
        finish(s, &task, Some(reason))?;
        return Ok(Step::Ran);
    }
    let outcome = match task.kind.as_str() {
        "create" | "copy" => create_item(s, &task, idx)?,
        "status" | "budget" | "cpm" | "schedule" | "delete" => bulk_item(s, &task, idx)?,
        other => Outcome::Unreadable(format!("unknown task type {other:?}")),
    };
    match outcome {
        Outcome::Unreadable(what) => {
            tracing::error!(
                task = task.id,
                item = idx,
                what,
                "a stored task cannot be read; failing it"
            );
            finish(
                s,
                &task,
                Some("The task's stored data cannot be read, so it was stopped; queue the operation again."),
            )?;
        }
        Outcome::Done { stop } => {
            if stop || done.len() as i64 + 1 == task.total {
                finish(s, &task, None)?;
            }
        }
        Outcome::OutOfBalance => {
            let reason = format!(
                "The cabinet balance ran out at item {idx}; top up the cabinet and resume the task from the panel."
            );
            s.db.write_blocking(|tx| tasks::pause(tx, task.id, &reason))?;
        }
        Outcome::Timeout => {
            let count =
                s.db.write_blocking(|tx| tasks::count_timeout(tx, task.id))?;
            if count >= MAX_TIMEOUTS {
                finish(
                    s,
                    &task,
                    Some("The platform did not answer; the task stopped."),
                )?;
            }
        }
    }
    Ok(Step::Ran)
}

enum Outcome {
    /// The item is recorded; `stop` ends the task early (a create stops at its first failure).
    Done {
        stop: bool,
    },
    OutOfBalance,
    Timeout,
    /// The stored task is damaged (an unknown type, a payload without the item): it fails,
    /// and nothing runs on made-up values.
    Unreadable(String),
}

fn finish(s: &Services, task: &Task, failure: Option<&str>) -> Result<(), StoreError> {
    s.db.write_blocking(|tx| {
        let now = clock::iso(clock::now(tx)?);
        match failure {
            Some(error) => tasks::fail(tx, task.id, error, &now),
            None => tasks::complete(tx, task.id, &now),
        }
    })
}

/// Stores the cabinet balance the platform reported (read before the transaction opens: a
/// platform call must never run while the writer is held).
fn store_balance(
    conn: &rusqlite::Connection,
    account: i64,
    balance: Option<Money>,
) -> Result<(), StoreError> {
    if let Some(balance) = balance {
        cabinets::set_balance(conn, account, balance, &clock::iso(clock::now(conn)?))?;
    }
    Ok(())
}

fn create_item(s: &Services, task: &Task, idx: i64) -> Result<Outcome, StoreError> {
    let mut draft: AdDraft =
        match serde_json::from_value(task.payload["campaigns"][idx as usize].clone()) {
            Ok(draft) => draft,
            Err(e) => return Ok(Outcome::Unreadable(format!("campaign {idx}: {e}"))),
        };
    draft.client_ref = Some(format!("task:{}:{idx}", task.id));
    let group = match &task.payload["group_id"] {
        Value::Null => None,
        v => match v.as_i64() {
            Some(id) => Some(id),
            None => return Ok(Outcome::Unreadable(format!("group_id {v}"))),
        },
    };
    match s.platform.create_ad(task.account_id, &draft) {
        Ok(snap) => {
            let balance = s.platform.balance(task.account_id).ok();
            s.db.write_blocking(|tx| {
                if campaigns::get(tx, snap.account_id, snap.ad_id)?.is_none() {
                    sync::store_created(
                        tx,
                        &snap,
                        group,
                        Source::Api,
                        &s.config.conversions.tracker_params,
                    )?;
                }
                tasks::record_item(tx, task, idx, Some(snap.ad_id), None)?;
                store_balance(tx, task.account_id, balance)
            })?;
            Ok(Outcome::Done { stop: false })
        }
        Err(PlatformError::InsufficientBalance) => Ok(Outcome::OutOfBalance),
        Err(PlatformError::Timeout) => Ok(Outcome::Timeout),
        Err(e) => {
            let error = e.to_string();
            s.db.write_blocking(|tx| tasks::record_item(tx, task, idx, None, Some(&error)))?;
            Ok(Outcome::Done { stop: true })
        }
    }
}

/// What one bulk item did on the platform.
enum Change {
    Snapshot(Box<AdSnapshot>),
    Deleted { removed: bool },
}

fn bulk_item(s: &Services, task: &Task, idx: i64) -> Result<Outcome, StoreError> {
    let account = task.account_id;
    let payload = &task.payload;
    let (Some(ad), Some(action)) = (
        payload["ad_ids"][idx as usize].as_i64(),
        payload["action"].as_str().map(str::to_string),
    ) else {
        return Ok(Outcome::Unreadable(format!("bulk item {idx} of {payload}")));
    };
    let amount = |field: &str| payload[field].as_i64().map(Money::from_micros);
    let money = match action.as_str() {
        "add_budget" | "withdraw_budget" => amount("amount"),
        "set_cpm" => amount("cpm"),
        _ => Some(Money::ZERO),
    };
    let Some(money) = money else {
        return Ok(Outcome::Unreadable(format!(
            "the amount of {action} in {payload}"
        )));
    };
    let row =
        s.db.read_blocking(|c| campaigns::get(c, account, ad))?
            .filter(|r| r.status != Status::Deleted);
    let Some(row) = row else {
        return record_refusal(
            s,
            task,
            idx,
            ad,
            "No such campaign in this cabinet, or it is deleted.",
        );
    };
    let token = format!("task:{}:{idx}", task.id);
    let result = match action.as_str() {
        "pause" | "resume" => s
            .platform
            .switch_ad(account, ad, action == "resume")
            .map(|(snap, _)| Change::Snapshot(Box::new(snap))),
        "add_budget" => s
            .platform
            .move_budget(account, ad, BudgetOp::Add(money), &token)
            .map(|m| Change::Snapshot(Box::new(m.ad))),
        "withdraw_budget" => {
            if row.budget < money {
                return record_refusal(
                    s,
                    task,
                    idx,
                    ad,
                    "INSUFFICIENT_AD_BALANCE: the campaign has less budget than the amount.",
                );
            }
            s.platform
                .move_budget(account, ad, BudgetOp::Withdraw(money), &token)
                .map(|m| Change::Snapshot(Box::new(m.ad)))
        }
        "withdraw_all_budget" => s
            .platform
            .move_budget(account, ad, BudgetOp::WithdrawAll, &token)
            .map(|m| Change::Snapshot(Box::new(m.ad))),
        "set_cpm" => {
            let edit = AdEdit {
                cpm: Some(money),
                ..AdEdit::default()
            };
            s.platform
                .edit_ad(account, ad, &edit)
                .map(|snap| Change::Snapshot(Box::new(snap)))
        }
        "set_schedule" => {
            let schedule = task.payload["schedule"].clone();
            if !schedule.is_null() && Schedule::parse(&schedule, "schedule", None).is_err() {
                return Ok(Outcome::Unreadable(format!("the schedule {schedule}")));
            }
            if schedule["timezone"] == "viewer" && row.target_type != TargetType::Users {
                return record_refusal(
                    s,
                    task,
                    idx,
                    ad,
                    "timezone viewer applies only to campaigns that target an audience (users).",
                );
            }
            let edit = AdEdit {
                schedule: Some((!schedule.is_null()).then_some(schedule)),
                ..AdEdit::default()
            };
            s.platform
                .edit_ad(account, ad, &edit)
                .map(|snap| Change::Snapshot(Box::new(snap)))
        }
        "delete" => s
            .platform
            .delete_ad(account, ad, &token)
            .map(|removed| Change::Deleted { removed }),
        other => {
            return Ok(Outcome::Unreadable(format!(
                "unknown bulk action {other:?}"
            )))
        }
    };
    match result {
        Ok(change) => {
            let moves_money = action.contains("budget") || action == "delete";
            let balance = if moves_money {
                s.platform.balance(account).ok()
            } else {
                None
            };
            s.db.write_blocking(|tx| {
                let now = clock::iso(clock::now(tx)?);
                match &change {
                    Change::Snapshot(snap) => {
                        sync::apply(tx, snap, Source::Task, &s.config.conversions.tracker_params)?
                    }
                    Change::Deleted { removed } => {
                        sync::record_change(tx, &row, Status::Deleted, Source::Task, &now)?;
                        if *removed {
                            campaigns::remove(tx, account, ad)?;
                        } else {
                            campaigns::mark_deleted(tx, account, ad, &now)?;
                        }
                    }
                }
                sync::record_history(
                    tx,
                    account,
                    ad,
                    Source::Api,
                    &format!("bulk_{action}"),
                    &json!({ "task": task.id }),
                )?;
                tasks::record_item(tx, task, idx, Some(ad), None)?;
                store_balance(tx, account, balance)
            })?;
            Ok(Outcome::Done { stop: false })
        }
        Err(PlatformError::InsufficientBalance) => Ok(Outcome::OutOfBalance),
        Err(PlatformError::Timeout) => Ok(Outcome::Timeout),
        Err(e) => record_refusal(s, task, idx, ad, &e.to_string()),
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
