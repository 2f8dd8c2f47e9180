//! Owns one MCP session: the JSON-RPC 2.0 messages of the Model Context Protocol's lifecycle
//! and tools (`initialize`, `notifications/initialized`, `ping`, `tools/list`, `tools/call`),
//! answered exactly as the specification words them, and the session's guards around every
//! write: the read-only mode, the cap on money moved (checked arithmetic, refused before any
//! platform call) and one run per call (a retry of the same JSON-RPC id answers what the first
//! run answered; a money move carries a platform token derived from the session, the id and
//! the tool). Transports (`stdio.rs`, `http.rs`) hand it parsed messages and the key holder.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{json, Value};

use super::error::ToolError;
use super::{reads, tools};
use crate::auth::Principal;
use crate::domain::money::Money;
use crate::services::Services;

/// The protocol revisions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// How many answered write calls a session remembers for retries.
const REMEMBERED: usize = 1000;

/// JSON-RPC 2.0 error codes.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

/// What the operator or the HTTP client set for the session.
#[derive(Debug, Clone, Copy, Default)]
pub struct Guards {
    /// No write tool runs.
    pub read_only: bool,
    /// The most money the session's writes may move, in the cabinets' currency units.
    pub max_money: Option<Money>,
}

/// One session's state.
pub struct Session {
    id: String,
    guards: Guards,
    /// The client's name from `initialize` (`clientInfo.name`); `None` before it.
    client: Option<Arc<str>>,
    /// Money moved so far (top-ups, bid raises), as the cap counts it.
    moved: Money,
    /// Answers of the write calls made, by `id:tool`, oldest first.
    done: VecDeque<(String, Value)>,
}

impl Session {
    pub fn new(id: String, guards: Guards) -> Session {
        Session {
            id,
            guards,
            client: None,
            moved: Money::ZERO,
            done: VecDeque::new(),
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn initialized(&self) -> bool {
        self.client.is_some()
    }

    /// Answers one parsed message for the key holder `principal` (loaded for this message, so a
    /// revoked key or lost access takes effect at once): the response of a request, `None` for
    /// a notification or a response of the client. Blocking: tools run operations.
    pub fn answer(&mut self, s: &Services, principal: &Principal, message: Value) -> Option<Value> {
        let Value::Object(msg) = message else {
            return Some(error(Value::Null, INVALID_REQUEST, "Invalid Request"));
        };
        let id = msg.get("id").cloned();
        let method = msg.get("method").and_then(Value::as_str);
        let valid_id = matches!(id, None | Some(Value::String(_) | Value::Number(_)));
        if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") || !valid_id {
            return Some(error(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "Invalid Request",
            ));
        }
        let Some(method) = method else {
            // A response (to a request this server never sends) or nothing at all.
            return match id {
                Some(_) if msg.contains_key("result") || msg.contains_key("error") => None,
                _ => Some(error(Value::Null, INVALID_REQUEST, "Invalid Request")),
            };
        };
        let Some(id) = id else {
            // Notifications (`notifications/initialized`, `notifications/cancelled`, ...)
            // need no answer.
            return None;
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        let answer = match method {
            "initialize" => Ok(self.initialize(&params)),
            "ping" => Ok(json!({})),
            "tools/list" | "tools/call" if !self.initialized() => Err((
                INVALID_REQUEST,
                "The session is not initialized; send initialize first.".to_string(),
            )),
            "tools/list" => Ok(tools::list(self.may_write(principal))),
            "tools/call" => self.call(s, principal, &id, &params),
            _ => Err((METHOD_NOT_FOUND, format!("Method not found: {method}"))),
        };
        Some(match answer {
            Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
            Err((code, message)) => error(id, code, &message),
        })
    }

    fn initialize(&mut self, params: &Value) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        let version = asked
            .filter(|v| PROTOCOL_VERSIONS.contains(v))
            .unwrap_or(PROTOCOL_VERSIONS[0]);
        let name = params
            .pointer("/clientInfo/name")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .unwrap_or("MCP client");
        let name: String = name.chars().take(100).collect();
        self.client = Some(Arc::from(name));
        json!({
            "protocolVersion": version,
            "capabilities": { "tools": { "listChanged": false } },
            "serverInfo": { "name": "adcab", "title": "adcab", "version": env!("CARGO_PKG_VERSION") },
            "instructions": self.instructions(),
        })
    }

    fn instructions(&self) -> String {
        let mut text = String::from(
            "adcab manages Telegram Ads campaigns. Read tools list cabinets, campaigns, stats, history and what needs attention; write tools pause, resume, set a bid and move a campaign's budget, under the key's rights. Amounts are strings in the cabinet's currency.",
        );
        if self.guards.read_only {
            text.push_str(" This session is read-only.");
        }
        if let Some(cap) = self.guards.max_money {
            text.push_str(&format!(
                " Writes in this session may move at most {} in all (top-ups, and bid raises by their increase).",
                cap.render(2)
            ));
        }
        text
    }

    fn may_write(&self, principal: &Principal) -> bool {
        !self.guards.read_only && principal.check_write_key().is_ok()
    }

    /// `tools/call`: a result whatever the tool answered (its failures are results with
    /// `isError`), a JSON-RPC error only for an unknown tool or unreadable params.
    fn call(
        &mut self,
        s: &Services,
        principal: &Principal,
        id: &Value,
        params: &Value,
    ) -> Result<Value, (i64, String)> {
        let name = params.get("name").and_then(Value::as_str).ok_or((
            INVALID_PARAMS,
            "params.name must be a tool's name.".to_string(),
        ))?;
        let writes =
            tools::writes(name).ok_or((INVALID_PARAMS, format!("Unknown tool: {name}")))?;
        let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
        if !(arguments.is_null() || arguments.is_object()) {
            return Err((INVALID_PARAMS, "params.arguments must be an object.".into()));
        }
        if !writes {
            return Ok(result(reads::read(s, principal, name, &arguments)));
        }
        let call = format!("{}:{name}", id_text(id));
        if let Some((_, answered)) = self.done.iter().find(|(c, _)| *c == call) {
            return Ok(answered.clone());
        }
        let answered = result(self.write(s, principal, name, &arguments, &call));
        if self.done.len() >= REMEMBERED {
            self.done.pop_front();
        }
        self.done.push_back((call, answered.clone()));
        Ok(answered)
    }

    /// A write call through the guards: read-only, then the command read and checked, then the
    /// money cap (counted before the platform is asked, given back when nothing moved).
    fn write(
        &mut self,
        s: &Services,
        principal: &Principal,
        name: &str,
        arguments: &Value,
        call: &str,
    ) -> Result<Value, ToolError> {
        if self.guards.read_only {
            return Err(ToolError::read_only());
        }
        let client = self
            .client
            .clone()
            .unwrap_or_else(|| Arc::from("MCP client"));
        let write = tools::prepare(s, principal, client, name, arguments)?;
        let after = self.moved.checked_add(write.moves).ok_or_else(|| {
            ToolError::invalid(
                "amount",
                "the amount is too large to count against the cap.",
            )
        })?;
        if let Some(cap) = self.guards.max_money {
            if after > cap {
                return Err(ToolError::money_cap(
                    &cap.render(2),
                    &self.moved.render(2),
                    &write.moves.render(2),
                ));
            }
        }
        let before = self.moved;
        self.moved = after;
        let token = format!("mcp:{}:{call}", self.id);
        let made = tools::make(s, write, &token);
        if let Err(e) = &made {
            if nothing_moved(e) {
                self.moved = before;
            }
        }
        made
    }
}

/// Whether a failed write surely moved no money (refused before or by the platform), so the
/// cap gets its amount back; a platform that did not answer may have moved it.
fn nothing_moved(e: &ToolError) -> bool {
    !matches!(
        e.code,
        "PLATFORM_UNAVAILABLE" | "INTERNAL_ERROR" | "SERVICE_UNAVAILABLE" | "BUDGET_UNCHANGED"
    )
}

/// A tool's answer as a `tools/call` result: its JSON as text (and as structured content), or
/// its failure with `isError`.
fn result(answer: Result<Value, ToolError>) -> Value {
    match answer {
        Ok(value) => json!({
            "content": [{ "type": "text", "text": value.to_string() }],
            "structuredContent": value,
            "isError": false,
        }),
        Err(e) => {
            let body = json!({ "error": { "code": e.code, "message": e.message } });
            json!({
                "content": [{ "type": "text", "text": body.to_string() }],
                "structuredContent": body,
                "isError": true,
            })
        }
    }
}

fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => format!("s{s}"),
        other => format!("n{other}"),
    }
}

/// A JSON-RPC error response.
pub fn error(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}
