//! Owns the rough edges of a new operator's first hour, on the real binary: a closed pipe, a
//! misspelt environment variable, a taken address, `check` on the wrong file, the request log's
//! durations, and a person added with a password in one step.

use std::process::Stdio;

use super::{adcab, admin, agent, call, config, serve};
use crate::helpers::Browser;

#[test]
fn config_show_into_a_closed_pipe_ends_quietly_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), "");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = adcab(&config, &["config", "show"])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!said.contains("panicked"), "{said}");
    assert!(said.is_empty(), "nothing said on a closed pipe: {said}");
    assert_eq!(
        out.status.code(),
        Some(141),
        "128 + SIGPIPE, as a shell reports"
    );
}

#[test]
fn a_misspelt_environment_variable_is_warned_with_the_nearest_name() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), "");
    let out = adcab(&config, &["config", "show"])
        .env("ADCAB_SERVER_LISSEN", "127.0.0.1:9999")
        .output()
        .unwrap();
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("ADCAB_SERVER_LISSEN") && said.contains("did you mean ADCAB_SERVER_LISTEN?"),
        "{said}"
    );
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        shown["server"]["listen"], "127.0.0.1:0",
        "the misspelt one is not read"
    );
}

#[test]
fn a_taken_address_is_refused_by_its_setting_before_a_database_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let config = config(dir.path(), "");
    let out = adcab(&config, &["serve"])
        .env("ADCAB_SERVER_LISTEN", &addr)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sentence = printed["error"].as_str().unwrap();
    for named in [
        addr.as_str(),
        "already in use",
        "server.listen",
        "ADCAB_SERVER_LISTEN",
    ] {
        assert!(sentence.contains(named), "{named} in {sentence}");
    }
    assert!(
        !dir.path().join("adcab.db").exists(),
        "the failed start created a database"
    );
}

#[test]
fn check_hints_init_for_a_missing_database_and_refuses_another_programs_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), "");
    let missing = adcab(&config, &["check"]).output().unwrap();
    assert!(!missing.status.success());
    let said: serde_json::Value = serde_json::from_slice(&missing.stdout).unwrap();
    let sentence = said["error"].as_str().unwrap();
    assert!(sentence.contains("adcab init"), "{sentence}");

    let db = dir.path().join("adcab.db");
    adcab::db::open_connection(&db)
        .unwrap()
        .execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
        .unwrap();
    let foreign = adcab(&config, &["check"]).output().unwrap();
    assert!(
        !foreign.status.success(),
        "check passes another program's file"
    );
    let said: serde_json::Value = serde_json::from_slice(&foreign.stdout).unwrap();
    let sentence = said["error"].as_str().unwrap();
    assert!(sentence.contains("not an adcab database"), "{sentence}");
}

#[test]
fn text_logs_print_request_durations_rounded_to_hundredths() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), "");
    let mut server = serve(adcab(&config, &["serve"]));
    let (status, _, body) = call(
        &agent(),
        "GET",
        &format!("{}/account/info", server.base),
        &server.key(),
        None,
    )
    .unwrap();
    assert_eq!(status, 200, "{body}");
    let later = server.stop();
    let text = String::from_utf8_lossy(&later);
    let figure = text
        .lines()
        .find_map(|l| l.split("duration_ms=").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no request line: {text}"));
    let decimals = figure.split_once('.').map_or(0, |(_, d)| d.len());
    assert!(
        decimals <= 2 && figure.parse::<f64>().is_ok(),
        "duration_ms={figure}"
    );
}

#[test]
fn user_add_sets_the_panel_password_from_stdin_in_the_same_step() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), "");
    assert!(adcab(&config, &["init"]).output().unwrap().status.success());
    let added = admin(
        &config,
        &[
            "admin",
            "user",
            "add",
            "--email",
            "owner@agency.example",
            "--plan",
            "agency",
            "--password-stdin",
        ],
        "the owner's long password\n",
    );
    let short = adcab(
        &config,
        &[
            "admin",
            "user",
            "add",
            "--email",
            "b@agency.example",
            "--password-stdin",
        ],
    )
    .stdin(Stdio::null())
    .output()
    .unwrap();
    assert!(!short.status.success(), "an empty password adds someone");
    let listed = admin(&config, &["admin", "user", "list"], "");
    assert_eq!(listed["users"].as_array().unwrap().len(), 1, "{listed}");
    let server = serve(adcab(&config, &["serve"]));
    let web = Browser::at(server.base.trim_end_matches("/api/v1"));
    assert_eq!(
        web.login("owner@agency.example", "the owner's long password")
            .status,
        303,
        "person {added}"
    );
}
