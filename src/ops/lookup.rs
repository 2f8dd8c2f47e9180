//! Owns looking things up on the platform for a person filling in a campaign: a public
//! channel or bot by its name, with its title and picture where the platform gives them,
//! which are kept (`store::peers`, filed under the platform's kind) so targeting reads by title
//! later; and the cities of a country by a part of their name. The face decides who may look
//! up with which cabinet. Blocking.

use rusqlite::Connection;

use super::OpsError;
use crate::clock;
use crate::domain::campaign::TargetType;
use crate::domain::countries::COUNTRIES;
use crate::domain::targeting::{CityEntry, PeerEntry};
use crate::platform::PlatformKind;
use crate::services::Services;
use crate::store::{peers, StoreError};

/// Longest name a look-up sends to the platform.
const MAX_QUERY: usize = 64;

/// The channel (`target` channels, users) or bot (`target` bots) `query` names, looked up with
/// cabinet `account`'s credentials; `None` for an empty or overlong query or a name the
/// platform does not know. A title found is kept.
pub fn look_up_peer(
    s: &Services,
    account: i64,
    target: TargetType,
    query: &str,
) -> Result<Option<PeerEntry>, OpsError> {
    let query = query.trim();
    if query.is_empty() || query.chars().count() > MAX_QUERY {
        return Ok(None);
    }
    let found = s.platform.look_up_peer(account, target, query)?;
    if let Some(peer) = found.as_ref().filter(|p| p.title.is_some()) {
        remember(s, std::slice::from_ref(peer))?;
    }
    Ok(found)
}

/// Keeps the titles of `found` (a look-up's).
fn remember(s: &Services, found: &[PeerEntry]) -> Result<(), StoreError> {
    s.db.write_blocking(|tx| keep(tx, s, found))
}

/// Keeps the titles of `found` (a look-up's, an ad's targeting as the platform described it
/// when the ad was made or changed), in the caller's transaction.
pub fn keep(tx: &Connection, s: &Services, found: &[PeerEntry]) -> Result<(), StoreError> {
    if found.iter().all(|p| p.title.is_none()) {
        return Ok(());
    }
    let (platform, at) = (platform_key(s), clock::iso(clock::now(tx)?));
    found
        .iter()
        .try_for_each(|peer| peers::remember(tx, platform, peer, &at))
}

/// The name the kept titles are filed under for the configured platform.
pub fn platform_key(s: &Services) -> &'static str {
    match s.config.platform.kind {
        PlatformKind::Sim => "sim",
        PlatformKind::Telegram => "telegram",
    }
}

/// The cities of `country` (a code of [`crate::domain::countries::COUNTRIES`]) whose name
/// holds `query`, looked up with cabinet `account`'s credentials; none for an unknown
/// country or an empty or overlong query.
pub fn look_up_cities(
    s: &Services,
    account: i64,
    country: &str,
    query: &str,
) -> Result<Vec<CityEntry>, OpsError> {
    let country = country.trim().to_ascii_uppercase();
    let query = query.trim();
    let known = COUNTRIES.iter().any(|(code, _)| *code == country);
    if !known || query.is_empty() || query.chars().count() > MAX_QUERY {
        return Ok(Vec::new());
    }
    Ok(s.platform.cities(Some(account), &country, query)?)
}
