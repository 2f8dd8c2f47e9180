//! Owns what the MCP tools share of their shape: reading a call's arguments (an unknown field
//! refused, as the API's bodies) and the JSON of a cabinet and of a campaign, amounts in the
//! cabinet's currency.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::ToolError;
use crate::domain::money::CabinetType;
use crate::store::cabinets::Reachable;
use crate::store::campaigns::CampaignRow;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CampaignArgs {
    pub(super) account_id: Option<i64>,
    pub(super) ad_id: i64,
}

pub(super) fn args<T: DeserializeOwned>(arguments: &Value) -> Result<T, ToolError> {
    let value = if arguments.is_null() {
        json!({})
    } else {
        arguments.clone()
    };
    serde_json::from_value(value).map_err(|e| ToolError::invalid("arguments", e))
}

pub(super) fn cabinet_json(r: &Reachable) -> Value {
    let c = &r.cabinet;
    json!({
        "account_id": c.id,
        "name": c.name,
        "currency": c.cabinet_type.currency(),
        "balance": c.cabinet_type.render(c.balance),
        "access": r.access.as_str(),
        "active": c.is_active,
        "session_expired": c.auth_expired,
        "locked": c.locked,
    })
}

pub(super) fn campaign_json(r: &CampaignRow, kind: CabinetType) -> Value {
    json!({
        "account_id": r.account_id,
        "ad_id": r.ad_id,
        "title": r.title,
        "status": r.status.as_str(),
        "active": r.active,
        "currency": kind.currency(),
        "cpm": kind.render(r.cpm),
        "budget": kind.render(r.budget),
        "spent": kind.render(r.spent),
        "daily_budget": r.daily_budget.map(|m| kind.render(m)),
        "views": r.views,
        "opens": r.opens,
        "clicks": r.clicks,
        "actions": r.actions,
        "promote_url": r.promote_url,
        "auto_cpm": r.auto_cpm_enabled,
        "synced_at": r.synced_at,
    })
}
