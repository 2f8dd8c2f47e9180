//! Owns the MCP read tools' answers: cabinets, campaigns with the list's filters, one
//! campaign, stats of a campaign or a cabinet over a period, a campaign's history, and what
//! needs attention as the panel's home page flags it (the same store reads), each as JSON with
//! amounts in the cabinet's currency. Reads only: nothing here changes state.

use serde::Deserialize;
use serde_json::{json, Value};

use super::error::ToolError;
use super::shape::{args, cabinet_json, campaign_json, CampaignArgs};
use crate::auth::Principal;
use crate::clock;
use crate::domain::campaign::Status;
use crate::domain::money::CabinetType;
use crate::domain::query::Query;
use crate::domain::rule::templates::TEMPLATES;
use crate::domain::stats::{stats_span, Totals};
use crate::ops;
use crate::ops::campaigns::list::list_request;
use crate::services::Services;
use crate::store::cabinets::Reachable;
use crate::store::campaigns::{self, CampaignRow};
use crate::store::{attention, runs, stats};

/// How many of each kind of campaign needing attention a cabinet shows.
const ATTENTION_SHOWN: i64 = 20;
/// The most history entries one read returns (the newest).
const HISTORY_MAX: usize = 200;

/// Answers a read tool.
pub fn read(
    s: &Services,
    principal: &Principal,
    name: &str,
    arguments: &Value,
) -> Result<Value, ToolError> {
    match name {
        "list_cabinets" => {
            args::<Empty>(arguments)?;
            let cabinets: Vec<Value> = principal.reach.iter().map(cabinet_json).collect();
            Ok(json!({ "cabinets": cabinets }))
        }
        "list_campaigns" => list_campaigns(s, principal, args(arguments)?),
        "get_campaign" => {
            let a: CampaignArgs = args(arguments)?;
            let (reach, row) = campaign_of(s, principal, a.account_id, a.ad_id)?;
            Ok(campaign_json(&row, reach.cabinet.cabinet_type))
        }
        "get_stats" => stats_of(s, principal, args(arguments)?),
        "get_history" => {
            let a: CampaignArgs = args(arguments)?;
            let (reach, row) = campaign_of(s, principal, a.account_id, a.ad_id)?;
            let kind = reach.cabinet.cabinet_type;
            let mut events = ops::history(s, row.account_id, row.ad_id)
                .map_err(|e| ToolError::of_ops(e, kind))?
                .events;
            let skip = events.len().saturating_sub(HISTORY_MAX);
            events.drain(..skip);
            Ok(json!({ "account_id": row.account_id, "ad_id": row.ad_id, "events": events }))
        }
        "list_rule_templates" => {
            args::<Empty>(arguments)?;
            let list: Vec<Value> = TEMPLATES.iter().map(|t| t.to_json()).collect();
            Ok(json!({ "templates": list }))
        }
        _ => needs_attention(s, principal, args(arguments)?),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    account_id: Option<i64>,
    status: Option<String>,
    title: Option<String>,
    limit: Option<i64>,
    offset: Option<i64>,
}

fn list_campaigns(s: &Services, principal: &Principal, a: ListArgs) -> Result<Value, ToolError> {
    let scope = principal.scope(a.account_id)?;
    let kinds: Vec<(i64, CabinetType)> = scope
        .iter()
        .map(|r| (r.cabinet.id, r.cabinet.cabinet_type))
        .collect();
    let mut q = Query::parse("")?;
    let pairs = [
        ("status", a.status),
        ("title", a.title),
        ("limit", a.limit.map(|n| n.to_string())),
        ("offset", a.offset.map(|n| n.to_string())),
    ];
    for (name, value) in pairs {
        if let Some(value) = value {
            q = q.with(name, &value);
        }
    }
    let request = list_request(&q, kinds.iter().map(|(id, _)| *id).collect())?;
    let orders = s.db.figure_orders();
    let (rows, more) =
        s.db.read_blocking(|c| campaigns::list(c, &orders, &request.filter, &request.page))?;
    let kind_of = |account: i64| {
        kinds
            .iter()
            .find(|(id, _)| *id == account)
            .map_or(CabinetType::Euro, |(_, k)| *k)
    };
    let data: Vec<Value> = rows
        .iter()
        .map(|r| campaign_json(r, kind_of(r.account_id)))
        .collect();
    Ok(json!({ "campaigns": data, "has_more": more }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatsArgs {
    account_id: Option<i64>,
    ad_id: Option<i64>,
    period: Option<String>,
}

fn stats_of(s: &Services, principal: &Principal, a: StatsArgs) -> Result<Value, ToolError> {
    if let Some(p) = a.period.as_deref() {
        if !matches!(p, "1d" | "7d" | "30d" | "all") {
            return Err(ToolError::invalid("period", "must be 1d, 7d, 30d or all."));
        }
    }
    let reach = principal.single(a.account_id)?;
    let (account, kind) = (reach.cabinet.id, reach.cabinet.cabinet_type);
    let now = s.db.read_blocking(clock::now)?;
    let span = stats_span(a.period.as_deref(), now);
    let (from, to) = (span.from.map(clock::iso), clock::iso(span.to));
    let totals = match a.ad_id {
        Some(ad) => {
            let (_, row) = campaign_of(s, principal, Some(account), ad)?;
            match from {
                Some(from) => {
                    s.db.read_blocking(|c| runs::of_campaign(c, account, ad, &from, &to))?
                        .unwrap_or_default()
                }
                None => Totals {
                    views: row.views,
                    opens: row.opens,
                    clicks: row.clicks,
                    actions: row.actions,
                    spent: row.spent,
                },
            }
        }
        None => match from {
            Some(from) => {
                s.db.read_blocking(|c| stats::of_cabinet(c, account, &from, &to))?
            }
            None => {
                let lifetime = s.db.read_blocking(|c| campaigns::lifetime(c, account))?;
                lifetime.iter().map(|(_, t)| t).sum()
            }
        },
    };
    Ok(json!({
        "account_id": account,
        "ad_id": a.ad_id,
        "period": span.period,
        "from": span.from.map(clock::iso),
        "to": clock::iso(span.to),
        "currency": kind.currency(),
        "views": totals.views,
        "opens": totals.opens,
        "clicks": totals.clicks,
        "actions": totals.actions,
        "spent": kind.render(totals.spent),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AttentionArgs {
    account_id: Option<i64>,
}

fn needs_attention(
    s: &Services,
    principal: &Principal,
    a: AttentionArgs,
) -> Result<Value, ToolError> {
    let scope: Vec<Reachable> = principal
        .scope(a.account_id)?
        .into_iter()
        .filter(|r| r.cabinet.is_active)
        .cloned()
        .collect();
    let mut items = Vec::new();
    for reach in &scope {
        let (account, kind) = (reach.cabinet.id, reach.cabinet.cabinet_type);
        let found = s.db.read_blocking(|c| {
            Ok::<_, ToolError>([
                (
                    "declined",
                    attention::declined(c, account, ATTENTION_SHOWN)?,
                ),
                (
                    "out_of_budget",
                    attention::out_of_budget(c, account, ATTENTION_SHOWN)?,
                ),
                (
                    "about_to_stop",
                    attention::about_to_stop(c, account, ATTENTION_SHOWN)?,
                ),
            ])
        })?;
        for (why, found) in found {
            let tool = match why {
                "declined" => "get_campaign (edit it in the panel and send it to review again)",
                _ => "move_budget (action add)",
            };
            for f in found.items {
                items.push(json!({
                    "account_id": f.account,
                    "ad_id": f.ad,
                    "title": f.title,
                    "why": why,
                    "since": f.at,
                    "reason": f.reason,
                    "budget": kind.render(f.budget),
                    "hours_left": (why == "about_to_stop").then(|| f.hours_left()).flatten(),
                    "currency": kind.currency(),
                    "tool": tool,
                }));
            }
        }
    }
    Ok(json!({ "items": items }))
}

/// The live campaign `ad` of the cabinet `account` names (or the key's only one).
fn campaign_of<'p>(
    s: &Services,
    principal: &'p Principal,
    account: Option<i64>,
    ad: i64,
) -> Result<(&'p Reachable, CampaignRow), ToolError> {
    let reach = principal.single(account)?;
    let id = reach.cabinet.id;
    let row =
        s.db.read_blocking(|c| campaigns::get(c, id, ad))?
            .filter(|r| r.status != Status::Deleted)
            .ok_or_else(ToolError::campaign_not_found)?;
    Ok((reach, row))
}
