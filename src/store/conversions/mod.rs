//! Owns `conversions` (one reported event per sender and `txid`) and `conversion_campaigns`
//! (the campaigns each is attributed to), and the reads behind `GET /v1/conversions` and the
//! conversion fields of campaign reads.

use std::collections::BTreeMap;

use rusqlite::types::Value as Sql;
use rusqlite::{params, params_from_iter, Connection};

use super::campaigns::CampaignRow;
use super::StoreError;

mod recorder;
pub use recorder::{Item, Recorder};

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
