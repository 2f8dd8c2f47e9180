//! The binary's panel commands: one JSON object on stdout, exit 0; failures print
//! `{"error": ...}` on stdout, a sentence on stderr, and exit non-zero.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

struct Cli {
    dir: tempfile::TempDir,
}

impl Cli {
    fn new() -> Cli {
        let dir = tempfile::tempdir().unwrap();
        let config = format!(
            "[storage]\npath = \"{}\"\n[demo]\nbootstrap = false\n",
            dir.path().join("cli.db").display()
        );
        std::fs::write(dir.path().join("adcab.toml"), config).unwrap();
        let cli = Cli { dir };
        let made = cli.ok(&["init"]);
        assert_eq!(
            made["database"],
            cli.dir.path().join("cli.db").display().to_string()
        );
        cli
    }

    fn config(&self) -> std::path::PathBuf {
        self.dir.path().join("adcab.toml")
    }

    fn run(&self, args: &[&str]) -> Output {
        run_with_config(&self.config(), args)
    }

    /// Runs a command that must succeed; returns its one JSON object.
    fn ok(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {stdout} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(stdout.lines().count(), 1, "exactly one line: {stdout}");
        let v: Value = serde_json::from_str(&stdout).unwrap();
        assert!(v.is_object());
        v
    }

    /// Runs a command that must fail; returns its error sentence.
    fn fails(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(!out.status.success(), "{args:?} should fail");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let sentence = v["error"].as_str().unwrap().to_string();
        assert!(
            !String::from_utf8_lossy(&out.stderr).trim().is_empty(),
            "a sentence on stderr"
        );
        sentence
    }
}

fn run_with_config(config: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_adcab"))
        .arg("--config")
        .arg(config)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn panel_commands_print_their_json_objects() {
    let cli = Cli::new();
    let user = cli.ok(&[
        "admin",
        "user",
        "add",
        "--email",
        "a@example.com",
        "--plan",
        "agency",
    ]);
    let uid = user["id"].as_i64().unwrap().to_string();
    assert_eq!(
        cli.ok(&[
            "admin",
            "user",
            "set",
            "--id",
            &uid,
            "--subscription",
            "active"
        ])["id"],
        user["id"]
    );
    let cab = cli.ok(&[
        "admin",
        "cabinet",
        "add",
        "--owner",
        &uid,
        "--name",
        "Main",
        "--type",
        "euro",
        "--balance",
        "10.50",
        "--ad-button",
    ]);
    let cid = cab["id"].as_i64().unwrap();
    assert!(cid > 5_000_000_000);
    let cid = cid.to_string();
    assert_eq!(
        cli.ok(&[
            "admin",
            "cabinet",
            "set",
            "--id",
            &cid,
            "--locked",
            "true",
            "--balance",
            "20"
        ])["id"],
        cab["id"]
    );
    let member = cli.ok(&["admin", "user", "add", "--email", "m@example.com"])["id"]
        .as_i64()
        .unwrap()
        .to_string();
    assert_eq!(
        cli.ok(&[
            "admin",
            "member",
            "add",
            "--agency",
            &uid,
            "--member",
            &member,
            "--cabinet",
            &cid,
            "--access",
            "viewer"
        ]),
        serde_json::json!({})
    );
    let group = cli.ok(&[
        "admin",
        "group",
        "add",
        "--cabinet",
        &cid,
        "--name",
        "G",
        "--color",
        "#00FF00",
    ]);
    assert!(group["id"].is_i64());
    let key = cli.ok(&[
        "admin",
        "key",
        "create",
        "--user",
        &uid,
        "--manage",
        "--postbacks",
        "--cabinets",
        &cid,
    ]);
    assert_eq!(key["key"].as_str().unwrap().len(), 54);
    assert!(key["webhook_secret"].as_str().unwrap().len() > 20);
    let kid = key["id"].as_i64().unwrap().to_string();
    assert_eq!(
        cli.ok(&[
            "admin",
            "key",
            "set",
            "--id",
            &kid,
            "--manage",
            "false",
            "--cabinets",
            "all",
            "--webhook-url",
            "none"
        ])["id"],
        key["id"]
    );
    let list = cli.ok(&["admin", "key", "list", "--user", &uid]);
    assert_eq!(list["keys"][0]["id"], key["id"]);
    assert_eq!(list["keys"][0]["manage"], false);
    let rotated = cli.ok(&["admin", "key", "rotate-secret", "--id", &kid]);
    assert_ne!(rotated["webhook_secret"], key["webhook_secret"]);
    let tracker = cli.ok(&["admin", "tracker", "rotate", "--user", &uid]);
    let token = tracker["token"].as_str().unwrap();
    assert_eq!(tracker["path"], format!("/api/v1/ingest/{token}"));
    assert_eq!(
        cli.ok(&["admin", "webhook", "log", "--key", &kid]),
        serde_json::json!({ "deliveries": [] })
    );
    assert_eq!(
        cli.ok(&["admin", "key", "revoke", "--id", &kid])["id"],
        key["id"]
    );
    assert_eq!(
        cli.ok(&["admin", "member", "remove", "--agency", &uid, "--member", &member]),
        serde_json::json!({})
    );
}

#[test]
fn sim_commands_move_the_clock_and_inject_faults() {
    let cli = Cli::new();
    let before = cli.ok(&["sim", "now"])["now"].as_str().unwrap().to_string();
    let after = cli.ok(&["sim", "advance", "--seconds", "7200"])["now"]
        .as_str()
        .unwrap()
        .to_string();
    let (b, a) = (
        chrono::DateTime::parse_from_rfc3339(&before).unwrap(),
        chrono::DateTime::parse_from_rfc3339(&after).unwrap(),
    );
    assert!((a - b).num_seconds() >= 7200);
    let uid = cli.ok(&["admin", "user", "add", "--email", "s@example.com"])["id"].to_string();
    let cid = cli.ok(&[
        "admin", "cabinet", "add", "--owner", &uid, "--name", "S", "--type", "ton",
    ])["id"]
        .to_string();
    assert_eq!(
        cli.ok(&[
            "sim",
            "fail",
            "--account",
            &cid,
            "--next",
            "timeout",
            "--count",
            "2"
        ]),
        serde_json::json!({})
    );
    assert!(cli
        .fails(&["sim", "review", "--account", &cid, "--ad", "1", "--approve"])
        .contains("no ad 1"));
}

#[test]
fn failures_print_an_error_object_and_exit_non_zero() {
    let cli = Cli::new();
    cli.ok(&["admin", "user", "add", "--email", "dup@example.com"]);
    assert!(cli
        .fails(&["admin", "user", "add", "--email", "dup@example.com"])
        .contains("exists"));
    assert!(cli
        .fails(&[
            "admin",
            "user",
            "add",
            "--email",
            "x@example.com",
            "--plan",
            "gold"
        ])
        .contains("gold"));
    assert!(cli
        .fails(&["admin", "cabinet", "add", "--owner", "99", "--name", "N", "--type", "euro"])
        .contains("99"));
    assert!(cli
        .fails(&["admin", "task", "cancel", "--id", "1"])
        .contains("no such task"));
    assert!(cli
        .fails(&["admin", "history", "--account", "1", "--ad", "1"])
        .contains("no campaign"));
    assert!(cli
        .fails(&["admin", "key", "ping", "--id", "5"])
        .contains("no key"));
}

#[test]
fn user_reset_link_prints_a_one_time_link_under_the_public_url() {
    let cli = Cli::new();
    let user = cli.ok(&["admin", "user", "add", "--email", "lost@example.com"]);
    let id = user["id"].to_string();
    assert!(cli
        .fails(&["admin", "user", "reset-link", "--id", &id])
        .contains("public_url"));
    let config = std::fs::read_to_string(cli.config()).unwrap();
    std::fs::write(
        cli.config(),
        config + "[panel]\npublic_url = \"https://ads.example/\"\n",
    )
    .unwrap();
    let printed = cli.ok(&["admin", "user", "reset-link", "--id", &id]);
    assert_eq!(printed.as_object().unwrap().len(), 1, "{printed}");
    let link = printed["link"].as_str().unwrap();
    let token = link
        .strip_prefix("https://ads.example/invite/")
        .unwrap_or_else(|| panic!("{link}"));
    assert!(token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()));
    let again = cli.ok(&["admin", "user", "reset-link", "--id", &id]);
    assert_ne!(again["link"], printed["link"], "a new token each time");
    assert!(cli
        .fails(&["admin", "user", "reset-link", "--id", "999"])
        .contains("no user"));
}

#[test]
fn an_unknown_config_key_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(
        &path,
        "[server]\nlisten = \"127.0.0.1:0\"\nlisten_port = 5\n",
    )
    .unwrap();
    let out = run_with_config(&path, &["sim", "now"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("listen_port"));
}

#[test]
fn version_names_the_release_and_the_commit() {
    let out = Command::new(env!("CARGO_BIN_EXE_adcab"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rest = text
        .trim()
        .strip_prefix(&format!("adcab {} (", env!("CARGO_PKG_VERSION")))
        .unwrap_or_else(|| panic!("{text}"));
    let commit = rest.strip_suffix(')').unwrap_or_else(|| panic!("{text}"));
    assert!(
        commit == "unknown"
            || (commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit())),
        "{text}"
    );
}

#[test]
fn user_list_shows_every_person_with_plan_and_subscription() {
    let cli = Cli::new();
    let first = cli.ok(&[
        "admin",
        "user",
        "add",
        "--email",
        "a@example.com",
        "--plan",
        "agency",
    ]);
    cli.ok(&["admin", "user", "add", "--email", "b@example.com"]);
    let id = first["id"].to_string();
    cli.ok(&[
        "admin",
        "user",
        "set",
        "--id",
        &id,
        "--subscription",
        "expired",
    ]);
    let listed = cli.ok(&["admin", "user", "list"]);
    assert_eq!(
        listed,
        serde_json::json!({"users": [
            {"id": first["id"], "email": "a@example.com", "plan": "agency", "subscription": "expired"},
            {"id": first["id"].as_i64().unwrap() + 1, "email": "b@example.com", "plan": "pro", "subscription": "active"}
        ]})
    );
}

#[test]
fn config_show_prints_the_effective_configuration_with_the_environment_over_the_file() {
    let cli = Cli::new();
    std::fs::write(
        cli.config(),
        format!(
            "[storage]\npath = \"{}\"\n[server]\nlisten = \"127.0.0.1:7000\"\n",
            cli.dir.path().join("cli.db").display()
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_adcab"))
        .args(["--config", cli.config().to_str().unwrap(), "config", "show"])
        .env("ADCAB_TELEGRAM_TIMEOUT_MS", "2500")
        .env("ADCAB_DEMO_BOOTSTRAP", "false")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown["server"]["listen"], "127.0.0.1:7000", "from the file");
    assert_eq!(
        shown["telegram"]["timeout_ms"], 2500,
        "from the environment"
    );
    assert_eq!(shown["demo"]["bootstrap"], false);
    assert_eq!(shown["platform"]["kind"], "sim", "a default");
    let bad = Command::new(env!("CARGO_BIN_EXE_adcab"))
        .args(["--config", cli.config().to_str().unwrap(), "config", "show"])
        .env("ADCAB_LIMITS_READS_PER_MINUTE", "many")
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let error: Value = serde_json::from_slice(&bad.stdout).unwrap();
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .contains("ADCAB_LIMITS_READS_PER_MINUTE"),
        "{error}"
    );
}

#[test]
fn check_reads_the_config_and_the_database_without_changing_them() {
    let cli = Cli::new();
    let db = cli.dir.path().join("cli.db");
    let checked = cli.ok(&["check"]);
    assert_eq!(checked["config"], "ok");
    assert_eq!(checked["database"]["path"], db.display().to_string());
    assert_eq!(checked["database"]["schema"], adcab::db::schema::version());
    assert_eq!(checked["database"]["integrity"], "ok");

    std::fs::write(&db, b"this is not a database, just some bytes").unwrap();
    let damaged = cli.run(&["check"]);
    assert!(!damaged.status.success());
    let missing = tempfile::tempdir().unwrap();
    let config = missing.path().join("adcab.toml");
    std::fs::write(
        &config,
        format!(
            "[storage]\npath = \"{}\"\n",
            missing.path().join("none.db").display()
        ),
    )
    .unwrap();
    let out = run_with_config(&config, &["check"]);
    assert!(!out.status.success());
    assert!(
        !missing.path().join("none.db").exists(),
        "check creates nothing"
    );
}

#[test]
fn rule_list_chats_and_the_automation_cap_are_set_from_the_command_line() {
    let cli = Cli::new();
    let user = cli.ok(&["admin", "user", "add", "--email", "a@example.com"])["id"].to_string();
    let cabinet = cli.ok(&[
        "admin", "cabinet", "add", "--owner", &user, "--name", "Main", "--type", "euro",
    ])["id"]
        .to_string();
    assert_eq!(
        cli.ok(&["admin", "rule", "list"])["rules"],
        serde_json::json!([])
    );
    cli.ok(&[
        "admin",
        "user",
        "set",
        "--id",
        &user,
        "--telegram-chat",
        "4242",
    ]);
    let set = [
        "admin",
        "cabinet",
        "set",
        "--id",
        &cabinet,
        "--telegram-chat",
        "-100",
        "--automation-daily-cap",
        "25.50",
    ];
    cli.ok(&set);
    let bad = cli.fails(&[
        "admin",
        "user",
        "set",
        "--id",
        &user,
        "--telegram-chat",
        "@me",
    ]);
    assert!(bad.contains("not a chat id"), "{bad}");
    let cap = cli.fails(&[
        "admin",
        "cabinet",
        "set",
        "--id",
        &cabinet,
        "--automation-daily-cap",
        "1.234",
    ]);
    assert!(cap.contains("automation-daily-cap"), "{cap}");
    let db = rusqlite::Connection::open(cli.dir.path().join("cli.db")).unwrap();
    let (user_chat, cabinet_chat, cap): (i64, i64, i64) = db
        .query_row(
            "SELECT u.telegram_chat, c.telegram_chat, c.automation_daily_cap_micros
             FROM users u JOIN cabinets c ON c.owner_id = u.id",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((user_chat, cabinet_chat, cap), (4242, -100, 25_500_000));
}

#[test]
fn an_agencys_terms_with_a_cabinet_are_set_and_cleared_from_the_command_line() {
    let cli = Cli::new();
    let user = cli.ok(&["admin", "user", "add", "--email", "a@example.com"])["id"].to_string();
    let cabinet = cli.ok(&[
        "admin", "cabinet", "add", "--owner", &user, "--name", "Client", "--type", "euro",
    ])["id"]
        .to_string();
    let set = |args: &[&str]| {
        let mut all = vec!["admin", "cabinet", "set", "--id", &cabinet];
        all.extend_from_slice(args);
        all.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let terms = || -> (Option<i64>, Option<String>, Option<String>) {
        let db = rusqlite::Connection::open(cli.dir.path().join("cli.db")).unwrap();
        db.query_row(
            "SELECT monthly_topup_cap_micros, fee_percent, report_schedule FROM cabinets",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
    };
    let args = set(&[
        "--monthly-topup-cap",
        "500",
        "--fee-percent",
        "12.50",
        "--report",
        "weekly",
    ]);
    cli.ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        terms(),
        (
            Some(500_000_000),
            Some("12.5".into()),
            Some("weekly".into())
        )
    );
    for (flag, value) in [
        ("--fee-percent", "101"),
        ("--report", "daily"),
        ("--monthly-topup-cap", "1.234"),
    ] {
        let args = set(&[flag, value]);
        let out = cli.fails(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(out.contains(&flag[2..]), "{flag}: {out}");
    }
    let args = set(&[
        "--monthly-topup-cap",
        "none",
        "--fee-percent",
        "none",
        "--report",
        "none",
    ]);
    cli.ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(terms(), (None, None, None));
}

#[test]
fn admin_rates_set_keeps_a_manual_rate_and_list_shows_it() {
    let cli = Cli::new();
    let set = cli.ok(&[
        "admin",
        "rates",
        "set",
        "--from",
        "eur",
        "--to",
        "USD",
        "--rate",
        "1.0512",
        "--date",
        "2026-11-27",
    ]);
    assert_eq!(set["from"], "EUR");
    assert_eq!(set["date"], "2026-11-27");
    assert_eq!(set["source"], "manual");
    let today = cli.ok(&[
        "admin", "rates", "set", "--from", "TON", "--to", "EUR", "--rate", "4.7",
    ]);
    assert!(today["date"].as_str().unwrap().len() == 10, "{today}");
    let list = cli.ok(&["admin", "rates", "list"]);
    assert_eq!(list["reporting_currency"], "EUR");
    assert_eq!(list["source"], "ecb");
    let rates = list["rates"].as_array().unwrap();
    assert_eq!(rates.len(), 2);
    assert!(rates
        .iter()
        .any(|r| r["from"] == "EUR" && r["rate"] == "1.0512"));
    let refused = cli.fails(&[
        "admin", "rates", "set", "--from", "EUR", "--to", "EUR", "--rate", "1",
    ]);
    assert!(refused.contains("different currencies"), "{refused}");
}

#[test]
fn create_related_opens_a_client_cabinet_under_the_main_account_once() {
    let cli = Cli::new();
    let uid = cli.ok(&[
        "admin",
        "user",
        "add",
        "--email",
        "a@example.com",
        "--plan",
        "agency",
    ])["id"]
        .to_string();
    let main = cli.ok(&[
        "admin",
        "cabinet",
        "add",
        "--owner",
        &uid,
        "--name",
        "Main",
        "--type",
        "euro",
        "--balance",
        "100",
    ])["id"]
        .to_string();
    let args = [
        "admin",
        "cabinet",
        "create-related",
        "--main",
        &main,
        "--title",
        "Client",
        "--full-name",
        "Ann Lee",
        "--email",
        "ann@example.com",
        "--phone",
        "+44 20 7946 0000",
        "--country",
        "GB",
        "--city",
        "London",
    ];
    assert!(cli.fails(&args).contains("not the agency's main account"));
    cli.ok(&[
        "admin",
        "cabinet",
        "set",
        "--id",
        &main,
        "--main-account",
        "true",
    ]);
    let opened = cli.ok(&args);
    assert_eq!(opened["main_account_id"].to_string(), main);
    assert_eq!(opened["name"], "Client");
    assert_eq!(
        cli.ok(&args)["id"],
        opened["id"],
        "the same command opens nothing new"
    );
    let list = cli.ok(&["admin", "cabinet", "list", "--owner", &uid]);
    assert_eq!(list["cabinets"].as_array().unwrap().len(), 2);
}
