//! Owns the simulator's delivery as a pure function of an ad's state, its seeded rates and a
//! span of service time: views accrue minute by minute while the ad is `Active`, inside its
//! schedule (in the schedule's offset; `viewer` counts as UTC) and under its daily cap; each
//! view costs `cpm / 1000`, exact in micro-units, capped by the budget; at a budget of 0 the ad
//! turns `Stopped`. An ad switched on and waiting `On Hold` for its start date turns `Active`
//! at that minute; at its end date it turns `Stopped`. Opens, clicks and actions follow the
//! lifetime views at seeded ratios.
//! Catching up in one span or in many gives the same numbers.

use chrono::{DateTime, Utc};

use crate::domain::campaign::Status;
use crate::domain::dates::Dates;
use crate::domain::schedule::{Schedule, Zone};

/// What delivery reads and changes of one ad.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub status: Status,
    pub cpm_micros: i64,
    pub budget_micros: i64,
    pub spent_micros: i64,
    pub daily_budget_micros: Option<i64>,
    /// `None` runs around the clock.
    pub schedule: Option<Schedule>,
    pub views: i64,
    pub opens: i64,
    pub clicks: i64,
    pub actions: i64,
    /// The day (days since the epoch, in the schedule's zone) `day_spent_micros` belongs to.
    pub day: i64,
    pub day_spent_micros: i64,
    /// Whether it is switched on (an ad waiting for its start is `On Hold` but on).
    pub switched_on: bool,
    /// Its start and end dates, Unix seconds on whole minutes.
    pub dates: Dates,
}

impl Delivery {
    /// Whether it is switched on and waiting `On Hold` for its start date, at which it turns
    /// `Active`.
    pub fn waiting_for_start(&self) -> bool {
        self.status == Status::OnHold && self.switched_on && self.dates.starts_at.is_some()
    }
}

/// An ad's seeded delivery rates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rates {
    /// Views per minute before the bid's effect.
    pub base_views: i64,
    /// Parts per million of views that are opens, of views that are clicks, of clicks that
    /// are actions.
    pub open_ppm: i64,
    pub click_ppm: i64,
    pub action_ppm: i64,
    pub seed: u64,
}

/// SplitMix64: a small, well-known mixing function; deterministic across platforms.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl Rates {
    /// The rates of one ad under a seed.
    pub fn of(seed: u64, account: i64, ad: i64) -> Rates {
        let h = mix(seed ^ mix(account as u64 ^ mix(ad as u64)));
        Rates {
            base_views: 2 + (h % 6) as i64,
            open_ppm: 300_000 + (mix(h ^ 1) % 400_000) as i64,
            click_ppm: 5_000 + (mix(h ^ 2) % 45_000) as i64,
            action_ppm: 50_000 + (mix(h ^ 3) % 250_000) as i64,
            seed: h,
        }
    }

    /// Views offered in one minute: grows with the bid (one more per full unit of currency).
    fn views_in(&self, minute: i64, cpm_micros: i64) -> i64 {
        let jitter = (mix(self.seed ^ minute as u64) % 3) as i64;
        self.base_views + jitter + cpm_micros / 1_000_000
    }
}

/// The local day index and weekday (0 = Monday) and hour of the minute with index `minute`
/// (minutes since the epoch) in the schedule's zone. Plain arithmetic: the epoch's day was a
/// Thursday, and a fixed offset has no leap rules.
fn local(minute: i64, zone: Zone) -> (i64, usize, u8) {
    let offset = match zone {
        Zone::Viewer => 0,
        Zone::Offset(m) => i64::from(m),
    };
    let local = minute + offset;
    let day = local.div_euclid(24 * 60);
    let weekday = (day + 3).rem_euclid(7) as usize;
    let hour = (local.rem_euclid(24 * 60) / 60) as u8;
    (day, weekday, hour)
}

/// Accrues delivery over the whole minutes in `[from, to)`; returns the minute the ad's
/// status last changed (it started, or stopped), if it did. Opens, clicks and actions follow
/// the views once they are all counted.
pub fn accrue(
    d: &mut Delivery,
    rates: &Rates,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let views = d.views;
    let changed = accrue_views(d, rates, from, to);
    if d.views != views {
        d.opens = d.views * rates.open_ppm / 1_000_000;
        d.clicks = d.views * rates.click_ppm / 1_000_000;
        d.actions = d.clicks * rates.action_ppm / 1_000_000;
    }
    changed
}

/// [`accrue`]'s minutes: the views, the spend and the status.
fn accrue_views(
    d: &mut Delivery,
    rates: &Rates,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let per_view = d.cpm_micros / 1000;
    if !(d.status == Status::Active || d.waiting_for_start()) || per_view <= 0 {
        return None;
    }
    let at = |minute: i64| DateTime::<Utc>::from_timestamp(minute * 60, 0).unwrap_or(to);
    let mut changed = None;
    let zone = d
        .schedule
        .as_ref()
        .map(|s| s.zone)
        .unwrap_or(Zone::Offset(0));
    let first = from.timestamp().div_euclid(60);
    let last = to.timestamp().div_euclid(60);
    for minute in first..last {
        if d.dates.ends_at.is_some_and(|end| minute * 60 >= end) {
            d.status = Status::Stopped;
            return Some(at(minute));
        }
        if d.status == Status::OnHold {
            if d.dates.starts_at.is_some_and(|start| minute * 60 >= start) {
                d.status = Status::Active;
                changed = Some(at(minute));
            } else {
                continue;
            }
        }
        let (day, weekday, hour) = local(minute, zone);
        if day != d.day {
            d.day = day;
            d.day_spent_micros = 0;
        }
        if let Some(schedule) = &d.schedule {
            if !schedule.days[weekday].contains(&hour) {
                continue;
            }
        }
        let mut cap = d.budget_micros;
        if let Some(daily) = d.daily_budget_micros {
            cap = cap.min((daily - d.day_spent_micros).max(0));
        }
        if cap == 0 {
            continue;
        }
        let offered = rates.views_in(minute, d.cpm_micros);
        // The views the cap affords, rounded up (the last one costs what is left), worked
        // out only when the minute's views would pass it.
        let views = if offered.saturating_mul(per_view) <= cap {
            offered
        } else {
            offered.min(cap.saturating_add(per_view - 1) / per_view)
        };
        let spend = (views * per_view).min(cap);
        d.views += views;
        d.budget_micros -= spend;
        d.spent_micros += spend;
        d.day_spent_micros += spend;
        if d.budget_micros == 0 {
            d.status = Status::Stopped;
            return Some(at(minute + 1));
        }
    }
    changed
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use chrono::{Datelike, Duration, Timelike};

    #[test]
    fn local_time_matches_the_calendar_in_every_offset() {
        let start = t("1969-12-29T00:00:00Z").timestamp() / 60;
        for offset in [-720, -570, 0, 345, 840] {
            for minute in (start..start + 60 * 24 * 9).step_by(17) {
                let at = DateTime::<Utc>::from_timestamp(minute * 60, 0).unwrap()
                    + Duration::minutes(offset);
                let expected = (
                    at.timestamp().div_euclid(86_400),
                    at.weekday().num_days_from_monday() as usize,
                    at.hour() as u8,
                );
                assert_eq!(local(minute, Zone::Offset(offset as i32)), expected, "{at}");
            }
        }
    }

    fn t(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    /// An ad running around the clock at 2.00 per 1000 views with `budget_micros` left.
    pub(in crate::platform::sim) fn active(budget_micros: i64) -> Delivery {
        Delivery {
            status: Status::Active,
            cpm_micros: 2_000_000,
            budget_micros,
            spent_micros: 0,
            daily_budget_micros: None,
            schedule: None,
            views: 0,
            opens: 0,
            clicks: 0,
            actions: 0,
            day: 0,
            day_spent_micros: 0,
            switched_on: true,
            dates: Dates::default(),
        }
    }

    #[test]
    fn spend_is_views_times_cpm_over_1000_exactly() {
        let rates = Rates::of(1, 5_000_000_001, 1);
        let mut d = active(1_000_000_000);
        accrue(
            &mut d,
            &rates,
            t("2026-01-05T10:00:00Z"),
            t("2026-01-05T11:00:00Z"),
        );
        assert!(d.views > 0);
        assert_eq!(
            d.spent_micros,
            d.views * 2_000,
            "2.00 per 1000 views is 0.002000 a view"
        );
        assert_eq!(
            d.budget_micros + d.spent_micros,
            1_000_000_000,
            "nothing created or lost"
        );
        assert!(d.clicks <= d.views && d.actions <= d.clicks && d.opens <= d.views);
    }

    #[test]
    fn one_span_or_many_give_the_same_numbers() {
        let rates = Rates::of(7, 5_000_000_002, 3);
        let mut whole = active(50_000_000);
        accrue(
            &mut whole,
            &rates,
            t("2026-01-05T00:00:00Z"),
            t("2026-01-06T00:00:00Z"),
        );
        let mut pieces = active(50_000_000);
        let mut at = t("2026-01-05T00:00:00Z");
        while at < t("2026-01-06T00:00:00Z") {
            let next = at + Duration::minutes(37);
            accrue(&mut pieces, &rates, at, next.min(t("2026-01-06T00:00:00Z")));
            at = next;
        }
        assert_eq!(whole, pieces);
    }

    #[test]
    fn the_budget_runs_out_to_exactly_zero_and_the_ad_stops() {
        let rates = Rates::of(1, 1, 1);
        let mut d = active(10_001);
        let stopped = accrue(
            &mut d,
            &rates,
            t("2026-01-05T00:00:00Z"),
            t("2026-01-05T01:00:00Z"),
        );
        assert_eq!(d.status, Status::Stopped);
        assert_eq!(
            (d.budget_micros, d.spent_micros),
            (0, 10_001),
            "the last view takes what is left"
        );
        assert_eq!(
            d.views,
            (10_001 + 1_999) / 2_000,
            "as many views as the budget buys, the last one partly"
        );
        let stopped = stopped.expect("the stop minute is reported");
        let mut until_stop = active(10_001);
        accrue(&mut until_stop, &rates, t("2026-01-05T00:00:00Z"), stopped);
        assert_eq!(
            until_stop.status,
            Status::Stopped,
            "stopped by the reported minute"
        );
        let mut just_before = active(10_001);
        accrue(
            &mut just_before,
            &rates,
            t("2026-01-05T00:00:00Z"),
            stopped - Duration::minutes(1),
        );
        assert_eq!(
            just_before.status,
            Status::Active,
            "and not a minute earlier"
        );
        let before = d.clone();
        accrue(
            &mut d,
            &rates,
            t("2026-01-05T01:00:00Z"),
            t("2026-01-05T02:00:00Z"),
        );
        assert_eq!(d, before, "a stopped ad accrues nothing");
    }

    #[test]
    fn the_schedule_window_is_read_in_its_own_offset() {
        let rates = Rates::of(1, 1, 2);
        let mut days: [Vec<u8>; 7] = Default::default();
        days[0] = vec![9]; // Monday 09:00-09:59 at +03:00 is 06:00-06:59 UTC.
        let mut d = active(1_000_000_000);
        d.schedule = Some(Schedule {
            days,
            zone: Zone::Offset(180),
            named: None,
        });
        accrue(
            &mut d,
            &rates,
            t("2026-01-05T00:00:00Z"),
            t("2026-01-05T06:00:00Z"),
        );
        assert_eq!(d.views, 0, "before the window");
        accrue(
            &mut d,
            &rates,
            t("2026-01-05T06:00:00Z"),
            t("2026-01-05T07:00:00Z"),
        );
        let in_window = d.views;
        assert!(in_window > 0);
        accrue(
            &mut d,
            &rates,
            t("2026-01-05T07:00:00Z"),
            t("2026-01-12T00:00:00Z"),
        );
        assert_eq!(
            d.views, in_window,
            "nothing outside the window until next Monday"
        );
    }

    #[test]
    fn the_daily_cap_holds_until_the_next_day() {
        let rates = Rates::of(1, 1, 3);
        let mut d = active(1_000_000_000);
        d.daily_budget_micros = Some(100_000);
        accrue(
            &mut d,
            &rates,
            t("2026-01-05T00:00:00Z"),
            t("2026-01-05T23:59:00Z"),
        );
        assert_eq!(d.spent_micros, 100_000, "capped for the day");
        assert_eq!(d.status, Status::Active);
        accrue(
            &mut d,
            &rates,
            t("2026-01-05T23:59:00Z"),
            t("2026-01-06T12:00:00Z"),
        );
        assert_eq!(d.spent_micros, 200_000, "the next day spends its own cap");
    }

    #[test]
    fn a_higher_bid_buys_more_views_and_the_seed_decides_the_rest() {
        let rates = Rates::of(1, 1, 4);
        let mut low = active(i64::MAX / 4);
        let mut high = active(i64::MAX / 4);
        high.cpm_micros = 5_000_000;
        accrue(
            &mut low,
            &rates,
            t("2026-01-05T00:00:00Z"),
            t("2026-01-05T01:00:00Z"),
        );
        accrue(
            &mut high,
            &rates,
            t("2026-01-05T00:00:00Z"),
            t("2026-01-05T01:00:00Z"),
        );
        assert!(high.views > low.views);
        assert_eq!(Rates::of(1, 1, 4), rates, "same seed, same rates");
        assert_ne!(Rates::of(2, 1, 4), rates);
    }

    #[test]
    fn an_ad_waits_for_its_start_and_stops_at_its_end() {
        let rates = Rates::of(1, 5_000_000_001, 2);
        let mut d = active(1_000_000_000);
        d.status = Status::OnHold;
        d.dates = Dates {
            starts_at: Some(t("2026-01-05T10:00:00Z").timestamp()),
            ends_at: Some(t("2026-01-05T11:00:00Z").timestamp()),
        };
        let changed = accrue(
            &mut d,
            &rates,
            t("2026-01-05T09:00:00Z"),
            t("2026-01-05T10:00:00Z"),
        );
        assert_eq!((changed, d.views, d.status), (None, 0, Status::OnHold));
        let changed = accrue(
            &mut d,
            &rates,
            t("2026-01-05T10:00:00Z"),
            t("2026-01-05T10:30:00Z"),
        );
        assert_eq!(changed, Some(t("2026-01-05T10:00:00Z")));
        assert_eq!(d.status, Status::Active);
        let half = d.views;
        assert!(half > 0);
        let changed = accrue(
            &mut d,
            &rates,
            t("2026-01-05T10:30:00Z"),
            t("2026-01-05T13:00:00Z"),
        );
        assert_eq!(changed, Some(t("2026-01-05T11:00:00Z")));
        assert_eq!(d.status, Status::Stopped);
        let after = d.views;
        assert!(
            after > half && after < half * 3,
            "an hour's views, not three"
        );
        let mut off = active(1_000_000_000);
        off.status = Status::OnHold;
        off.switched_on = false;
        off.dates = d.dates;
        accrue(
            &mut off,
            &rates,
            t("2026-01-05T09:00:00Z"),
            t("2026-01-05T12:00:00Z"),
        );
        assert_eq!(
            (off.views, off.status),
            (0, Status::OnHold),
            "switched off, it waits"
        );
    }
}
