//! Owns `hourly_stats` (what each campaign gained in each hour; the baseline of the gain is
//! the campaign's mark, kept in its row of figures by `campaigns`), `daily_stats` (the same by
//! day, for hours older than retention keeps hourly), the sums the digests read from them (a
//! span's sums through the rows' running sums are `runs`'), and each campaign's spend of the
//! last 24 hours kept in its row of figures (`campaign_counters.day_spend_micros`, the home
//! page's pace) wherever an hour's stats are written.

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use rusqlite::{params, CachedStatement, Connection, Row, ToSql};

use super::campaigns::{named_at, Named, NAMED_COLUMNS};
use super::reconcile::Delta;
use super::runs::Runs;
use super::{kept_statement, StoreError};
use crate::domain::money::Money;
use crate::domain::stats::Totals;
use crate::domain::time::iso;

/// The five totals read from consecutive columns starting at `first` (views, opens, clicks,
/// actions, spent micros).
pub fn totals_at(r: &Row, first: usize) -> rusqlite::Result<Totals> {
    Ok(Totals {
        views: r.get(first)?,
        opens: r.get(first + 1)?,
        clicks: r.get(first + 2)?,
        actions: r.get(first + 3)?,
        spent: Money::from_micros(r.get(first + 4)?),
    })
}

/// The five totals as the columns store them (views, opens, clicks, actions, spent micros).
fn columns(t: &Totals) -> [i64; 5] {
    [t.views, t.opens, t.clicks, t.actions, t.spent.micros()]
}

/// Writes what campaigns gained in an hour, its statements prepared once for the many
/// campaigns of one report (a statement taken from the connection's cache again for each row
/// cost a hash of its text); those through `hourly_entries`, which the sync's rows rarely take,
/// the first time one does.
pub struct Gains<'c> {
    conn: &'c Connection,
    insert: CachedStatement<'c>,
    enter: Option<CachedStatement<'c>>,
    add: Option<CachedStatement<'c>>,
}

impl<'c> Gains<'c> {
    pub fn new(conn: &'c Connection) -> Result<Gains<'c>, StoreError> {
        Ok(Gains {
            conn,
            insert: conn.prepare_cached(
                "INSERT OR IGNORE INTO hourly_stats (account_id, ad_id, hour, views, opens,
                    clicks, actions, spent_micros, run_views, run_opens, run_clicks,
                    run_actions, run_spent_micros)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?,
            enter: None,
            add: None,
        })
    }

    /// Stores what a campaign gained in `hour` (nothing when it gained nothing). A new row is
    /// written with its run into `hourly_stats` when `runs` gives runs (schemas 58, 62, 73):
    /// the campaign's run before the hour with the gain added, which `runs` then holds; else
    /// through `hourly_entries`, whose trigger works its run out and moves the later rows'. A
    /// row already there (a report listing the campaign twice) has the gain added to it
    /// through `hourly_entries`, whose trigger adds it to its run and the later rows'.
    ///
    /// The row goes into `hourly_stats` `OR IGNORE` rather than as an upsert, so that SQLite
    /// keeps no statement journal for it (schema 59 says why; an upsert's update always may
    /// abort). The values bound are never NULL, so only the row's key makes the insert do
    /// nothing; then the row is updated.
    pub fn record(
        &mut self,
        account: i64,
        ad: i64,
        hour: &str,
        gain: &Totals,
        runs: &mut Runs,
    ) -> Result<(), StoreError> {
        if gain.is_idle() {
            return Ok(());
        }
        let run = runs.add(ad, gain).map(columns);
        let (figures, given) = (columns(gain), run.unwrap_or_default());
        // The row's key and figures, then its run (bound only where it is given).
        let values: [&dyn ToSql; 13] = [
            &account,
            &ad,
            &hour,
            &figures[0],
            &figures[1],
            &figures[2],
            &figures[3],
            &figures[4],
            &given[0],
            &given[1],
            &given[2],
            &given[3],
            &given[4],
        ];
        let row = &values[..8];
        let written = match run {
            Some(_) => self.insert.execute(values)? == 1,
            None if gained_in(self.conn, account, hour, ad)? => false,
            None => {
                kept_statement(
                    &mut self.enter,
                    self.conn,
                    "INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks,
                        actions, spent_micros)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )?
                .execute(row)?;
                true
            }
        };
        if !written {
            kept_statement(
                &mut self.add,
                self.conn,
                "UPDATE hourly_entries SET views = views + ?4, opens = opens + ?5,
                    clicks = clicks + ?6, actions = actions + ?7,
                    spent_micros = spent_micros + ?8
                 WHERE account_id = ?1 AND hour = ?3 AND ad_id = ?2",
            )?
            .execute(row)?;
        }
        Ok(())
    }
}

/// Writes a cabinet's sum of `hour` over its campaigns' hourly rows into `cabinet_hours`.
pub fn total_cabinet_hour(conn: &Connection, account: i64, hour: &str) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO cabinet_hours (account_id, hour, views, opens, clicks, actions,
            spent_micros)
         SELECT ?1, ?2, SUM(views), SUM(opens), SUM(clicks), SUM(actions), SUM(spent_micros)
         FROM hourly_stats WHERE account_id = ?1 AND hour = ?2 HAVING COUNT(*) > 0
         ON CONFLICT (account_id, hour) DO UPDATE SET views = excluded.views,
            opens = excluded.opens, clicks = excluded.clicks, actions = excluded.actions,
            spent_micros = excluded.spent_micros",
    )?
    .execute(params![account, hour])?;
    Ok(())
}

/// Adds what a correction moved in a campaign's rolled-up `day` (`YYYY-MM-DD`) to the cabinet's
/// hours of that day, to its last stored hour (or 23:00 when none is), so the cabinet's hours
/// and days keep summing its campaigns' rows: a rolled-up day has no hours of its campaigns
/// left to sum again.
pub fn shift_cabinet_day(
    conn: &Connection,
    account: i64,
    day: &str,
    moved: &Delta,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO cabinet_hours (account_id, hour, views, clicks, actions, spent_micros)
         VALUES (?1, COALESCE((SELECT MAX(hour) FROM cabinet_hours WHERE account_id = ?1
                AND hour >= ?2 || 'T00:00:00Z' AND hour < ?2 || 'T24:00:00Z'),
                ?2 || 'T23:00:00Z'), ?3, ?4, 0, ?5)
         ON CONFLICT (account_id, hour) DO UPDATE SET views = views + excluded.views,
            clicks = clicks + excluded.clicks, spent_micros = spent_micros + excluded.spent_micros",
    )?
    .execute(params![
        account,
        day,
        moved.views,
        moved.clicks,
        moved.spent_micros
    ])?;
    Ok(())
}

/// The 24 hours of stats a campaign's kept spend of the last day sums: the hour starting at
/// `last` and the 23 before it.
struct DaySpan {
    first: String,
    last: String,
}

impl DaySpan {
    fn ending(last: DateTime<Utc>) -> DaySpan {
        DaySpan {
            first: iso(last - Duration::hours(23)),
            last: iso(last),
        }
    }
}

/// Each campaign of a cabinet's spend in micro-units over the 24 hours of stats ending with the
/// hour starting at `last`, by `ad_id` (campaigns without any left out): what
/// [`keep_day_spend`] keeps in its row. The 23 hours before `last` are read through the rows'
/// runs (`runs`), where summing them would read 23 rows a campaign, and `last`'s own rows,
/// which the hourly sync reads this before it writes (so there are none unless the hour is
/// synced again), in one range. The sync adds each campaign's gain.
pub fn day_spends(
    conn: &Connection,
    account: i64,
    last: DateTime<Utc>,
) -> Result<HashMap<i64, i64>, StoreError> {
    let DaySpan { first, last } = DaySpan::ending(last);
    let mut spends: HashMap<i64, i64> = super::runs::per_campaign(conn, account, &first, &last)?
        .into_iter()
        .map(|(ad, totals)| (ad, totals.spent.micros()))
        .collect();
    for (ad, totals) in hour_of(conn, account, &last)? {
        let spend = spends.entry(ad).or_default();
        *spend = spend.saturating_add(totals.spent.micros());
    }
    Ok(spends)
}

/// Keeps each campaign of a cabinet's spend over the 24 hours of stats ending with the hour
/// starting at `last` (that hour and the 23 before it) in its row, writing only the rows whose
/// figure moved: one range of the campaign index per campaign, run where the hours are written
/// so the home page reads the pace instead of summing it.
pub fn keep_day_spend(
    conn: &Connection,
    account: i64,
    last: DateTime<Utc>,
) -> Result<(), StoreError> {
    let DaySpan { first, last } = DaySpan::ending(last);
    conn.prepare_cached(
        "UPDATE campaign_counters SET day_spend_micros = d.spent
         FROM (SELECT c.ad_id AS ad_id,
                (SELECT COALESCE(SUM(h.spent_micros), 0)
                 FROM hourly_stats h INDEXED BY hourly_stats_ad
                 WHERE h.account_id = ?1 AND h.ad_id = c.ad_id
                    AND h.hour >= ?2 AND h.hour <= ?3) AS spent
               FROM campaign_counters c WHERE c.account_id = ?1) d
         WHERE campaign_counters.account_id = ?1 AND campaign_counters.ad_id = d.ad_id
            AND campaign_counters.day_spend_micros <> d.spent",
    )?
    .execute(params![account, first, last])?;
    Ok(())
}

/// A cabinet's sums over the hours starting in `[from, to)`, read through its kept rows
/// (`kept::span`: its running sums, or daily rows, and the hours the bounds cut).
pub fn of_cabinet(
    conn: &Connection,
    account: i64,
    from: &str,
    to: &str,
) -> Result<Totals, StoreError> {
    super::kept::span(conn, account, from, to)
}

/// Each of `accounts`' spend over the 24 hours of stats ending with the last hour the sync
/// stored for it (up to `unsynced_end` for a cabinet never synced), in their order: the pace
/// its campaigns' kept day's spend is reckoned at. The cabinets whose 24 hours end together
/// are read together (`kept::days_of`).
pub fn last_day_spent(
    conn: &Connection,
    accounts: &[i64],
    unsynced_end: DateTime<Utc>,
) -> Result<Vec<Money>, StoreError> {
    let mut ending: std::collections::BTreeMap<DateTime<Utc>, Vec<usize>> = Default::default();
    for (place, end) in super::cabinets::synced_through_of(conn, accounts)?
        .iter()
        .enumerate()
    {
        let end = end.as_deref().and_then(crate::domain::time::parse_iso);
        ending
            .entry(end.unwrap_or(unsynced_end))
            .or_default()
            .push(place);
    }
    let mut spent = vec![Money::ZERO; accounts.len()];
    for (end, places) in ending {
        let ids: Vec<i64> = places.iter().map(|&p| accounts[p]).collect();
        let cabinets = super::kept::Cabinets::new(conn, &ids)?;
        let spans = super::kept::Spans::new(vec![iso(end - Duration::hours(24)), iso(end)]);
        for (&place, sums) in places
            .iter()
            .zip(super::kept::days_of(conn, &cabinets, &spans)?)
        {
            spent[place] = sums.first().map_or(Money::ZERO, |t| t.spent);
        }
    }
    Ok(spent)
}

/// One campaign's hourly rows starting in `[from, to)`, oldest first.
pub fn hours_of_campaign(
    conn: &Connection,
    account: i64,
    ad: i64,
    from: &str,
    to: &str,
) -> Result<Vec<(String, Totals)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT hour, views, opens, clicks, actions, spent_micros
         FROM hourly_stats INDEXED BY hourly_stats_ad
         WHERE account_id = ?1 AND ad_id = ?2 AND hour >= ?3 AND hour < ?4 ORDER BY hour",
    )?;
    let rows = stmt.query_map(params![account, ad, from, to], |r| {
        Ok((r.get(0)?, totals_at(r, 1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Each campaign's gains in one hour of one cabinet, largest spend first.
pub fn hour_of(
    conn: &Connection,
    account: i64,
    hour: &str,
) -> Result<Vec<(i64, Totals)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id, views, opens, clicks, actions, spent_micros FROM hourly_stats
         WHERE account_id = ?1 AND hour = ?2 ORDER BY spent_micros DESC, ad_id",
    )?;
    let rows = stmt.query_map(params![account, hour], |r| {
        Ok((r.get(0)?, totals_at(r, 1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How many campaigns of a cabinet gained in `hour`, and the sum of their gains: the digest's
/// totals, summed where the rows are rather than carried out one by one.
pub fn hour_total(
    conn: &Connection,
    account: i64,
    hour: &str,
) -> Result<(usize, Totals), StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT COUNT(*), COALESCE(SUM(views), 0), COALESCE(SUM(opens), 0),
                COALESCE(SUM(clicks), 0), COALESCE(SUM(actions), 0),
                COALESCE(SUM(spent_micros), 0)
             FROM hourly_stats WHERE account_id = ?1 AND hour = ?2",
        )?
        .query_row(params![account, hour], |r| {
            Ok((r.get::<_, i64>(0)? as usize, totals_at(r, 1)?))
        })?)
}

/// Whether campaign `ad` of a cabinet has a row of what it gained in `hour`.
pub fn gained_in(conn: &Connection, account: i64, hour: &str, ad: i64) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM hourly_stats
                WHERE account_id = ?1 AND hour = ?2 AND ad_id = ?3)",
        )?
        .query_row(params![account, hour, ad], |r| r.get(0))?)
}

/// The statement of [`top_of_hour`]: the hour's `?3` largest spends sorted in the subquery,
/// then each one's copy found by its key (a campaign without a stored copy keeps NULLs).
const TOP_OF_HOUR: &str = "SELECT h.ad_id, h.views, h.opens, h.clicks, h.actions,
        h.spent_micros, k.ad_id, {NAMED}
     FROM (SELECT ad_id, views, opens, clicks, actions, spent_micros FROM hourly_stats
           WHERE account_id = ?1 AND hour = ?2 ORDER BY spent_micros DESC, ad_id LIMIT ?3) h
     LEFT JOIN campaigns c ON c.account_id = ?1 AND c.ad_id = h.ad_id
     LEFT JOIN campaign_counters k ON c.id IS NOT NULL AND k.account_id = ?1
        AND k.ad_id = h.ad_id
     ORDER BY h.spent_micros DESC, h.ad_id";

/// The `limit` campaigns of a cabinet that spent most in `hour` (then by `ad_id`), each with
/// its gain and, when its copy is stored, what names it ([`Named`]): a digest's lines in one
/// statement, where a lookup per line cost as much as reading the hour's rows.
pub fn top_of_hour(
    conn: &Connection,
    account: i64,
    hour: &str,
    limit: usize,
) -> Result<Vec<(i64, Totals, Option<Named>)>, StoreError> {
    let mut stmt = conn.prepare_cached(&TOP_OF_HOUR.replace("{NAMED}", NAMED_COLUMNS))?;
    let rows = stmt.query_map(params![account, hour, limit as i64], |r| {
        let named = match r.get::<_, Option<i64>>(6)? {
            Some(_) => Some(named_at(r, 7)?),
            None => None,
        };
        Ok((r.get(0)?, totals_at(r, 1)?, named))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time::parse_iso;
    use crate::store::campaigns::named;
    use crate::store::test_db;

    #[test]
    fn an_hours_largest_spends_come_with_their_copies_names_and_its_total_covers_all() {
        let conn = test_db();
        crate::store::test_campaign(&conn, 7, 2);
        let hour = "2026-03-01T10:00:00Z";
        for (ad, at, spent) in [
            (1, hour, 5_000),
            (2, hour, 9_000),
            (3, hour, 9_000),
            (4, hour, 1_000),
            (5, "2026-03-01T11:00:00Z", 99_000),
        ] {
            conn.execute(
                "INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks,
                    actions, spent_micros) VALUES (7, ?1, ?2, 10, 1, 2, 3, ?3)",
                params![ad, at, spent],
            )
            .unwrap();
        }
        let top = top_of_hour(&conn, 7, hour, 3).unwrap();
        let ads: Vec<i64> = top.iter().map(|(ad, _, _)| *ad).collect();
        assert_eq!(
            ads,
            [2, 3, 1],
            "largest spend first, ties by ad_id, three of four"
        );
        assert_eq!(top[0].1.spent.micros(), 9_000);
        assert_eq!(
            top[0].2,
            named(&conn, 7, 2).unwrap(),
            "a stored copy's names, as read alone"
        );
        assert!(top[0].2.is_some());
        assert!(top[1].2.is_none(), "no stored copy, no names");
        let (count, totals) = hour_total(&conn, 7, hour).unwrap();
        assert_eq!(
            (count, totals.views, totals.spent.micros()),
            (4, 40, 24_000)
        );
        assert_eq!(hour_total(&conn, 7, "2026-03-01T12:00:00Z").unwrap().0, 0);
        assert!(gained_in(&conn, 7, hour, 4).unwrap());
        assert!(
            !gained_in(&conn, 7, hour, 5).unwrap(),
            "its gain is of another hour"
        );
        let plan =
            crate::store::test_plan(&conn, &TOP_OF_HOUR.replace("{NAMED}", NAMED_COLUMNS), 7);
        for step in ["SEARCH c USING INDEX", "SEARCH k USING PRIMARY KEY"] {
            assert!(plan.iter().any(|s| s.starts_with(step)), "{step}: {plan:?}");
        }
    }

    #[test]
    fn each_cabinets_last_day_is_its_own_read_alone_whatever_hour_it_ends() {
        let conn = test_db();
        crate::store::kept::tests::more_cabinets(&conn);
        let start = parse_iso("2026-03-01T00:00:00Z").unwrap();
        for account in [7, 8, 9, 10] {
            for h in 0..72_i64 {
                conn.execute(
                    "INSERT INTO cabinet_hours (account_id, hour, views, opens, clicks, actions,
                        spent_micros) VALUES (?1, ?2, 1, 0, 0, 0, ?3)",
                    params![
                        account,
                        iso(start + Duration::hours(h)),
                        account * 1_000 + h
                    ],
                )
                .unwrap();
            }
        }
        let synced = |account: i64, hours: i64| {
            conn.execute(
                "UPDATE cabinets SET synced_through = ?2 WHERE id = ?1",
                params![account, iso(start + Duration::hours(hours))],
            )
            .unwrap();
        };
        // 7, 8 and 9 end together (half of the six cabinets: read together), 10 five hours
        // later, 11 and 12 never synced (12 with no hours).
        for account in [7, 8, 9] {
            synced(account, 50);
        }
        synced(10, 55);
        let unsynced = start + Duration::hours(60);
        let accounts = [9, 7, 10, 8, 12];
        let together = crate::store::kept::Cabinets::new(&conn, &[9, 7, 8]).unwrap();
        assert!(together.together);
        let spent = last_day_spent(&conn, &accounts, unsynced).unwrap();
        let alone = |account: i64, end: DateTime<Utc>| {
            of_cabinet(&conn, account, &iso(end - Duration::hours(24)), &iso(end))
                .unwrap()
                .spent
        };
        let at = |h: i64| start + Duration::hours(h);
        let expected = [
            alone(9, at(50)),
            alone(7, at(50)),
            alone(10, at(55)),
            alone(8, at(50)),
            alone(12, unsynced),
        ];
        assert_eq!(spent, expected);
        // The hours 26 to 49 of cabinet 7, and 31 to 54 of cabinet 10.
        let hours =
            |account: i64, first: i64| (first..first + 24).map(move |h| account * 1_000 + h);
        assert_eq!(spent[1], Money::from_micros(hours(7, 26).sum()));
        assert_eq!(spent[2], Money::from_micros(hours(10, 31).sum()));
    }
}
