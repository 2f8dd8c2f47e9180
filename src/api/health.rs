//! Owns `GET /healthz` (the process answers) and `GET /readyz` (the database takes writes and
//! its quick check at start found no damage, its migrations are current, the scheduler is not
//! behind; beside them, what the last platform call found, reported but not counted),
//! answered without a key, outside the rate limits and the envelope, for load balancers,
//! systemd and monitoring.

use hyper::StatusCode;
use serde::Serialize;
use serde_json::json;

use super::error::ApiError;
use crate::db::schema::{self, Integrity};
use crate::http::AppState;
use crate::http::Reply;
use crate::jobs::scheduler;
use crate::platform::Reach;
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

/// The readiness answer: each check by name. `platform` is reported, not counted: the service
/// serves its stored copies and queues work while the platform is unreachable, so taking it
/// out of a load balancer would not help (a sync that cannot run shows as `scheduler` lag).
#[derive(Debug, Serialize, PartialEq)]
pub struct Readiness {
    pub status: &'static str,
    pub database: Check,
    pub migrations: Check,
    pub scheduler: Check,
    pub platform: Check,
}

pub async fn answer(state: &AppState, probe: Probe) -> Result<Reply, ApiError> {
    match probe {
        Probe::Live => Reply::plain(StatusCode::OK, &json!({ "status": "ok" })),
        Probe::Ready => {
            let db = &state.services.db;
            let writable = db.write(|tx| schema::stamp_version(tx)).await;
            // Remembered from the start (`serve` refuses to start on damage), so no file is read.
            let checked = db.clone();
            let integrity =
                crate::db::in_request(move || checked.check_integrity().map_err(|e| e.to_string()))
                    .await;
            let pending = db.read(schema::pending).await;
            let lag = db.read(scheduler::lag_seconds).await;
            let reach = state.services.platform.reach();
            let ready = readiness(writable, integrity, pending, lag, reach);
            let status = if ready.status == "ready" {
                StatusCode::OK
            } else {
                StatusCode::SERVICE_UNAVAILABLE
            };
            Reply::plain(status, &ready)
        }
    }
}

/// The readiness of what the checks found. The database check covers both the write and the
/// quick check at start: a check that ran out of time is ready (it found nothing in what it
/// read, and a large file must not keep the service from starting), with a detail saying so;
/// only a damaged file is not. `integrity` is what the database handle found, its failure a
/// sentence naming the file. `reach` is what the last platform call found; it does not
/// change `status`.
pub fn readiness(
    writable: Result<(), StoreError>,
    integrity: Result<Integrity, impl std::fmt::Display>,
    pending: Result<usize, StoreError>,
    lag: Result<i64, StoreError>,
    reach: Reach,
) -> Readiness {
    let database = Check {
        ok: writable.is_ok() && integrity.is_ok(),
        detail: format!(
            "{}; {}",
            writable.map_or_else(|e| e.to_string(), |()| "takes writes".into()),
            match integrity {
                Ok(Integrity::Intact { took }) => format!(
                    "no damaged page at start (quick check, {} ms)",
                    took.as_millis()
                ),
                Ok(Integrity::Unfinished { budget }) => format!(
                    "pages not all checked at start (the quick check stopped after {} s; `adcab check` reads them all)",
                    budget.as_secs()
                ),
                Err(e) => e.to_string(),
            }
        ),
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
        platform: Check {
            ok: reach.ok(),
            detail: reach.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::platform::Unreachable;

    #[test]
    fn ready_only_when_every_check_passes() {
        let intact = || {
            Ok::<_, &str>(Integrity::Intact {
                took: Duration::from_millis(3),
            })
        };
        let ok = readiness(Ok(()), intact(), Ok(0), Ok(12), Reach::Local);
        assert_eq!(ok.status, "ready");
        assert!(ok.scheduler.ok);
        assert_eq!(
            ok.database.detail,
            "takes writes; no damaged page at start (quick check, 3 ms)"
        );
        let behind = readiness(
            Ok(()),
            intact(),
            Ok(0),
            Ok(MAX_LAG_SECONDS + 1),
            Reach::Local,
        );
        assert_eq!(behind.status, "not ready");
        assert!(!behind.scheduler.ok && behind.database.ok && behind.migrations.ok);
        let pending = readiness(Ok(()), intact(), Ok(2), Ok(0), Reach::Local);
        assert_eq!(pending.migrations.detail, "2 migrations not applied");
        assert_eq!(pending.status, "not ready");
        let locked = readiness(
            Err(StoreError::Failed("read-only".into())),
            intact(),
            Ok(0),
            Ok(0),
            Reach::Local,
        );
        assert!(!locked.database.ok);
        assert!(locked.database.detail.starts_with("read-only; "));
        assert_eq!(locked.status, "not ready");
    }

    #[test]
    fn a_quick_check_out_of_time_is_ready_and_says_so_and_damage_is_not() {
        let budget = Duration::from_secs(5);
        let unfinished = readiness(
            Ok(()),
            Ok::<_, &str>(Integrity::Unfinished { budget }),
            Ok(0),
            Ok(0),
            Reach::Local,
        );
        assert_eq!(unfinished.status, "ready");
        assert!(unfinished.database.ok);
        assert!(
            unfinished
                .database
                .detail
                .contains("not all checked at start (the quick check stopped after 5 s"),
            "{}",
            unfinished.database.detail
        );
        let damaged = readiness(
            Ok(()),
            Err("its pages are damaged (page 9)"),
            Ok(0),
            Ok(0),
            Reach::Local,
        );
        assert_eq!(damaged.status, "not ready");
        assert!(!damaged.database.ok);
        assert_eq!(
            damaged.database.detail,
            "takes writes; its pages are damaged (page 9)"
        );
    }

    #[test]
    fn an_unreachable_platform_is_reported_with_its_cause_and_not_counted() {
        let intact = || {
            Ok::<_, &str>(Integrity::Intact {
                took: Duration::from_millis(3),
            })
        };
        let refused = Reach::Failed {
            cause: Unreachable::Refused("127.0.0.1:9".into()),
            ago: Duration::from_secs(2),
        };
        let r = readiness(Ok(()), intact(), Ok(0), Ok(0), refused);
        assert_eq!(r.status, "ready", "the platform does not decide readiness");
        assert!(!r.platform.ok);
        assert_eq!(
            r.platform.detail,
            "the last call, 2 s ago, failed: the platform refused the connection (127.0.0.1:9)"
        );
        let answered = Reach::Reached {
            ago: Duration::from_secs(5),
        };
        let r = readiness(Ok(()), intact(), Ok(0), Ok(0), answered);
        assert!(r.platform.ok);
        assert_eq!(r.platform.detail, "the last call, 5 s ago, was answered");
    }
}
