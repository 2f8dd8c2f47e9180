//! Owns the MCP tools: each one's name, description, JSON Schema input and read-only /
//! destructive hints, and its call: the arguments read into the operation's typed command, the
//! key's reach and rights checked (read keys get the read tools only), the operation run
//! (`ops`: every platform call, store write, history entry and event is there) and its answer
//! turned into JSON. The session's guards (read-only, the money cap, one run per call) are the
//! caller's (`session.rs`); this file says what each write would move.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::ToolError;
use crate::auth::Principal;
use crate::clock;
use crate::domain::campaign::Status;
use crate::domain::money::{CabinetType, Money};
use crate::domain::query::Query;
use crate::domain::stats::{stats_span, Totals};
use crate::ops::campaigns::command::Edit;
use crate::ops::campaigns::list::list_request;
use crate::ops::campaigns::{budget, edit};
use crate::ops::{self, Actor};
use crate::platform::{BudgetOp, Switch};
use crate::services::Services;
use crate::store::cabinets::Reachable;
use crate::store::campaigns::{self, CampaignRow};
use crate::store::{attention, stats};

/// How many of each kind of campaign needing attention a cabinet shows.
const ATTENTION_SHOWN: i64 = 20;
/// The most history entries one read returns (the newest).
const HISTORY_MAX: usize = 200;

/// One tool as `tools/list` shows it.
struct Tool {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    /// Changes nothing.
    read: bool,
    /// May undo or lose something (a pause stops delivery; a withdrawal takes money back).
    destructive: bool,
    input: fn() -> Value,
}

fn account_prop() -> Value {
    json!({"type": "integer", "description": "The cabinet (account_id); may be left out when the key reaches one cabinet."})
}

fn campaign_input() -> Value {
    json!({
        "type": "object",
        "properties": {"account_id": account_prop(), "ad_id": {"type": "integer", "description": "The campaign (ad_id)."}},
        "required": ["ad_id"],
        "additionalProperties": false
    })
}

const TOOLS: &[Tool] = &[
    Tool {
        name: "list_cabinets",
        title: "Cabinets",
        description: "The ad cabinets this key reaches: id, name, currency, balance, access and state.",
        read: true,
        destructive: false,
        input: || json!({"type": "object", "properties": {}, "additionalProperties": false}),
    },
    Tool {
        name: "list_campaigns",
        title: "Campaigns of a cabinet",
        description: "Campaigns of a cabinet (or of every cabinet the key reaches), newest first, with filters: status (comma-separated: Active, On Hold, In Review, Declined, Stopped), title (contains), limit (1-500, default 100), offset.",
        read: true,
        destructive: false,
        input: || {
            json!({
                "type": "object",
                "properties": {
                    "account_id": account_prop(),
                    "status": {"type": "string"},
                    "title": {"type": "string"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 500},
                    "offset": {"type": "integer", "minimum": 0}
                },
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "get_campaign",
        title: "One campaign",
        description: "One campaign as adcab keeps it: status, bid (cpm), budget, spend and counters, amounts in the cabinet's currency.",
        read: true,
        destructive: false,
        input: campaign_input,
    },
    Tool {
        name: "get_stats",
        title: "Stats",
        description: "Views, opens, clicks, actions and spend of one campaign (ad_id) or of a whole cabinet over a period: 1d (the last 24 hours, default), 7d, 30d or all.",
        read: true,
        destructive: false,
        input: || {
            json!({
                "type": "object",
                "properties": {
                    "account_id": account_prop(),
                    "ad_id": {"type": "integer"},
                    "period": {"type": "string", "enum": ["1d", "7d", "30d", "all"]}
                },
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "get_history",
        title: "A campaign's history",
        description: "Who changed a campaign and how, oldest first (the newest 200 at most): each entry's time, source (api, panel, automation, ...), action and details.",
        read: true,
        destructive: false,
        input: campaign_input,
    },
    Tool {
        name: "needs_attention",
        title: "What needs attention",
        description: "The campaigns the panel's home page flags: declined by moderation, switched on but out of budget, and about to run out of budget at their last day's pace; each with the tool that deals with it.",
        read: true,
        destructive: false,
        input: || {
            json!({"type": "object", "properties": {"account_id": account_prop()}, "additionalProperties": false})
        },
    },
    Tool {
        name: "pause_campaign",
        title: "Pause a campaign",
        description: "Switches a campaign off; it stops showing until resumed.",
        read: false,
        destructive: true,
        input: campaign_input,
    },
    Tool {
        name: "resume_campaign",
        title: "Resume a campaign",
        description: "Switches a campaign on again; it spends its budget from then on.",
        read: false,
        destructive: false,
        input: campaign_input,
    },
    Tool {
        name: "set_bid",
        title: "Set a campaign's bid",
        description: "Sets a campaign's CPM (the price of 1,000 views) in the cabinet's currency. A raise counts against the session's money cap by its increase.",
        read: false,
        destructive: false,
        input: || {
            json!({
                "type": "object",
                "properties": {
                    "account_id": account_prop(),
                    "ad_id": {"type": "integer"},
                    "cpm": {"type": ["string", "number"], "description": "The new CPM, e.g. \"1.5\"."}
                },
                "required": ["ad_id", "cpm"],
                "additionalProperties": false
            })
        },
    },
    Tool {
        name: "move_budget",
        title: "Move a campaign's budget",
        description: "Tops up (add) or withdraws (withdraw, withdraw_all) a campaign's budget from or to the cabinet's balance. A top-up counts against the session's money cap.",
        read: false,
        destructive: true,
        input: || {
            json!({
                "type": "object",
                "properties": {
                    "account_id": account_prop(),
                    "ad_id": {"type": "integer"},
                    "action": {"type": "string", "enum": ["add", "withdraw", "withdraw_all"]},
                    "amount": {"type": ["string", "number"], "description": "Above 0; not with withdraw_all."}
                },
                "required": ["ad_id", "action"],
                "additionalProperties": false
            })
        },
    },
];

/// Whether `name` is a tool, and whether it writes.
pub fn writes(name: &str) -> Option<bool> {
    TOOLS.iter().find(|t| t.name == name).map(|t| !t.read)
}

/// The tools a session shows: the read tools, and the writes when `may_write`.
pub fn list(may_write: bool) -> Value {
    let tools: Vec<Value> = TOOLS
        .iter()
        .filter(|t| t.read || may_write)
        .map(|t| {
            json!({
                "name": t.name,
                "title": t.title,
                "description": t.description,
                "inputSchema": (t.input)(),
                "annotations": {
                    "title": t.title,
                    "readOnlyHint": t.read,
                    "destructiveHint": t.destructive,
                    "idempotentHint": t.read || matches!(t.name, "pause_campaign" | "resume_campaign" | "set_bid"),
                    "openWorldHint": !t.read
                }
            })
        })
        .collect();
    json!({ "tools": tools })
}

/// What a write tool asks to do, read and checked against the campaign as stored, before the
/// session's guards decide on it and the platform is asked.
pub struct Write {
    actor: Actor,
    row: CampaignRow,
    change: Change,
    /// The money it would move, as the session's cap counts it.
    pub moves: Money,
}

enum Change {
    Switch(bool),
    Bid(Box<Edit>),
    Budget(BudgetOp),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CampaignArgs {
    account_id: Option<i64>,
    ad_id: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BidArgs {
    account_id: Option<i64>,
    ad_id: i64,
    cpm: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BudgetArgs {
    account_id: Option<i64>,
    ad_id: i64,
    action: String,
    amount: Option<Value>,
}

fn args<T: DeserializeOwned>(arguments: &Value) -> Result<T, ToolError> {
    let value = if arguments.is_null() {
        json!({})
    } else {
        arguments.clone()
    };
    serde_json::from_value(value).map_err(|e| ToolError::invalid("arguments", e))
}

/// Reads a write call into its command: the key's write rights, the cabinet's write rules
/// (through [`Actor::assistant`]), the live campaign and the change's own fields.
pub fn prepare(
    s: &Services,
    principal: &Principal,
    client: Arc<str>,
    name: &str,
    arguments: &Value,
) -> Result<Write, ToolError> {
    principal.check_write_key()?;
    let (account, ad, change_args) = match name {
        "pause_campaign" | "resume_campaign" => {
            let a: CampaignArgs = args(arguments)?;
            (a.account_id, a.ad_id, None)
        }
        "set_bid" => {
            let a: BidArgs = args(arguments)?;
            (a.account_id, a.ad_id, Some(json!({ "cpm": a.cpm })))
        }
        _ => {
            let a: BudgetArgs = args(arguments)?;
            let mut body = json!({ "action": a.action });
            if let Some(amount) = a.amount {
                body["amount"] = amount;
            }
            (a.account_id, a.ad_id, Some(body))
        }
    };
    let reach = principal.single(account)?;
    let actor = Actor::assistant(principal.user.id, reach, client)?;
    let kind = actor.cabinet().cabinet_type;
    let row = edit::live(s, actor.cabinet().id, ad).map_err(|e| ToolError::of_ops(e, kind))?;
    let body = change_args.unwrap_or(Value::Null);
    let (change, moves) = match name {
        "pause_campaign" => (Change::Switch(false), Money::ZERO),
        "resume_campaign" => (Change::Switch(true), Money::ZERO),
        "set_bid" => {
            let stored = edit::stored_auto_cpm(s, row.account_id, row.ad_id)
                .map_err(|e| ToolError::of_ops(e, kind))?;
            let command = Edit::read(
                &body,
                actor.cabinet(),
                s.platform.capabilities(),
                &row,
                stored,
                body.clone(),
            )?;
            let raise = command
                .ad
                .cpm
                .and_then(|cpm| cpm.checked_sub(row.cpm))
                .filter(|d| d.micros() > 0)
                .unwrap_or(Money::ZERO);
            (Change::Bid(Box::new(command)), raise)
        }
        _ => {
            let op = budget::read(&body, kind)?;
            let moves = match op {
                BudgetOp::Add(a) => a,
                BudgetOp::Withdraw(_) | BudgetOp::WithdrawAll => Money::ZERO,
            };
            (Change::Budget(op), moves)
        }
    };
    Ok(Write {
        actor,
        row,
        change,
        moves,
    })
}

/// Makes a prepared write through its operation; `token` makes a repeat of a money move
/// harmless on the platform. Answers the campaign as stored after it.
pub fn make(s: &Services, write: Write, token: &str) -> Result<Value, ToolError> {
    let Write {
        actor, row, change, ..
    } = write;
    let kind = actor.cabinet().cabinet_type;
    let (account, ad) = (row.account_id, row.ad_id);
    let failed = |e| ToolError::of_ops(e, kind);
    let mut note = json!({});
    match change {
        Change::Switch(active) => {
            let outcome = edit::switch(s, &actor, ad, active).map_err(failed)?;
            note = match outcome {
                Switch::Applied => json!({}),
                Switch::IntentOnly => json!({ "intent_only": true }),
                Switch::AlreadySet => json!({ "already_set": true }),
            };
        }
        Change::Bid(command) => {
            let edited = edit::edit(s, &actor, &row, *command).map_err(failed)?;
            if let Some(Err(e)) = edited.switched {
                note = json!({ "warning": ToolError::of_ops(ops::OpsError::Platform(e), kind).message });
            }
        }
        Change::Budget(op) => {
            let moved = budget::move_budget(s, &actor, &row, op, token).map_err(failed)?;
            note = json!({ "moved": kind.render(moved.moved), "partial": moved.partial });
        }
    }
    let row =
        s.db.read_blocking(|c| campaigns::get(c, account, ad))?
            .ok_or_else(ToolError::campaign_not_found)?;
    Ok(json!({ "campaign": campaign_json(&row, kind), "result": note }))
}

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
    let (rows, more) =
        s.db.read_blocking(|c| campaigns::list(c, &request.filter, &request.page))?;
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
                    s.db.read_blocking(|c| stats::of_campaign(c, account, ad, &from, &to))?
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
                let mut sum = Totals::default();
                for (_, t) in s.db.read_blocking(|c| campaigns::lifetime(c, account))? {
                    sum.add(&t);
                }
                sum
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

fn cabinet_json(r: &Reachable) -> Value {
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

fn campaign_json(r: &CampaignRow, kind: CabinetType) -> Value {
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
