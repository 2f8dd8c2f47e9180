//! Owns the operator's commands that work on the data folder as files: `check` (read-only),
//! `backup` (a verified snapshot while the server runs) and `restore` (refused while it runs).

use std::path::Path;
use std::process::ExitCode;

use serde_json::json;

use super::{emit_value, fail, print};
use crate::config::Config;
use crate::db::backup;
use crate::db::schema::SchemaError;
use crate::db::{Db, Open};

/// `adcab check`: the config loaded (or `main` already refused it); the database is read
/// without being changed. Exits non-zero, the reason in `error`, on a database `serve` would
/// refuse: missing, damaged, not an adcab database, newer than this adcab, a table missing;
/// with `deep`, also when a kept figure differs from its recomputation (`kept`, each by name).
pub fn check(config: &Config, deep: bool) -> ExitCode {
    let path = &config.storage.path;
    let found = match crate::db::schema::inspect(path) {
        Ok(found) => found,
        Err(SchemaError::Missing(path)) => {
            return fail(format!(
                "there is no database at {}; check [storage] path in the config (relative paths are read from the config file's folder), or create it with `adcab init`",
                path.display()
            ))
        }
        Err(e) => return fail(e),
    };
    let rates = &config.rates;
    let mut answer = json!({
        "config": "ok",
        "rates": {
            "reporting_currency": rates.reporting_currency,
            "source": rates.source,
            "ton_url": !rates.ton_url.is_empty(),
            "stars_rate": rates.stars_rate,
        },
        "database": {
            "path": path.display().to_string(),
            "schema": found.schema,
            "integrity": found.integrity,
        },
    });
    let mut problem = found.refused.map(|e| e.to_string());
    if deep && problem.is_none() {
        match kept(path) {
            Ok((kept, differ)) => {
                answer["kept"] = kept;
                if !differ.is_empty() {
                    problem = Some(format!(
                        "kept figures differ from their recomputation: {}",
                        differ.join(", ")
                    ));
                }
            }
            Err(e) => problem = Some(format!("the kept figures could not be read: {e}")),
        }
    }
    let Some(problem) = problem else {
        print::out(answer);
        return ExitCode::SUCCESS;
    };
    let sentence = format!("the database at {}: {problem}", path.display());
    answer["error"] = json!(sentence);
    print::out(answer);
    print::err(format_args!("adcab: {sentence}"));
    ExitCode::FAILURE
}

/// Each kept figure compared with its recomputation, on a read-only connection: the `kept`
/// object (`{name: {"equal", "rows", "against", "differing"?, "differences"?}}`) and the names
/// of those that differ.
fn kept(path: &Path) -> Result<(serde_json::Value, Vec<&'static str>), crate::store::StoreError> {
    let conn = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let mut out = serde_json::Map::new();
    let mut differ = Vec::new();
    for figure in crate::store::kept_check::check(&conn)? {
        let mut shown = json!({
            "equal": figure.equal(),
            "rows": figure.rows,
            "against": figure.against,
        });
        if !figure.equal() {
            differ.push(figure.name);
            shown["differing"] = json!(figure.differing);
            shown["differences"] = figure
                .differences
                .iter()
                .map(|d| json!({"key": d.key, "kept": d.kept, "recomputed": d.recomputed}))
                .collect();
        }
        out.insert(figure.name.to_string(), shown);
    }
    Ok((serde_json::Value::Object(out), differ))
}

/// `adcab backup --to PATH`: a verified snapshot of the database and its media, taken while a
/// server may be running and writing.
pub fn backup(config: &Config, to: &Path) -> ExitCode {
    let path = config.storage.path.clone();
    let db = match Db::open_upgrading(&path, Open::Existing, Some(&config.backup_folder())) {
        Ok(db) => db,
        Err(e) => return fail(e.to_string()),
    };
    let to = to.to_path_buf();
    let report = db.read_blocking(|conn| {
        Ok::<_, crate::store::StoreError>(backup::snapshot(conn, &path, &to))
    });
    match report {
        Ok(Ok(report)) => emit_value(json!(report)),
        Ok(Err(e)) => fail(format!("the backup failed, nothing was kept: {e}")),
        Err(e) => fail(format!("cannot read the database: {e}")),
    }
}

/// `adcab restore --from PATH`: the backup in place of the database, unless a server runs.
pub fn restore(config: &Config, from: &Path) -> ExitCode {
    match backup::restore(from, &config.storage.path, &backup::stamp_now()) {
        Ok(()) => emit_value(json!({ "restored": from.display().to_string() })),
        Err(e) => fail(format!("nothing was restored: {e}")),
    }
}
