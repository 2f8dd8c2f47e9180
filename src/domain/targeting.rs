//! Owns a campaign's targeting: the fields each target type takes and needs (the spec's
//! shape), the typed `Targeting` a request's fields are read into, and its rules: what each
//! entry may be, checked against the platform's lists and limits ([`Capabilities`]).
//! Countries, being ISO codes rather than a platform's, live in `countries`.

use serde::Serialize;
use serde_json::Value;

use super::campaign::TargetType;
use super::capabilities::Capabilities;
use super::countries::COUNTRIES;
use super::ParseError;

/// Every targeting field, whatever the target type.
pub const FIELDS: [&str; 9] = [
    "channels",
    "bots",
    "search_keywords",
    "languages",
    "topics",
    "exclude_topics",
    "add_similar_channels",
    "countries",
    "audience_channels",
];

/// The targeting fields a target type takes.
pub fn fields_of(t: TargetType) -> &'static [&'static str] {
    match t {
        TargetType::Channels => &[
            "channels",
            "languages",
            "topics",
            "exclude_topics",
            "add_similar_channels",
        ],
        TargetType::Bots => &["bots"],
        TargetType::Search => &["search_keywords"],
        TargetType::Users => &[
            "countries",
            "languages",
            "topics",
            "exclude_topics",
            "audience_channels",
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
        ] {
            if let Some(i) = list.iter().flatten().position(|n| !username_like(n)) {
                return Err(ParseError::new(
                    format!("{name}[{i}]"),
                    "Not a public @username or short link.",
                ));
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
            ));
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
                ));
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
                ));
            }
        }
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
            ));
        }
        if t == TargetType::Users && *self == Targeting::default() {
            return Err(ParseError::new(
                "countries",
                "users ads need at least one of countries, languages, topics, exclude_topics, audience_channels.",
            ));
        }
        Ok(())
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
    fn an_ad_carries_only_the_fields_sent() {
        let t = Targeting {
            bots: names(&["@shop_bot"]),
            ..Targeting::default()
        };
        assert_eq!(t.to_json(), serde_json::json!({ "bots": ["@shop_bot"] }));
    }
}
