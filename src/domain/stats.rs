//! Owns campaign performance figures: what a campaign gained over a span (views, opens,
//! clicks, actions, spend), summed exactly in micro-units, and the derived rates. Stats
//! answers give every figure as a JSON number, as the spec asks of them.

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::money::{ratio, Money};

/// Counters and spend over some span.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub views: i64,
    pub opens: i64,
    pub clicks: i64,
    pub actions: i64,
    pub spent: Money,
}

impl Totals {
    pub fn add(&mut self, other: &Totals) {
        self.views += other.views;
        self.opens += other.opens;
        self.clicks += other.clicks;
        self.actions += other.actions;
        self.spent = Money::from_micros(self.spent.micros() + other.spent.micros());
    }

    /// Nothing happened.
    pub fn is_idle(&self) -> bool {
        self.views == 0
            && self.opens == 0
            && self.clicks == 0
            && self.actions == 0
            && self.spent == Money::ZERO
    }

    /// What was gained since `mark` (lifetime counters then) up to `self` (lifetime counters
    /// now); a counter the platform lowered counts as no gain.
    pub fn gain_since(&self, mark: &Totals) -> Totals {
        Totals {
            views: (self.views - mark.views).max(0),
            opens: (self.opens - mark.opens).max(0),
            clicks: (self.clicks - mark.clicks).max(0),
            actions: (self.actions - mark.actions).max(0),
            spent: Money::from_micros((self.spent.micros() - mark.spent.micros()).max(0)),
        }
    }

    /// Click-through rate in percent (clicks per view).
    pub fn ctr(&self) -> Decimal {
        ratio(
            Decimal::from(self.clicks) * Decimal::ONE_HUNDRED,
            self.views.into(),
            2,
        )
    }

    /// Conversion rate in percent (actions per click).
    pub fn cvr(&self) -> Decimal {
        ratio(
            Decimal::from(self.actions) * Decimal::ONE_HUNDRED,
            self.clicks.into(),
            2,
        )
    }

    /// Spend per 1,000 views actually paid.
    pub fn cpm(&self) -> Decimal {
        ratio(
            self.spent.to_decimal() * Decimal::ONE_THOUSAND,
            self.views.into(),
            6,
        )
    }

    pub fn cpc(&self) -> Decimal {
        ratio(self.spent.to_decimal(), self.clicks.into(), 6)
    }

    pub fn cpa(&self) -> Decimal {
        ratio(self.spent.to_decimal(), self.actions.into(), 6)
    }

    /// Every figure and rate, all as JSON numbers.
    pub fn metrics(&self) -> Value {
        json!({
            "views": self.views,
            "opens": self.opens,
            "clicks": self.clicks,
            "actions": self.actions,
            "spent": number(self.spent.to_decimal()),
            "ctr": number(self.ctr()),
            "cvr": number(self.cvr()),
            "cpm": number(self.cpm()),
            "cpc": number(self.cpc()),
            "cpa": number(self.cpa()),
        })
    }
}

/// A decimal of at most six places as a JSON number. Every such value below one billion (15 significant digits)
/// survives the trip through `f64` and prints back as the same value (tiny ones as `1e-6`).
pub fn number(d: Decimal) -> Value {
    json!(d.to_f64().unwrap_or(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(views: i64, clicks: i64, actions: i64, spent_micros: i64) -> Totals {
        Totals {
            views,
            opens: views / 2,
            clicks,
            actions,
            spent: Money::from_micros(spent_micros),
        }
    }

    #[test]
    fn rates_follow_their_definitions() {
        let t = totals(2000, 23, 5, 4_600_000);
        assert_eq!(t.ctr().to_string(), "1.15");
        assert_eq!(t.cvr().to_string(), "21.74");
        assert_eq!(t.cpm().to_string(), "2.300000");
        assert_eq!(t.cpc().to_string(), "0.200000");
        assert_eq!(t.cpa().to_string(), "0.920000");
    }

    #[test]
    fn rates_over_nothing_are_zero() {
        let t = Totals::default();
        assert!(t.is_idle());
        assert_eq!(t.metrics()["cpa"], json!(0.0));
        assert_eq!(t.metrics()["ctr"], json!(0.0));
    }

    #[test]
    fn gains_are_the_difference_and_never_negative() {
        let mark = totals(100, 4, 1, 200_000);
        let now = totals(150, 3, 2, 300_000);
        let gain = now.gain_since(&mark);
        assert_eq!((gain.views, gain.clicks, gain.actions), (50, 0, 1));
        assert_eq!(gain.spent.micros(), 100_000);
    }

    #[test]
    fn money_numbers_print_their_exact_digits() {
        for text in ["0.000001", "1.15", "123456.789012", "999999999.999999"] {
            let d: Decimal = text.parse().unwrap();
            let printed = number(d).to_string();
            let back = if printed.contains('e') {
                Decimal::from_scientific(&printed).unwrap()
            } else {
                printed.parse().unwrap()
            };
            assert_eq!(back, d, "{text} printed as {printed}");
        }
    }

    #[test]
    fn sums_are_exact_in_micro_units() {
        let mut sum = Totals::default();
        for _ in 0..10 {
            sum.add(&totals(1, 0, 0, 100_000));
        }
        assert_eq!(sum.spent.micros(), 1_000_000);
        assert_eq!(sum.views, 10);
    }
}
