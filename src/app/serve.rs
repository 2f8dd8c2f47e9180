//! Owns the serving process: recovery of what a stopped process left half-done, then the HTTP
//! API with the task worker, the sync/stats scheduler, the webhook sender, the Telegram alert
//! sender and the upkeep (retention, scheduled backups) beside it, until shutdown; the service
//! manager is told when it is ready and when it stops. `ServeError` says why it did not start.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;

use super::conn;
use super::front::Faces;
use crate::db::backup::{BackupError, ServeLock};
use crate::http::{AppState, Surface};
use crate::jobs::{notify, rates, reports, scheduler, systemd, upkeep, worker};
use crate::ops::write_back;
use crate::services::Services;
use crate::store::StoreError;
use crate::{api, db, store, webhooks};

/// Why the server did not start serving. `Display` is the sentence the operator reads.
#[derive(Debug)]
pub enum ServeError {
    /// The serve lock is held by another server, or could not be taken.
    Lock(BackupError),
    /// The database's quick check found damage or could not run; the sentence names the file.
    Integrity(db::OpenError),
    /// The quick check's thread panicked.
    CheckPanicked(db::Panicked),
    /// Where the scheduler starts could not be stored.
    Scheduler(StoreError),
    /// What a stopped process held could not be cleared.
    Recovery(StoreError),
    /// The campaigns' refs could not be indexed under the configured tracker parameters.
    Refs(StoreError),
    /// The metrics listener could not be bound.
    MetricsListen {
        addr: String,
        source: std::io::Error,
    },
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Lock(e) => write!(f, "{e}"),
            ServeError::Integrity(e) => write!(f, "{e}"),
            ServeError::CheckPanicked(e) => write!(f, "{e}"),
            ServeError::Scheduler(e) => write!(f, "cannot start the scheduler: {e}"),
            ServeError::Recovery(e) => write!(f, "recovery failed: {e}"),
            ServeError::Refs(e) => write!(f, "cannot index campaign refs: {e}"),
            ServeError::MetricsListen { addr, source } => {
                write!(f, "cannot listen on {addr} ([metrics] listen): {source}")
            }
        }
    }
}

impl std::error::Error for ServeError {}

/// Serves the API on `listener` until `shutdown` resolves; in-flight requests finish first.
/// The database's serve lock is held throughout (a restore refuses to run under it). A
/// database with a damaged page is refused; work a previous process left half-done is
/// recovered; only then does it log that it is serving.
pub async fn run(
    services: Services,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServeError> {
    let _lock = ServeLock::acquire(services.db.path()).map_err(ServeError::Lock)?;
    check_integrity(&services).await?;
    recover(&services).await?;
    let metrics_listener = match services.config.metrics.listen.as_str() {
        "" => None,
        addr => {
            Some(
                TcpListener::bind(addr)
                    .await
                    .map_err(|source| ServeError::MetricsListen {
                        addr: addr.to_string(),
                        source,
                    })?,
            )
        }
    };
    let addr = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    tracing::info!(
        %addr,
        db = %services.db.path().display(),
        reference = %format!("http://{addr}{}", crate::api::docs::DOCS_PATH),
        "adcab serving /api/v1"
    );
    let wake = Arc::new(tokio::sync::Notify::new());
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let outbox = Arc::new(tokio::sync::Notify::new());
    let background = [
        tokio::spawn(worker::run(services.clone(), wake.clone(), stopped.clone())),
        tokio::spawn(scheduler::run(
            services.clone(),
            outbox.clone(),
            stopped.clone(),
        )),
        tokio::spawn(webhooks::sender::run(
            services.clone(),
            outbox,
            stopped.clone(),
        )),
        tokio::spawn(notify::run(services.clone(), stopped.clone())),
        tokio::spawn(crate::bot::run(services.clone(), stopped.clone())),
        tokio::spawn(reports::run(services.clone(), stopped.clone())),
        tokio::spawn(rates::run(services.clone(), stopped.clone())),
        tokio::spawn(upkeep::run(services.clone(), stopped.clone())),
        tokio::spawn(db::checkpoints(services.db.clone(), stopped.clone())),
        tokio::spawn(systemd::watchdog(services.clone(), stopped)),
    ];
    let faces = Arc::new(Faces::new(AppState::new(services, wake)));
    let metrics_server = metrics_listener.map(|listener| {
        let mut stopped = stop.subscribe();
        tokio::spawn(conn::serve(
            listener,
            faces.clone(),
            Surface::Metrics,
            async move {
                let _ = stopped.changed().await;
            },
        ))
    });
    systemd::notify("READY=1");
    let shutdown = async {
        shutdown.await;
        systemd::notify("STOPPING=1");
    };
    conn::serve(listener, faces, Surface::Main, shutdown).await;
    let _ = stop.send(true);
    for task in background.into_iter().chain(metrics_server) {
        if let Err(e) = task.await {
            tracing::error!(error = %e, "a background loop ended abnormally");
        }
    }
    Ok(())
}

/// SQLite's quick check of the database (remembered when `adcab serve` ran it before its first
/// write): damage refuses the start; a check that ran out of time is logged and served.
async fn check_integrity(services: &Services) -> Result<(), ServeError> {
    let db = services.db.clone();
    let checked = db::blocking(move || db.check_integrity())
        .await
        .map_err(ServeError::CheckPanicked)?;
    match checked.map_err(ServeError::Integrity)? {
        db::schema::Integrity::Intact { took } => {
            tracing::info!(ms = took.as_millis() as u64, "quick check: no damaged page")
        }
        db::schema::Integrity::Unfinished { budget } => tracing::warn!(
            seconds = budget.as_secs(),
            "quick check: not every page was checked in time; `adcab check` reads them all"
        ),
    }
    Ok(())
}

/// Fixes where the scheduler starts (on a first start), clears what a stopped process held
/// (idempotency claims of requests that died with it: their work either committed with its
/// answer or is safe to run again; uploads it was still receiving), indexes every campaign's
/// refs under the configured tracker parameters, and keeps the local days of the zones people
/// chose (`store::zone_days::follow`).
async fn recover(services: &Services) -> Result<(), ServeError> {
    api::media::remove_partial_uploads(&services.db);
    scheduler::init(services)
        .await
        .map_err(ServeError::Scheduler)?;
    let dropped = services
        .db
        .write(|tx| store::idempotency::forget_running(tx))
        .await
        .map_err(ServeError::Recovery)?;
    let params = services.config.conversions.tracker_params.clone();
    services
        .db
        .write(move |tx| write_back::refresh_targets(tx, &params))
        .await
        .map_err(ServeError::Refs)?;
    if dropped > 0 {
        tracing::info!(
            dropped,
            "dropped idempotency claims of requests that did not finish"
        );
    }
    // The local days kept for the people's zones (schema 67): those of a zone picked before the
    // table existed or while the service was down, a zone's new shift should its rules have
    // changed. They only speed up the home page's chart, which reads the hours without them, so
    // a failure is logged and the service starts.
    let followed = services
        .db
        .write(|tx| store::zone_days::follow(tx, crate::clock::now(tx)?.date_naive()))
        .await;
    match followed {
        Ok(f) => {
            if !f.unknown.is_empty() {
                tracing::warn!(
                    zones = ?f.unknown,
                    "people's zones the time zone database no longer names"
                );
            }
            if !(f.added.is_empty() && f.removed.is_empty()) {
                tracing::info!(added = ?f.added, removed = ?f.removed, "zone shifts kept");
            }
        }
        Err(e) => tracing::error!(error = %e, "the zones' local days not followed"),
    }
    Ok(())
}
