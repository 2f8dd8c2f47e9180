//! Owns what the HTTP faces serve from: the services, the per-key and per-person budgets, the
//! task worker's wake-up, the conversion writer, the admission to platform calls and to the
//! panel's blocking operations, the panel's logins, and when each key was last used.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::auth::LoginLimiter;
use crate::db::Gate;
use crate::jobs::automation::preview::Previews;
use crate::ops::ingest::Ingest;
use crate::ratelimit::RateLimiter;
use crate::services::Services;
use crate::store::StoreError;

/// Platform calls made for requests at one time, and how many more may wait for a place.
const PLATFORM_CALLS: usize = 16;
const PLATFORM_QUEUE: usize = 256;
/// Operations the web panel runs on blocking threads at one time (each reads and writes the
/// database itself, and some call out), how many more may wait, and for how long.
const PANEL_OPS: usize = 16;
const PANEL_QUEUE: usize = 256;
const PANEL_WAIT: Duration = Duration::from_secs(10);

/// What every request handler can reach.
pub struct AppState {
    pub services: Services,
    pub limiter: RateLimiter,
    /// Wakes the task worker when a task is queued.
    pub wake: Arc<tokio::sync::Notify>,
    /// Records inbound conversions, grouping concurrent requests into shared transactions.
    pub ingest: Ingest,
    /// Admission to platform calls, so a slow platform cannot pile up blocked threads.
    platform_gate: Gate,
    /// Admission to the web panel's blocking operations, so a burst of clicks cannot take
    /// the threads that database work needs.
    panel_gate: Gate,
    /// Logins to the web panel: attempts per account and per client address, and the
    /// password checks under way.
    pub logins: LoginLimiter,
    /// Rule previews made this hour.
    pub previews: Previews,
    /// When each key's use was last recorded.
    pub touched: Mutex<HashMap<i64, Instant>>,
}

impl AppState {
    pub fn new(services: Services, wake: Arc<tokio::sync::Notify>) -> AppState {
        let limiter = RateLimiter::new(&services.config.limits);
        let ingest = Ingest::new(services.db.clone(), services.metrics.clone());
        AppState {
            services,
            limiter,
            wake,
            ingest,
            platform_gate: Gate::new(PLATFORM_CALLS, PLATFORM_QUEUE),
            panel_gate: Gate::new(PANEL_OPS, PANEL_QUEUE),
            logins: Default::default(),
            previews: Previews::default(),
            touched: Mutex::new(HashMap::new()),
        }
    }

    /// Runs `call` (blocking: it talks to the platform) off the runtime and waits at most
    /// `wait` for it, its wait for a place included; `None` when the call ran out of time,
    /// `Busy` when no place freed up in time. The call keeps its place until it ends,
    /// so at most [`PLATFORM_CALLS`] run at once, however slow the platform is. A panic in
    /// the call carries on in the request, as if it had run there.
    pub async fn platform_call<T, F>(
        &self,
        wait: Duration,
        call: F,
    ) -> Result<Option<T>, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Services) -> T + Send + 'static,
    {
        let deadline = tokio::time::Instant::now() + wait;
        let permit = self.platform_gate.enter(wait).await?;
        let services = self.services.clone();
        let running = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            call(&services)
        });
        match tokio::time::timeout_at(deadline, running).await {
            Ok(Ok(value)) => Ok(Some(value)),
            Ok(Err(e)) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Ok(Err(e)) => Err(StoreError::Failed(format!("platform call ended: {e}"))),
            Err(_) => Ok(None),
        }
    }
}

impl AppState {
    /// Runs `op` (blocking: it reads and writes the database itself) off the runtime, at most
    /// [`PANEL_OPS`] at once; `Busy` when no place frees up in time. A panic in `op` carries
    /// on in the request.
    pub async fn panel_work<T, F>(&self, op: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Services) -> T + Send + 'static,
    {
        let permit = self.panel_gate.enter(PANEL_WAIT).await?;
        let services = self.services.clone();
        Ok(crate::db::in_request(move || {
            let _permit = permit;
            op(&services)
        })
        .await)
    }
}
