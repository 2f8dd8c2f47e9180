//! Owns the reading of JSON objects sent to adcab (a request body, a form read as one): malformed
//! JSON, a non-object body, wrongly typed, unknown and misplaced fields are each a
//! `ParseError` with `param` naming the exact path (`cpm`, `campaigns[2].channels[0]`).

use super::{id, ParseError};
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use rust_decimal::Decimal;

use super::money::{parse_amount, Money, MONEY_SCALE};

/// Parses the body as a JSON object; an empty body is an empty object.
pub fn object(body: &[u8]) -> Result<Map<String, Value>, ParseError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ParseError::new("body", "The body must be a JSON object.")),
        Err(e) => Err(ParseError::new(
            "body",
            format!(
                "The body is not valid JSON (line {}, column {}).",
                e.line(),
                e.column()
            ),
        )),
    }
}

/// A JSON object's entries in the order sent, repeated names included, each value read as
/// `V`: cheaper than a [`Map`] where a body holds many small objects. Anything but an object
/// is refused.
pub struct Entries<V>(pub Vec<(String, V)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Entries<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Collect<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for Collect<V> {
            type Value = Entries<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries<V>, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(Collect(PhantomData))
    }
}

/// Typed access to one JSON object's fields, remembering which were read so that the rest
/// can be refused as unknown.
pub struct Fields<'a> {
    map: &'a Map<String, Value>,
    prefix: String,
    read: Vec<&'a str>,
}

impl<'a> Fields<'a> {
    pub fn new(map: &'a Map<String, Value>, prefix: impl Into<String>) -> Fields<'a> {
        Fields {
            map,
            prefix: prefix.into(),
            read: Vec::new(),
        }
    }

    /// The path of a field in the request.
    pub fn path(&self, name: &str) -> String {
        if self.prefix.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.prefix)
        }
    }

    fn bad(&self, name: &str, message: impl Into<String>) -> ParseError {
        ParseError::new(self.path(name), message)
    }

    /// The raw value, `null` included; marks the field as read.
    pub fn raw(&mut self, name: &str) -> Option<&'a Value> {
        let (key, value) = self.map.get_key_value(name)?;
        self.read.push(key.as_str());
        Some(value)
    }

    /// A present, non-null value.
    fn value(&mut self, name: &str) -> Option<&'a Value> {
        self.raw(name).filter(|v| !v.is_null())
    }

    pub fn has(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }

    pub fn string(&mut self, name: &str) -> Result<Option<String>, ParseError> {
        match self.value(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.bad(name, format!("{name} must be a string."))),
        }
    }

    pub fn required_string(&mut self, name: &str) -> Result<String, ParseError> {
        self.string(name)?
            .ok_or_else(|| self.bad(name, format!("{name} is required.")))
    }

    pub fn bool(&mut self, name: &str) -> Result<Option<bool>, ParseError> {
        match self.value(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(self.bad(name, format!("{name} must be true or false."))),
        }
    }

    pub fn int(&mut self, name: &str, min: i64, max: i64) -> Result<Option<i64>, ParseError> {
        match self.value(name) {
            None => Ok(None),
            Some(v) => v
                .as_i64()
                .filter(|n| (min..=max).contains(n))
                .map(Some)
                .ok_or_else(|| {
                    self.bad(
                        name,
                        format!("{name} must be an integer from {min} to {max}."),
                    )
                }),
        }
    }

    /// An amount as a JSON number or a decimal string, non-negative, at most `scale` decimals,
    /// read exactly (a JSON number by its own digits, never through a float) in the one
    /// grammar of [`crate::domain::money::parse_amount`].
    pub fn money(&mut self, name: &str, scale: u32) -> Result<Option<Money>, ParseError> {
        let Some(text) = self.amount_text(name)? else {
            return Ok(None);
        };
        Money::parse(&text, scale)
            .map(Some)
            .map_err(|e| self.bad(name, format!("{name} {e}.")))
    }

    /// An amount as [`Fields::money`] reads it, greater than zero.
    pub fn positive_money(&mut self, name: &str, scale: u32) -> Result<Option<Money>, ParseError> {
        match self.money(name, scale)? {
            Some(m) if m.micros() == 0 => {
                Err(self.bad(name, format!("{name} must be greater than 0.")))
            }
            other => Ok(other),
        }
    }

    /// A signed decimal (a rule's threshold, a percentage) in the same grammar as money, with
    /// at most six decimals.
    pub fn signed_decimal(&mut self, name: &str) -> Result<Option<Decimal>, ParseError> {
        let Some(text) = self.amount_text(name)? else {
            return Ok(None);
        };
        parse_amount(&text, MONEY_SCALE, true)
            .map(|m| Some(Decimal::new(m, MONEY_SCALE).normalize()))
            .map_err(|e| self.bad(name, format!("{name} {e}.")))
    }

    /// An amount's text: a JSON number by its own digits (never through a float), or a string.
    fn amount_text(&mut self, name: &str) -> Result<Option<String>, ParseError> {
        match self.value(name) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.bad(name, format!("{name} must be a number."))),
        }
    }

    /// An array of 1..=max strings; an element's error names its position.
    pub fn strings(&mut self, name: &str, max: usize) -> Result<Option<Vec<String>>, ParseError> {
        let Some(value) = self.value(name) else {
            return Ok(None);
        };
        let list = value
            .as_array()
            .ok_or_else(|| self.bad(name, format!("{name} must be an array of strings.")))?;
        if list.len() > max {
            return Err(self.bad(name, format!("{name} takes at most {max} entries.")));
        }
        list.iter()
            .enumerate()
            .map(|(i, v)| match v.as_str().map(str::trim) {
                Some(s) if !s.is_empty() => Ok(s.to_string()),
                _ => Err(self.bad(
                    &format!("{name}[{i}]"),
                    "Each entry must be a non-empty string.",
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// An array of at most `max` integers; the length is checked before any entry is read.
    /// An id ([`id`]): a positive 63-bit integer, or the error saying it is not one or too
    /// large.
    pub fn id(&mut self, name: &str) -> Result<Option<i64>, ParseError> {
        match self.value(name) {
            None => Ok(None),
            Some(v) => id::from_json(name, v)
                .map(Some)
                .map_err(|e| self.bad(name, e.message)),
        }
    }

    /// A list of at most `max` ids ([`Fields::id`]), each wrong one named by its index.
    pub fn ids(&mut self, name: &str, max: usize) -> Result<Option<Vec<i64>>, ParseError> {
        let Some(value) = self.value(name) else {
            return Ok(None);
        };
        let list = value
            .as_array()
            .ok_or_else(|| self.bad(name, format!("{name} must be an array of ids.")))?;
        if list.len() > max {
            return Err(self.bad(name, format!("{name} takes at most {max} entries.")));
        }
        list.iter()
            .enumerate()
            .map(|(i, v)| {
                let entry = format!("{name}[{i}]");
                id::from_json(&entry, v).map_err(|e| self.bad(&entry, e.message))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    pub fn ints(&mut self, name: &str, max: usize) -> Result<Option<Vec<i64>>, ParseError> {
        let Some(value) = self.value(name) else {
            return Ok(None);
        };
        let list = value
            .as_array()
            .ok_or_else(|| self.bad(name, format!("{name} must be an array of integers.")))?;
        if list.len() > max {
            return Err(self.bad(name, format!("{name} takes at most {max} entries.")));
        }
        list.iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_i64().ok_or_else(|| {
                    self.bad(&format!("{name}[{i}]"), "Each entry must be an integer.")
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// Refuses the first field that was not read.
    pub fn deny_unknown(&self) -> Result<(), ParseError> {
        match self.map.keys().find(|k| !self.read.contains(&k.as_str())) {
            Some(k) => Err(self.bad(k, format!("Unknown field {k}."))),
            None => Ok(()),
        }
    }
}

/// `account_id` (or `accountId`) from a body.
/// The name the cabinet's id comes under: `account_id`, or else its alias `accountId`.
pub fn account_field(fields: &Fields) -> &'static str {
    if fields.has("account_id") {
        "account_id"
    } else {
        "accountId"
    }
}

pub fn account_id(fields: &mut Fields) -> Result<Option<i64>, ParseError> {
    let name = account_field(fields);
    fields
        .raw(name)
        .filter(|v| !v.is_null())
        .map(|v| id::from_json("account_id", v))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn malformed_and_non_object_bodies_are_refused() {
        assert_eq!(object(b"{\"a\":").unwrap_err().param, "body");
        assert_eq!(object(b"[1]").unwrap_err().param, "body");
        assert!(object(b"  ").unwrap().is_empty());
    }

    #[test]
    fn errors_carry_the_full_path() {
        let m = map(json!({ "channels": ["@a", 5], "cpm": "x", "extra": 1 }));
        let mut f = Fields::new(&m, "campaigns[2]");
        let e = f.strings("channels", 100).unwrap_err();
        assert_eq!(e.param, "campaigns[2].channels[1]");
        assert_eq!(f.money("cpm", 2).unwrap_err().param, "campaigns[2].cpm");
        assert_eq!(f.deny_unknown().unwrap_err().param, "campaigns[2].extra");
    }

    #[test]
    fn money_accepts_numbers_and_strings_exactly() {
        let m = map(json!({ "a": 0.1, "b": "2.50", "c": 1.234, "d": -1 }));
        let mut f = Fields::new(&m, "");
        assert_eq!(f.money("a", 2).unwrap().unwrap().micros(), 100_000);
        assert_eq!(f.money("b", 2).unwrap().unwrap().micros(), 2_500_000);
        assert!(f.money("c", 2).is_err());
        assert!(f.money("d", 2).is_err());
        let parsed = object(br#"{"n": 123456789.123456, "e": 1e2, "s": " 5"}"#).unwrap();
        let mut f = Fields::new(&parsed, "");
        assert_eq!(
            f.money("n", 6).unwrap().unwrap().micros(),
            123_456_789_123_456,
            "a JSON number keeps every digit"
        );
        assert_eq!(f.money("e", 2).unwrap_err().param, "e");
        assert_eq!(f.money("s", 2).unwrap_err().param, "s");
    }
}
