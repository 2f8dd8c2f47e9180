//! Owns the deserializer under every typed body: it walks a JSON value already parsed, hands a
//! struct every field it declares in the order it declares them, those left out included (so
//! the first wrong or missing field named is the first the struct reads, whatever order the
//! client sent), then refuses a field the struct does not declare ("Unknown field x."); gives
//! an amount's or an id's exact digits to the types that ask for them; and names the field a
//! sentence is about. It never goes through a float for a number it hands on as text.

use std::fmt;

use serde::de::value::StringDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess};
use serde::de::{Unexpected, Visitor};
use serde_json::{Map, Value};

use crate::domain::Why;

/// Where the name of the field a sentence is about goes (`"{NAME} must be a string."`); the
/// reader puts the field's name there, with the index of an entry (`ad_ids[3]`).
pub const NAME: &str = "\u{0}";
/// Asked by a type that wants a JSON number's exact digits: the reader answers a number with a
/// newtype around its text, and anything else as itself.
pub const EXACT: &str = "$adcab::exact";
/// Asked by a type that keeps any JSON value as it is: the reader answers with the value.
pub const RAW: &str = "$adcab::raw";
/// Asked by a type that reads only the fields it declares, leaving the others to another read.
pub const LENIENT: &str = "$adcab::lenient";
/// Asked by a field that tells left out from sent: the reader answers `visit_none` when it was
/// left out, else `visit_some` with the value (`null` included).
pub const PRESENT: &str = "$adcab::present";
/// Asked by a field where `null` means something: the reader answers `visit_unit` when it was
/// left out, `visit_none` for `null`, else `visit_some` with the value.
pub const PATCH: &str = "$adcab::patch";

/// Why a value does not read.
#[derive(Debug)]
pub struct ReadError {
    pub(super) sentence: String,
    /// The sentence waits for the name of the value it is about; the indices passed so far on
    /// the way out (`[3]`) follow that name.
    pub(super) unnamed: Option<String>,
    /// The reason typed, for a face that words it itself.
    pub(super) why: Why,
}

impl ReadError {
    fn plain(sentence: String) -> ReadError {
        ReadError {
            why: why_of(&sentence),
            sentence,
            unnamed: None,
        }
    }

    /// On the way out of entry `index` of a list.
    fn at_index(mut self, index: usize) -> ReadError {
        if let Some(suffix) = &mut self.unnamed {
            *suffix = format!("[{index}]{suffix}");
        }
        self
    }

    /// On the way out of field `key` of an object: a sentence waiting for a name gets it.
    fn at_field(mut self, key: &str) -> ReadError {
        if let Some(suffix) = self.unnamed.take() {
            self.sentence = self.sentence.replacen(NAME, &format!("{key}{suffix}"), 1);
        }
        self
    }
}

impl de::Error for ReadError {
    /// A sentence that begins with [`NAME`] waits for the field's name.
    fn custom<T: fmt::Display>(msg: T) -> Self {
        let sentence = msg.to_string();
        let unnamed = sentence.starts_with(NAME).then(String::new);
        let why = why_of(&sentence);
        ReadError {
            sentence,
            unnamed,
            why,
        }
    }

    /// A value of the wrong kind: the sentence is what the type expects (its `expecting`).
    fn invalid_type(_: Unexpected, expected: &dyn de::Expected) -> Self {
        Self::custom(expected)
    }

    fn invalid_value(_: Unexpected, expected: &dyn de::Expected) -> Self {
        Self::custom(expected)
    }

    fn invalid_length(_: usize, expected: &dyn de::Expected) -> Self {
        Self::custom(expected)
    }
}

/// The reason a wire type's sentence gives, typed: the types reach the reader through serde's
/// one channel for an error, `custom`, which carries text only, so the templates of
/// [`super::wire`] (and a link's refusal, which quotes the link) are read back here, next to
/// the reader that names them. A sentence not listed is [`Why::Other`].
fn why_of(sentence: &str) -> Why {
    let rest = sentence.strip_prefix(NAME).unwrap_or(sentence).trim_start();
    let numbers = |text: &str| -> Vec<i64> {
        text.split(|c: char| !c.is_ascii_digit() && c != '-')
            .filter_map(|n| n.parse().ok())
            .collect()
    };
    let size = |n: i64| usize::try_from(n).unwrap_or(0);
    let words = |list: &str| -> Vec<String> {
        list.trim_end_matches('.')
            .split(", ")
            .flat_map(|w| w.split(" or "))
            .map(str::to_string)
            .collect()
    };
    if matches!(
        rest,
        "is required." | "must not be empty." | "must be sent with a value"
    ) || rest.starts_with("Each entry must be a non-empty")
    {
        return Why::Required;
    }
    if rest == "must be a number." {
        return Why::NotANumber;
    }
    if rest.starts_with("Unknown field") || rest == "is top level only." {
        return Why::NotHere;
    }
    if rest.starts_with('\'') {
        return Why::Link;
    }
    if let Some(range) = rest
        .strip_prefix("is ")
        .filter(|r| r.ends_with(" characters."))
    {
        if let [min, max] = numbers(range)[..] {
            return Why::Length {
                min: size(min),
                max: size(max),
            };
        }
    }
    if let Some(range) = rest.strip_prefix("must be an integer from ") {
        if let [min, max] = numbers(range)[..] {
            return Why::Range { min, max };
        }
    }
    if let Some(most) = rest.strip_prefix("takes at most ") {
        if let [max] = numbers(most)[..] {
            return Why::TooMany { max: size(max) };
        }
    }
    let kinds = [
        "must be a string",
        "must be an array",
        "must be a positive integer",
        "must be true or false",
        "must be an object",
        "must be sent with a value, or null",
        "Each entry must be",
        "is too large",
    ];
    if kinds.iter().any(|k| rest.starts_with(k)) {
        return Why::Kind;
    }
    if let Some(list) = rest.strip_prefix("must be one of ").or_else(|| {
        rest.strip_prefix("must be ")
            .or_else(|| rest.strip_prefix("is "))
            .filter(|list| list.contains(" or "))
    }) {
        return Why::NotOneOf {
            allowed: words(list),
        };
    }
    Why::Other
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.sentence)
    }
}

impl std::error::Error for ReadError {}

/// A deserializer over one JSON value, or over a declared field left out (`None`).
pub struct Reader<'v> {
    value: Option<&'v Value>,
    /// The next struct takes only the fields it declares.
    lenient: bool,
}

impl<'v> Reader<'v> {
    pub fn new(value: &'v Value) -> Reader<'v> {
        Reader {
            value: Some(value),
            lenient: false,
        }
    }
}

fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(_) => Unexpected::Other("number"),
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// The refusal of a field that must be sent and was not.
fn missing() -> ReadError {
    de::Error::custom(format_args!("{NAME} is required."))
}

impl<'de, 'v> Deserializer<'de> for Reader<'v> {
    type Error = ReadError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.value.ok_or_else(missing)? {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => visitor.visit_i64(i),
                (None, Some(u)) => visitor.visit_u64(u),
                (None, None) => visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => visitor.visit_str(s),
            Value::Array(items) => visitor.visit_seq(Items {
                items: items.iter().enumerate(),
            }),
            Value::Object(map) => visitor.visit_map(Fields::all(map)),
        }
    }

    /// Left out and `null` are both none.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.value {
            None | Some(Value::Null) => visitor.visit_none(),
            Some(_) => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        match (name, self.value) {
            (PRESENT, None) => visitor.visit_none(),
            (PRESENT, Some(value)) => visitor.visit_some(Reader::new(value)),
            (PATCH, None) => visitor.visit_unit(),
            (PATCH, Some(Value::Null)) => visitor.visit_none(),
            (PATCH, Some(value)) => visitor.visit_some(Reader::new(value)),
            (_, None) => Err(missing()),
            (EXACT, Some(Value::Number(n))) => {
                let text: StringDeserializer<ReadError> = n.to_string().into_deserializer();
                visitor.visit_newtype_struct(text)
            }
            (EXACT, Some(_)) => self.deserialize_any(visitor),
            (RAW, Some(value)) => visitor.visit_newtype_struct(Whole(value)),
            (LENIENT, Some(value)) => visitor.visit_newtype_struct(Reader {
                value: Some(value),
                lenient: true,
            }),
            (_, Some(_)) => visitor.visit_newtype_struct(self),
        }
    }

    /// An object, its fields in `declared` order; anything else is refused with what the
    /// struct expects (never read as a list of its fields).
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        declared: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        match self.value.ok_or_else(missing)? {
            Value::Object(map) => visitor.visit_map(Fields::declared(map, declared, self.lenient)),
            other => Err(de::Error::invalid_type(unexpected(other), &visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map enum identifier
    }
}

/// A value handed on whole (for [`RAW`]).
struct Whole<'v>(&'v Value);

impl<'de, 'v> Deserializer<'de> for Whole<'v> {
    type Error = ReadError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.0
            .clone()
            .deserialize_any(visitor)
            .map_err(|e| ReadError::plain(e.to_string()))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

/// The value of a field the struct does not declare: refused, whatever is asked of it.
struct Unknown<'v>(&'v str);

impl<'de, 'v> Deserializer<'de> for Unknown<'v> {
    type Error = ReadError;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, ReadError> {
        Err(ReadError::plain(format!("Unknown field {}.", self.0)))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

/// A list's entries, each error naming its index.
struct Items<'v> {
    items: std::iter::Enumerate<std::slice::Iter<'v, Value>>,
}

impl<'de, 'v> SeqAccess<'de> for Items<'v> {
    type Error = ReadError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, ReadError> {
        match self.items.next() {
            None => Ok(None),
            Some((index, value)) => seed
                .deserialize(Reader::new(value))
                .map(Some)
                .map_err(|e| e.at_index(index)),
        }
    }

    /// The exact number of entries left, so a list can refuse its length before any entry.
    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// An object's fields in the order they are read: for a struct, each one it declares (sent or
/// left out), then the others (each refused unless the read is lenient).
struct Fields<'v> {
    order: Vec<(&'v str, Option<&'v Value>)>,
    next: usize,
    /// Fields from this index on are not declared.
    undeclared: usize,
    lenient: bool,
}

impl<'v> Fields<'v> {
    fn all(map: &'v Map<String, Value>) -> Fields<'v> {
        Fields {
            order: map.iter().map(|(k, v)| (k.as_str(), Some(v))).collect(),
            next: 0,
            undeclared: map.len(),
            lenient: true,
        }
    }

    fn declared(
        map: &'v Map<String, Value>,
        declared: &'static [&'static str],
        lenient: bool,
    ) -> Fields<'v> {
        let mut order: Vec<(&str, Option<&Value>)> = declared
            .iter()
            .map(|name| (*name, map.get(*name)))
            .collect();
        let undeclared = order.len();
        let others = map.iter().filter(|(k, _)| !declared.contains(&k.as_str()));
        order.extend(others.map(|(k, v)| (k.as_str(), Some(v))));
        Fields {
            order,
            next: 0,
            undeclared,
            lenient,
        }
    }
}

impl<'de, 'v> MapAccess<'de> for Fields<'v> {
    type Error = ReadError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ReadError> {
        match self.order.get(self.next) {
            None => Ok(None),
            Some((key, _)) => {
                let key: StringDeserializer<ReadError> = key.to_string().into_deserializer();
                seed.deserialize(key).map(Some)
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, ReadError> {
        let index = self.next;
        self.next += 1;
        let (key, value) = self.order[index];
        if index >= self.undeclared && !self.lenient {
            // Refused from inside the value, so that the path names the field.
            return seed.deserialize(Unknown(key));
        }
        let reader = Reader {
            value,
            lenient: false,
        };
        seed.deserialize(reader).map_err(|e| e.at_field(key))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.order.len() - self.next)
    }
}
