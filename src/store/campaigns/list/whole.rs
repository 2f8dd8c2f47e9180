//! The list's filter over every matching campaign rather than one page: the sums the panel's
//! totals row shows (per cabinet, campaigns and their conversions), and all the rows in the
//! page's order for a download. Both read each cabinet through its primary key, as the pages
//! do; neither is bounded by a page size, so the download stops at the caller's maximum.

use std::collections::BTreeMap;

use rusqlite::types::Value as Sql;
use rusqlite::Connection;

use super::merge::Order;
use super::{conditions, CabinetQuery, ListFilter, Page};
use crate::store::campaigns::{from_row, listed_columns, CampaignRow, WITH_COUNTERS};
use crate::store::conversions::SPLIT;
use crate::store::StoreError;

/// What one cabinet's matching campaigns add up to. Money in micro-units.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sums {
    pub account_id: i64,
    pub campaigns: i64,
    pub budget_micros: i64,
    pub spent_micros: i64,
    pub views: i64,
    pub clicks: i64,
    pub actions: i64,
    /// Conversions of every event type.
    pub conversions: i64,
    /// Revenue per currency, in micro-units summed wide.
    pub revenue: BTreeMap<String, i128>,
}

/// The sums of the campaigns `filter` matches, one per cabinet that has any, in the order of
/// `filter.accounts`.
pub fn sums(conn: &Connection, filter: &ListFilter) -> Result<Vec<Sums>, StoreError> {
    // Every cabinet's sums read one snapshot, the read's (`db::readers`).
    let query = CabinetQuery::of(filter);
    let mut campaigns = conn.prepare_cached(&format!(
        "SELECT COUNT(*), SUM(budget_micros), SUM(spent_micros), SUM(views), SUM(clicks),
            SUM(actions) {}",
        query.figures
    ))?;
    let mut converted = conn.prepare_cached(&format!(
        "SELECT NULLIF(t.currency, ''), SUM(t.count), SUM(t.amount_high), SUM(t.amount_low)
         FROM conversion_totals t
         JOIN (SELECT account_id, ad_id {}) c
           ON t.account_id = c.account_id AND t.ad_id = c.ad_id
         GROUP BY t.currency",
        query.copies
    ))?;
    let mut out = Vec::new();
    for &account in &filter.accounts {
        let found: Vec<Sums> = query.rows(&mut campaigns, account, [], |r| {
            Ok(Sums {
                account_id: 0,
                campaigns: r.get(0)?,
                budget_micros: r.get::<_, Option<i64>>(1)?.unwrap_or(0),
                spent_micros: r.get::<_, Option<i64>>(2)?.unwrap_or(0),
                views: r.get::<_, Option<i64>>(3)?.unwrap_or(0),
                clicks: r.get::<_, Option<i64>>(4)?.unwrap_or(0),
                actions: r.get::<_, Option<i64>>(5)?.unwrap_or(0),
                ..Sums::default()
            })
        })?;
        let Some(mut sums) = found.into_iter().next().filter(|s| s.campaigns > 0) else {
            continue;
        };
        sums.account_id = account;
        type Line = (Option<String>, i64, Option<i64>, Option<i64>);
        let lines: Vec<Line> = query.rows(&mut converted, account, [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
        for (currency, count, high, low) in lines {
            sums.conversions = sums.conversions.saturating_add(count);
            if let (Some(currency), Some(high), Some(low)) = (currency, high, low) {
                let amount = i128::from(high) * i128::from(SPLIT) + i128::from(low);
                let sum = sums.revenue.entry(currency).or_default();
                *sum = sum.saturating_add(amount);
            }
        }
        out.push(sums);
    }
    Ok(out)
}

/// Every campaign `filter` matches, in `page`'s order (a sorted page's column, then `ad_id`,
/// then the cabinet; a cursor page's cabinet, then newest first), without its position: at
/// most `max + 1` rows, so the caller sees that more matched than it takes.
pub fn all(
    conn: &Connection,
    filter: &ListFilter,
    page: &Page,
    max: usize,
) -> Result<Vec<CampaignRow>, StoreError> {
    let (clauses, mut args) = conditions(filter);
    let order = match *page {
        Page::Cursor { .. } => "ORDER BY account_id ASC, ad_id DESC".to_string(),
        Page::Offset {
            sort, descending, ..
        } => {
            let dir = if descending { "DESC" } else { "ASC" };
            format!("{}, account_id {dir}", Order { sort, descending }.sql())
        }
    };
    let accounts = serde_json::json!(filter.accounts).to_string();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {} FROM {WITH_COUNTERS}
         WHERE account_id IN (SELECT value FROM json_each(?)) AND {} {order} LIMIT ?",
        listed_columns(),
        clauses.join(" AND ")
    ))?;
    args.insert(0, Sql::Text(accounts));
    args.push(Sql::Integer(i64::try_from(max).unwrap_or(i64::MAX - 1) + 1));
    let rows = stmt
        .query_map(rusqlite::params_from_iter(args), from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The totals of the default list (every status but deleted) read the narrow rows of the
    /// campaigns' figures alone, not the wide rows.
    #[test]
    fn the_sums_of_the_default_list_read_only_the_figures() {
        let conn = crate::store::test_db();
        let query = CabinetQuery::of(&ListFilter::default());
        let sql = format!(
            "SELECT COUNT(*), SUM(budget_micros), SUM(spent_micros), SUM(views), SUM(clicks),
                SUM(actions) {}",
            query.figures
        );
        let plan = crate::store::test_plan(&conn, &sql, 0);
        assert!(
            plan.iter().all(|step| step.contains("campaign_counters")),
            "{plan:?}"
        );
    }
}
