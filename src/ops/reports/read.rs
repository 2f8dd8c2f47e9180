//! Owns what a client report's span and the period before it sum to, both read in one range
//! in a few queries whatever their length: the campaigns' stats (per UTC day where the days
//! are UTC days, else per stored hour, each sorted into the local day it starts in, and a day
//! retention rolled up into the local day holding its noon), their conversions per day and
//! event, and the span's conversions per campaign (the UTC weeks from the campaigns' weekly
//! rows, a week the span cuts read around or read whole and its outside taken off). A report
//! of a whole cabinet reads the cabinet's kept daily rows and the campaigns' running sums
//! instead, the same figures at a few rows per day and two per campaign.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use rusqlite::Connection;

use super::figures::Sum;
use super::span::{day_of, Span};
use crate::ops::OpsError;
use crate::store::reports as rows;
use crate::store::{converted, kept, runs};

/// What the span sums to: in all, per day, per campaign, and conversions per event.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Read {
    pub total: Sum,
    pub days: BTreeMap<NaiveDate, Sum>,
    pub campaigns: BTreeMap<i64, Sum>,
    pub events: BTreeMap<String, (i64, BTreeMap<String, i128>)>,
}

/// The sums of the campaigns `ads` (in order) of `account` over `span`, and the total of the
/// period of the same length before it. With `every` (the ads are every campaign of the
/// cabinet), the days come from the cabinet's kept daily rows and each campaign's sums from
/// its rows' running sums ([`kept_span`]) wherever those equal the rows' sums.
pub(super) fn span(
    conn: &Connection,
    account: i64,
    ads: &[i64],
    span: Span,
    every: bool,
) -> Result<(Read, Sum), OpsError> {
    let whole = span.with_previous();
    let bounds = whole.bounds();
    let before_days = span.previous().days() as usize;
    let (Some(middle), Some(end)) = (bounds.get(before_days), bounds.last()) else {
        return Ok((Read::default(), Sum::default()));
    };
    let utc_days = whole.on_utc_days();
    let (mut read, before) = if every && (utc_days || hours_kept_from(conn, account, middle)?) {
        kept_span(conn, account, ads, span, &bounds)?
    } else {
        rows_span(conn, account, ads, span, (&bounds, utc_days))?
    };
    for (ad, paid) in rows::conversions_per_campaign(conn, account, ads, middle, end)? {
        let line = conversions(paid.count, paid.currency.as_deref(), paid.amount_micros);
        read.campaigns.entry(ad).or_default().add(&line);
    }
    Ok((read, before))
}

/// [`span`] from the campaigns' rows, all but each campaign's conversions: their stats per
/// UTC day, or per stored hour where the days are not UTC's (`bounds`, and whether they are),
/// and the conversions per day and event.
fn rows_span(
    conn: &Connection,
    account: i64,
    ads: &[i64],
    span: Span,
    (bounds, utc_days): (&[String], bool),
) -> Result<(Read, Sum), OpsError> {
    let (start, end) = (&bounds[0], &bounds[bounds.len() - 1]);
    let day = |at: &str| day_of(bounds, span.previous().from(), at);
    let mut read = Read::default();
    let mut before = Sum::default();
    let stats = if utc_days {
        rows::days(conn, account, &start[..10], &end[..10])?
    } else {
        rows::hours(conn, account, start, end)?
    };
    for row in stats {
        if ads.binary_search(&row.ad_id).is_err() {
            continue;
        }
        let Some(on) = day(&row.day) else {
            continue;
        };
        let line = Sum {
            totals: row.totals,
            ..Sum::default()
        };
        if read.delivered(&mut before, span.from(), on, &line) {
            read.campaigns.entry(row.ad_id).or_default().add(&line);
        }
    }
    let converted = if utc_days {
        rows::conversions_per_day(conn, account, ads, start, end)?
    } else {
        rows::conversions_per_minute(conn, account, ads, start, end)?
    };
    for (at, c) in converted {
        if let Some(on) = day(&at) {
            read.converted(&mut before, span.from(), on, &c);
        }
    }
    Ok((read, before))
}

impl Read {
    /// Adds a stats `line` of day `on`: to `before` when `on` comes before `from` (false), else
    /// to the total and the day (true).
    fn delivered(&mut self, before: &mut Sum, from: NaiveDate, on: NaiveDate, line: &Sum) -> bool {
        if on < from {
            before.add(line);
            return false;
        }
        self.total.add(line);
        self.days.entry(on).or_default().add(line);
        true
    }

    /// Adds conversions `c` received on day `on`: to `before` when `on` comes before `from`,
    /// else to the total, the day and their event.
    fn converted(&mut self, before: &mut Sum, from: NaiveDate, on: NaiveDate, c: &rows::Converted) {
        let line = conversions(c.count, c.currency.as_deref(), c.amount_micros);
        if !self.delivered(before, from, on, &line) {
            return;
        }
        let event = self.events.entry(c.event_type.clone()).or_default();
        event.0 = event.0.saturating_add(c.count);
        for (currency, amount) in line.revenue {
            let sum = event.1.entry(currency).or_default();
            *sum = sum.saturating_add(amount);
        }
    }
}

/// Whether every campaign of the cabinet still has its hours from `from` on (none of its days
/// from then on rolled up): the cabinet's oldest hourly row is no later.
fn hours_kept_from(conn: &Connection, account: i64, from: &str) -> Result<bool, OpsError> {
    Ok(rows::oldest_hour(conn, account)?.is_some_and(|oldest| oldest.as_str() <= from))
}

/// [`span`] of a whole cabinet through what is kept: its sums per local day (and the period
/// before) from its daily rows and the hours their ends cut (`kept::days`), its conversions
/// per day and event from theirs (`converted::per_span`) and each campaign's sums from its runs
/// (`runs::per_campaign`); [`span`] adds each campaign's conversions. The same figures as the
/// rows give: the cabinet's hours are its campaigns' hours summed, a span whose days are not
/// UTC's is read this way only where no campaign's hours are rolled up, and every conversion of
/// the cabinet is attributed to its campaigns.
fn kept_span(
    conn: &Connection,
    account: i64,
    ads: &[i64],
    span: Span,
    bounds: &[String],
) -> Result<(Read, Sum), OpsError> {
    let spans = kept::Spans::new(bounds.to_vec());
    let days = kept::days(conn, account, &spans)?;
    let converted = converted::per_span(conn, account, &spans)?;
    let before_days = span.previous().days() as usize;
    let mut read = Read::default();
    let mut before = Sum::default();
    for (i, (totals, events)) in days.into_iter().zip(converted).enumerate() {
        let on = span.previous().from() + chrono::Days::new(i as u64);
        if !totals.is_idle() {
            let line = Sum {
                totals,
                ..Sum::default()
            };
            read.delivered(&mut before, span.from(), on, &line);
        }
        for ((event_type, currency), tally) in events {
            let c = rows::Converted {
                event_type,
                currency: (!currency.is_empty()).then_some(currency),
                count: tally.count,
                amount_micros: tally.amount,
            };
            read.converted(&mut before, span.from(), on, &c);
        }
    }
    let (middle, end) = (&bounds[before_days], &bounds[bounds.len() - 1]);
    for (ad, totals) in runs::per_campaign(conn, account, middle, end)? {
        if ads.binary_search(&ad).is_ok() {
            let line = Sum {
                totals,
                ..Sum::default()
            };
            read.campaigns.entry(ad).or_default().add(&line);
        }
    }
    Ok((read, before))
}

/// A line of `count` conversions worth `amount` micro-units of `currency` (none without one).
fn conversions(count: i64, currency: Option<&str>, amount: i128) -> Sum {
    let mut line = Sum {
        conversions: count,
        ..Sum::default()
    };
    if let Some(currency) = currency {
        line.revenue.insert(currency.to_string(), amount);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::money::Money;
    use crate::domain::stats::Totals;
    use crate::store::{retention, stats};
    use chrono::{Duration, TimeZone, Utc};
    use chrono_tz::Tz;

    /// A cabinet of three campaigns as the hourly sync leaves it after ten days: every hour's
    /// rows and runs, the cabinet's hours; purchases (one campaign each, or two sharing a ref)
    /// through the days; the first four days rolled up by retention.
    fn ten_synced_days() -> rusqlite::Connection {
        let conn = crate::store::test_db();
        for ad in [1, 2, 3] {
            crate::store::test_campaign(&conn, 7, ad);
        }
        let start = Utc.with_ymd_and_hms(2026, 11, 10, 0, 0, 0).unwrap();
        for h in 0..240 {
            let hour = crate::clock::iso(start + Duration::hours(h));
            let mut runs = crate::store::runs::for_hour(&conn, 7, &hour, &[1, 2, 3]).unwrap();
            for ad in [1, 2, 3] {
                let n = (h * 7 + ad * 13) % 50;
                let gain = Totals {
                    views: n * 10,
                    opens: n,
                    clicks: n / 3,
                    actions: n % 4,
                    spent: Money::from_micros(n * 12_345),
                };
                stats::Gains::new(&conn)
                    .unwrap()
                    .record(7, ad, &hour, &gain, &mut runs)
                    .unwrap();
            }
            stats::total_cabinet_hour(&conn, 7, &hour).unwrap();
            if h % 5 == 0 {
                let at = crate::clock::iso(start + Duration::hours(h) + Duration::minutes(17));
                let (ad, currency) = match h % 3 {
                    0 => (Some(1), Some("EUR")),
                    1 => (Some(2), None),
                    _ => (None, Some("USD")),
                };
                conn.execute(
                    "INSERT INTO conversions (holder_id, txid, event_type, amount_micros,
                        currency, account_id, ad_id, received_at, updated_at)
                     VALUES (1, ?1, 'purchase', ?2, ?3, 7, ?4, ?5, 't')",
                    rusqlite::params![format!("t{h}"), h * 1000, currency, ad, at],
                )
                .unwrap();
                if ad.is_none() {
                    let id = conn.last_insert_rowid();
                    conn.execute_batch(&format!(
                        "INSERT INTO conversion_campaigns (conversion_id, account_id, ad_id)
                         VALUES ({id}, 7, 2), ({id}, 7, 3);"
                    ))
                    .unwrap();
                }
            }
        }
        for ad in [1, 2, 3] {
            retention::roll_campaign(&conn, 7, ad, "2026-11-14T00:00:00Z").unwrap();
        }
        conn
    }

    #[test]
    fn a_whole_cabinets_report_read_through_what_is_kept_equals_its_rows() {
        let conn = ten_synced_days();
        let moscow: Tz = "Europe/Moscow".parse().unwrap();
        let kathmandu: Tz = "Asia/Kathmandu".parse().unwrap();
        let span = |from, to, zone| Span::new(d(from), d(to)).unwrap().in_zone(zone);
        for (what, span) in [
            ("UTC, hours", span("2026-11-17", "2026-11-19", Tz::UTC)),
            (
                "UTC, rolled days",
                span("2026-11-13", "2026-11-16", Tz::UTC),
            ),
            ("Moscow, hours", span("2026-11-18", "2026-11-19", moscow)),
            (
                "Kathmandu, hours",
                span("2026-11-18", "2026-11-19", kathmandu),
            ),
        ] {
            let kept = super::span(&conn, 7, &[1, 2, 3], span, true).unwrap();
            let rows = super::span(&conn, 7, &[1, 2, 3], span, false).unwrap();
            assert!(
                kept.0.total.totals.views > 0 && kept.0.total.conversions > 0,
                "{what}"
            );
            assert_eq!(kept.0.campaigns.len(), 3, "{what}");
            assert_eq!(kept, rows, "{what}");
        }
        // Where a local day of the span would cut a rolled-up day, the rows are read (a
        // campaign's runs would count the day whole or not at all).
        assert!(!hours_kept_from(&conn, 7, "2026-11-12T21:00:00Z").unwrap());
        assert!(hours_kept_from(&conn, 7, "2026-11-14T00:00:00Z").unwrap());
        // The period before, a total, is the cabinet's hours in it even where the rows would
        // count a rolled-up day in the local day holding its noon.
        let span = span("2026-11-17", "2026-11-19", moscow);
        let (_, before) = super::span(&conn, 7, &[1, 2, 3], span, true).unwrap();
        let hours = kept::by_hours(&conn, 7, &span.previous().bounds()).unwrap();
        let mut summed = Totals::default();
        hours.iter().for_each(|t| summed.add(t));
        assert_eq!(before.totals, summed);
    }

    fn d(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn a_zone_east_of_utc_reads_the_hours_of_its_own_days() {
        let conn = crate::store::test_db();
        conn.execute_batch(
            "INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros) VALUES (7, 1, '2026-11-26T20:00:00Z', 10, 0, 1, 0, 1000000);
             INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros) VALUES (7, 1, '2026-11-26T21:00:00Z', 20, 0, 2, 0, 2000000);
             INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros) VALUES (7, 1, '2026-11-27T23:00:00Z', 40, 0, 4, 0, 4000000);
             INSERT INTO daily_stats (account_id, ad_id, day, views, opens, clicks, actions, spent_micros) VALUES (7, 1, '2026-11-20', 500, 0, 5, 0, 5000000);
             INSERT INTO conversions (holder_id, txid, event_type, account_id, ad_id,
                received_at, updated_at)
                VALUES (1, 'x', 'purchase', 7, 1, '2026-11-27T23:30:00Z', 't');",
        )
        .unwrap();
        let moscow: Tz = "Europe/Moscow".parse().unwrap();
        let span = Span::new(d("2026-11-27"), d("2026-11-28"))
            .unwrap()
            .in_zone(moscow);
        let (read, before) = super::span(&conn, 7, &[1], span, false).unwrap();
        assert_eq!(
            read.total.totals.views, 60,
            "20:00 UTC is the 26th in Moscow"
        );
        assert_eq!(before.totals.views, 10, "the days before, in Moscow");
        assert_eq!(read.days[&d("2026-11-27")].totals.views, 20);
        assert_eq!(read.days[&d("2026-11-28")].totals.views, 40);
        assert_eq!(read.days[&d("2026-11-28")].conversions, 1);
        // In UTC the same hours are other days'.
        let (utc, _) = super::span(&conn, 7, &[1], span.in_zone(Tz::UTC), false).unwrap();
        assert_eq!(utc.days[&d("2026-11-27")].totals.views, 40);
        assert_eq!(utc.days[&d("2026-11-27")].conversions, 1);
        assert!(!utc.days.contains_key(&d("2026-11-28")));
        // A rolled-up day counts whole in the local day holding its noon.
        let week = Span::new(d("2026-11-20"), d("2026-11-20"))
            .unwrap()
            .in_zone(moscow);
        let (rolled, _) = super::span(&conn, 7, &[1], week, false).unwrap();
        assert_eq!(rolled.total.totals.views, 500);
    }
}
