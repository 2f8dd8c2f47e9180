//! Owns the reads of the figures kept as rows change instead of recomputed per request: each
//! cabinet's campaigns by status (`cabinet_status_counts`, migration 45) and each cabinet's sums
//! per UTC day and week (`cabinet_days`, `cabinet_weeks`, migrations 46 and 56, the weeks with
//! their days' spend since 65) and through each UTC day (`cabinet_runs`, 66), all kept by
//! SQLite triggers, and the one span read every cabinet total goes through (spans of whole UTC
//! days as their running sums' differences, or whole UTC weeks from the weekly rows and the
//! other days from the daily rows where those are fewer, the hours a span's bounds cut from a
//! day from `cabinet_hours`; its conversions are read by weeks and days by `converted`), with
//! the spend per span read from the weeks' days instead (`spent_of`, the home page's chart), or
//! from the local weeks' days of a zone's shift (`cabinet_zone_weeks`, 67) where its bounds are
//! that shift's midnights.
//! Writes nothing: the triggers keep the rows, and `kept_check` compares them with their
//! recomputation.

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc, Weekday};
use rusqlite::{params, Connection};

use super::{parsed, zone_days, StoreError};
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

/// What to read for the UTC days that count (each in the span holding its noon): the UTC
/// weeks (their Mondays, ascending) whose seven days all count in one span, with that span,
/// read from the weekly rows (schema 56); the other days that count, in ranges of consecutive
/// days (`YYYY-MM-DD`, both included, ascending), read from the daily rows; and the ranges of
/// hours (or conversions) read at the bounds that are not UTC midnights.
pub(super) struct Plan {
    pub(super) weeks: Vec<(String, usize)>,
    pub(super) days: Vec<(String, String)>,
    pub(super) edges: Vec<Edge>,
    /// The span of each UTC day from `first` on, as worked out once: a daily row finds its
    /// span by its date, not by comparing its noon's text with every bound.
    first: NaiveDate,
    spans: Vec<Option<usize>>,
    /// Whether the stats of these spans are better read from their hours: a day or less
    /// between the first bound and the last, not at UTC midnights, is its hourly rows (24, as
    /// the sync writes them) in one range, where the days' plan reads a day's row and the
    /// hours at each edge in three.
    pub(super) hourly: bool,
}

impl Plan {
    /// The plan of `bounds` (as [`Spans`] takes them, parsed as `times`): the days from the
    /// one before the first bound to the one of the last, each in the span of its noon.
    fn new(times: &[DateTime<Utc>], bounds: &[String]) -> Plan {
        let (Some(first), Some(last)) = (times.first(), times.last()) else {
            return Plan {
                weeks: Vec::new(),
                days: Vec::new(),
                edges: Vec::new(),
                first: NaiveDate::MIN,
                spans: Vec::new(),
                hourly: false,
            };
        };
        let edges: Vec<Edge> = times
            .iter()
            .zip(bounds)
            .filter_map(|(&at, bound)| Edge::at(at, bound))
            .collect();
        let hourly = !edges.is_empty() && *last - *first <= Duration::days(1);
        let first = first.date_naive() - Duration::days(1);
        let spans: Vec<Option<usize>> = first
            .iter_days()
            .take_while(|d| d <= &last.date_naive())
            .map(|d| {
                let noon = d.and_hms_opt(12, 0, 0).map(|n| n.and_utc());
                // The bounds are ascending: those up to the noon, less one, is its span.
                let up_to = noon.map_or(0, |n| times.partition_point(|t| *t <= n));
                up_to.checked_sub(1).filter(|&i| i + 1 < times.len())
            })
            .collect();
        let mut weeks = Vec::new();
        let mut days: Vec<(String, String)> = Vec::new();
        let mut at = 0;
        while at < spans.len() {
            let day = first + Duration::days(at as i64);
            // A Monday whose week's days all count in its span.
            let whole = spans.get(at..at + 7).and_then(|week| {
                let span = week[0]?;
                (day.weekday() == Weekday::Mon && week.iter().all(|s| *s == Some(span)))
                    .then_some(span)
            });
            if let Some(span) = whole {
                weeks.push((day.to_string(), span));
                at += 7;
                continue;
            }
            if spans[at].is_some() {
                let text = day.to_string();
                match days.last_mut() {
                    Some((_, end)) if *end == (day - Duration::days(1)).to_string() => *end = text,
                    _ => days.push((text.clone(), text)),
                }
            }
            at += 1;
        }
        Plan {
            weeks,
            days,
            edges,
            first,
            spans,
            hourly,
        }
    }

    /// The span of the UTC day `day` (`YYYY-MM-DD`): the one holding its noon, as
    /// [`Spans::of`] finds it; `None` for a day outside the plan's.
    fn of_day(&self, day: &str) -> Option<usize> {
        self.of_date(date(day)?)
    }

    /// [`Plan::of_day`] of a date.
    fn of_date(&self, day: NaiveDate) -> Option<usize> {
        let at = usize::try_from((day - self.first).num_days()).ok()?;
        *self.spans.get(at)?
    }

    /// The UTC day at `i` in `spans`.
    fn day_at(&self, i: usize) -> Option<NaiveDate> {
        Some(self.first + Duration::days(i64::try_from(i).ok()?))
    }

    /// The first and last UTC day that count in a span, `None` when none does.
    fn counted(&self) -> Option<(NaiveDate, NaiveDate)> {
        let first = self.spans.iter().position(Option::is_some)?;
        let last = self.spans.iter().rposition(Option::is_some)?;
        Some((self.day_at(first)?, self.day_at(last)?))
    }

    /// The UTC days whose running sums (schema 66) give the spans' sums of whole days: the day
    /// before the first that counts, then the last of each of `spans` spans. `None` when a span
    /// has no day, or when the weekly and daily rows are no more than those runs, a row per
    /// cabinet each (the spans of a day or so, a chart's).
    fn run_days(&self, spans: usize) -> Option<Vec<NaiveDate>> {
        let counted = self.spans.iter().filter(|s| s.is_some()).count();
        let rows = counted.saturating_sub(6 * self.weeks.len());
        if rows <= spans + 1 {
            return None;
        }
        let (first, _) = self.counted()?;
        let mut days = vec![first - Duration::days(1)];
        for i in 0..spans {
            days.push(self.day_at(self.spans.iter().rposition(|s| *s == Some(i))?)?);
        }
        Some(days)
    }

    /// The sums of each span's UTC days that count of `cabinets` (per cabinet's place, per
    /// span): their running sums' differences where [`Plan::run_days`] gives days, else their
    /// weekly and daily rows summed ([`Plan::read`]).
    fn sums(
        &self,
        conn: &Connection,
        cabinets: &Cabinets,
        spans: usize,
    ) -> Result<Vec<Vec<Sums>>, StoreError> {
        match self.run_days(spans) {
            Some(days) => runs_between(conn, cabinets, &days),
            None => self.sums_of_rows(conn, cabinets, spans),
        }
    }

    /// [`Plan::sums`] from the weekly and daily rows.
    fn sums_of_rows(
        &self,
        conn: &Connection,
        cabinets: &Cabinets,
        spans: usize,
    ) -> Result<Vec<Vec<Sums>>, StoreError> {
        let mut sums = vec![vec![Sums::default(); spans]; cabinets.len()];
        self.read(conn, cabinets, (&WEEKS, &DAYS), |i, place, r| {
            let sum = &mut sums[place][i];
            *sum = sum.moved(Sums::read(r, 2)?, true).ok_or_else(overflow)?;
            Ok(())
        })?;
        Ok(sums)
    }

    /// Moves the hours at each bound that is not a UTC midnight (`edges`) of `cabinets` from
    /// the span of their day, where the daily or weekly rows counted them, to their own, in
    /// `sums` (per cabinet's place, per span). The hours of an edge lie between its bound and
    /// the bound's nearest midnight, less than 12 hours, where no other bound is: all on one UTC
    /// day and in one span, as is the edge's start. So where an edge's hours move is worked out
    /// once, and an edge whose hours stay where their day counts them (before the first bound,
    /// from the last on) is not read.
    fn move_edges(
        &self,
        conn: &Connection,
        cabinets: &Cabinets,
        spans: &Spans,
        sums: &mut [Vec<Sums>],
    ) -> Result<(), StoreError> {
        for e in &self.edges {
            let Some((day, own)) = self.moves(spans, &e.from) else {
                continue;
            };
            cabinets.read(conn, &HOURS, (&e.from, &e.to), |place, r| {
                let (figures, cabinet) = (Sums::read(r, 2)?, &mut sums[place]);
                if let Some(i) = day {
                    cabinet[i] = cabinet[i].moved(figures, false).ok_or_else(overflow)?;
                }
                if let Some(i) = own {
                    cabinet[i] = cabinet[i].moved(figures, true).ok_or_else(overflow)?;
                }
                Ok(())
            })?;
        }
        Ok(())
    }

    /// Where a bound's hour (or conversion) at `at` (an ISO time) moves: from the span of its
    /// UTC day to its own, as `(day's, own)`; `None` when they are the same.
    pub(super) fn moves(&self, spans: &Spans, at: &str) -> Option<(Option<usize>, Option<usize>)> {
        let own = spans.of(at);
        let day = self.of_day(at.get(..10).unwrap_or(at));
        (own != day).then_some((day, own))
    }

    /// Reads the weekly rows (`weeks`) of the whole weeks and the daily rows (`days`) of the
    /// other days that count, of `cabinets`, and gives each row to `add` with its span and its
    /// cabinet's place.
    pub(super) fn read(
        &self,
        conn: &Connection,
        cabinets: &Cabinets,
        (weeks, days): (&Rows, &Rows),
        mut add: impl FnMut(usize, usize, &rusqlite::Row) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut each = |rows: &Rows, range: (&str, &str), span: &dyn Fn(&str) -> Option<usize>| {
            let mut known = Known::new();
            cabinets.read(conn, rows, range, |place, r| match known.of(r, span)? {
                Some(i) => add(i, place, r),
                None => Ok(()),
            })
        };
        if let (Some(first), Some(last)) = (self.weeks.first(), self.weeks.last()) {
            let span = |monday: &str| {
                let at = self
                    .weeks
                    .binary_search_by(|(week, _)| week.as_str().cmp(monday))
                    .ok()?;
                Some(self.weeks[at].1)
            };
            each(weeks, (&first.0, &last.0), &span)?;
        }
        for (first, last) in &self.days {
            each(days, (first, last), &|day| self.of_day(day))?;
        }
        Ok(())
    }
}

/// The last key a read met (its column 0) and what was worked out of it, worked out again only
/// for another key: rows read across the cabinets through an index by key come in runs of the
/// same key (each cabinet's rows of it), so each key is worked out about once. Rows in any
/// other order give the same figures, worked out more often.
pub(super) struct Known<T> {
    key: Vec<u8>,
    value: Option<T>,
}

impl<T: Copy> Known<T> {
    pub(super) fn new() -> Known<T> {
        Known {
            key: Vec::new(),
            value: None,
        }
    }

    /// What `work` makes of the key of `r`, worked out again only for another key.
    pub(super) fn of(
        &mut self,
        r: &rusqlite::Row,
        work: impl FnOnce(&str) -> T,
    ) -> Result<T, StoreError> {
        let key = r.get_ref(0)?;
        let bytes = key.as_bytes().map_err(rusqlite::Error::from)?;
        if let Some(value) = self.value.filter(|_| bytes == self.key.as_slice()) {
            return Ok(value);
        }
        let value = work(key.as_str().map_err(rusqlite::Error::from)?);
        self.key.clear();
        self.key.extend_from_slice(bytes);
        self.value = Some(value);
        Ok(value)
    }
}

/// A kept table's reads of a range of its keys (the daily and weekly rows' both included, the
/// hourly rows' end left out), each reading the key, the cabinet, then the figures: `one` of
/// one cabinet by the table's own key (`?1` the cabinet, `?2` and `?3` the range), `every` of
/// every cabinet through the table's index by key (schemas 63 and 64; `?1` and `?2` the range).
/// Written by [`kept_rows`], so that both read the same columns.
pub(super) struct Rows {
    pub(super) one: &'static str,
    pub(super) every: &'static str,
}

/// The [`Rows`] of the kept table `table` keyed by `key` (its index by key is
/// `{table}_by_{key}`), reading the columns `figures` after the key and the cabinet, over a
/// range whose end is compared with `end` (`<=` or `<`).
macro_rules! kept_rows {
    (@select $table:literal, $key:literal, $figures:literal) => {
        concat!("SELECT ", $key, ", account_id, ", $figures, " FROM ", $table)
    };
    ($table:literal, $key:literal, $figures:literal, $end:literal) => {
        Rows {
            one: concat!(
                kept_rows!(@select $table, $key, $figures),
                " WHERE account_id = ?1 AND ", $key, " >= ?2 AND ", $key, " ", $end, " ?3"
            ),
            every: concat!(
                kept_rows!(@select $table, $key, $figures),
                " INDEXED BY ", $table, "_by_", $key,
                " WHERE ", $key, " >= ?1 AND ", $key, " ", $end, " ?2"
            ),
        }
    };
}
pub(super) use kept_rows;

/// The cabinets a read covers, each with its place in the caller's order, and whether each
/// range of kept rows is read across every cabinet at once, the other cabinets' rows skipped:
/// when there are two or more, at least half of all cabinets, each named once. A page over
/// many cabinets then reads a range with one statement and one seek, where a statement and a
/// seek per cabinet into a year-deep table cost more than the rows it skips. Otherwise each
/// cabinet is read by its own key (an id named twice gets its figures at both places).
pub struct Cabinets {
    ids: Vec<(i64, usize)>,
    pub(super) together: bool,
    /// Whether they are every cabinet there is, each named once: a read across cabinets then
    /// skips no row.
    pub(super) every: bool,
}

impl Cabinets {
    /// The cabinets `accounts`, in that order.
    pub fn new(conn: &Connection, accounts: &[i64]) -> Result<Cabinets, StoreError> {
        let mut ids: Vec<(i64, usize)> = accounts.iter().copied().zip(0..).collect();
        ids.sort_unstable();
        let distinct = ids.windows(2).all(|w| w[0].0 != w[1].0);
        let (mut together, mut every) = (false, false);
        if accounts.len() > 1 && distinct {
            let all: i64 = conn
                .prepare_cached("SELECT COUNT(*) FROM cabinets")?
                .query_row([], |r| r.get(0))?;
            let named = i64::try_from(accounts.len()).unwrap_or(i64::MAX);
            together = named.saturating_mul(2) >= all;
            every = named == all;
        }
        Ok(Cabinets {
            ids,
            together,
            every,
        })
    }

    /// How many cabinets.
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// Each cabinet and its place, by id.
    pub(super) fn each(&self) -> impl Iterator<Item = (i64, usize)> + '_ {
        self.ids.iter().copied()
    }

    /// Reads `rows` of the range `(first, last)` of these cabinets and gives each row to
    /// `give` with its cabinet's place: across every cabinet at once when `together`, the other
    /// cabinets' rows skipped, else cabinet by cabinet.
    pub(super) fn read(
        &self,
        conn: &Connection,
        rows: &Rows,
        range: (&str, &str),
        give: impl FnMut(usize, &rusqlite::Row) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.read_of(conn, rows, range, None, give)
    }

    /// [`Cabinets::read`], with `shift` bound after the range when given (the parameter that
    /// follows it in `rows`' statements).
    fn read_of(
        &self,
        conn: &Connection,
        rows: &Rows,
        (first, last): (&str, &str),
        shift: Option<i64>,
        mut give: impl FnMut(usize, &rusqlite::Row) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let shift = shift.as_ref().map(|s| s as &dyn rusqlite::ToSql);
        if self.together {
            let mut stmt = conn.prepare_cached(rows.every)?;
            let args: Vec<&dyn rusqlite::ToSql> = [&first as &dyn rusqlite::ToSql, &last]
                .into_iter()
                .chain(shift)
                .collect();
            let mut found = stmt.query(&*args)?;
            while let Some(r) = found.next()? {
                if let Some(place) = self.place(r.get(1)?) {
                    give(place, r)?;
                }
            }
        } else {
            let mut stmt = conn.prepare_cached(rows.one)?;
            for (account, place) in self.each() {
                let args: Vec<&dyn rusqlite::ToSql> =
                    [&account as &dyn rusqlite::ToSql, &first, &last]
                        .into_iter()
                        .chain(shift)
                        .collect();
                let mut found = stmt.query(&*args)?;
                while let Some(r) = found.next()? {
                    give(place, r)?;
                }
            }
        }
        Ok(())
    }

    /// The place of the cabinet `account`, `None` for one not covered.
    pub(super) fn place(&self, account: i64) -> Option<usize> {
        let at = self
            .ids
            .binary_search_by_key(&account, |(id, _)| *id)
            .ok()?;
        Some(self.ids[at].1)
    }
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
            .map(|times| Plan::new(&times, &bounds));
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
/// Each UTC day counts in the span holding its noon: a span's days are the run through its
/// last day less the run through the day before its first (schema 66), or, where the spans are
/// short enough that their rows are fewer, each day's row, seven of them from their week's row
/// where the whole week counts in one span ([`Plan::sums`]); then, at each bound that is not a
/// UTC midnight, the hours between it and the nearest midnight (at most 12) are read, and each
/// one whose span differs from its day's is moved from the day's span to its own. An hour
/// counts elsewhere than its day only when a bound lies between it and its day's noon, and
/// that bound's nearest midnight is on the hour's side, so every such hour is moved, once
/// (bounds are more than 12 hours apart: a day is 23 hours or more; closer bounds, or bounds
/// not written as the service writes times, read the hours instead, as does a day or less
/// whose bounds are not UTC midnights: its hourly rows in one range). With UTC midnights for
/// bounds this is a run per bound, or a row per day or per week, and no hour.
pub fn days(conn: &Connection, account: i64, spans: &Spans) -> Result<Vec<Totals>, StoreError> {
    let cabinets = Cabinets::new(conn, &[account])?;
    Ok(days_of(conn, &cabinets, spans)?.pop().unwrap_or_default())
}

/// The weekly, daily and hourly rows' reads, of one cabinet and of every one.
const WEEKS: Rows = kept_rows!(
    "cabinet_weeks",
    "week",
    "views, opens, clicks, actions, spent_micros",
    "<="
);
const DAYS: Rows = kept_rows!(
    "cabinet_days",
    "day",
    "views, opens, clicks, actions, spent_micros",
    "<="
);
const HOURS: Rows = kept_rows!(
    "cabinet_hours",
    "hour",
    "views, opens, clicks, actions, spent_micros",
    "<"
);

/// [`days`] of each of `cabinets`, in their order.
pub fn days_of(
    conn: &Connection,
    cabinets: &Cabinets,
    spans: &Spans,
) -> Result<Vec<Vec<Totals>>, StoreError> {
    let Some(plan) = spans.plan.as_ref().filter(|p| !p.hourly) else {
        return hours_of(conn, cabinets, &spans.bounds);
    };
    let mut sums = plan.sums(conn, cabinets, spans.len())?;
    plan.move_edges(conn, cabinets, spans, &mut sums)?;
    Ok(sums
        .into_iter()
        .map(|sums| sums.into_iter().map(Sums::totals).collect())
        .collect())
}

/// The running sums' reads (schema 66): every cabinet's of one day (`every`, the day as both
/// ends of the range), and one cabinet's latest on or before a day.
const RUNS: Rows = kept_rows!(
    "cabinet_runs",
    "day",
    "views, opens, clicks, actions, spent_micros",
    "<="
);
const RUN_BY: &str = "SELECT views, opens, clicks, actions, spent_micros FROM cabinet_runs
    WHERE account_id = ?1 AND day <= ?2 ORDER BY day DESC LIMIT 1";

/// Each of `cabinets`' sums over the UTC days after each of `days` (ascending) through the
/// next: its running sum through the next less the one through the day (schema 66), per
/// cabinet's place. A cabinet's run through a day is its latest on or before it, none before
/// its first. Read together, a day's runs come in one range across the cabinets, then the
/// day before's for the cabinets without a row that day (the current UTC day before its first
/// hour is synced has none), and only those without either (idle cabinets), when any cabinet
/// has a run before the day, are looked up one by one.
fn runs_between(
    conn: &Connection,
    cabinets: &Cabinets,
    days: &[NaiveDate],
) -> Result<Vec<Vec<Sums>>, StoreError> {
    let mut runs = vec![vec![Sums::default(); days.len()]; cabinets.len()];
    let mut latest = conn.prepare_cached(RUN_BY)?;
    for (j, date) in days.iter().enumerate() {
        let mut found = vec![false; cabinets.len()];
        let day = date.to_string();
        if cabinets.together {
            let day_before = (*date - Duration::days(1)).to_string();
            for on in [&day, &day_before] {
                cabinets.read(conn, &RUNS, (on, on), |place, r| {
                    if !found[place] {
                        runs[place][j] = Sums::read(r, 2)?;
                        found[place] = true;
                    }
                    Ok(())
                })?;
                if found.iter().all(|f| *f) {
                    break;
                }
            }
            if found.iter().all(|f| *f) {
                continue;
            }
            let earlier: bool = conn
                .prepare_cached(
                    "SELECT EXISTS (SELECT 1 FROM cabinet_runs INDEXED BY cabinet_runs_by_day
                        WHERE day < ?1)",
                )?
                .query_row([&day], |r| r.get(0))?;
            if !earlier {
                continue;
            }
        }
        for (account, place) in cabinets.each() {
            if found[place] {
                continue;
            }
            let mut rows = latest.query(params![account, day])?;
            if let Some(r) = rows.next()? {
                runs[place][j] = Sums::read(r, 0)?;
            }
        }
    }
    runs.into_iter()
        .map(|runs| {
            runs.windows(2)
                .map(|w| w[1].moved(w[0], false).ok_or_else(overflow))
                .collect()
        })
        .collect()
}

/// The weekly rows' spend per day of their week (schema 65), of one cabinet and of every one.
const WEEK_DAYS: Rows = kept_rows!(
    "cabinet_weeks",
    "week",
    "spent_mon, spent_tue, spent_wed, spent_thu, spent_fri, spent_sat, spent_sun",
    "<="
);

/// Each of `cabinets`' spend per span of `spans`, in their order (the home page's chart of
/// spend per day): the spend of [`days_of`], each UTC day's read from its week's row (schema
/// 65), a row per cabinet and week where [`days_of`] reads one per cabinet and day for spans of
/// a day; then the hours at bounds that are not UTC midnights, as there. Where every bound is a
/// local midnight of one kept zone shift, from its local weeks' rows instead (schema 67), each
/// local day's spend the same way, and no hour.
pub fn spent_of(
    conn: &Connection,
    cabinets: &Cabinets,
    spans: &Spans,
) -> Result<Vec<Vec<Money>>, StoreError> {
    let spent = |totals: Vec<Vec<Totals>>| {
        totals
            .into_iter()
            .map(|t| t.into_iter().map(|t| t.spent).collect())
            .collect()
    };
    let Some(plan) = spans.plan.as_ref().filter(|p| !p.hourly) else {
        return Ok(spent(days_of(conn, cabinets, spans)?));
    };
    // The weekly rows to read, the shift bound after their range, the days that count and the
    // span of each: a zone's kept local days where they serve, else the UTC days.
    let zone = zone_days_of(conn, spans)?;
    let (rows, shift, counted) = match &zone {
        Some((shift, days)) => (
            &ZONE_WEEK_DAYS,
            Some(*shift),
            Some((days[0], days[days.len() - 1] - Duration::days(1))),
        ),
        None => (&WEEK_DAYS, None, plan.counted()),
    };
    let span_of = |day: NaiveDate| match &zone {
        Some((_, days)) => (day < days[days.len() - 1])
            .then(|| days.partition_point(|d| *d <= day).checked_sub(1))
            .flatten(),
        None => plan.of_date(day),
    };
    let mut sums = vec![vec![Sums::default(); spans.len()]; cabinets.len()];
    if let Some((first, last)) = counted {
        let monday = |d: NaiveDate| d.week(Weekday::Mon).first_day().to_string();
        // The span of each day of a week's row, by its Monday.
        let mut known: Known<[Option<usize>; 7]> = Known::new();
        let range = (monday(first), monday(last));
        cabinets.read_of(conn, rows, (&range.0, &range.1), shift, |place, r| {
            let week = known.of(r, |monday| {
                let first = date(monday);
                std::array::from_fn(|d| first.and_then(|f| span_of(f + Duration::days(d as i64))))
            })?;
            let cabinet = &mut sums[place];
            for (d, span) in week.into_iter().enumerate() {
                if let Some(i) = span {
                    let day = Sums {
                        spent: r.get(2 + d)?,
                        ..Sums::default()
                    };
                    cabinet[i] = cabinet[i].moved(day, true).ok_or_else(overflow)?;
                }
            }
            Ok(())
        })?;
    }
    if zone.is_none() {
        plan.move_edges(conn, cabinets, spans, &mut sums)?;
    }
    Ok(sums
        .into_iter()
        .map(|sums| {
            sums.into_iter()
                .map(|s| Money::from_micros(s.spent))
                .collect()
        })
        .collect())
}

/// The kept local weeks' spend per day (schema 67) of one cabinet and of every one, as
/// [`WEEK_DAYS`] reads the UTC weeks', with the shift bound after the range
/// ([`Cabinets::read_of`]).
const ZONE_WEEK_DAYS: Rows = Rows {
    one: "SELECT week, account_id, spent_mon, spent_tue, spent_wed, spent_thu, spent_fri,
            spent_sat, spent_sun
        FROM cabinet_zone_weeks WHERE account_id = ?1 AND week >= ?2 AND week <= ?3
            AND shift = ?4",
    every: "SELECT week, account_id, spent_mon, spent_tue, spent_wed, spent_thu, spent_fri,
            spent_sat, spent_sun
        FROM cabinet_zone_weeks INDEXED BY cabinet_zone_weeks_by_week
        WHERE week >= ?1 AND week <= ?2 AND shift = ?3",
};

/// When every bound of `spans` is a local midnight of one shift whose days are kept (schema
/// 67), that shift and the UTC date each bound starts a kept day on; `None` otherwise (UTC
/// midnights among them, or a zone's bounds on both sides of a clock change).
fn zone_days_of(
    conn: &Connection,
    spans: &Spans,
) -> Result<Option<(i64, Vec<NaiveDate>)>, StoreError> {
    let mut shift = None;
    let mut days = Vec::with_capacity(spans.bounds.len());
    for bound in &spans.bounds {
        let Some((at, this)) = parse(bound).and_then(|at| Some((at, zone_days::shift_of(at)?)))
        else {
            return Ok(None);
        };
        if shift.is_some_and(|s| s != this) {
            return Ok(None);
        }
        shift = Some(this);
        days.push(at.date_naive());
    }
    match shift {
        Some(shift) if days.len() > 1 && zone_days::kept(conn, shift)? => Ok(Some((shift, days))),
        _ => Ok(None),
    }
}

/// A cabinet's sums (or spend) past what an `i64` holds: rows no write could have made.
fn overflow() -> StoreError {
    StoreError::Corrupt("a cabinet's sums overflow".into())
}

/// A date written `YYYY-MM-DD`, as the daily rows key them, read digit by digit (a row's key
/// is read for each daily row of a span).
fn date(text: &str) -> Option<NaiveDate> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let number = |digits: &[u8]| {
        digits.iter().try_fold(0_u32, |n, d| {
            d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
        })
    };
    let year = i32::try_from(number(&b[..4])?).ok()?;
    NaiveDate::from_ymd_opt(year, number(&b[5..7])?, number(&b[8..])?)
}

/// An ISO time as the service writes them (whole seconds, `Z`), `None` otherwise.
pub(super) fn parse(text: &str) -> Option<DateTime<Utc>> {
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

/// [`by_hours`] of each of `cabinets`, in their order: the hourly rows of the whole range read
/// across every cabinet at once when they are read together.
fn hours_of(
    conn: &Connection,
    cabinets: &Cabinets,
    bounds: &[String],
) -> Result<Vec<Vec<Totals>>, StoreError> {
    let mut out = vec![Vec::new(); cabinets.len()];
    if !cabinets.together {
        for (account, place) in cabinets.each() {
            out[place] = by_hours(conn, account, bounds)?;
        }
        return Ok(out);
    }
    let n = bounds.len().saturating_sub(1);
    out.iter_mut().for_each(|o| *o = vec![Totals::default(); n]);
    let (Some(first), Some(last)) = (bounds.first(), bounds.last()) else {
        return Ok(out);
    };
    // A span's later bounds, each the start of the next span.
    let starts = &bounds[1..n.max(1)];
    cabinets.read(conn, &HOURS, (first, last), |place, r| {
        let hour = r.get_ref(0)?.as_str().map_err(rusqlite::Error::from)?;
        let span = starts.partition_point(|b| b.as_str() <= hour);
        out[place][span].add(&Sums::read(r, 2)?.totals());
        Ok(())
    })?;
    Ok(out)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::store::{kept_check, test_db};
    use chrono::TimeZone;

    /// A cabinet's hours for three weeks from a Friday, each with its own figures; then one
    /// rewritten in place, one moved into the next week and a whole day removed.
    fn three_weeks_of_hours(conn: &Connection) -> DateTime<Utc> {
        let start = Utc.with_ymd_and_hms(2026, 11, 20, 0, 0, 0).unwrap();
        let mut insert = conn
            .prepare(
                "INSERT INTO cabinet_hours (account_id, hour, views, opens, clicks, actions,
                    spent_micros) VALUES (7, ?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .unwrap();
        for h in 0..21 * 24 {
            let n = (h * 37) % 101;
            insert
                .execute(params![
                    iso(start + Duration::hours(h)),
                    n * 10,
                    n,
                    n / 3,
                    n % 4,
                    n * 12_345
                ])
                .unwrap();
        }
        conn.execute_batch(
            "UPDATE cabinet_hours SET views = views + 5, spent_micros = spent_micros + 7
                WHERE hour = '2026-11-25T10:00:00Z';
             UPDATE cabinet_hours SET hour = '2026-11-30T03:00:30Z'
                WHERE hour = '2026-11-22T03:00:00Z';
             DELETE FROM cabinet_hours WHERE hour LIKE '2026-12-02T%';",
        )
        .unwrap();
        start
    }

    #[test]
    fn a_day_or_less_cut_off_midnights_reads_its_hours_and_equals_them() {
        let conn = test_db();
        let start = three_weeks_of_hours(&conn);
        let at = |hours: i64| iso(start + Duration::hours(hours));
        for (bounds, hourly) in [
            (vec![at(29), at(53)], true),
            (vec![at(30), at(53)], true),
            (vec![at(29), at(54)], false),
            (vec![at(24), at(48)], false),
        ] {
            let spans = Spans::new(bounds.clone());
            assert_eq!(spans.plan.as_ref().unwrap().hourly, hourly, "{bounds:?}");
            let read = days(&conn, 7, &spans).unwrap();
            assert!(read[0].views > 0, "{bounds:?}");
            assert_eq!(read, by_hours(&conn, 7, &bounds).unwrap(), "{bounds:?}");
        }
    }

    /// Cabinets 8 to 12 beside the test database's 7, their names `c8` to `c12`.
    pub(in crate::store) fn more_cabinets(conn: &Connection) {
        for id in 8..=12 {
            conn.execute(
                "INSERT INTO cabinets (id, owner_id, name, cabinet_type, balance_updated_at,
                    min_budget, created_at) VALUES (?1, 1, 'c' || ?1, 'euro', 't', 1, 't')",
                [id],
            )
            .unwrap();
        }
    }

    /// [`three_weeks_of_hours`] of cabinet 7 and [`more_cabinets`], cabinet 8 with other
    /// figures every hour.
    fn three_weeks_of_two_cabinets(conn: &Connection) -> DateTime<Utc> {
        let start = three_weeks_of_hours(conn);
        more_cabinets(conn);
        conn.execute_batch(
            "INSERT INTO cabinet_hours (account_id, hour, views, opens, clicks, actions,
                spent_micros)
             SELECT 8, hour, views * 2 + 1, opens, clicks + 1, actions, spent_micros * 3 + 1
             FROM cabinet_hours WHERE account_id = 7;",
        )
        .unwrap();
        start
    }

    /// Cabinet 9's hours: cabinet 7's of the hours `which` (a condition on `hour`), with other
    /// figures.
    fn cabinet_nine(conn: &Connection, which: &str) {
        conn.execute_batch(&format!(
            "INSERT INTO cabinet_hours (account_id, hour, views, opens, clicks, actions,
                spent_micros)
             SELECT 9, hour, views + 3, opens + 1, clicks, actions + 2, spent_micros + 5
             FROM cabinet_hours WHERE account_id = 7 AND {which};"
        ))
        .unwrap();
    }

    #[test]
    fn cabinets_read_together_equal_each_read_alone_in_every_zone() {
        let conn = test_db();
        let start = three_weeks_of_two_cabinets(&conn);
        // Cabinet 9 has the first eleven days' figures only.
        cabinet_nine(&conn, "hour < '2026-12-01'");
        for offset in [-720, -210, 0, 345, 840] {
            let at = |d: i64| iso(start + Duration::days(d) - Duration::minutes(offset));
            // A period holding a whole week as one span, then each of the next seven days.
            let bounds: Vec<String> = std::iter::once(at(1)).chain((11..=18).map(at)).collect();
            let spans = Spans::new(bounds.clone());
            assert!(!spans.plan.as_ref().unwrap().weeks.is_empty(), "{bounds:?}");
            // Three of the six cabinets are read together, with 8's rows (9 has none at the
            // end) and without them (skipped), and two of six alone.
            for (accounts, together) in [
                (&[9, 7, 8][..], true),
                (&[9, 7, 10], true),
                (&[7, 9], false),
            ] {
                let cabinets = Cabinets::new(&conn, accounts).unwrap();
                assert_eq!(cabinets.together, together);
                let read = days_of(&conn, &cabinets, &spans).unwrap();
                let alone = each_by_hours(&conn, accounts, &bounds);
                assert_eq!(read, alone, "{bounds:?} {accounts:?}");
                assert_eq!(by_rows(&conn, &cabinets, &spans), alone, "{bounds:?}");
                // The first two cabinets of each list have rows there.
                assert!(read[..2].iter().all(|r| r[0].views > 0), "{bounds:?}");
            }
        }
        conn.execute("DELETE FROM cabinets WHERE id > 9", [])
            .unwrap();
        let cabinets = Cabinets::new(&conn, &[9, 7]).unwrap();
        assert!(cabinets.together);
        let spans = Spans::new(vec![iso(start), iso(start + Duration::days(15))]);
        assert_eq!(
            days_of(&conn, &cabinets, &spans).unwrap(),
            [9, 7].map(|a| by_hours(&conn, a, &spans.bounds).unwrap())
        );
        // An id named twice is read alone, its figures at both places.
        let cabinets = Cabinets::new(&conn, &[7, 9, 7]).unwrap();
        assert!(!cabinets.together);
        assert_eq!(
            days_of(&conn, &cabinets, &spans).unwrap(),
            [7, 9, 7].map(|a| by_hours(&conn, a, &spans.bounds).unwrap())
        );
    }

    #[test]
    fn spans_of_hours_read_together_equal_each_read_alone() {
        let conn = test_db();
        let start = three_weeks_of_two_cabinets(&conn);
        cabinet_nine(&conn, "hour < '2026-12-01'");
        let at = |h: i64| iso(start + Duration::days(10) + Duration::hours(h));
        // The 24 hours up to an hour that is not midnight, as one span and hour by hour, and
        // a day of a zone whose midnight is 05:30 UTC in two spans.
        let minute = |h: i64, m: i64| iso(start + Duration::hours(h) + Duration::minutes(m));
        for bounds in [
            vec![at(-10), at(14)],
            (-10..=14).map(at).collect(),
            vec![minute(245, 30), minute(257, 30), minute(269, 30)],
        ] {
            let spans = Spans::new(bounds.clone());
            assert!(spans.plan.as_ref().is_none_or(|p| p.hourly), "{bounds:?}");
            let cabinets = Cabinets::new(&conn, &[9, 7, 8]).unwrap();
            assert!(cabinets.together);
            let read = days_of(&conn, &cabinets, &spans).unwrap();
            assert_eq!(
                read,
                each_by_hours(&conn, &[9, 7, 8], &bounds),
                "{bounds:?}"
            );
            assert!(read[1].iter().any(|t| t.views > 0), "{bounds:?}");
        }
    }

    /// Each of `accounts`' sums per span of `bounds`, from their hours ([`by_hours`]).
    fn each_by_hours(conn: &Connection, accounts: &[i64], bounds: &[String]) -> Vec<Vec<Totals>> {
        accounts
            .iter()
            .map(|a| by_hours(conn, *a, bounds).unwrap())
            .collect()
    }

    /// [`days_of`] through the weekly and daily rows, whichever a plan would read.
    fn by_rows(conn: &Connection, cabinets: &Cabinets, spans: &Spans) -> Vec<Vec<Totals>> {
        let plan = spans.plan.as_ref().unwrap();
        let mut sums = plan.sums_of_rows(conn, cabinets, spans.len()).unwrap();
        plan.move_edges(conn, cabinets, spans, &mut sums).unwrap();
        totals(sums)
    }

    fn totals(sums: Vec<Vec<Sums>>) -> Vec<Vec<Totals>> {
        sums.into_iter()
            .map(|s| s.into_iter().map(Sums::totals).collect())
            .collect()
    }

    #[test]
    fn running_sums_give_each_span_what_the_weekly_and_daily_rows_give_in_every_zone() {
        let conn = test_db();
        let start = three_weeks_of_two_cabinets(&conn);
        // Cabinet 9's figures start on the tenth day and skip the fourteenth and the last; 10
        // has none. So in UTC the four weeks below find: no cabinet's run before the first
        // (none is looked up), 9's and 10's missing at the end of the first week (looked up,
        // none found), 9's missing at the end of the second (looked up: the day before has
        // no row either) and at the end of the third (found the day before).
        cabinet_nine(
            &conn,
            "hour >= '2026-11-29' AND substr(hour, 1, 10) NOT IN ('2026-12-03', '2026-12-10')",
        );
        let runs = kept_check::check(&conn)
            .unwrap()
            .into_iter()
            .find(|f| f.name == "cabinet_runs")
            .unwrap();
        assert!(runs.rows == 20 + 20 + 9 && runs.equal(), "{runs:?}");
        for offset in [-720, -210, 0, 345, 840] {
            let at = |d: i64| iso(start + Duration::days(d) - Duration::minutes(offset));
            // Two periods, one from before the first figures, four weeks, and fifteen days.
            for bounds in [
                vec![at(1), at(9), at(20)],
                vec![at(-9), at(3), at(12)],
                vec![at(0), at(7), at(14), at(21)],
                vec![at(2), at(17)],
            ] {
                let spans = Spans::new(bounds.clone());
                let plan = spans.plan.as_ref().unwrap();
                let days = plan.run_days(spans.len()).expect("spans of a week or more");
                assert_eq!(days.len(), spans.len() + 1);
                for (accounts, together) in [(&[9, 7, 8, 10][..], true), (&[8, 9], false)] {
                    let cabinets = Cabinets::new(&conn, accounts).unwrap();
                    assert_eq!(cabinets.together, together);
                    let by_runs = totals(runs_between(&conn, &cabinets, &days).unwrap());
                    let rows = plan.sums_of_rows(&conn, &cabinets, spans.len()).unwrap();
                    assert_eq!(by_runs, totals(rows), "{bounds:?} {accounts:?}");
                    assert!(by_runs[0].iter().any(|t| t.views > 0), "{bounds:?}");
                    let read = days_of(&conn, &cabinets, &spans).unwrap();
                    let hours = each_by_hours(&conn, accounts, &bounds);
                    assert_eq!(read, hours, "{bounds:?} {accounts:?}");
                }
            }
            // Spans of a day read the daily rows.
            let spans = Spans::new((3..=10).map(at).collect());
            assert_eq!(spans.plan.as_ref().unwrap().run_days(spans.len()), None);
        }
        // A span of 13 hours holding no noon counts no day: the rows are read.
        let bounds = vec![
            iso(start + Duration::hours(13)),
            iso(start + Duration::hours(26)),
            iso(start + Duration::days(12)),
        ];
        let spans = Spans::new(bounds.clone());
        assert_eq!(spans.plan.as_ref().unwrap().run_days(spans.len()), None);
        assert_eq!(
            days(&conn, 7, &spans).unwrap(),
            by_hours(&conn, 7, &bounds).unwrap()
        );
    }

    #[test]
    fn spend_per_day_read_from_the_weeks_rows_equals_the_hours_in_every_zone() {
        let conn = test_db();
        let start = three_weeks_of_two_cabinets(&conn);
        let offsets = [-720, -210, 0, 345, 840];
        // Read from the weekly rows and the hours at the bounds, then from the zones' kept
        // local days (schema 67), kept before some hours are written, changed and removed.
        for kept in [false, true] {
            if kept {
                for shift in [720, 210, 1095, 600] {
                    assert!(zone_days::keep_shift(&conn, shift).unwrap());
                }
                conn.execute_batch(
                    "UPDATE cabinet_hours SET spent_micros = spent_micros + 1000
                         WHERE account_id = 8 AND hour LIKE '%T1_:00:00Z';
                     DELETE FROM cabinet_hours WHERE account_id = 7 AND hour LIKE '%T03:00:00Z';",
                )
                .unwrap();
                cabinet_nine(&conn, "hour LIKE '%T0_:00:00Z'");
            }
            // Cabinet 9 has no figures until it is given some.
            for offset in offsets {
                let at = |d: i64| iso(start + Duration::days(d) - Duration::minutes(offset));
                // Each of twelve days over three weeks' rows (one of them a removed day), and
                // two days.
                for bounds in [
                    (1..=13).map(at).collect::<Vec<_>>(),
                    (9..=11).map(at).collect(),
                ] {
                    let spans = Spans::new(bounds.clone());
                    let zone = zone_days_of(&conn, &spans).unwrap();
                    assert_eq!(zone.is_some(), kept && offset != 0, "{bounds:?}");
                    for (accounts, together) in [(&[8, 7, 9][..], true), (&[7, 8], false)] {
                        let cabinets = Cabinets::new(&conn, accounts).unwrap();
                        assert_eq!(cabinets.together, together);
                        let read = spent_of(&conn, &cabinets, &spans).unwrap();
                        let hours: Vec<Vec<Money>> = each_by_hours(&conn, accounts, &bounds)
                            .into_iter()
                            .map(|totals| totals.into_iter().map(|t| t.spent).collect())
                            .collect();
                        assert_eq!(read, hours, "{bounds:?} {accounts:?}");
                        assert!(read[0][0].micros() > 0, "{bounds:?}");
                    }
                }
            }
        }
        // Bounds on both sides of a clock change (a zone's two shifts), or one of them a UTC
        // midnight, are not read from the kept days.
        for bounds in [
            [
                "2026-03-28T23:00:00Z",
                "2026-03-29T22:00:00Z",
                "2026-03-30T22:00:00Z",
            ],
            [
                "2026-03-28T21:00:00Z",
                "2026-03-29T21:00:00Z",
                "2026-03-30T00:00:00Z",
            ],
        ] {
            let spans = Spans::new(bounds.iter().map(|b| b.to_string()).collect());
            assert!(zone_days_of(&conn, &spans).unwrap().is_none(), "{bounds:?}");
        }
    }

    #[test]
    fn a_kept_tables_two_reads_take_the_same_columns_and_range() {
        let figures = "views, opens, clicks, actions, spent_micros";
        assert_eq!(
            DAYS.one,
            format!(
                "SELECT day, account_id, {figures} FROM cabinet_days \
                 WHERE account_id = ?1 AND day >= ?2 AND day <= ?3"
            )
        );
        assert_eq!(
            HOURS.every,
            format!(
                "SELECT hour, account_id, {figures} FROM cabinet_hours \
                 INDEXED BY cabinet_hours_by_hour WHERE hour >= ?1 AND hour < ?2"
            )
        );
    }

    #[test]
    fn a_daily_rows_date_is_read_only_when_whole() {
        assert_eq!(date("2026-11-29"), NaiveDate::from_ymd_opt(2026, 11, 29));
        for text in [
            "2026-11-31",
            "2026-1-29",
            "2026/11/29",
            "2026-11-2x",
            "+026-11-29",
            "",
        ] {
            assert_eq!(date(text), None, "{text}");
        }
    }

    #[test]
    fn spans_read_through_weekly_rows_equal_their_hours_in_every_zone() {
        let conn = test_db();
        let start = three_weeks_of_hours(&conn);
        for offset in [-720, -480, -210, 0, 60, 330, 345, 720, 840] {
            let at = |d: i64| iso(start + Duration::days(d) - Duration::minutes(offset));
            // Two periods holding whole weeks, and a period then its days one by one.
            // Each through the weekly rows, and as read (from the running sums).
            let seven = Cabinets::new(&conn, &[7]).unwrap();
            let mut bounds: Vec<String> = vec![at(1), at(9), at(20)];
            let spans = Spans::new(bounds.clone());
            assert!(!spans.plan.as_ref().unwrap().weeks.is_empty(), "{bounds:?}");
            let hours = by_hours(&conn, 7, &bounds).unwrap();
            assert_eq!(days(&conn, 7, &spans).unwrap(), hours);
            assert_eq!(by_rows(&conn, &seven, &spans), [hours]);
            bounds = std::iter::once(at(0)).chain((11..=18).map(at)).collect();
            let spans = Spans::new(bounds.clone());
            assert!(!spans.plan.as_ref().unwrap().weeks.is_empty(), "{bounds:?}");
            let read = days(&conn, 7, &spans).unwrap();
            assert!(read[0].views > 0, "{bounds:?}");
            let hours = by_hours(&conn, 7, &bounds).unwrap();
            assert_eq!(read, hours, "{bounds:?}");
            assert_eq!(by_rows(&conn, &seven, &spans), [hours], "{bounds:?}");
        }
        let weeks = |conn: &Connection| {
            kept_check::check(conn)
                .unwrap()
                .into_iter()
                .find(|f| f.name == "cabinet_weeks")
                .unwrap()
        };
        let kept = weeks(&conn);
        assert!(kept.rows == 4 && kept.equal(), "{kept:?}");
        conn.execute(
            "UPDATE cabinet_weeks SET opens = opens + 1 WHERE week = '2026-11-23'",
            [],
        )
        .unwrap();
        let changed = weeks(&conn);
        assert_eq!(changed.differing, 1);
        assert_eq!(changed.differences[0].key, "cabinet 7, week of 2026-11-23");
    }
}
