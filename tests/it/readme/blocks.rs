//! Every fenced block of the README (and of `docs/*.md`) carries a tag saying where it runs,
//! and a block with an unknown tag fails the suite; the Telegram blocks run here against the
//! Telegram fake, the API example against a fresh server. The install blocks run in
//! `packaging/test-install.sh`'s Debian chroot.
//!
//! Substitutions, the ones a reader makes: the fake's address for Telegram's (through
//! `ADCAB_TELEGRAM_API_URL`, or the config's `[telegram] api_url` where `setup` reads only
//! the file), a temporary folder for `/etc/adcab` and `/var/lib/adcab`, no `sudo` (the tests
//! own their folders), this server's address and ids for the example's.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use adcab::ops::{self, NewKey};
use serde_json::Value;

use super::{bash, fenced, finish, tagged};
use crate::helpers::{spawn_app, Camp};
use crate::telegram::FakePromote;

/// The tags a fenced block may carry, and where each is run (or why it is not).
const KNOWN: &[(&str, &str)] = &[
    ("sh trial", "readme::the_trial_runs_as_written"),
    ("sh trial-background", "readme::the_trial_runs_as_written"),
    (
        "sh telegram",
        "readme::blocks::the_telegram_*, against the fake",
    ),
    (
        "toml telegram",
        "the config readme::blocks::the_telegram_connect_block_runs_against_the_fake runs with",
    ),
    (
        "sh api",
        "readme::blocks::the_recreate_example_runs_against_a_fresh_server",
    ),
    (
        "sh install",
        "packaging/test-install.sh, in a fresh Debian chroot",
    ),
    (
        "sh unrun-build",
        "not run: it compiles adcab (minutes); timed by hand in docs/development.md",
    ),
    (
        "sh terminal",
        "readme::terminal, in a pseudo-terminal answering each question",
    ),
    (
        "sh unrun-service",
        "not run: it restarts or watches the service under systemd (test-install.sh --boot checks both)",
    ),
    (
        "caddyfile",
        "not run: Caddy, a domain and the internet (certificates)",
    ),
    ("json", "a request body, checked to parse"),
];

/// The Markdown files a reader is sent to: the README and `docs/`.
fn documents() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut folders = vec![root.join("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            (f.strip_prefix(root).unwrap().display().to_string(), text)
        })
        .collect()
}

#[test]
fn every_fenced_block_in_the_readme_and_docs_has_a_known_tag() {
    let mut unknown = Vec::new();
    let mut counted = 0;
    for (file, text) in documents() {
        for block in fenced(&text) {
            counted += 1;
            if !KNOWN.iter().any(|(tag, _)| *tag == block.info) {
                unknown.push(format!("{file}:{} ```{}", block.line, block.info));
            }
            if block.info == "json" {
                let parsed: Result<Value, _> = serde_json::from_str(&block.body);
                assert!(parsed.is_ok(), "{file}:{}: {parsed:?}", block.line);
            }
        }
    }
    assert!(counted >= 20, "{counted} blocks: the parser lost some");
    assert!(
        unknown.is_empty(),
        "blocks without a known tag (give each one of {:?}, and run it):\n{}",
        KNOWN.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
        unknown.join("\n")
    );
}

/// Runs `script` under `set -euo pipefail` in `dir` with `env`; its stdout, one JSON object
/// a line, parsed.
fn run(dir: &Path, script: &str, env: &[(&str, &str)]) -> Vec<Value> {
    let mut cmd = bash(dir, &format!("set -euo pipefail\n{script}"));
    for (name, value) in env {
        cmd.env(name, value);
    }
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = finish(child, Duration::from_secs(60));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the block failed:\n{script}\n{printed}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    printed
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The fake with a main (agency) EUR account that manages one TON client account.
pub(super) fn agency_on_the_fake() -> (FakePromote, String, String) {
    let fake = FakePromote::start();
    let main = fake.add_account("EUR", "Agency", "1000", true);
    fake.add_related(&main.account_id, "TON", "Client", "50");
    (fake, main.account_id, main.token)
}

#[test]
fn the_telegram_connect_block_runs_against_the_fake() {
    let readme = include_str!("../../../README.md");
    let config = tagged(readme, "toml telegram");
    let commands = tagged(readme, "sh telegram");
    let connect = commands
        .iter()
        .find(|b| b.contains("cabinet connect"))
        .expect("the connect block");
    let (fake, main, token) = agency_on_the_fake();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("adcab.toml"), &config[0]).unwrap();
    let database = dir.path().join("data/adcab.db").display().to_string();
    let env = [
        ("ADCAB_TELEGRAM_API_URL", fake.url.as_str()),
        ("ADCAB_STORAGE_PATH", database.as_str()),
        ("TOKEN", token.as_str()),
    ];
    // The reader's database exists: `serve` made it before the restart the README asks for.
    run(dir.path(), "adcab init >/dev/null", &env);
    let printed = run(dir.path(), connect, &env);
    assert_eq!(printed.len(), 4, "{printed:?}");
    assert_eq!(printed[0]["id"], 1, "the owner: {}", printed[0]);
    assert_eq!(printed[1]["account"]["platform_id"], main.as_str());
    assert_eq!(printed[1]["related"], 1, "{}", printed[1]);
    let cabinets = printed[2]["cabinets"].as_array().unwrap();
    let types: Vec<&str> = cabinets
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["euro", "ton"], "{}", printed[2]);
    assert!(printed[3]["key"].as_str().is_some_and(|k| !k.is_empty()));
}

#[test]
fn the_telegram_setup_block_runs_against_the_fake() {
    let readme = include_str!("../../../README.md");
    let commands = tagged(readme, "sh telegram");
    let setup = commands
        .iter()
        .find(|b| b.contains(" setup "))
        .expect("the setup block");
    let (fake, _, token) = agency_on_the_fake();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("var-lib-adcab");
    let etc = dir.path().join("etc-adcab");
    std::fs::create_dir_all(&etc).unwrap();
    let packaged = include_str!("../../../packaging/adcab.toml")
        .replace("/var/lib/adcab", &state.display().to_string());
    let config = etc.join("adcab.toml");
    std::fs::write(
        &config,
        format!("{packaged}\n[telegram]\napi_url = \"{}\"\n", fake.url),
    )
    .unwrap();
    let script = setup
        .replace("sudo ", "")
        .replace("/etc/adcab/adcab.toml", &config.display().to_string());
    let env = [
        ("PASSWORD", "correct horse battery staple"),
        ("TOKEN", token.as_str()),
    ];
    // What install.sh left: the database in the state folder.
    let init = format!("adcab --config {} init >/dev/null", config.display());
    run(dir.path(), &init, &env);
    let printed = run(dir.path(), &script, &env);
    assert_eq!(printed.len(), 1, "{printed:?}");
    let done = &printed[0];
    assert_eq!(done["platform"], "telegram", "{done}");
    assert_eq!(done["owner"]["email"], "owner@agency.example", "{done}");
    assert_eq!(done["panel"], "https://ads.agency.example/login", "{done}");
    assert_eq!(done["cabinets"].as_array().map(Vec::len), Some(2), "{done}");
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(written.contains("kind = \"telegram\""), "{written}");
}

#[test]
fn the_recreate_example_runs_against_a_fresh_server() {
    let readme = include_str!("../../../README.md");
    let example = tagged(readme, "sh api");
    assert_eq!(example.len(), 1, "one API example: the recreate");
    let app = spawn_app();
    let user = app.user("agency");
    let cabinet = app.cabinet(user, "euro", "1000");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    let ad = app.campaign(cabinet, Camp::channel("Boots", "https://t.me/alpha_chan"));
    ops::sim_review(&app.services, cabinet, ad, false, Some("Misleading text")).unwrap();
    let origin = app.base.trim_end_matches("/api/v1");
    let script = example[0]
        .replace("https://adcab.example", origin)
        .replace("1042", &ad.to_string())
        .replace("5000000001", &cabinet.to_string());
    let dir = tempfile::tempdir().unwrap();
    let printed = run(dir.path(), &script, &[("KEY", key.as_str())]);
    assert_eq!(printed.len(), 1, "{printed:?}");
    assert_eq!(printed[0]["data"]["type"], "recreate", "{}", printed[0]);
    let done = app.finish_task(&printed[0], &key);
    assert_eq!(done["status"], "completed", "{done}");
    let new = done["ad_ids"][0].as_i64().unwrap();
    let path = format!("/campaigns/{new}?account_id={cabinet}");
    let campaign = app.get_ok(&path, &key);
    assert_eq!(campaign["data"]["text"], "An honest text", "{campaign}");
}
