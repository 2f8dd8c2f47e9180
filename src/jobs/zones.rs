//! Owns following the zones schedules were given in: after each hourly sync, for each IANA
//! zone a live campaign's schedule follows, its offset now by the service clock; the few
//! campaigns whose schedule holds another offset (the zone's clocks changed) are moved by
//! `ops::campaigns::zone::follow`. Cheap: one index read per zone in use, and a platform call
//! only for a campaign whose zone's offset changed. One pass at a time in the process, so
//! two passes never move the same campaign twice.

use std::sync::Mutex;

use chrono::{DateTime, Utc};

use crate::clock;
use crate::domain::zone::{offset_text, Written};
use crate::ops::campaigns::zone::{follow, Followed};
use crate::ops::Actor;
use crate::services::Services;
use crate::store::{cabinets, campaigns, StoreError};

/// Held while a pass runs.
static PASS: Mutex<()> = Mutex::new(());

/// What a pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pass {
    /// Schedules moved to their zone's new offset.
    pub moved: usize,
    /// Schedules whose zone's new offset could not be sent (recorded in their history).
    pub refused: usize,
    /// Campaigns left for the next pass (their cabinet cannot be changed now, or the platform
    /// did not answer).
    pub left: usize,
}

/// Moves every schedule whose zone's offset at the service time differs from the one it
/// holds. A campaign that fails is logged and tried again at the next pass. Blocking.
pub fn run(s: &Services) -> Result<Pass, StoreError> {
    let _one = PASS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let (now, due) = s.db.read_blocking(|c| {
        let now = clock::now(c)?;
        Ok::<_, StoreError>((now, shifted(c, now)?))
    })?;
    let mut pass = Pass::default();
    for (account, ad) in due {
        let found = s.db.read_blocking(|c| {
            Ok::<_, StoreError>((cabinets::get(c, account)?, campaigns::get(c, account, ad)?))
        })?;
        let (Some(cabinet), Some(row)) = found else {
            continue;
        };
        if !cabinet.is_active || cabinet.auth_expired {
            pass.left += 1;
            continue;
        }
        match follow(s, &Actor::system(cabinet), &row, now) {
            Ok(Followed::Moved { from, to }) => {
                tracing::info!(account, ad, %from, %to, "schedule moved with its zone");
                pass.moved += 1;
            }
            Ok(Followed::Refused { offset }) => {
                tracing::warn!(account, ad, %offset, "schedule could not follow its zone");
                pass.refused += 1;
            }
            Ok(Followed::Dropped) => {
                tracing::info!(
                    account,
                    ad,
                    "schedule changed on the platform no longer follows its zone"
                );
            }
            Ok(Followed::Unchanged) => {}
            Err(e) => {
                tracing::warn!(account, ad, error = ?e, "schedule not moved with its zone; next pass retries");
                pass.left += 1;
            }
        }
    }
    Ok(pass)
}

/// The campaigns (account, ad) whose schedule's zone is at another offset at `now` than the
/// one it holds.
fn shifted(conn: &rusqlite::Connection, now: DateTime<Utc>) -> Result<Vec<(i64, i64)>, StoreError> {
    let mut due = Vec::new();
    for name in campaigns::zones_followed(conn)? {
        let Some(zone @ Written::Named(_)) = Written::parse(&name) else {
            continue;
        };
        let offset = offset_text(zone.offset_at(now));
        due.extend(campaigns::zone_shifted(conn, &name, &offset)?);
    }
    Ok(due)
}
