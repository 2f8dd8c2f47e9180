//! Owns time as values: the ISO 8601 form every stored timestamp takes, and hour boundaries.
//! Pure; the service clock that says what time it is lives in `clock`.

use chrono::{DateTime, SecondsFormat, Utc};

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
