//! Owns how a converted figure names its rates on any page: "at 1 TON = 4.7 EUR, 27 Nov" for
//! each rate used (with the day it is of), and a note for each currency left unconverted.

use chrono::NaiveDate;

use super::super::Visit;
use crate::i18n::Lang;
use crate::ops::returns::Used;

/// A rate's day, short: `27 Nov`, `27.11`.
pub fn short_date(lang: Lang, d: NaiveDate) -> String {
    match lang {
        Lang::En => d.format("%-d %b").to_string(),
        Lang::Ru => d.format("%d.%m").to_string(),
    }
}

/// "at 1 TON = 4.7 EUR, 27 Nov".
pub fn rate_note(visit: &Visit, u: &Used) -> String {
    visit.ta(
        "home-rate",
        &[
            ("from", u.from.to_string().into()),
            ("to", u.to.to_string().into()),
            ("rate", visit.lang.decimal(u.rate.normalize()).into()),
            ("date", short_date(visit.lang, u.day).into()),
        ],
    )
}

/// Each rate used (once), then each currency without a rate (once).
pub fn notes<'u>(
    visit: &Visit,
    used: impl IntoIterator<Item = &'u Used>,
    missing: impl IntoIterator<Item = &'u String>,
) -> Vec<String> {
    let mut seen: Vec<&Used> = Vec::new();
    for u in used {
        if !seen.contains(&u) {
            seen.push(u);
        }
    }
    let mut gone: Vec<&String> = Vec::new();
    for m in missing {
        if !gone.contains(&m) {
            gone.push(m);
        }
    }
    let mut all: Vec<String> = seen.into_iter().map(|u| rate_note(visit, u)).collect();
    all.extend(
        gone.into_iter()
            .map(|c| visit.ta("home-rate-missing", &[("currency", c.as_str().into())])),
    );
    all
}
