//! Owns `conversions` (one reported event per sender and `txid`, with its campaign in `ad_id`
//! when it is attributed to one) and `conversion_campaigns` (the campaigns of an event
//! attributed to several, whose `ad_id` is NULL), and the reads behind `GET /v1/conversions`
//! and the conversion fields of campaign reads.

use std::collections::BTreeMap;

use rusqlite::types::Value as Sql;
use rusqlite::{params, params_from_iter, Connection};

use super::StoreError;
use crate::domain::conversion::EventType;

mod recorder;
pub use recorder::{Item, Recorder};

/// The amount two parts of `conversion_totals` (and `cabinet_conversion_days`) stand for (see
/// [`SPLIT`]).
pub fn join(high: i64, low: i64) -> i128 {
    i128::from(high) * i128::from(SPLIT) + i128::from(low)
}

/// An amount as the two parts `conversion_totals` sums it in (see [`SPLIT`]).
fn split(amount: i128) -> Result<(i64, i64), StoreError> {
    let split = i128::from(SPLIT);
    let high = i64::try_from(amount / split)
        .map_err(|_| StoreError::Failed(format!("a conversion total of {amount} micro-units")))?;
    let low = i64::try_from(amount % split).expect("a remainder of SPLIT fits in 64 bits");
    Ok((high, low))
}

/// Filters of `GET /v1/conversions`; they combine with AND.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub accounts: Vec<i64>,
    pub ad_id: Option<i64>,
    pub event: Option<&'static str>,
    /// `received_at` bounds, ISO 8601: `since` inclusive, `until` exclusive.
    pub since: Option<String>,
    pub until: Option<String>,
    /// Only ids above this (the cursor).
    pub after: i64,
}

/// One stored conversion and the campaigns it is attributed to.
#[derive(Debug, Clone)]
pub struct Conversion {
    pub id: i64,
    pub account_id: i64,
    pub ad_ids: Vec<i64>,
    pub event_type: String,
    pub txid: String,
    pub reference: Option<String>,
    pub invite_link: Option<String>,
    pub amount_micros: Option<i64>,
    pub currency: Option<String>,
    pub status: Option<String>,
    pub received_at: String,
    pub updated_at: String,
}

/// One page of conversions, oldest first, and whether more follow.
pub fn list(
    conn: &Connection,
    f: &ListFilter,
    limit: i64,
) -> Result<(Vec<Conversion>, bool), StoreError> {
    let accounts = super::ids_json(&f.accounts);
    let mut sql = String::from(
        "SELECT c.id, c.account_id, c.event_type, c.txid, c.ref, c.invite_link, c.amount_micros,
            c.currency, c.status, c.received_at, c.updated_at,
            CASE WHEN c.ad_id IS NOT NULL THEN json_array(c.ad_id) ELSE
                (SELECT json_group_array(ad_id) FROM conversion_campaigns WHERE conversion_id = c.id)
            END
         FROM conversions c
         WHERE c.account_id IN (SELECT value FROM json_each(?1)) AND c.id > ?2",
    );
    let mut args: Vec<Sql> = vec![Sql::Text(accounts), Sql::Integer(f.after)];
    if let Some(ad) = f.ad_id {
        args.push(Sql::Integer(ad));
        sql += &format!(
            " AND (c.ad_id = ?{0} OR (c.ad_id IS NULL AND EXISTS
                (SELECT 1 FROM conversion_campaigns a WHERE a.conversion_id = c.id AND a.ad_id = ?{0})))",
            args.len()
        );
    }
    if let Some(event) = f.event {
        args.push(Sql::Text(event.into()));
        sql += &format!(" AND c.event_type = ?{}", args.len());
    }
    if let Some(since) = &f.since {
        args.push(Sql::Text(since.clone()));
        sql += &format!(" AND c.received_at >= ?{}", args.len());
    }
    if let Some(until) = &f.until {
        args.push(Sql::Text(until.clone()));
        sql += &format!(" AND c.received_at < ?{}", args.len());
    }
    args.push(Sql::Integer(limit + 1));
    sql += &format!(" ORDER BY c.id LIMIT ?{}", args.len());
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt
        .query_map(params_from_iter(args), |r| {
            Ok(Conversion {
                id: r.get(0)?,
                account_id: r.get(1)?,
                event_type: r.get(2)?,
                txid: r.get(3)?,
                reference: r.get(4)?,
                invite_link: r.get(5)?,
                amount_micros: r.get(6)?,
                currency: r.get(7)?,
                status: r.get(8)?,
                received_at: r.get(9)?,
                updated_at: r.get(10)?,
                ad_ids: crate::db::json_column(r.get(11)?)?.unwrap_or_default(),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    Ok((rows, more))
}

/// The most recent conversions attributed to one campaign, newest first: event, amount,
/// currency, the tracker's reference and when it arrived.
pub fn recent_of_campaign(
    conn: &Connection,
    account: i64,
    ad: i64,
    limit: i64,
) -> Result<Vec<Recent>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT event_type, amount_micros, currency, ref, received_at FROM (
            SELECT * FROM (SELECT c.id, c.event_type, c.amount_micros, c.currency, c.ref,
                    c.received_at
                FROM conversions c WHERE c.account_id = ?1 AND c.ad_id = ?2
                ORDER BY c.id DESC LIMIT ?3)
            UNION ALL
            SELECT * FROM (SELECT c.id, c.event_type, c.amount_micros, c.currency, c.ref,
                    c.received_at
                FROM conversion_campaigns a JOIN conversions c ON c.id = a.conversion_id
                WHERE a.account_id = ?1 AND a.ad_id = ?2 ORDER BY c.id DESC LIMIT ?3))
         ORDER BY id DESC LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![account, ad, limit], |r| {
        Ok(Recent {
            event_type: r.get(0)?,
            amount_micros: r.get(1)?,
            currency: r.get(2)?,
            reference: r.get(3)?,
            received_at: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One conversion as a campaign's page lists it.
#[derive(Debug, Clone)]
pub struct Recent {
    pub event_type: String,
    pub amount_micros: Option<i64>,
    pub currency: Option<String>,
    pub reference: Option<String>,
    pub received_at: String,
}

/// How many conversions attributed to one campaign arrived in each hour (`YYYY-MM-DDTHH`)
/// of `[from, to)`, oldest first.
pub fn hours_of_campaign(
    conn: &Connection,
    account: i64,
    ad: i64,
    from: &str,
    to: &str,
) -> Result<Vec<(String, i64)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT h, COUNT(*) FROM (
            SELECT substr(c.received_at, 1, 13) AS h FROM conversions c
            WHERE c.account_id = ?1 AND c.ad_id = ?2
                AND c.received_at >= ?3 AND c.received_at < ?4
            UNION ALL
            SELECT substr(c.received_at, 1, 13)
            FROM conversion_campaigns a JOIN conversions c ON c.id = a.conversion_id
            WHERE a.account_id = ?1 AND a.ad_id = ?2
                AND c.received_at >= ?3 AND c.received_at < ?4)
         GROUP BY h ORDER BY h",
    )?;
    let rows = stmt.query_map(params![account, ad, from, to], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A campaign's conversions: counts per event type and revenue per currency, in micro-units
/// summed wide enough that no number of stored amounts can overflow.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub counts: EventCounts,
    pub revenue: BTreeMap<String, i128>,
}

/// Conversions counted per event type, held in place, in the order of their names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventCounts([i64; 3]);

impl EventCounts {
    const TYPES: [EventType; 3] = [EventType::Conversion, EventType::Lead, EventType::Purchase];

    fn slot(event: EventType) -> usize {
        match event {
            EventType::Conversion => 0,
            EventType::Lead => 1,
            EventType::Purchase => 2,
        }
    }

    /// The event types counted at least once, by name, each with its count.
    pub fn counted(&self) -> impl Iterator<Item = (EventType, i64)> + '_ {
        EventCounts::TYPES
            .iter()
            .map(|kind| (*kind, self.of(*kind)))
            .filter(|(_, n)| *n != 0)
    }

    /// The count of `event`.
    pub fn of(&self, event: EventType) -> i64 {
        self.0[EventCounts::slot(event)]
    }

    /// Every event type's count together.
    pub fn total(&self) -> i64 {
        self.0.iter().fold(0, |sum, n| sum.saturating_add(*n))
    }

    fn add(&mut self, event: EventType, count: i64) {
        let counted = &mut self.0[EventCounts::slot(event)];
        *counted = counted.saturating_add(count);
    }
}

/// Revenue totals are kept in two parts (billions of micro-units, and the rest) so that no
/// 64-bit column overflows, however large or many the stored amounts; the parts are joined
/// in 128 bits.
pub const SPLIT: i64 = 1_000_000_000;

impl Summary {
    /// A campaign's summary from the lines its row keeps (`campaigns.conversion_lines`,
    /// migration 60): one `event_type,currency,count,amount_high,amount_low` line per row of
    /// its `conversion_totals`, empty text for a missing currency or amount, joined by `;`.
    /// `None` when a line is not so written, or names an event type by other than its own name
    /// (`conversions` holds only those).
    pub fn of_lines(lines: &str) -> Option<Summary> {
        let mut summary = Summary::default();
        for line in lines.split(';') {
            let mut parts = line.split(',');
            let mut next = || parts.next();
            let (event, currency, count, high, low) = (next()?, next()?, next()?, next()?, next()?);
            if next().is_some() {
                return None;
            }
            let event = match event {
                "conversion" => EventType::Conversion,
                "lead" => EventType::Lead,
                "purchase" => EventType::Purchase,
                _ => return None,
            };
            let part = |text: &str| match text {
                "" => Some(None),
                text => text.parse::<i64>().ok().map(Some),
            };
            summary.counts.add(event, count.parse().ok()?);
            if let (false, Some(high), Some(low)) = (currency.is_empty(), part(high)?, part(low)?) {
                match summary.revenue.get_mut(currency) {
                    Some(sum) => *sum = sum.saturating_add(join(high, low)),
                    None => {
                        summary
                            .revenue
                            .insert(currency.to_string(), join(high, low));
                    }
                }
            }
        }
        Some(summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ad 5 of cabinet 7 with four conversions, each kept as one release or another keeps
    /// it: 1 as a row of `conversion_campaigns` (stored before migration 34), 2 in its own
    /// row (`ad_id`), 3 attributed to ads 5 and 6, 4 to ad 6 alone.
    fn stored() -> Connection {
        let conn = crate::store::test_db();
        conn.execute_batch(
            "INSERT INTO conversions (id, holder_id, txid, event_type, account_id, ad_id,
                received_at, updated_at) VALUES
                (1, 1, 'a', 'lead', 7, NULL, '2026-01-01T10:00:00Z', 'x'),
                (2, 1, 'b', 'lead', 7, 5, '2026-01-01T10:30:00Z', 'x'),
                (3, 1, 'c', 'lead', 7, NULL, '2026-01-01T11:00:00Z', 'x'),
                (4, 1, 'd', 'lead', 7, 6, '2026-01-01T11:00:00Z', 'x');
             INSERT INTO conversion_campaigns (conversion_id, account_id, ad_id) VALUES
                (1, 7, 5), (3, 7, 5), (3, 7, 6);",
        )
        .unwrap();
        conn
    }

    /// Campaign `ad` of cabinet 7's conversions as its row keeps them.
    fn kept(conn: &Connection, ad: i64) -> Summary {
        crate::store::campaigns::get(conn, 7, ad)
            .unwrap()
            .unwrap()
            .conversions
    }

    /// Campaign `ad` of cabinet 7's conversions worked out from its `conversion_totals` rows.
    fn totalled(conn: &Connection, ad: i64) -> Summary {
        let mut stmt = conn
            .prepare(
                "SELECT event_type, NULLIF(currency, ''), count, amount_high, amount_low
                 FROM conversion_totals WHERE account_id = 7 AND ad_id = ?1",
            )
            .unwrap();
        let mut rows = stmt.query([ad]).unwrap();
        let mut summary = Summary::default();
        while let Some(r) = rows.next().unwrap() {
            let event: String = r.get(0).unwrap();
            let event = EventType::parse(&event).unwrap();
            summary.counts.add(event, r.get(2).unwrap());
            let (currency, high, low) = (r.get(1).unwrap(), r.get(3).unwrap(), r.get(4).unwrap());
            if let (Some(currency), Some(high), Some(low)) = (currency, high, low) {
                *summary.revenue.entry(currency).or_default() += join(high, low);
            }
        }
        summary
    }

    /// The kept check's figure of the campaigns' lines: rows compared, differing, first key.
    fn lines_check(conn: &Connection) -> (i64, i64, Option<String>) {
        let figures = crate::store::kept_check::check(conn).unwrap();
        let f = figures
            .iter()
            .find(|f| f.name == "campaign_conversion_lines")
            .unwrap();
        let first = f.differences.first().map(|d| d.key.clone());
        (f.rows, f.differing, first)
    }

    #[test]
    fn a_campaigns_row_keeps_its_conversion_lines_through_every_write_of_its_totals() {
        let conn = crate::store::test_db();
        crate::store::test_campaign(&conn, 7, 5);
        crate::store::test_campaign(&conn, 7, 6);
        assert_eq!(kept(&conn, 5), Summary::default());
        // Totals written as the recorder writes them (replace, remove), and by hand.
        conn.execute_batch(
            "INSERT OR REPLACE INTO conversion_totals VALUES (7, 5, 'lead', '', 3, NULL, NULL);
             INSERT OR REPLACE INTO conversion_totals VALUES (7, 5, 'purchase', 'USD', 2, 1, 5);
             INSERT OR REPLACE INTO conversion_totals VALUES (7, 5, 'purchase', 'EUR', 1, 0, 7);
             INSERT OR REPLACE INTO conversion_totals VALUES (7, 5, 'purchase', 'USD', 4, 2, 9);
             INSERT INTO conversion_totals VALUES (7, 6, 'lead', '', 1, NULL, NULL);",
        )
        .unwrap();
        let five = kept(&conn, 5);
        assert_eq!(five, totalled(&conn, 5));
        assert_eq!(five.counts.of(EventType::Purchase), 5);
        assert_eq!(five.revenue["USD"], join(2, 9));
        assert_eq!(five.revenue["EUR"], 7);
        assert_eq!(lines_check(&conn), (2, 0, None));
        // An update in place changes its campaign's lines.
        conn.execute(
            "UPDATE conversion_totals SET count = 4 WHERE ad_id = 6 AND event_type = 'lead'",
            [],
        )
        .unwrap();
        assert_eq!(kept(&conn, 6).counts.of(EventType::Lead), 4);
        assert_eq!(kept(&conn, 6), totalled(&conn, 6));
        // An update moving a row to another campaign changes both; a delete, its own.
        conn.execute(
            "UPDATE conversion_totals SET ad_id = 6 WHERE ad_id = 5 AND currency = 'EUR'",
            [],
        )
        .unwrap();
        assert_eq!(kept(&conn, 6).revenue["EUR"], 7);
        assert!(!kept(&conn, 5).revenue.contains_key("EUR"));
        conn.execute("DELETE FROM conversion_totals WHERE ad_id = 5", [])
            .unwrap();
        assert_eq!(kept(&conn, 5), Summary::default());
        // A campaign stored after its conversions takes theirs.
        conn.execute(
            "INSERT INTO conversion_totals VALUES (7, 8, 'conversion', '', 2, NULL, NULL)",
            [],
        )
        .unwrap();
        crate::store::test_campaign(&conn, 7, 8);
        assert_eq!(kept(&conn, 8).counts.of(EventType::Conversion), 2);
        for ad in [5, 6, 8] {
            assert_eq!(kept(&conn, ad), totalled(&conn, ad), "ad {ad}");
        }
        assert_eq!(lines_check(&conn), (3, 0, None));
        // A row's lines written past the triggers are named.
        conn.execute(
            "UPDATE campaigns SET conversion_lines = 'lead,,9,,' WHERE ad_id = 6",
            [],
        )
        .unwrap();
        assert_eq!(
            lines_check(&conn),
            (3, 1, Some("cabinet 7, campaign 6".to_string()))
        );
        // Lines not so written fail the read, naming the column.
        conn.execute(
            "UPDATE campaigns SET conversion_lines = 'lead' WHERE ad_id = 6",
            [],
        )
        .unwrap();
        let failed = crate::store::campaigns::get(&conn, 7, 6).unwrap_err();
        assert!(
            failed.to_string().contains("campaigns.conversion_lines"),
            "{failed}"
        );
    }

    #[test]
    fn lines_are_read_only_when_whole() {
        let read =
            Summary::of_lines("lead,,3,,;purchase,USD,2,1,5;purchase,EUR,1,0,7;lead,USD,4,0,9")
                .unwrap();
        assert_eq!(read.counts.of(EventType::Lead), 7);
        assert_eq!(read.counts.of(EventType::Purchase), 3);
        assert_eq!(read.counts.of(EventType::Conversion), 0);
        assert_eq!(read.counts.total(), 10);
        let counted: Vec<_> = read.counts.counted().collect();
        assert_eq!(
            counted,
            [(EventType::Lead, 7), (EventType::Purchase, 3)],
            "by name, uncounted types left out"
        );
        assert_eq!(read.revenue["USD"], join(1, 5) + 9);
        assert_eq!(read.revenue["EUR"], 7);
        for text in [
            "",
            "lead,,3,",
            "lead,,3,,,",
            ",,3,,",
            "signup,,3,,",
            "Lead,,3,,",
            "lead,,x,,",
            "lead,USD,1,1,x",
        ] {
            assert_eq!(Summary::of_lines(text), None, "{text}");
        }
    }

    #[test]
    fn the_migration_writes_the_lines_of_the_totals_stored_before_it() {
        let conn = crate::store::test_db();
        crate::store::test_campaign(&conn, 7, 5);
        crate::store::test_campaign(&conn, 7, 6);
        conn.execute_batch(
            "DROP TRIGGER conversion_totals_lines_insert; DROP TRIGGER conversion_totals_lines_update;
             DROP TRIGGER conversion_totals_lines_delete; DROP TRIGGER campaigns_conversion_lines;
             DROP VIEW campaign_conversion_lines; ALTER TABLE campaigns DROP COLUMN conversion_lines;
             INSERT INTO conversion_totals VALUES (7, 5, 'purchase', 'USD', 2, 1, 5);
             INSERT INTO conversion_totals VALUES (7, 5, 'lead', '', 1, NULL, NULL);",
        )
        .unwrap();
        conn.execute_batch(include_str!(
            "../../../sql/0060_campaign_conversion_lines.sql"
        ))
        .unwrap();
        assert_eq!(kept(&conn, 5), totalled(&conn, 5));
        assert_eq!(kept(&conn, 5).counts.of(EventType::Lead), 1);
        assert_eq!(kept(&conn, 6), Summary::default());
        assert_eq!(lines_check(&conn), (2, 0, None));
    }

    #[test]
    fn every_read_finds_a_campaign_in_the_event_row_and_in_the_attribution_rows() {
        let conn = stored();
        let filter = ListFilter {
            accounts: vec![7],
            ..ListFilter::default()
        };
        let (all, _) = list(&conn, &filter, 10).unwrap();
        let ads: Vec<Vec<i64>> = all.iter().map(|c| c.ad_ids.clone()).collect();
        assert_eq!(ads, vec![vec![5], vec![5], vec![5, 6], vec![6]]);
        let of_five = ListFilter {
            ad_id: Some(5),
            ..filter
        };
        let (five, _) = list(&conn, &of_five, 10).unwrap();
        let ids: Vec<i64> = five.iter().map(|c| c.id).collect();
        assert_eq!(ids, vec![1, 2, 3]);

        let recent = recent_of_campaign(&conn, 7, 5, 2).unwrap();
        let at: Vec<&str> = recent.iter().map(|r| r.received_at.as_str()).collect();
        assert_eq!(at, vec!["2026-01-01T11:00:00Z", "2026-01-01T10:30:00Z"]);
        assert_eq!(recent_of_campaign(&conn, 7, 6, 10).unwrap().len(), 2);

        let hours =
            hours_of_campaign(&conn, 7, 5, "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z").unwrap();
        assert_eq!(
            hours,
            vec![
                ("2026-01-01T10".to_string(), 2),
                ("2026-01-01T11".to_string(), 1)
            ]
        );

        let converted = crate::store::rules::converted_hours(
            &conn,
            7,
            "2026-01-01T00:00:00Z",
            "2026-01-02T00:00:00Z",
        )
        .unwrap();
        let count = |ad: i64| converted[&ad].iter().map(|h| h.count).sum::<i64>();
        assert_eq!((count(5), count(6)), (3, 2));
    }
}
