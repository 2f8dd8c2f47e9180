//! Owns reading a campaign's targeting fields as a create, copy or recreate sends them: each
//! field refused by name when its target type does not take it, lists within their limits,
//! switches and choices read by their shape, cities as ids or names, then the rules of
//! `domain::targeting` (the platform's lists and limits) with the exact `param`.

use serde_json::Value;

use crate::domain::campaign::TargetType;
use crate::domain::capabilities::Capabilities;
use crate::domain::fields::wire::{Each, Entry, Flag, NonEmpty, Patch, Raw, Text, Whole};
use crate::domain::fields::{self, path};
use crate::domain::targeting::{self, City, Targeting};
use crate::domain::{ParseError, Why};

/// A campaign's targeting fields as sent, in the order they are read, each read once its
/// target type says it may be sent.
pub(super) struct Targets {
    pub(super) strings: [(&'static str, Patch<Raw>); 7],
    pub(super) ints: [(&'static str, Patch<Raw>); 2],
    pub(super) flags: [(&'static str, Patch<Raw>); 2],
    pub(super) words: [(&'static str, Patch<Raw>); 2],
    pub(super) cities: Patch<Raw>,
}

impl Targets {
    /// The targeting fields of `t`: a field of another target type is refused by name (`null`
    /// included); each list is refused past its limit before any entry is read; every entry
    /// is checked.
    pub(super) fn read(
        self,
        at: &str,
        t: TargetType,
        caps: &Capabilities,
    ) -> Result<Value, ParseError> {
        let allowed = targeting::fields_of(t);
        if let Some(wrong) = targeting::FIELDS
            .iter()
            .find(|f| self.sent(f) && !allowed.contains(f))
        {
            return Err(ParseError::new(
                path(at, wrong),
                format!("{wrong} is not a field of target_type {}.", t.as_str()),
            )
            .because(Why::NotHere));
        }
        let [channels, bots, audience, keywords, countries, languages, exclude_channels] =
            self.strings;
        let [topics, exclude_topics] = self.ints;
        let [similar, intersect] = self.flags;
        let [device, political] = self.words;
        // Read in the order the fields are listed.
        let read = Targeting {
            channels: list::<NonEmpty>(channels, at, caps)?,
            bots: list::<NonEmpty>(bots, at, caps)?,
            audience_channels: list::<NonEmpty>(audience, at, caps)?,
            search_keywords: list::<NonEmpty>(keywords, at, caps)?,
            countries: list::<NonEmpty>(countries, at, caps)?,
            languages: list::<NonEmpty>(languages, at, caps)?,
            topics: list::<Whole>(topics, at, caps)?,
            exclude_topics: list::<Whole>(exclude_topics, at, caps)?,
            add_similar_channels: flag(similar, at)?,
            cities: cities(self.cities, at)?,
            device: word(device, at)?,
            intersect_topics: flag(intersect, at)?,
            exclude_channels: list::<NonEmpty>(exclude_channels, at, caps)?,
            political_channels: word(political, at)?,
        };
        read.check(t, caps).map_err(|e| ParseError {
            param: path(at, &e.param),
            ..e
        })?;
        Ok(read.to_json())
    }

    /// Whether field `name` was sent, `null` included.
    pub(super) fn sent(&self, name: &str) -> bool {
        let strings = self.strings.iter().map(|(n, l)| (*n, l.is_sent()));
        let ints = self.ints.iter().map(|(n, l)| (*n, l.is_sent()));
        let flags = self.flags.iter().map(|(n, f)| (*n, f.is_sent()));
        let words = self.words.iter().map(|(n, w)| (*n, w.is_sent()));
        let cities = [("cities", self.cities.is_sent())];
        strings
            .chain(ints)
            .chain(flags)
            .chain(words)
            .chain(cities)
            .any(|(n, sent)| n == name && sent)
    }
}

/// A targeting switch `name` (at `at`) as sent.
fn flag((name, sent): (&str, Patch<Raw>), at: &str) -> Result<Option<bool>, ParseError> {
    match sent {
        Patch::Set(Raw(v)) => Ok(Some(fields::read_at::<Flag>(&v, &path(at, name))?.0)),
        Patch::Keep | Patch::Clear => Ok(None),
    }
}

/// A targeting choice `name` (at `at`) as sent: a string, its value checked by the rules.
fn word((name, sent): (&str, Patch<Raw>), at: &str) -> Result<Option<String>, ParseError> {
    match sent {
        Patch::Set(Raw(v)) => Ok(Some(fields::read_at::<Text>(&v, &path(at, name))?.0)),
        Patch::Keep | Patch::Clear => Ok(None),
    }
}

/// `cities` (at `at`) as sent: within its limit, each entry an id or a non-empty name.
fn cities(sent: Patch<Raw>, at: &str) -> Result<Option<Vec<City>>, ParseError> {
    let Patch::Set(Raw(value)) = sent else {
        return Ok(None);
    };
    let Some(list) = value.as_array() else {
        return Err(ParseError::new(
            path(at, "cities"),
            "cities must be an array of city ids or names.",
        )
        .because(Why::Kind));
    };
    if list.len() > crate::domain::capabilities::MAX_CITIES {
        return Err(ParseError::new(
            path(at, "cities"),
            format!(
                "cities takes at most {} entries.",
                crate::domain::capabilities::MAX_CITIES
            ),
        )
        .because(Why::TooMany {
            max: crate::domain::capabilities::MAX_CITIES,
        }));
    }
    list.iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Number(n) if n.as_i64().is_some_and(|id| id > 0) => {
                Ok(City::Id(n.as_i64().unwrap_or_default()))
            }
            Value::String(name) if !name.trim().is_empty() => {
                Ok(City::Name(name.trim().to_string()))
            }
            _ => Err(ParseError::new(
                path(at, &format!("cities[{i}]")),
                "Each city is an id from GET /v1/targeting/cities or a non-empty name.",
            )
            .because(Why::Required)),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// A targeting list `name` (at `at`) as sent: within its limit, then each entry read.
fn list<T>(
    (name, sent): (&str, Patch<Raw>),
    at: &str,
    caps: &Capabilities,
) -> Result<Option<Vec<T::Value>>, ParseError>
where
    T: serde::de::DeserializeOwned + Entry,
{
    let Patch::Set(Raw(value)) = sent else {
        return Ok(None);
    };
    let param = path(at, name);
    if value
        .as_array()
        .is_some_and(|l| l.len() > caps.max_entries(name))
    {
        return Err(ParseError::new(
            param,
            format!("{name} takes at most {} entries.", caps.max_entries(name)),
        )
        .because(Why::TooMany {
            max: caps.max_entries(name),
        }));
    }
    Ok(Some(fields::read_at::<Each<T>>(&value, &param)?.values()))
}
