//! The README's `sh terminal` block, `adcab setup` asking on a terminal, run as written in a
//! pseudo-terminal (Python's `pty`, as the trial already needs `python3`) that answers each
//! question when it is asked, as a person would: Enter for the defaults, then the public
//! address, the owner, the password twice and a token of the Telegram fake.

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

use super::blocks::agency_on_the_fake;
use super::{bash, finish, tagged};

/// Runs `sys.argv[1]` under bash in a pseudo-terminal; each time the next question of
/// `ANSWERS` (JSON pairs of a prompt's words and the line typed) shows, types its answer.
/// Prints everything the terminal showed and exits as the command did.
const DRIVER: &str = r#"
import json, os, pty, select, sys, time
answers = json.loads(os.environ["ANSWERS"])
pid, fd = pty.fork()
if pid == 0:
    os.execvp("bash", ["bash", "-c", sys.argv[1]])
shown, at, asked = b"", 0, 0
while True:
    ready, _, _ = select.select([fd], [], [], 30)
    if not ready:
        sys.stdout.write(shown.decode(errors="replace"))
        sys.exit("no answer in 30 s")
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    shown += chunk
    while asked < len(answers):
        found = shown.find(answers[asked][0].encode(), at)
        if found < 0:
            break
        at = found + len(answers[asked][0])
        # As a person would: read the question before typing, so a secret's prompt has
        # turned the echo off by the time its answer comes.
        time.sleep(0.3)
        os.write(fd, (answers[asked][1] + "\n").encode())
        asked += 1
_, status = os.waitpid(pid, 0)
sys.stdout.write(shown.decode(errors="replace"))
if asked < len(answers):
    sys.exit("asked %d of %d questions" % (asked, len(answers)))
sys.exit(os.waitstatus_to_exitcode(status))
"#;

#[test]
fn the_setup_block_runs_on_a_terminal_answered_as_a_person_would() {
    let readme = include_str!("../../../README.md");
    let block = tagged(readme, "sh terminal");
    assert_eq!(block.len(), 1, "the terminal setup block");
    let (fake, _, token) = agency_on_the_fake();
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("var-lib-adcab");
    let etc = dir.path().join("etc-adcab");
    std::fs::create_dir_all(&etc).unwrap();
    let config = etc.join("adcab.toml");
    let packaged = include_str!("../../../packaging/adcab.toml")
        .replace("/var/lib/adcab", &state.display().to_string());
    std::fs::write(
        &config,
        format!("{packaged}\n[telegram]\napi_url = \"{}\"\n", fake.url),
    )
    .unwrap();
    let command = block[0]
        .replace("sudo ", "")
        .replace("/etc/adcab/adcab.toml", &config.display().to_string());
    let password = "correct horse battery staple";
    let answers = serde_json::json!([
        ["Config file", ""],
        ["Database file", ""],
        ["Listen address", ""],
        ["Public address of the panel", "https://ads.agency.example"],
        ["The owner's email", "owner@agency.example"],
        ["The owner's panel password", password],
        ["The same password again", password],
        ["Telegram Ads API token", token],
    ]);
    let child = bash(dir.path(), "python3 -c \"$DRIVER\" \"$COMMAND\"")
        .env("DRIVER", DRIVER)
        .env("COMMAND", &command)
        .env("ANSWERS", answers.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = finish(child, Duration::from_secs(60));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{command}:\n{shown}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = shown
        .lines()
        .filter_map(|l| serde_json::from_str(l.trim()).ok())
        .next_back()
        .unwrap_or_else(|| panic!("no JSON answer:\n{shown}"));
    assert_eq!(printed["platform"], "telegram", "{printed}");
    assert_eq!(printed["owner"]["email"], "owner@agency.example");
    assert_eq!(printed["panel"], "https://ads.agency.example/login");
    assert_eq!(printed["cabinets"].as_array().map(Vec::len), Some(2));
    assert!(
        !shown.contains(password),
        "a password is never shown:\n{shown}"
    );
    assert!(!shown.contains(&token), "nor the token:\n{shown}");
}
