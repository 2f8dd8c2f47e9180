//! Owns the types a typed body's fields are read as, each refusing a wrong value with the
//! spec's sentence about the field (`cpm must be a number.`, `ad_ids[3] must be a positive
//! integer.`): a string, a flag, an integer in a range, an amount's exact text, an id, lists of
//! ids, strings and integers, a word from a closed list, a value `null` clears, any value kept
//! for a later read, and a field that belongs at the top level only. A required field sent as
//! `null` is missing, as when left out. They are read by [`super::reader`] only: the fields that
//! tell left out from `null` ask it through its named protocols.

use std::fmt;
use std::marker::PhantomData;

use rust_decimal::Decimal;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde_json::Value;

use super::reader::{EXACT, LENIENT, NAME, PATCH, PRESENT, RAW};
use crate::domain::id;
use crate::domain::money::{parse_amount, Money, MONEY_SCALE};
use crate::domain::{ParseError, Why};

/// The refusal of a required field sent as `null`.
fn required<E: de::Error>() -> E {
    E::custom(format_args!("{NAME} is required."))
}

/// A visitor that expects a value of one kind and otherwise says `sentence` about the field.
macro_rules! expecting {
    ($($arg:tt)*) => {
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, $($arg)*)
        }
    };
}

/// A string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text(pub String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Text;
            expecting!("{NAME} must be a string.");
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Text, E> {
                Ok(Text(s.to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Text, E> {
                Err(required())
            }
        }
        d.deserialize_str(V)
    }
}

/// A string that is not blank; kept as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NonBlank(pub String);

impl<'de> Deserialize<'de> for NonBlank {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<NonBlank, D::Error> {
        let Text(text) = Text::deserialize(d)?;
        if text.trim().is_empty() {
            return Err(de::Error::custom(format_args!("{NAME} must not be empty.")));
        }
        Ok(NonBlank(text))
    }
}

/// A string, where `null` is also taken (the field then holds a [`Patch`]): its refusal says
/// so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextOrNull(pub String);

impl<'de> Deserialize<'de> for TextOrNull {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TextOrNull, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = TextOrNull;
            expecting!("{NAME} must be a string or null.");
            fn visit_str<E: de::Error>(self, s: &str) -> Result<TextOrNull, E> {
                Ok(TextOrNull(s.to_string()))
            }
        }
        d.deserialize_str(V)
    }
}

/// A string of `MIN` to `MAX` characters once trimmed; kept trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trimmed<const MIN: usize, const MAX: usize>(pub String);

impl<'de, const MIN: usize, const MAX: usize> Deserialize<'de> for Trimmed<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let Text(text) = Text::deserialize(d)?;
        let trimmed = text.trim();
        if !(MIN..=MAX).contains(&trimmed.chars().count()) {
            return Err(de::Error::custom(format_args!(
                "{NAME} is {MIN} to {MAX} characters."
            )));
        }
        Ok(Trimmed(trimmed.to_string()))
    }
}

/// `true` or `false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag(pub bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Flag, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Flag;
            expecting!("{NAME} must be true or false.");
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Flag, E> {
                Ok(Flag(b))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Flag, E> {
                Err(required())
            }
        }
        d.deserialize_bool(V)
    }
}

/// A whole number from `MIN` to `MAX` (a JSON integer; never a float or a string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Int<const MIN: i64, const MAX: i64>(pub i64);

impl<'de, const MIN: i64, const MAX: i64> Deserialize<'de> for Int<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const MIN: i64, const MAX: i64>;
        impl<const MIN: i64, const MAX: i64> Visitor<'_> for V<MIN, MAX> {
            type Value = Int<MIN, MAX>;
            expecting!("{NAME} must be an integer from {MIN} to {MAX}.");
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Self::Value, E> {
                if (MIN..=MAX).contains(&n) {
                    Ok(Int(n))
                } else {
                    Err(de::Error::invalid_value(de::Unexpected::Signed(n), &self))
                }
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
                match i64::try_from(n) {
                    Ok(n) => self.visit_i64(n),
                    Err(_) => Err(de::Error::invalid_value(de::Unexpected::Unsigned(n), &self)),
                }
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Err(required())
            }
        }
        d.deserialize_i64(V::<MIN, MAX>)
    }
}

/// An amount as sent, a JSON number by its own digits (never through a float) or a string:
/// read as money once the currency's scale is known ([`Amount::money`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Amount(String);

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Amount, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Amount;
            expecting!("{NAME} must be a number.");
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Amount, D::Error> {
                String::deserialize(d).map(Amount)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Amount, E> {
                Ok(Amount(s.to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Amount, E> {
                Err(required())
            }
        }
        d.deserialize_newtype_struct(EXACT, V)
    }
}

impl Amount {
    /// Money of at most `scale` decimals, not negative, in the one grammar of
    /// [`crate::domain::money::parse_amount`]; a refusal names `param` and says it of `name`.
    pub fn money(&self, param: &str, name: &str, scale: u32) -> Result<Money, ParseError> {
        Money::parse(&self.0, scale)
            .map_err(|e| ParseError::new(param, format!("{name} {e}.")).because(Why::from(&e)))
    }

    /// Money as [`Amount::money`] reads it, greater than zero.
    pub fn positive(&self, param: &str, name: &str, scale: u32) -> Result<Money, ParseError> {
        match self.money(param, name, scale)? {
            m if m.micros() == 0 => Err(ParseError::new(
                param,
                format!("{name} must be greater than 0."),
            )
            .because(Why::NotPositive)),
            m => Ok(m),
        }
    }

    /// A signed decimal (a rule's threshold, a percentage) in the same grammar, with at most
    /// six decimals.
    pub fn signed(&self, param: &str, name: &str) -> Result<Decimal, ParseError> {
        parse_amount(&self.0, MONEY_SCALE, true)
            .map(|m| Decimal::new(m, MONEY_SCALE).normalize())
            .map_err(|e| ParseError::new(param, format!("{name} {e}.")).because(Why::from(&e)))
    }
}

/// An id ([`id`]): a positive 63-bit JSON integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Id(pub i64);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Id, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Id;
            expecting!("{NAME} must be a positive integer.");
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Id, D::Error> {
                let digits = String::deserialize(d)?;
                id::parse(NAME, &digits)
                    .map(Id)
                    .map_err(|e| de::Error::custom(e.message))
            }
        }
        d.deserialize_newtype_struct(EXACT, V)
    }
}

/// A list of at most `MAX` ids; the length is checked before any entry is read, and a wrong
/// entry is named by its index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ids<const MAX: usize>(pub Vec<i64>);

impl<'de, const MAX: usize> Deserialize<'de> for Ids<MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const MAX: usize>;
        impl<'de, const MAX: usize> Visitor<'de> for V<MAX> {
            type Value = Ids<MAX>;
            expecting!("{NAME} must be an array of ids.");
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ids<MAX>, A::Error> {
                if seq.size_hint().is_some_and(|n| n > MAX) {
                    return Err(de::Error::custom(format_args!(
                        "{NAME} takes at most {MAX} entries."
                    )));
                }
                let mut ids = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(Id(id)) = seq.next_element()? {
                    ids.push(id);
                }
                Ok(Ids(ids))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Ids<MAX>, E> {
                Err(required())
            }
        }
        d.deserialize_seq(V::<MAX>)
    }
}

/// An entry of a list read as [`Each`].
pub trait Entry {
    /// What follows the field's name when the value is not a list (`must be an array of
    /// strings.`).
    const LIST: &'static str;
    type Value;
    fn value(self) -> Self::Value;
}

/// A list whose entries are each read as `T` (a wrong one named by its index). Its length is
/// the reader's to check against the field's own limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Each<T>(pub Vec<T>);

impl<T: Entry> Each<T> {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn values(self) -> Vec<T::Value> {
        self.0.into_iter().map(Entry::value).collect()
    }
}

impl<'de, T: Deserialize<'de> + Entry> Deserialize<'de> for Each<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Each<T>, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Entry> Visitor<'de> for V<T> {
            type Value = Each<T>;
            expecting!("{NAME} {}", T::LIST);
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Each<T>, A::Error> {
                collect(seq).map(Each)
            }
        }
        d.deserialize_seq(V(PhantomData))
    }
}

/// A list of non-empty strings, each trimmed.
pub type Strings = Each<NonEmpty>;

/// A list entry that is a non-empty string; kept trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NonEmpty(pub String);

impl Entry for NonEmpty {
    const LIST: &'static str = "must be an array of strings.";
    type Value = String;
    fn value(self) -> String {
        self.0
    }
}

impl<'de> Deserialize<'de> for NonEmpty {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<NonEmpty, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = NonEmpty;
            expecting!("Each entry must be a non-empty string.");
            fn visit_str<E: de::Error>(self, s: &str) -> Result<NonEmpty, E> {
                match s.trim() {
                    "" => Err(de::Error::invalid_value(de::Unexpected::Str(s), &self)),
                    t => Ok(NonEmpty(t.to_string())),
                }
            }
        }
        d.deserialize_str(V)
    }
}

/// A list of integers.
pub type Ints = Each<Whole>;

/// A list entry that is an integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Whole(pub i64);

impl Entry for Whole {
    const LIST: &'static str = "must be an array of integers.";
    type Value = i64;
    fn value(self) -> i64 {
        self.0
    }
}

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Whole, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Whole;
            expecting!("Each entry must be an integer.");
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Whole, E> {
                Ok(Whole(n))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Whole, E> {
                i64::try_from(n)
                    .map(Whole)
                    .map_err(|_| de::Error::invalid_value(de::Unexpected::Unsigned(n), &self))
            }
        }
        d.deserialize_i64(V)
    }
}

fn collect<'de, T: Deserialize<'de>, A: SeqAccess<'de>>(mut seq: A) -> Result<Vec<T>, A::Error> {
    let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
    while let Some(item) = seq.next_element()? {
        out.push(item);
    }
    Ok(out)
}

/// A list of 1 to `MAX` entries of `T`; the length is checked before any entry is read.
/// `refusal` follows the field's name when the value is not such a list.
pub struct List<T, const MAX: usize>(pub Vec<T>);

impl<'de, T: Deserialize<'de> + Named, const MAX: usize> Deserialize<'de> for List<T, MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T, const MAX: usize>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Named, const MAX: usize> Visitor<'de> for V<T, MAX> {
            type Value = List<T, MAX>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "{NAME} is an array of 1 to {MAX} {}.", T::PLURAL)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<List<T, MAX>, A::Error> {
                if !seq.size_hint().is_some_and(|n| (1..=MAX).contains(&n)) {
                    return Err(de::Error::invalid_length(
                        seq.size_hint().unwrap_or(0),
                        &self,
                    ));
                }
                collect(seq).map(List)
            }
        }
        d.deserialize_seq(V::<T, MAX>(PhantomData))
    }
}

/// What a list of these is called in its refusal (`campaigns`, `conditions`).
pub trait Named {
    const PLURAL: &'static str;
}

/// An entry of a list of `T`s kept as sent, to be read as `T` on its own once the fields
/// before the list are (so each entry's refusals come in their turn).
pub struct Later<T>(pub Value, pub PhantomData<T>);

impl<'de, T> Deserialize<'de> for Later<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Later<T>, D::Error> {
        Raw::deserialize(d).map(|Raw(v)| Later(v, PhantomData))
    }
}

impl<T: Named> Named for Later<T> {
    const PLURAL: &'static str = T::PLURAL;
}

/// A word from a closed list (a target type, an action): `refusal` follows the field's name
/// when the word is not one of them.
pub trait Choice: Sized {
    fn parse(word: &str) -> Option<Self>;
    /// What follows the field's name in the refusal (`is cpa or pace.`).
    fn refusal() -> String;
}

/// A word of `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word<T>(pub T);

impl<'de, T: Choice> Deserialize<'de> for Word<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Word<T>, D::Error> {
        let Text(word) = Text::deserialize(d)?;
        T::parse(&word)
            .map(Word)
            .ok_or_else(|| de::Error::custom(format_args!("{NAME} {}", T::refusal())))
    }
}

/// A field where `null` means something (remove it): left out, `null`, or a value. Held with
/// `#[serde(default)]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Patch<T> {
    #[default]
    Keep,
    Clear,
    Set(T),
}

impl<T> Patch<T> {
    /// What the field asks: `None` to keep, `Some(None)` to remove, `Some(Some(v))` to set.
    pub fn into_option(self) -> Option<Option<T>> {
        match self {
            Patch::Keep => None,
            Patch::Clear => Some(None),
            Patch::Set(v) => Some(Some(v)),
        }
    }

    /// The value sent, if any (`null` is none).
    pub fn value(&self) -> Option<&T> {
        match self {
            Patch::Set(v) => Some(v),
            Patch::Keep | Patch::Clear => None,
        }
    }

    /// Whether the field was sent, `null` included.
    pub fn is_sent(&self) -> bool {
        !matches!(self, Patch::Keep)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Patch<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Patch<T>, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Patch<T>;
            expecting!("{NAME} must be sent with a value, or null");
            fn visit_unit<E: de::Error>(self) -> Result<Patch<T>, E> {
                Ok(Patch::Keep)
            }
            fn visit_none<E: de::Error>(self) -> Result<Patch<T>, E> {
                Ok(Patch::Clear)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Patch<T>, D::Error> {
                T::deserialize(d).map(Patch::Set)
            }
        }
        d.deserialize_newtype_struct(PATCH, V(PhantomData))
    }
}

/// Any JSON value, kept as sent for a reading that depends on another field.
#[derive(Debug, Clone, PartialEq)]
pub struct Raw(pub Value);

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Raw, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Raw;
            expecting!("any JSON value");
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
                Value::deserialize(d).map(Raw)
            }
        }
        d.deserialize_newtype_struct(RAW, V)
    }
}

/// `T` read from an object's fields that it declares, the others left for another read.
pub struct Lenient<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Lenient<T>, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Lenient<T>;
            expecting!("an object");
            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Lenient<T>, D::Error> {
                T::deserialize(d).map(Lenient)
            }
        }
        d.deserialize_newtype_struct(LENIENT, V(PhantomData))
    }
}

/// A field sent inside a list that belongs at the top level only: refused whatever its value
/// (`null` included).
#[derive(Debug, Clone, Copy, Default)]
pub struct TopLevelOnly;

impl<'de> Deserialize<'de> for TopLevelOnly {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TopLevelOnly, D::Error> {
        match present::<D, IgnoredAny>(d)? {
            None => Ok(TopLevelOnly),
            Some(_) => Err(de::Error::custom(format_args!("{NAME} is top level only."))),
        }
    }
}

/// For `#[serde(default, deserialize_with = "present")]`: a field that, once sent, must read
/// as `T` (`null` included: it is refused as `T` refuses it), and is `None` only when left out.
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    struct V<T>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = Option<T>;
        expecting!("{NAME} must be sent with a value");
        fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
            T::deserialize(d).map(Some)
        }
    }
    d.deserialize_newtype_struct(PRESENT, V(PhantomData))
}
