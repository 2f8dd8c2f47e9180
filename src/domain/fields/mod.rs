//! Owns the reading of JSON objects sent to adcab (a request body, a form read as one) into
//! typed structs: malformed JSON and a non-object body are refused here; a wrongly typed,
//! missing, unknown or misplaced field is a `ParseError` with `param` naming its exact path
//! (`cpm`, `campaigns[2].channels[0]`), found by `serde_path_to_error` over the [`reader`],
//! with the sentence of the field's [`wire`] type. The cabinet a write names (`account_id`, or
//! its alias `accountId`) is read apart, before the rest ([`Body`]).

pub mod reader;
pub mod wire;

use std::fmt::{self, Write as _};
use std::marker::PhantomData;

use serde::de::{Deserialize, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};
use serde_path_to_error::Segment;

use super::{id, ParseError, Why};
use reader::{Reader, NAME};
use wire::Lenient;

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

/// A write's body: a JSON object, the cabinet it names read apart from the other fields.
#[derive(Debug, Clone, Default)]
pub struct Body(Map<String, Value>);

/// The names the cabinet's id comes under: `account_id`, or else its alias.
const ACCOUNT: [&str; 2] = ["account_id", "accountId"];

impl Body {
    /// Parses a request's body ([`object`]).
    pub fn parse(bytes: &[u8]) -> Result<Body, ParseError> {
        object(bytes).map(Body)
    }

    /// A form's fields, already put as a JSON object.
    pub fn of(fields: Map<String, Value>) -> Body {
        Body(fields)
    }

    /// The cabinet's id under `account_id`, or else `accountId` (`null` is none); either way
    /// a wrong one is refused as `account_id`.
    pub fn account_id(&self) -> Result<Option<i64>, ParseError> {
        let sent = self.0.get(ACCOUNT[0]).or_else(|| self.0.get(ACCOUNT[1]));
        sent.filter(|v| !v.is_null())
            .map(|v| id::from_json(ACCOUNT[0], v))
            .transpose()
    }

    /// The other fields, to read as the endpoint's struct: without the cabinet's id (an alias
    /// sent besides `account_id` stays, to be refused as unknown).
    pub fn fields(&self) -> Value {
        let taken = if self.0.contains_key(ACCOUNT[0]) {
            ACCOUNT[0]
        } else {
            ACCOUNT[1]
        };
        Value::Object(
            self.0
                .iter()
                .filter(|(k, _)| k.as_str() != taken)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }

    /// The body as a change's history details: as sent, without the cabinet's id.
    pub fn details(&self) -> Value {
        let mut details = self.0.clone();
        for name in ACCOUNT {
            details.remove(name);
        }
        Value::Object(details)
    }

    /// Whether `name` was sent (`null` included).
    pub fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }
}

/// Reads `value` (a body's fields) as `T`.
pub fn read<T: DeserializeOwned>(value: &Value) -> Result<T, ParseError> {
    read_at(value, "")
}

/// Reads `value`, which sits at `at` in the request (`action`, `campaigns[2]`; empty at the
/// top), as `T`: a refusal's `param` is the path from the top, and a sentence about the value
/// itself names it by the last part of `at`.
pub fn read_at<T: DeserializeOwned>(value: &Value, at: &str) -> Result<T, ParseError> {
    serde_path_to_error::deserialize(Reader::new(value)).map_err(|e| {
        let mut param = at.to_string();
        for segment in e.path() {
            match segment {
                Segment::Seq { index } => {
                    let _ = write!(param, "[{index}]");
                }
                Segment::Map { key } | Segment::Enum { variant: key } => {
                    join(&mut param, key);
                }
                Segment::Unknown => {}
            }
        }
        let e = e.into_inner();
        let sentence = match e.unnamed {
            Some(suffix) => {
                let name = at.rsplit('.').next().unwrap_or(at);
                e.sentence.replacen(NAME, &format!("{name}{suffix}"), 1)
            }
            None => e.sentence,
        };
        ParseError::new(param, sentence).because(e.why)
    })
}

/// Reads `value` (at `at`) as `T` without refusing the fields `T` does not declare: the first
/// of those is handed back, for the command to refuse once its own rules have run (so that, as
/// ever, an unknown field is the last thing a body is refused for).
pub fn read_open<T: DeserializeOwned>(
    value: &Value,
    at: &str,
) -> Result<(T, Undeclared), ParseError> {
    let Lenient(read) = read_at::<Lenient<T>>(value, at)?;
    let declared = declared::<T>();
    let first = value
        .as_object()
        .and_then(|map| map.keys().find(|k| !declared.contains(&k.as_str())))
        .map(|k| ParseError::new(path(at, k), format!("Unknown field {k}.")).because(Why::NotHere));
    Ok((read, Undeclared(first)))
}

/// The first field a body sent that its struct does not declare, if any.
#[derive(Debug)]
#[must_use = "an unknown field is refused only through `refuse`"]
pub struct Undeclared(Option<ParseError>);

impl Undeclared {
    /// Refuses the body for that field.
    pub fn refuse(self) -> Result<(), ParseError> {
        self.0.map_or(Ok(()), Err)
    }
}

/// The fields a struct declares, as serde names them.
fn declared<T: DeserializeOwned>() -> &'static [&'static str] {
    struct Names<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for Names<'_> {
        type Error = reader::ReadError;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(serde::de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(serde::de::Error::custom("names read"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(Names(&mut names));
    names
}

fn join(path: &mut String, key: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
}

/// The path of field `name` inside the value at `at` (`campaigns[2].cpm`, or `cpm` at the top).
pub fn path(at: &str, name: &str) -> String {
    let mut path = at.to_string();
    join(&mut path, name);
    path
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

#[cfg(test)]
mod tests {
    use super::wire::{
        Amount, Each, Flag, Id, Ids, Int, Lenient, NonEmpty, Patch, Strings, Text, TopLevelOnly,
    };
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(expecting = "Each campaign is an object.")]
    struct Campaign {
        #[serde(default)]
        #[allow(dead_code)]
        group_id: TopLevelOnly,
        title: Text,
        cpm: Option<Amount>,
        channels: Option<Strings>,
        views: Option<Int<1, 4>>,
        #[serde(default)]
        button: Patch<Text>,
    }

    #[derive(Debug, Deserialize)]
    struct Many {
        campaigns: Vec<Campaign>,
        ids: Option<Ids<3>>,
        active: Option<Flag>,
    }

    fn err<T: DeserializeOwned + fmt::Debug>(value: Value) -> (String, String) {
        let e = read::<T>(&value).unwrap_err();
        (e.param, e.message)
    }

    #[test]
    fn malformed_and_non_object_bodies_are_refused() {
        assert_eq!(object(b"{\"a\":").unwrap_err().param, "body");
        assert_eq!(object(b"[1]").unwrap_err().param, "body");
        assert!(object(b"  ").unwrap().is_empty());
    }

    #[test]
    fn errors_carry_the_full_path_and_name_the_field() {
        let bad = json!({ "campaigns": [{ "title": "a" }, { "title": "b" }, { "title": "c", "channels": ["@a", 5] }] });
        assert_eq!(
            err::<Many>(bad),
            (
                "campaigns[2].channels[1]".into(),
                "Each entry must be a non-empty string.".into()
            )
        );
        let extra = json!({ "campaigns": [{ "title": "a", "extra": 1 }] });
        assert_eq!(
            err::<Many>(extra),
            ("campaigns[0].extra".into(), "Unknown field extra.".into())
        );
        let typed = json!({ "campaigns": [{ "title": 7 }] });
        assert_eq!(
            err::<Many>(typed),
            (
                "campaigns[0].title".into(),
                "title must be a string.".into()
            )
        );
        let missing = json!({ "campaigns": [{ "cpm": 1 }] });
        assert_eq!(
            err::<Many>(missing),
            ("campaigns[0].title".into(), "title is required.".into())
        );
        let null = json!({ "campaigns": [{ "title": null }] });
        assert_eq!(err::<Many>(null).1, "title is required.");
        let misplaced = json!({ "campaigns": [{ "title": "a", "group_id": 1 }] });
        assert_eq!(
            err::<Many>(misplaced),
            (
                "campaigns[0].group_id".into(),
                "group_id is top level only.".into()
            )
        );
        let not_object = json!({ "campaigns": [5] });
        assert_eq!(
            err::<Many>(not_object),
            ("campaigns[0]".into(), "Each campaign is an object.".into())
        );
        let id = json!({ "campaigns": [], "ids": [1, 0] });
        assert_eq!(
            err::<Many>(id),
            ("ids[1]".into(), "ids[1] must be a positive integer.".into())
        );
        let big = serde_json::from_str(r#"{"campaigns": [], "ids": [18446744073709551616]}"#);
        assert!(err::<Many>(big.unwrap()).1.contains("too large"));
        let long = json!({ "campaigns": [], "ids": [1, 2, 3, "x"] });
        assert_eq!(
            err::<Many>(long),
            ("ids".into(), "ids takes at most 3 entries.".into())
        );
        let range = json!({ "campaigns": [{ "title": "a", "views": 5 }] });
        assert_eq!(
            err::<Many>(range).1,
            "views must be an integer from 1 to 4."
        );
        let flag = json!({ "campaigns": [], "active": "yes" });
        assert_eq!(err::<Many>(flag).1, "active must be true or false.");
    }

    #[test]
    fn fields_are_read_in_the_declared_order_and_unknown_ones_last() {
        let both = json!({ "campaigns": [{ "views": 9, "title": 1 }] });
        assert_eq!(err::<Many>(both).0, "campaigns[0].title");
        let unknown_first = json!({ "a_field": 1, "campaigns": [{ "title": 1 }] });
        assert_eq!(err::<Many>(unknown_first).0, "campaigns[0].title");
    }

    #[test]
    fn a_missing_field_is_named_where_declared_and_an_unknown_one_last() {
        let body = json!({ "a_field": 1, "campaigns": [{ "cpm": "x", "z": 1 }] });
        assert_eq!(
            err::<Many>(body),
            ("campaigns[0].title".into(), "title is required.".into())
        );
        #[derive(Debug, Deserialize)]
        struct Open {
            title: Text,
        }
        let (open, undeclared) =
            read_open::<Open>(&json!({ "title": "t", "b": 1, "a": 2 }), "x").unwrap();
        assert_eq!(open.title.0, "t");
        let e = undeclared.refuse().unwrap_err();
        assert_eq!(
            (e.param.as_str(), e.message.as_str()),
            ("x.a", "Unknown field a.")
        );
        let missing = read_open::<Open>(&json!({ "b": 1 }), "").unwrap_err();
        assert_eq!(missing.param, "title");
    }

    #[test]
    fn a_valid_body_reads_every_field() {
        let body = json!({
            "campaigns": [{ "title": "a", "cpm": "1.5", "channels": [" @x "], "views": 2, "button": "Go" }],
            "ids": [3], "active": true
        });
        let m: Many = read(&body).unwrap();
        let c = &m.campaigns[0];
        assert_eq!(c.title, Text("a".into()));
        assert_eq!(
            c.cpm
                .as_ref()
                .unwrap()
                .money("cpm", "cpm", 2)
                .unwrap()
                .micros(),
            1_500_000
        );
        assert_eq!(c.channels, Some(Each(vec![NonEmpty("@x".into())])));
        assert_eq!(c.views, Some(Int(2)));
        assert_eq!(c.button, Patch::Set(Text("Go".into())));
        assert_eq!((m.ids, m.active), (Some(Ids(vec![3])), Some(Flag(true))));
    }

    #[test]
    fn null_clears_a_patch_and_a_lenient_read_leaves_other_fields() {
        let m: Many =
            read(&json!({ "campaigns": [{ "title": "a", "button": null }, { "title": "b" }] }))
                .unwrap();
        assert_eq!(m.campaigns[0].button, Patch::Clear);
        assert_eq!(m.campaigns[1].button, Patch::Keep);
        #[derive(Deserialize)]
        struct Head {
            title: Text,
        }
        let Lenient(head) = read::<Lenient<Head>>(&json!({ "title": "t", "x": 1 })).unwrap();
        assert_eq!(head.title.0, "t");
        let at = read_at::<Id>(&json!("3"), "scope.group_id").unwrap_err();
        assert_eq!(
            (at.param.as_str(), at.message.as_str()),
            ("scope.group_id", "group_id must be a positive integer.")
        );
    }

    #[test]
    fn money_accepts_numbers_and_strings_exactly() {
        let amount = |v: Value| read::<Amount>(&v).unwrap();
        let money = |v: Value, scale| amount(v).money("m", "m", scale);
        assert_eq!(money(json!(0.1), 2).unwrap().micros(), 100_000);
        assert_eq!(money(json!("2.50"), 2).unwrap().micros(), 2_500_000);
        assert!(money(json!(1.234), 2).is_err());
        assert!(money(json!(-1), 2).is_err());
        let exact: Value = serde_json::from_str("123456789.123456").unwrap();
        assert_eq!(
            money(exact, 6).unwrap().micros(),
            123_456_789_123_456,
            "a JSON number keeps every digit"
        );
        let e: Value = serde_json::from_str("1e2").unwrap();
        assert_eq!(money(e, 2).unwrap_err().param, "m");
        assert_eq!(money(json!(" 5"), 2).unwrap_err().param, "m");
        assert_eq!(
            read_at::<Amount>(&json!(true), "cpm").unwrap_err().message,
            "cpm must be a number."
        );
    }

    #[test]
    fn account_id_is_read_apart_under_either_name() {
        let body = Body::of(
            json!({ "accountId": 7, "cpm": 1 })
                .as_object()
                .unwrap()
                .clone(),
        );
        assert_eq!(body.account_id(), Ok(Some(7)));
        assert_eq!(body.fields(), json!({ "cpm": 1 }));
        let both = Body::of(
            json!({ "account_id": 7, "accountId": 8 })
                .as_object()
                .unwrap()
                .clone(),
        );
        assert_eq!(both.fields(), json!({ "accountId": 8 }));
        assert_eq!(both.details(), json!({}));
        let wrong = Body::of(json!({ "accountId": "x" }).as_object().unwrap().clone());
        assert_eq!(wrong.account_id().unwrap_err().param, "account_id");
    }
}
