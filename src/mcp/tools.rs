//! Owns the MCP tools: each one's name, description, JSON Schema input and read-only /
//! destructive hints, and its call: the arguments read into the operation's typed command, the
//! key's reach and rights checked (read keys get the read tools only), the operation run
//! (`ops`: every platform call, store write, history entry and event is there) and its answer
//! turned into JSON. The session's guards (read-only, the money cap, one run per call) are the
//! caller's (`session.rs`); this file says what each write would move. The reads are in
//! `reads.rs`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};

use super::error::ToolError;
use super::shape::{self, args, CampaignArgs};
use crate::auth::Principal;
use crate::domain::money::Money;
use crate::domain::rule::Action;
use crate::domain::rule::RuleSpec;
use crate::ops::campaigns::command::Edit;
use crate::ops::campaigns::{budget, edit};
use crate::ops::rule as rule_ops;
use crate::ops::{self, Actor};
use crate::platform::{BudgetOp, Switch};
use crate::services::Services;
use crate::store::campaigns::{self, CampaignRow};

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
    Tool {
        name: "list_rule_templates",
        title: "Rule templates",
        description: "The built-in automation rule templates (stop-loss, scale winners, pause low CTR, refill budget, bid down on high CPA, night pause and morning resume): each one's id, name, description and params (name, kind, default, required).",
        read: true,
        destructive: false,
        input: || json!({"type": "object", "properties": {}, "additionalProperties": false}),
    },
    Tool {
        name: "create_rule_from_template",
        title: "Create a rule from a template",
        description: "Creates an automation rule in a cabinet from a template of list_rule_templates, filled with params (a refusal names params.<name>); name, scope, enabled and dry_run as for any rule. A rule that adds budget counts its max_per_day against the session's money cap.",
        read: false,
        destructive: false,
        input: || {
            json!({
                "type": "object",
                "properties": {
                    "account_id": account_prop(),
                    "template": {"type": "string", "description": "A template's id."},
                    "params": {"type": "object", "additionalProperties": {"type": ["string", "number"]}},
                    "name": {"type": "string"},
                    "scope": {"type": "object", "description": "{} (the cabinet), {\"group_id\": N} or {\"ad_ids\": [...]}."},
                    "enabled": {"type": "boolean"},
                    "dry_run": {"type": "boolean", "description": "Log what it would do and change nothing."}
                },
                "required": ["template"],
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
    target: Target,
    /// The money it would move, as the session's cap counts it.
    pub moves: Money,
}

enum Change {
    Switch(bool),
    Bid(Box<Edit>),
    Budget(BudgetOp),
}

/// What a write changes: a campaign as stored, or a new rule.
enum Target {
    Campaign(Box<CampaignRow>, Change),
    Rule(Box<RuleSpec>),
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
    if name == "create_rule_from_template" {
        return rule_from_template(principal, client, arguments);
    }
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
        target: Target::Campaign(Box::new(row), change),
        moves,
    })
}

/// A new rule from a template, read as the API reads one (`ops::rule::template`); what it may
/// add to budgets in a day is what the session's cap counts.
fn rule_from_template(
    principal: &Principal,
    client: Arc<str>,
    arguments: &Value,
) -> Result<Write, ToolError> {
    let mut fields = match arguments {
        Value::Object(m) => m.clone(),
        _ => serde_json::Map::new(),
    };
    let account = match fields.remove("account_id") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_i64()
                .ok_or_else(|| ToolError::invalid("account_id", "account_id is an integer."))?,
        ),
    };
    let reach = principal.single(account)?;
    let actor = Actor::assistant(principal.user.id, reach, client)?;
    let kind = actor.cabinet().cabinet_type;
    let spec = rule_ops::template::read(&Value::Object(fields), kind)
        .map_err(|e| ToolError::invalid(&e.param, e.message))?;
    let moves = match &spec.action {
        Action::AddBudget { max_per_day, .. } => *max_per_day,
        // A copy without a cap or a budget of its own takes what is left on its original:
        // nothing bounds it, so it counts as the most money there is.
        Action::Duplicate {
            max_per_day,
            budget,
            ..
        } => max_per_day
            .or(*budget)
            .unwrap_or(Money::from_micros(crate::domain::money::MAX_MICROS)),
        Action::Pause
        | Action::Resume
        | Action::SetCpm { .. }
        | Action::ChangeCpm { .. }
        | Action::SetDailyBudget { .. }
        | Action::Notify { .. }
        | Action::Webhook => Money::ZERO,
    };
    Ok(Write {
        actor,
        target: Target::Rule(Box::new(spec)),
        moves,
    })
}

/// Makes a prepared write through its operation; `token` makes a repeat of a money move
/// harmless on the platform. Answers the campaign as stored after it.
pub fn make(s: &Services, write: Write, token: &str) -> Result<Value, ToolError> {
    let Write { actor, target, .. } = write;
    let kind = actor.cabinet().cabinet_type;
    let (row, change) = match target {
        Target::Campaign(row, change) => (*row, change),
        Target::Rule(spec) => {
            let rule =
                s.db.write_blocking(|tx| rule_ops::create(tx, &actor, &spec))
                    .map_err(|e| ToolError::of_ops(e, kind))?;
            return Ok(json!({ "rule": rule_ops::describe(&rule, kind) }));
        }
    };
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
    Ok(json!({ "campaign": shape::campaign_json(&row, kind), "result": note }))
}
