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
/// refuse: missing, damaged, not an adcab database, newer than this adcab, a table missing.
pub fn check(config: &Config) -> ExitCode {
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
    let Some(problem) = found.refused else {
        print::out(answer);
        return ExitCode::SUCCESS;
    };
    let sentence = format!("the database at {}: {problem}", path.display());
    answer["error"] = json!(sentence);
    print::out(answer);
    print::err(format_args!("adcab: {sentence}"));
    ExitCode::FAILURE
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
