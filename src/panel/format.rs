//! Owns how the panel writes numbers, money and times in the page's language ([`Fmt`]):
//! counters with thousands grouped, money with its currency, ratios to two places, and times
//! in the person's time zone (or as UTC that the page's script shows in the browser's).

use maud::{html, Markup};
use rust_decimal::{Decimal, RoundingStrategy};

use crate::domain::money::{CabinetType, Money};
use crate::i18n::Lang;

/// How one page writes figures: its language and the person's time zone.
#[derive(Debug, Clone, Copy)]
pub struct Fmt {
    pub lang: Lang,
    pub zone: Option<chrono_tz::Tz>,
}

impl Fmt {
    /// A whole number, its thousands grouped as the language does.
    pub fn count(self, n: i64) -> String {
        self.lang.count(n)
    }

    /// An amount of a cabinet's currency at the currency's scale, with its code:
    /// `1,234.50 EUR`, `1 234,50 EUR`.
    pub fn money(self, kind: CabinetType, amount: Money) -> String {
        let mut d = amount
            .to_decimal()
            .round_dp_with_strategy(kind.scale(), RoundingStrategy::MidpointAwayFromZero);
        d.rescale(kind.scale());
        format!("{}\u{a0}{}", self.lang.decimal(d), kind.currency())
    }

    /// A ratio to two places, or a dash when it has no denominator.
    pub fn ratio(self, value: Decimal, defined: bool) -> String {
        if defined {
            let mut d = value.round_dp(2);
            d.rescale(2);
            self.lang.decimal(d)
        } else {
            "–".into()
        }
    }

    /// A percentage to two places, or a dash when it has no denominator.
    pub fn percent(self, value: Decimal, defined: bool) -> String {
        if defined {
            format!("{}%", self.ratio(value, true))
        } else {
            self.ratio(value, false)
        }
    }

    /// A stored UTC time (`2026-11-23T04:30:00Z`) as a `<time>`: in the person's time zone
    /// when they chose one (`28 Nov 2026, 05:30` / `28.11.2026, 05:30`), else as UTC that the
    /// page's script rewrites into the browser's time zone.
    pub fn time(self, iso: &str) -> Markup {
        let parsed = chrono::DateTime::parse_from_rfc3339(iso).ok();
        match (self.zone, parsed) {
            (Some(zone), Some(at)) => {
                let local = at.with_timezone(&zone);
                let shown = match self.lang {
                    Lang::En => local.format("%-d %b %Y, %H:%M").to_string(),
                    Lang::Ru => local.format("%d.%m.%Y, %H:%M").to_string(),
                };
                html! { time datetime=(iso) data-zoned="" title=(zone.name()) { (shown) } }
            }
            _ => time(iso),
        }
    }
}

/// A stored UTC time (`2026-11-23T04:30:00Z`) as a `<time>` the page's script rewrites into
/// the browser's time zone; without the script it reads `2026-11-23 04:30 UTC`.
fn time(iso: &str) -> Markup {
    let shown = match (iso.get(..10), iso.get(11..16)) {
        (Some(day), Some(hm)) => format!("{day} {hm} UTC"),
        _ => iso.to_string(),
    };
    html! { time datetime=(iso) { (shown) } }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(lang: Lang, zone: Option<chrono_tz::Tz>) -> Fmt {
        Fmt { lang, zone }
    }

    #[test]
    fn counts_group_thousands_the_languages_way() {
        assert_eq!(fmt(Lang::En, None).count(0), "0");
        assert_eq!(fmt(Lang::En, None).count(-1234567), "-1,234,567");
        assert_eq!(fmt(Lang::Ru, None).count(1000), "1\u{a0}000");
    }

    #[test]
    fn money_carries_the_currency_at_its_scale() {
        let en = fmt(Lang::En, None);
        assert_eq!(
            en.money(CabinetType::Euro, Money::from_micros(12_500_000)),
            "12.50\u{a0}EUR"
        );
        assert_eq!(
            en.money(CabinetType::Stars, Money::from_micros(3_000_000)),
            "3\u{a0}STARS"
        );
        assert_eq!(
            fmt(Lang::Ru, None).money(CabinetType::Ton, Money::from_micros(1_234_567_000)),
            "1\u{a0}234,57\u{a0}TON"
        );
        assert_eq!(
            fmt(Lang::Ru, None).percent(Decimal::new(3675, 3), true),
            "3,68%"
        );
        assert_eq!(fmt(Lang::En, None).ratio(Decimal::ONE, false), "–");
    }

    #[test]
    fn times_read_in_the_persons_zone_or_as_utc_for_the_script() {
        let utc = fmt(Lang::En, None)
            .time("2026-11-23T04:30:00Z")
            .into_string();
        assert!(utc.contains(r#"datetime="2026-11-23T04:30:00Z""#), "{utc}");
        assert!(
            utc.contains("2026-11-23 04:30 UTC") && !utc.contains("data-zoned"),
            "{utc}"
        );
        let berlin = fmt(Lang::Ru, Some(chrono_tz::Europe::Berlin))
            .time("2026-11-23T04:30:00Z")
            .into_string();
        assert!(
            berlin.contains("23.11.2026, 05:30") && berlin.contains("data-zoned"),
            "{berlin}"
        );
        let tokyo = fmt(Lang::En, Some(chrono_tz::Asia::Tokyo))
            .time("2026-11-23T04:30:00Z")
            .into_string();
        assert!(tokyo.contains("23 Nov 2026, 13:30"), "{tokyo}");
    }
}
