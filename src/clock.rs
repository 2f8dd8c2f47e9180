//! Owns the service clock: all business time (campaign and task timestamps, freshness, sync
//! hours, stats periods) is system time plus the offset stored in the database, so trials and
//! tests move time with `adcab sim advance` instead of sleeping. Transport time stays real.

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;

pub use crate::domain::time::{hour_start, iso, parse_iso};
use crate::store::{self, StoreError};

/// The most one `sim advance` moves the clock: a year.
pub const MAX_ADVANCE: i64 = 366 * 24 * 3600;
/// The furthest the service clock may run ahead of system time: a hundred years.
const MAX_OFFSET: i64 = 100 * 366 * 24 * 3600;

/// The current service time.
pub fn now(conn: &Connection) -> Result<DateTime<Utc>, StoreError> {
    let offset = store::clock::offset_seconds(conn)?;
    Duration::try_seconds(offset)
        .and_then(|d| Utc::now().checked_add_signed(d))
        .ok_or_else(|| StoreError::Corrupt(format!("service_clock.offset_seconds {offset}")))
}

/// Moves the service clock forward by `seconds` (at most [`MAX_ADVANCE`]) and returns the new
/// time; `None`, moving nothing, when that would take it more than a hundred years ahead.
pub fn advance(conn: &Connection, seconds: i64) -> Result<Option<DateTime<Utc>>, StoreError> {
    let offset = store::clock::offset_seconds(conn)?;
    let Some(next) = offset
        .checked_add(seconds.clamp(0, MAX_ADVANCE))
        .filter(|o| *o <= MAX_OFFSET)
    else {
        return Ok(None);
    };
    store::clock::set_offset(conn, next)?;
    now(conn).map(Some)
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
        crate::db::schema::migrate(&mut conn).unwrap();
        let before = now(&conn).unwrap();
        let after = advance(&conn, 7200).unwrap().unwrap();
        let moved = (after - before).num_seconds();
        assert!((7200..7205).contains(&moved), "moved {moved}");
    }
}
