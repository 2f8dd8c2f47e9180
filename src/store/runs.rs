//! Owns the reads of a span's stats through the running sums each stored row holds (schema 48,
//! kept by the triggers of the view `hourly_entries` every hourly row written without its run
//! goes through, schema 73, and by triggers on `daily_stats`; the hourly sync gives its rows
//! theirs from [`for_hour`], schemas 58 and 62): a campaign's sums over `[from, to)`
//! are the run of its last row before `to` less the run of its last row before `from`, two
//! probes of its index whatever the span's length, and a cabinet's campaigns with a row in its
//! latest hour before each bound are read from those two hours' rows in two ranges, unprobed,
//! wherever no rolled-up day can be their mark (schema 51). Rows count as the stats endpoints
//! always counted them: an hour when it starts in the span, a day retention rolled up when the
//! whole day lies in it. One edge differs: an hour written late into a day already rolled up (stats
//! older than the hourly cutoff, which the sync does not write) counts with its day, in a span
//! only when the whole day is, until the next retention pass rolls it in too. A cabinet's total
//! over a span with no rolled-up day in it reads the cabinet's kept rows and counts the
//! campaigns with figures from its latest hour instead (`cabinet_total`).

use std::collections::HashMap;
use std::iter::Peekable;
use std::rc::Rc;
use std::vec::IntoIter;

use rusqlite::{params, Connection, Row};

use super::stats::totals_at;
use super::{ids_json, optional, StoreError};
use crate::domain::money::Money;
use crate::domain::stats::Totals;

/// The four marks of each campaign of cabinet `?1` the WHERE clause given picks: the last hour
/// starting before `?3` (the span's end) and the last day ending by it, the last hour starting
/// before `?2` (its start) and the last day starting before it. Each is `key, run_*` (NULLs
/// when there is none), the key being the hour or the day.
macro_rules! marks {
    ($campaigns:literal) => {
        concat!(
            "
    SELECT c.ad_id,
        ht.hour, ht.run_views, ht.run_opens, ht.run_clicks, ht.run_actions, ht.run_spent_micros,
        dt.day, dt.run_views, dt.run_opens, dt.run_clicks, dt.run_actions, dt.run_spent_micros,
        hf.hour, hf.run_views, hf.run_opens, hf.run_clicks, hf.run_actions, hf.run_spent_micros,
        df.day, df.run_views, df.run_opens, df.run_clicks, df.run_actions, df.run_spent_micros
    FROM campaigns c
    LEFT JOIN hourly_stats ht ON ht.account_id = ?1 AND ht.ad_id = c.ad_id
        AND ht.hour = (SELECT MAX(hour) FROM hourly_stats INDEXED BY hourly_stats_ad
            WHERE account_id = ?1 AND ad_id = c.ad_id AND hour < ?3)
    LEFT JOIN daily_stats dt ON dt.account_id = ?1 AND dt.ad_id = c.ad_id
        AND dt.day = (SELECT MAX(day) FROM daily_stats
            WHERE account_id = ?1 AND ad_id = c.ad_id AND day < substr(?3, 1, 10))
    LEFT JOIN hourly_stats hf ON hf.account_id = ?1 AND hf.ad_id = c.ad_id
        AND hf.hour = (SELECT MAX(hour) FROM hourly_stats INDEXED BY hourly_stats_ad
            WHERE account_id = ?1 AND ad_id = c.ad_id AND hour < ?2)
    LEFT JOIN daily_stats df ON df.account_id = ?1 AND df.ad_id = c.ad_id
        AND df.day = (SELECT MAX(day) FROM daily_stats
            WHERE account_id = ?1 AND ad_id = c.ad_id AND day <= substr(?2, 1, 10)
                AND day || 'T00:00:00Z' < ?2)
    WHERE c.account_id = ?1 AND ",
            $campaigns,
            " ORDER BY c.ad_id"
        )
    };
}

/// A stored row as a span's bound reads it: where it lies in its campaign's rows (an hour's
/// start; a day sorts after the hours that start in it) and the campaign's sums through it.
struct Mark {
    at: Rc<str>,
    run: Totals,
}

impl Mark {
    /// The mark at columns `first..first + 6`, `day` when the key is a day's.
    fn at(r: &Row, first: usize, day: bool) -> rusqlite::Result<Option<Mark>> {
        let key: Option<String> = r.get(first)?;
        key.map(|key| {
            Ok(Mark {
                at: if day { format!("{key}T24:00:00Z") } else { key }.into(),
                run: totals_at(r, first + 1)?,
            })
        })
        .transpose()
    }

    /// The later of an hour's and a day's mark.
    fn later(hour: Option<Mark>, day: Option<Mark>) -> Option<Mark> {
        match (hour, day) {
            (Some(h), Some(d)) => Some(if d.at > h.at { d } else { h }),
            (h, d) => h.or(d),
        }
    }
}

/// A campaign's sums between its marks at a span's start and end; `None` when no row lies
/// between them (no stats in the span).
fn between(start: Option<Mark>, end: Option<Mark>) -> Option<Totals> {
    let end = end?;
    let Some(start) = start else {
        return Some(end.run);
    };
    (end.at > start.at).then(|| {
        let less = |a: i64, b: i64| a.saturating_sub(b);
        Totals {
            views: less(end.run.views, start.run.views),
            opens: less(end.run.opens, start.run.opens),
            clicks: less(end.run.clicks, start.run.clicks),
            actions: less(end.run.actions, start.run.actions),
            spent: Money::from_micros(less(end.run.spent.micros(), start.run.spent.micros())),
        }
    })
}

/// The sums over `[from, to)` of the campaigns read (every campaign of `account`, or those of
/// `ads`), in id order, those with no stats there left out: every campaign's four marks probed.
fn spans(
    conn: &Connection,
    account: i64,
    ads: Option<&[i64]>,
    (from, to): (&str, &str),
) -> Result<Vec<(i64, Totals)>, StoreError> {
    let mut stmt = match ads {
        None => conn.prepare_cached(marks!("?4 IS NULL"))?,
        Some(_) => conn.prepare_cached(marks!("c.ad_id IN (SELECT value FROM json_each(?4))"))?,
    };
    let listed = ads.map(ids_json);
    let mut rows = stmt.query(params![account, from, to, listed])?;
    let mut found = Vec::new();
    while let Some(r) = rows.next()? {
        let end = Mark::later(Mark::at(r, 1, false)?, Mark::at(r, 7, true)?);
        let start = Mark::later(Mark::at(r, 13, false)?, Mark::at(r, 19, true)?);
        if let Some(totals) = between(start, end) {
            found.push((r.get(0)?, totals));
        }
    }
    Ok(found)
}

/// What a cabinet's rows tell of its campaigns' marks at one bound without probing them.
enum Bound {
    /// The cabinet's latest hour before the bound comes after every day it rolled up (schema
    /// 51): a campaign with a row in it has that row as its mark; the others are probed. The
    /// hour, and its rows' runs in id order, read as the campaigns are.
    Rows(Rc<str>, Peekable<IntoIter<(i64, Totals)>>),
    /// No row of the cabinet lies before the bound: no campaign has a mark.
    Nothing,
    /// Rolled-up days may hold the marks: every campaign is probed.
    Probe,
}

impl Bound {
    /// The marks at `bound` of a cabinet whose latest rolled-up day is `rolled`
    /// ([`last_rolled_day`]).
    fn at(
        conn: &Connection,
        account: i64,
        bound: &str,
        rolled: Option<&str>,
    ) -> Result<Bound, StoreError> {
        Ok(match (latest_hour(conn, account, bound)?, rolled) {
            (Some(hour), rolled) if rolled.is_none_or(|day| Some(day) < hour.get(..10)) => {
                let runs = runs_at(conn, account, &hour)?;
                Bound::Rows(hour.into(), runs.into_iter().peekable())
            }
            (None, None) => Bound::Nothing,
            _ => Bound::Probe,
        })
    }

    /// The mark at the bound of campaign `ad` (`Some(None)`: it has none), or `None` when it
    /// must be probed; asked in id order.
    fn take(&mut self, ad: i64) -> Option<Option<Mark>> {
        match self {
            Bound::Rows(hour, rows) => {
                while rows.next_if(|(row, _)| *row < ad).is_some() {}
                let (_, run) = rows.next_if(|(row, _)| *row == ad)?;
                Some(Some(Mark {
                    at: hour.clone(),
                    run,
                }))
            }
            Bound::Nothing => Some(None),
            Bound::Probe => None,
        }
    }
}

/// The start of a cabinet's latest hour with stats before `bound`.
fn latest_hour(conn: &Connection, account: i64, bound: &str) -> Result<Option<String>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT MAX(hour) FROM hourly_stats WHERE account_id = ?1 AND hour < ?2")?
        .query_row(params![account, bound], |r| r.get(0))?)
}

/// The latest day a cabinet has a rolled-up stats row for, as schema 51 keeps it.
fn last_rolled_day(conn: &Connection, account: i64) -> Result<Option<String>, StoreError> {
    optional(
        conn.prepare_cached("SELECT last_day FROM cabinet_rolled_days WHERE account_id = ?1")?
            .query_row([account], |r| r.get(0)),
    )
}

/// Each campaign's run through its row of `hour`, in id order: one range of the cabinet's rows.
fn runs_at(conn: &Connection, account: i64, hour: &str) -> Result<Vec<(i64, Totals)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id, run_views, run_opens, run_clicks, run_actions, run_spent_micros
         FROM hourly_stats WHERE account_id = ?1 AND hour = ?2 ORDER BY ad_id",
    )?;
    let rows = stmt.query_map(params![account, hour], |r| {
        Ok((r.get(0)?, totals_at(r, 1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The ids of a cabinet's campaigns, in order.
fn ad_ids(conn: &Connection, account: i64) -> Result<Vec<i64>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT ad_id FROM campaigns WHERE account_id = ?1 ORDER BY ad_id")?
        .query_map([account], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?)
}

/// Every campaign of a cabinet's sums over `[from, to)`, in id order, those with no stats
/// there left out. The campaigns with a row in the cabinet's latest hour before each bound
/// (every running one, hour after hour) are read from those two hours' rows in two ranges,
/// and only the others probed ([`spans`]), unless rolled-up days may hold the marks.
fn cabinet(
    conn: &Connection,
    account: i64,
    (from, to): (&str, &str),
) -> Result<Vec<(i64, Totals)>, StoreError> {
    let rolled = last_rolled_day(conn, account)?;
    let (mut starts, mut ends) = (
        Bound::at(conn, account, from, rolled.as_deref())?,
        Bound::at(conn, account, to, rolled.as_deref())?,
    );
    if matches!(starts, Bound::Probe) || matches!(ends, Bound::Probe) {
        return spans(conn, account, None, (from, to));
    }
    let ads = ad_ids(conn, account)?;
    let (mut found, mut probed) = (Vec::new(), Vec::new());
    for ad in ads {
        match (starts.take(ad), ends.take(ad)) {
            (Some(start), Some(end)) => found.extend(between(start, end).map(|t| (ad, t))),
            _ => probed.push(ad),
        }
    }
    if !probed.is_empty() {
        found.extend(spans(conn, account, Some(&probed), (from, to))?);
        found.sort_unstable_by_key(|(ad, _)| *ad);
    }
    Ok(found)
}

/// The run through its last row before `bound` (an hour, or a day ending by it) of each of the
/// cabinet's campaigns `ads`, by `ad_id`; campaigns with no row before it are left out. Those
/// with a row in the cabinet's latest hour before `bound` are read from that hour's rows in one
/// range, and only the others probed, unless rolled-up days may hold the marks: what the hourly
/// sync adds the rows it writes to (`stats::Gains::record`), asked for the campaigns that gained,
/// so the campaigns that ended long ago are not probed hour after hour. `rolled` is the
/// cabinet's last rolled-up day ([`last_rolled_day`], read once by the caller).
fn before(
    conn: &Connection,
    account: i64,
    bound: &str,
    ads: &[i64],
    rolled: Option<&str>,
) -> Result<HashMap<i64, Totals>, StoreError> {
    let mut ads = ads.to_vec();
    ads.sort_unstable();
    ads.dedup();
    let mut ends = Bound::at(conn, account, bound, rolled)?;
    // A span from the start of time: no campaign has a mark at its start.
    let whole = ("", bound);
    if matches!(ends, Bound::Probe) {
        return Ok(spans(conn, account, Some(&ads), whole)?
            .into_iter()
            .collect());
    }
    let (mut found, mut probed) = (HashMap::new(), Vec::new());
    for ad in ads {
        match ends.take(ad) {
            Some(mark) => found.extend(mark.map(|m| (ad, m.run))),
            None => probed.push(ad),
        }
    }
    if !probed.is_empty() {
        found.extend(spans(conn, account, Some(&probed), whole)?);
    }
    Ok(found)
}

/// What the hourly sync writes a cabinet's rows of an hour with (`stats::Gains::record`):
/// each campaign's run before the hour ([`before`]), which its row's gain is added to, when no
/// row of the cabinet comes after the hour. Schema 62 lets a row written with its run skip
/// looking for later rows of its campaign, so only then are runs given. Otherwise (a clock set
/// back, a row a fixture or correction wrote ahead) there are none: the rows are written as
/// every other writer writes them, through `hourly_entries`, whose triggers work out their runs
/// and move the later rows'.
pub struct Runs {
    given: Option<HashMap<i64, Totals>>,
}

impl Runs {
    /// The run a campaign's row of the hour is written with, its `gain` added first; `None`
    /// when the rows are written without runs.
    pub fn add(&mut self, ad: i64, gain: &Totals) -> Option<&Totals> {
        let run = self.given.as_mut()?.entry(ad).or_default();
        run.add(gain);
        Some(run)
    }
}

/// The [`Runs`] of cabinet `account`'s campaigns `ads` for rows of `hour`: their runs before it
/// unless a row of the cabinet comes after it, an hourly row or a rolled-up day on or after its
/// day (by `cabinet_rolled_days`, an upper bound: the triggers' own test, for every campaign).
pub fn for_hour(
    conn: &Connection,
    account: i64,
    hour: &str,
    ads: &[i64],
) -> Result<Runs, StoreError> {
    let later_hour: bool = conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM hourly_stats WHERE account_id = ?1 AND hour > ?2)",
        )?
        .query_row(params![account, hour], |r| r.get(0))?;
    let rolled = last_rolled_day(conn, account)?;
    let later_day = rolled
        .as_deref()
        .is_some_and(|day| format!("{day}T24:00:00Z").as_str() > hour);
    let given = if later_hour || later_day {
        None
    } else {
        Some(before(conn, account, hour, ads, rolled.as_deref())?)
    };
    Ok(Runs { given })
}

/// Each campaign's sums over the hours starting in `[from, to)` (and the rolled-up days wholly
/// inside it), in id order; campaigns with no stats there are left out.
pub fn per_campaign(
    conn: &Connection,
    account: i64,
    from: &str,
    to: &str,
) -> Result<Vec<(i64, Totals)>, StoreError> {
    cabinet(conn, account, (from, to))
}

/// A cabinet's sums over `[from, to)` and how many of its campaigns have stats there: what
/// [`per_campaign`] finds, summed. Unless a rolled-up day may lie in the span, the sums are the
/// cabinet's kept rows (`kept::span`: two runs or a few daily rows and the hours the bounds cut,
/// the same on day 365 as on day 1) and the count [`with_stats`]: no campaign's runs are read at either bound.
pub fn cabinet_total(
    conn: &Connection,
    account: i64,
    from: &str,
    to: &str,
) -> Result<(usize, Totals), StoreError> {
    let rolled = last_rolled_day(conn, account)?;
    if rolled.is_some_and(|day| from.get(..10).is_none_or(|first| day.as_str() >= first)) {
        let found = cabinet(conn, account, (from, to))?;
        return Ok((found.len(), found.iter().map(|(_, t)| t).sum()));
    }
    Ok((
        with_stats(conn, account, from, to)?,
        super::kept::span(conn, account, from, to)?,
    ))
}

/// How many of a cabinet's campaigns have an hourly row starting in `[from, to)`: those with a
/// row in the cabinet's latest hour before `to`, read in one range beside the campaigns' ids,
/// and each other one probed. With no rolled-up day on or after `from`'s (as
/// [`cabinet_total`] asks), that is every campaign [`per_campaign`] finds.
fn with_stats(conn: &Connection, account: i64, from: &str, to: &str) -> Result<usize, StoreError> {
    let Some(hour) = latest_hour(conn, account, to)?.filter(|hour| hour.as_str() >= from) else {
        return Ok(0);
    };
    let at = conn
        .prepare_cached(
            "SELECT ad_id FROM hourly_stats WHERE account_id = ?1 AND hour = ?2 ORDER BY ad_id",
        )?
        .query_map(params![account, hour], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    let ads = ad_ids(conn, account)?;
    let mut probe = conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM hourly_stats INDEXED BY hourly_stats_ad
            WHERE account_id = ?1 AND ad_id = ?2 AND hour >= ?3 AND hour < ?4)",
    )?;
    let mut at = at.into_iter().peekable();
    let mut counted = 0;
    for ad in ads {
        while at.next_if(|row| *row < ad).is_some() {}
        let found = at.next_if_eq(&ad).is_some()
            || probe.query_row(params![account, ad, from, to], |r| r.get(0))?;
        counted += usize::from(found);
    }
    Ok(counted)
}

/// One campaign's sums over the hours starting in `[from, to)`, and the rolled-up days wholly
/// inside it; `None` when it has no stats there.
pub fn of_campaign(
    conn: &Connection,
    account: i64,
    ad: i64,
    from: &str,
    to: &str,
) -> Result<Option<Totals>, StoreError> {
    Ok(spans(conn, account, Some(&[ad]), (from, to))?
        .pop()
        .map(|(_, totals)| totals))
}

/// One campaign's sums over each span between consecutive `bounds` (each span as
/// [`of_campaign`] reads it; zeros where it has no stats): the buckets of a chart, four probes a
/// bucket however many hours it holds.
pub fn buckets(
    conn: &Connection,
    account: i64,
    ad: i64,
    bounds: &[String],
) -> Result<Vec<Totals>, StoreError> {
    bounds
        .windows(2)
        .map(|span| Ok(of_campaign(conn, account, ad, &span[0], &span[1])?.unwrap_or_default()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{kept_check, retention, stats, test_db};
    use chrono::{Duration, TimeZone, Utc};

    const ADS: [i64; 3] = [1, 2, 3];

    /// A test database holding cabinet 7's campaigns [`ADS`].
    fn db() -> Connection {
        let conn = test_db();
        for ad in ADS {
            crate::store::test_campaign(&conn, 7, ad);
        }
        conn
    }

    /// The ISO start of each hour `h` hours after midnight of 2026-11-`day` UTC.
    fn hours_from(day: u32) -> impl Fn(i64) -> String {
        let start = Utc.with_ymd_and_hms(2026, 11, day, 0, 0, 0).unwrap();
        move |h| crate::clock::iso(start + Duration::hours(h))
    }

    /// A gain of `views` views at 10 micro-units each.
    fn gain(views: i64) -> Totals {
        Totals {
            views,
            spent: Money::from_micros(views * 10),
            ..Totals::default()
        }
    }

    /// What the hourly sync writes of a campaign's gain: the row, with its run when
    /// [`for_hour`] gives one.
    fn record(conn: &Connection, ad: i64, hour: &str, gain: &Totals) {
        let mut runs = for_hour(conn, 7, hour, &[ad]).unwrap();
        stats::Gains::new(conn)
            .unwrap()
            .record(7, ad, hour, gain, &mut runs)
            .unwrap();
    }

    /// The sums the stats endpoints read before the runs: hours starting in the span, and days
    /// wholly inside it, summed row by row.
    fn summed(conn: &Connection, from: &str, to: &str) -> Vec<(i64, Totals)> {
        let mut stmt = conn
            .prepare(
                "SELECT ad_id, SUM(views), SUM(opens), SUM(clicks), SUM(actions),
                    SUM(spent_micros)
                 FROM (SELECT ad_id, views, opens, clicks, actions, spent_micros
                       FROM hourly_stats WHERE account_id = 7 AND hour >= ?1 AND hour < ?2
                       UNION ALL
                       SELECT ad_id, views, opens, clicks, actions, spent_micros
                       FROM daily_stats WHERE account_id = 7
                           AND day || 'T00:00:00Z' >= ?1 AND day < substr(?2, 1, 10))
                 GROUP BY ad_id ORDER BY ad_id",
            )
            .unwrap();
        let rows = stmt
            .query_map(params![from, to], |r| Ok((r.get(0)?, totals_at(r, 1)?)))
            .unwrap();
        rows.collect::<rusqlite::Result<_>>().unwrap()
    }

    /// Every span from each of `starts` to each later of `ends` reads through the runs what
    /// the rows sum to, and `check --deep` finds every run equal.
    fn agree(conn: &Connection, times: &[String]) {
        for from in times {
            for to in times.iter().filter(|t| *t > from) {
                assert_eq!(
                    per_campaign(conn, 7, from, to).unwrap(),
                    summed(conn, from, to),
                    "{from} to {to}"
                );
            }
        }
        runs_check_equal(conn);
    }

    /// `check --deep` finds every stored run equal to the rows summed in time order.
    fn runs_check_equal(conn: &Connection) {
        let figures = kept_check::check(conn).unwrap();
        let runs = figures.iter().find(|f| f.name == "stat_runs").unwrap();
        assert!(runs.equal(), "{:?}", runs.differences);
    }

    #[test]
    fn a_cabinet_total_from_its_kept_rows_equals_its_campaigns_summed() {
        let conn = db();
        crate::store::test_campaign(&conn, 7, 4);
        let hour = hours_from(20);
        // As the hourly sync writes: ad 1 runs through hour 100, ad 2 through hour 60 and ad 3
        // through hour 20, each idle some hours; ad 4 never runs.
        for h in 0..=100 {
            let mut runs = for_hour(&conn, 7, &hour(h), &[1, 2, 3]).unwrap();
            for (ad, last) in [(1, 100), (2, 60), (3, 20)] {
                if h <= last && (h + ad) % 7 != 0 {
                    let gain = Totals {
                        views: 10 + h,
                        opens: h % 3,
                        clicks: ad,
                        actions: h % 2,
                        spent: Money::from_micros(1000 + h),
                    };
                    stats::Gains::new(&conn)
                        .unwrap()
                        .record(7, ad, &hour(h), &gain, &mut runs)
                        .unwrap();
                }
            }
            stats::total_cabinet_hour(&conn, 7, &hour(h)).unwrap();
        }
        let times: Vec<String> = [0, 10, 21, 30, 59, 61, 75, 100, 101, 130]
            .into_iter()
            .map(&hour)
            .collect();
        let agree = |conn: &Connection| {
            for from in &times {
                for to in times.iter().filter(|t| *t > from) {
                    let found = per_campaign(conn, 7, from, to).unwrap();
                    let sum = found.iter().map(|(_, t)| t).sum();
                    assert_eq!(
                        cabinet_total(conn, 7, from, to).unwrap(),
                        (found.len(), sum),
                        "{from} to {to}"
                    );
                }
            }
        };
        agree(&conn);
        let counted = |from: i64, to: i64| cabinet_total(&conn, 7, &hour(from), &hour(to)).unwrap();
        assert_eq!(counted(10, 130).0, 3);
        assert_eq!(
            counted(59, 130).0,
            2,
            "ad 2 stopped inside the span, probed"
        );
        assert_eq!(counted(61, 130).0, 1);
        assert_eq!(counted(101, 130), (0, Totals::default()));
        assert!(counted(61, 130).1.opens > 0, "opens are kept per cabinet");

        // The first two days rolled up: a span starting in them reads the campaigns' runs, a
        // later one the kept rows still.
        for ad in ADS {
            retention::roll_campaign(&conn, 7, ad, &hour(48)).unwrap();
        }
        agree(&conn);
        assert!(kept_check::check(&conn).unwrap().iter().all(|f| f.equal()));
    }

    #[test]
    fn a_span_read_through_the_runs_equals_its_rows_summed_through_rewrites_and_rolls() {
        let conn = db();
        let hour = hours_from(20);
        // Five days of hours written out of order, some twice (a re-sync's upsert adds), a
        // campaign idle some hours; then a correction of a past hour.
        let mut seed: i64 = 7;
        for h in (0..120).rev().chain(0..120).filter(|h| h % 5 != 3) {
            for ad in ADS {
                seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
                if (seed >> 8) % 4 == 0 {
                    continue;
                }
                let gain = Totals {
                    views: seed % 100,
                    opens: seed % 7,
                    clicks: seed % 11,
                    actions: seed % 3,
                    spent: Money::from_micros(seed % 1_000_000),
                };
                record(&conn, ad, &hour(h), &gain);
            }
        }
        conn.execute(
            "UPDATE hourly_entries SET views = 1, spent_micros = 5 WHERE account_id = 7
                AND ad_id = 2 AND hour = ?1",
            [hour(30)],
        )
        .unwrap();
        // A row written as other writers do (a correction's new hour, a fixture), between
        // hours already stored: the view's triggers work out its run and move the later ones.
        conn.execute(
            "INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions,
                spent_micros) VALUES (7, 3, ?1, 6, 1, 2, 3, 444)",
            [hour(8)],
        )
        .unwrap();
        let times: Vec<String> = [0, 1, 13, 24, 30, 47, 48, 60, 72, 100, 119, 120, 200]
            .into_iter()
            .map(&hour)
            .collect();
        agree(&conn, &times);

        // Ad 4 ran only in the first two days.
        crate::store::test_campaign(&conn, 7, 4);
        for h in 0..40 {
            record(&conn, 4, &hour(h), &gain(h + 1));
        }

        // Retention rolls the first two days; a late hour lands in a rolled day and is rolled
        // in turn; a rolled day is corrected.
        for ad in [1, 2, 3, 4] {
            retention::roll_campaign(&conn, 7, ad, &hour(48)).unwrap();
        }
        agree(&conn, &times);
        let late = Totals {
            views: 5,
            spent: Money::from_micros(50),
            ..Totals::default()
        };
        record(&conn, 1, &hour(30), &late);
        // Listed twice: the row's update adds the second gain to it and to its day's row.
        record(&conn, 1, &hour(30), &gain(2));
        // Ad 4 has no hour after it, only its day's row: which gains it all the same.
        record(&conn, 4, &hour(30), &late);
        // Another written as other writers do, its run worked out by its trigger: from the rows
        // before its day's, not from its own day's row.
        conn.execute(
            "INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions,
                spent_micros) VALUES (7, 2, ?1, 4, 0, 1, 0, 40)",
            [hour(31)],
        )
        .unwrap();
        // Until they are rolled, a span starting inside that day reads the day whole before its
        // start (the one edge the module names); the runs themselves are right.
        runs_check_equal(&conn);
        for ad in [1, 2, 4] {
            retention::roll_campaign(&conn, 7, ad, &hour(48)).unwrap();
        }
        conn.execute(
            "UPDATE daily_stats SET clicks = clicks + 4 WHERE account_id = 7 AND ad_id = 3
                AND day = '2026-11-20'",
            [],
        )
        .unwrap();
        agree(&conn, &times);
        assert_eq!(
            conn.query_row("SELECT COUNT(*) FROM daily_stats", [], |r| r
                .get::<_, i64>(0))
                .unwrap(),
            8,
            "two days of four campaigns rolled"
        );
    }

    /// The runs the hourly sync adds its rows to: a campaign in the cabinet's latest hour is
    /// read from that hour's rows, one whose last row is older or rolled up is probed, one
    /// with no row before the bound is left out, and so is one not asked for.
    #[test]
    fn a_campaign_s_run_before_an_hour_is_what_its_rows_before_it_sum_to() {
        let conn = db();
        crate::store::test_campaign(&conn, 7, 4);
        let hour = hours_from(18);
        for h in 0..72 {
            record(&conn, 1, &hour(h), &gain(h + 1));
            if h < 50 {
                record(&conn, 2, &hour(h), &gain(2));
            }
            if h < 20 {
                record(&conn, 3, &hour(h), &gain(3));
            }
        }
        for ad in ADS {
            retention::roll_campaign(&conn, 7, ad, &hour(24)).unwrap();
        }
        let rolled = last_rolled_day(&conn, 7).unwrap();
        let rolled = rolled.as_deref();
        for h in [10, 30, 50, 72] {
            let mut found: Vec<(i64, Totals)> = before(&conn, 7, &hour(h), &[4, 3, 2, 1], rolled)
                .unwrap()
                .into_iter()
                .collect();
            found.sort_by_key(|(ad, _)| *ad);
            let expected = summed(&conn, "", &hour(h));
            assert_eq!(found, expected, "before hour {h}");
            assert_eq!(found.len(), if h == 10 { 0 } else { 3 }, "before hour {h}");
        }
        // Only the campaigns asked for: the sync asks for those that gained.
        let asked: Vec<i64> = before(&conn, 7, &hour(72), &[2], rolled)
            .unwrap()
            .into_keys()
            .collect();
        assert_eq!(asked, [2]);
    }

    #[test]
    fn a_chart_s_buckets_are_what_the_rows_between_their_bounds_sum_to() {
        let conn = db();
        let hour = hours_from(18);
        for h in 0..96 {
            if h % 5 != 3 {
                record(&conn, 2, &hour(h), &gain(h + 1));
            }
            record(&conn, 1, &hour(h), &gain(1));
        }
        // The first day rolled up: it counts in a bucket that holds it whole.
        for ad in ADS {
            retention::roll_campaign(&conn, 7, ad, &hour(24)).unwrap();
        }
        for bounds in [vec![0, 24, 48, 72, 96, 120], vec![-5, 7, 31, 55, 79, 103]] {
            let bounds: Vec<String> = bounds.into_iter().map(&hour).collect();
            let read = buckets(&conn, 7, 2, &bounds).unwrap();
            let summed: Vec<Totals> = bounds
                .windows(2)
                .map(|span| {
                    summed(&conn, &span[0], &span[1])
                        .into_iter()
                        .find(|(ad, _)| *ad == 2)
                        .map(|(_, totals)| totals)
                        .unwrap_or_default()
                })
                .collect();
            assert_eq!(read, summed, "{bounds:?}");
            assert!(read.iter().filter(|t| t.is_idle()).count() == 1, "{read:?}");
        }
    }

    #[test]
    fn a_bound_is_read_from_the_cabinet_s_latest_hour_before_it_once_that_is_after_every_rolled_day(
    ) {
        let conn = db();
        let hour = hours_from(18);
        for h in 0..72 {
            record(&conn, 1, &hour(h), &gain(1));
            if h % 2 == 0 {
                record(&conn, 2, &hour(h), &gain(3));
            }
        }
        let at = |bound: &str| {
            let rolled = last_rolled_day(&conn, 7).unwrap();
            match Bound::at(&conn, 7, bound, rolled.as_deref()).unwrap() {
                Bound::Rows(hour, rows) => {
                    let rows: Vec<(i64, String)> =
                        rows.map(|(ad, _)| (ad, hour.to_string())).collect();
                    format!("rows {rows:?}")
                }
                Bound::Nothing => "nothing".to_string(),
                Bound::Probe => "probe".to_string(),
            }
        };
        assert_eq!(at(&hour(0)), "nothing");
        assert_eq!(at(&hour(32)), format!("rows [(1, {:?})]", hour(31)));
        assert_eq!(
            at("2026-11-19T06:30:00Z"),
            format!("rows [(1, {:?}), (2, {:?})]", hour(30), hour(30))
        );
        // Hours not synced yet (the current one) are not waited for.
        assert_eq!(at(&hour(200)), format!("rows [(1, {:?})]", hour(71)));
        retention::roll_campaign(&conn, 7, 1, &hour(24)).unwrap();
        assert_eq!(
            at(&hour(24)),
            "probe",
            "its latest hour lies in the rolled-up day"
        );
        assert_eq!(
            at(&hour(25)),
            format!("rows [(1, {:?}), (2, {:?})]", hour(24), hour(24))
        );
        for (from, to) in [(25, 49), (26, 200), (0, 31), (12, 40)] {
            let (from, to) = (hour(from), hour(to));
            assert_eq!(
                per_campaign(&conn, 7, &from, &to).unwrap(),
                spans(&conn, 7, None, (&from, &to)).unwrap(),
                "{from} to {to}: read from the hours' rows as by probing every campaign"
            );
        }
    }

    /// Runs are given only when no row of the cabinet comes after the hour: not when another
    /// campaign of it has a later hour, nor when a rolled-up day is the hour's day or later
    /// (a row of the hour itself does not stop them); the rows written without them get their
    /// runs, and move the later rows', by the view's triggers.
    #[test]
    fn runs_are_given_only_when_no_row_of_the_cabinet_comes_after_the_hour() {
        let conn = db();
        let hour = hours_from(20);
        let given = |conn: &Connection, h: i64| {
            for_hour(conn, 7, &hour(h), &[1])
                .unwrap()
                .add(1, &gain(1))
                .is_some()
        };
        record(&conn, 1, &hour(30), &gain(2));
        assert!(given(&conn, 31), "after every row");
        assert!(!given(&conn, 29), "before ad 1's own row");
        record(&conn, 2, &hour(40), &gain(3));
        assert!(
            given(&conn, 40),
            "the latest hour itself (a report listing an ad twice)"
        );
        assert!(!given(&conn, 35), "before ad 2's row");
        assert!(given(&conn, 41));
        // Ad 1 written at hour 35, between its own row and ad 2's: by the view's triggers.
        record(&conn, 1, &hour(35), &gain(5));
        // A rolled-up day: no runs for an hour of that day or before it.
        for ad in [1, 2] {
            retention::roll_campaign(&conn, 7, ad, &hour(48)).unwrap();
        }
        assert!(!given(&conn, 47), "in the rolled day");
        assert!(given(&conn, 48), "the day after");
        assert!(!given(&conn, 20), "a day before the rolled one");
        record(&conn, 1, &hour(20), &gain(7));
        runs_check_equal(&conn);
        let run = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
        assert_eq!(
            run("SELECT run_views FROM hourly_stats WHERE ad_id = 1 AND hour LIKE '2026-11-20%'"),
            7,
            "the late hour's own run"
        );
        assert_eq!(
            run("SELECT run_views FROM daily_stats WHERE ad_id = 1"),
            2 + 5 + 7,
            "the later day's row gained the late hour"
        );
    }

    #[test]
    fn a_campaign_listed_twice_in_one_hour_is_summed_once_in_its_run() {
        let conn = db();
        let hour = "2026-11-20T05:00:00Z";
        record(&conn, 1, "2026-11-20T04:00:00Z", &gain(2));
        // A report listing the campaign twice: the row written with its run, then upserted.
        let mut runs = for_hour(&conn, 7, hour, &[1]).unwrap();
        stats::Gains::new(&conn)
            .unwrap()
            .record(7, 1, hour, &gain(3), &mut runs)
            .unwrap();
        stats::Gains::new(&conn)
            .unwrap()
            .record(7, 1, hour, &gain(4), &mut runs)
            .unwrap();
        let run: i64 = conn
            .query_row(
                "SELECT run_views FROM hourly_stats WHERE ad_id = 1 AND hour = ?1",
                [hour],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(run, 9);
        runs_check_equal(&conn);
    }

    #[test]
    fn an_hourly_row_written_through_the_view_keeps_its_campaign_and_hour() {
        let conn = db();
        record(&conn, 1, "2026-11-20T05:00:00Z", &gain(3));
        let moved = conn.execute(
            "UPDATE hourly_entries SET hour = '2026-11-20T06:00:00Z' WHERE ad_id = 1",
            [],
        );
        assert!(
            moved.is_err_and(|e| e.to_string().contains("keeps its campaign and hour")),
            "a key's change refused"
        );
        let hours: Vec<String> = conn
            .prepare("SELECT hour FROM hourly_stats WHERE ad_id = 1")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(hours, ["2026-11-20T05:00:00Z"]);
        runs_check_equal(&conn);
    }

    #[test]
    fn the_migration_gives_the_rows_stored_before_it_their_runs() {
        let conn = db();
        let mut undo = String::from(
            "DROP VIEW hourly_entries;
             DROP TRIGGER daily_stats_run_insert; DROP TRIGGER daily_stats_run_update;",
        );
        for table in ["hourly_stats", "daily_stats"] {
            for column in ["views", "opens", "clicks", "actions", "spent_micros"] {
                undo.push_str(&format!("ALTER TABLE {table} DROP COLUMN run_{column};"));
            }
        }
        conn.execute_batch(&undo).unwrap();
        conn.execute_batch(
            "INSERT INTO daily_stats VALUES (7, 1, '2026-11-19', 500, 5, 50, 1, 5000000);
             INSERT INTO daily_stats VALUES (7, 1, '2026-11-18', 100, 0, 1, 0, 900);
             INSERT INTO hourly_stats VALUES (7, 1, '2026-11-20T10:00:00Z', 10, 0, 1, 0, 100);
             INSERT INTO hourly_stats VALUES (7, 1, '2026-11-20T03:00:00Z', 7, 1, 2, 3, 40);
             INSERT INTO hourly_stats VALUES (7, 2, '2026-11-20T03:00:00Z', 9, 0, 9, 9, 90);",
        )
        .unwrap();
        conn.execute_batch(include_str!("../../sql/0048_stat_runs.sql"))
            .unwrap();
        let figures = kept_check::check(&conn).unwrap();
        let runs = figures.iter().find(|f| f.name == "stat_runs").unwrap();
        assert_eq!((runs.rows, runs.differing), (5, 0));
        let hours = "2026-11-20T04:00:00Z".to_string();
        agree(
            &conn,
            &[
                "2026-11-18T00:00:00Z".to_string(),
                hours,
                "2026-11-21T00:00:00Z".to_string(),
            ],
        );
        // And the triggers are back: a new hour after them runs on from the last.
        let gain = Totals {
            views: 1,
            ..Totals::default()
        };
        record(&conn, 1, "2026-11-20T11:00:00Z", &gain);
        let last: i64 = conn
            .query_row(
                "SELECT run_views FROM hourly_stats WHERE ad_id = 1 ORDER BY hour DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(last, 100 + 500 + 7 + 10 + 1);
    }

    #[test]
    fn one_campaign_reads_its_span_and_none_when_it_has_no_row_there() {
        let conn = db();
        record(&conn, 2, "2026-11-20T05:00:00Z", &gain(3));
        record(&conn, 2, "2026-11-20T09:00:00Z", &gain(4));
        record(&conn, 1, "2026-11-20T07:00:00Z", &gain(100));
        let read = |from, to| of_campaign(&conn, 7, 2, from, to).unwrap();
        assert_eq!(
            read("2026-11-20T00:00:00Z", "2026-11-21T00:00:00Z"),
            Some(gain(7))
        );
        assert_eq!(
            read("2026-11-20T06:00:00Z", "2026-11-20T10:00:00Z"),
            Some(gain(4))
        );
        assert_eq!(read("2026-11-20T06:00:00Z", "2026-11-20T09:00:00Z"), None);
        assert_eq!(read("", "2026-11-20T06:00:00Z"), Some(gain(3)));
        assert_eq!(
            of_campaign(&conn, 7, 3, "", "2027-01-01T00:00:00Z").unwrap(),
            None
        );
    }

    /// Schema 59's triggers (73's now) tell a daily row on or after an hour's day by
    /// `day || 'T24:00:00Z' > hour` instead of `day >= substr(hour, 1, 10)`: the same answer
    /// for every day around an hour's, at every hour, minute and second the service writes,
    /// across a month's and a year's end.
    #[test]
    fn the_triggers_day_comparison_agrees_with_the_hour_s_date() {
        let conn = test_db();
        let mut compare = conn
            .prepare(
                "SELECT ?1 || 'T24:00:00Z' > ?2, ?1 >= substr(?2, 1, 10),
                    ?1 || 'T24:00:00Z' < ?2, ?1 < substr(?2, 1, 10)",
            )
            .unwrap();
        let mut compared = 0;
        for start in [(2026, 11, 30), (2026, 12, 31), (2027, 2, 28)] {
            let (y, m, d) = start;
            let noon = Utc.with_ymd_and_hms(y, m, d, 12, 0, 0).unwrap();
            for offset in [-1, 0, 1] {
                let day = (noon + Duration::days(offset)).date_naive().to_string();
                for minutes in (0..24 * 60).step_by(7) {
                    let midnight = noon - Duration::hours(12);
                    for seconds in [0, 59] {
                        let at = midnight + Duration::minutes(minutes) + Duration::seconds(seconds);
                        let hour = crate::clock::iso(at);
                        let (later, by_date, earlier, before_date): (bool, bool, bool, bool) =
                            compare
                                .query_row(rusqlite::params![day, hour], |r| {
                                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                                })
                                .unwrap();
                        assert_eq!(later, by_date, "{day} against {hour}");
                        assert_eq!(earlier, before_date, "{day} against {hour}");
                        assert_eq!(later, offset >= 0, "{day} against {hour}");
                        compared += 1;
                    }
                }
            }
        }
        assert_eq!(compared, 3 * 3 * 206 * 2);
    }
}
