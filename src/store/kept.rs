//! Owns the reads of the figures kept as rows change instead of recomputed per request: each
//! cabinet's campaigns by status (`cabinet_status_counts`, migration 45) and each cabinet's sums
//! per UTC day (`cabinet_days`, migration 46), both kept by SQLite triggers, and the one span
//! read every cabinet total goes through (whole UTC days from the daily rows, the hours a span's
//! bounds cut from a day from `cabinet_hours`; its conversions are read the same way by
//! `converted`). Writes nothing: the triggers keep the rows, and `kept_check` compares them
//! with their recomputation.

use chrono::{DateTime, Duration, Utc};
use rusqlite::{params, Connection};

use super::{parsed, StoreError};
use crate::domain::campaign::Status;
use crate::domain::money::Money;
use crate::domain::stats::Totals;
use crate::domain::time::{hour_start, iso};

/// How many of a cabinet's campaigns are in each status, deleted ones left out, statuses in
/// the order of their names.
pub fn by_status(conn: &Connection, account: i64) -> Result<Vec<(Status, i64)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT status, count FROM cabinet_status_counts
         WHERE account_id = ?1 AND status != 'Deleted' AND count > 0 ORDER BY status",
    )?;
    let rows = stmt.query_map([account], |r| {
        Ok((parsed(r, 0, "campaigns.status", Status::parse)?, r.get(1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How many of a cabinet's campaigns are in `status` (its stored name).
pub fn count_of(conn: &Connection, account: i64, status: &str) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT COALESCE(SUM(count), 0) FROM cabinet_status_counts
             WHERE account_id = ?1 AND status = ?2",
        )?
        .query_row(params![account, status], |r| r.get(0))?)
}

/// A cabinet's sums over the hours starting in `[from, to)` (ISO times): [`days`] of one
/// span.
pub fn span(conn: &Connection, account: i64, from: &str, to: &str) -> Result<Totals, StoreError> {
    let spans = Spans::new(vec![from.to_string(), to.to_string()]);
    Ok(days(conn, account, &spans)?.pop().unwrap_or_default())
}

/// Consecutive spans of time, as [`days`] reads them for any cabinet: `bounds` are the spans'
/// starts followed by the last one's end (ISO times, ascending; local midnights for a
/// person's days), with what to read worked out once.
pub struct Spans {
    pub(super) bounds: Vec<String>,
    /// `None` when the daily rows cannot serve (see [`days`]): the hours are read instead.
    pub(super) plan: Option<Plan>,
}

/// The UTC days whose rows may count (`YYYY-MM-DD`, both included) and the ranges of hours
/// (or conversions) read at the bounds that are not UTC midnights.
pub(super) struct Plan {
    pub(super) first_day: String,
    pub(super) last_day: String,
    pub(super) edges: Vec<Edge>,
}

/// The time between a bound that is not a UTC midnight and its nearest midnight, `[from, to)`,
/// in two parts: its whole UTC hours, `hours`, and the part of the bound's own hour inside it,
/// `rest` (either may be empty, its start not before its end). Hourly rows serve `hours`; the
/// conversions of `rest` are read one by one.
pub(super) struct Edge {
    pub(super) from: String,
    pub(super) to: String,
    pub(super) hours: (String, String),
    pub(super) rest: (String, String),
}

impl Edge {
    /// The edge of the bound `at` (written `bound`), `None` at a UTC midnight.
    fn at(at: DateTime<Utc>, bound: &str) -> Option<Edge> {
        let midnight = at.date_naive().and_hms_opt(0, 0, 0)?.and_utc();
        let hour = hour_start(at);
        if at == midnight {
            None
        } else if at - midnight <= Duration::hours(12) {
            Some(Edge {
                from: iso(midnight),
                to: bound.to_string(),
                hours: (iso(midnight), iso(hour)),
                rest: (iso(hour), bound.to_string()),
            })
        } else {
            let next = iso(midnight + Duration::days(1));
            let up = if hour == at {
                hour
            } else {
                hour + Duration::hours(1)
            };
            Some(Edge {
                from: bound.to_string(),
                to: next.clone(),
                hours: (iso(up), next),
                rest: (bound.to_string(), iso(up)),
            })
        }
    }
}

impl Spans {
    pub fn new(bounds: Vec<String>) -> Spans {
        let times: Option<Vec<DateTime<Utc>>> = bounds.iter().map(|b| parse(b)).collect();
        let plan = times
            .filter(|t| !t.is_empty() && t.windows(2).all(|w| w[1] - w[0] > Duration::hours(12)))
            .map(|times| Plan {
                first_day: (times[0].date_naive() - Duration::days(1)).to_string(),
                last_day: times[times.len() - 1].date_naive().to_string(),
                edges: times
                    .iter()
                    .zip(&bounds)
                    .filter_map(|(&at, bound)| Edge::at(at, bound))
                    .collect(),
            });
        Spans { bounds, plan }
    }

    /// How many spans.
    pub fn len(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The span an ISO time falls in, as the hours' sums compare it (`None` outside them).
    pub(super) fn of(&self, t: &str) -> Option<usize> {
        let (first, last) = (self.bounds.first()?, self.bounds.last()?);
        (t >= first.as_str() && t < last.as_str())
            .then(|| self.bounds[1..self.len()].partition_point(|b| b.as_str() <= t))
    }
}

/// Exact sums, checked: a day's row is added and an hour taken back out of it.
#[derive(Clone, Copy, Default)]
struct Sums {
    views: i64,
    opens: i64,
    clicks: i64,
    actions: i64,
    spent: i64,
}

impl Sums {
    fn read(r: &rusqlite::Row, first: usize) -> rusqlite::Result<Sums> {
        Ok(Sums {
            views: r.get(first)?,
            opens: r.get(first + 1)?,
            clicks: r.get(first + 2)?,
            actions: r.get(first + 3)?,
            spent: r.get(first + 4)?,
        })
    }

    /// `self + sign * other`, `None` on overflow.
    fn moved(self, other: Sums, add: bool) -> Option<Sums> {
        let step = |a: i64, b: i64| {
            if add {
                a.checked_add(b)
            } else {
                a.checked_sub(b)
            }
        };
        Some(Sums {
            views: step(self.views, other.views)?,
            opens: step(self.opens, other.opens)?,
            clicks: step(self.clicks, other.clicks)?,
            actions: step(self.actions, other.actions)?,
            spent: step(self.spent, other.spent)?,
        })
    }

    fn totals(self) -> Totals {
        Totals {
            views: self.views,
            opens: self.opens,
            clicks: self.clicks,
            actions: self.actions,
            spent: Money::from_micros(self.spent),
        }
    }
}

/// A cabinet's sums per span of `spans`, each equal to the sum of its `cabinet_hours` rows
/// starting in the span.
///
/// Each UTC day's row counts in the span holding its noon; then, at each bound that is not a
/// UTC midnight, the hours between it and the nearest midnight (at most 12) are read, and each
/// one whose span differs from its day's is moved from the day's span to its own. An hour
/// counts elsewhere than its day only when a bound lies between it and its day's noon, and
/// that bound's nearest midnight is on the hour's side, so every such hour is moved, once
/// (bounds are more than 12 hours apart: a day is 23 hours or more; closer bounds, or bounds
/// not written as the service writes times, read the hours instead). With UTC midnights for
/// bounds this is a row per day and no hour.
pub fn days(conn: &Connection, account: i64, spans: &Spans) -> Result<Vec<Totals>, StoreError> {
    let Some(plan) = &spans.plan else {
        return by_hours(conn, account, &spans.bounds);
    };
    let overflow = || StoreError::Corrupt("a cabinet's sums overflow".into());
    let mut sums = vec![Sums::default(); spans.len()];
    let mut stmt = conn.prepare_cached(
        "SELECT day, views, opens, clicks, actions, spent_micros FROM cabinet_days
         WHERE account_id = ?1 AND day >= ?2 AND day <= ?3",
    )?;
    let mut rows = stmt.query(params![account, plan.first_day, plan.last_day])?;
    while let Some(r) = rows.next()? {
        let day = r.get_ref(0)?.as_str().map_err(rusqlite::Error::from)?;
        if let Some(i) = spans.of(&format!("{day}T12:00:00Z")) {
            sums[i] = sums[i]
                .moved(Sums::read(r, 1)?, true)
                .ok_or_else(overflow)?;
        }
    }
    if plan.edges.is_empty() {
        return Ok(sums.into_iter().map(Sums::totals).collect());
    }
    let mut edge = conn.prepare_cached(
        "SELECT hour, views, opens, clicks, actions, spent_micros FROM cabinet_hours
         WHERE account_id = ?1 AND hour >= ?2 AND hour < ?3",
    )?;
    for e in &plan.edges {
        let mut rows = edge.query(params![account, e.from, e.to])?;
        while let Some(r) = rows.next()? {
            let hour = r.get_ref(0)?.as_str().map_err(rusqlite::Error::from)?;
            let own = spans.of(hour);
            let day = spans.of(&format!("{}T12:00:00Z", hour.get(..10).unwrap_or(hour)));
            if own == day {
                continue;
            }
            let figures = Sums::read(r, 1)?;
            if let Some(i) = day {
                sums[i] = sums[i].moved(figures, false).ok_or_else(overflow)?;
            }
            if let Some(i) = own {
                sums[i] = sums[i].moved(figures, true).ok_or_else(overflow)?;
            }
        }
    }
    Ok(sums.into_iter().map(Sums::totals).collect())
}

/// An ISO time as the service writes them (whole seconds, `Z`), `None` otherwise.
fn parse(text: &str) -> Option<DateTime<Utc>> {
    let at = DateTime::parse_from_rfc3339(text).ok()?.with_timezone(&Utc);
    (iso(at) == text).then_some(at)
}

/// Sums per span (`bounds` as [`Spans`] takes them) from the hours alone: for bounds
/// [`days`] cannot serve from the daily rows, and the recomputation tests compare with.
pub fn by_hours(
    conn: &Connection,
    account: i64,
    bounds: &[String],
) -> Result<Vec<Totals>, StoreError> {
    let n = bounds.len().saturating_sub(1);
    let mut out = vec![Totals::default(); n];
    let (Some(first), Some(last)) = (bounds.first(), bounds.last()) else {
        return Ok(out);
    };
    let mut stmt = conn.prepare_cached(
        "SELECT hour, views, opens, clicks, actions, spent_micros FROM cabinet_hours
         WHERE account_id = ?1 AND hour >= ?2 AND hour < ?3 ORDER BY hour",
    )?;
    let mut rows = stmt.query(params![account, first, last])?;
    let mut day = 0;
    while let Some(r) = rows.next()? {
        let hour = r.get_ref(0)?.as_str().map_err(rusqlite::Error::from)?;
        while day + 1 < n && hour >= bounds[day + 1].as_str() {
            day += 1;
        }
        out[day].add(&Sums::read(r, 1)?.totals());
    }
    Ok(out)
}
