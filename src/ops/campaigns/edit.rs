//! Owns the writes to one campaign answered at once, for every face alike: an edit (read from
//! the fields `PATCH /v1/campaigns/{ad_id}` and the panel's forms send into a typed command,
//! then made), a switch on or off and a delete. Each checks what it can before the platform is
//! asked, asks it, and stores what it made of the change with the history entry of the
//! actor's source. Blocking.

use serde::Deserialize;
use serde_json::{json, Value};

use super::auto_cpm::AutoCpmIn;
use super::fields::{self as campaign_fields, Link};
use super::{media_of, store, Change, Entry, Made, OpsError, Refusal};
use crate::clock;
use crate::domain::auto_cpm::Settings;
use crate::domain::campaign::Status;
use crate::domain::fields::wire::{present, Amount, Flag, Int, Patch, Raw, Text, TextOrNull};
use crate::domain::fields::{self, path};
use crate::domain::money::Money;
use crate::domain::ParseError;
use crate::ops::Actor;
use crate::platform::{AdEdit, PlatformError, Switch};
use crate::services::Services;
use crate::store::auto_cpm as auto_cpm_store;
use crate::store::campaigns::{self, CampaignRow};
use crate::sync;

/// The campaign a write changes: live (a deleted one is not found).
pub fn live(s: &Services, account: i64, ad: i64) -> Result<CampaignRow, OpsError> {
    s.db.read_blocking(|c| campaigns::get(c, account, ad))?
        .filter(|row| row.status != Status::Deleted)
        .ok_or(OpsError::NotFound)
}

/// An edit's fields as sent; each is optional.
#[derive(Deserialize)]
struct EditIn {
    media: Option<Text>,
    title: Option<Text>,
    text: Option<Text>,
    promote_url: Option<Link>,
    cpm: Option<Amount>,
    #[serde(default)]
    daily_budget: Patch<Amount>,
    views_per_user: Option<Int<1, 4>>,
    #[serde(default)]
    schedule: Patch<Raw>,
    picture: Option<Flag>,
    #[serde(default)]
    button: Patch<Raw>,
    #[serde(default)]
    website_name: Patch<TextOrNull>,
    active: Option<Flag>,
    #[serde(default, deserialize_with = "present")]
    auto_cpm: Option<Raw>,
}

/// An edit of a campaign, as read.
#[derive(Debug, Clone)]
pub struct Edit {
    /// The platform's fields; its media is looked up from `media` when the edit is made.
    pub ad: AdEdit,
    /// An uploaded media token, with the path it came under.
    pub media: Option<(String, String)>,
    /// Switch it on or off.
    pub active: Option<bool>,
    /// The Auto CPM settings to store.
    pub auto_cpm: Option<Settings>,
    /// What was sent, for the campaign's history.
    pub details: Value,
}

impl Edit {
    /// Reads an edit of `row` in `cabinet` from `body` (every field optional; an unknown one
    /// refused), with the Auto CPM settings `stored` for the campaign; `details` is what the
    /// history keeps of it.
    pub fn read(
        body: &Value,
        cabinet: &crate::store::cabinets::Cabinet,
        row: &CampaignRow,
        stored: Option<Settings>,
        details: Value,
    ) -> Result<Edit, ParseError> {
        let (sent, undeclared): (EditIn, _) = fields::read_open(body, "")?;
        let kind = cabinet.cabinet_type;
        let ad = AdEdit {
            title: sent.title.map(|t| t.0),
            text: sent.text.map(|t| t.0),
            promote_url: sent.promote_url.map(|l| l.0),
            cpm: sent
                .cpm
                .map(|a| campaign_fields::cpm(&a, "", kind))
                .transpose()?,
            daily_budget: campaign_fields::daily_budget(sent.daily_budget, "", kind)?,
            views_per_user: sent.views_per_user.map(|v| v.0),
            schedule: campaign_fields::schedule(sent.schedule, "", Some(row.target_type))?
                .map(campaign_fields::schedule_json),
            media: None,
            picture: sent.picture.map(|p| p.0),
            button: campaign_fields::button(sent.button, "", cabinet)?,
            website_name: sent.website_name.into_option().map(|w| w.map(|t| t.0)),
        };
        let auto_cpm = match sent.auto_cpm {
            Some(Raw(value)) => AutoCpmIn::read(&value, kind, stored)?,
            None => None,
        };
        undeclared.refuse()?;
        Ok(Edit {
            ad,
            media: sent.media.map(|Text(token)| (token, path("", "media"))),
            active: sent.active.map(|a| a.0),
            auto_cpm,
            details,
        })
    }
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

/// Makes `edit` to `row` in the actor's cabinet: the Auto CPM lock and the media token are
/// checked, the platform's fields sent, the campaign switched, the Auto CPM settings stored,
/// and the change enters the history as `edit` with the actor's source.
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
        details,
    } = edit;
    let releases = auto_cpm.is_some_and(|a| !a.enabled);
    if row.auto_cpm_enabled && change.cpm.is_some() && !releases {
        return Err(OpsError::Refused(Refusal::AutoCpmLocked));
    }
    if let Some((token, param)) = media {
        change.media = Some(s.db.read_blocking(|c| media_of(c, token, param, account))?);
    }
    if change.is_empty() && active.is_none() && auto_cpm.is_none() {
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
        match s.platform.switch_ad(account, ad, active) {
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
            sync::apply(tx, snap, source, params)?;
        }
        if let Some(settings) = &auto_cpm {
            auto_cpm_store::set(tx, account, ad, settings, &clock::iso(clock::now(tx)?))?;
        }
        sync::record_history(tx, account, ad, source, "edit", &details)
    })?;
    Ok(Edited { switched })
}

/// Switches campaign `ad` of the actor's cabinet on (`active`) or off; the change enters the
/// history as `resume` or `pause` with the actor's source.
pub fn switch(s: &Services, actor: &Actor, ad: i64, active: bool) -> Result<Switch, OpsError> {
    let (source, account) = (actor.source(), actor.cabinet().id);
    live(s, account, ad)?;
    let (snap, outcome) = s.platform.switch_ad(account, ad, active)?;
    let made = Made {
        change: Change::Snapshot(Box::new(snap)),
        balance: None,
    };
    let details = json!({ "active": active });
    let entry = Entry {
        source,
        action: if active { "resume" } else { "pause" },
        details: &details,
    };
    s.db.write_blocking(|tx| store(tx, s, (account, ad), &made, &entry))?;
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
    let source = actor.source();
    let (account, ad) = (row.account_id, row.ad_id);
    let removed = s.platform.delete_ad(account, ad, token)?;
    let balance = s.platform.balance(account).ok();
    let made = Made {
        change: Change::Deleted { removed },
        balance,
    };
    let details = json!({ "removed": removed });
    let entry = Entry {
        source,
        action: "delete",
        details: &details,
    };
    s.db.write_blocking(|tx| store(tx, s, (account, ad), &made, &entry))?;
    Ok(removed)
}
