//! Owns the simulator's review and its catching up with the service clock: a pending review
//! is decided by `adcab sim review` or automatically when due (declined for a decline word),
//! a decline with its reason (`decline`), and delivery accrues minute by minute up to the
//! time asked for.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;

use super::accrual::{self, Delivery, Rates};
use super::decline;
use super::rows::load_snapshot;
use super::rules::approved_status;
use super::{SimError, Simulator};
use crate::clock;
use crate::db::json_column;
use crate::domain::ad::{AdSnapshot, DeclineReason};
use crate::domain::campaign::Status;
use crate::domain::dates::Dates;
use crate::domain::money::Money;
use crate::domain::schedule::Schedule;
use crate::store::{parsed, unreadable, StoreError};

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
        let pace = conn
            .prepare_cached(&format!(
                "SELECT {PACE_COLUMNS} FROM sim_ads WHERE account_id = ?1 AND ad_id = ?2"
            ))?
            .query_row([account, ad], pace_from_row)
            .optional()?;
        match pace {
            Some(pace) => self.advance(conn, account, pace, until),
            None => Ok(()),
        }
    }

    /// Brings every ad of an account that can move (`Active`, `In Review`, switched on and
    /// waiting for its start) up to `until`, read in one scan.
    pub(super) fn catch_up_moving(
        &self,
        conn: &Connection,
        account: i64,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let moving: Vec<Pace> = conn
            .prepare_cached(&format!(
                "SELECT {PACE_COLUMNS} FROM sim_ads WHERE account_id = ?1
                 AND (status IN ('Active', 'In Review')
                    OR (status = 'On Hold' AND active = 1 AND starts_at IS NOT NULL))"
            ))?
            .query_map([account], pace_from_row)?
            .collect::<rusqlite::Result<_>>()?;
        moving
            .into_iter()
            .try_for_each(|pace| self.advance(conn, account, pace, until))
    }

    /// Brings one ad up to `until` and stores it (see [`Simulator::advanced`]).
    fn advance(
        &self,
        conn: &Connection,
        account: i64,
        pace: Pace,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let Some(advanced) = self.advanced(conn, account, pace, until)? else {
            return Ok(());
        };
        let Advanced {
            ad,
            delivery,
            changed_at,
            review_requested,
            declined,
            accrued_until,
        } = advanced;
        if let Some(reason) = declined {
            set_reason(conn, account, ad, reason.as_ref())?;
        }
        conn.prepare_cached(
            "UPDATE sim_ads SET status = ?3, status_changed_at = ?4, review_requested_at = ?5, views = ?6,
                opens = ?7, clicks = ?8, actions = ?9, budget_micros = ?10, spent_micros = ?11,
                day_index = ?12, day_spent_micros = ?13, accrued_until = ?14
             WHERE account_id = ?1 AND ad_id = ?2",
        )?
        .execute(params![
            account,
            ad,
            delivery.status.as_str(),
            changed_at,
            review_requested.map(clock::iso),
            delivery.views,
            delivery.opens,
            delivery.clicks,
            delivery.actions,
            delivery.budget_micros,
            delivery.spent_micros,
            delivery.day,
            delivery.day_spent_micros,
            clock::iso(accrued_until),
        ])?;
        Ok(())
    }

    /// Brings an ad read with `SELECT *` (`snapshot`) up to `until` in memory, storing nothing:
    /// a later catch-up from the stored state comes to the same figures (delivery and review
    /// are functions of the state and the time), so reads need not write.
    pub(super) fn caught_up(
        &self,
        conn: &Connection,
        snapshot: &mut AdSnapshot,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let (account, ad) = (snapshot.account_id, snapshot.ad_id);
        let pace = conn
            .prepare_cached(&format!(
                "SELECT {PACE_COLUMNS} FROM sim_ads WHERE account_id = ?1 AND ad_id = ?2"
            ))?
            .query_row([account, ad], pace_from_row)?;
        let Some(advanced) = self.advanced(conn, account, pace, until)? else {
            return Ok(());
        };
        let d = &advanced.delivery;
        snapshot.status = d.status;
        snapshot.status_changed_at = advanced.changed_at;
        (snapshot.views, snapshot.opens) = (d.views, d.opens);
        (snapshot.clicks, snapshot.actions) = (d.clicks, d.actions);
        snapshot.budget = Money::from_micros(d.budget_micros);
        snapshot.spent = Money::from_micros(d.spent_micros);
        if let Some(reason) = advanced.declined {
            snapshot.decline_reason = reason;
        }
        Ok(())
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
        }))
    }
}

/// An ad brought up to a time in memory ([`Simulator::advanced`]): what catching up stores.
struct Advanced {
    ad: i64,
    delivery: Delivery,
    changed_at: String,
    review_requested: Option<DateTime<Utc>>,
    /// A review declined on the way, with the reason it gives.
    declined: Option<Option<DeclineReason>>,
    accrued_until: DateTime<Utc>,
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
