//! The MCP server for AI assistants: `adcab mcp --key-stdin` spawned as the binary over the
//! test server's database (JSON-RPC lines on its stdin and stdout), `POST /mcp` on the test
//! server, and the official Python `mcp` package's stdio client driving the binary
//! (`tests/mcp/client.py`, when that package is installed).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};
use adcab::ops;

/// `adcab mcp` running over the app's database.
struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next: i64,
}

/// A config file for the binary: the app's database, no demo.
fn config(app: &TestApp) -> std::path::PathBuf {
    let path = app.dir.path().join("mcp.toml");
    let text = format!(
        "[storage]\npath = \"{}\"\n[demo]\nbootstrap = false\n[sim]\nauto_review_seconds = 0\n",
        app.services.db.path().display()
    );
    std::fs::write(&path, text).unwrap();
    path
}

impl Mcp {
    fn start(app: &TestApp, key: &str, flags: &[&str]) -> Mcp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_adcab"))
            .arg("--config")
            .arg(config(app))
            .args(["mcp", "--key-stdin"])
            .args(flags)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{key}").unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Mcp {
            child,
            stdin: Some(stdin),
            stdout,
            next: 1,
        }
    }

    /// Starts and initializes a session as the client `client`.
    fn session(app: &TestApp, key: &str, flags: &[&str]) -> Mcp {
        let mut mcp = Mcp::start(app, key, flags);
        let init = mcp.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test-assistant", "version": "1.0"}
            }),
        );
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not a JSON line: {line:?}"))
    }

    /// Sends a request with the next id and reads its response.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.with_id(id, method, params)
    }

    fn with_id(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let answer = self.read();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// Calls a tool; returns its result (`isError` and the JSON of its text).
    fn call(&mut self, tool: &str, arguments: Value) -> (bool, Value) {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        tool_result(&answer)
    }

    fn tool_names(&mut self) -> Vec<String> {
        let listed = self.request("tools/list", json!({}));
        listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }

    /// Closes stdin; returns the exit status and whatever else stdout had.
    fn finish(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut self.stdout, &mut rest).unwrap();
        (self.child.wait().unwrap(), rest)
    }
}

fn tool_result(answer: &Value) -> (bool, Value) {
    let result = &answer["result"];
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"));
    (
        result["isError"].as_bool().unwrap(),
        serde_json::from_str(text).unwrap(),
    )
}

fn is_active(app: &TestApp, key: &str, ad: i64) -> bool {
    let body = app.get_ok(&format!("/campaigns/{ad}"), key);
    body["data"]["active"].as_bool().unwrap()
}

#[test]
fn stdio_lists_tools_reads_campaigns_and_pauses_one_recorded_as_automation_by_the_client() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let mut mcp = Mcp::session(&app, &key, &[]);
    assert_eq!(mcp.request("ping", json!({}))["result"], json!({}));
    let tools = mcp.tool_names();
    for name in [
        "list_cabinets",
        "list_campaigns",
        "get_stats",
        "needs_attention",
        "pause_campaign",
        "move_budget",
    ] {
        assert!(tools.contains(&name.to_string()), "{name} in {tools:?}");
    }
    let listed = mcp.request("tools/list", json!({}));
    let pause = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "pause_campaign")
        .unwrap()
        .clone();
    assert_eq!(pause["annotations"]["readOnlyHint"], false);
    assert_eq!(pause["annotations"]["destructiveHint"], true);
    assert_eq!(pause["inputSchema"]["required"], json!(["ad_id"]));

    let (failed, cabinets) = mcp.call("list_cabinets", json!({}));
    assert!(!failed);
    assert_eq!(cabinets["cabinets"][0]["account_id"], cabinet);
    let (failed, campaigns) = mcp.call("list_campaigns", json!({"account_id": cabinet}));
    assert!(!failed, "{campaigns}");
    assert_eq!(campaigns["campaigns"][0]["ad_id"], ad);
    assert_eq!(campaigns["campaigns"][0]["active"], true);

    assert!(is_active(&app, &key, ad));
    let (failed, paused) = mcp.call("pause_campaign", json!({"ad_id": ad}));
    assert!(!failed, "{paused}");
    assert_eq!(paused["campaign"]["active"], false);
    assert!(!is_active(&app, &key, ad), "the API reads it paused");

    let history = ops::history(&app.services, cabinet, ad).unwrap().events;
    let last = history.last().unwrap();
    assert_eq!(
        (last.source.as_str(), last.action.as_str()),
        ("automation", "pause")
    );
    assert_eq!(last.client.as_deref(), Some("test-assistant"));
    let (status, rest) = mcp.finish();
    assert!(status.success());
    assert_eq!(rest, "", "nothing but answers on stdout");
}

#[test]
fn stdio_refuses_every_write_in_read_only_mode_and_for_a_read_key() {
    let app = spawn_app();
    let (user, cabinet, manage_key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let mut mcp = Mcp::session(&app, &manage_key, &["--read-only"]);
    let tools = mcp.tool_names();
    assert!(!tools.contains(&"pause_campaign".to_string()), "{tools:?}");
    let (failed, answer) = mcp.call("pause_campaign", json!({"ad_id": ad}));
    assert!(failed);
    assert_eq!(answer["error"]["code"], "READ_ONLY_SESSION", "{answer}");
    mcp.finish();

    let read_key = app.key(user);
    let mut mcp = Mcp::session(&app, &read_key, &[]);
    assert!(!mcp.tool_names().contains(&"resume_campaign".to_string()));
    let (failed, answer) = mcp.call("pause_campaign", json!({"ad_id": ad}));
    assert!(failed);
    assert_eq!(answer["error"]["code"], "READ_ONLY_KEY", "{answer}");
    mcp.finish();
    assert!(is_active(&app, &manage_key, ad), "still running");
}

#[test]
fn stdio_money_cap_refuses_a_top_up_past_it_and_a_retried_call_moves_money_once() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let ad = app.funded(cabinet, 10_000_000);
    let budget = |app: &TestApp| {
        app.get_ok(&format!("/campaigns/{ad}"), &key)["data"]["budget"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let before = budget(&app);
    let mut mcp = Mcp::session(&app, &key, &["--max-money", "5"]);
    let add = |amount: &str| json!({"name": "move_budget", "arguments": {"ad_id": ad, "action": "add", "amount": amount}});
    let first = mcp.with_id(100, "tools/call", add("3"));
    assert!(!tool_result(&first).0, "{first}");
    let again = mcp.with_id(100, "tools/call", add("3"));
    assert_eq!(
        first["result"], again["result"],
        "the retry answers the first run"
    );
    let moved_once = budget(&app);
    let number = |s: &str| s.parse::<f64>().unwrap();
    assert_eq!(number(&moved_once), number(&before) + 3.0, "3 moved, once");
    let (failed, refused) = mcp.call(
        "move_budget",
        json!({"ad_id": ad, "action": "add", "amount": "3"}),
    );
    assert!(failed);
    assert_eq!(refused["error"]["code"], "MONEY_CAP_REACHED", "{refused}");
    assert_eq!(budget(&app), moved_once, "nothing moved past the cap");
    let (failed, ok) = mcp.call(
        "move_budget",
        json!({"ad_id": ad, "action": "withdraw", "amount": "1"}),
    );
    assert!(
        !failed,
        "a withdrawal moves nothing out of the cabinet: {ok}"
    );
    let (failed, raise) = mcp.call("set_bid", json!({"ad_id": ad, "cpm": "100"}));
    assert!(failed, "a bid raise counts its increase: {raise}");
    assert_eq!(raise["error"]["code"], "MONEY_CAP_REACHED");
    mcp.finish();
}

#[test]
fn stdio_with_a_wrong_key_exits_without_writing_to_stdout() {
    let app = spawn_app();
    let mcp = Mcp::start(&app, "adcab_not_a_key", &[]);
    let (status, rest) = mcp.finish();
    assert!(!status.success());
    assert_eq!(rest, "");
}

#[test]
fn stdio_answers_jsonrpc_errors_for_unknown_methods_tools_and_unparsable_lines() {
    let app = spawn_app();
    let (_, _, key) = app.manager();
    let mut mcp = Mcp::start(&app, &key, &[]);
    let early = mcp.request("tools/list", json!({}));
    assert_eq!(early["error"]["code"], -32600, "not initialized: {early}");
    mcp.send(&json!("not an object"));
    assert_eq!(mcp.read()["error"]["code"], -32600);
    let mut mcp = {
        let stdin = mcp.stdin.as_mut().unwrap();
        writeln!(stdin, "{{not json").unwrap();
        let parse = mcp.read();
        assert_eq!(parse["error"]["code"], -32700);
        assert_eq!(parse["id"], Value::Null);
        mcp
    };
    let unknown = mcp.request("resources/list", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    mcp.request("initialize", json!({"protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}));
    let tool = mcp.request(
        "tools/call",
        json!({"name": "drop_tables", "arguments": {}}),
    );
    assert_eq!(tool["error"]["code"], -32602);
    let (failed, bad) = mcp.call("get_campaign", json!({"ad_id": "seven"}));
    assert!(failed);
    assert_eq!(bad["error"]["code"], "VALIDATION_ERROR");
    mcp.finish();
}

#[test]
fn stdio_creates_a_rule_from_a_template_within_the_session_guards() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let mut mcp = Mcp::session(&app, &key, &["--max-money", "50"]);
    let (failed, listed) = mcp.call("list_rule_templates", json!({}));
    assert!(!failed, "{listed}");
    assert_eq!(listed["templates"][0]["id"], "stop_loss");
    let (failed, made) = mcp.call(
        "create_rule_from_template",
        json!({"template": "stop_loss", "params": {"spend": "8"}, "dry_run": true}),
    );
    assert!(!failed, "{made}");
    assert_eq!(made["rule"]["account_id"], cabinet);
    assert_eq!(made["rule"]["dry_run"], true);
    assert_eq!(made["rule"]["conditions"]["all"][0]["value"], "8");
    let rules = app.get_ok("/rules", &key)["data"].clone();
    assert_eq!(rules.as_array().unwrap().len(), 1, "{rules}");
    let (failed, refused) = mcp.call(
        "create_rule_from_template",
        json!({"template": "scale_winners", "params": {}}),
    );
    assert!(failed);
    assert_eq!(refused["error"]["code"], "VALIDATION_ERROR");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("params.max_cpa"), "{message}");
    let (failed, capped) = mcp.call(
        "create_rule_from_template",
        json!({"template": "refill_budget", "params": {"max_per_day": "60"}}),
    );
    assert!(
        failed,
        "a refill of 60 a day is past the cap of 50: {capped}"
    );
    assert_eq!(capped["error"]["code"], "MONEY_CAP_REACHED");
    // The key reaches one cabinet: it cannot make a rule across cabinets through a template.
    let other = app.cabinet(app.user("pro"), "euro", "100");
    let (failed, across) = mcp.call(
        "create_rule_from_template",
        json!({"template": "stop_loss", "scope": {"account_ids": [cabinet, other]}}),
    );
    assert!(failed, "{across}");
    assert_eq!(across["error"]["code"], "VALIDATION_ERROR", "{across}");
    mcp.finish();

    let mut mcp = Mcp::session(&app, &key, &["--read-only"]);
    let (failed, answer) = mcp.call(
        "create_rule_from_template",
        json!({"template": "stop_loss"}),
    );
    assert!(failed);
    assert_eq!(answer["error"]["code"], "READ_ONLY_SESSION", "{answer}");
    mcp.finish();
    let rules = app.get_ok("/rules", &key)["data"].clone();
    assert_eq!(
        rules.as_array().unwrap().len(),
        1,
        "nothing more made: {rules}"
    );
}
