//! Owns `GET /healthz` (the process answers) and `GET /readyz` (the database takes writes, its
//! migrations are current, the scheduler is not behind), answered without a key, outside the
//! rate limits and the envelope, for load balancers, systemd and monitoring.

use hyper::StatusCode;
use serde::Serialize;
use serde_json::json;

use super::error::ApiError;
use super::response::Reply;
use super::AppState;
use crate::db::schema;
use crate::scheduler;
use crate::store::StoreError;

/// A closed hour may wait this long for its sync before the service reads as not ready.
pub const MAX_LAG_SECONDS: i64 = 30 * 60;

/// Which probe a path asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    Live,
    Ready,
}

/// One readiness check: whether it passed, and what it found.
#[derive(Debug, Serialize, PartialEq)]
pub struct Check {
    pub ok: bool,
    pub detail: String,
}

/// The readiness answer: each check by name.
#[derive(Debug, Serialize, PartialEq)]
pub struct Readiness {
    pub status: &'static str,
    pub database: Check,
    pub migrations: Check,
    pub scheduler: Check,
}

pub async fn answer(state: &AppState, probe: Probe) -> Result<Reply, ApiError> {
    match probe {
        Probe::Live => Reply::plain(StatusCode::OK, &json!({ "status": "ok" })),
        Probe::Ready => {
            let db = &state.services.db;
            let writable = db
                .write(|tx| schema::stamp_version(tx))
                .await
                .map_err(|e: StoreError| e.to_string());
            let pending = db.read(schema::pending).await;
            let lag = db.read(scheduler::lag_seconds).await;
            let ready = readiness(writable, pending, lag);
            let status = if ready.status == "ready" {
                StatusCode::OK
            } else {
                StatusCode::SERVICE_UNAVAILABLE
            };
            Reply::plain(status, &ready)
        }
    }
}

/// The readiness of what the checks found.
pub fn readiness(
    writable: Result<(), String>,
    pending: Result<usize, StoreError>,
    lag: Result<i64, StoreError>,
) -> Readiness {
    let database = match writable {
        Ok(()) => Check {
            ok: true,
            detail: "takes writes".into(),
        },
        Err(e) => Check {
            ok: false,
            detail: e,
        },
    };
    let migrations = match pending {
        Ok(0) => Check {
            ok: true,
            detail: format!("schema {}", schema::version()),
        },
        Ok(n) => Check {
            ok: false,
            detail: format!("{n} migrations not applied"),
        },
        Err(e) => Check {
            ok: false,
            detail: e.to_string(),
        },
    };
    let scheduler = match lag {
        Ok(s) if s <= MAX_LAG_SECONDS => Check {
            ok: true,
            detail: format!("{s} s behind"),
        },
        Ok(s) => Check {
            ok: false,
            detail: format!("{s} s behind (more than {MAX_LAG_SECONDS} s)"),
        },
        Err(e) => Check {
            ok: false,
            detail: e.to_string(),
        },
    };
    let all = database.ok && migrations.ok && scheduler.ok;
    Readiness {
        status: if all { "ready" } else { "not ready" },
        database,
        migrations,
        scheduler,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_only_when_every_check_passes() {
        let ok = readiness(Ok(()), Ok(0), Ok(12));
        assert_eq!(ok.status, "ready");
        assert!(ok.scheduler.ok);
        let behind = readiness(Ok(()), Ok(0), Ok(MAX_LAG_SECONDS + 1));
        assert_eq!(behind.status, "not ready");
        assert!(!behind.scheduler.ok && behind.database.ok && behind.migrations.ok);
        let pending = readiness(Ok(()), Ok(2), Ok(0));
        assert_eq!(pending.migrations.detail, "2 migrations not applied");
        assert_eq!(pending.status, "not ready");
        let locked = readiness(Err("read-only".into()), Ok(0), Ok(0));
        assert!(!locked.database.ok);
        assert_eq!(locked.status, "not ready");
    }
}
