//! Owns connecting cabinets to a real platform: `admin cabinet connect` (one cabinet per
//! account a token opens, its existing ads imported), `reconnect` (a new token for a cabinet),
//! `platform check` (what a token opens, changing nothing), `cabinet sync` ("Sync now",
//! for any platform) and `cabinet list` (with each cabinet's platform account id). Tokens are
//! handed to the platform, which seals them; none is printed.

use std::collections::HashSet;

use serde::Serialize;

use super::cabinets::default_min_budget;
use super::write_back::{self, store_created};
use super::{bad, now_iso, require_cabinet, require_user, Id, OpsError};
use crate::platform::RemoteAccount;
use crate::services::Services;
use crate::store::cabinets::{self, Cabinet};
use crate::store::history::Source;
use crate::store::{campaigns, StoreError};

/// The longest token read from standard input.
pub const MAX_TOKEN: usize = 4096;

/// One cabinet `connect` made.
#[derive(Debug, Clone, Serialize)]
pub struct ConnectedCabinet {
    pub id: i64,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Ads imported with it.
    pub campaigns: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Connected {
    pub cabinets: Vec<ConnectedCabinet>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckedAccount {
    pub platform_id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// `admin platform check`: the token's own account, how many it manages, its ads.
#[derive(Debug, Clone, Serialize)]
pub struct Checked {
    pub account: CheckedAccount,
    pub related: usize,
    pub ads: i64,
}

/// `admin cabinet sync`.
#[derive(Debug, Clone, Serialize)]
pub struct Synced {
    pub id: i64,
    pub campaigns: usize,
    pub changed: usize,
}

/// One cabinet in `admin cabinet list`.
#[derive(Debug, Clone, Serialize)]
pub struct CabinetSummary {
    pub id: i64,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub owner: i64,
    pub active: bool,
    pub auth_expired: bool,
    pub locked: bool,
    /// The platform's own account id of a connected cabinet.
    pub platform_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CabinetList {
    pub cabinets: Vec<CabinetSummary>,
}

/// `admin cabinet list [--owner USER]`.
pub fn cabinet_list(s: &Services, owner: Option<i64>) -> Result<CabinetList, OpsError> {
    let rows = s.db.read_blocking(|c| cabinets::list(c, owner))?;
    Ok(CabinetList {
        cabinets: rows
            .into_iter()
            .map(|row| CabinetSummary {
                id: row.cabinet.id,
                name: row.cabinet.name,
                kind: row.cabinet.cabinet_type.as_str(),
                owner: row.cabinet.owner_id,
                active: row.cabinet.is_active,
                auth_expired: row.cabinet.auth_expired,
                locked: row.cabinet.locked,
                platform_id: row.platform_id,
            })
            .collect(),
    })
}

/// A token as read from standard input: trimmed, non-empty, of a sane size.
pub fn read_token(text: &str) -> Result<String, OpsError> {
    let token = text.trim();
    if token.is_empty() {
        return Err(bad("token-stdin", "no token on standard input"));
    }
    if token.len() > MAX_TOKEN || token.chars().any(char::is_whitespace) {
        return Err(bad(
            "token-stdin",
            "standard input must hold one token, without spaces",
        ));
    }
    Ok(token.to_string())
}

/// A token that opened related accounts is an agency's main account's: its cabinet is marked
/// the main account and theirs its client cabinets (`ops::funds`).
fn mark_agency(
    s: &Services,
    known: &[RemoteAccount],
    new: &[RemoteAccount],
) -> Result<(), OpsError> {
    let all = || known.iter().chain(new);
    let Some(main) = all().find(|a| !a.related) else {
        return Ok(());
    };
    if !all().any(|a| a.related) {
        return Ok(());
    }
    s.db.write_blocking(|tx| {
        let Some(main_id) = cabinets::by_platform_id(tx, &main.platform_id)? else {
            return Ok::<_, OpsError>(());
        };
        cabinets::set_main(tx, main_id, true)?;
        for account in all().filter(|a| a.related) {
            if let Some(id) = cabinets::by_platform_id(tx, &account.platform_id)? {
                cabinets::set_main_account(tx, id, main_id)?;
            }
        }
        Ok(())
    })
}

pub fn cabinet_connect(
    s: &Services,
    owner: i64,
    token: &str,
    related: bool,
) -> Result<Connected, OpsError> {
    s.db.read_blocking(|c| {
        require_user(c, owner).map_err(|_| bad("owner", format!("no user with id {owner}")))
    })?;
    let found = s.platform.connect(token, related)?;
    let (known, new): (Vec<RemoteAccount>, Vec<RemoteAccount>) = s.db.read_blocking(|c| {
        let mut known = Vec::new();
        let mut new = Vec::new();
        for account in found {
            if cabinets::by_platform_id(c, &account.platform_id)?.is_some() {
                known.push(account);
            } else {
                new.push(account);
            }
        }
        Ok::<_, OpsError>((known, new))
    })?;
    if new.is_empty() {
        let ids: Vec<&str> = known.iter().map(|a| a.platform_id.as_str()).collect();
        return Err(bad(
            "token-stdin",
            format!(
                "every account this token opens is already connected ({}); use `admin cabinet reconnect` to give a cabinet a new token",
                ids.join(", ")
            ),
        ));
    }
    let ids = s.db.write_blocking(|tx| {
        let now = now_iso(tx)?;
        let mut ids = Vec::with_capacity(new.len());
        for account in &new {
            let id = cabinets::next_id(tx)?;
            let cabinet = Cabinet {
                id,
                owner_id: owner,
                name: account.name.clone(),
                cabinet_type: account.kind,
                is_active: true,
                balance: account.balance,
                balance_updated_at: now.clone(),
                min_budget: default_min_budget(s, account.kind)?,
                ad_button: true,
                crypto_filters: false,
                auth_expired: false,
                locked: false,
            };
            cabinets::insert(tx, &cabinet, &now)?;
            cabinets::set_connection(tx, id, &account.platform_id, &account.credential)?;
            ids.push(id);
        }
        Ok::<_, OpsError>(ids)
    })?;
    mark_agency(s, &known, &new)?;
    let mut ads = Vec::with_capacity(ids.len());
    for id in &ids {
        match s.platform.list_ads(*id) {
            Ok(snaps) => ads.push(snaps),
            Err(e) => {
                s.db.write_blocking(|tx| {
                    ids.iter()
                        .try_for_each(|id| cabinets::delete_empty(tx, *id))
                })?;
                return Err(e.into());
            }
        }
    }
    let params = &s.config.conversions.tracker_params;
    s.db.write_blocking(|tx| {
        for snaps in &ads {
            for snap in snaps {
                store_created(tx, snap, None, Source::Panel.into(), params)?;
            }
        }
        Ok::<_, OpsError>(())
    })?;
    Ok(Connected {
        cabinets: ids
            .iter()
            .zip(&new)
            .zip(&ads)
            .map(|((id, account), snaps)| ConnectedCabinet {
                id: *id,
                name: account.name.clone(),
                kind: account.kind.as_str(),
                campaigns: snaps.len(),
            })
            .collect(),
    })
}

/// Gives a cabinet a new token: the token must open the cabinet's own platform account. The
/// session-expired mark is lifted.
pub fn cabinet_reconnect(s: &Services, id: i64, token: &str) -> Result<Id, OpsError> {
    let platform_id = s.db.read_blocking(|c| {
        require_cabinet(c, id)?;
        let link =
            cabinets::connection(c, id)?.ok_or_else(|| bad("id", format!("no cabinet {id}")))?;
        link.platform_id.ok_or_else(|| {
            bad(
                "id",
                format!("cabinet {id} is not connected to a platform account"),
            )
        })
    })?;
    let found = s.platform.connect(token, true)?;
    let account = found
        .into_iter()
        .find(|a| a.platform_id == platform_id)
        .ok_or_else(|| {
            bad(
                "token-stdin",
                format!("this token does not open account {platform_id} of cabinet {id}"),
            )
        })?;
    s.db.write_blocking(|tx| {
        cabinets::set_connection(tx, id, &platform_id, &account.credential)?;
        cabinets::set_auth_expired(tx, id, false)?;
        Ok(Id { id })
    })
}

pub fn platform_check(s: &Services, token: &str) -> Result<Checked, OpsError> {
    let found = s.platform.connect(token, true)?;
    let own = found
        .first()
        .ok_or_else(|| bad("token-stdin", "the token opens no account"))?;
    Ok(Checked {
        account: CheckedAccount {
            platform_id: own.platform_id.clone(),
            name: own.name.clone(),
            kind: own.kind.as_str(),
        },
        related: found.len() - 1,
        ads: own.ads,
    })
}

/// `admin cabinet sync` ("Sync now"): every ad the platform has, with its status, settings,
/// budget and counters, into the stored copies (ads adcab did not know are imported), the ads
/// it no longer has marked deleted, and the balance. Hourly stats are left to the hourly
/// sync, which counts what this moved.
pub fn cabinet_sync(s: &Services, id: i64) -> Result<Synced, OpsError> {
    s.db.read_blocking(|c| require_cabinet(c, id))?;
    let snaps = s.platform.list_ads(id)?;
    let balance = s.platform.balance(id);
    let params = &s.config.conversions.tracker_params;
    let changed = s.db.write_blocking(|tx| {
        let mut changed = 0;
        for snap in &snaps {
            let new = campaigns::get(tx, id, snap.ad_id)?.is_none();
            if new {
                store_created(tx, snap, None, Source::Panel.into(), params)?;
            }
            if new || write_back::apply(tx, snap, Source::Sync, params)? {
                changed += 1;
            }
        }
        write_back::store_balance(tx, id, balance.ok())?;
        Ok::<_, StoreError>(changed)
    })?;
    let listed: HashSet<i64> = snaps.iter().map(|snap| snap.ad_id).collect();
    let gone = write_back::confirm_missing(s, id, &listed)??;
    Ok(Synced {
        id,
        campaigns: snaps.len(),
        changed: changed + gone,
    })
}
