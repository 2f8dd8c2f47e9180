//! Owns the days a client report covers: whole days `from..=to` in a time zone (UTC unless one
//! is given), at most [`MAX_DAYS`], the period of the same length before, and where each of
//! those days starts in UTC, as the stored hours are kept. Pure.

use chrono::{Days, NaiveDate};
use chrono_tz::Tz;

use crate::domain::time::iso;
use crate::domain::zone::midnight;
use crate::ops::{bad, OpsError};

/// The longest span a report covers, in days.
pub const MAX_DAYS: u64 = 366;
/// The span a report covers when none is asked for: the last 7 days, today included.
pub const DEFAULT_DAYS: u64 = 7;

/// Whole days `from..=to` in `zone`, at most [`MAX_DAYS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    from: NaiveDate,
    to: NaiveDate,
    zone: Tz,
}

impl Span {
    /// The `n` days ending with `today`, in UTC.
    pub fn last(n: u64, today: NaiveDate) -> Span {
        let n = n.clamp(1, MAX_DAYS);
        Span {
            from: today - Days::new(n - 1),
            to: today,
            zone: Tz::UTC,
        }
    }

    /// The span `from` and `to` (`YYYY-MM-DD`, both included) name, in UTC; a missing one
    /// defaults to the last [`DEFAULT_DAYS`] days ending today (or ending `to`, or starting
    /// `from`).
    pub fn parse(from: Option<&str>, to: Option<&str>, today: NaiveDate) -> Result<Span, OpsError> {
        let day = |param: &str, text: &str| {
            NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
                .map_err(|_| bad(param, format!("'{text}' is not a date (YYYY-MM-DD)")))
        };
        let from = from.filter(|t| !t.trim().is_empty());
        let to = to.filter(|t| !t.trim().is_empty());
        let back = Days::new(DEFAULT_DAYS - 1);
        let (from, to) = match (from, to) {
            (Some(f), Some(t)) => (day("from", f)?, day("to", t)?),
            (Some(f), None) => {
                let f = day("from", f)?;
                (f, (f + back).min(today).max(f))
            }
            (None, Some(t)) => {
                let t = day("to", t)?;
                (t - back, t)
            }
            (None, None) => (today - back, today),
        };
        Span::new(from, to)
    }

    /// `from..=to` in UTC, refused when `from` comes after `to` or the span is longer than
    /// [`MAX_DAYS`].
    pub fn new(from: NaiveDate, to: NaiveDate) -> Result<Span, OpsError> {
        if from > to {
            return Err(bad("from", "'from' comes after 'to'"));
        }
        if (to - from).num_days() + 1 > MAX_DAYS as i64 {
            return Err(bad(
                "to",
                format!("a report covers at most {MAX_DAYS} days"),
            ));
        }
        Ok(Span {
            from,
            to,
            zone: Tz::UTC,
        })
    }

    /// The same days in `zone`.
    pub fn in_zone(self, zone: Tz) -> Span {
        Span { zone, ..self }
    }

    pub fn from(self) -> NaiveDate {
        self.from
    }

    pub fn to(self) -> NaiveDate {
        self.to
    }

    pub fn zone(self) -> Tz {
        self.zone
    }

    /// How many days it covers.
    pub fn days(self) -> u64 {
        (self.to - self.from).num_days().unsigned_abs() + 1
    }

    /// The span of the same length just before, in the same zone.
    pub fn previous(self) -> Span {
        let n = Days::new(self.days());
        Span {
            from: self.from - n,
            to: self.to - n,
            zone: self.zone,
        }
    }

    /// The period before and this one as one span (longer than [`MAX_DAYS`] when this one is
    /// long: read as one range, never shown).
    pub(super) fn with_previous(self) -> Span {
        Span {
            from: self.previous().from,
            ..self
        }
    }

    /// The UTC instant each day starts, then the instant after the last ends: `days() + 1`
    /// ISO times in order, so day `i` is `[bounds[i], bounds[i + 1])`.
    pub fn bounds(self) -> Vec<String> {
        (0..=self.days())
            .map(|i| iso(midnight(self.zone, self.from + Days::new(i))))
            .collect()
    }

    /// Whether every day of it is a UTC day (the zone keeps UTC's midnights over it), so the
    /// days retention rolled the hours into are exactly its days.
    pub fn on_utc_days(self) -> bool {
        (0..=self.days()).all(|i| {
            let day = self.from + Days::new(i);
            midnight(self.zone, day) == day.and_time(chrono::NaiveTime::MIN).and_utc()
        })
    }
}

/// The day of `days` (whose [`Span::bounds`] are `bounds`, the first being `first`) a stored
/// time falls in: an hour or a minute (`YYYY-MM-DDTHH:MM`) by its start, a rolled-up UTC day
/// (`YYYY-MM-DD`) by its noon, which is the local day that holds most of it. `None` outside.
pub(super) fn day_of(bounds: &[String], first: NaiveDate, at: &str) -> Option<NaiveDate> {
    let key = match at.len() {
        10 => format!("{at}T12:00:00Z"),
        16 => format!("{at}:00Z"),
        _ => at.to_string(),
    };
    let i = bounds.partition_point(|b| b.as_str() <= key.as_str());
    if i == 0 || i >= bounds.len() {
        return None;
    }
    Some(first + Days::new(i as u64 - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn a_span_defaults_to_the_last_seven_days_and_is_bounded() {
        let today = d("2026-11-28");
        let span = Span::parse(None, None, today).unwrap();
        assert_eq!((span.from(), span.to()), (d("2026-11-22"), today));
        assert_eq!(span.previous().from(), d("2026-11-15"));
        assert_eq!(span.previous().to(), d("2026-11-21"));
        assert!(Span::parse(Some("2026-11-29"), Some("2026-11-28"), today).is_err());
        assert!(Span::parse(Some("2025-01-01"), Some("2026-11-28"), today).is_err());
        assert!(Span::parse(Some("2025-11-28"), Some("2026-11-28"), today).is_ok());
        assert!(Span::parse(Some("28.11.2026"), None, today).is_err());
    }

    #[test]
    fn a_zone_moves_the_days_bounds_and_what_falls_in_them() {
        let moscow: Tz = "Europe/Moscow".parse().unwrap();
        let span = Span::new(d("2026-11-16"), d("2026-11-17")).unwrap();
        assert!(span.on_utc_days());
        let span = span.in_zone(moscow);
        assert!(!span.on_utc_days());
        assert_eq!(span.previous().zone(), moscow);
        let bounds = span.bounds();
        assert_eq!(
            bounds,
            [
                "2026-11-15T21:00:00Z",
                "2026-11-16T21:00:00Z",
                "2026-11-17T21:00:00Z"
            ]
        );
        let first = span.from();
        let of = |at: &str| day_of(&bounds, first, at);
        assert_eq!(of("2026-11-15T20:00:00Z"), None);
        assert_eq!(of("2026-11-15T21:00:00Z"), Some(d("2026-11-16")));
        assert_eq!(of("2026-11-16T21:30"), Some(d("2026-11-17")));
        assert_eq!(of("2026-11-16"), Some(d("2026-11-16")), "by its noon");
        assert_eq!(of("2026-11-17T21:00:00Z"), None);
        // London keeps UTC's midnights in winter, not in summer.
        let london: Tz = "Europe/London".parse().unwrap();
        assert!(Span::new(d("2026-12-01"), d("2026-12-31"))
            .unwrap()
            .in_zone(london)
            .on_utc_days());
        assert!(!Span::new(d("2026-07-01"), d("2026-07-02"))
            .unwrap()
            .in_zone(london)
            .on_utc_days());
    }
}
