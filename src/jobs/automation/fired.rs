//! Owns a `webhook` rule's one event per run: `rule_fired`, naming the rule, the run time and
//! every campaign it acted on with the readings that matched, queued for the keys receiving the
//! cabinet's events. Moves no money; the rule's cooldown and runs a day decide which campaigns
//! it names.

use rusqlite::Connection;
use serde_json::{json, Value};

use super::evaluate::{Decision, Outcome};
use crate::domain::rule::Planned;
use crate::store::rules::RuleRow;
use crate::store::StoreError;
use crate::webhooks::events::{self, Receivers};

/// Queues the run's `rule_fired` event for the campaigns of cabinet `account` (a rule across
/// cabinets sends one per cabinet, to the keys receiving that cabinet's events) when the rule acted on any campaign (a dry run or a
/// guard's hold sends nothing). Returns how many events were queued.
pub fn queue(
    tx: &Connection,
    receivers: &Receivers,
    rule: &RuleRow,
    account: i64,
    decisions: &[Decision],
    at: &str,
) -> Result<usize, StoreError> {
    let campaigns: Vec<Value> = decisions
        .iter()
        .filter(|d| d.outcome == Outcome::Acted && d.planned == Planned::Webhook)
        .map(|d| json!({ "ad_id": d.ad_id, "matched": d.matched }))
        .collect();
    if campaigns.is_empty() {
        return Ok(0);
    }
    let payload = json!({
        "event": "rule_fired",
        "account_id": account,
        "rule": { "id": rule.id, "name": rule.spec.name },
        "at": at,
        "campaigns": campaigns,
    });
    events::queue_event(tx, receivers, account, "rule_fired", &payload)
}
