//! The operator's traps, through the real binary: only `serve` and `init` create a database,
//! relative paths follow the config file, mistakes are told plainly (file, key, line, port,
//! lock) and usage errors keep the JSON promise, read-only commands never wait for the writer,
//! and out-of-range values are refused before they reach the store.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

fn adcab(config: &Path, args: &[&str]) -> Output {
    adcab_in(config, args, None)
}

fn adcab_in(config: &Path, args: &[&str], cwd: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_adcab"));
    command.arg("--config").arg(config).args(args);
    if let Some(dir) = cwd {
        command.current_dir(dir);
    }
    command.output().unwrap()
}

/// The sentence of a failed command, after checking the failure's form: non-zero exit, one
/// `{"error"}` object on stdout, a sentence on stderr, never "internal error".
fn failure(out: &Output) -> String {
    assert!(!out.status.success(), "should fail: {out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|_| panic!("stdout is not one JSON object: {stdout}"));
    let sentence = v["error"].as_str().unwrap().to_string();
    assert!(!String::from_utf8_lossy(&out.stderr).trim().is_empty());
    assert!(!sentence.contains("internal error"), "{sentence}");
    sentence
}

fn success(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{} {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A config file in a new folder naming `storage_path` as written.
fn config_with(storage_path: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("adcab.toml");
    std::fs::write(
        &config,
        format!("[storage]\npath = \"{storage_path}\"\n[demo]\nbootstrap = false\n"),
    )
    .unwrap();
    (dir, config)
}

#[test]
fn only_serve_and_init_create_a_database() {
    let (dir, config) = config_with("missing/adcab.db");
    let db = dir.path().join("missing/adcab.db");
    for args in [
        &["admin", "user", "add", "--email", "a@example.com"][..],
        &["sim", "now"][..],
    ] {
        let sentence = failure(&adcab(&config, args));
        assert!(sentence.contains(&db.display().to_string()), "{sentence}");
        assert!(sentence.contains("adcab init"), "{sentence}");
    }
    assert!(!db.exists(), "no empty database was made");
    let made = success(&adcab(&config, &["init"]));
    assert_eq!(made["database"], db.display().to_string());
    assert_eq!(made["schema"], adcab::db::schema::version());
    success(&adcab(
        &config,
        &["admin", "user", "add", "--email", "a@example.com"],
    ));
}

#[test]
fn a_relative_storage_path_follows_the_config_file_not_the_working_folder() {
    let (dir, config) = config_with("data/adcab.db");
    let elsewhere = tempfile::tempdir().unwrap();
    success(&adcab_in(&config, &["init"], Some(elsewhere.path())));
    assert!(dir.path().join("data/adcab.db").exists());
    assert!(!elsewhere.path().join("data").exists());
    let user = success(&adcab_in(
        &config,
        &["admin", "user", "add", "--email", "r@example.com"],
        Some(elsewhere.path()),
    ));
    assert_eq!(user["id"], 1);
}

#[test]
fn operator_mistakes_are_told_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.toml");
    let sentence = failure(&adcab(&missing, &["sim", "now"]));
    assert!(
        sentence.contains("cannot read the config file") && sentence.contains("nope.toml"),
        "{sentence}"
    );

    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[server]\nlisten = \"127.0.0.1:0\"\nmax_connections = \"lots\"\n",
    )
    .unwrap();
    let sentence = failure(&adcab(&bad, &["sim", "now"]));
    assert!(
        sentence.contains("bad.toml")
            && sentence.contains("line 3")
            && sentence.contains("server.max_connections"),
        "{sentence}"
    );
    std::fs::write(&bad, "[server]\nlisten = 127.0.0.1\n").unwrap();
    let sentence = failure(&adcab(&bad, &["sim", "now"]));
    assert!(sentence.contains("line 2"), "{sentence}");

    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap();
    let busy = dir.path().join("busy.toml");
    std::fs::write(
        &busy,
        format!(
            "[server]\nlisten = \"{port}\"\n[storage]\npath = \"busy.db\"\n[demo]\nbootstrap = false\n"
        ),
    )
    .unwrap();
    let sentence = failure(&adcab(&busy, &["serve"]));
    assert!(
        sentence.contains(&format!("cannot listen on {port}")) && sentence.contains("in use"),
        "{sentence}"
    );
}

#[test]
fn a_locked_database_is_named_and_a_read_does_not_wait_for_the_writer() {
    let (dir, config) = config_with("locked.db");
    success(&adcab(&config, &["init"]));
    let holder = adcab::db::open_connection(&dir.path().join("locked.db")).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let started = Instant::now();
    let now = success(&adcab(&config, &["sim", "now"]));
    assert!(now["now"].is_string());
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "a read waited for the writer: {:?}",
        started.elapsed()
    );
    let sentence = failure(&adcab(
        &config,
        &["admin", "user", "add", "--email", "l@example.com"],
    ));
    assert!(sentence.contains("locked by another process"), "{sentence}");
    holder.execute_batch("ROLLBACK").unwrap();
    success(&adcab(
        &config,
        &["admin", "user", "add", "--email", "l@example.com"],
    ));
}

#[test]
fn usage_errors_print_the_json_error_object() {
    let (_dir, config) = config_with("u.db");
    let out = adcab(&config, &["admin", "user", "add"]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["error"].as_str().unwrap().contains("--email"), "{v}");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains('\u{1b}'),
        "no colour codes"
    );
    let out = adcab(&config, &["--version"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("adcab "));
}

#[test]
fn out_of_range_operator_values_are_refused_before_the_store() {
    let (_dir, config) = config_with("r.db");
    success(&adcab(&config, &["init"]));
    let user = success(&adcab(
        &config,
        &["admin", "user", "add", "--email", "o@example.com"],
    ));
    let owner = user["id"].to_string();
    let add = |extra: &[&str]| {
        let mut args = vec![
            "admin", "cabinet", "add", "--owner", &owner, "--name", "C", "--type", "euro",
        ];
        args.extend_from_slice(extra);
        adcab(&config, &args)
    };
    assert!(failure(&add(&["--balance", "1e5"])).contains("balance"));
    assert!(failure(&add(&["--balance", "1000000000.5"])).contains("at most"));
    assert!(failure(&add(&["--min-budget", "9223372036854775807"])).contains("min-budget"));
    let sentence = failure(&adcab(
        &config,
        &["sim", "advance", "--seconds", "9223372036854775807"],
    ));
    assert!(sentence.contains("seconds"), "{sentence}");
    assert!(
        success(&adcab(&config, &["sim", "now"]))["now"].is_string(),
        "the clock still reads"
    );
}
