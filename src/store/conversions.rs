//! Owns `conversions` (one reported event per sender and `txid`) and `conversion_campaigns`
//! (the campaigns each is attributed to), and the reads behind `GET /v1/conversions` and the
//! conversion fields of campaign reads.

use std::collections::BTreeMap;

use rusqlite::types::Value as Sql;
use rusqlite::{params, params_from_iter, CachedStatement, Connection};

use super::StoreError;
use crate::domain::conversion::{Event, Target};

/// The statements that store events, prepared once for the many events of one transaction.
pub struct Recorder<'c> {
    conn: &'c Connection,
    insert: CachedStatement<'c>,
    update: CachedStatement<'c>,
    detach: CachedStatement<'c>,
    attribute: CachedStatement<'c>,
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
            update: conn.prepare_cached(
                "UPDATE conversions SET event_type = ?3, ref = ?4, invite_link = ?5,
                    amount_micros = ?6, currency = ?7, status = ?8, account_id = ?9,
                    updated_at = ?10
                 WHERE holder_id = ?1 AND txid = ?2 RETURNING id",
            )?,
            detach: conn
                .prepare_cached("DELETE FROM conversion_campaigns WHERE conversion_id = ?1")?,
            attribute: conn.prepare_cached(
                "INSERT INTO conversion_campaigns (conversion_id, account_id, ad_id)
                 VALUES (?1, ?2, ?3)",
            )?,
        })
    }

    /// Stores `event` from `holder`, attributed to `ads` of `account`: a new row, or an
    /// update of the row with the same `txid` (its attribution replaced). Returns the id and
    /// whether it was an update.
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
            let id: i64 = self.update.query_row(values, |r| r.get(0))?;
            self.detach.execute([id])?;
            (id, true)
        };
        for ad in ads {
            self.attribute.execute(params![id, account, ad])?;
        }
        Ok((id, updated))
    }
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

/// Amounts are summed in two parts (billions of micro-units, and the rest) so that SQLite's
/// 64-bit `SUM` never overflows, however large or many the stored amounts; the parts are
/// joined in 128 bits. Retention keeps the parts of what it removes the same way.
pub const SPLIT: i64 = 1_000_000_000;

/// The conversion summaries of campaigns, `(account_id, ad_id)`, in the order given (one
/// query for a whole list page; a campaign without conversions has an empty summary): the
/// conversions kept, plus the totals of those retention removed.
pub fn summaries(conn: &Connection, campaigns: &[(i64, i64)]) -> Result<Vec<Summary>, StoreError> {
    let keys = serde_json::to_string(campaigns)
        .map_err(|e| StoreError::Failed(format!("campaign keys: {e}")))?;
    let mut stmt = conn.prepare_cached(
        "WITH k AS (SELECT DISTINCT value ->> 0 AS account_id, value ->> 1 AS ad_id FROM json_each(?1))
         SELECT account_id, ad_id, event_type, currency, SUM(n), SUM(high), SUM(low) FROM (
            SELECT a.account_id, a.ad_id, c.event_type, c.currency, COUNT(*) AS n,
                SUM(c.amount_micros / ?2) AS high, SUM(c.amount_micros % ?2) AS low
            FROM k JOIN conversion_campaigns a ON a.account_id = k.account_id AND a.ad_id = k.ad_id
            JOIN conversions c ON c.id = a.conversion_id
            GROUP BY a.account_id, a.ad_id, c.event_type, c.currency
            UNION ALL
            SELECT t.account_id, t.ad_id, t.event_type, NULLIF(t.currency, ''), t.count,
                t.amount_high, t.amount_low
            FROM k JOIN conversion_totals t ON t.account_id = k.account_id AND t.ad_id = k.ad_id)
         GROUP BY account_id, ad_id, event_type, currency",
    )?;
    let rows = stmt.query_map(params![keys, SPLIT], |r| {
        let high: Option<i64> = r.get(5)?;
        let low: Option<i64> = r.get(6)?;
        Ok((
            (r.get::<_, i64>(0)?, r.get::<_, i64>(1)?),
            r.get::<_, String>(2)?,
            r.get::<_, Option<String>>(3)?,
            r.get::<_, i64>(4)?,
            high.zip(low)
                .map(|(h, l)| i128::from(h) * i128::from(SPLIT) + i128::from(l)),
        ))
    })?;
    let mut found: BTreeMap<(i64, i64), Summary> = BTreeMap::new();
    for row in rows {
        let (campaign, event, currency, count, amount) = row?;
        let summary = found.entry(campaign).or_default();
        let counted = summary.counts.entry(event).or_default();
        *counted = counted.saturating_add(count);
        if let (Some(currency), Some(amount)) = (currency, amount) {
            let sum = summary.revenue.entry(currency).or_default();
            *sum = sum.saturating_add(amount);
        }
    }
    Ok(campaigns
        .iter()
        .map(|key| found.get(key).cloned().unwrap_or_default())
        .collect())
}
