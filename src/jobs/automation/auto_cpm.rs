//! Owns Auto CPM's hourly run: every `Active` campaign it manages (never one in review), once
//! its bid has been left alone for the cooldown and while it has edits left today, gets a
//! decision on the figures since the bid last moved; a move goes through the bulk task's
//! platform call, into the campaign history with source `automation`, and every decision into
//! `auto_cpm_log`. On a platform whose bid edits send the ad back to review, the figures start
//! when the campaign returned to `Active` after the move, a day of them comes before the next
//! edit, and the minutes each edit spent in review are logged.

use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use crate::clock;
use crate::domain::auto_cpm::{
    self, CpaFrom, COOLDOWN_HOURS, MAX_EDITS_PER_DAY, REVIEW_GAP_HOURS, WINDOW_HOURS,
};
use crate::domain::stats::Totals;
use crate::domain::task::BulkAction;
use crate::ops::campaigns::{self as campaign_ops, Change, Entry};
use crate::ops::Actor;
use crate::services::Services;
use crate::store::auto_cpm::{self as store, Decided, Running};
use crate::store::{cabinets, conversions, stats, StoreError};

/// Decides on every managed campaign at `at`, the end of the synced hour.
pub fn run(s: &Services, at: DateTime<Utc>) -> Result<(), StoreError> {
    let reviews = s.platform.capabilities().bid_edit_reviews;
    for running in s.db.read_blocking(store::running)? {
        if let Err(e) = decide_one(s, &running, reviews, at) {
            let (account, ad) = (running.managed.account_id, running.managed.ad_id);
            tracing::error!(account, ad, error = %e, "Auto CPM decision failed");
        }
    }
    Ok(())
}

/// When the figures a decision reads start, and how many hours of them it waits for. Without
/// review, from the bid's last move, after the cooldown. Where a bid edit sends the ad back to
/// review, from its return to `Active` after the move, after a day of delivery; the minutes the
/// last edit spent in review are logged then.
fn measured_from(
    s: &Services,
    r: &Running,
    reviews: bool,
    moved_at: DateTime<Utc>,
) -> Result<(DateTime<Utc>, i64), StoreError> {
    if !reviews {
        return Ok((moved_at, COOLDOWN_HOURS));
    }
    let active_since = clock::parse_iso(&r.active_since).map_or(moved_at, |t| t.max(moved_at));
    let (account, ad) = (r.managed.account_id, r.managed.ad_id);
    if let Some((edit, None)) = s.db.read_blocking(|c| store::last_edit(c, account, ad))? {
        let minutes = (active_since - moved_at).num_minutes();
        s.db.write_blocking(|tx| store::set_review(tx, edit, minutes))?;
    }
    Ok((active_since, REVIEW_GAP_HOURS))
}

fn decide_one(
    s: &Services,
    r: &Running,
    reviews: bool,
    at: DateTime<Utc>,
) -> Result<(), StoreError> {
    let (m, cpm) = (&r.managed, r.cpm);
    let (account, ad) = (m.account_id, m.ad_id);
    let moved_at = clock::parse_iso(&m.moved_at).unwrap_or(at);
    let (since, wait) = measured_from(s, r, reviews, moved_at)?;
    let hours = (at - since).num_hours().min(WINDOW_HOURS);
    if hours < wait {
        return Ok(());
    }
    let at_iso = clock::iso(at);
    let (cabinet, edits, figures) = s.db.read_blocking(|c| {
        let cabinet = cabinets::get(c, account)?;
        let edits = store::edits_since(c, account, ad, &clock::iso(at - Duration::hours(24)))?;
        let from = clock::iso(at - Duration::hours(hours));
        let rows = stats::hours_of_campaign(c, account, ad, &from, &at_iso)?;
        let mut sum: Totals = rows.iter().map(|(_, t)| t).sum();
        if m.settings.cpa_from == CpaFrom::Postbacks {
            let hours = conversions::hours_of_campaign(c, account, ad, &from, &at_iso)?;
            sum.actions = hours.iter().map(|(_, n)| n).sum();
        }
        Ok::<_, StoreError>((cabinet, edits, sum))
    })?;
    let Some(cabinet) = cabinet else {
        return Ok(());
    };
    let kind = cabinet.cabinet_type;
    let actor = Actor::automation(cabinet);
    let decision = auto_cpm::decide(&m.settings, cpm, &figures, hours, kind);
    let mut decided = Decided {
        account_id: account,
        ad_id: ad,
        at: at_iso.clone(),
        reason: decision.reason.to_string(),
        hours,
        figures,
        observed: decision.observed.map(|o| o.normalize().to_string()),
        from: cpm,
        to: None,
        review_minutes: None,
    };
    if let Some(next) = decision.cpm {
        if edits >= MAX_EDITS_PER_DAY {
            decided.reason = "daily edit cap".into();
        } else {
            let token = format!("auto_cpm:{ad}:{at_iso}");
            match campaign_ops::ask(s, &actor, ad, &BulkAction::SetCpm(next), &token) {
                Ok(made) if matches!(made.change, Change::Snapshot(_)) => {
                    decided.to = Some(next);
                    let details = json!({
                        "auto_cpm": decision.reason,
                        "from": kind.render(cpm),
                        "to": kind.render(next),
                    });
                    let entry = Entry {
                        action: "auto_cpm",
                        details: &details,
                        rule: None,
                    };
                    return s.db.write_blocking(|tx| {
                        campaign_ops::store(tx, s, &actor, ad, &made, &entry)?;
                        // The bid reached the platform now, which is later than `at` while
                        // the clock catches up a jump: its effect is measured from now.
                        store::set_moved(tx, account, ad, &clock::iso(clock::now(tx)?))?;
                        store::record(tx, &decided)
                    });
                }
                Ok(_) => return Ok(()),
                Err(e) => decided.reason = format!("platform refused: {e}"),
            }
        }
    }
    s.db.write_blocking(|tx| store::record(tx, &decided))
}
