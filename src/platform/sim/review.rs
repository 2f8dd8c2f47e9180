//! Owns the simulator's review and its catching up with the service clock: a pending review
//! is decided by `adcab sim review` or automatically when due (declined for a decline word),
//! a decline with its reason (`decline`), and delivery accrues minute by minute up to the
//! time asked for. Both are functions of an ad's stored state and the time, so answers work
//! them out in memory on a reader; a change stores the ad brought up to now first, an answer
//! stores the ads whose status moved, and a report also, in turn, about a quarter of the
//! others.

use std::sync::OnceLock;

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};
use serde_json::Value;

use super::accrual::{self, Delivery, Rates};
use super::decline;
use super::rows::{ad_row, load_snapshot};
use super::rules::approved_status;
use super::{SimError, Simulator};
use crate::clock;
use crate::db::json_column;
use crate::domain::ad::{AdCounters, AdSnapshot, DeclineReason};
use crate::domain::campaign::Status;
use crate::domain::dates::Dates;
use crate::domain::money::Money;
use crate::domain::schedule::Schedule;
use crate::store::{decline_reason, parsed, unreadable, StoreError};

impl Simulator {
    /// Decides a pending review now: approved ads run (or wait for budget or the switch),
    /// declined ones stop until edited, with the operator's `reason` or, without one, one of
    /// the simulator's own.
    pub fn review(
        &self,
        account: i64,
        ad: i64,
        approve: bool,
        reason: Option<&str>,
    ) -> Result<Status, SimError> {
        self.db.write_blocking(|tx| {
            self.catch_up(tx, account, ad, clock::now(tx)?)?;
            let now = clock::iso(clock::now(tx)?);
            let state = load_snapshot(tx, account, ad)?.ok_or(SimError::NoAd { account, ad })?;
            if state.status != Status::InReview {
                return Err(SimError::NotInReview {
                    ad,
                    status: state.status,
                });
            }
            let (status, reason) = if approve {
                let now = clock::now(tx)?.timestamp();
                let status = approved_status(state.budget.micros(), state.active, state.dates, now);
                (status, None)
            } else {
                let why = decline::for_operator(reason, self.config.seed, account, ad);
                (Status::Declined, why)
            };
            tx.execute(
                "UPDATE sim_ads SET status = ?3, status_changed_at = ?4, review_requested_at = NULL
                 WHERE account_id = ?1 AND ad_id = ?2",
                params![account, ad, status.as_str(), now],
            )
            .map_err(StoreError::from)?;
            set_reason(tx, account, ad, reason.as_ref())?;
            Ok(status)
        })
    }

    /// The ad text's verdict under auto review: declined when it contains a decline word,
    /// which this returns.
    pub fn auto_review_declines(&self, text: &str) -> Option<&str> {
        let text = text.to_lowercase();
        self.config
            .decline_words
            .iter()
            .find(|w| !w.is_empty() && text.contains(&w.to_lowercase()))
            .map(String::as_str)
    }

    /// Brings one ad up to `until` (see [`Simulator::advance`]).
    pub(super) fn catch_up(
        &self,
        conn: &Connection,
        account: i64,
        ad: i64,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        match stored_pace(conn, account, ad)? {
            Some(pace) => self.advance(conn, account, pace, until),
            None => Ok(()),
        }
    }

    /// Every ad of an account in id order, read in one scan: its line of a report as stored,
    /// and for one that can move (`Active`, `In Review`, switched on and waiting for its
    /// start) and has anything to do by `until`, the line brought up to `until` in memory
    /// with what was brought up. [`Advanced::report_stores`] tells which to store.
    pub(super) fn brought(
        &self,
        conn: &Connection,
        account: i64,
        until: DateTime<Utc>,
    ) -> Result<Vec<(AdCounters, Option<Advanced>)>, StoreError> {
        let read: Vec<(Pace, Option<DeclineReason>)> = conn
            .prepare_cached(&format!(
                "SELECT {PACE_COLUMNS}, decline_reason, decline_description FROM sim_ads
                 WHERE account_id = ?1 ORDER BY ad_id"
            ))?
            .query_map([account], |r| {
                Ok((pace_from_row(r)?, decline_reason(r, 20, 21)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let mut found = Vec::with_capacity(read.len());
        for (pace, reason) in read {
            let mut line = pace.line(reason);
            let advanced = if pace.can_move() {
                self.advanced(conn, account, pace, until)?
            } else {
                None
            };
            if let Some(advanced) = &advanced {
                advanced.brought_up(&mut line);
            }
            found.push((line, advanced));
        }
        Ok(found)
    }

    /// Brings one ad up to `until` and stores it (see [`Simulator::advanced`]).
    fn advance(
        &self,
        conn: &Connection,
        account: i64,
        pace: Pace,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        match self.advanced(conn, account, pace, until)? {
            Some(advanced) if !advanced.store(conn, account)? => Err(StoreError::Corrupt(format!(
                "sim_ads row {account}/{} not as read",
                advanced.ad
            ))),
            _ => Ok(()),
        }
    }

    /// Brings an ad read with `SELECT *` (`snapshot`) up to `until` in memory: a later
    /// catch-up from the stored state to `until` or after comes to the same figures (delivery
    /// and review are functions of the state and the time). Returns the ad brought up when
    /// the answer stores it ([`Advanced::answer_stores`]; [`Simulator::store_all`]): a report
    /// of an earlier hour then finds it brought further and gives its newer status, as the
    /// answer did.
    pub(super) fn caught_up(
        &self,
        conn: &Connection,
        snapshot: &mut AdSnapshot,
        until: DateTime<Utc>,
    ) -> Result<Option<Advanced>, StoreError> {
        let (account, ad) = (snapshot.account_id, snapshot.ad_id);
        let Some(pace) = stored_pace(conn, account, ad)? else {
            return Ok(None);
        };
        let Some(advanced) = self.advanced(conn, account, pace, until)? else {
            return Ok(None);
        };
        let d = &advanced.delivery;
        (snapshot.status, snapshot.status_changed_at) = (d.status, advanced.changed_at.clone());
        (snapshot.views, snapshot.opens) = (d.views, d.opens);
        (snapshot.clicks, snapshot.actions) = (d.clicks, d.actions);
        (snapshot.budget, snapshot.spent) = (
            Money::from_micros(d.budget_micros),
            Money::from_micros(d.spent_micros),
        );
        if let Some(reason) = &advanced.declined {
            snapshot.decline_reason = reason.clone();
        }
        Ok(advanced.answer_stores().then_some(advanced))
    }

    /// Stores ads brought up after a read, in one write transaction; each unless its row
    /// changed since the read.
    pub(super) fn store_all(&self, account: i64, ads: &[Advanced]) -> Result<(), StoreError> {
        if ads.is_empty() {
            return Ok(());
        }
        self.db.write_blocking(|tx| {
            for advanced in ads {
                advanced.store(tx, account)?;
            }
            Ok(())
        })
    }

    /// One ad brought up to `until`, in memory: a review due by then is decided at its due
    /// time (declined when the text holds a decline word), then delivery accrues up to
    /// `until`. `None` when there is nothing to do, as for an ad already brought further.
    fn advanced(
        &self,
        conn: &Connection,
        account: i64,
        pace: Pace,
        until: DateTime<Utc>,
    ) -> Result<Option<Advanced>, StoreError> {
        let read = Read {
            accrued: pace.accrued.clone(),
            status: pace.delivery.status,
            review: pace.review.clone(),
            budget_micros: pace.delivery.budget_micros,
            cpm_micros: pace.delivery.cpm_micros,
            active: pace.active,
        };
        let Pace {
            ad,
            mut delivery,
            active,
            created,
            mut changed_at,
            accrued,
            review,
        } = pace;
        let created = DateTime::<Utc>::from_timestamp(created, 0).unwrap_or(until);
        let mut from = accrued
            .as_deref()
            .and_then(clock::parse_iso)
            .unwrap_or(created);
        let mut review_requested = review.as_deref().and_then(clock::parse_iso);
        let wait = chrono::Duration::seconds(self.config.auto_review_seconds as i64);
        let review_due = review_requested.map(|at| at + wait).filter(|due| {
            delivery.status == Status::InReview
                && self.config.auto_review_seconds > 0
                && *due <= until
        });
        if review_due.is_none() && from >= until {
            return Ok(None);
        }
        let mut declined = None;
        if let Some(due) = review_due {
            let text: String = conn
                .prepare_cached(
                    "SELECT json_extract(spec, '$.text') FROM sim_ads
                     WHERE account_id = ?1 AND ad_id = ?2",
                )?
                .query_row([account, ad], |r| r.get(0))?;
            delivery.status = match self.auto_review_declines(&text) {
                None => approved_status(
                    delivery.budget_micros,
                    active,
                    delivery.dates,
                    due.timestamp(),
                ),
                Some(word) => {
                    declined = Some(decline::for_decline_word(word));
                    Status::Declined
                }
            };
            changed_at = clock::iso(due);
            review_requested = None;
            from = from.max(due);
        }
        if let Some(stopped) = accrual::accrue(
            &mut delivery,
            &Rates::of(self.config.seed, account, ad),
            from,
            until,
        ) {
            changed_at = clock::iso(stopped);
        }
        let minute = DateTime::<Utc>::from_timestamp(until.timestamp().div_euclid(60) * 60, 0)
            .unwrap_or(until);
        Ok(Some(Advanced {
            ad,
            delivery,
            changed_at,
            review_requested,
            declined,
            accrued_until: minute.max(from),
            read,
        }))
    }
}

/// A report stores an ad it brought further once in this many hours, each ad in its own hour
/// of the cycle (by its id, see [`stored_in_hour`]), so that a report works delivery out from
/// at most this far back and writes about this share of the ads; and it stores every ad whose
/// status moved.
const STORE_EVERY_HOURS: i64 = 4;

/// The longest run of consecutive ids stored in the same hour of the cycle: some seven pages
/// of rows (about nine to a page).
const STORE_RUN: i64 = 64;

/// How many consecutive ids share an hour of the cycle in a cabinet of `ads` ads: a sixteenth
/// of them, at least one and at most [`STORE_RUN`]. A cabinet's rows lie in id order, so in a
/// large cabinet the rows a report stores lie together and its commit writes about a quarter
/// of the cabinet's pages (every fourth row would have it write every page); a small one's
/// quarter still spreads over its ids.
pub(super) fn store_run(ads: usize) -> i64 {
    (ads as i64 / 16).clamp(1, STORE_RUN)
}

/// Whether ad `ad` has its hour of the cycle in `hour` (hours since the epoch), its id in runs
/// of `run` (see [`store_run`]).
fn stored_in_hour(hour: i64, ad: i64, run: i64) -> bool {
    (hour + ad.div_euclid(run)).rem_euclid(STORE_EVERY_HOURS) == 0
}

/// An ad brought up to a time in memory ([`Simulator::advanced`]): what catching up stores.
pub(super) struct Advanced {
    pub(super) ad: i64,
    delivery: Delivery,
    changed_at: String,
    review_requested: Option<DateTime<Utc>>,
    /// A review declined on the way, with the reason it gives.
    declined: Option<Option<DeclineReason>>,
    accrued_until: DateTime<Utc>,
    /// What its row held when it was read.
    read: Read,
}

/// The columns of an ad's row a change writes, as they were read before it was brought up.
struct Read {
    accrued: Option<String>,
    status: Status,
    review: Option<String>,
    budget_micros: i64,
    cpm_micros: i64,
    active: bool,
}

impl Advanced {
    /// Whether its status moved (a review decided, a start, a stop) on the way.
    fn moved(&self) -> bool {
        self.delivery.status != self.read.status || self.declined.is_some()
    }

    /// Shows the ad brought up in its line of a report.
    pub(super) fn brought_up(&self, line: &mut AdCounters) {
        let d = &self.delivery;
        (line.status, line.status_changed_at) = (d.status, self.changed_at.clone());
        (line.views, line.opens) = (d.views, d.opens);
        (line.clicks, line.actions) = (d.clicks, d.actions);
        (line.budget, line.spent) = (
            Money::from_micros(d.budget_micros),
            Money::from_micros(d.spent_micros),
        );
        if let Some(reason) = &self.declined {
            line.decline_reason = reason.clone();
        }
    }

    /// Whether an answer stores the ad: its status moved on the way, or its row had last been
    /// brought up [`STORE_EVERY_HOURS`] or more before (so that an ad no report reads, as in a
    /// cabinet the hourly sync passes over, is worked out from at most that far back too).
    fn answer_stores(&self) -> bool {
        let stored = self.read.accrued.as_deref().and_then(clock::parse_iso);
        self.moved()
            || stored.is_none_or(|at| {
                self.accrued_until - at >= chrono::Duration::hours(STORE_EVERY_HOURS)
            })
    }

    /// Whether a report stores the ad: as an answer does, and in the ad's own hour of the
    /// cycle, its id in runs of `run` ([`store_run`]).
    pub(super) fn report_stores(&self, run: i64) -> bool {
        let hour = self.accrued_until.timestamp().div_euclid(3600);
        self.answer_stores() || stored_in_hour(hour, self.ad, run)
    }

    /// Stores the ad as brought up, unless its row changed since it was read: whatever changed
    /// it brought it up first, to the same figures. Returns whether it stored it.
    pub(super) fn store(&self, conn: &Connection, account: i64) -> Result<bool, StoreError> {
        let d = &self.delivery;
        let stored = conn
            .prepare_cached(
                "UPDATE sim_ads SET status = ?3, status_changed_at = ?4, review_requested_at = ?5,
                    views = ?6, opens = ?7, clicks = ?8, actions = ?9, budget_micros = ?10,
                    spent_micros = ?11, day_index = ?12, day_spent_micros = ?13,
                    accrued_until = ?14
                 WHERE account_id = ?1 AND ad_id = ?2 AND accrued_until IS ?15 AND status = ?16
                    AND review_requested_at IS ?17 AND budget_micros = ?18 AND cpm_micros = ?19
                    AND active = ?20",
            )?
            .execute(params![
                account,
                self.ad,
                d.status.as_str(),
                self.changed_at,
                self.review_requested.map(clock::iso),
                d.views,
                d.opens,
                d.clicks,
                d.actions,
                d.budget_micros,
                d.spent_micros,
                d.day,
                d.day_spent_micros,
                clock::iso(self.accrued_until),
                self.read.accrued,
                self.read.status.as_str(),
                self.read.review,
                self.read.budget_micros,
                self.read.cpm_micros,
                self.read.active,
            ])?;
        if let (1, Some(reason)) = (stored, &self.declined) {
            set_reason(conn, account, self.ad, reason.as_ref())?;
        }
        Ok(stored == 1)
    }
}

/// Sets (or with `None` clears) the reason an ad was declined for.
fn set_reason(
    conn: &Connection,
    account: i64,
    ad: i64,
    reason: Option<&DeclineReason>,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE sim_ads SET decline_reason = ?3, decline_description = ?4
         WHERE account_id = ?1 AND ad_id = ?2",
    )?
    .execute(params![
        account,
        ad,
        reason.map(DeclineReason::text),
        reason.and_then(DeclineReason::description),
    ])?;
    Ok(())
}

/// The columns of `sim_ads` that [`pace_from_row`] reads.
const PACE_COLUMNS: &str = "ad_id, status, active, cpm_micros, budget_micros, spent_micros,
    daily_budget_micros, schedule, views, opens, clicks, actions, created_at, status_changed_at,
    accrued_until, review_requested_at, day_index, day_spent_micros, starts_at, ends_at";

/// An ad's delivery state and the times its catching up starts from.
struct Pace {
    ad: i64,
    delivery: Delivery,
    active: bool,
    created: i64,
    changed_at: String,
    accrued: Option<String>,
    review: Option<String>,
}

impl Pace {
    /// Whether delivery or review can move the ad: `Active`, `In Review`, or switched on and
    /// waiting `On Hold` for its start.
    fn can_move(&self) -> bool {
        let d = &self.delivery;
        matches!(d.status, Status::Active | Status::InReview) || d.waiting_for_start()
    }

    /// Its line of a report as stored, with the decline reason stored beside it.
    fn line(&self, decline_reason: Option<DeclineReason>) -> AdCounters {
        let d = &self.delivery;
        AdCounters {
            ad_id: self.ad,
            status: d.status,
            active: self.active,
            budget: Money::from_micros(d.budget_micros),
            spent: Money::from_micros(d.spent_micros),
            views: d.views,
            opens: d.opens,
            clicks: d.clicks,
            actions: d.actions,
            status_changed_at: self.changed_at.clone(),
            decline_reason,
        }
    }
}

/// An ad's pace as stored; `None` when there is no such ad.
fn stored_pace(conn: &Connection, account: i64, ad: i64) -> Result<Option<Pace>, StoreError> {
    static READ: OnceLock<String> = OnceLock::new();
    ad_row(conn, &READ, PACE_COLUMNS, [account, ad], pace_from_row)
}

fn pace_from_row(r: &rusqlite::Row) -> rusqlite::Result<Pace> {
    let schedule: Option<Value> = json_column(r.get(7)?)?;
    let schedule = schedule
        .map(|v| Schedule::stored(&v).map_err(|_| unreadable("sim_ads.schedule", &v.to_string())))
        .transpose()?;
    Ok(Pace {
        ad: r.get(0)?,
        delivery: Delivery {
            status: parsed(r, 1, "sim_ads.status", Status::parse)?,
            cpm_micros: r.get(3)?,
            budget_micros: r.get(4)?,
            spent_micros: r.get(5)?,
            daily_budget_micros: r.get(6)?,
            schedule,
            views: r.get(8)?,
            opens: r.get(9)?,
            clicks: r.get(10)?,
            actions: r.get(11)?,
            day: r.get(16)?,
            day_spent_micros: r.get(17)?,
            switched_on: r.get(2)?,
            dates: Dates {
                starts_at: r.get(18)?,
                ends_at: r.get(19)?,
            },
        },
        active: r.get(2)?,
        created: r.get(12)?,
        changed_at: r.get(13)?,
        accrued: r.get(14)?,
        review: r.get(15)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{Db, Open};

    /// Eight ads running since [`t0`] (1,000.00 each at 2.00 per 1000 views, some two months
    /// of delivery) in a new account of a simulator over a new database.
    fn running() -> (tempfile::TempDir, Db, Simulator, i64) {
        running_from(t0())
    }

    /// [`running`] since `start`.
    fn running_from(start: DateTime<Utc>) -> (tempfile::TempDir, Db, Simulator, i64) {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("sim.db"), Open::Create).unwrap();
        let sim = Simulator::new(db.clone(), crate::config::Config::default().sim);
        let account = 5_000_000_001;
        let spec = serde_json::to_string(&crate::store::campaigns::tests::snapshot().spec).unwrap();
        db.write_blocking(|tx| {
            tx.execute(
                "INSERT INTO sim_accounts (id, cabinet_type, balance_micros) VALUES (?1, 'euro', 0)",
                [account],
            )?;
            for ad in 1..=8 {
                tx.execute(
                    "INSERT INTO sim_ads (account_id, ad_id, spec, status, active, cpm_micros,
                        budget_micros, created_at, status_changed_at, accrued_until)
                     VALUES (?1, ?2, ?5, 'Active', 1, 2000000, 1000000000, ?3, ?4, ?4)",
                    params![account, ad, start.timestamp(), clock::iso(start), spec],
                )?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
        (dir, db, sim, account)
    }

    fn t0() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2024-01-01T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn hours(h: i64) -> DateTime<Utc> {
        t0() + chrono::Duration::hours(h)
    }

    /// Each ad's stored `accrued_until`, by ad.
    fn stored(db: &Db, account: i64) -> Vec<String> {
        db.read_blocking(|c| {
            Ok::<_, StoreError>(
                c.prepare(
                    "SELECT accrued_until FROM sim_ads WHERE account_id = ?1 ORDER BY ad_id",
                )?
                .query_map([account], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?,
            )
        })
        .unwrap()
    }

    #[test]
    fn hourly_reports_store_a_quarter_of_the_ads_each_and_report_one_spans_figures() {
        let (_dir, db, sim, account) = running();
        let mut last = stored(&db, account);
        let mut ever = [false; 8];
        for h in 1..=8 {
            let lines = crate::platform::Platform::report(&sim, account, hours(h)).unwrap();
            for line in &lines {
                let mut whole = accrual::tests::active(1_000_000_000);
                let rates = Rates::of(sim.config.seed, account, line.ad_id);
                accrual::accrue(&mut whole, &rates, t0(), hours(h));
                assert!(whole.views > 0);
                assert_eq!(
                    (
                        line.views,
                        line.clicks,
                        line.spent.micros(),
                        line.budget.micros()
                    ),
                    (
                        whole.views,
                        whole.clicks,
                        whole.spent_micros,
                        whole.budget_micros
                    ),
                    "ad {} at hour {h}: the figures of one span from the start",
                    line.ad_id
                );
            }
            let now = stored(&db, account);
            let written: Vec<usize> = (0..8).filter(|&i| now[i] != last[i]).collect();
            assert_eq!(
                written.len(),
                2,
                "hour {h}: a quarter of the ads, {written:?}"
            );
            for &i in &written {
                assert_eq!(now[i], clock::iso(hours(h)));
                ever[i] = true;
            }
            last = now;
        }
        assert!(ever.iter().all(|&w| w), "every ad stored in four hours");
        // Five hours without a report: every ad's row is more than four hours old.
        crate::platform::Platform::report(&sim, account, hours(13)).unwrap();
        assert_eq!(stored(&db, account), vec![clock::iso(hours(13)); 8]);
    }

    #[test]
    fn a_large_cabinets_ads_are_stored_in_runs_of_ids_and_each_once_in_four_hours() {
        assert_eq!(
            [8, 40, 1000, 10_000].map(store_run),
            [1, 2, 62, STORE_RUN],
            "a sixteenth of the ads, between one and the longest run"
        );
        let run = store_run(1000);
        let mut times = [0; 1001];
        for hour in 100..104 {
            let stored: Vec<i64> = (1..=1000)
                .filter(|&ad| stored_in_hour(hour, ad, run))
                .collect();
            for &ad in &stored {
                times[ad as usize] += 1;
            }
            let breaks = stored.windows(2).filter(|w| w[1] != w[0] + 1).count();
            assert!(
                (230..=270).contains(&stored.len()) && breaks <= 4,
                "hour {hour}: about a quarter, in at most five runs: {} ads, {breaks} breaks",
                stored.len()
            );
        }
        assert!(
            times[1..].iter().all(|&t| t == 1),
            "every ad once in four hours"
        );
    }

    /// The start of the hour `back` hours before the current one (a new database's service
    /// clock is the system's).
    fn hours_ago(back: i64) -> DateTime<Utc> {
        crate::domain::time::hour_start(Utc::now()) - chrono::Duration::hours(back)
    }

    #[test]
    fn an_answer_stores_an_ad_whose_status_moved_and_an_earlier_report_keeps_it() {
        // Two hours back: an answer now is less than four hours after the stored state.
        let start = hours_ago(2);
        let (_dir, db, sim, account) = running_from(start);
        db.write_blocking(|tx| {
            tx.execute(
                "UPDATE sim_ads SET budget_micros = 10000 WHERE account_id = ?1 AND ad_id = 1",
                [account],
            )
            .map_err(StoreError::from)
        })
        .unwrap();
        let read = crate::platform::Platform::get_ads(&sim, account, &[1, 2]).unwrap();
        assert_eq!(
            (read[0].status, read[0].budget.micros()),
            (Status::Stopped, 0)
        );
        assert_eq!(read[1].status, Status::Active);
        let rows = stored(&db, account);
        assert_ne!(rows[0], clock::iso(start), "ad 1, which stopped, stored");
        assert_eq!(
            rows[1],
            clock::iso(start),
            "ad 2, which only delivered, not"
        );
        // The hourly sync catching up from `start` asks for the first hour's report.
        let hour = start + chrono::Duration::hours(1);
        let lines = crate::platform::Platform::report(&sim, account, hour).unwrap();
        assert_eq!(
            (lines[0].status, lines[0].spent),
            (read[0].status, read[0].spent),
            "brought further by the answer"
        );
        assert_eq!(lines[1].status, Status::Active);
        assert!(lines[1].views < read[1].views, "ad 2 as of the hour");
    }

    #[test]
    fn an_answer_stores_an_ad_last_stored_four_hours_back_or_more() {
        let start = hours_ago(5);
        let (_dir, db, sim, account) = running_from(start);
        let read = crate::platform::Platform::get_ads(&sim, account, &[2]).unwrap();
        assert_eq!(read[0].status, Status::Active, "only delivered");
        let rows = stored(&db, account);
        assert_ne!(rows[1], clock::iso(start), "ad 2 stored");
        assert_eq!(rows[0], clock::iso(start), "ad 1, not read, not");
    }

    #[test]
    fn a_report_does_not_store_over_a_row_changed_since_it_was_read() {
        let (_dir, db, sim, account) = running();
        let moved: Vec<Advanced> = db
            .read_blocking(|c| sim.brought(c, account, hours(6)))
            .unwrap()
            .into_iter()
            .filter_map(|(_, advanced)| advanced)
            .collect();
        assert_eq!(moved.len(), 8);
        // A change after the read: it brought ad 3 up to its own time first.
        db.write_blocking(|tx| {
            tx.execute(
                "UPDATE sim_ads SET cpm_micros = 4000000, views = 7, accrued_until = ?2
                 WHERE account_id = ?1 AND ad_id = 3",
                params![account, clock::iso(hours(5))],
            )
            .map_err(StoreError::from)
        })
        .unwrap();
        sim.store_all(account, &moved).unwrap();
        let now = stored(&db, account);
        let views: i64 = db
            .read_blocking(|c| {
                c.query_row(
                    "SELECT views FROM sim_ads WHERE account_id = ?1 AND ad_id = 3",
                    [account],
                    |r| r.get(0),
                )
                .map_err(StoreError::from)
            })
            .unwrap();
        assert_eq!(
            (now[2].as_str(), views),
            (clock::iso(hours(5)).as_str(), 7),
            "kept"
        );
        for (i, at) in now.iter().enumerate().filter(|(i, _)| *i != 2) {
            assert_eq!(at, &clock::iso(hours(6)), "ad {} stored", i + 1);
        }
    }
}
