//! Owns the home page's totals: the period the person picks (`?period=today|yesterday|7d|
//! 30d|month|custom` with `from`/`to` dates, days in the person's time zone, else UTC), each
//! cabinet's figures over it and over the period of the same length before it, the sums per
//! currency with ROAS and profit (`reporting`), the spend per day as a chart with axes; the
//! same table as a download is `download`.

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use chrono_tz::Tz;
use maud::{html, Markup};
use rust_decimal::Decimal;

use super::super::super::chart::{self, Series};
use super::super::super::export;
use super::super::super::format::Fmt;
use super::super::super::Visit;
use crate::domain::money::{CabinetType, Money};
use crate::domain::stats::Totals;
use crate::domain::time::iso;
use crate::i18n::Lang;
use crate::ops::reports::midnight;
use crate::ops::returns::Returns;
use crate::store::cabinets::Reachable;
use crate::store::converted::{self, Converted};
use crate::store::kept;

use super::lines::{per_currency, Figures, Line};
use super::reporting::{self, Reporting};
use crate::store::StoreError;

/// The longest custom period, in days.
const MAX_DAYS: i64 = 366;

/// The periods the person picks from, by their `?period=` value and catalogue key.
pub const PERIODS: [(&str, &str); 6] = [
    ("today", "home-period-today"),
    ("yesterday", "home-period-yesterday"),
    ("7d", "home-period-7d"),
    ("30d", "home-period-30d"),
    ("month", "home-period-month"),
    ("custom", "home-period-custom"),
];

/// The chosen period: its `?period=` value and its first and last day (inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub period: &'static str,
    pub first: NaiveDate,
    pub last: NaiveDate,
    /// A custom period's dates could not be read (the 7 days are shown instead).
    pub refused: bool,
}

impl Chosen {
    /// Days in the period.
    pub fn days(&self) -> i64 {
        (self.last - self.first).num_days() + 1
    }

    /// The period of the same length just before this one.
    pub fn before(&self) -> (NaiveDate, NaiveDate) {
        let last = self.first - Duration::days(1);
        (last - Duration::days(self.days() - 1), last)
    }
}

/// The period `?period=` (and for `custom` `from`, `to`) names, counted in days of the
/// person's calendar where today is `today`; anything unknown is the last 7 days.
pub fn choose(
    period: Option<&str>,
    from: Option<&str>,
    to: Option<&str>,
    today: NaiveDate,
) -> Chosen {
    let span = |period, first, last| Chosen {
        period,
        first,
        last,
        refused: false,
    };
    let last_days = |n: i64| today - Duration::days(n - 1);
    match period {
        Some("today") => span("today", today, today),
        Some("yesterday") => {
            let day = today - Duration::days(1);
            span("yesterday", day, day)
        }
        Some("30d") => span("30d", last_days(30), today),
        Some("month") => span("month", today.with_day(1).unwrap_or(today), today),
        Some("custom") => {
            let day = |t: Option<&str>| {
                t.and_then(|t| NaiveDate::parse_from_str(t.trim(), "%Y-%m-%d").ok())
            };
            match (day(from), day(to)) {
                (Some(first), Some(last))
                    if first <= last && (last - first).num_days() < MAX_DAYS =>
                {
                    span("custom", first, last)
                }
                _ => Chosen {
                    refused: true,
                    ..span("7d", last_days(7), today)
                },
            }
        }
        _ => span("7d", last_days(7), today),
    }
}

/// Today's date in `zone` at `now`.
pub fn today(zone: Tz, now: DateTime<Utc>) -> NaiveDate {
    now.with_timezone(&zone).date_naive()
}

/// Each cabinet's figures over the chosen period and the one before it, read from their running
/// sums or weekly and daily rows (`kept::days_of`) and their conversions' weekly and daily rows
/// (`converted::per_span_of`), and its
/// spend per day of the chosen period (`kept::spent_of`), each range of rows across the
/// cabinets at once when they are at least half of all cabinets.
pub fn gather(
    conn: &rusqlite::Connection,
    reach: &[Reachable],
    chosen: &Chosen,
    zone: Tz,
) -> Result<Vec<Line>, StoreError> {
    let (before_first, _) = chosen.before();
    let days = usize::try_from(chosen.days()).unwrap_or(0);
    let bounds: Vec<String> = (0..=2 * chosen.days())
        .map(|i| iso(midnight(zone, before_first + Duration::days(i))))
        .collect();
    // The rows to read, worked out once for every cabinet: the stats and conversions of the
    // period before and of the chosen one (the stats as three runs of each cabinet, the
    // conversions' whole weeks from the weekly rows); and the spend of each day of the chosen
    // one (the chart's), from the weekly rows' days.
    let periods = kept::Spans::new(vec![
        bounds[0].clone(),
        bounds[days].clone(),
        bounds[2 * days].clone(),
    ]);
    let ids: Vec<i64> = reach.iter().map(|r| r.cabinet.id).collect();
    let cabinets = kept::Cabinets::new(conn, &ids)?;
    let totals = kept::days_of(conn, &cabinets, &periods)?;
    // A period of one day is its own chart (read as a span of its own, outside UTC, its day
    // would be read from each cabinet's hours).
    let mut spent = match days {
        1 => None,
        _ => {
            let chart = kept::Spans::new(bounds[days..].to_vec());
            Some(kept::spent_of(conn, &cabinets, &chart)?.into_iter())
        }
    };
    let converted = converted::per_span_of(conn, &cabinets, &periods)?;
    Ok(reach
        .iter()
        .zip(totals)
        .zip(converted)
        .map(|((r, totals), converted)| {
            let c = &r.cabinet;
            let [before, now] = [0, 1].map(|i| totals.get(i).cloned().unwrap_or_default());
            let days = match spent.as_mut() {
                Some(each) => each.next().unwrap_or_default(),
                None => vec![now.spent],
            };
            Line {
                id: Some(c.id),
                name: c.name.clone(),
                kind: c.cabinet_type,
                now: Figures {
                    totals: now,
                    converted: Converted::of(&converted[1]),
                },
                before: Figures {
                    totals: before,
                    converted: Converted::of(&converted[0]),
                },
                days,
            }
        })
        .collect())
}

/// The change from `before` to `now` in percent, one place; `None` without an earlier figure.
pub fn change(now: Decimal, before: Decimal) -> Option<Decimal> {
    if before.is_zero() {
        return None;
    }
    ((now - before) * Decimal::ONE_HUNDRED)
        .checked_div(before)
        .map(|d| d.round_dp(1))
}

fn date(lang: Lang, d: NaiveDate) -> String {
    match lang {
        Lang::En => d.format("%-d %b %Y").to_string(),
        Lang::Ru => d.format("%d.%m.%Y").to_string(),
    }
}

fn short_date(lang: Lang, d: NaiveDate) -> String {
    match lang {
        Lang::En => d.format("%-d %b").to_string(),
        Lang::Ru => d.format("%d.%m").to_string(),
    }
}

fn revenue_text(fmt: Fmt, revenue: &[(String, i128)]) -> String {
    let parts: Vec<String> = revenue
        .iter()
        .map(|(currency, micros)| {
            let d = Decimal::try_from_i128_with_scale(*micros, 6)
                .unwrap_or_default()
                .round_dp(2);
            let mut d = d;
            d.rescale(2);
            format!("{}\u{a0}{currency}", fmt.lang.decimal(d))
        })
        .collect();
    if parts.is_empty() {
        "–".into()
    } else {
        parts.join(", ")
    }
}

/// A figure's change against the earlier period, as `+12.5%`, or nothing without one.
fn delta(fmt: Fmt, now: Decimal, before: Decimal) -> Markup {
    match change(now, before) {
        Some(d) => {
            let sign = if d > Decimal::ZERO { "+" } else { "" };
            let class = if d > Decimal::ZERO {
                "delta up"
            } else if d < Decimal::ZERO {
                "delta down"
            } else {
                "delta"
            };
            html! { br; span class=(class) { (sign) (fmt.percent(d, true)) } }
        }
        None => html! {},
    }
}

/// The period picker, the table and the chart.
pub fn render(visit: &Visit, chosen: &Chosen, lines: &[Line], reporting: &Reporting) -> Markup {
    let fmt = visit.fmt();
    let returns: Vec<&Returns> = reporting
        .per_line
        .iter()
        .chain(&reporting.per_sum)
        .collect();
    let lang = visit.lang;
    let sums = per_currency(lines);
    let (b_first, b_last) = chosen.before();
    let zone = visit.zone.map_or("UTC", |z| z.name());
    let labels: Vec<String> = (0..chosen.days())
        .map(|i| short_date(lang, chosen.first + Duration::days(i)))
        .collect();
    let names: Vec<String> = sums
        .iter()
        .map(|s| {
            visit.ta(
                "home-trend-series",
                &[("currency", s.kind.currency().into())],
            )
        })
        .collect();
    let series: Vec<Series> = sums
        .iter()
        .zip(&names)
        .map(|(s, name)| Series {
            name,
            class: "s-spent",
            values: s
                .days
                .iter()
                .map(|d| rust_decimal::prelude::ToPrimitive::to_f64(&d.to_decimal()).unwrap_or(0.0))
                .collect(),
            peak: fmt.money(s.kind, s.days.iter().copied().max().unwrap_or_default()),
        })
        .collect();
    let kinds: Vec<CabinetType> = sums.iter().map(|s| s.kind).collect();
    let value = |i: usize, v: f64| {
        let kind = kinds.get(i).copied().unwrap_or(CabinetType::Euro);
        let micros = (v * 1_000_000.0).round() as i64;
        fmt.money(kind, Money::from_micros(micros))
    };
    html! {
        section.home-totals aria-labelledby="home-totals" {
            h2 #home-totals { (visit.t("home-totals")) }
            nav.tabs aria-label=(visit.t("home-period")) {
                @for (value, key) in PERIODS {
                    @if value != "custom" {
                        a href={ "/?period=" (value) } aria-current=[(value == chosen.period).then_some("true")] { (visit.t(key)) }
                    }
                }
            }
            form.filters.period method="get" action="/" {
                input type="hidden" name="period" value="custom";
                label { span { (visit.t("home-from")) } input type="date" name="from" value=(chosen.first.format("%Y-%m-%d")) required; }
                label { span { (visit.t("home-to")) } input type="date" name="to" value=(chosen.last.format("%Y-%m-%d")) required; }
                button type="submit" aria-current=[(chosen.period == "custom").then_some("true")] { (visit.t("home-show")) }
                @if chosen.refused {
                    p.error role="alert" data-param="from" { (visit.t("home-period-bad")) }
                }
            }
            p.muted {
                (visit.ta("home-span", &[
                    ("from", date(lang, chosen.first).into()),
                    ("to", date(lang, chosen.last).into()),
                    ("zone", zone.into()),
                ]))
                " · "
                (visit.ta("home-versus", &[
                    ("from", date(lang, b_first).into()),
                    ("to", date(lang, b_last).into()),
                ]))
                " · "
                (export::links(visit, "/"))
            }
            @if !series.is_empty() {
                h3 { (visit.t("home-trend")) }
                div.scroll-x {
                    (chart::with_axes(&series, &labels, &visit.t("home-trend"), &value))
                }
            }
            div.table-wrap {
                table.cards.totals {
                    thead { tr {
                        th { (visit.t("home-col-client")) }
                        th.num { (visit.t("home-col-spend")) }
                        th.num { (visit.t("home-col-views")) }
                        th.num { (visit.t("home-col-clicks")) }
                        th.num { (visit.t("home-col-ctr")) }
                        th.num { (visit.t("home-col-cpm")) }
                        th.num { (visit.t("home-col-actions")) }
                        th.num { (visit.t("home-col-conversions")) }
                        th.num { (visit.t("home-col-revenue")) }
                        th.num { (visit.t("home-col-roas")) }
                        th.num { (visit.t("home-col-profit")) }
                    } }
                    tbody {
                        @for (i, line) in lines.iter().chain(&sums).enumerate() {
                            (row(visit, fmt, line, returns.get(i).copied()))
                        }
                    }
                }
            }
            @if reporting::worth_showing(lines, reporting) {
                (reporting::render(visit, reporting))
            }
        }
    }
}

/// Spend per 1,000 views, as money of the cabinet's currency.
fn cpm(t: &Totals) -> Money {
    let micros = i128::from(t.spent.micros()) * 1000 / i128::from(t.views.max(1));
    Money::from_micros(i64::try_from(micros).unwrap_or(i64::MAX))
}

fn row(visit: &Visit, fmt: Fmt, line: &Line, returns: Option<&Returns>) -> Markup {
    let (n, b) = (&line.now.totals, &line.before.totals);
    let d = |x: i64| Decimal::from(x);
    html! {
        tr class=[line.id.is_none().then_some("sum")] data-account=[line.id] {
            td data-label=(visit.t("home-col-client")) {
                @match line.id {
                    Some(id) => {
                        a href={ "/campaigns?account_id=" (id) } { (line.name) }
                        br; span.muted { (id) " · " (line.kind.currency()) }
                    }
                    None => strong { (visit.ta("home-total", &[("currency", line.kind.currency().into())])) },
                }
            }
            td.num data-label=(visit.t("home-col-spend")) data-figure="spent" {
                (fmt.money(line.kind, n.spent)) (delta(fmt, n.spent.to_decimal(), b.spent.to_decimal()))
            }
            td.num data-label=(visit.t("home-col-views")) data-figure="views" {
                (fmt.count(n.views)) (delta(fmt, d(n.views), d(b.views)))
            }
            td.num data-label=(visit.t("home-col-clicks")) data-figure="clicks" {
                (fmt.count(n.clicks)) (delta(fmt, d(n.clicks), d(b.clicks)))
            }
            td.num data-label=(visit.t("home-col-ctr")) { (fmt.percent(n.ctr(), n.views > 0)) }
            td.num data-label=(visit.t("home-col-cpm")) {
                @if n.views > 0 {
                    (fmt.money(line.kind, cpm(n)))
                } @else { "–" }
            }
            td.num data-label=(visit.t("home-col-actions")) data-figure="actions" {
                (fmt.count(n.actions)) (delta(fmt, d(n.actions), d(b.actions)))
            }
            td.num data-label=(visit.t("home-col-conversions")) data-figure="conversions" {
                (fmt.count(line.now.converted.count))
                (delta(fmt, d(line.now.converted.count), d(line.before.converted.count)))
            }
            td.num data-label=(visit.t("home-col-revenue")) { (revenue_text(fmt, &line.now.converted.revenue)) }
            (reporting::cells(visit, fmt, returns))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn periods_are_days_of_the_persons_calendar() {
        let today = day("2026-11-28");
        let c = choose(Some("today"), None, None, today);
        assert_eq!((c.first, c.last, c.days()), (today, today, 1));
        assert_eq!(c.before(), (day("2026-11-27"), day("2026-11-27")));
        let c = choose(Some("yesterday"), None, None, today);
        assert_eq!((c.first, c.last), (day("2026-11-27"), day("2026-11-27")));
        let c = choose(None, None, None, today);
        assert_eq!((c.period, c.first, c.days()), ("7d", day("2026-11-22"), 7));
        assert_eq!(c.before(), (day("2026-11-15"), day("2026-11-21")));
        let c = choose(Some("30d"), None, None, today);
        assert_eq!((c.first, c.days()), (day("2026-10-30"), 30));
        let c = choose(Some("month"), None, None, today);
        assert_eq!((c.first, c.days()), (day("2026-11-01"), 28));
        assert_eq!(c.before(), (day("2026-10-04"), day("2026-10-31")));
    }

    #[test]
    fn a_custom_period_takes_its_dates_and_refuses_bad_ones() {
        let today = day("2026-11-28");
        let c = choose(
            Some("custom"),
            Some("2026-10-01"),
            Some("2026-10-10"),
            today,
        );
        assert_eq!(
            (c.period, c.first, c.last, c.refused),
            ("custom", day("2026-10-01"), day("2026-10-10"), false)
        );
        for (from, to) in [
            (Some("2026-10-10"), Some("2026-10-01")),
            (Some("yesterday"), Some("2026-10-01")),
            (None, Some("2026-10-01")),
            (Some("2020-01-01"), Some("2026-10-01")),
        ] {
            let c = choose(Some("custom"), from, to, today);
            assert!(c.refused && c.period == "7d", "{from:?} {to:?}");
        }
    }

    #[test]
    fn days_start_at_the_zones_midnight() {
        let berlin: Tz = "Europe/Berlin".parse().unwrap();
        assert_eq!(
            iso(midnight(berlin, day("2026-11-28"))),
            "2026-11-27T23:00:00Z"
        );
        assert_eq!(
            iso(midnight(berlin, day("2026-07-01"))),
            "2026-06-30T22:00:00Z"
        );
        assert_eq!(
            iso(midnight(Tz::UTC, day("2026-11-28"))),
            "2026-11-28T00:00:00Z"
        );
    }

    #[test]
    fn change_is_a_percentage_of_the_earlier_figure() {
        let d = |n: i64| Decimal::from(n);
        assert_eq!(change(d(150), d(100)), Some(Decimal::new(500, 1)));
        assert_eq!(change(d(50), d(200)), Some(Decimal::new(-750, 1)));
        assert_eq!(change(d(5), d(0)), None);
    }
}
