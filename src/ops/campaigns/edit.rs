//! Owns the writes to one campaign answered at once, for every face alike: an edit (read by
//! `command` from what `PATCH /v1/campaigns/{ad_id}` and the panel's forms send), a switch on
//! or off and a delete. Each checks what it can before the platform is
//! asked, asks it, and stores what it made of the change with the history entry of the
//! actor's source. Blocking.

use serde_json::json;

use super::command::Edit;
use super::{media_of, store, Change, Entry, Made, OpsError, Refusal};
use crate::clock;
use crate::domain::auto_cpm::Settings;
use crate::domain::campaign::Status;
use crate::domain::money::Money;
use crate::domain::ParseError;
use crate::ops::Actor;
use crate::ops::{lookup, write_back};
use crate::platform::{PlatformError, Switch};
use crate::services::Services;
use crate::store::auto_cpm as auto_cpm_store;
use crate::store::campaigns::{self, CampaignRow};

/// The campaign a write changes: live (a deleted one is not found).
pub fn live(s: &Services, account: i64, ad: i64) -> Result<CampaignRow, OpsError> {
    s.db.read_blocking(|c| campaigns::get(c, account, ad))?
        .filter(|row| row.status != Status::Deleted)
        .ok_or(OpsError::NotFound)
}

/// The Auto CPM settings stored for a campaign.
pub fn stored_auto_cpm(s: &Services, account: i64, ad: i64) -> Result<Option<Settings>, OpsError> {
    Ok(s.db
        .read_blocking(|c| auto_cpm_store::get(c, account, ad))?
        .map(|m| m.settings))
}

/// What an edit did.
#[derive(Debug)]
pub struct Edited {
    /// The switch's outcome, when the edit switched the campaign; a refusal of the switch
    /// when the rest of the edit was made all the same.
    pub switched: Option<Result<(Switch, Money), PlatformError>>,
}

/// Makes `edit` to `row` in the actor's cabinet: the Auto CPM lock, the media token and the
/// dates (against the service time) are checked, the platform's fields sent, the campaign
/// switched, the Auto CPM settings and the dates stored, and the change enters the history
/// as `edit` with the actor's source.
pub fn edit(
    s: &Services,
    actor: &Actor,
    row: &CampaignRow,
    edit: Edit,
) -> Result<Edited, OpsError> {
    let (source, account) = (actor.source(), actor.cabinet().id);
    let Edit {
        ad: mut change,
        media,
        active,
        auto_cpm,
        dates,
        details,
        schedule_zone,
    } = edit;
    let releases = auto_cpm.is_some_and(|a| !a.enabled);
    if row.auto_cpm_enabled && change.cpm.is_some() && !releases {
        return Err(OpsError::Refused(Refusal::AutoCpmLocked));
    }
    if let Some((token, param)) = media {
        change.media = Some(s.db.read_blocking(|c| media_of(c, token, param, account))?);
    }
    let now = s.db.read_blocking(clock::now)?.timestamp();
    let dates = match dates {
        Some((dates, sent)) => {
            dates.check(sent, now, "")?;
            Some(dates)
        }
        None => None,
    };
    // The platform holds the dates only while the campaign is on: a running one is sent them
    // with the edit, one switched on by it with the switch; a paused one keeps them in adcab.
    if row.active && active.unwrap_or(true) {
        change.dates = dates.map(|d| d.to_send(now));
    }
    let resent = dates.unwrap_or(row.dates).to_send(now);
    if change.is_empty() && active.is_none() && auto_cpm.is_none() && dates.is_none() {
        return Err(OpsError::Invalid(ParseError::new(
            "body",
            "Send at least one field to change.",
        )));
    }
    let ad = row.ad_id;
    let mut snap = None;
    if !change.is_empty() {
        snap = Some(s.platform.edit_ad(account, ad, &change)?);
    }
    let mut switched = None;
    if let Some(active) = active {
        match s.platform.switch_ad(account, ad, active, resent) {
            Ok((switched_snap, outcome)) => {
                switched = Some(Ok((outcome, switched_snap.budget)));
                snap = Some(switched_snap);
            }
            Err(e) if snap.is_some() => switched = Some(Err(e)),
            Err(e) => return Err(e.into()),
        }
    }
    let params = &s.config.conversions.tracker_params;
    s.db.write_blocking(|tx| {
        if let Some(snap) = &snap {
            write_back::apply(tx, snap, source, params)?;
            lookup::keep(tx, s, &snap.peers)?;
        }
        if let Some(settings) = &auto_cpm {
            auto_cpm_store::set(tx, account, ad, settings, &clock::iso(clock::now(tx)?))?;
        }
        if let Some(dates) = dates {
            campaigns::set_dates(tx, account, ad, dates)?;
        }
        if let Some(zone) = &schedule_zone {
            campaigns::set_schedule_zone(tx, account, ad, zone.as_deref())?;
        }
        write_back::record_history(tx, account, ad, actor.author(), "edit", &details)
    })?;
    Ok(Edited { switched })
}

/// Switches campaign `ad` of the actor's cabinet on (`active`) or off, a resume sending the
/// dates adcab keeps for it again; the change enters the history as `resume` or `pause` with
/// the actor's source.
pub fn switch(s: &Services, actor: &Actor, ad: i64, active: bool) -> Result<Switch, OpsError> {
    let account = actor.cabinet().id;
    live(s, account, ad)?;
    let dates = super::dates_to_send(s, account, ad)?;
    let (snap, outcome) = s.platform.switch_ad(account, ad, active, dates)?;
    let made = Made {
        change: Change::Snapshot(Box::new(snap)),
        balance: None,
    };
    let details = json!({ "active": active });
    let entry = Entry {
        action: if active { "resume" } else { "pause" },
        details: &details,
        rule: None,
    };
    s.db.write_blocking(|tx| store(tx, s, actor, ad, &made, &entry))?;
    Ok(outcome)
}

/// Deletes `row` of the actor's cabinet: on the platform (`token` makes a repeat harmless),
/// then its copy is removed (it never ran) or marked `Deleted`, with the status change, the
/// history entry as `delete` and the cabinet's balance. Returns whether it was removed
/// outright.
pub fn delete(
    s: &Services,
    actor: &Actor,
    row: &CampaignRow,
    token: &str,
) -> Result<bool, OpsError> {
    let (account, ad) = (row.account_id, row.ad_id);
    let removed = s.platform.delete_ad(account, ad, token)?;
    let balance = s.platform.balance(account).ok();
    let made = Made {
        change: Change::Deleted { removed },
        balance,
    };
    let details = json!({ "removed": removed });
    let entry = Entry {
        action: "delete",
        details: &details,
        rule: None,
    };
    s.db.write_blocking(|tx| store(tx, s, actor, ad, &made, &entry))?;
    Ok(removed)
}
