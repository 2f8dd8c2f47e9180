//! Owns a rule's preview: what it would have done over the last seven days of synced hours,
//! replayed hour by hour on the stored figures from the campaigns' state now, with its guards,
//! changing nothing.

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;
use serde_json::{json, Value};

use super::evaluate::{self, Outcome, Series};
use crate::clock;
use crate::domain::money::CabinetType;
use crate::domain::rule::{Guards, MAX_WINDOW_HOURS};
use crate::store::rules::{self, RuleRow};
use crate::store::{campaigns, StoreError};

/// Evaluations a preview lists at most; its counts cover them all.
pub const MAX_LISTED: usize = 1000;

/// Replays `rule` after each of the last 168 closed hours before `now`.
pub fn preview(
    conn: &Connection,
    rule: &RuleRow,
    kind: CabinetType,
    now: DateTime<Utc>,
) -> Result<Value, StoreError> {
    let last = clock::hour_start(now);
    let span = Duration::hours(i64::from(MAX_WINDOW_HOURS));
    let first = last - span + Duration::hours(1);
    let series = Series::for_rules(conn, rule.account_id, [&rule.spec].into_iter(), first, last)?;
    let mut states = campaigns::rule_states(conn, rule.account_id)?;
    let mut guards = Guards::new(Vec::new(), rules::cabinet_cap(conn, rule.account_id)?);
    let mut live = rule.clone();
    live.spec.dry_run = false;
    let (mut listed, mut would_act, mut skipped) = (Vec::new(), 0, 0);
    let mut at = first;
    while at <= last {
        let mut act = |_: &_, _: &_| Ok(());
        for d in evaluate::pass(&live, kind, &mut states, &series, at, &mut guards, &mut act) {
            match d.outcome {
                Outcome::Skipped(_) => skipped += 1,
                Outcome::Acted | Outcome::DryRun | Outcome::Failed(_) => would_act += 1,
            }
            if listed.len() < MAX_LISTED {
                listed.push(json!({
                    "at": clock::iso(at),
                    "ad_id": d.ad_id,
                    "matched": d.matched,
                    "action": d.action,
                    "outcome": if matches!(d.outcome, Outcome::Skipped(_)) { "skipped" } else { "would_act" },
                    "reason": d.outcome.reason(),
                }));
            }
        }
        at += Duration::hours(1);
    }
    Ok(json!({
        "rule_id": rule.id,
        "from": clock::iso(first),
        "to": clock::iso(last),
        "would_act": would_act,
        "skipped": skipped,
        "evaluations": listed,
        "truncated": would_act + skipped > MAX_LISTED,
    }))
}
