//! Owns the upkeep `serve` runs beside the API: the retention pass every hour, and scheduled
//! backups into `[backup] dir` every `every_hours` (wall time: backups are about the box, not
//! the business), keeping the newest `keep`.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio::sync::watch;

use crate::db::backup::{self, BackupError, Kind, Report};
use crate::jobs::retention;
use crate::services::Services;
use crate::store::StoreError;

/// How often the loop looks at what is due (its first look, and retention pass, is a tick
/// after start).
pub const TICK: Duration = Duration::from_secs(60);
/// Time between two retention passes.
const RETENTION_EVERY: Duration = Duration::from_secs(3600);

/// Runs until `stop` turns true. The first retention pass runs a tick after start.
pub async fn run(services: Services, mut stop: watch::Receiver<bool>) {
    let mut last_pass: Option<Instant> = None;
    loop {
        tokio::select! {
            _ = tokio::time::sleep(TICK) => {}
            _ = stop.changed() => {}
        }
        if *stop.borrow() {
            return;
        }
        if last_pass.is_none_or(|t| t.elapsed() >= RETENTION_EVERY) {
            last_pass = Some(Instant::now());
            match retention::pass(&services).await {
                Ok(done) => tracing::info!(?done, "retention pass"),
                Err(e) => tracing::error!(error = %e, "retention pass failed"),
            }
        }
        match backup_if_due(&services, Utc::now()).await {
            Ok(Some(report)) => {
                tracing::info!(path = %report.path, bytes = report.bytes, "scheduled backup taken")
            }
            Ok(None) => {}
            Err(e) => tracing::error!(error = %e, "scheduled backup failed"),
        }
    }
}

/// Why a scheduled backup was not taken, or older ones not removed.
#[derive(Debug)]
pub enum UpkeepError {
    /// The database could not be read for the snapshot.
    Store(StoreError),
    /// The snapshot or the rotation failed.
    Backup(BackupError),
}

impl std::fmt::Display for UpkeepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UpkeepError::Store(e) => write!(f, "{e}"),
            UpkeepError::Backup(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for UpkeepError {}

/// Takes a scheduled backup when `[backup] dir` is set and its newest is `every_hours` old
/// (or there is none), then removes those beyond `keep`. `now` is wall time.
pub async fn backup_if_due(
    services: &Services,
    now: DateTime<Utc>,
) -> Result<Option<Report>, UpkeepError> {
    let config = &services.config.backup;
    if config.dir.as_os_str().is_empty() {
        return Ok(None);
    }
    let dir = config.dir.clone();
    let newest = backup::scheduled(&dir)
        .last()
        .and_then(|p| backup::taken_at(p));
    let every = chrono::Duration::hours(i64::from(config.every_hours));
    if newest.is_some_and(|t| now - t < every) {
        return Ok(None);
    }
    let to = dir.join(backup::name(Kind::Scheduled, &backup::stamp(now)));
    let db_path = services.db.path().to_path_buf();
    let report = services
        .db
        .read(move |conn| Ok::<_, StoreError>(backup::snapshot(conn, &db_path, &to)))
        .await
        .map_err(UpkeepError::Store)?
        .map_err(UpkeepError::Backup)?;
    backup::rotate(&dir, config.keep as usize).map_err(UpkeepError::Backup)?;
    Ok(Some(report))
}
