//! Owns looking things up on the platform for a person filling in a campaign: a public
//! channel or bot by its name, with its title and picture where the platform gives them, and
//! the cities of a country by a part of their name.
//! Read only; the face decides who may look up with which cabinet. Blocking.

use super::OpsError;
use crate::domain::campaign::TargetType;
use crate::domain::countries::COUNTRIES;
use crate::domain::targeting::{CityEntry, PeerEntry};
use crate::services::Services;

/// Longest name a look-up sends to the platform.
const MAX_QUERY: usize = 64;

/// The channel (`target` channels, users) or bot (`target` bots) `query` names, looked up with
/// cabinet `account`'s credentials; `None` for an empty or overlong query or a name the
/// platform does not know.
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
    Ok(s.platform.look_up_peer(account, target, query)?)
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
