//! Owns the reads of what a cabinet's conversions came to over consecutive spans (the home
//! page's periods, a report's days), through their daily rows (`cabinet_conversion_days`,
//! migration 49, kept by triggers on `conversions`) and weekly rows (`cabinet_conversion_weeks`,
//! migration 56, kept by triggers on the daily rows): each UTC day's rows count in the span
//! holding its noon, a whole week's from its week's rows where all its days count in one span
//! (`kept::Plan`), and the conversions between a bound that is not a UTC midnight and its
//! nearest midnight are moved to their own span, as `kept::days` moves hours: the whole hours
//! there through their hourly rows (`cabinet_conversion_hours`, migration 54), the bound's own
//! hour one by one; so each span's figures are those of the conversions received in it, in any
//! zone. Writes nothing.

use std::collections::BTreeMap;

use rusqlite::{params, Connection};

use super::conversions::join;
use super::kept::{kept_rows, Cabinets, Known, Rows, Spans};
use super::StoreError;

/// Conversions of one event and currency: how many, how many named an amount, and the sum of
/// those amounts (micro-units, exact).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub count: i64,
    pub priced: i64,
    pub amount: i128,
}

impl Tally {
    /// Adds `other`, or with `add` false takes it away.
    fn moved(&mut self, other: Tally, add: bool) {
        let sign = if add { 1 } else { -1 };
        self.count = self.count.saturating_add(sign * other.count);
        self.priced = self.priced.saturating_add(sign * other.priced);
        self.amount = self.amount.saturating_add(i128::from(sign) * other.amount);
    }
}

/// A span's conversions by event type and currency (`""` for none), the keys in order; an
/// event and currency none of its conversions had is absent.
pub type Events = BTreeMap<(String, String), Tally>;

/// A span's conversions as the home page shows them: how many, and their revenue per currency
/// named with an amount (micro-units, exact), currencies in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Converted {
    pub count: i64,
    pub revenue: Vec<(String, i128)>,
}

impl Converted {
    /// The conversions of `events` together.
    pub fn of(events: &Events) -> Converted {
        let mut count: i64 = 0;
        let mut currencies: BTreeMap<&str, (i64, i128)> = BTreeMap::new();
        for ((_, currency), tally) in events {
            count = count.saturating_add(tally.count);
            let entry = currencies.entry(currency).or_default();
            entry.0 = entry.0.saturating_add(tally.priced);
            entry.1 = entry.1.saturating_add(tally.amount);
        }
        Converted {
            count,
            revenue: currencies
                .into_iter()
                .filter(|(currency, (priced, _))| !currency.is_empty() && *priced > 0)
                .map(|(currency, (_, amount))| (currency.to_string(), amount))
                .collect(),
        }
    }
}

/// The conversions of a cabinet received in `[from, to)` (ISO times), one by one: the edges
/// [`per_span`] reads, and the whole spans it reads when the daily rows cannot serve them.
const RECEIVED: &str = "
    SELECT received_at, event_type, COALESCE(currency, ''), amount_micros FROM conversions
    WHERE account_id = ?1 AND received_at >= ?2 AND received_at < ?3";

/// One conversion as [`RECEIVED`] reads it: its time, event and currency, and its tally.
fn received(r: &rusqlite::Row) -> rusqlite::Result<(String, (String, String), Tally)> {
    let amount: Option<i64> = r.get(3)?;
    Ok((
        r.get(0)?,
        (r.get(1)?, r.get(2)?),
        Tally {
            count: 1,
            priced: i64::from(amount.is_some()),
            amount: i128::from(amount.unwrap_or(0)),
        },
    ))
}

/// The tally of a kept row (daily, weekly or hourly) read with its `count, priced,
/// amount_high, amount_low` from column `first` on.
fn kept_tally(r: &rusqlite::Row, first: usize) -> rusqlite::Result<Tally> {
    Ok(Tally {
        count: r.get(first)?,
        priced: r.get(first + 1)?,
        amount: join(r.get(first + 2)?, r.get(first + 3)?),
    })
}

/// Adds `tally` (or with `add` false takes it away) to the event and currency of a kept row
/// (its columns 2 and 3) in `events`, which holds a few: the row's text is compared with each,
/// and a key is made only for a new one, not for every row.
fn add_row(
    events: &mut Events,
    r: &rusqlite::Row,
    tally: Tally,
    add: bool,
) -> rusqlite::Result<()> {
    let text = |i: usize| r.get_ref(i)?.as_str().map_err(rusqlite::Error::from);
    let (event, currency) = (text(2)?, text(3)?);
    if let Some((_, kept)) = events
        .iter_mut()
        .find(|((e, c), _)| e == event && c == currency)
    {
        kept.moved(tally, add);
        return Ok(());
    }
    events
        .entry((event.to_string(), currency.to_string()))
        .or_default()
        .moved(tally, add);
    Ok(())
}

/// Moves a conversion, or a kept row of them, from the span of its day to its own (`(day,
/// own)`, as `Plan::moves` gives them) in a cabinet's `found`: `add` takes it away from the
/// first (`false`) and adds it to the second (`true`).
fn shift(
    found: &mut [Events],
    (day, own): (Option<usize>, Option<usize>),
    mut add: impl FnMut(&mut Events, bool) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    if let Some(i) = day {
        add(&mut found[i], false)?;
    }
    if let Some(i) = own {
        add(&mut found[i], true)?;
    }
    Ok(())
}

/// The weekly, daily and hourly rows' reads, of one cabinet and of every one.
const WEEKS: Rows = kept_rows!(
    "cabinet_conversion_weeks",
    "week",
    "event_type, currency, count, priced, amount_high, amount_low",
    "<="
);
const DAYS: Rows = kept_rows!(
    "cabinet_conversion_days",
    "day",
    "event_type, currency, count, priced, amount_high, amount_low",
    "<="
);
const HOURS: Rows = kept_rows!(
    "cabinet_conversion_hours",
    "hour",
    "event_type, currency, count, priced, amount_high, amount_low",
    "<"
);

/// A cabinet's conversions per span of `spans`, each those received in the span.
pub fn per_span(conn: &Connection, account: i64, spans: &Spans) -> Result<Vec<Events>, StoreError> {
    let cabinets = Cabinets::new(conn, &[account])?;
    Ok(per_span_of(conn, &cabinets, spans)?
        .pop()
        .unwrap_or_default())
}

/// [`per_span`] of each of `cabinets`, in their order.
pub fn per_span_of(
    conn: &Connection,
    cabinets: &Cabinets,
    spans: &Spans,
) -> Result<Vec<Vec<Events>>, StoreError> {
    let empty: Vec<Events> = (0..spans.len()).map(|_| Events::new()).collect();
    let mut found = vec![empty; cabinets.len()];
    let mut one_by_one = conn.prepare_cached(RECEIVED)?;
    let Some(plan) = &spans.plan else {
        let (Some(first), Some(last)) = (spans.bounds.first(), spans.bounds.last()) else {
            return Ok(found);
        };
        for (account, place) in cabinets.each() {
            for row in one_by_one.query_map(params![account, first, last], received)? {
                let (at, key, tally) = row?;
                if let Some(i) = spans.of(&at) {
                    found[place][i].entry(key).or_default().moved(tally, true);
                }
            }
        }
        return Ok(found);
    };
    plan.read(conn, cabinets, (&WEEKS, &DAYS), |i, place, r| {
        add_row(&mut found[place][i], r, kept_tally(r, 4)?, true)?;
        Ok(())
    })?;
    // Each edge's whole hours are read from their rows, the conversions of the rest of it (the
    // bound's own hour) one by one; each is moved from its day's span to its own.
    for edge in &plan.edges {
        let (first, last) = &edge.hours;
        if first < last {
            let mut known = Known::new();
            cabinets.read(conn, &HOURS, (first, last), |place, r| {
                if let Some(moves) = known.of(r, |hour| plan.moves(spans, hour))? {
                    let tally = kept_tally(r, 4)?;
                    shift(&mut found[place], moves, |events, add| {
                        add_row(events, r, tally, add)
                    })?;
                }
                Ok(())
            })?;
        }
        let (from, to) = &edge.rest;
        if from < to {
            for (account, place) in cabinets.each() {
                for row in one_by_one.query_map(params![account, from, to], received)? {
                    let (at, key, tally) = row?;
                    if let Some(moves) = plan.moves(spans, &at) {
                        shift(&mut found[place], moves, |events, add| {
                            events.entry(key.clone()).or_default().moved(tally, add);
                            Ok(())
                        })?;
                    }
                }
            }
        }
    }
    for events in found.iter_mut().flatten() {
        events.retain(|_, tally| tally.count != 0);
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time::iso;
    use crate::store::{kept_check, test_db};
    use chrono::{DateTime, Duration, TimeZone, Utc};

    /// Conversions every 37 minutes for three weeks from a Friday, of two events in two
    /// currencies, some without an amount or a currency, some refunds; then some moved (one
    /// into the next week), repriced and removed.
    fn conversions_of_three_weeks(conn: &Connection) -> DateTime<Utc> {
        let start = Utc.with_ymd_and_hms(2026, 11, 20, 0, 0, 0).unwrap();
        let mut insert = conn
            .prepare(
                "INSERT INTO conversions (holder_id, txid, event_type, amount_micros, currency,
                    account_id, received_at, updated_at)
                 VALUES (1, ?1, ?2, ?3, ?4, 7, ?5, 'x')",
            )
            .unwrap();
        for i in 0..(21 * 24 * 60 / 37) {
            let at = iso(start + Duration::minutes(37 * i));
            let (event, amount, currency) = match i % 5 {
                0 => ("lead", None, None),
                1 => ("purchase", Some(2_500_000 * i), Some("USD")),
                2 => ("purchase", Some(-700_000), Some("USD")),
                3 => ("purchase", Some(999_999_999_999_999), Some("EUR")),
                _ => ("conversion", None, Some("EUR")),
            };
            insert
                .execute(params![format!("t{i}"), event, amount, currency, at])
                .unwrap();
        }
        conn.execute_batch(
            "UPDATE conversions SET received_at = '2026-11-23T23:59:59Z' WHERE txid = 't7';
             UPDATE conversions SET amount_micros = 1, currency = 'GBP' WHERE txid = 't11';
             UPDATE conversions SET amount_micros = NULL WHERE txid = 't13';
             UPDATE conversions SET event_type = 'lead' WHERE txid = 't16';
             DELETE FROM conversions WHERE txid IN ('t3', 't40', 't41');",
        )
        .unwrap();
        start
    }

    /// The conversions of the cabinet `account` received in each span, read one by one.
    fn one_by_one(conn: &Connection, account: i64, bounds: &[String]) -> Vec<Events> {
        bounds
            .windows(2)
            .map(|w| {
                let mut events = Events::new();
                let mut stmt = conn.prepare(RECEIVED).unwrap();
                for row in stmt
                    .query_map(params![account, w[0], w[1]], received)
                    .unwrap()
                {
                    let (_, key, tally) = row.unwrap();
                    events.entry(key).or_default().moved(tally, true);
                }
                events
            })
            .collect()
    }

    #[test]
    fn conversions_read_through_daily_rows_equal_the_conversions_in_every_zone() {
        let conn = test_db();
        let start = conversions_of_three_weeks(&conn);
        let mut spans: Vec<Vec<String>> = [-720, -480, -210, 0, 60, 330, 345, 720, 840]
            .iter()
            .map(|offset| {
                (0..=4)
                    .map(|d| iso(start + Duration::days(d) - Duration::minutes(*offset)))
                    .collect()
            })
            .collect();
        // Two periods of whole weeks and days around them, in each zone: read partly from the
        // weekly rows.
        for offset in [-720, -210, 0, 345, 840] {
            let bounds: Vec<String> = [1, 9, 20]
                .iter()
                .map(|d| iso(start + Duration::days(*d) - Duration::minutes(offset)))
                .collect();
            let plan = Spans::new(bounds.clone()).plan.unwrap();
            assert!(!plan.weeks.is_empty(), "{bounds:?}");
            spans.push(bounds);
        }
        // Bounds the daily rows cannot serve (closer than 12 hours): read one by one.
        spans.push(vec![
            iso(start + Duration::hours(30)),
            iso(start + Duration::hours(35)),
        ]);
        for bounds in spans {
            let kept = per_span(&conn, 7, &Spans::new(bounds.clone())).unwrap();
            let read = one_by_one(&conn, 7, &bounds);
            assert!(read.iter().all(|e| e.len() >= 3), "{bounds:?}");
            assert_eq!(kept, read, "{bounds:?}");
        }
        let figures = kept_check::check(&conn).unwrap();
        for name in [
            "cabinet_conversion_days",
            "cabinet_conversion_weeks",
            "cabinet_conversion_hours",
        ] {
            let kept = figures.iter().find(|f| f.name == name).unwrap();
            assert!(
                kept.rows > 5 && kept.equal(),
                "{name}: {:?}",
                kept.differences
            );
        }

        conn.execute(
            "UPDATE cabinet_conversion_days SET priced = priced + 1 WHERE day = '2026-11-21'
                AND event_type = 'purchase' AND currency = 'EUR'",
            [],
        )
        .unwrap();
        let figures = kept_check::check(&conn).unwrap();
        let days = figures
            .iter()
            .find(|f| f.name == "cabinet_conversion_days")
            .unwrap();
        assert_eq!(days.differing, 1);
        assert_eq!(
            days.differences[0].key,
            "cabinet 7, 2026-11-21, purchase, EUR"
        );

        // The day changed behind the conversions' triggers carried its week with it; a week
        // changed behind the days' triggers is named too.
        conn.execute(
            "UPDATE cabinet_conversion_weeks SET amount_low = amount_low + 1
             WHERE week = '2026-11-30' AND event_type = 'purchase' AND currency = 'USD'",
            [],
        )
        .unwrap();
        let figures = kept_check::check(&conn).unwrap();
        let weeks = figures
            .iter()
            .find(|f| f.name == "cabinet_conversion_weeks")
            .unwrap();
        let keys: Vec<&str> = weeks.differences.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "cabinet 7, 2026-11-16, purchase, EUR",
                "cabinet 7, 2026-11-30, purchase, USD"
            ]
        );

        conn.execute(
            "UPDATE cabinet_conversion_hours SET count = count - 1
             WHERE hour = '2026-11-20T00:00:00Z' AND event_type = 'lead'",
            [],
        )
        .unwrap();
        let figures = kept_check::check(&conn).unwrap();
        let hours = figures
            .iter()
            .find(|f| f.name == "cabinet_conversion_hours")
            .unwrap();
        assert_eq!(hours.differing, 1);
        assert_eq!(
            hours.differences[0].key,
            "cabinet 7, 2026-11-20T00:00:00Z, lead"
        );
    }

    #[test]
    fn cabinets_conversions_read_together_equal_each_read_alone_in_every_zone() {
        let conn = test_db();
        let start = conversions_of_three_weeks(&conn);
        crate::store::kept::tests::more_cabinets(&conn);
        // Cabinet 8's conversions are 7's with other amounts and a day later; 9 has none.
        conn.execute_batch(
            "INSERT INTO conversions (holder_id, txid, event_type, amount_micros, currency,
                account_id, received_at, updated_at)
             SELECT 1, 'e' || txid, event_type, amount_micros / 3, currency, 8,
                strftime('%Y-%m-%dT%H:%M:%SZ', received_at, '+1 day'), 'x'
             FROM conversions WHERE account_id = 7;",
        )
        .unwrap();
        for offset in [-720, -210, 0, 345, 840] {
            let at = |d: i64| iso(start + Duration::days(d) - Duration::minutes(offset));
            let bounds: Vec<String> = vec![at(1), at(11), at(19)];
            let spans = Spans::new(bounds.clone());
            assert!(!spans.plan.as_ref().unwrap().weeks.is_empty(), "{bounds:?}");
            // With 8's conversions and without them (skipped), then two of six alone.
            for (accounts, together) in [
                (&[8, 9, 7][..], true),
                (&[7, 9, 10], true),
                (&[7, 8], false),
            ] {
                let cabinets = Cabinets::new(&conn, accounts).unwrap();
                assert_eq!(cabinets.together, together);
                let read = per_span_of(&conn, &cabinets, &spans).unwrap();
                let alone: Vec<Vec<Events>> = accounts
                    .iter()
                    .map(|a| one_by_one(&conn, *a, &bounds))
                    .collect();
                assert_eq!(read, alone, "{bounds:?} {accounts:?}");
                assert!(read[0][1].len() >= 3, "{bounds:?}");
            }
        }
    }

    #[test]
    fn an_edges_whole_hours_are_those_between_its_ends() {
        let hours = |bound: &str| {
            let spans = Spans::new(vec![bound.to_string()]);
            let edge = &spans.plan.unwrap().edges[0];
            let whole = (edge.hours.0 < edge.hours.1).then(|| edge.hours.clone());
            let rest = (edge.rest.0 < edge.rest.1).then(|| edge.rest.clone());
            (whole, rest)
        };
        let span = |from: &str, to: &str| Some((from.to_string(), to.to_string()));
        assert_eq!(
            hours("2026-11-20T05:30:00Z"),
            (
                span("2026-11-20T00:00:00Z", "2026-11-20T05:00:00Z"),
                span("2026-11-20T05:00:00Z", "2026-11-20T05:30:00Z")
            )
        );
        assert_eq!(
            hours("2026-11-20T18:15:00Z"),
            (
                span("2026-11-20T19:00:00Z", "2026-11-21T00:00:00Z"),
                span("2026-11-20T18:15:00Z", "2026-11-20T19:00:00Z")
            )
        );
        assert_eq!(
            hours("2026-11-20T23:00:00Z"),
            (span("2026-11-20T23:00:00Z", "2026-11-21T00:00:00Z"), None)
        );
        assert_eq!(
            hours("2026-11-20T23:10:00Z"),
            (None, span("2026-11-20T23:10:00Z", "2026-11-21T00:00:00Z"))
        );
        assert_eq!(
            hours("2026-11-20T00:59:59Z"),
            (None, span("2026-11-20T00:00:00Z", "2026-11-20T00:59:59Z"))
        );
    }

    #[test]
    fn the_home_pages_figures_count_every_conversion_and_sum_revenue_per_named_currency() {
        let conn = test_db();
        conn.execute_batch(
            "INSERT INTO conversions (holder_id, txid, event_type, amount_micros, currency,
                account_id, received_at, updated_at) VALUES
                (1, 'a', 'purchase', 2500000, 'USD', 7, '2026-11-27T10:00:00Z', 'x'),
                (1, 'b', 'lead', 500000, 'USD', 7, '2026-11-27T11:00:00Z', 'x'),
                (1, 'c', 'lead', NULL, NULL, 7, '2026-11-27T12:00:00Z', 'x'),
                (1, 'e', 'lead', NULL, 'EUR', 7, '2026-11-27T12:00:00Z', 'x'),
                (1, 'd', 'lead', NULL, NULL, 7, '2026-11-29T12:00:00Z', 'x');",
        )
        .unwrap();
        let bounds = [
            "2026-11-27T00:00:00Z",
            "2026-11-28T00:00:00Z",
            "2026-11-30T00:00:00Z",
        ];
        let spans = Spans::new(bounds.map(String::from).to_vec());
        let found = per_span(&conn, 7, &spans).unwrap();
        let first = Converted::of(&found[0]);
        assert_eq!(first.count, 4);
        assert_eq!(first.revenue, vec![("USD".to_string(), 3_000_000)]);
        assert_eq!(Converted::of(&found[1]).count, 1);
    }
}
