//! Owns a campaign's hourly figures on its page: the chart's periods (24 hours, 7 days, 30
//! days), the buckets read for one (views, clicks, spend, conversions per hour or day), the
//! chart drawn from them, and the same hours as a download (`?format=csv|xlsx`: hour, views,
//! clicks, actions, spent, conversions).

use chrono::{DateTime, Duration, Utc};
use maud::{html, Markup};
use rusqlite::Connection;

use super::super::super::chart::{self, Series};
use super::super::super::export::{Cell, Table};
use super::super::super::Visit;
use crate::domain::money::{CabinetType, Money};
use crate::domain::stats::Totals;
use crate::domain::time::{hour_start, iso, parse_iso};
use crate::store::conversions;
use crate::store::{runs, stats, StoreError};

/// One period of the chart: its parameter, its label's key, hours covered, hours per bucket.
#[derive(Debug, Clone, Copy)]
pub(super) struct Period {
    pub(super) key: &'static str,
    pub(super) label: &'static str,
    hours: i64,
    per: i64,
}

pub(super) const PERIODS: [Period; 3] = [
    Period {
        key: "24h",
        label: "campaign-period-24h",
        hours: 24,
        per: 1,
    },
    Period {
        key: "7d",
        label: "campaign-period-7d",
        hours: 168,
        per: 1,
    },
    Period {
        key: "30d",
        label: "campaign-period-30d",
        hours: 720,
        per: 24,
    },
];

/// The period `?period=` asks for; 24 hours when it names none.
pub(super) fn period(visit: &Visit) -> Period {
    PERIODS
        .iter()
        .find(|p| Some(p.key) == visit.query.get("period"))
        .copied()
        .unwrap_or(PERIODS[0])
}

/// The period's first hour and the hour after its last, ending with the current hour.
fn range(now: DateTime<Utc>, period: Period) -> (DateTime<Utc>, DateTime<Utc>) {
    let end = hour_start(now) + Duration::hours(1);
    (end - Duration::hours(period.hours), end)
}

/// The hour a stored hour (`2026-11-23T04` or a full time) starts at.
fn hour_of(hour: &str) -> Option<DateTime<Utc>> {
    parse_iso(&format!("{}:00:00Z", &hour[..13.min(hour.len())]))
}

/// Per bucket of `period` up to `now`: its first hour, the delivery and the conversions in it.
pub(super) fn buckets(
    conn: &Connection,
    account: i64,
    ad: i64,
    now: DateTime<Utc>,
    period: Period,
) -> Result<Vec<(String, Totals, i64)>, StoreError> {
    let (start, end) = range(now, period);
    let (from, to) = (iso(start), iso(end));
    let conv = conversions::hours_of_campaign(conn, account, ad, &from, &to)?;
    let per = period.per;
    let mut buckets: Vec<(String, Totals, i64)> = (0..period.hours / per)
        .map(|i| (iso(start + Duration::hours(i * per)), Totals::default(), 0))
        .collect();
    let index = |hour: &str| hour_of(hour).map(|t| ((t - start).num_hours() / per) as usize);
    if per == 1 {
        for (hour, totals) in stats::hours_of_campaign(conn, account, ad, &from, &to)? {
            if let Some(b) = index(&hour).and_then(|i| buckets.get_mut(i)) {
                b.1.add(&totals);
            }
        }
    } else {
        // Buckets of many hours are told apart by the rows' runs at their bounds, where
        // reading every hour of a month would read 720 rows.
        let bounds: Vec<String> = buckets.iter().map(|b| b.0.clone()).chain([to]).collect();
        for (bucket, totals) in buckets
            .iter_mut()
            .zip(runs::buckets(conn, account, ad, &bounds)?)
        {
            bucket.1 = totals;
        }
    }
    for (hour, n) in conv {
        if let Some(b) = index(&hour).and_then(|i| buckets.get_mut(i)) {
            b.2 += n;
        }
    }
    Ok(buckets)
}

/// The hours of `period` with delivery or conversions, one row each, as a download named after
/// the campaign; money at the currency's scale.
pub(super) fn table(
    conn: &Connection,
    account: i64,
    ad: i64,
    kind: CabinetType,
    period: Period,
) -> Result<Table, StoreError> {
    let hourly = Period { per: 1, ..period };
    let now = crate::clock::now(conn)?;
    let rows = buckets(conn, account, ad, now, hourly)?
        .into_iter()
        .filter(|(_, t, n)| !t.is_idle() || *n > 0)
        .map(|(hour, t, n)| {
            let mut spent = t.spent.to_decimal().round_dp(kind.scale());
            spent.rescale(kind.scale());
            vec![
                Cell::Text(hour),
                Cell::Int(t.views),
                Cell::Int(t.clicks),
                Cell::Int(t.actions),
                Cell::Decimal(spent),
                Cell::Int(n),
            ]
        })
        .collect();
    Ok(Table {
        name: format!("campaign-{account}-{ad}-{}", period.key),
        columns: vec!["hour", "views", "clicks", "actions", "spent", "conversions"],
        rows,
    })
}

/// The buckets as the shared bar chart, or a note when nothing was delivered.
pub(super) fn chart(visit: &Visit, b: &[(String, Totals, i64)], kind: CabinetType) -> Markup {
    let f = visit.fmt();
    let pick = |g: &dyn Fn(&(String, Totals, i64)) -> f64| b.iter().map(g).collect::<Vec<f64>>();
    let max_of = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max);
    let views = pick(&|x| x.1.views as f64);
    let clicks = pick(&|x| x.1.clicks as f64);
    let spent = pick(&|x| x.1.spent.micros() as f64 / 1e6);
    let conv = pick(&|x| x.2 as f64);
    let peak_spent = b.iter().map(|x| x.1.spent).max().unwrap_or_default();
    let names = [
        visit.t("campaign-chart-views"),
        visit.t("campaign-chart-clicks"),
        visit.t("campaign-chart-spend"),
        visit.t("campaign-chart-conversions"),
    ];
    let series = [
        Series {
            name: &names[0],
            class: "s-views",
            peak: f.count(max_of(&views) as i64),
            values: views,
        },
        Series {
            name: &names[1],
            class: "s-clicks",
            peak: f.count(max_of(&clicks) as i64),
            values: clicks,
        },
        Series {
            name: &names[2],
            class: "s-spent",
            peak: f.money(kind, peak_spent),
            values: spent,
        },
        Series {
            name: &names[3],
            class: "s-conv",
            peak: f.count(max_of(&conv) as i64),
            values: conv,
        },
    ];
    // The scale in the reader's figures: spend (the third series) as money, the rest counts.
    let value = |i: usize, v: f64| match i {
        2 => f.money(kind, Money::from_micros((v * 1e6).round() as i64)),
        _ => f.count(v.round() as i64),
    };
    let label = |i: usize| match (b.get(i), visit.zone) {
        (Some(x), Some(zone)) => hour_of(&x.0)
            .map(|t| t.with_timezone(&zone).format("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_default(),
        (Some(x), None) => x.0.replace('T', " ").trim_end_matches(":00Z").to_string() + " UTC",
        (None, _) => String::new(),
    };
    html! {
        @if b.iter().all(|x| x.1.is_idle() && x.2 == 0) {
            div.empty { (visit.t("campaign-chart-empty")) }
        } @else {
            div.scroll-x {
                (chart::bars(
                    &series,
                    &label(0),
                    &label(b.len().saturating_sub(1)),
                    &visit.t("campaign-chart-title"),
                    &format!("{} ", visit.t("campaign-chart-peak")),
                    &value,
                ))
            }
        }
    }
}
