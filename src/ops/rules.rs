//! Owns the operator's view of automation: `admin rule list`, every rule of every cabinet (or
//! of one owner's cabinets) as the API shows it, and `admin auto-cpm log`, a campaign's Auto
//! CPM decisions.

use serde::Serialize;
use serde_json::{json, Value};

use super::OpsError;
use crate::services::Services;
use crate::store::{auto_cpm, cabinets, rules};

/// `admin rule list`.
#[derive(Debug, Clone, Serialize)]
pub struct RuleList {
    pub rules: Vec<Value>,
}

/// The rules of every cabinet, or of the cabinets `owner` owns, in the order they run.
pub fn rule_list(s: &Services, owner: Option<i64>) -> Result<RuleList, OpsError> {
    s.db.read_blocking(|conn| {
        let mut listed = Vec::new();
        for rule in rules::all(conn)? {
            let Some(cabinet) = cabinets::get(conn, rule.account_id)? else {
                continue;
            };
            if owner.is_none_or(|o| o == cabinet.owner_id) {
                listed.push(crate::ops::rule::describe(&rule, cabinet.cabinet_type));
            }
        }
        Ok(RuleList { rules: listed })
    })
}

/// `admin auto-cpm log`.
#[derive(Debug, Clone, Serialize)]
pub struct AutoCpmLog {
    pub decisions: Vec<Value>,
}

/// Every Auto CPM decision on a campaign, oldest first, with what it read.
pub fn auto_cpm_log(s: &Services, account: i64, ad: i64) -> Result<AutoCpmLog, OpsError> {
    s.db.read_blocking(|conn| {
        let cabinet = super::require_cabinet(conn, account)?;
        let kind = cabinet.cabinet_type;
        let decisions = auto_cpm::log(conn, account, ad)?
            .into_iter()
            .map(|d| {
                json!({
                    "at": d.at,
                    "reason": d.reason,
                    "hours": d.hours,
                    "views": d.figures.views,
                    "actions": d.figures.actions,
                    "spent": kind.render(d.figures.spent),
                    "observed": d.observed,
                    "from": kind.render(d.from),
                    "to": d.to.map(|m| kind.render(m)),
                    "review_minutes": d.review_minutes,
                })
            })
            .collect();
        Ok(AutoCpmLog { decisions })
    })
}
