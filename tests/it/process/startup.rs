//! Owns what `serve` does before it announces itself: the databases it refuses (a damaged page
//! among them), and log lines without colour codes when not on a terminal.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::helpers::poll;

use super::{adcab, agent, call, config, proc_status, serve};

/// Runs a command that must fail within 10 s without announcing that it serves; returns the
/// sentence of the `{"error": ...}` object it printed.
fn refused(mut cmd: Command) -> String {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let Some(status) = poll(Duration::from_secs(10), || child.try_wait().unwrap()) else {
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        panic!(
            "still running after 10 s: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    };
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(!status.success(), "it succeeded: {out}");
    assert!(!out.contains("adcab serving"), "it announced itself: {out}");
    out.lines()
        .find_map(|l| serde_json::from_str::<Value>(l).ok())
        .and_then(|v| v["error"].as_str().map(str::to_string))
        .unwrap_or_else(|| panic!("no {{\"error\": ...}} printed: {out}"))
}

#[test]
fn serve_refuses_a_corrupt_or_newer_database_before_announcing() {
    let dir = tempfile::tempdir().unwrap();
    let (config, db) = (config(dir.path(), ""), dir.path().join("adcab.db"));
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let noise: Vec<u8> = (0..8192)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(&db, noise).unwrap();
    let said = refused(adcab(&config, &["serve"]));
    eprintln!("random bytes: {said}");
    assert!(
        said.contains(&db.display().to_string()) && said.contains("not an adcab database"),
        "{said}"
    );

    std::fs::remove_file(&db).unwrap();
    assert!(adcab(&config, &["init"]).output().unwrap().status.success());
    adcab::db::open_connection(&db)
        .unwrap()
        .execute_batch("INSERT INTO schema_migrations (version, applied_at) VALUES (99, 'x')")
        .unwrap();
    for args in [&["serve"][..], &["sim", "now"]] {
        let said = refused(adcab(&config, args));
        eprintln!("{args:?} on a newer schema: {said}");
        assert!(said.contains("newer"), "{args:?}: {said}");
    }

    let dir = tempfile::tempdir().unwrap();
    let (config, db) = (self::config(dir.path(), ""), dir.path().join("adcab.db"));
    let mode = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    mode(dir.path(), 0o755);
    assert!(adcab(&config, &["init"]).output().unwrap().status.success());
    mode(&db, 0o444);
    mode(dir.path(), 0o555);
    let mut cmd = adcab(&config, &["serve"]);
    if proc_status(std::process::id(), "Uid:") == 0 {
        cmd.uid(65534).gid(65534);
    }
    let said = refused(cmd);
    mode(dir.path(), 0o755);
    eprintln!("read-only: {said}");
    assert!(
        said.contains("does not take writes") || said.contains("read-only"),
        "{said}"
    );
}

#[test]
fn serve_refuses_a_database_with_a_damaged_page_and_check_fails_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let (config, db) = (config(dir.path(), ""), dir.path().join("adcab.db"));
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
    server.stop();

    // Every write copied into the file itself, then noise over the root page of the table
    // nearest the middle of the file (not one read on opening: the migration ledgers).
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
        r.get::<_, i64>(0)
    })
    .unwrap();
    let pages: i64 = conn
        .query_row("PRAGMA page_count", [], |r| r.get(0))
        .unwrap();
    let page_size: i64 = conn
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .unwrap();
    let (table, page): (String, i64) = conn
        .query_row(
            "SELECT name, rootpage FROM sqlite_master
             WHERE type = 'table' AND name NOT LIKE '%schema_migrations'
             ORDER BY abs(rootpage - ?1) LIMIT 1",
            [pages / 2],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    drop(conn);
    let mut bytes = std::fs::read(&db).unwrap();
    let at = ((page - 1) * page_size) as usize;
    for (i, b) in bytes[at..at + page_size as usize].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(31).wrapping_add(7);
    }
    std::fs::write(&db, bytes).unwrap();

    let said = refused(adcab(&config, &["serve"]));
    eprintln!("page {page} of {pages} ({table}) damaged: {said}");
    assert!(
        said.contains(&db.display().to_string()) && said.contains("damaged"),
        "{said}"
    );
    let checked = adcab(&config, &["check"]).output().unwrap();
    assert!(!checked.status.success(), "check passes a damaged file");
}

#[test]
fn log_lines_carry_no_colour_codes_when_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = serve(adcab(&config(dir.path(), ""), &["serve"]));
    for line in &server.printed {
        assert!(!line.contains('\x1b'), "colour codes in {line:?}");
    }
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
    assert!(text.contains("adcab stopped"), "{text}");
    assert!(!later.contains(&0x1b), "colour codes in {text:?}");
}
