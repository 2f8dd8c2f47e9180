//! Owns the serving process: recovery of what a stopped process left half-done, then the HTTP
//! API with the task worker, the sync/stats scheduler and the webhook sender beside it, until
//! shutdown.

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;

use crate::services::Services;
use crate::{http, scheduler, store, sync, webhooks, worker};

/// Serves the API on `listener` until `shutdown` resolves; in-flight requests finish first.
/// Work a previous process left half-done is recovered first; only then does it log that it
/// is serving.
pub async fn run(
    services: Services,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> Result<(), String> {
    recover(&services).await?;
    let addr = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    tracing::info!(%addr, db = %services.db.path().display(), "adcab serving /api/v1");
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
        tokio::spawn(webhooks::sender::run(services.clone(), outbox, stopped)),
    ];
    let state = Arc::new(http::AppState::new(services, wake));
    http::conn::serve(listener, state, shutdown).await;
    let _ = stop.send(true);
    for task in background {
        if let Err(e) = task.await {
            tracing::error!(error = %e, "a background loop ended abnormally");
        }
    }
    Ok(())
}

/// Fixes where the scheduler starts (on a first start), clears what a stopped process held
/// (idempotency claims of requests that died with it: their work either committed with its
/// answer or is safe to run again; uploads it was still receiving), and indexes every
/// campaign's refs under the configured tracker parameters.
async fn recover(services: &Services) -> Result<(), String> {
    http::media::remove_partial_uploads(&services.db);
    scheduler::init(services)
        .await
        .map_err(|e| format!("cannot start the scheduler: {e}"))?;
    let dropped = services
        .db
        .write(|tx| store::idempotency::forget_running(tx))
        .await
        .map_err(|e| format!("recovery failed: {e}"))?;
    let params = services.config.conversions.tracker_params.clone();
    services
        .db
        .write(move |tx| sync::refresh_targets(tx, &params))
        .await
        .map_err(|e| format!("cannot index campaign refs: {e}"))?;
    if dropped > 0 {
        tracing::info!(
            dropped,
            "dropped idempotency claims of requests that did not finish"
        );
    }
    Ok(())
}
