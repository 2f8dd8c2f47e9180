//! Owns a campaign's targeting: the fields each target type takes and needs (the spec's
//! shape), the typed `Targeting` a request's fields are read into, and its rules: what each
//! entry may be, checked against the platform's lists and limits ([`Capabilities`]).
//! Countries, being ISO codes rather than a platform's, live in `countries`.

use serde::Serialize;
use serde_json::Value;

use super::campaign::TargetType;
use super::capabilities::Capabilities;
use super::countries::COUNTRIES;
use super::{words, ParseError, Why};

/// Every targeting field, whatever the target type.
pub const FIELDS: [&str; 14] = [
    "channels",
    "bots",
    "search_keywords",
    "languages",
    "topics",
    "exclude_topics",
    "add_similar_channels",
    "countries",
    "audience_channels",
    "cities",
    "device",
    "intersect_topics",
    "exclude_channels",
    "political_channels",
];

/// The devices a `users` ad may be narrowed to.
pub const DEVICES: [&str; 4] = ["ios", "android", "mobile", "desktop"];

/// What a `users` ad does with political channels' audiences: leaves them out, or reaches
/// only them.
pub const POLITICAL: [&str; 2] = ["exclude", "only"];

/// The targeting fields a target type takes.
pub fn fields_of(t: TargetType) -> &'static [&'static str] {
    match t {
        TargetType::Channels => &[
            "channels",
            "languages",
            "topics",
            "exclude_topics",
            "add_similar_channels",
            "exclude_channels",
        ],
        TargetType::Bots => &["bots"],
        TargetType::Search => &["search_keywords"],
        TargetType::Users => &[
            "countries",
            "languages",
            "topics",
            "exclude_topics",
            "audience_channels",
            "cities",
            "device",
            "intersect_topics",
            "exclude_channels",
            "political_channels",
        ],
    }
}

/// A campaign's targeting: the fields sent, each read; [`Targeting::check`] holds it to the
/// rules of its target type.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Targeting {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bots: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience_channels: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_keywords: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub countries: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub languages: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topics: Option<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exclude_topics: Option<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub add_similar_channels: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cities: Option<Vec<City>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intersect_topics: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exclude_channels: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub political_channels: Option<String>,
}

/// A public channel or bot a platform's look-up found: its `@username`, and its title and
/// picture where the platform gives them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeerEntry {
    pub username: String,
    pub title: Option<String>,
    pub photo_url: Option<String>,
}

/// A city a platform's look-up found (`GET /v1/targeting/cities`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CityEntry {
    pub id: i64,
    pub name: String,
    pub country: String,
}

/// A city as a `users` ad names it: the platform's id (from `GET /v1/targeting/cities`) or
/// its name, which the platform resolves in the ad's one country.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum City {
    Id(i64),
    Name(String),
}

impl Targeting {
    /// Checks every entry against the platform's rules and lists, then that `t` has what it
    /// needs: channels, bots and search their list, users at least one field. A refusal names
    /// the field or entry (`channels[2]`).
    pub fn check(&self, t: TargetType, caps: &Capabilities) -> Result<(), ParseError> {
        for (name, list) in [
            ("channels", &self.channels),
            ("bots", &self.bots),
            ("audience_channels", &self.audience_channels),
            ("exclude_channels", &self.exclude_channels),
        ] {
            if let Some(i) = list.iter().flatten().position(|n| !username_like(n)) {
                return Err(ParseError::new(
                    format!("{name}[{i}]"),
                    "Not a public @username or short link.",
                )
                .because(Why::Username));
            }
        }
        if let Some(i) = self
            .search_keywords
            .iter()
            .flatten()
            .position(|k| k.chars().count() > caps.keywords.max_chars)
        {
            return Err(ParseError::new(
                format!("search_keywords[{i}]"),
                format!(
                    "A keyword is at most {} characters.",
                    caps.keywords.max_chars
                ),
            )
            .because(Why::TooLong {
                max: caps.keywords.max_chars,
            }));
        }
        for (name, list, known) in [
            ("countries", &self.countries, COUNTRIES),
            ("languages", &self.languages, caps.languages),
        ] {
            if let Some(i) = list
                .iter()
                .flatten()
                .position(|c| !known.iter().any(|(code, _)| code == c))
            {
                return Err(ParseError::new(
                    format!("{name}[{i}]"),
                    format!("Unknown code; see GET /v1/targeting {name}."),
                )
                .because(Why::Unknown));
            }
        }
        for (name, list) in [
            ("topics", &self.topics),
            ("exclude_topics", &self.exclude_topics),
        ] {
            if let Some(i) = list
                .iter()
                .flatten()
                .position(|id| !caps.topics.iter().any(|(t, _)| t == id))
            {
                return Err(ParseError::new(
                    format!("{name}[{i}]"),
                    "Unknown topic id; see GET /v1/targeting topics.",
                )
                .because(Why::Unknown));
            }
        }
        self.check_users(caps)?;
        let needed = match t {
            TargetType::Channels => Some(("channels", self.channels.is_some())),
            TargetType::Bots => Some(("bots", self.bots.is_some())),
            TargetType::Search => Some(("search_keywords", self.search_keywords.is_some())),
            TargetType::Users => None,
        };
        if let Some((field, false)) = needed {
            return Err(ParseError::new(
                field,
                format!("{field} is required for target_type {}.", t.as_str()),
            )
            .because(Why::Required));
        }
        if t == TargetType::Users && *self == Targeting::default() {
            return Err(ParseError::new(
                "countries",
                "users ads need at least one of countries, languages, topics, exclude_topics, audience_channels.",
            ).because(Why::Required));
        }
        Ok(())
    }

    /// The rules of the fields only some platforms or only `users` ads have: cities (at most
    /// [`MAX_CITIES`](super::capabilities::MAX_CITIES), in the ad's one country), device, political channels, and similar
    /// channels where the platform has them.
    fn check_users(&self, caps: &Capabilities) -> Result<(), ParseError> {
        if self.add_similar_channels == Some(true) && !caps.similar_channels {
            return Err(ParseError::new(
                "add_similar_channels",
                "This platform cannot add similar channels; leave add_similar_channels out or list the channels.",
            ).because(Why::NotHere));
        }
        if let Some(device) = self.device.as_deref().filter(|d| !DEVICES.contains(d)) {
            return Err(ParseError::new(
                "device",
                format!("device must be ios, android, mobile or desktop, not {device}."),
            )
            .because(Why::NotOneOf {
                allowed: words(&DEVICES),
            }));
        }
        if self
            .political_channels
            .as_deref()
            .is_some_and(|p| !POLITICAL.contains(&p))
        {
            return Err(ParseError::new(
                "political_channels",
                "political_channels must be exclude or only.",
            )
            .because(Why::NotOneOf {
                allowed: words(&POLITICAL),
            }));
        }
        let Some(cities) = &self.cities else {
            return Ok(());
        };
        if cities.len() > super::capabilities::MAX_CITIES {
            return Err(ParseError::new(
                "cities",
                format!(
                    "cities takes at most {} entries.",
                    super::capabilities::MAX_CITIES
                ),
            )
            .because(Why::TooMany {
                max: super::capabilities::MAX_CITIES,
            }));
        }
        if let Some(i) = cities
            .iter()
            .position(|c| matches!(c, City::Name(n) if n.trim().is_empty()))
        {
            return Err(ParseError::new(
                format!("cities[{i}]"),
                "Each city is an id or a non-empty name.",
            )
            .because(Why::Required));
        }
        match self.countries.as_deref() {
            Some([_]) => Ok(()),
            _ => Err(ParseError::new(
                "countries",
                "With cities, countries names exactly their one country.",
            )
            .because(Why::OneCountry)),
        }
    }

    /// The targeting as an ad carries it: the fields sent, and only those.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("plain fields always serialize")
    }
}

/// The bare username a channel or bot target names: `@name`, `name`, or a `t.me/name` short
/// link (its path and query left out). Case is kept.
pub fn target_username(target: &str) -> &str {
    let trimmed = target.trim();
    let name = trimmed
        .strip_prefix('@')
        .or_else(|| trimmed.rsplit_once("t.me/").map(|(_, n)| n))
        .unwrap_or(trimmed);
    name.split(['/', '?']).next().unwrap_or("")
}

/// A search keyword a platform can use: not blank, not punctuation only.
pub fn keyword_usable(keyword: &str) -> bool {
    keyword.chars().any(char::is_alphanumeric)
}

/// A public `@username`, or a `t.me/` short link to one.
fn username_like(target: &str) -> bool {
    let name = target.trim_start_matches('@');
    let name = name.rsplit_once("t.me/").map(|(_, n)| n).unwrap_or(name);
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_names_its_bare_username() {
        assert_eq!(target_username("@Crypto_News"), "Crypto_News");
        assert_eq!(target_username(" tech_daily "), "tech_daily");
        assert_eq!(target_username("https://t.me/dailyfeed"), "dailyfeed");
        assert_eq!(target_username("t.me/dailyfeed/12?single"), "dailyfeed");
    }

    #[test]
    fn keywords_are_usable_unless_blank_or_punctuation() {
        assert!(keyword_usable("running shoes"));
        assert!(!keyword_usable("   "));
        assert!(!keyword_usable("?!..."));
    }
    use crate::domain::capabilities::tests::SMALL;
    use std::collections::HashSet;

    #[test]
    fn country_codes_are_unique() {
        let codes: HashSet<_> = COUNTRIES.iter().map(|(c, _)| c).collect();
        assert_eq!(codes.len(), COUNTRIES.len());
    }

    fn names(list: &[&str]) -> Option<Vec<String>> {
        Some(list.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn each_target_type_needs_its_list_and_users_need_something() {
        let none = Targeting::default();
        for (t, field) in [
            (TargetType::Channels, "channels"),
            (TargetType::Bots, "bots"),
            (TargetType::Search, "search_keywords"),
            (TargetType::Users, "countries"),
        ] {
            assert_eq!(none.check(t, &SMALL).unwrap_err().param, field);
        }
        let users = Targeting {
            topics: Some(vec![1]),
            ..Targeting::default()
        };
        assert!(users.check(TargetType::Users, &SMALL).is_ok());
    }

    #[test]
    fn a_bad_entry_is_named_by_its_index() {
        let bad = |t: Targeting| t.check(TargetType::Users, &SMALL).unwrap_err().param;
        assert_eq!(
            bad(Targeting {
                audience_channels: names(&["@good_one", "t.me/fine", "not a name"]),
                ..Targeting::default()
            }),
            "audience_channels[2]"
        );
        assert_eq!(
            bad(Targeting {
                countries: names(&["US", "XX"]),
                ..Targeting::default()
            }),
            "countries[1]"
        );
        assert_eq!(
            bad(Targeting {
                languages: names(&["en", "pt"]),
                ..Targeting::default()
            }),
            "languages[1]",
            "the platform's keys, not plain ISO codes"
        );
        assert_eq!(
            bad(Targeting {
                exclude_topics: Some(vec![1, 3]),
                ..Targeting::default()
            }),
            "exclude_topics[1]"
        );
        let long = "k".repeat(SMALL.keywords.max_chars + 1);
        let search = Targeting {
            search_keywords: names(&["fine", &long]),
            ..Targeting::default()
        };
        assert_eq!(
            search.check(TargetType::Search, &SMALL).unwrap_err().param,
            "search_keywords[1]"
        );
    }

    #[test]
    fn users_fields_keep_to_their_rules() {
        let berlin = Targeting {
            countries: names(&["DE"]),
            cities: Some(vec![City::Name("Berlin".into()), City::Id(302)]),
            device: Some("ios".into()),
            political_channels: Some("only".into()),
            ..Targeting::default()
        };
        assert!(berlin.check(TargetType::Users, &SMALL).is_ok());
        let bad = |t: Targeting| t.check(TargetType::Users, &SMALL).unwrap_err().param;
        let two = Targeting {
            countries: names(&["DE", "FR"]),
            ..berlin.clone()
        };
        assert_eq!(bad(two), "countries", "cities name the only country");
        let many = Targeting {
            cities: Some((0..21).map(City::Id).collect()),
            ..berlin.clone()
        };
        assert_eq!(bad(many), "cities");
        let tablet = Targeting {
            device: Some("tablet".into()),
            ..berlin.clone()
        };
        assert_eq!(bad(tablet), "device");
        let some = Targeting {
            political_channels: Some("some".into()),
            ..berlin.clone()
        };
        assert_eq!(bad(some), "political_channels");
        assert_eq!(
            berlin.to_json(),
            serde_json::json!({"countries": ["DE"], "cities": ["Berlin", 302], "device": "ios",
                               "political_channels": "only"})
        );
    }

    #[test]
    fn similar_channels_are_refused_where_the_platform_has_none() {
        let similar = Targeting {
            channels: names(&["@tech_daily"]),
            add_similar_channels: Some(true),
            ..Targeting::default()
        };
        assert!(similar.check(TargetType::Channels, &SMALL).is_ok());
        let without = Capabilities {
            similar_channels: false,
            ..SMALL
        };
        let err = similar.check(TargetType::Channels, &without).unwrap_err();
        assert_eq!(err.param, "add_similar_channels");
    }

    #[test]
    fn an_ad_carries_only_the_fields_sent() {
        let t = Targeting {
            bots: names(&["@shop_bot"]),
            ..Targeting::default()
        };
        assert_eq!(t.to_json(), serde_json::json!({ "bots": ["@shop_bot"] }));
    }
}
