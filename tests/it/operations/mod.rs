//! The operator's side of a running service: metrics that move with their events, retention
//! that keeps every total exact, backups taken under writes and restored, the pre-migration
//! backup, databases of a previous schema migrated (cabinet types checked by the code, opens kept
//! per cabinet hour and day, days summed by week), and the operator commands (`admin key list` for everyone, `admin
//! webhook resend`).

mod backup;
mod cabinet_types;
mod commands;
mod kept;
mod metrics;
mod retention;

/// A database file as the release before migration `version` left it: the service's
/// migrations before it, read from `sql/`, applied and recorded as the release recorded them.
fn schema_before(path: &std::path::Path, version: i64) -> rusqlite::Connection {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sql");
    let mut files: Vec<(i64, std::path::PathBuf)> = std::fs::read_dir(&folder)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let number = name.split('_').next()?.parse().ok()?;
            name.ends_with(".sql").then_some((number, e.path()))
        })
        .filter(|(number, _)| *number < version)
        .collect();
    files.sort();
    assert_eq!(files.last().map(|f| f.0), Some(version - 1), "{files:?}");
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
    )
    .unwrap();
    for (number, file) in files {
        conn.execute_batch(&std::fs::read_to_string(file).unwrap())
            .unwrap();
        conn.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES (?1, 'then')",
            [number],
        )
        .unwrap();
    }
    conn
}

/// Runs an async service function from a test.
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}
