//! Owns the client report as a value: its figures (counters, spend, rates, conversions and
//! revenue in the cabinet's currency), each line of it and the report itself, all
//! `Serialize` so every face (the page, the downloads, a webhook's figures, a PDF) reads the
//! same numbers. Money is a decimal string at six places; ratios are decimals or null when
//! they have no denominator.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use rust_decimal::{Decimal, RoundingStrategy};
use serde::Serialize;

use crate::domain::agency::FeePercent;
use crate::domain::money::{ratio, Money};
use crate::domain::stats::Totals;

/// The figures of one line of a report (a day, a campaign, the whole span).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Figures {
    pub views: i64,
    pub clicks: i64,
    pub actions: i64,
    /// Platform spend in the cabinet's currency.
    pub spent: Decimal,
    /// Clicks per view, in percent; null without views.
    pub ctr: Option<Decimal>,
    /// Spend per 1,000 views; null without views.
    pub cpm: Option<Decimal>,
    /// Conversions the trackers reported, each counted once.
    pub conversions: i64,
    /// Their revenue converted into the cabinet's currency (only the currencies a rate was
    /// known for; see the report's `revenue`); null when none was reported.
    pub revenue: Option<Decimal>,
    /// Spend per action (the platform's actions, as the stats API counts them); null without.
    pub cpa: Option<Decimal>,
    /// Revenue per unit of spend (2.5 = 250%); null without spend or revenue.
    pub roas: Option<Decimal>,
}

/// What a line sums while the report is built: the stored counters and spend, the
/// conversions, and revenue per currency in micro-units.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Sum {
    pub totals: Totals,
    pub conversions: i64,
    pub revenue: BTreeMap<String, i128>,
}

impl Sum {
    pub fn add(&mut self, other: &Sum) {
        self.totals.add(&other.totals);
        self.conversions = self.conversions.saturating_add(other.conversions);
        for (currency, amount) in &other.revenue {
            let sum = self.revenue.entry(currency.clone()).or_default();
            *sum = sum.saturating_add(*amount);
        }
    }

    /// The line's figures, revenue converted by `rates` (currency → rate into the cabinet's;
    /// a currency without one is left out of `revenue`).
    pub fn figures(&self, rates: &BTreeMap<String, Decimal>) -> Figures {
        let t = &self.totals;
        let spent = t.spent.to_decimal();
        let revenue = self
            .revenue
            .iter()
            .filter_map(|(currency, micros)| {
                let rate = rates.get(currency)?;
                Decimal::from_i128_with_scale(*micros, 6).checked_mul(*rate)
            })
            .try_fold(None::<Decimal>, |acc, r| {
                Some(Some(acc.unwrap_or_default().checked_add(r)?))
            })
            .flatten()
            .map(|r| r.round_dp(6));
        let defined = |d: i64| (d > 0).then_some(());
        Figures {
            views: t.views,
            clicks: t.clicks,
            actions: t.actions,
            spent,
            ctr: defined(t.views).map(|()| t.ctr()),
            cpm: defined(t.views).map(|()| t.cpm()),
            conversions: self.conversions,
            revenue,
            cpa: defined(t.actions).map(|()| t.cpa()),
            roas: revenue
                .filter(|_| t.spent > Money::ZERO)
                .map(|r| ratio(r, spent, 4)),
        }
    }
}

/// The change of a figure against the previous period, in percent; null when the previous
/// period had none of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Change {
    pub views: Option<Decimal>,
    pub clicks: Option<Decimal>,
    pub actions: Option<Decimal>,
    pub spent: Option<Decimal>,
    pub conversions: Option<Decimal>,
    pub revenue: Option<Decimal>,
}

impl Change {
    pub(super) fn between(now: &Figures, before: &Figures) -> Change {
        let pct = |now: Decimal, before: Decimal| {
            (before != Decimal::ZERO).then(|| {
                ((now - before) * Decimal::ONE_HUNDRED / before)
                    .round_dp(2)
                    .normalize()
            })
        };
        let count = |now: i64, before: i64| pct(now.into(), before.into());
        Change {
            views: count(now.views, before.views),
            clicks: count(now.clicks, before.clicks),
            actions: count(now.actions, before.actions),
            spent: pct(now.spent, before.spent),
            conversions: count(now.conversions, before.conversions),
            revenue: match (now.revenue, before.revenue) {
                (Some(n), Some(b)) => pct(n, b),
                (None, Some(b)) => pct(Decimal::ZERO, b),
                (Some(_), None) | (None, None) => None,
            },
        }
    }
}

/// One day of the span.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Day {
    pub day: NaiveDate,
    #[serde(flatten)]
    pub figures: Figures,
}

/// One campaign of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CampaignLine {
    pub ad_id: i64,
    pub title: String,
    #[serde(flatten)]
    pub figures: Figures,
}

/// Conversions of one event type over the span, each counted once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventLine {
    pub event_type: String,
    pub count: i64,
    /// Revenue per currency, as reported (never converted).
    pub revenue: Vec<Amount>,
}

/// An amount of a named currency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Amount {
    pub currency: String,
    pub amount: Decimal,
}

/// The revenue of the span as reported, and how it was converted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Revenue {
    /// Per currency, as reported.
    pub native: Vec<Amount>,
    /// The rates used (one unit of `currency` in the cabinet's currency) and their day.
    pub rates: Vec<RateUsed>,
    /// Currencies no rate was known for: their revenue is in `native` only.
    pub unconverted: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RateUsed {
    pub currency: String,
    pub rate: Decimal,
    pub day: NaiveDate,
}

/// The agency's fee on the span's spend: what the client pays is the platform's spend plus it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fee {
    pub percent: Decimal,
    pub platform_spend: Decimal,
    pub fee: Decimal,
    pub client_spend: Decimal,
}

impl Fee {
    /// The agency's `fee` on `spend` (the platform's spend, rounded to the currency's `scale`
    /// first), and what the client pays: the one fee arithmetic of reports and statements.
    pub fn on(spend: Decimal, fee: FeePercent, scale: u32) -> Fee {
        let spend = spend.round_dp_with_strategy(scale, RoundingStrategy::MidpointAwayFromZero);
        let charged = fee.of(spend, scale);
        Fee {
            percent: fee.percent(),
            platform_spend: spend,
            fee: charged,
            client_spend: spend.checked_add(charged).unwrap_or(spend),
        }
    }
}

/// The group of campaigns a report is narrowed to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupRef {
    pub id: i64,
    pub name: String,
}

/// The agency that sends the report: its name, and whether it has a logo.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Agency {
    pub owner_id: i64,
    pub name: Option<String>,
    pub has_logo: bool,
}

/// A client report: one cabinet (or a group of its campaigns) over whole days of a zone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub account_id: i64,
    pub cabinet_name: String,
    /// The cabinet's currency code (`EUR`, `TON`, `STARS`) every converted figure is in.
    pub currency: &'static str,
    /// Decimals the currency is written with.
    pub scale: u32,
    pub group: Option<GroupRef>,
    pub agency: Agency,
    /// First and last day of the span, both included.
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// The IANA zone its days are in (`UTC` unless the reader keeps one).
    pub time_zone: &'static str,
    /// The period of the same length just before.
    pub previous_from: NaiveDate,
    pub previous_to: NaiveDate,
    pub totals: Figures,
    pub previous: Figures,
    pub change: Change,
    pub daily: Vec<Day>,
    pub campaigns: Vec<CampaignLine>,
    pub events: Vec<EventLine>,
    pub revenue: Revenue,
    /// Set when the cabinet has a fee in the agency's terms.
    pub fee: Option<Fee>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_convert_revenue_and_leave_out_currencies_without_a_rate() {
        let mut sum = Sum::default();
        sum.totals.views = 2000;
        sum.totals.clicks = 30;
        sum.totals.actions = 4;
        sum.totals.spent = Money::from_micros(10_000_000);
        sum.revenue.insert("USD".into(), 12_000_000);
        sum.revenue.insert("XYZ".into(), 99_000_000);
        let rates = BTreeMap::from([("USD".to_string(), Decimal::new(5, 1))]);
        let f = sum.figures(&rates);
        assert_eq!(f.revenue, Some(Decimal::new(6, 0)));
        assert_eq!(f.roas, Some(Decimal::new(6, 1)));
        assert_eq!(f.cpm, Some(Decimal::new(5, 0)));
        assert_eq!(f.ctr, Some(Decimal::new(150, 2)));
        assert_eq!(f.cpa, Some(Decimal::new(25, 1)));
        let none = Sum::default().figures(&rates);
        assert_eq!((none.ctr, none.revenue, none.roas), (None, None, None));
    }

    #[test]
    fn a_change_is_a_percent_of_the_previous_figure() {
        let now = Figures {
            views: 150,
            spent: Decimal::new(5, 0),
            ..Figures::default()
        };
        let before = Figures {
            views: 100,
            spent: Decimal::ZERO,
            ..Figures::default()
        };
        let c = Change::between(&now, &before);
        assert_eq!(c.views, Some(Decimal::new(50, 0)));
        assert_eq!(c.spent, None, "nothing to compare with");
    }
}
