//! Owns the languages people read adcab in (English and Russian): the one catalogue every
//! string of the panel, its messages and its alerts comes from (Fluent files under
//! `locales/{en,ru}/`, one per section, built into the binary), choosing a person's language
//! (their setting, else the browser's `Accept-Language`), and writing numbers and dates the
//! way each language does.

mod catalogue;
mod numbers;

use std::borrow::Cow;

use fluent_bundle::{FluentArgs, FluentValue};

pub use numbers::grouped;

/// A language of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    En,
    Ru,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Ru];

    /// The language's code, as stored and as written in `<html lang>`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ru => "ru",
        }
    }

    /// The language its code (`en`, `ru`, any case, any region: `ru-RU`) names.
    pub fn parse(code: &str) -> Option<Lang> {
        let primary = code.trim().split(['-', '_']).next()?;
        Lang::ALL
            .into_iter()
            .find(|l| l.code().eq_ignore_ascii_case(primary))
    }

    /// The first language of an `Accept-Language` header, by weight, that the catalogue has;
    /// English when none is.
    pub fn from_accept_language(header: &str) -> Lang {
        let mut best: Option<(u16, usize, Lang)> = None;
        for (i, item) in header.split(',').take(32).enumerate() {
            let mut parts = item.split(';');
            let Some(lang) = parts.next().and_then(Lang::parse) else {
                continue;
            };
            let weight = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .map_or(1000, |q| {
                    q.trim()
                        .parse::<f32>()
                        .map_or(0, |q| (q.clamp(0.0, 1.0) * 1000.0) as u16)
                });
            if weight == 0 {
                continue;
            }
            if best.is_none_or(|(w, j, _)| weight > w || (weight == w && i < j)) {
                best = Some((weight, i, lang));
            }
        }
        best.map_or(Lang::En, |(_, _, lang)| lang)
    }

    /// The message `key`, with no arguments.
    pub fn t(self, key: &str) -> String {
        self.ta(key, &[])
    }

    /// The message `key` with its arguments (`{ $name }` in the catalogue).
    pub fn ta(self, key: &str, args: &[(&str, Arg)]) -> String {
        let mut fluent = FluentArgs::with_capacity(args.len());
        for (name, value) in args {
            fluent.set(*name, value.to_fluent());
        }
        catalogue::format(self, key, (!args.is_empty()).then_some(&fluent))
    }
}

/// One sentence in every language of the catalogue, for what is stored once and read by people
/// of either (an alert).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Texts([String; 2]);

impl Texts {
    /// The sentence `write` makes in each language.
    pub fn build(mut write: impl FnMut(Lang) -> String) -> Texts {
        Texts([write(Lang::En), write(Lang::Ru)])
    }

    /// The sentence in `lang`.
    pub fn get(&self, lang: Lang) -> &str {
        &self.0[lang as usize]
    }
}

/// A value given to a message: text, or a number (which picks the plural form).
#[derive(Debug, Clone)]
pub enum Arg<'a> {
    Text(Cow<'a, str>),
    Number(i64),
}

impl Arg<'_> {
    fn to_fluent(&self) -> FluentValue<'_> {
        match self {
            Arg::Text(s) => FluentValue::from(s.as_ref()),
            Arg::Number(n) => FluentValue::from(*n),
        }
    }
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(s: &'a str) -> Self {
        Arg::Text(Cow::Borrowed(s))
    }
}

impl From<String> for Arg<'_> {
    fn from(s: String) -> Self {
        Arg::Text(Cow::Owned(s))
    }
}

impl From<i64> for Arg<'_> {
    fn from(n: i64) -> Self {
        Arg::Number(n)
    }
}

impl From<usize> for Arg<'_> {
    fn from(n: usize) -> Self {
        Arg::Number(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_the_heaviest_known_language() {
        assert_eq!(
            Lang::from_accept_language("ru-RU,ru;q=0.9,en;q=0.8"),
            Lang::Ru
        );
        assert_eq!(
            Lang::from_accept_language("de-DE, en;q=0.5, ru;q=0.7"),
            Lang::Ru
        );
        assert_eq!(Lang::from_accept_language("en-GB,ru;q=0.3"), Lang::En);
        assert_eq!(Lang::from_accept_language("de, fr"), Lang::En);
        assert_eq!(Lang::from_accept_language("ru;q=0, en;q=0.1"), Lang::En);
        assert_eq!(Lang::from_accept_language(""), Lang::En);
    }

    #[test]
    fn codes_parse_back() {
        for lang in Lang::ALL {
            assert_eq!(Lang::parse(lang.code()), Some(lang));
        }
        assert_eq!(Lang::parse("RU_ru"), Some(Lang::Ru));
        assert_eq!(Lang::parse("de"), None);
    }

    #[test]
    fn plural_forms_follow_the_language() {
        let one = Lang::Ru.ta("common-campaigns", &[("count", 1i64.into())]);
        let few = Lang::Ru.ta("common-campaigns", &[("count", 3i64.into())]);
        let many = Lang::Ru.ta("common-campaigns", &[("count", 5i64.into())]);
        assert!(one.contains("кампания"), "{one}");
        assert!(few.contains("кампании"), "{few}");
        assert!(many.contains("кампаний"), "{many}");
        assert_eq!(
            Lang::En.ta("common-campaigns", &[("count", 1i64.into())]),
            "1 campaign"
        );
        assert_eq!(
            Lang::En.ta("common-campaigns", &[("count", 2i64.into())]),
            "2 campaigns"
        );
    }
}
