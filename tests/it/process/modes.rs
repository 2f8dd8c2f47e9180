//! What the binary creates on disk under a permissive umask (022, as a shell outside systemd
//! has it): the database's folder, the database and its log, the serve lock, the media folder
//! and its files, every backup (manual, before a migration) and what a restore keeps, each
//! private to its owner (folders 0700, files 0600), because they hold password hashes and
//! webhook secrets.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{admin, serve};
use crate::media::{multipart, PNG};

/// `adcab --config <config> <args>` run by a shell with umask 022.
fn under_umask_022(config: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("sh");
    cmd.args([
        "-c",
        "umask 022 && exec \"$0\" \"$@\"",
        env!("CARGO_BIN_EXE_adcab"),
    ])
    .arg("--config")
    .arg(config)
    .args(args);
    cmd
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

/// Asserts `path` is a private folder (0700) and every folder and file under it is private.
fn assert_private_tree(path: &Path) {
    assert_eq!(mode(path), 0o700, "{}", path.display());
    for entry in std::fs::read_dir(path).unwrap().flatten() {
        if entry.file_type().unwrap().is_dir() {
            assert_private_tree(&entry.path());
        } else {
            assert_eq!(mode(&entry.path()), 0o600, "{}", entry.path().display());
        }
    }
}

/// The one entry of `folder` whose name starts with `prefix`.
fn one_starting(folder: &Path, prefix: &str) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "{prefix}* in {}: {found:?}",
        folder.display()
    );
    found.into_iter().next().unwrap()
}

fn succeeds(mut cmd: Command) -> serde_json::Value {
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{text}");
    serde_json::from_str(text.trim()).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

#[test]
fn what_adcab_creates_is_private_whatever_the_umask() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let data = dir.path().join("data");
    let db = data.join("adcab.db");
    let config = dir.path().join("adcab.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nlisten = \"127.0.0.1:0\"\n[storage]\npath = \"{}\"\n",
            db.display()
        ),
    )
    .unwrap();

    let mut server = serve(under_umask_022(&config, &["serve"]));
    assert_eq!(mode(&data), 0o700, "the database's folder, made by adcab");
    for file in ["adcab.db", "adcab.db-wal", "adcab.db-shm", "adcab.db.lock"] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
    let cabinets = admin(&config, &["admin", "cabinet", "list"], "");
    let cabinet = cabinets["cabinets"][0]["id"].as_i64().unwrap();
    let (content_type, body) = multipart("file", "banner.png", PNG);
    let uploaded = ureq::post(&format!("{}/media?account_id={cabinet}", server.base))
        .set("X-API-Key", &server.key())
        .set("Content-Type", &content_type)
        .send_bytes(&body)
        .unwrap();
    assert_eq!(uploaded.status(), 200);
    assert_private_tree(&data.join("media"));

    let to = dir.path().join("out/b1");
    succeeds(under_umask_022(
        &config,
        &["backup", "--to", to.to_str().unwrap()],
    ));
    assert_eq!(
        mode(&dir.path().join("out")),
        0o700,
        "a folder the backup made"
    );
    assert_private_tree(&to);
    assert!(to.join("media").read_dir().unwrap().next().is_some());
    server.stop();

    // A migration pending (the connector's tables as before its first migration): the next
    // command backs the database up beside it first.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "DROP TABLE tg_seen; DROP TABLE tg_deletes; DELETE FROM tg_schema_migrations;",
    )
    .unwrap();
    drop(conn);
    succeeds(under_umask_022(&config, &["admin", "user", "list"]));
    assert_private_tree(&one_starting(&data, "pre-migration-"));

    let restored = succeeds(under_umask_022(
        &config,
        &["restore", "--from", to.to_str().unwrap()],
    ));
    assert_eq!(restored["restored"], to.display().to_string());
    assert_eq!(mode(&db), 0o600);
    assert_private_tree(&data.join("media"));
    assert_eq!(
        mode(&one_starting(&data, "adcab.db.before-restore-")),
        0o600
    );
    assert_private_tree(&one_starting(&data, "media.before-restore-"));
}
