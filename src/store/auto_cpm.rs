//! Owns `auto_cpm` and `auto_cpm_log`: each managed campaign's goal, bounds and when its bid
//! last moved, the switch (`campaigns.auto_cpm_enabled`), and every decision with what it read.

use rusqlite::{params, Connection, Row};

use super::{optional, parsed, StoreError};
use crate::domain::auto_cpm::{CpaFrom, Goal, Settings};
use crate::domain::money::Money;
use crate::domain::stats::Totals;

/// A campaign's stored settings and when its bid last moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Managed {
    pub account_id: i64,
    pub ad_id: i64,
    pub settings: Settings,
    pub moved_at: String,
}

const COLUMNS: &str = "a.account_id, a.ad_id, c.auto_cpm_enabled, a.goal, a.target_micros,
    a.min_cpm_micros, a.max_cpm_micros, a.moved_at, a.cpa_from";

fn row(r: &Row) -> rusqlite::Result<Managed> {
    Ok(Managed {
        account_id: r.get(0)?,
        ad_id: r.get(1)?,
        settings: Settings {
            enabled: r.get(2)?,
            goal: parsed(r, 3, "auto_cpm.goal", Goal::parse)?,
            cpa_from: parsed(r, 8, "auto_cpm.cpa_from", CpaFrom::parse)?,
            target: Money::from_micros(r.get(4)?),
            min_cpm: Money::from_micros(r.get(5)?),
            max_cpm: Money::from_micros(r.get(6)?),
        },
        moved_at: r.get(7)?,
    })
}

pub fn get(conn: &Connection, account: i64, ad: i64) -> Result<Option<Managed>, StoreError> {
    optional(conn.query_row(
        &format!(
            "SELECT {COLUMNS} FROM auto_cpm a JOIN campaigns c
                ON c.account_id = a.account_id AND c.ad_id = a.ad_id
             WHERE a.account_id = ?1 AND a.ad_id = ?2"
        ),
        [account, ad],
        row,
    ))
}

/// Stores a campaign's settings and switch; `moved_at` restarts the measurement.
pub fn set(
    conn: &Connection,
    account: i64,
    ad: i64,
    s: &Settings,
    moved_at: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO auto_cpm (account_id, ad_id, goal, target_micros, min_cpm_micros,
            max_cpm_micros, moved_at, cpa_from)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (account_id, ad_id) DO UPDATE SET goal = ?3, target_micros = ?4,
            min_cpm_micros = ?5, max_cpm_micros = ?6, moved_at = ?7, cpa_from = ?8",
        params![
            account,
            ad,
            s.goal.as_str(),
            s.target.micros(),
            s.min_cpm.micros(),
            s.max_cpm.micros(),
            moved_at,
            s.cpa_from.as_str()
        ],
    )?;
    conn.execute(
        "UPDATE campaigns SET auto_cpm_enabled = ?3 WHERE account_id = ?1 AND ad_id = ?2",
        params![account, ad, s.enabled],
    )?;
    Ok(())
}

pub fn set_moved(conn: &Connection, account: i64, ad: i64, at: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE auto_cpm SET moved_at = ?3 WHERE account_id = ?1 AND ad_id = ?2",
        params![account, ad, at],
    )?;
    Ok(())
}

/// A managed campaign that runs now: its settings, its bid, and since when it is `Active`
/// (the platform's time of its last status change).
#[derive(Debug, Clone)]
pub struct Running {
    pub managed: Managed,
    pub cpm: Money,
    pub active_since: String,
}

/// The statement of [`running`]: the settings read in their key's order, each campaign then
/// found by its key (`CROSS JOIN` keeps that order of the loops). Left to itself, SQLite scanned
/// every campaign for the few with settings: 100,000 rows each hour at 100 cabinets of 1,000.
const RUNNING: &str = "FROM auto_cpm a CROSS JOIN campaigns c
        ON c.account_id = a.account_id AND c.ad_id = a.ad_id
     WHERE c.auto_cpm_enabled = 1 AND c.status = 'Active'
     ORDER BY a.account_id, a.ad_id";

/// Every campaign Auto CPM manages now, if it is `Active` (never one in review).
pub fn running(conn: &Connection) -> Result<Vec<Running>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS}, c.cpm_micros, c.status_changed_at {RUNNING}"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok(Running {
            managed: row(r)?,
            cpm: Money::from_micros(r.get(9)?),
            active_since: r.get(10)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The campaign's last bid edit: its log id and, once known, the minutes it kept the campaign
/// in review.
pub fn last_edit(
    conn: &Connection,
    account: i64,
    ad: i64,
) -> Result<Option<(i64, Option<i64>)>, StoreError> {
    optional(conn.query_row(
        "SELECT id, review_minutes FROM auto_cpm_log
         WHERE account_id = ?1 AND ad_id = ?2 AND to_micros IS NOT NULL
         ORDER BY id DESC LIMIT 1",
        params![account, ad],
        |r| Ok((r.get(0)?, r.get(1)?)),
    ))
}

/// Records the minutes bid edit `id` kept its campaign in review.
pub fn set_review(conn: &Connection, id: i64, minutes: i64) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE auto_cpm_log SET review_minutes = ?2 WHERE id = ?1 AND review_minutes IS NULL",
        params![id, minutes],
    )?;
    Ok(())
}

/// One decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decided {
    pub account_id: i64,
    pub ad_id: i64,
    pub at: String,
    pub reason: String,
    pub hours: i64,
    pub figures: Totals,
    pub observed: Option<String>,
    pub from: Money,
    pub to: Option<Money>,
    /// Minutes the edit (`to`) kept the campaign in the platform's review, once it returned to
    /// `Active`.
    pub review_minutes: Option<i64>,
}

pub fn record(conn: &Connection, d: &Decided) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO auto_cpm_log (account_id, ad_id, at, reason, hours, views, actions,
            spent_micros, observed, from_micros, to_micros, review_minutes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            d.account_id,
            d.ad_id,
            d.at,
            d.reason,
            d.hours,
            d.figures.views,
            d.figures.actions,
            d.figures.spent.micros(),
            d.observed,
            d.from.micros(),
            d.to.map(Money::micros),
            d.review_minutes
        ],
    )?;
    Ok(())
}

/// Bid edits of a campaign at or after `since`.
pub fn edits_since(
    conn: &Connection,
    account: i64,
    ad: i64,
    since: &str,
) -> Result<usize, StoreError> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM auto_cpm_log
         WHERE account_id = ?1 AND ad_id = ?2 AND at >= ?3 AND to_micros IS NOT NULL",
        params![account, ad, since],
        |r| r.get::<_, i64>(0),
    )? as usize)
}

/// A campaign's decisions, oldest first.
pub fn log(conn: &Connection, account: i64, ad: i64) -> Result<Vec<Decided>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT at, reason, hours, views, actions, spent_micros, observed, from_micros, to_micros,
            review_minutes
         FROM auto_cpm_log WHERE account_id = ?1 AND ad_id = ?2 ORDER BY id",
    )?;
    let rows = stmt.query_map([account, ad], |r| {
        Ok(Decided {
            account_id: account,
            ad_id: ad,
            at: r.get(0)?,
            reason: r.get(1)?,
            hours: r.get(2)?,
            figures: Totals {
                views: r.get(3)?,
                opens: 0,
                clicks: 0,
                actions: r.get(4)?,
                spent: Money::from_micros(r.get(5)?),
            },
            observed: r.get(6)?,
            from: Money::from_micros(r.get(7)?),
            to: r.get::<_, Option<i64>>(8)?.map(Money::from_micros),
            review_minutes: r.get(9)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{test_campaign, test_db, test_plan};

    #[test]
    fn the_running_managed_campaigns_are_read_from_their_settings_not_every_campaign() {
        let conn = test_db();
        for ad in 1..=4 {
            test_campaign(&conn, 7, ad);
        }
        conn.execute_batch("UPDATE campaigns SET status = 'Active'; UPDATE campaigns SET status = 'In Review' WHERE ad_id = 3;").unwrap();
        let settings = |enabled| Settings {
            enabled,
            goal: Goal::Cpa,
            cpa_from: CpaFrom::Actions,
            target: Money::from_micros(1_000_000),
            min_cpm: Money::from_micros(500_000),
            max_cpm: Money::from_micros(5_000_000),
        };
        // Ad 4 has no settings, ad 2 has them switched off, ad 3 is in review.
        for (ad, enabled) in [(2, false), (3, true), (1, true)] {
            set(&conn, 7, ad, &settings(enabled), "2026-03-01T00:00:00Z").unwrap();
        }
        let ads: Vec<i64> = running(&conn)
            .unwrap()
            .iter()
            .map(|r| r.managed.ad_id)
            .collect();
        assert_eq!(ads, [1]);
        let plan = test_plan(&conn, &format!("SELECT a.ad_id {RUNNING}"), 7);
        assert_eq!(plan[0], "SCAN a", "{plan:?}");
        assert!(plan[1].starts_with("SEARCH c USING INDEX"), "{plan:?}");
        assert_eq!(
            plan.len(),
            2,
            "no sort: the settings' key is the order: {plan:?}"
        );
    }
}
