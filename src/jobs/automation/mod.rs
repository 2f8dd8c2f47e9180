//! Owns automation's run after each hourly sync: every enabled rule of every cabinet, in
//! order, then Auto CPM (`auto_cpm`), on the figures of that sync, acting through the same
//! platform calls as a bulk task, with changes in the campaign history (source `automation`),
//! status changes sent as `status_change` webhooks, and each rule evaluation that acted, would
//! have acted, failed or was held back by a guard in the rule's log. Blocking: the scheduler
//! runs it off the runtime.

pub mod alerts;
pub mod auto_cpm;
pub mod evaluate;
pub mod preview;

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

use crate::clock;
use crate::domain::rule::{Action, Guards, Planned, State, MAX_WINDOW_HOURS};
use crate::domain::task::BulkAction;
use crate::ops::campaigns::{self as campaign_ops, Entry, Made};
use crate::ops::Actor;
use crate::platform::PlatformError;
use crate::services::Services;
use crate::store::alerts::NewAlert;
use crate::store::moves::{self, NewMove};
use crate::store::rules::{self, LogEntry, RuleRow};
use crate::store::{cabinets, campaigns, StoreError};
use crate::webhooks::events::Receivers;

use evaluate::{Decision, Outcome, Series};

/// Why an automation change was not made; `Display` is the sentence its log entry keeps.
#[derive(Debug)]
pub enum ActError {
    /// The move of money could not be recorded first, so it was not asked of the platform.
    NotRecorded(StoreError),
    /// The platform refused the change, or did not answer.
    Platform(PlatformError),
}

impl std::fmt::Display for ActError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ActError::NotRecorded(e) => {
                write!(f, "the move could not be recorded, so it was not made: {e}")
            }
            ActError::Platform(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ActError {}

/// What a rule's log and preview say of a bid change where the platform reviews bid edits.
pub const SENT_TO_REVIEW: &str =
    "the bid change sends the campaign back to the platform's review, which stops its delivery until approved";

/// The warning a rule's log entry or preview evaluation carries: [`SENT_TO_REVIEW`] for a bid
/// change made, or one a dry run or a preview would make (`outcome` `acted`, `dry_run`,
/// `would_act`), on a platform that `reviews` bid edits; else none.
pub fn warning(rule: &RuleRow, outcome: &str, reviews: bool) -> Option<&'static str> {
    let changes = matches!(outcome, "acted" | "dry_run" | "would_act");
    (reviews && changes && rule.spec.action.edits_bid()).then_some(SENT_TO_REVIEW)
}

/// How far back the guards look: the longest cooldown, and a day of runs.
const GUARD_SPAN: Duration = Duration::hours(MAX_WINDOW_HOURS as i64);

/// Runs every cabinet's enabled rules, then Auto CPM, then the built-in alerts and the daily
/// digest, on the sync of the hour starting at `hour`. Automation never holds the clockwork
/// back: a part that fails (or panics) is logged and the others still run; the hour moves on.
pub fn run_hour(s: &Services, hour: DateTime<Utc>) {
    let at = hour + Duration::hours(1);
    let guarded =
        |what: &str, part: &dyn Fn() -> Result<(), StoreError>| match std::panic::catch_unwind(
            std::panic::AssertUnwindSafe(part),
        ) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::error!(at = %clock::iso(at), error = %e, "{what} failed"),
            Err(_) => tracing::error!(at = %clock::iso(at), "{what} panicked"),
        };
    guarded("the rules", &|| {
        for account in s.db.read_blocking(rules::cabinets_with_rules)? {
            if let Err(e) = run_cabinet(s, account, at) {
                tracing::error!(account, error = %e, "a cabinet's rules failed");
            }
        }
        Ok(())
    });
    guarded("Auto CPM", &|| auto_cpm::run(s, at));
    guarded("the built-in alerts", &|| alerts::check_hour(s, at));
    guarded("the daily digest", &|| alerts::daily_digest(s, at));
    guarded("the note of alerts held back", &|| alerts::note_held(s, at));
}

/// Runs one cabinet's enabled rules at `at`, the end of the synced hour: first the moves of
/// money a crash or a timeout left unsettled are asked of the platform again, then each rule's
/// pass. A rule's notices come as one alert per run.
pub fn run_cabinet(s: &Services, account: i64, at: DateTime<Utc>) -> Result<(), StoreError> {
    let Some(cabinet) = s.db.read_blocking(|c| cabinets::get(c, account))? else {
        return Ok(());
    };
    if !cabinet.is_active {
        return Ok(());
    }
    let kind = cabinet.cabinet_type;
    let actor = Actor::automation(cabinet);
    settle(s, &actor)?;
    let loaded = s.db.read_blocking(|c| {
        let list: Vec<RuleRow> = rules::list(c, &[account])?
            .into_iter()
            .filter(|r| r.spec.enabled)
            .collect();
        let since = clock::iso(at - GUARD_SPAN);
        let (runs, mut money) = rules::runs_since(c, account, &since)?;
        money.extend(moves::since(c, account, &since)?);
        let guards = Guards::new(runs, money, rules::cabinet_cap(c, account)?);
        let series = Series::for_rules(c, account, kind, list.iter().map(|r| &r.spec), at, at)?;
        Ok::<_, StoreError>((list, guards, series, Receivers::load(c)?))
    })?;
    let (list, mut guards, series, receivers) = loaded;
    let telegram = !s.config.notify.bot_token.is_empty();
    for rule in &list {
        let mut states = s.db.read_blocking(|c| campaigns::rule_states(c, account))?;
        let mut act = |state: &State, planned: &Planned, matched: &Value| {
            perform(s, &actor, rule, state, planned, matched, at)
        };
        let decisions = evaluate::pass(rule, kind, &mut states, &series, at, &mut guards, &mut act);
        if decisions.is_empty() {
            continue;
        }
        let noticed: Vec<i64> = decisions
            .iter()
            .filter(|d| d.outcome == Outcome::Acted && matches!(d.planned, Planned::Notify(_)))
            .map(|d| d.ad_id)
            .collect();
        s.db.write_blocking(|tx| {
            let at_iso = clock::iso(at);
            for d in decisions.iter().filter(|d| !d.logged_by_act()) {
                rules::record(tx, &log_entry(rule, d, &at_iso))?;
            }
            if let (false, Action::Notify { text }) = (noticed.is_empty(), &rule.spec.action) {
                let notice = alerts::rule_notice(tx, account, &rule.spec.name, text, &noticed)?;
                let alert = NewAlert {
                    kind: "rule",
                    account_id: Some(account),
                    ad_id: notice.ad_id,
                    user_id: None,
                    text: &notice.text,
                    at: &at_iso,
                };
                alerts::raise(tx, &s.config.notify, &receivers, telegram, &alert)?;
            }
            Ok::<_, StoreError>(())
        })?;
    }
    Ok(())
}

fn log_entry(rule: &RuleRow, d: &Decision, at: &str) -> LogEntry {
    LogEntry {
        rule_id: rule.id,
        account_id: rule.account_id,
        ad_id: d.ad_id,
        at: at.to_string(),
        outcome: d.outcome.name(),
        reason: d.outcome.reason(),
        matched: d.matched.clone(),
        action: d.action.clone(),
        moved: d.moved(),
    }
}

/// Does what a rule decided on one campaign: a platform change, as a bulk task makes it,
/// stored with its history entry (a notice is raised after the pass, one for all the
/// campaigns). A move of money is first logged and recorded with its idempotency token, in
/// one transaction, so a crash after that never lets it be forgotten or paid twice.
fn perform(
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
        Planned::Notify(_) => return Ok(()),
    };
    let at_iso = clock::iso(at);
    let token = format!("rule:{}:{ad}:{at_iso}", rule.id);
    let moving = planned.moves();
    let logged = if moving.micros() > 0 {
        let entry = LogEntry {
            rule_id: rule.id,
            account_id: account,
            ad_id: ad,
            at: at_iso.clone(),
            outcome: "acted",
            reason: None,
            matched: matched.clone(),
            action: change.clone(),
            moved: moving,
        };
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
fn settle(s: &Services, actor: &Actor) -> Result<(), StoreError> {
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
