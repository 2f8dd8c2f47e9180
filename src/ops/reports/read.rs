//! Owns what a client report's span and the period before it sum to, both read in one range
//! in three queries whatever their length: the campaigns' stats (per UTC day where the days
//! are UTC days, else per stored hour, each sorted into the local day it starts in, and a day
//! retention rolled up into the local day holding its noon), their conversions per day and
//! event, and the span's conversions per campaign.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use rusqlite::Connection;

use super::figures::Sum;
use super::span::{day_of, Span};
use crate::ops::OpsError;
use crate::store::reports as rows;

/// What the span sums to: in all, per day, per campaign, and conversions per event.
#[derive(Default)]
pub(super) struct Read {
    pub total: Sum,
    pub days: BTreeMap<NaiveDate, Sum>,
    pub campaigns: BTreeMap<i64, Sum>,
    pub events: BTreeMap<String, (i64, BTreeMap<String, i128>)>,
}

/// The sums of the campaigns `ads` (in order) of `account` over `span`, and the total of the
/// period of the same length before it.
pub(super) fn span(
    conn: &Connection,
    account: i64,
    ads: &[i64],
    span: Span,
) -> Result<(Read, Sum), OpsError> {
    let whole = span.with_previous();
    let bounds = whole.bounds();
    let before_days = span.previous().days() as usize;
    let (Some(start), Some(middle), Some(end)) =
        (bounds.first(), bounds.get(before_days), bounds.last())
    else {
        return Ok((Read::default(), Sum::default()));
    };
    let utc_days = whole.on_utc_days();
    let day = |at: &str| day_of(&bounds, whole.from(), at);
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
        if on < span.from() {
            before.add(&line);
            continue;
        }
        read.total.add(&line);
        read.days.entry(on).or_default().add(&line);
        read.campaigns.entry(row.ad_id).or_default().add(&line);
    }
    for (ad, c) in rows::conversions_per_campaign(conn, account, ads, middle, end)? {
        let line = conversions(&c);
        read.campaigns.entry(ad).or_default().add(&line);
    }
    let converted = if utc_days {
        rows::conversions_per_day(conn, account, ads, start, end)?
    } else {
        rows::conversions_per_minute(conn, account, ads, start, end)?
    };
    for (at, c) in converted {
        let line = conversions(&c);
        let Some(on) = day(&at) else {
            continue;
        };
        if on < span.from() {
            before.add(&line);
            continue;
        }
        read.total.add(&line);
        read.days.entry(on).or_default().add(&line);
        let event = read.events.entry(c.event_type.clone()).or_default();
        event.0 = event.0.saturating_add(c.count);
        for (currency, amount) in line.revenue {
            let sum = event.1.entry(currency).or_default();
            *sum = sum.saturating_add(amount);
        }
    }
    Ok((read, before))
}

fn conversions(c: &rows::Converted) -> Sum {
    let mut line = Sum {
        conversions: c.count,
        ..Sum::default()
    };
    if let Some(currency) = &c.currency {
        line.revenue.insert(currency.clone(), c.amount_micros);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::Tz;

    fn d(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn a_zone_east_of_utc_reads_the_hours_of_its_own_days() {
        let conn = crate::store::test_db();
        conn.execute_batch(
            "INSERT INTO hourly_stats (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros) VALUES (7, 1, '2026-11-26T20:00:00Z', 10, 0, 1, 0, 1000000);
             INSERT INTO hourly_stats (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros) VALUES (7, 1, '2026-11-26T21:00:00Z', 20, 0, 2, 0, 2000000);
             INSERT INTO hourly_stats (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros) VALUES (7, 1, '2026-11-27T23:00:00Z', 40, 0, 4, 0, 4000000);
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
        let (read, before) = super::span(&conn, 7, &[1], span).unwrap();
        assert_eq!(
            read.total.totals.views, 60,
            "20:00 UTC is the 26th in Moscow"
        );
        assert_eq!(before.totals.views, 10, "the days before, in Moscow");
        assert_eq!(read.days[&d("2026-11-27")].totals.views, 20);
        assert_eq!(read.days[&d("2026-11-28")].totals.views, 40);
        assert_eq!(read.days[&d("2026-11-28")].conversions, 1);
        // In UTC the same hours are other days'.
        let (utc, _) = super::span(&conn, 7, &[1], span.in_zone(Tz::UTC)).unwrap();
        assert_eq!(utc.days[&d("2026-11-27")].totals.views, 40);
        assert_eq!(utc.days[&d("2026-11-27")].conversions, 1);
        assert!(!utc.days.contains_key(&d("2026-11-28")));
        // A rolled-up day counts whole in the local day holding its noon.
        let week = Span::new(d("2026-11-20"), d("2026-11-20"))
            .unwrap()
            .in_zone(moscow);
        let (rolled, _) = super::span(&conn, 7, &[1], week).unwrap();
        assert_eq!(rolled.total.totals.views, 500);
    }
}
