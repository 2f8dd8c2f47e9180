//! Owns moving a campaign's schedule to its zone's offset when the zone's clocks change
//! (daylight saving): the same edit every face makes (`edit::edit`), made by adcab itself
//! (history source `system`) with the zone and both offsets in its history. An offset the
//! platform does not take, or a move the platform refuses, is recorded once instead: in the
//! history (`zone_refused`) and beside the campaign, so it is not asked again until the
//! zone's offset changes once more. A schedule changed on the platform itself to an offset
//! its zone never takes stops following the zone. Blocking.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::command::Edit;
use super::edit::edit;
use super::OpsError;
use crate::domain::schedule::{Schedule, Zone};
use crate::domain::zone::offset_text;
use crate::ops::{write_back, Actor};
use crate::platform::{AdEdit, PlatformError};
use crate::services::Services;
use crate::store::campaigns::{self, CampaignRow};
use crate::store::StoreError;

/// What following the zone did to a campaign's schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Followed {
    /// The platform holds the zone's offset now (`+HH:MM`): before and after.
    Moved { from: String, to: String },
    /// The zone's new offset could not be sent; the schedule keeps its old one.
    Refused { offset: String },
    /// The schedule holds the zone's offset already, or follows no zone.
    Unchanged,
    /// The schedule was changed on the platform itself to an offset its zone never takes:
    /// it no longer follows the zone (its name is dropped), and is left as it is.
    Dropped,
}

/// Moves `row`'s schedule to its zone's offset at `at` when that differs from the one the
/// platform holds, as `actor` (adcab itself). A repeat after a move finds the offset held and
/// does nothing; a repeat after a crash between the platform's answer and the store sends
/// the same schedule again, which changes nothing there, and records it then.
pub fn follow(
    s: &Services,
    actor: &Actor,
    row: &CampaignRow,
    at: DateTime<Utc>,
) -> Result<Followed, OpsError> {
    let Some(value) = &row.schedule else {
        return Ok(Followed::Unchanged);
    };
    let schedule = Schedule::stored(value)
        .map_err(|e| {
            StoreError::Corrupt(format!(
                "campaigns.schedule of {}/{}: {e}",
                row.account_id, row.ad_id
            ))
        })?
        .named_as(row.schedule_zone.as_deref());
    let (account, ad) = (row.account_id, row.ad_id);
    if !schedule.holds_its_zones_offset(at) {
        // Changed on the platform itself to an offset the zone never takes: it follows that
        // offset now, not the zone.
        s.db.write_blocking(|tx| campaigns::set_schedule_zone(tx, account, ad, None))?;
        return Ok(Followed::Dropped);
    }
    let (Some(moved), Some(name)) = (schedule.shifted_at(at), schedule.zone_name()) else {
        return Ok(Followed::Unchanged);
    };
    let (Zone::Offset(held), Zone::Offset(minutes)) = (schedule.zone, moved.zone) else {
        return Ok(Followed::Unchanged);
    };
    let (from, to) = (offset_text(held), offset_text(minutes));
    let refused = |reason: Option<String>| -> Result<Followed, OpsError> {
        let details = json!({ "zone": name, "offset": to, "held": from, "reason": reason });
        s.db.write_blocking(|tx| {
            campaigns::set_zone_refused(tx, account, ad, Some(&to))?;
            write_back::record_history(tx, account, ad, actor.author(), "zone_refused", &details)
        })?;
        Ok(Followed::Refused { offset: to.clone() })
    };
    if !s.platform.capabilities().time_zones.contains(&minutes) {
        return refused(None);
    }
    let sent = moved.to_json();
    let change = Edit {
        ad: AdEdit {
            schedule: Some(Some(sent.clone())),
            ..AdEdit::default()
        },
        media: None,
        active: None,
        auto_cpm: None,
        dates: None,
        details: json!({
            "schedule": sent,
            "zone": { "name": name, "from": from, "to": to },
        }),
        schedule_zone: Some(Some(name.to_string())),
    };
    match edit(s, actor, row, change) {
        Ok(_) => Ok(Followed::Moved { from, to }),
        Err(OpsError::Platform(PlatformError::Rejected { reason, .. })) => refused(Some(reason)),
        Err(e) => Err(e),
    }
}
