//! Owns the writes to one campaign answered at once, for every face alike: an edit (read from
//! the fields `PATCH /v1/campaigns/{ad_id}` and the panel's forms send into a typed command,
//! then made), a switch on or off, a budget move and a delete. Each checks what it can before
//! the platform is asked, asks it, and stores what it made of the change with the history
//! entry of the face's `source`. Blocking.

use serde_json::{json, Map, Value};

use super::fields as campaign_fields;
use super::{store, Change, Entry, Made, OpsError, Refusal};
use crate::clock;
use crate::domain::auto_cpm::{CpaFrom, Goal, Settings};
use crate::domain::campaign::Status;
use crate::domain::fields::Fields;
use crate::domain::money::{CabinetType, Money, MAX_UNITS};
use crate::domain::ParseError;
use crate::ops::write_back;
use crate::platform::{AdEdit, BudgetOp, Capabilities, PlatformError, Switch};
use crate::services::Services;
use crate::store::auto_cpm as auto_cpm_store;
use crate::store::cabinets::{self, Cabinet};
use crate::store::campaigns::{self, CampaignRow};
use crate::store::history::Source;
use crate::store::media;

/// The campaign a write changes: live (a deleted one is not found).
pub fn live(s: &Services, account: i64, ad: i64) -> Result<CampaignRow, OpsError> {
    s.db.read_blocking(|c| campaigns::get(c, account, ad))?
        .filter(|row| row.status != Status::Deleted)
        .ok_or(OpsError::NotFound)
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
    /// Reads an edit of `row` in `cabinet` from `f` (every field optional; an unknown one
    /// refused) on a platform of `caps`, with the Auto CPM settings `stored` for the campaign.
    pub fn read(
        f: &mut Fields,
        caps: &Capabilities,
        cabinet: &Cabinet,
        row: &CampaignRow,
        stored: Option<Settings>,
        details: Map<String, Value>,
    ) -> Result<Edit, ParseError> {
        let kind = cabinet.cabinet_type;
        let media = f.string("media")?.map(|token| (token, f.path("media")));
        let ad = AdEdit {
            title: f.string("title")?,
            text: f.string("text")?,
            promote_url: campaign_fields::promote_url(f)?,
            cpm: campaign_fields::cpm(f, kind)?,
            daily_budget: campaign_fields::daily_budget(f, kind)?,
            views_per_user: f.int("views_per_user", 1, 4)?,
            schedule: campaign_fields::schedule(f, Some(row.target_type), caps)?
                .map(campaign_fields::schedule_json),
            media: None,
            picture: f.bool("picture")?,
            button: campaign_fields::button(f, cabinet, caps)?,
            website_name: campaign_fields::clearable_string(f, "website_name")?,
        };
        let active = f.bool("active")?;
        let auto_cpm = auto_cpm(f, kind, stored)?;
        f.deny_unknown()?;
        Ok(Edit {
            ad,
            media,
            active,
            auto_cpm,
            details: Value::Object(details),
        })
    }
}

/// `auto_cpm` of an edit: the settings sent over the stored ones. Switching on needs a goal,
/// a target and both bounds, sent now or kept from before.
fn auto_cpm(
    f: &mut Fields,
    kind: CabinetType,
    stored: Option<Settings>,
) -> Result<Option<Settings>, ParseError> {
    let Some(value) = f.raw("auto_cpm") else {
        return Ok(None);
    };
    let map = value
        .as_object()
        .ok_or_else(|| ParseError::new("auto_cpm", "auto_cpm must be an object."))?;
    let mut a = Fields::new(map, "auto_cpm");
    let enabled = a
        .bool("enabled")?
        .ok_or_else(|| ParseError::new("auto_cpm.enabled", "enabled is required."))?;
    let goal = match a.string("goal")? {
        None => None,
        Some(g) => Some(
            Goal::parse(&g)
                .ok_or_else(|| ParseError::new("auto_cpm.goal", "goal is cpa or pace."))?,
        ),
    };
    let cpa_from = match a.string("cpa_from")? {
        None => None,
        Some(c) => Some(CpaFrom::parse(&c).ok_or_else(|| {
            ParseError::new("auto_cpm.cpa_from", "cpa_from is actions or postbacks.")
        })?),
    };
    let target = a.positive_money("target", kind.scale())?;
    let min_cpm = a.positive_money("min_cpm", kind.scale())?;
    let max_cpm = a.positive_money("max_cpm", kind.scale())?;
    a.deny_unknown()?;
    let pick = |sent: Option<Money>, old: Option<Money>, name: &str| {
        sent.or(old).ok_or_else(|| {
            ParseError::new(
                format!("auto_cpm.{name}"),
                format!("{name} is required to switch Auto CPM on."),
            )
        })
    };
    let settings = match (enabled, stored) {
        (false, Some(old)) => Settings {
            enabled: false,
            ..old
        },
        (false, None) if goal.is_none() && target.is_none() && cpa_from.is_none() => {
            return Ok(None)
        }
        _ => Settings {
            enabled,
            goal: goal.or(stored.map(|s| s.goal)).ok_or_else(|| {
                ParseError::new("auto_cpm.goal", "goal is required to switch Auto CPM on.")
            })?,
            cpa_from: cpa_from
                .or(stored.map(|s| s.cpa_from))
                .unwrap_or(CpaFrom::Actions),
            target: pick(target, stored.map(|s| s.target), "target")?,
            min_cpm: pick(min_cpm, stored.map(|s| s.min_cpm), "min_cpm")?,
            max_cpm: pick(max_cpm, stored.map(|s| s.max_cpm), "max_cpm")?,
        },
    };
    if settings.min_cpm > settings.max_cpm {
        return Err(ParseError::new(
            "auto_cpm.max_cpm",
            "max_cpm must be at least min_cpm.",
        ));
    }
    Ok(Some(settings))
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

/// Makes `edit` to `row` in `cabinet`: the Auto CPM lock and the media token are checked, the
/// platform's fields sent, the campaign switched, the Auto CPM settings stored, and the change
/// enters the history as `edit` with `source`.
pub fn edit(
    s: &Services,
    source: Source,
    cabinet: &Cabinet,
    row: &CampaignRow,
    edit: Edit,
) -> Result<Edited, OpsError> {
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
        change.media = Some(media_of(s, token, param, cabinet.id)?);
    }
    if change.is_empty() && active.is_none() && auto_cpm.is_none() {
        return Err(OpsError::Invalid(ParseError::new(
            "body",
            "Send at least one field to change.",
        )));
    }
    let (account, ad) = (cabinet.id, row.ad_id);
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
            write_back::apply(tx, snap, source, params)?;
        }
        if let Some(settings) = &auto_cpm {
            auto_cpm_store::set(tx, account, ad, settings, &clock::iso(clock::now(tx)?))?;
        }
        write_back::record_history(tx, account, ad, source, "edit", &details)
    })?;
    Ok(Edited { switched })
}

/// An uploaded media token, checked to belong to `account`: the token and its media type.
fn media_of(
    s: &Services,
    token: String,
    param: String,
    account: i64,
) -> Result<(String, String), OpsError> {
    let lookup = token.clone();
    match s.db.read_blocking(|c| media::get(c, &lookup))? {
        Some(m) if m.account_id == account => Ok((token, m.media_type)),
        Some(_) => Err(OpsError::Invalid(ParseError::new(
            param,
            "This media token belongs to another cabinet.",
        ))),
        None => Err(OpsError::Invalid(ParseError::new(
            param,
            "Unknown media token.",
        ))),
    }
}

/// Switches campaign `ad` of cabinet `account` on (`active`) or off; the change enters the
/// history as `resume` or `pause` with `source`.
pub fn switch(
    s: &Services,
    source: Source,
    account: i64,
    ad: i64,
    active: bool,
) -> Result<Switch, OpsError> {
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

/// What a budget move did.
#[derive(Debug, Clone, Copy)]
pub struct Moved {
    pub moved: Money,
    /// Less was withdrawn than asked (the campaign spent meanwhile).
    pub partial: bool,
}

/// Moves money between `row` and its cabinet `cabinet`: the amount left on the campaign must
/// stay 0 or at least the cabinet's minimum (`param` `amount`), a withdrawal no more than the
/// campaign has. `token` makes a repeat harmless. The cabinet's balance is stored with the
/// change; a top-up the platform took without moving the budget stores the campaign as it
/// reported it and is `BudgetUnchanged`.
pub fn move_budget(
    s: &Services,
    source: Source,
    cabinet: &Cabinet,
    row: &CampaignRow,
    op: BudgetOp,
    token: &str,
) -> Result<Moved, OpsError> {
    let kind = cabinet.cabinet_type;
    let invalid = |m: String| OpsError::Invalid(ParseError::new("amount", m));
    match op {
        BudgetOp::Add(a) => {
            let after = row.budget.checked_add(a).ok_or_else(|| {
                invalid(format!("The campaign's budget would exceed {MAX_UNITS}."))
            })?;
            campaign_fields::check_budget_floor(after, cabinet).map_err(invalid)?;
        }
        BudgetOp::Withdraw(a) => {
            let after = row
                .budget
                .checked_sub(a)
                .ok_or(OpsError::Refused(Refusal::InsufficientAdBalance))?;
            campaign_fields::check_budget_floor(after, cabinet)
                .map_err(|m| invalid(format!("{m} Withdraw less, or use withdraw_all.")))?;
        }
        BudgetOp::WithdrawAll => {}
    }
    let (account, ad) = (cabinet.id, row.ad_id);
    let moved = s.platform.move_budget(account, ad, op, token)?;
    let unchanged = matches!(op, BudgetOp::Add(_)) && moved.moved.micros() == 0;
    let partial = matches!(op, BudgetOp::Withdraw(asked) if moved.moved < asked);
    let (action, amount) = match op {
        BudgetOp::Add(a) => ("add", Some(a)),
        BudgetOp::Withdraw(a) => ("withdraw", Some(a)),
        BudgetOp::WithdrawAll => ("withdraw_all", None),
    };
    let details = json!({
        "action": action,
        "amount": amount.map(|a| kind.render(a)),
        "moved": kind.render(moved.moved),
    });
    let params = &s.config.conversions.tracker_params;
    s.db.write_blocking(|tx| {
        let now = clock::iso(clock::now(tx)?);
        cabinets::set_balance(tx, account, moved.balance, &now)?;
        write_back::apply(tx, &moved.ad, source, params)?;
        if !unchanged {
            write_back::record_history(tx, account, ad, source, "budget", &details)?;
        }
        Ok::<_, OpsError>(())
    })?;
    if unchanged {
        return Err(OpsError::BudgetUnchanged);
    }
    Ok(Moved {
        moved: moved.moved,
        partial,
    })
}

/// Deletes `row`: on the platform (`token` makes a repeat harmless), then its copy is removed
/// (it never ran) or marked `Deleted`, with the status change, the history entry as `delete`
/// and the cabinet's balance. Returns whether it was removed outright.
pub fn delete(
    s: &Services,
    source: Source,
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
        source,
        action: "delete",
        details: &details,
    };
    s.db.write_blocking(|tx| store(tx, s, (account, ad), &made, &entry))?;
    Ok(removed)
}
