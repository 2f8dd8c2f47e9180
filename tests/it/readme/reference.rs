//! The README's command reference against the binary: every command its table names exists,
//! takes every flag the row shows (its `--help` lists them), the two examples written inline
//! in the section run as written, and the operations commands (backup, restore, check, config
//! show) answer on a fresh data folder as the README says.

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::{bash, finish};

/// One command of the table: its words after `adcab` (`["admin", "key", "create"]`) and the
/// flags its row shows.
#[derive(Debug)]
struct Named {
    words: Vec<String>,
    flags: Vec<String>,
}

/// The code spans of a Markdown table cell (the text between backticks).
fn spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// The commands the reference table names, one per alternative (`cancel\|resume` is two,
/// `revoke --id N` / `rotate-secret --id N` two).
fn named(readme: &str) -> Vec<Named> {
    let section = readme
        .split("\n## Command reference\n")
        .nth(1)
        .expect("the command reference")
        .split("\n## ")
        .next()
        .unwrap();
    let mut found = Vec::new();
    for row in section.lines().filter(|l| l.starts_with("| `adcab")) {
        let cell = row.split(" | ").next().unwrap();
        let first: Vec<&str> = spans(cell)[0].split_whitespace().collect();
        for span in spans(cell) {
            let mut tokens: Vec<&str> = span.split_whitespace().collect();
            if tokens[0] != "adcab" {
                // A second form in the row: `sim advance` (from the top) or `rotate-secret`
                // (beside the first form's last word).
                let lead = if tokens[0] == first[1] {
                    &first[..1]
                } else {
                    &first[..first.len() - 1]
                };
                tokens.splice(0..0, lead.iter().copied());
            }
            if tokens
                .iter()
                .any(|t| t.contains('|') && !t.starts_with(['-', '[']))
            {
                // `cancel\|resume`: one command per alternative.
                let at = tokens.iter().position(|t| t.contains('|')).unwrap();
                for alternative in tokens[at].split("\\|") {
                    let mut one = tokens.clone();
                    one[at] = alternative;
                    found.push(parse(&one));
                }
            } else {
                found.push(parse(&tokens));
            }
        }
    }
    found
}

/// The words up to the first flag or placeholder, and every `--flag` after them.
fn parse(tokens: &[&str]) -> Named {
    let words = tokens[1..]
        .iter()
        .take_while(|t| {
            t.chars().all(|c| c.is_ascii_lowercase() || c == '-') && !t.starts_with('-')
        })
        .map(|t| t.to_string())
        .collect();
    let flags = tokens
        .iter()
        .map(|t| t.trim_start_matches('['))
        .filter(|t| t.starts_with("--"))
        .map(|t| {
            t.chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect::<String>()
        })
        .collect();
    Named { words, flags }
}

#[test]
fn every_command_and_flag_of_the_reference_is_the_binarys() {
    let table = named(include_str!("../../../README.md"));
    assert!(
        table.len() >= 40,
        "{} commands: the parser lost rows",
        table.len()
    );
    let mut wrong = Vec::new();
    for command in &table {
        if command.words.is_empty() {
            // `adcab --version`.
            let out = Command::new(env!("CARGO_BIN_EXE_adcab"))
                .args(&command.flags)
                .output()
                .unwrap();
            if !out.status.success() {
                wrong.push(format!("adcab {:?} fails", command.flags));
            }
            continue;
        }
        let out = Command::new(env!("CARGO_BIN_EXE_adcab"))
            .args(&command.words)
            .arg("--help")
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        let said = format!("adcab {}", command.words.join(" "));
        if !out.status.success() || !help.contains(&format!("Usage: {said}")) {
            wrong.push(format!("{said}: no such command ({})", help.trim()));
            continue;
        }
        for flag in &command.flags {
            if !help.contains(&format!("{flag} ")) && !help.contains(&format!("{flag}\n")) {
                wrong.push(format!("{said}: no {flag}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the reference and the binary differ:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_inline_examples_of_the_reference_run_as_written() {
    let readme = include_str!("../../../README.md");
    let section = readme.split("\n## Command reference\n").nth(1).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("adcab.db").display().to_string();
    let run = |script: &str| {
        let child = bash(dir.path(), script)
            .env("ADCAB_STORAGE_PATH", &database)
            .env("PASSWORD", "correct horse battery staple")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        finish(child, Duration::from_secs(30))
    };
    assert!(run("adcab init").status.success());
    // "A command whose reader goes away (`adcab config show | head -1`) ... exits 141": here
    // the whole answer fits the pipe before `head` goes, so it may also exit 0; never a panic
    // (a closed pipe itself is tested in process::first_hour).
    let piped = "adcab config show | head -1";
    assert!(section.contains(&format!("`{piped}`")));
    let out = run(&format!("{piped} >/dev/null; echo \"${{PIPESTATUS[0]}}\""));
    let status = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(["0", "141"].contains(&status.trim()), "{status}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // The user added with a password read from stdin, in one step (E: an email).
    let add = r#"printf '%s\n' "$PASSWORD" \| adcab admin user add --email E --password-stdin"#;
    assert!(section.contains(add), "the user add example");
    let add = add
        .replace("\\|", "|")
        .replace(" E ", " owner@agency.example ");
    let out = run(&add);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), r#"{"id":1}"#);
}

#[test]
fn the_operations_commands_run_on_a_fresh_data_folder_as_the_readme_says() {
    let readme = include_str!("../../../README.md");
    for written in [
        "`adcab backup --to PATH`",
        "`adcab restore --from PATH`",
        "`adcab check`",
        "`adcab config show`",
    ] {
        assert!(readme.contains(written), "{written}");
    }
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("data/adcab.db").display().to_string();
    let run = |script: &str| -> Value {
        let child = bash(dir.path(), &format!("set -euo pipefail\n{script}"))
            .env("ADCAB_STORAGE_PATH", &database)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = finish(child, Duration::from_secs(30));
        let printed = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{script}: {printed} {out:?}");
        serde_json::from_str(printed.trim()).unwrap_or_else(|e| panic!("{e}: {printed}"))
    };
    run("adcab init");
    run("adcab admin user add --email you@example.com --plan agency");
    // PATH, the reader's own: a new folder.
    let backup = run("adcab backup --to ./before-upgrade");
    assert_eq!(backup["path"], "./before-upgrade", "{backup}");
    assert_eq!(backup["tables"]["users"], 1, "{backup}");
    assert!(backup["bytes"].as_i64().is_some_and(|b| b > 0), "{backup}");
    run("adcab admin user add --email later@example.com");
    let restored = run("adcab restore --from ./before-upgrade");
    assert_eq!(restored["restored"], "./before-upgrade", "{restored}");
    let users = run("adcab admin user list");
    assert_eq!(users["users"].as_array().map(Vec::len), Some(1), "{users}");
    let check = run("adcab check");
    assert_eq!(check["config"], "ok", "{check}");
    assert_eq!(check["database"]["integrity"], "ok", "{check}");
    let shown = run("adcab config show");
    assert_eq!(shown["storage"]["path"], database.as_str(), "{shown}");
}
