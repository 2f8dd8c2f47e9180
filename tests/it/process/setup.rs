//! `adcab setup` run as the operator runs it without a terminal (flags, the password and the
//! token on stdin): the config file edited with its comments kept, the owner created once
//! with a panel password, and a Telegram Ads token checked against the fake platform before
//! anything is kept.

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

use serde_json::Value;

use crate::telegram::FakePromote;

const PASSWORD: &str = "a long panel password";

fn setup(config: &Path, flags: &[&str], stdin: &str) -> (Output, Value) {
    let mut child = super::adcab(config, &[&["setup"], flags].concat())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let printed = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out, printed)
}

/// The stored password hash of the person with `email`.
fn password_hash(database: &Path, email: &str) -> String {
    let conn = rusqlite::Connection::open(database).unwrap();
    conn.query_row(
        "SELECT password_hash FROM users WHERE email = ?1",
        [email],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn setup_edits_the_config_keeping_its_comments_and_creates_the_owner_with_a_password() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("adcab.toml");
    std::fs::write(
        &config,
        "# the operator's own note\n[server]\nlisten = \"127.0.0.1:0\"\n\n[platform]\n# simulator for now\nkind = \"sim\"\n",
    )
    .unwrap();
    let (out, printed) = setup(
        &config,
        &[
            "--email",
            "owner@agency.example",
            "--password-stdin",
            "--public-url",
            "https://ads.agency.example",
            "--database",
            "data/adcab.db",
        ],
        &format!("{PASSWORD}\n"),
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(printed["platform"], "sim");
    assert_eq!(printed["panel"], "https://ads.agency.example/login");
    assert_eq!(printed["cabinets"], serde_json::json!([]));
    let owner = printed["owner"]["id"].as_i64().unwrap();
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.starts_with("# the operator's own note\n"), "{text}");
    assert!(
        text.contains("# simulator for now\nkind = \"sim\""),
        "{text}"
    );
    assert!(
        text.contains("public_url = \"https://ads.agency.example\""),
        "{text}"
    );
    assert!(text.contains("path = \"data/adcab.db\""), "{text}");
    assert!(text.contains("bootstrap = false"), "{text}");
    let database = dir.path().join("data/adcab.db");
    assert_eq!(printed["database"], database.display().to_string());
    let hash = password_hash(&database, "owner@agency.example");
    assert!(adcab::domain::password::verify(PASSWORD, &hash));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("simulator stays on"), "{stderr}");

    // Run again: the same owner, with the new password.
    let (again, printed) = setup(
        &config,
        &["--email", "owner@agency.example", "--password-stdin"],
        "another long password\n",
    );
    assert!(again.status.success(), "{again:?}");
    assert_eq!(printed["owner"]["id"].as_i64(), Some(owner));
    let hash = password_hash(&database, "owner@agency.example");
    assert!(adcab::domain::password::verify(
        "another long password",
        &hash
    ));
}

#[test]
fn setup_checks_a_telegram_token_and_connects_its_accounts() {
    let fake = FakePromote::start();
    let main = fake.add_account("EUR", "Agency main", "500", true);
    fake.add_related(&main.account_id, "EUR", "Client A", "50");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("adcab.toml");
    std::fs::write(
        &config,
        format!(
            "[storage]\npath = \"adcab.db\"\n[telegram]\napi_url = \"{}\"\n",
            fake.url
        ),
    )
    .unwrap();
    let (out, printed) = setup(
        &config,
        &[
            "--email",
            "owner@agency.example",
            "--password-stdin",
            "--token-stdin",
        ],
        &format!("{PASSWORD}\n{}\n", main.token),
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(printed["platform"], "telegram");
    let names: Vec<&str> = printed["cabinets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{printed}");
    assert!(names.contains(&"Client A"), "{names:?}");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("kind = \"telegram\""), "{text}");
    assert!(
        !text.contains(&main.token),
        "the token is never written to the config"
    );
}

#[test]
fn a_refused_token_leaves_the_config_as_it_was_and_no_database() {
    let fake = FakePromote::start();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("adcab.toml");
    let before = format!(
        "[storage]\npath = \"adcab.db\"\n[telegram]\napi_url = \"{}\"\n",
        fake.url
    );
    std::fs::write(&config, &before).unwrap();
    let (out, printed) = setup(
        &config,
        &[
            "--email",
            "owner@agency.example",
            "--password-stdin",
            "--token-stdin",
        ],
        &format!("{PASSWORD}\nno-such-token\n"),
    );
    assert!(!out.status.success(), "{out:?}");
    assert!(printed["error"].is_string(), "{printed}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);
    assert!(!dir.path().join("adcab.db").exists());
}

#[test]
fn setup_without_a_terminal_needs_the_email_and_the_password_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("adcab.toml");
    let (out, printed) = setup(&config, &["--password-stdin"], &format!("{PASSWORD}\n"));
    assert!(!out.status.success());
    assert!(
        printed["error"].as_str().unwrap().contains("--email"),
        "{printed}"
    );
    assert!(!config.exists(), "nothing written");
}
