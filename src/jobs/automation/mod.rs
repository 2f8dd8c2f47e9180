//! Owns automation's run after each hourly sync: every enabled rule of every cabinet, in
//! order, then Auto CPM (`auto_cpm`), on the figures of that sync, acting through
//! `ops::rule::act` (the same platform calls as a bulk task), with changes in the campaign history (source `automation`),
//! status changes sent as `status_change` webhooks, and each rule evaluation that acted, would
//! have acted, failed or was held back by a guard in the rule's log. Blocking: the scheduler
//! runs it off the runtime.

pub mod alerts;
pub mod auto_cpm;
pub mod evaluate;
pub mod fast;
mod fired;
pub mod marks;
pub mod preview;

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

use crate::clock;
use crate::domain::rule::{Action, Every, Planned, State};
use crate::ops::proposals;
use crate::ops::rule::act;
use crate::ops::Actor;
use crate::services::Services;
use crate::store::alerts::NewAlert;
use crate::store::rules::{self, LogEntry, RuleRow};
use crate::store::{cabinets, campaigns, StoreError};
use crate::webhooks::events::Receivers;

use evaluate::{Decision, Outcome, Series, Source};

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
    guarded("the proposals' expiry", &|| {
        proposals::expire_due(s).map(|_| ())
    });
    guarded("Auto CPM", &|| auto_cpm::run(s, at));
    guarded("the built-in alerts", &|| alerts::check_hour(s, at));
    guarded("the daily digest", &|| alerts::daily_digest(s, at));
    guarded("the note of alerts held back", &|| alerts::note_held(s, at));
}

/// Runs one cabinet's enabled hourly rules at `at`, the end of the synced hour: first the
/// moves of money a crash or a timeout left unsettled are asked of the platform again, then
/// each rule's pass. A rule's notices come as one alert per run. Rules checked every 5 minutes
/// are left to the fast checks (`fast`), which run them at this mark too.
pub fn run_cabinet(s: &Services, account: i64, at: DateTime<Utc>) -> Result<(), StoreError> {
    run_rules(s, account, at, Every::Hour)
}

/// [`run_cabinet`] for the enabled rules checked `every` so often: an hourly run reads the
/// hour series, a fast one (at a 5-minute mark `at`) the marks ([`marks::Marks`]).
pub fn run_rules(
    s: &Services,
    account: i64,
    at: DateTime<Utc>,
    every: Every,
) -> Result<(), StoreError> {
    let Some(cabinet) = s.db.read_blocking(|c| cabinets::get(c, account))? else {
        return Ok(());
    };
    if !cabinet.is_active {
        return Ok(());
    }
    let kind = cabinet.cabinet_type;
    let actor = Actor::automation(cabinet);
    act::settle(s, &actor)?;
    let loaded = s.db.read_blocking(|c| {
        let list: Vec<RuleRow> = rules::list(c, &[account])?
            .into_iter()
            .filter(|r| r.spec.enabled && r.spec.every == every)
            .collect();
        let guards = rules::guards(c, account, at)?;
        let specs = list.iter().map(|r| &r.spec);
        let series: Box<dyn Source> = match every {
            Every::Hour => Box::new(Series::for_rules(c, account, kind, specs, at, at)?),
            Every::FiveMinutes => Box::new(marks::Marks::load(c, account, kind, specs, at)?),
        };
        Ok::<_, StoreError>((list, guards, series, Receivers::load(c)?))
    })?;
    let (list, mut guards, series, receivers) = loaded;
    let telegram = !s.config.notify.bot_token.is_empty();
    for rule in &list {
        let mut states = s.db.read_blocking(|c| campaigns::rule_states(c, account))?;
        if let Action::Duplicate { .. } = rule.spec.action {
            let copies =
                s.db.read_blocking(|c| rules::copies_made(c, rule.id, account))?;
            states.retain(|st| !copies.contains(&st.ad_id));
        }
        let mut act = |state: &State, planned: &Planned, matched: &Value| {
            act::perform(s, &actor, rule, state, planned, matched, at)
        };
        let decisions =
            evaluate::pass(rule, kind, &mut states, &*series, at, &mut guards, &mut act);
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
                if d.outcome == Outcome::Proposed
                    && !propose(s, tx, rule, account, d, at, telegram)?
                {
                    continue;
                }
                rules::record(tx, &log_entry(rule, account, d, &at_iso))?;
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
            if let Action::Webhook = rule.spec.action {
                fired::queue(tx, &receivers, rule, account, &decisions, &at_iso)?;
            }
            Ok::<_, StoreError>(())
        })?;
    }
    Ok(())
}

/// Stores a decision of a rule that asks first on a campaign of cabinet `account` as a
/// proposal; false when one is pending.
fn propose(
    s: &Services,
    tx: &rusqlite::Connection,
    rule: &RuleRow,
    account: i64,
    d: &Decision,
    at: DateTime<Utc>,
    telegram: bool,
) -> Result<bool, StoreError> {
    let minutes = s.config.automation.proposal_expiry_minutes;
    proposals::propose(
        tx, rule, account, d.ad_id, &d.action, &d.matched, at, minutes, telegram,
    )
}

/// The log entry of decision `d` of `rule` on a campaign of cabinet `account` (a rule across
/// cabinets logs each in its cabinet).
fn log_entry(rule: &RuleRow, account: i64, d: &Decision, at: &str) -> LogEntry {
    LogEntry {
        rule_id: rule.id,
        account_id: account,
        ad_id: d.ad_id,
        at: at.to_string(),
        outcome: d.outcome.name(),
        reason: d.outcome.reason(),
        matched: d.matched.clone(),
        action: d.action.clone(),
        moved: d.moved(),
    }
}
