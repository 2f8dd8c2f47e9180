//! Owns time as values: the ISO 8601 form every stored timestamp takes, hour boundaries, and
//! calendar months.
//! Pure; the service clock that says what time it is lives in `clock`.

use chrono::{DateTime, Months, NaiveDate, SecondsFormat, Utc};

/// The hour `t` falls in, counted in hours since the epoch.
pub fn hour_number(t: DateTime<Utc>) -> i64 {
    t.timestamp().div_euclid(3600)
}

/// The start of the hour `t` falls in.
pub fn hour_start(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp(hour_number(t) * 3600, 0).unwrap_or(t)
}

/// ISO 8601 in UTC with whole seconds, the form every stored timestamp takes (it sorts as text).
pub fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Parses a timestamp written by [`iso`].
pub fn parse_iso(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// A calendar month in UTC, written `YYYY-MM` (years 2000 to 2100).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Month {
    pub year: i32,
    pub month: u32,
}

/// Text that is not a month `YYYY-MM`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAMonth(pub String);

impl std::fmt::Display for NotAMonth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "'{}' is not a month YYYY-MM between 2000-01 and 2100-12",
            self.0
        )
    }
}

impl std::error::Error for NotAMonth {}

impl Month {
    fn first_day(self) -> NaiveDate {
        NaiveDate::from_ymd_opt(self.year, self.month, 1).expect("a checked month")
    }

    /// Its first instant.
    pub fn start(self) -> DateTime<Utc> {
        self.first_day()
            .and_hms_opt(0, 0, 0)
            .expect("midnight")
            .and_utc()
    }

    /// The first instant of the next month.
    pub fn end(self) -> DateTime<Utc> {
        (self.first_day() + Months::new(1))
            .and_hms_opt(0, 0, 0)
            .expect("midnight")
            .and_utc()
    }
}

impl std::str::FromStr for Month {
    type Err = NotAMonth;

    fn from_str(text: &str) -> Result<Month, NotAMonth> {
        let wrong = || NotAMonth(text.to_string());
        let (year, month) = text.split_once('-').ok_or_else(wrong)?;
        if year.len() != 4 || month.len() != 2 {
            return Err(wrong());
        }
        let year: i32 = year.parse().map_err(|_| wrong())?;
        let month: u32 = month.parse().map_err(|_| wrong())?;
        if !(2000..=2100).contains(&year) || !(1..=12).contains(&month) {
            return Err(wrong());
        }
        Ok(Month { year, month })
    }
}

impl std::fmt::Display for Month {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

#[cfg(test)]
mod month_tests {
    use super::*;

    #[test]
    fn a_month_reads_as_yyyy_mm_and_spans_to_the_next_one() {
        let m: Month = "2026-12".parse().unwrap();
        assert_eq!(m.to_string(), "2026-12");
        assert_eq!(iso(m.start()), "2026-12-01T00:00:00Z");
        assert_eq!(iso(m.end()), "2027-01-01T00:00:00Z");
        for wrong in ["2026-13", "2026-1", "26-01", "2026/01", "1999-12", ""] {
            assert!(wrong.parse::<Month>().is_err(), "{wrong}");
        }
    }
}
