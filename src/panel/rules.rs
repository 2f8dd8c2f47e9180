//! Owns the operator's view of automation: `admin rule list`, every rule of every cabinet (or
//! of one owner's cabinets) as the API shows it.

use serde::Serialize;
use serde_json::Value;

use super::PanelError;
use crate::automation;
use crate::store::{cabinets, rules};
use crate::Services;

/// `admin rule list`.
#[derive(Debug, Clone, Serialize)]
pub struct RuleList {
    pub rules: Vec<Value>,
}

/// The rules of every cabinet, or of the cabinets `owner` owns, in the order they run.
pub fn rule_list(s: &Services, owner: Option<i64>) -> Result<RuleList, PanelError> {
    s.db.read_blocking(|conn| {
        let mut listed = Vec::new();
        for rule in rules::all(conn)? {
            let Some(cabinet) = cabinets::get(conn, rule.account_id)? else {
                continue;
            };
            if owner.is_none_or(|o| o == cabinet.owner_id) {
                listed.push(automation::describe(&rule, cabinet.cabinet_type));
            }
        }
        Ok(RuleList { rules: listed })
    })
}
