//! Owns campaign performance figures: what a campaign gained over a span (views, opens,
//! clicks, actions, spend), summed exactly in micro-units, and the derived rates. Stats
//! answers give every figure as a JSON number, as the spec asks of them.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::money::{ratio, Money};
use super::time;
use super::ParseError;

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
    /// Adds `other`. Sums saturate instead of wrapping: no stored figure can make a total
    /// fail or turn negative (each campaign's spend is bounded, so reaching the limit would
    /// take billions of campaigns).
    pub fn add(&mut self, other: &Totals) {
        self.views = self.views.saturating_add(other.views);
        self.opens = self.opens.saturating_add(other.opens);
        self.clicks = self.clicks.saturating_add(other.clicks);
        self.actions = self.actions.saturating_add(other.actions);
        self.spent = Money::from_micros(self.spent.micros().saturating_add(other.spent.micros()));
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
        let gain = |now: i64, then: i64| now.saturating_sub(then).max(0);
        Totals {
            views: gain(self.views, mark.views),
            opens: gain(self.opens, mark.opens),
            clicks: gain(self.clicks, mark.clicks),
            actions: gain(self.actions, mark.actions),
            spent: Money::from_micros(gain(self.spent.micros(), mark.spent.micros())),
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

/// Totals added up with [`Totals::add`], saturating.
impl<'a> std::iter::Sum<&'a Totals> for Totals {
    fn sum<I: Iterator<Item = &'a Totals>>(all: I) -> Totals {
        let mut sum = Totals::default();
        all.for_each(|t| sum.add(t));
        sum
    }
}

/// The hours a stats read covers: those starting in `[from, to)`; `from` is `None` for a
/// campaign's whole life. `period` is the period as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub period: &'static str,
    pub from: Option<DateTime<Utc>>,
    pub to: DateTime<Utc>,
}

/// `GET /v1/stats` periods: the last 24 hours (`1d`), 7 days (`7d`), 30 days (`30d`), or
/// everything (`all`). Anything else is read as the last 24 hours. Hours are whole hours of
/// the service clock: the one in progress and the ones before it.
pub fn stats_span(period: Option<&str>, now: DateTime<Utc>) -> Span {
    let (period, days) = match period {
        Some("7d") => ("7d", 7),
        Some("30d") => ("30d", 30),
        Some("all") => ("all", 0),
        _ => ("1d", 1),
    };
    last_days(period, days, now)
}

fn last_days(period: &'static str, days: i64, now: DateTime<Utc>) -> Span {
    let current = time::hour_start(now);
    Span {
        period,
        from: (days > 0).then(|| current - Duration::hours(24 * days)),
        to: current + Duration::hours(1),
    }
}

/// What `GET /v1/campaigns/{ad_id}/history` reads to pick its span.
#[derive(Debug, Clone, Default)]
pub struct HistoryQuery<'a> {
    pub period: Option<&'a str>,
    pub start_date: Option<&'a str>,
    pub end_date: Option<&'a str>,
    pub start_hour: Option<i64>,
    pub end_hour: Option<i64>,
}

/// History periods: `24h` (the default), `7d`, `30d`, or `custom` from `startDate` at
/// `startHour` (default 0) through `endDate` at `endHour` (default 23), both UTC and
/// inclusive.
pub fn history_span(q: &HistoryQuery, now: DateTime<Utc>) -> Result<Span, ParseError> {
    match q.period.unwrap_or("24h") {
        "24h" => Ok(last_days("24h", 1, now)),
        "7d" => Ok(last_days("7d", 7, now)),
        "30d" => Ok(last_days("30d", 30, now)),
        "custom" => {
            let from = at_hour(q.start_date, "startDate", q.start_hour.unwrap_or(0))?;
            let last = at_hour(q.end_date, "endDate", q.end_hour.unwrap_or(23))?;
            if last < from {
                return Err(ParseError::new(
                    "endDate",
                    "endDate and endHour must not be before startDate and startHour.",
                ));
            }
            Ok(Span {
                period: "custom",
                from: Some(from),
                to: last + Duration::hours(1),
            })
        }
        _ => Err(ParseError::new(
            "period",
            "period must be 24h, 7d, 30d or custom.",
        )),
    }
}

fn at_hour(date: Option<&str>, param: &str, hour: i64) -> Result<DateTime<Utc>, ParseError> {
    let text = date.ok_or_else(|| {
        ParseError::new(param, format!("{param} is required with period=custom."))
    })?;
    let day = NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map_err(|_| ParseError::new(param, format!("{param} must be a date as YYYY-MM-DD.")))?;
    let start = day.and_hms_opt(0, 0, 0).map(|t| t.and_utc());
    start
        .map(|t| t + Duration::hours(hour))
        .ok_or_else(|| ParseError::new(param, format!("{param} is out of range.")))
}

/// A decimal of at most six places as a JSON number. Every such value below one billion (15 significant digits)
/// survives the trip through `f64` and prints back as the same value (tiny ones as `1e-6`).
pub fn number(d: Decimal) -> Value {
    json!(d.to_f64().unwrap_or(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> DateTime<Utc> {
        time::parse_iso(text).unwrap()
    }

    #[test]
    fn stats_periods_cover_whole_hours_and_unknown_ones_are_a_day() {
        let now = t("2026-03-10T12:34:56Z");
        let day = stats_span(Some("1d"), now);
        assert_eq!(day.from, Some(t("2026-03-09T12:00:00Z")));
        assert_eq!(day.to, t("2026-03-10T13:00:00Z"));
        assert_eq!(stats_span(Some("weird"), now), day);
        assert_eq!(stats_span(None, now), day);
        assert_eq!(
            stats_span(Some("7d"), now).from,
            Some(t("2026-03-03T12:00:00Z"))
        );
        assert_eq!(
            stats_span(Some("30d"), now).from,
            Some(t("2026-02-08T12:00:00Z"))
        );
        assert_eq!(stats_span(Some("all"), now).from, None);
    }

    #[test]
    fn custom_history_spans_dates_and_hours_inclusively() {
        let now = t("2026-03-10T12:00:00Z");
        let q = HistoryQuery {
            period: Some("custom"),
            start_date: Some("2026-03-01"),
            end_date: Some("2026-03-02"),
            start_hour: Some(9),
            end_hour: Some(17),
        };
        let span = history_span(&q, now).unwrap();
        assert_eq!(span.from, Some(t("2026-03-01T09:00:00Z")));
        assert_eq!(span.to, t("2026-03-02T18:00:00Z"));
        let whole_days = HistoryQuery {
            start_hour: None,
            end_hour: None,
            ..q.clone()
        };
        assert_eq!(
            history_span(&whole_days, now).unwrap().to,
            t("2026-03-03T00:00:00Z")
        );
        assert_eq!(
            history_span(&HistoryQuery::default(), now).unwrap().period,
            "24h"
        );
    }

    #[test]
    fn bad_history_input_names_its_field() {
        let now = t("2026-03-10T12:00:00Z");
        let param = |q: HistoryQuery| match history_span(&q, now) {
            Err(ParseError { param, .. }) => param,
            other => panic!("expected a validation error, got {other:?}"),
        };
        let custom = HistoryQuery {
            period: Some("custom"),
            start_date: Some("2026-03-02"),
            end_date: Some("2026-03-01"),
            ..HistoryQuery::default()
        };
        assert_eq!(param(custom.clone()), "endDate");
        assert_eq!(
            param(HistoryQuery {
                start_date: Some("03/01/2026"),
                ..custom.clone()
            }),
            "startDate"
        );
        assert_eq!(
            param(HistoryQuery {
                end_date: None,
                ..custom
            }),
            "endDate"
        );
        assert_eq!(
            param(HistoryQuery {
                period: Some("90d"),
                ..HistoryQuery::default()
            }),
            "period"
        );
    }

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
