//! Owns writing what the platform did back into the service's copy, for every change of state
//! and every sync: storing an ad the platform just created (with the values postbacks name it
//! by), applying what the platform reports about an ad (recording any status change for the
//! webhook sender), the history of a change, re-reading one ad, the cabinet's balance, and
//! marking the ads the platform no longer has. Blocking: callers run it off the async runtime.

use std::collections::HashSet;

use rusqlite::Connection;
use serde_json::{json, Value};

use crate::clock;
use crate::domain::campaign::Status;
use crate::domain::conversion::{campaign_targets, TARGETS_RULE};
use crate::domain::money::Money;
use crate::platform::{AdDraft, AdSnapshot, PlatformError};
use crate::services::Services;
use crate::store::cabinets::{self, Revised};
use crate::store::campaigns::{self, Counters, RefreshPlan};
use crate::store::events::{self, StatusChange};
use crate::store::history::{self, Author, Source};
use crate::store::refs;
use crate::store::StoreError;

/// Stores the copy of a newly created ad, with the values postbacks can name it by
/// (`tracker_params` are the website link parameters that carry a ref), and records its
/// creation in the history as made by `by`.
pub fn store_created(
    conn: &Connection,
    snap: &AdSnapshot,
    group: Option<i64>,
    by: Author,
    tracker_params: &[String],
) -> Result<(), StoreError> {
    let now = clock::iso(clock::now(conn)?);
    campaigns::insert(conn, snap, group, &now)?;
    store_targets(conn, snap, tracker_params)?;
    history::record(
        conn,
        snap.account_id,
        snap.ad_id,
        &now,
        by,
        "create",
        &json!({ "title": snap.spec.title, "status": snap.status.as_str() }),
    )
}

/// Creates an ad on the platform outside any task (the panel, the demo, fixtures) and
/// stores its copy. The outer error is the service's; the inner one the platform's refusal.
pub fn create_stored(
    services: &Services,
    account: i64,
    draft: &AdDraft,
    group: Option<i64>,
    by: Author,
) -> Result<Result<AdSnapshot, PlatformError>, StoreError> {
    let snap = match services.platform.create_ad(account, draft) {
        Ok(snap) => AdSnapshot {
            dates: draft.dates,
            ..snap
        },
        Err(e) => return Ok(Err(e)),
    };
    let params = &services.config.conversions.tracker_params;
    services.db.write_blocking(|tx| {
        store_created(tx, &snap, group, by, params)?;
        super::lookup::keep(tx, services, &snap.peers)
    })?;
    Ok(Ok(snap))
}

/// Recomputes the values naming every stored campaign when they were computed under another
/// rule (other tracker parameters, an older derivation, or never: campaigns stored before
/// conversions existed), so a start with an unchanged configuration reads no campaign.
/// Returns how many campaigns were re-indexed.
pub fn refresh_targets(conn: &Connection, tracker_params: &[String]) -> Result<usize, StoreError> {
    let rule = format!("v{TARGETS_RULE} {}", Value::from(tracker_params));
    if refs::indexed_under(conn)?.as_deref() == Some(rule.as_str()) {
        return Ok(0);
    }
    let links = campaigns::links(conn)?;
    for l in &links {
        let targets = campaign_targets(&l.promote_url, l.invite_link.as_deref(), tracker_params);
        refs::replace(conn, l.account_id, l.ad_id, &targets)?;
    }
    refs::set_indexed_under(conn, &rule)?;
    Ok(links.len())
}

fn store_targets(
    conn: &Connection,
    snap: &AdSnapshot,
    tracker_params: &[String],
) -> Result<(), StoreError> {
    let targets = campaign_targets(
        &snap.spec.promote_url,
        snap.invite_link.as_deref(),
        tracker_params,
    );
    refs::replace(conn, snap.account_id, snap.ad_id, &targets)
}

/// Applies the platform's report to the stored copy; a status change is recorded with `cause`.
/// A changed link changes the values postbacks can name the campaign by. Returns whether the
/// copy changed.
pub fn apply(
    conn: &Connection,
    snap: &AdSnapshot,
    cause: Source,
    tracker_params: &[String],
) -> Result<bool, StoreError> {
    let now = clock::iso(clock::now(conn)?);
    let Some(found) = campaigns::refresh(conn, snap, &now, Counters::Write)? else {
        return Ok(false);
    };
    after_refresh(conn, snap, found, cause, tracker_params, &now)
}

/// As [`apply`] for every ad of a cabinet the hourly sync re-read in full (`snaps`), made
/// minutes after the hour whose report brought their counters and budget left: the copies keep
/// those, so every campaign's counters are of the same hour and equal the sum of its stats, its
/// budget and spend add up to what it was given, and a re-read that finds no new setting writes
/// no index and leaves the local revision alone. What each writes is worked out on a reader,
/// with the cabinet's copies' revision (schema 61), so that the write transaction only writes
/// it; when the revision moved meanwhile, the transaction works it out again.
pub fn apply_all_settings(
    services: &Services,
    account: i64,
    snaps: &[AdSnapshot],
) -> Result<(), StoreError> {
    let params = &services.config.conversions.tracker_params;
    let read = services
        .db
        .read_blocking(|c| Revised::read(c, account, |c| plan_all_settings(c, snaps)))?;
    services
        .db
        .write_blocking(|tx| write_all_settings(tx, snaps, read, params))
}

/// Each re-read ad's plan (the first snapshot of an ad listed twice), by its place in `snaps`.
type SettingsPlans = Vec<(usize, Option<RefreshPlan>)>;

fn plan_all_settings(conn: &Connection, snaps: &[AdSnapshot]) -> Result<SettingsPlans, StoreError> {
    let mut planned = HashSet::new();
    let mut plans = Vec::with_capacity(snaps.len());
    for (i, snap) in snaps.iter().enumerate() {
        if planned.insert(snap.ad_id) {
            plans.push((i, campaigns::plan_refresh(conn, snap, Counters::Keep)?));
        }
    }
    Ok(plans)
}

fn write_all_settings(
    conn: &Connection,
    snaps: &[AdSnapshot],
    read: Revised<SettingsPlans>,
    tracker_params: &[String],
) -> Result<(), StoreError> {
    let plans = read.current_or_else(conn, |c| plan_all_settings(c, snaps))?;
    let now = clock::iso(clock::now(conn)?);
    for (i, plan) in plans {
        if let Some(plan) = plan {
            let found = plan.write(conn, &now)?;
            after_refresh(conn, &snaps[i], found, Source::Sync, tracker_params, &now)?;
        }
    }
    Ok(())
}

/// What follows a refresh of a copy: the values postbacks name it by, when its link changed,
/// and its status change for the webhook sender. Returns whether the copy changed.
fn after_refresh(
    conn: &Connection,
    snap: &AdSnapshot,
    found: campaigns::Refreshed,
    cause: Source,
    tracker_params: &[String],
    now: &str,
) -> Result<bool, StoreError> {
    if found.link_changed {
        store_targets(conn, snap, tracker_params)?;
    }
    if found.old_status != snap.status {
        let change = StatusChange {
            account_id: snap.account_id,
            ad_id: snap.ad_id,
            tme_path: found.old_tme_path.as_deref(),
            old: found.old_status,
            new: snap.status,
            source: cause,
            decline_reason: snap.decline_reason.as_ref(),
        };
        events::record(conn, &change, now)?;
    }
    Ok(found.changed)
}

/// Records a status change of a stored campaign that the service made (never a decline, so
/// it carries no reason).
pub fn record_change(
    conn: &Connection,
    old: &campaigns::CampaignRow,
    new: Status,
    cause: Source,
    now: &str,
) -> Result<(), StoreError> {
    events::record(
        conn,
        &StatusChange {
            account_id: old.account_id,
            ad_id: old.ad_id,
            tme_path: old.tme_path.as_deref(),
            old: old.status,
            new,
            source: cause,
            decline_reason: None,
        },
        now,
    )
}

/// Records a change made to a campaign by `by` in its history.
pub fn record_history(
    conn: &Connection,
    account: i64,
    ad: i64,
    by: Author,
    action: &str,
    details: &Value,
) -> Result<(), StoreError> {
    let now = clock::iso(clock::now(conn)?);
    history::record(conn, account, ad, &now, by, action, details)
}

/// Re-reads one ad from the platform into the stored copy. The outer error is the service's;
/// the inner one is the platform's (the copy is then left as it was).
pub fn reread(
    services: &Services,
    account: i64,
    ad: i64,
) -> Result<Result<(), PlatformError>, StoreError> {
    let snap = match services.platform.get_ad(account, ad) {
        Ok(snap) => snap,
        Err(e) => return Ok(Err(e)),
    };
    let params = &services.config.conversions.tracker_params;
    services
        .db
        .write_blocking(|tx| apply(tx, &snap, Source::Sync, params))?;
    Ok(Ok(()))
}

/// Stores the cabinet balance the platform reported, when it reported one (read before the
/// transaction opens: a platform call must never run while the writer is held).
pub fn store_balance(
    conn: &Connection,
    account: i64,
    balance: Option<Money>,
) -> Result<(), StoreError> {
    if let Some(balance) = balance {
        cabinets::set_balance(conn, account, balance, &clock::iso(clock::now(conn)?))?;
    }
    Ok(())
}

/// Live copies of the cabinet that a read of every ad did not list are asked for one by one
/// (absence from a list is no proof); those the platform no longer has were deleted outside
/// adcab and are marked `Deleted`, with their status change recorded. Returns how many.
pub fn confirm_missing(
    services: &Services,
    account: i64,
    listed: &HashSet<i64>,
) -> Result<Result<usize, PlatformError>, StoreError> {
    let missing: Vec<i64> = services
        .db
        .read_blocking(|c| campaigns::live_ids(c, account))?
        .into_iter()
        .filter(|ad| !listed.contains(ad))
        .collect();
    if missing.is_empty() {
        return Ok(Ok(0));
    }
    let found: HashSet<i64> = match services.platform.get_ads(account, &missing) {
        Ok(snaps) => snaps.iter().map(|snap| snap.ad_id).collect(),
        Err(e) => return Ok(Err(e)),
    };
    let gone: Vec<i64> = missing
        .into_iter()
        .filter(|ad| !found.contains(ad))
        .collect();
    services.db.write_blocking(|tx| {
        let now = clock::iso(clock::now(tx)?);
        for ad in &gone {
            if let Some(row) = campaigns::get(tx, account, *ad)? {
                record_change(tx, &row, Status::Deleted, Source::Sync, &now)?;
                campaigns::mark_deleted(tx, account, *ad, &now)?;
            }
        }
        Ok::<_, StoreError>(())
    })?;
    Ok(Ok(gone.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::conversion::Target;

    #[test]
    fn refs_are_recomputed_only_when_the_rule_changed() {
        let conn = crate::store::test_db();
        conn.execute_batch(
            "INSERT INTO campaigns (account_id, ad_id, title, text, status, active, promote_url,
                link_kind, target_type, targeting, cpm_micros, views_per_user, created_at,
                synced_at, status_changed_at)
             VALUES (7, 3, 'x', 't', 'Active', 1, 'https://shop.example.com/?aff=p9', 'site',
                'channels', '{}', 1, 1, 1, 't', 't');",
        )
        .unwrap();
        let aff = vec!["aff".to_string()];
        assert_eq!(refresh_targets(&conn, &[]).unwrap(), 1, "never indexed");
        assert_eq!(refresh_targets(&conn, &[]).unwrap(), 0, "same rule");
        assert_eq!(refresh_targets(&conn, &aff).unwrap(), 1, "new parameters");
        assert_eq!(refresh_targets(&conn, &aff).unwrap(), 0, "same rule again");
        let named = refs::find(&conn, &Target::Ref("p9".into())).unwrap();
        assert_eq!(named, vec![(7, 3)]);
    }

    /// The full re-reads' plans are written when nothing changed the cabinet's copies since
    /// they were made; after a local write they are worked out again in the write.
    #[test]
    fn planned_re_reads_are_written_unless_a_local_write_came_between() {
        let conn = crate::store::test_db();
        let stored = crate::store::campaigns::tests::snapshot();
        campaigns::insert(&conn, &stored, None, "2026-01-01T00:00:00Z").unwrap();
        let renamed = AdSnapshot {
            spec: crate::domain::ad::AdSpec {
                title: "Renamed".into(),
                ..stored.spec.clone()
            },
            ..stored.clone()
        };
        let row = || campaigns::get(&conn, 7, 3).unwrap().unwrap();
        let snaps = [renamed.clone(), renamed.clone()];

        let read = Revised::read(&conn, 7, |c| plan_all_settings(c, &snaps)).unwrap();
        write_all_settings(&conn, &snaps, read, &[]).unwrap();
        assert_eq!(row().title, "Renamed");
        assert_eq!(row().budget, stored.budget);

        let read = Revised::read(&conn, 7, |c| plan_all_settings(c, &snaps)).unwrap();
        let edited = AdSnapshot {
            spec: crate::domain::ad::AdSpec {
                title: "Edited here".into(),
                ..stored.spec.clone()
            },
            budget: Money::from_micros(stored.budget.micros() * 2),
            ..renamed.clone()
        };
        apply(&conn, &edited, Source::Api, &[]).unwrap();
        write_all_settings(&conn, &snaps, read, &[]).unwrap();
        assert_eq!(
            row().title,
            "Renamed",
            "the snapshot applied as it stands; the plan made before the edit would have left it"
        );
        assert_eq!(
            row().budget,
            edited.budget,
            "the budget left stays the local write's: a re-read keeps it with the counters"
        );
    }
}
