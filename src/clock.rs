//! Owns the service clock: all business time (campaign and task timestamps, freshness, sync
//! hours, stats periods) is system time plus the offset stored in the database, so trials and
//! tests move time with `adcab sim advance` instead of sleeping. Transport time stays real.

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use rusqlite::Connection;

use crate::error::ApiError;
use crate::store;

/// The most one `sim advance` moves the clock: a year.
pub const MAX_ADVANCE: i64 = 366 * 24 * 3600;
/// The furthest the service clock may run ahead of system time: a hundred years.
const MAX_OFFSET: i64 = 100 * 366 * 24 * 3600;

/// The current service time.
pub fn now(conn: &Connection) -> Result<DateTime<Utc>, ApiError> {
    let offset = store::clock::offset_seconds(conn)?;
    Duration::try_seconds(offset)
        .and_then(|d| Utc::now().checked_add_signed(d))
        .ok_or_else(|| {
            ApiError::internal(format!("the service clock offset {offset} is out of range"))
        })
}

/// Moves the service clock forward by `seconds` (at most [`MAX_ADVANCE`]) and returns the new
/// time; the clock never runs more than a hundred years ahead.
pub fn advance(conn: &Connection, seconds: i64) -> Result<DateTime<Utc>, ApiError> {
    let offset = store::clock::offset_seconds(conn)?;
    let next = offset
        .checked_add(seconds.clamp(0, MAX_ADVANCE))
        .filter(|o| *o <= MAX_OFFSET)
        .ok_or_else(|| {
            ApiError::validation(
                "seconds",
                "the service clock cannot run more than a hundred years ahead",
            )
        })?;
    store::clock::set_offset(conn, next)?;
    now(conn)
}

/// The start of the hour `t` falls in.
pub fn hour_start(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp(t.timestamp().div_euclid(3600) * 3600, 0).unwrap_or(t)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_round_trips_and_sorts_as_text() {
        let a = parse_iso("2026-01-02T03:04:05Z").unwrap();
        assert_eq!(iso(a), "2026-01-02T03:04:05Z");
        let b = a + Duration::seconds(3600);
        assert!(iso(a) < iso(b));
    }

    #[test]
    fn advance_moves_now_by_the_offset() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::db::migrate(&mut conn).unwrap();
        let before = now(&conn).unwrap();
        let after = advance(&conn, 7200).unwrap();
        let moved = (after - before).num_seconds();
        assert!((7200..7205).contains(&moved), "moved {moved}");
    }
}
