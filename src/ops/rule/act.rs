//! Owns doing what a rule decided on one campaign, for every caller that runs an automation
//! change (the hourly and fast runs, an approved proposal): the platform change as a bulk
//! task makes it, stored with its history entry; a move of money recorded with its
//! idempotency token before the platform is asked, and asked again after a crash or a timeout
//! (`settle`), so that it moves once.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::clock;
use crate::domain::ad::AdEdit;
use crate::domain::money::Money;
use crate::domain::rule::{Planned, State};
use crate::domain::task::BulkAction;
use crate::ops::campaigns::command::Create;
use crate::ops::campaigns::{self as campaign_ops, create, Change, Entry, Made};
use crate::ops::{Actor, OpsError};
use crate::platform::PlatformError;
use crate::services::Services;
use crate::store::campaigns;
use crate::store::moves::{self, NewMove};
use crate::store::rules::{self, LogEntry, RuleRow};
use crate::store::StoreError;

/// Why an automation change was not made; `Display` is the sentence its log entry keeps.
#[derive(Debug)]
pub enum ActError {
    /// The move of money could not be recorded first, so it was not asked of the platform.
    NotRecorded(StoreError),
    /// The platform refused the change, or did not answer.
    Platform(PlatformError),
    /// The copy was refused before it was queued; the sentence says why.
    NotCopied(String),
}

impl std::fmt::Display for ActError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ActError::NotRecorded(e) => {
                write!(f, "the move could not be recorded, so it was not made: {e}")
            }
            ActError::Platform(e) => write!(f, "{e}"),
            ActError::NotCopied(why) => write!(f, "the copy was not made: {why}"),
        }
    }
}

impl std::error::Error for ActError {}

/// Does what a rule decided on one campaign: a platform change, as a bulk task makes it,
/// stored with its history entry (a notice is raised after the pass, one for all the
/// campaigns). A move of money is first logged and recorded with its idempotency token, in
/// one transaction, so a crash after that never lets it be forgotten or paid twice.
pub fn perform(
    s: &Services,
    actor: &Actor,
    rule: &RuleRow,
    state: &State,
    planned: &Planned,
    matched: &Value,
    at: DateTime<Utc>,
) -> Result<(), ActError> {
    let (account, ad) = (actor.cabinet().id, state.ad_id);
    let kind = actor.cabinet().cabinet_type;
    let change = planned.to_json(state, kind);
    let action = match planned {
        Planned::Switch(true) => BulkAction::Resume,
        Planned::Switch(false) => BulkAction::Pause,
        Planned::Cpm(cpm) => BulkAction::SetCpm(*cpm),
        Planned::AddBudget(amount) => BulkAction::AddBudget(*amount),
        Planned::Notify(_) | Planned::Webhook => return Ok(()),
        Planned::DailyBudget(amount) => {
            let details = json!({ "rule": rule.id, "name": rule.spec.name, "change": change });
            let edit = AdEdit {
                daily_budget: Some(Some(*amount)),
                ..AdEdit::default()
            };
            let answer = s.platform.edit_ad(account, ad, &edit).map(|snap| Made {
                change: Change::Snapshot(Box::new(snap)),
                balance: None,
            });
            return finish(s, actor, ad, &details, None, answer);
        }
        Planned::Duplicate { cpm, budget, moves } => {
            let copy = CopyOf {
                cpm: *cpm,
                budget: *budget,
                moves: *moves,
            };
            return duplicate(s, actor, rule, state, &copy, matched, at);
        }
    };
    let at_iso = clock::iso(at);
    let token = format!("rule:{}:{ad}:{at_iso}", rule.id);
    let moving = planned.moves();
    let logged = if moving.micros() > 0 {
        let entry = acted(rule, account, ad, &at_iso, matched, change.clone(), moving);
        let log_id =
            s.db.write_blocking(|tx| {
                let log_id = rules::record(tx, &entry)?;
                moves::plan(
                    tx,
                    &NewMove {
                        token: &token,
                        account_id: account,
                        rule_id: rule.id,
                        ad_id: ad,
                        at: &at_iso,
                        moved: moving,
                        log_id,
                    },
                )?;
                Ok::<_, StoreError>(log_id)
            })
            .map_err(ActError::NotRecorded)?;
        Some(log_id)
    } else {
        None
    };
    let details = json!({ "rule": rule.id, "name": rule.spec.name, "change": change });
    let answer = campaign_ops::ask(s, actor, ad, &action, &token);
    let settled = logged.map(|log_id| (token.as_str(), Some(log_id)));
    finish(s, actor, ad, &details, settled, answer)
}

/// Asks the platform again for each move of money of the cabinet still unsettled (a crash cut
/// its run short, or the platform did not answer), with its own token: a move the platform
/// made reports its first result, one it never saw is made now. Either way it moves once.
pub fn settle(s: &Services, actor: &Actor) -> Result<(), StoreError> {
    let (account, kind) = (actor.cabinet().id, actor.cabinet().cabinet_type);
    for m in s.db.read_blocking(|c| moves::unsettled(c, account))? {
        let details = json!({
            "rule": m.rule_id,
            "change": {"type": "add_budget", "amount": kind.render(m.moved)},
            "settled": "asked again after an interrupted run",
        });
        let answer =
            campaign_ops::ask(s, actor, m.ad_id, &BulkAction::AddBudget(m.moved), &m.token);
        if let Err(why) = finish(
            s,
            actor,
            m.ad_id,
            &details,
            Some((&m.token, m.log_id)),
            answer,
        ) {
            let why = why.to_string();
            tracing::warn!(account, ad = m.ad_id, token = %m.token, why, "an automation move is still unsettled");
        }
    }
    Ok(())
}

/// Stores what the platform answered to an automation change, as every change of a campaign
/// is stored ([`campaign_ops::store`]); a move's record and log entry are settled with it. A
/// refusal settles a move as failed (it counts for nothing); no answer leaves it unsettled (it
/// counts, and is asked again on the next run).
fn finish(
    s: &Services,
    actor: &Actor,
    ad: i64,
    details: &Value,
    settled: Option<(&str, Option<i64>)>,
    answer: Result<Made, PlatformError>,
) -> Result<(), ActError> {
    let account = actor.cabinet().id;
    let made = match answer {
        Ok(made) => made,
        Err(e) => {
            let why = e.to_string();
            let known = !matches!(
                e,
                PlatformError::Unreachable(_)
                    | PlatformError::StorageFull
                    | PlatformError::Internal(_)
            );
            if let Some((token, log_id)) = settled {
                let reason = if known {
                    why.clone()
                } else {
                    format!("{why}; it is asked again on the next run")
                };
                let stored = s.db.write_blocking(|tx| {
                    if known {
                        moves::settle(tx, token, false)?;
                    }
                    if let Some(id) = log_id {
                        rules::set_outcome(tx, id, "failed", Some(&reason))?;
                    }
                    Ok::<_, StoreError>(())
                });
                if let Err(e) = stored {
                    tracing::error!(account, ad, error = %e, "an automation refusal not stored");
                }
            }
            return Err(ActError::Platform(e));
        }
    };
    let entry = Entry {
        action: "rule",
        details,
        rule: details.get("rule").and_then(Value::as_i64),
    };
    let stored = s.db.write_blocking(|tx| {
        if let Some((token, log_id)) = settled {
            moves::settle(tx, token, true)?;
            if let Some(id) = log_id {
                rules::set_outcome(tx, id, "acted", None)?;
            }
        }
        campaign_ops::store(tx, s, actor, ad, &made, &entry)
    });
    if let Err(e) = stored {
        // The platform made the change: it counts as done, and the next sync stores it.
        tracing::error!(account, ad, error = %e, "automation change not stored");
    }
    Ok(())
}

/// A copy a rule decided on: the bid and budget given (else the original's), and the money it
/// takes from the balance.
struct CopyOf {
    cpm: Option<Money>,
    budget: Option<Money>,
    moves: Money,
}

/// Copies campaign `state.ad_id` as the API's copy does (the same reading of the copy and the
/// same queued `copy` task), with the rule's bid and budget. The task, the log entry (naming
/// the task, so the rule never copies its own copies) and the money the copy takes (recorded
/// under the token of the rule, the campaign and the run time, unique, and settled at once:
/// the task's own item reference keeps the platform from making it twice) are written in one
/// transaction, so a retry or a crash never queues a second copy.
fn duplicate(
    s: &Services,
    actor: &Actor,
    rule: &RuleRow,
    state: &State,
    copy: &CopyOf,
    matched: &Value,
    at: DateTime<Utc>,
) -> Result<(), ActError> {
    let (account, ad) = (actor.cabinet().id, state.ad_id);
    let kind = actor.cabinet().cabinet_type;
    let mut body = json!({});
    if let Some(cpm) = copy.cpm {
        body["cpm"] = json!(kind.render(cpm));
    }
    if let Some(budget) = copy.budget {
        body["budget"] = json!(kind.render(budget));
    }
    let source =
        s.db.read_blocking(|c| campaigns::get(c, account, ad))
            .map_err(ActError::NotRecorded)?
            .ok_or_else(|| ActError::NotCopied(copy_refusal(&OpsError::NotFound)))?;
    let caps = s.platform.capabilities();
    let command = Create::copy(&body, actor.cabinet(), &source, caps)
        .map_err(|e| ActError::NotCopied(e.message))?;
    let at_iso = clock::iso(at);
    let token = format!("rule:{}:{ad}:{at_iso}", rule.id);
    let planned = Planned::Duplicate {
        cpm: copy.cpm,
        budget: copy.budget,
        moves: copy.moves,
    };
    let mut change = planned.to_json(state, kind);
    change["token"] = json!(token);
    let queued = s.db.write_blocking(|tx| {
        let task = create::queue(tx, actor, command)?;
        change["task_id"] = json!(task);
        let entry = acted(rule, account, ad, &at_iso, matched, change, copy.moves);
        let log_id = rules::record(tx, &entry)?;
        if copy.moves.micros() > 0 {
            let new = NewMove {
                token: &token,
                account_id: account,
                rule_id: rule.id,
                ad_id: ad,
                at: &at_iso,
                moved: copy.moves,
                log_id,
            };
            moves::plan(tx, &new)?;
            moves::settle(tx, &token, true)?;
        }
        Ok::<_, OpsError>(())
    });
    queued.map_err(|e| match e {
        OpsError::Store(e) => ActError::NotRecorded(e),
        other => ActError::NotCopied(copy_refusal(&other)),
    })
}

/// The sentence a rule's log keeps for a copy refused before it was queued.
fn copy_refusal(e: &OpsError) -> String {
    match e {
        OpsError::Invalid(p) => p.message.clone(),
        OpsError::QueueFull { limit } => {
            format!("the cabinet already has {limit} new campaigns or copies queued")
        }
        OpsError::Refused(r) => r.sentence().to_string(),
        OpsError::NotFound | OpsError::UnknownAdIds(_) => "the campaign is gone".into(),
        OpsError::Media(_) => "the campaign's media cannot be copied".into(),
        OpsError::Platform(e) => e.to_string(),
        OpsError::Store(_) | OpsError::Internal(_) => "the copy could not be queued".into(),
        OpsError::RuleNotFound
        | OpsError::NotYours(_)
        | OpsError::BudgetUnchanged
        | OpsError::Funds(_) => "the copy was refused".into(),
    }
}

/// The log entry of a change asked of the platform, written before it is asked (`acted`;
/// settled with the answer).
fn acted(
    rule: &RuleRow,
    account: i64,
    ad: i64,
    at: &str,
    matched: &Value,
    action: Value,
    moved: Money,
) -> LogEntry {
    LogEntry {
        rule_id: rule.id,
        account_id: account,
        ad_id: ad,
        at: at.to_string(),
        outcome: "acted",
        reason: None,
        matched: matched.clone(),
        action,
        moved,
    }
}
