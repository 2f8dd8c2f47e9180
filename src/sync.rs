//! Owns bringing the service's copy in line with the platform: storing an ad the platform just
//! created, applying what the platform reports about an ad (recording any status change for
//! the webhook sender), and re-reading one ad. Blocking: callers run it off the async runtime.

use rusqlite::Connection;
use serde_json::{json, Value};

use crate::clock;
use crate::domain::campaign::Status;
use crate::error::ApiError;
use crate::platform::{AdSnapshot, PlatformError};
use crate::store::campaigns;
use crate::store::events::{self, StatusChange};
use crate::store::history::{self, Source};
use crate::Services;

/// Stores the copy of a newly created ad and records its creation in the history.
pub fn store_created(
    conn: &Connection,
    snap: &AdSnapshot,
    group: Option<i64>,
    source: Source,
) -> Result<(), ApiError> {
    let now = clock::iso(clock::now(conn)?);
    campaigns::insert(conn, snap, group, &now)?;
    history::record(
        conn,
        snap.account_id,
        snap.ad_id,
        &now,
        source,
        "create",
        &json!({ "title": snap.spec.title, "status": snap.status.as_str() }),
    )
}

/// Applies the platform's report to the stored copy; a status change is recorded with `cause`.
pub fn apply(conn: &Connection, snap: &AdSnapshot, cause: &str) -> Result<(), ApiError> {
    let now = clock::iso(clock::now(conn)?);
    let old = campaigns::get(conn, snap.account_id, snap.ad_id)?;
    campaigns::refresh(conn, snap, &now)?;
    if let Some(old) = old.filter(|o| o.status != snap.status) {
        record_change(conn, &old, snap.status, cause, &now)?;
    }
    Ok(())
}

/// Records a status change of a stored campaign.
pub fn record_change(
    conn: &Connection,
    old: &campaigns::CampaignRow,
    new: Status,
    cause: &str,
    now: &str,
) -> Result<(), ApiError> {
    events::record(
        conn,
        &StatusChange {
            account_id: old.account_id,
            ad_id: old.ad_id,
            tme_path: old.tme_path.as_deref(),
            old: old.status,
            new,
            source: cause,
        },
        now,
    )
}

/// Records a change made to a campaign in its history.
pub fn record_history(
    conn: &Connection,
    account: i64,
    ad: i64,
    source: Source,
    action: &str,
    details: &Value,
) -> Result<(), ApiError> {
    let now = clock::iso(clock::now(conn)?);
    history::record(conn, account, ad, &now, source, action, details)
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
    services.db.write_blocking(|tx| apply(tx, &snap, "sync"))?;
    Ok(Ok(()))
}
