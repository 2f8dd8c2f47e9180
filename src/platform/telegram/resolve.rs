//! Owns turning a draft's targeting into what the platform knows: the channels or bots to
//! reach (`getTargetChannel`, `getTargetBot`; the ones it does not know are skipped), the
//! channels to leave out (resolved `for_excluding`), and the cities as location ids of the
//! ad's one country (`getTargetLocationsById` for ids, `getTargetLocationsList` for names).

use serde_json::{json, Value};

use super::errors::rejected;
use super::map::Resolved;
use super::wire::Call;
use super::{map, Account, Telegram};
use crate::domain::campaign::TargetType;
use crate::domain::targeting::{target_username, CityEntry, PeerEntry};
use crate::platform::PlatformError;

impl Telegram {
    /// The draft's targets as the platform knows them.
    pub(super) fn resolve(
        &self,
        account: &Account,
        target_type: TargetType,
        targeting: &Value,
    ) -> Result<Resolved, PlatformError> {
        let (field, method, param) = match target_type {
            TargetType::Channels => ("channels", "getTargetChannel", "channel_id"),
            TargetType::Users => ("audience_channels", "getTargetChannel", "channel_id"),
            TargetType::Bots => ("bots", "getTargetBot", "bot_id"),
            TargetType::Search => return Ok(Resolved::default()),
        };
        let peers = self.peers(account, &targeting[field], method, param, false)?;
        let excluded = match target_type {
            TargetType::Channels | TargetType::Users => self.peers(
                account,
                &targeting["exclude_channels"],
                "getTargetChannel",
                "channel_id",
                true,
            )?,
            TargetType::Bots | TargetType::Search => Vec::new(),
        };
        let locations = match targeting["countries"][0].as_str() {
            Some(country) => self.cities(account, country, &targeting["cities"])?,
            None => Vec::new(),
        };
        Ok(Resolved {
            peers,
            excluded,
            locations,
        })
    }

    /// The platform's cities of `country` whose name holds `query` (its first page).
    pub(super) fn look_up_cities(
        &self,
        account: &Account,
        country: &str,
        query: &str,
    ) -> Result<Vec<CityEntry>, PlatformError> {
        let params = json!({ "country_code": country, "query": query, "limit": 100 });
        let page = self.call(account, &Call::read("getTargetLocationsList", map(params)))?;
        Ok(page["locations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| {
                Some(CityEntry {
                    id: l["location_id"].as_i64()?,
                    name: l["name"].as_str()?.to_string(),
                    country: l["country_code"].as_str().unwrap_or(country).to_string(),
                })
            })
            .collect())
    }

    /// The channel or bot `query` names, as `getTargetChannel` / `getTargetBot` describe it.
    pub(super) fn look_up_peer_of(
        &self,
        account: &Account,
        target: TargetType,
        query: &str,
    ) -> Result<Option<PeerEntry>, PlatformError> {
        let (method, param) = match target {
            TargetType::Bots => ("getTargetBot", "bot_id"),
            TargetType::Channels | TargetType::Users | TargetType::Search => {
                ("getTargetChannel", "channel_id")
            }
        };
        let name = target_username(query);
        if name.is_empty() {
            return Ok(None);
        }
        let username = format!("@{name}");
        let params = json!({ param: username });
        match self.call(account, &Call::read(method, map(params))) {
            Ok(found) => {
                let text = |field: &str| found[field].as_str().map(str::to_string);
                Ok(Some(PeerEntry {
                    username: text("username").map_or(username, |u| format!("@{u}")),
                    title: text("title"),
                    photo_url: text("photo_url"),
                }))
            }
            Err(PlatformError::Rejected { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The usernames of `list` the platform resolves for this account.
    fn peers(
        &self,
        account: &Account,
        list: &Value,
        method: &'static str,
        param: &str,
        for_excluding: bool,
    ) -> Result<Vec<String>, PlatformError> {
        let mut found = Vec::new();
        for name in list.as_array().into_iter().flatten() {
            let Some(name) = name.as_str() else { continue };
            let username = format!("@{}", target_username(name));
            let mut params = json!({ param: username });
            if for_excluding {
                params["for_excluding"] = json!(true);
            }
            match self.call(account, &Call::read(method, map(params))) {
                Ok(_) => found.push(username),
                Err(PlatformError::Rejected { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(found)
    }

    /// The location ids of `cities` (ids or names), each a place of `country`; a city the
    /// platform does not know there is refused by name.
    fn cities(
        &self,
        account: &Account,
        country: &str,
        cities: &Value,
    ) -> Result<Vec<i64>, PlatformError> {
        let mut ids = Vec::new();
        for city in cities.as_array().into_iter().flatten() {
            let found = match city {
                Value::Number(n) => {
                    let params = json!({ "location_ids": [n] });
                    let got =
                        self.call(account, &Call::read("getTargetLocationsById", map(params)));
                    match got {
                        Ok(list) => list.get(0).cloned(),
                        Err(PlatformError::Rejected { .. }) => None,
                        Err(e) => return Err(e),
                    }
                }
                Value::String(name) => {
                    let params = json!({ "country_code": country, "query": name, "limit": 100 });
                    let got =
                        self.call(account, &Call::read("getTargetLocationsList", map(params)));
                    match got {
                        Ok(page) => page["locations"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .find(|l| {
                                l["name"]
                                    .as_str()
                                    .is_some_and(|n| n.eq_ignore_ascii_case(name))
                            })
                            .cloned(),
                        Err(PlatformError::Rejected { .. }) => None,
                        Err(e) => return Err(e),
                    }
                }
                _ => None,
            };
            let in_country = |l: &Value| {
                l["country_code"]
                    .as_str()
                    .is_none_or(|c| c.eq_ignore_ascii_case(country))
            };
            match found.filter(in_country).and_then(|l| l["location_id"].as_i64()) {
                Some(id) => ids.push(id),
                None => {
                    return Err(rejected(
                        format!(
                            "{city} is not a city of {country}; look it up with GET /v1/targeting/cities?country={country}."
                        ),
                        "cities",
                    ))
                }
            }
        }
        Ok(ids)
    }
}
