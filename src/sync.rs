//! Owns bringing the service's copy in line with the platform: storing an ad the platform just
//! created, and re-reading one ad. Blocking: callers run it off the async runtime.

use serde_json::json;

use crate::clock;
use crate::error::ApiError;
use crate::platform::{AdSnapshot, PlatformError};
use crate::store::campaigns;
use crate::store::history::{self, Source};
use crate::Services;

/// Stores the copy of a newly created ad and records its creation in the history.
pub fn store_created(
    services: &Services,
    snap: &AdSnapshot,
    group: Option<i64>,
    source: Source,
) -> Result<(), ApiError> {
    services.db.write_blocking(|tx| {
        let now = clock::iso(clock::now(tx)?);
        campaigns::insert(tx, snap, group, &now)?;
        history::record(
            tx,
            snap.account_id,
            snap.ad_id,
            &now,
            source,
            "create",
            &json!({ "title": snap.spec.title, "status": snap.status.as_str() }),
        )
    })
}

/// Re-reads one ad from the platform into the stored copy. The outer error is the service's;
/// the inner one is the platform's (the copy is then left as it was).
pub fn reread(
    services: &Services,
    account: i64,
    ad: i64,
) -> Result<Result<(), PlatformError>, ApiError> {
    let snap = match services.platform.get_ad(account, ad) {
        Ok(snap) => snap,
        Err(e) => return Ok(Err(e)),
    };
    services.db.write_blocking(|tx| {
        let now = clock::iso(clock::now(tx)?);
        campaigns::refresh(tx, &snap, &now)
    })?;
    Ok(Ok(()))
}
