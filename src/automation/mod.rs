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
use crate::domain::money::CabinetType;
use crate::domain::rule::{Guards, Planned, State, MAX_WINDOW_HOURS};
use crate::domain::task::BulkAction;
use crate::store::alerts::NewAlert;
use crate::store::history::Source;
use crate::store::rules::{self, LogEntry, RuleRow};
use crate::store::{cabinets, campaigns, StoreError};
use crate::webhooks::events::Receivers;
use crate::worker::{self, Change};
use crate::{sync, Services};

use evaluate::{Decision, Series};

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
}

/// Runs one cabinet's enabled rules at `at`, the end of the synced hour.
pub fn run_cabinet(s: &Services, account: i64, at: DateTime<Utc>) -> Result<(), StoreError> {
    let Some(cabinet) = s.db.read_blocking(|c| cabinets::get(c, account))? else {
        return Ok(());
    };
    if !cabinet.is_active {
        return Ok(());
    }
    let kind = cabinet.cabinet_type;
    let loaded = s.db.read_blocking(|c| {
        let list: Vec<RuleRow> = rules::list(c, &[account])?
            .into_iter()
            .filter(|r| r.spec.enabled)
            .collect();
        let runs = rules::runs_since(c, account, &clock::iso(at - GUARD_SPAN))?;
        let guards = Guards::new(runs, rules::cabinet_cap(c, account)?);
        let series = Series::for_rules(c, account, list.iter().map(|r| &r.spec), at, at)?;
        Ok::<_, StoreError>((list, guards, series, Receivers::load(c)?))
    })?;
    let (list, mut guards, series, receivers) = loaded;
    for rule in &list {
        let mut states = s.db.read_blocking(|c| campaigns::rule_states(c, account))?;
        let mut act = |state: &State, planned: &Planned| {
            perform(s, rule, kind, state, planned, at, &receivers)
        };
        let decisions = evaluate::pass(rule, kind, &mut states, &series, at, &mut guards, &mut act);
        if decisions.is_empty() {
            continue;
        }
        s.db.write_blocking(|tx| {
            let at = clock::iso(at);
            decisions
                .iter()
                .try_for_each(|d| rules::record(tx, &log_entry(rule, d, &at)))
        })?;
    }
    Ok(())
}

/// A rule as the API, the panel and the operator's commands show it.
pub fn describe(rule: &RuleRow, kind: CabinetType) -> Value {
    let spec = &rule.spec;
    json!({
        "id": rule.id,
        "account_id": rule.account_id,
        "name": spec.name,
        "scope": spec.scope.to_json(),
        "match": if spec.match_all { "all" } else { "any" },
        "conditions": spec.conditions.iter().map(|c| c.to_json()).collect::<Vec<_>>(),
        "action": spec.action.to_json(kind),
        "cooldown_hours": spec.cooldown_hours,
        "max_runs_per_day": spec.max_runs_per_day,
        "enabled": spec.enabled,
        "dry_run": spec.dry_run,
        "created_at": rule.created_at,
        "updated_at": rule.updated_at,
    })
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

/// Does what a rule decided on one campaign: a platform change (as a bulk task makes it) stored
/// with its history entry, or an alert. The error is the sentence for the log.
fn perform(
    s: &Services,
    rule: &RuleRow,
    kind: CabinetType,
    state: &State,
    planned: &Planned,
    at: DateTime<Utc>,
    receivers: &Receivers,
) -> Result<(), String> {
    let (account, ad) = (rule.account_id, state.ad_id);
    let details = json!({
        "rule": rule.id,
        "name": rule.spec.name,
        "change": planned.to_json(state, kind),
    });
    let action = match planned {
        Planned::Switch(true) => BulkAction::Resume,
        Planned::Switch(false) => BulkAction::Pause,
        Planned::Cpm(cpm) => BulkAction::SetCpm(*cpm),
        Planned::AddBudget(amount) => BulkAction::AddBudget(*amount),
        Planned::Notify(text) => {
            let text = format!("{text} (rule “{}”, campaign {ad})", rule.spec.name);
            let alert = NewAlert {
                kind: "rule",
                account_id: Some(account),
                ad_id: Some(ad),
                user_id: None,
                text: &text,
                at: &clock::iso(at),
            };
            let telegram = !s.config.notify.bot_token.is_empty();
            return s
                .db
                .write_blocking(|tx| alerts::raise(tx, receivers, telegram, &alert))
                .map_err(|e| format!("alert not queued: {e}"));
        }
    };
    let token = format!("rule:{}:{ad}:{}", rule.id, clock::iso(at));
    let change =
        worker::change_on_platform(s, account, ad, &action, &token).map_err(|e| e.to_string())?;
    let balance = matches!(planned, Planned::AddBudget(_))
        .then(|| s.platform.balance(account).ok())
        .flatten();
    let stored = s.db.write_blocking(|tx| {
        if let Change::Snapshot(snap) = &change {
            sync::apply(
                tx,
                snap,
                Source::Automation,
                &s.config.conversions.tracker_params,
            )?;
        }
        sync::record_history(tx, account, ad, Source::Automation, "rule", &details)?;
        sync::store_balance(tx, account, balance)
    });
    if let Err(e) = stored {
        // The platform made the change: it counts as done, and the next sync stores it.
        tracing::error!(rule = rule.id, account, ad, error = %e, "automation change not stored");
    }
    Ok(())
}
