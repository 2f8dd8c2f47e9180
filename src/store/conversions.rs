//! Owns `conversions` (one reported event per sender and `txid`) and `conversion_campaigns`
//! (the campaigns each is attributed to), and the reads behind `GET /v1/conversions` and the
//! conversion fields of campaign reads.

use std::collections::{BTreeMap, HashMap};

use rusqlite::types::Value as Sql;
use rusqlite::{params, params_from_iter, CachedStatement, Connection};

use super::campaigns::CampaignRow;
use super::{optional, StoreError};
use crate::domain::conversion::{Event, Target};

/// The statements that store events, prepared once for the many events of one transaction,
/// and what the stored events change in their campaigns' `conversion_totals`, written by
/// [`Recorder::finish`] (once per campaign, event type and currency, not once per event).
pub struct Recorder<'c> {
    conn: &'c Connection,
    insert: CachedStatement<'c>,
    previous: CachedStatement<'c>,
    update: CachedStatement<'c>,
    detach: CachedStatement<'c>,
    attribute: CachedStatement<'c>,
    changes: HashMap<TotalKey, Change>,
}

/// A row of `conversion_totals`: campaign, event type and currency (`''` without an amount).
type TotalKey = (i64, i64, String, String);

/// What stored events add to one row of `conversion_totals` (negative for a replaced event).
#[derive(Default)]
struct Change {
    count: i64,
    amount: i128,
}

impl<'c> Recorder<'c> {
    pub fn new(conn: &'c Connection) -> Result<Recorder<'c>, StoreError> {
        Ok(Recorder {
            conn,
            insert: conn.prepare_cached(
                "INSERT INTO conversions (holder_id, txid, event_type, ref, invite_link,
                    amount_micros, currency, status, account_id, received_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)
                 ON CONFLICT (holder_id, txid) DO NOTHING",
            )?,
            previous: conn.prepare_cached(
                "SELECT id, event_type, amount_micros, currency FROM conversions
                 WHERE holder_id = ?1 AND txid = ?2",
            )?,
            update: conn.prepare_cached(
                "UPDATE conversions SET event_type = ?3, ref = ?4, invite_link = ?5,
                    amount_micros = ?6, currency = ?7, status = ?8, account_id = ?9,
                    updated_at = ?10
                 WHERE holder_id = ?1 AND txid = ?2",
            )?,
            detach: conn.prepare_cached(
                "DELETE FROM conversion_campaigns WHERE conversion_id = ?1
                 RETURNING account_id, ad_id",
            )?,
            attribute: conn.prepare_cached(
                "INSERT INTO conversion_campaigns (conversion_id, account_id, ad_id)
                 VALUES (?1, ?2, ?3)",
            )?,
            changes: HashMap::new(),
        })
    }

    /// Stores `event` from `holder`, attributed to `ads` of `account`: a new row, or an
    /// update of the row with the same `txid` (its attribution replaced, and what it had
    /// added to its campaigns' totals taken back). Returns the id and whether it was an
    /// update.
    pub fn upsert(
        &mut self,
        holder: i64,
        event: &Event,
        account: i64,
        ads: &[i64],
        now: &str,
    ) -> Result<(i64, bool), StoreError> {
        let (reference, invite) = match &event.target {
            Target::Ref(r) => (Some(r.as_str()), None),
            Target::Invite(i) => (None, Some(i.as_str())),
        };
        let values = params![
            holder,
            event.txid,
            event.event.as_str(),
            reference,
            invite,
            event.amount_micros,
            event.currency,
            event.status,
            account,
            now
        ];
        let (id, updated) = if self.insert.execute(values)? == 1 {
            (self.conn.last_insert_rowid(), false)
        } else {
            let (id, old_event, old_amount, old_currency) =
                self.previous.query_row(params![holder, event.txid], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, Option<i64>>(2)?,
                        r.get::<_, Option<String>>(3)?,
                    ))
                })?;
            self.update.execute(values)?;
            let detached = self
                .detach
                .query_map([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            for campaign in detached {
                self.add(
                    campaign,
                    &old_event,
                    old_currency.as_deref(),
                    old_amount,
                    -1,
                );
            }
            (id, true)
        };
        for &ad in ads {
            self.attribute.execute(params![id, account, ad])?;
            let currency = event.currency.as_deref();
            self.add(
                (account, ad),
                event.event.as_str(),
                currency,
                event.amount_micros,
                1,
            );
        }
        Ok((id, updated))
    }

    /// Counts one event (`sign` 1) or takes one back (`sign` -1) in a campaign's totals.
    fn add(
        &mut self,
        (account, ad): (i64, i64),
        event: &str,
        currency: Option<&str>,
        amount: Option<i64>,
        sign: i64,
    ) {
        let key = (
            account,
            ad,
            event.to_string(),
            currency.unwrap_or_default().to_string(),
        );
        let change = self.changes.entry(key).or_default();
        change.count += sign;
        change.amount += i128::from(amount.unwrap_or(0)) * i128::from(sign);
    }

    /// Writes what the stored events changed into `conversion_totals`; a row whose count
    /// comes to zero is removed, so a campaign shows no revenue in a currency it no longer has.
    /// Totals are added here, in 128 bits, and stored normalized (the rest below [`SPLIT`]),
    /// so no number of events can overflow a column or turn it into a float.
    pub fn finish(self) -> Result<(), StoreError> {
        let mut read = self.conn.prepare_cached(
            "SELECT count, amount_high, amount_low FROM conversion_totals
             WHERE account_id = ?1 AND ad_id = ?2 AND event_type = ?3 AND currency = ?4",
        )?;
        let mut write = self.conn.prepare_cached(
            "INSERT OR REPLACE INTO conversion_totals
                (account_id, ad_id, event_type, currency, count, amount_high, amount_low)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut remove = self.conn.prepare_cached(
            "DELETE FROM conversion_totals
             WHERE account_id = ?1 AND ad_id = ?2 AND event_type = ?3 AND currency = ?4",
        )?;
        for ((account, ad, event, currency), change) in &self.changes {
            let key = params![account, ad, event, currency];
            let (count, amount) = optional(read.query_row(key, |r| {
                let (high, low): (Option<i64>, Option<i64>) = (r.get(1)?, r.get(2)?);
                Ok((
                    r.get::<_, i64>(0)?,
                    join(high.unwrap_or(0), low.unwrap_or(0)),
                ))
            }))?
            .unwrap_or((0, 0));
            let count = count.saturating_add(change.count);
            if count <= 0 {
                remove.execute(key)?;
                continue;
            }
            let total = amount.checked_add(change.amount).ok_or_else(|| {
                StoreError::Failed(format!("the conversion total of ad {ad} overflows"))
            })?;
            let parts = (!currency.is_empty()).then(|| split(total)).transpose()?;
            write.execute(params![
                account,
                ad,
                event,
                currency,
                count,
                parts.map(|(high, _)| high),
                parts.map(|(_, low)| low)
            ])?;
        }
        Ok(())
    }
}

/// The amount two parts of `conversion_totals` stand for (see [`SPLIT`]).
fn join(high: i64, low: i64) -> i128 {
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
            (SELECT json_group_array(ad_id) FROM conversion_campaigns WHERE conversion_id = c.id)
         FROM conversions c
         WHERE c.account_id IN (SELECT value FROM json_each(?1)) AND c.id > ?2",
    );
    let mut args: Vec<Sql> = vec![Sql::Text(accounts), Sql::Integer(f.after)];
    if let Some(ad) = f.ad_id {
        args.push(Sql::Integer(ad));
        sql += &format!(
            " AND EXISTS (SELECT 1 FROM conversion_campaigns a WHERE a.conversion_id = c.id AND a.ad_id = ?{})",
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
        "SELECT c.event_type, c.amount_micros, c.currency, c.ref, c.received_at
         FROM conversion_campaigns a JOIN conversions c ON c.id = a.conversion_id
         WHERE a.account_id = ?1 AND a.ad_id = ?2 ORDER BY c.id DESC LIMIT ?3",
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
        "SELECT substr(c.received_at, 1, 13) AS h, COUNT(*)
         FROM conversion_campaigns a JOIN conversions c ON c.id = a.conversion_id
         WHERE a.account_id = ?1 AND a.ad_id = ?2 AND c.received_at >= ?3 AND c.received_at < ?4
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
    pub counts: BTreeMap<String, i64>,
    pub revenue: BTreeMap<String, i128>,
}

/// Revenue totals are kept in two parts (billions of micro-units, and the rest) so that no
/// 64-bit column overflows, however large or many the stored amounts; the parts are joined
/// in 128 bits.
pub const SPLIT: i64 = 1_000_000_000;

/// A campaign's conversion summary, read from the running totals the events keep (one probe
/// of the primary key, a few rows); empty, without a read, when it never had a conversion.
pub fn summary_of(conn: &Connection, row: &CampaignRow) -> Result<Summary, StoreError> {
    let mut summary = Summary::default();
    if !row.converted {
        return Ok(summary);
    }
    let mut stmt = conn.prepare_cached(
        "SELECT event_type, NULLIF(currency, ''), count, amount_high, amount_low
         FROM conversion_totals WHERE account_id = ?1 AND ad_id = ?2",
    )?;
    let mut rows = stmt.query(params![row.account_id, row.ad_id])?;
    while let Some(r) = rows.next()? {
        let count: i64 = r.get(2)?;
        let counted = summary.counts.entry(r.get(0)?).or_default();
        *counted = counted.saturating_add(count);
        let currency: Option<String> = r.get(1)?;
        let high: Option<i64> = r.get(3)?;
        let low: Option<i64> = r.get(4)?;
        if let (Some(currency), Some(high), Some(low)) = (currency, high, low) {
            let sum = summary.revenue.entry(currency).or_default();
            *sum = sum.saturating_add(join(high, low));
        }
    }
    Ok(summary)
}

/// The conversion summaries of a list page's rows, in their order.
pub fn summaries_of(conn: &Connection, rows: &[CampaignRow]) -> Result<Vec<Summary>, StoreError> {
    rows.iter().map(|row| summary_of(conn, row)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::conversion::EventType;

    fn purchase(txid: &str, amount: i64, currency: &str) -> Event {
        Event {
            target: Target::Ref("r".into()),
            event: EventType::Purchase,
            txid: txid.into(),
            amount_micros: Some(amount),
            currency: Some(currency.into()),
            status: None,
            account_id: None,
        }
    }

    /// Ad 5 of cabinet 7's summary, as a campaign read gives it.
    fn read_back(conn: &Connection) -> Summary {
        let row = crate::store::campaigns::get(conn, 7, 5).unwrap().unwrap();
        summary_of(conn, &row).unwrap()
    }

    /// Stores `events` from sender 1 for ad 5 of cabinet 7 in one transaction.
    fn store(conn: &mut Connection, events: &[Event]) {
        let tx = conn.transaction().unwrap();
        let mut recorder = Recorder::new(&tx).unwrap();
        for e in events {
            recorder
                .upsert(1, e, 7, &[5], "2026-01-01T00:00:00Z")
                .unwrap();
        }
        recorder.finish().unwrap();
        tx.commit().unwrap();
    }

    #[test]
    fn totals_of_the_largest_amounts_stay_normalized_integers_and_follow_a_resent_event() {
        let mut conn = crate::store::test_db();
        let ad = crate::domain::ad::AdSnapshot {
            ad_id: 5,
            ..crate::store::campaigns::tests::snapshot()
        };
        crate::store::campaigns::insert(&conn, &ad, None, "2026-01-01T00:00:00Z").unwrap();
        let max = i64::MAX;
        let many: Vec<Event> = (0..1000)
            .map(|i| purchase(&format!("t{i}"), max, "USD"))
            .collect();
        store(&mut conn, &many);
        store(&mut conn, &many[..1]);
        let summary = read_back(&conn);
        assert_eq!(
            summary.counts["purchase"], 1000,
            "the resent t0 counts once"
        );
        assert_eq!(summary.revenue["USD"], 1000 * i128::from(max));
        let stored: Vec<(String, String, bool)> = conn
            .prepare(
                "SELECT typeof(amount_high), typeof(amount_low), abs(amount_low) < ?1
                 FROM conversion_totals",
            )
            .unwrap()
            .query_map([SPLIT], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            stored,
            vec![("integer".to_string(), "integer".to_string(), true)],
            "two integers, the rest below SPLIT: the parts never grow with the number of events"
        );

        store(&mut conn, &[purchase("t0", -2, "EUR")]);
        let summary = read_back(&conn);
        assert_eq!(summary.counts["purchase"], 1000);
        assert_eq!(summary.revenue["USD"], 999 * i128::from(max));
        assert_eq!(summary.revenue["EUR"], -2);
    }
}
