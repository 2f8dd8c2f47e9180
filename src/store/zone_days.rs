//! Owns which local days the cabinets' spend is kept for (schema 67): the shifts of people's
//! time zones (the minutes after a UTC midnight at which their days start), each added with
//! its days filled from the cabinets' hours; the triggers on `cabinet_hours` keep them after.

use std::collections::BTreeSet;

use chrono::{Duration, NaiveDate, NaiveTime};
use chrono_tz::Tz;
use rusqlite::{params, Connection};

use super::StoreError;
use crate::domain::zone::midnight;

/// Days either side of the day a zone is kept around whose midnights give its shifts: a year,
/// so a zone with summer time has both of its.
const AROUND_DAYS: i64 = 366;

/// The shift of a day starting at `start` (a local midnight): the minutes after its UTC
/// midnight, `None` at a UTC midnight or one not on a whole minute.
pub fn shift_of(start: chrono::DateTime<chrono::Utc>) -> Option<i64> {
    let since = start - start.date_naive().and_time(NaiveTime::MIN).and_utc();
    (since > Duration::zero() && since.num_seconds() % 60 == 0).then(|| since.num_minutes())
}

/// The shifts of `zone`'s days from a year before `day` to a year after it.
pub fn shifts_of(zone: Tz, day: NaiveDate) -> BTreeSet<i64> {
    (-AROUND_DAYS..=AROUND_DAYS)
        .filter_map(|i| shift_of(midnight(zone, day + Duration::days(i))))
        .collect()
}

/// Whether the days of `shift` are kept.
pub fn kept(conn: &Connection, shift: i64) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM zone_shifts WHERE shift = ?1)")?
        .query_row([shift], |r| r.get(0))?)
}

/// Keeps the days of each shift of `zone` around `day` ([`shifts_of`]) not kept yet, each
/// filled from the cabinets' hours; how many it added.
pub fn keep(conn: &Connection, zone: Tz, day: NaiveDate) -> Result<usize, StoreError> {
    let mut added = 0;
    for shift in shifts_of(zone, day) {
        added += usize::from(keep_shift(conn, shift)?);
    }
    Ok(added)
}

/// Keeps the days of `shift` (minutes, 1 to 1439), filled from the cabinets' hours, unless they
/// are kept; whether it added them.
pub fn keep_shift(conn: &Connection, shift: i64) -> Result<bool, StoreError> {
    let new = conn
        .prepare_cached("INSERT INTO zone_shifts (shift) VALUES (?1) ON CONFLICT DO NOTHING")?
        .execute([shift])?;
    if new == 0 {
        return Ok(false);
    }
    conn.prepare_cached(
        "INSERT INTO cabinet_zone_days (shift, account_id, day, hours, spent_micros)
         SELECT ?1, account_id, date(hour, -?1 || ' minutes'), COUNT(*), SUM(spent_micros)
         FROM cabinet_hours GROUP BY account_id, date(hour, -?1 || ' minutes')",
    )?
    .execute(params![shift])?;
    Ok(true)
}

/// [`keep`] of every zone a person chose.
pub fn keep_people_zones(conn: &Connection, day: NaiveDate) -> Result<usize, StoreError> {
    let zones: Vec<String> = conn
        .prepare("SELECT DISTINCT time_zone FROM users WHERE time_zone IS NOT NULL")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut added = 0;
    for zone in zones.iter().filter_map(|z| z.parse::<Tz>().ok()) {
        added += keep(conn, zone, day)?;
    }
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_db;

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    #[test]
    fn a_zones_shifts_are_the_minutes_after_utc_midnight_its_days_start_at() {
        let on = day("2026-12-01");
        // London's winter days are UTC's (no shift), its summer's start at 23:00.
        for (zone, shifts) in [
            (chrono_tz::Europe::Moscow, &[1260][..]),
            (chrono_tz::America::New_York, &[240, 300]),
            (chrono_tz::Asia::Kolkata, &[1110]),
            (chrono_tz::Europe::Berlin, &[1320, 1380]),
            (chrono_tz::Europe::London, &[1380]),
            (chrono_tz::UTC, &[]),
        ] {
            let want: BTreeSet<i64> = shifts.iter().copied().collect();
            assert_eq!(shifts_of(zone, on), want, "{zone}");
        }
    }

    /// The kept days of `shift`, as `(cabinet, day, hours, spend)`.
    fn days(conn: &Connection, shift: i64) -> Vec<(i64, String, i64, i64)> {
        day_rows(
            conn,
            "SELECT account_id, day, hours, spent_micros FROM cabinet_zone_days
             WHERE shift = ?1 ORDER BY account_id, day",
            shift,
        )
    }

    /// The hours of `shift`'s days summed from `cabinet_hours`, as [`days`] gives them.
    fn summed(conn: &Connection, shift: i64) -> Vec<(i64, String, i64, i64)> {
        day_rows(
            conn,
            "SELECT account_id, date(hour, -?1 || ' minutes') AS d, COUNT(*), SUM(spent_micros)
             FROM cabinet_hours GROUP BY account_id, d ORDER BY account_id, d",
            shift,
        )
    }

    /// The rows of `sql` (of `shift`) as `(cabinet, day, hours, spend)`.
    fn day_rows(conn: &Connection, sql: &str, shift: i64) -> Vec<(i64, String, i64, i64)> {
        conn.prepare(sql)
            .unwrap()
            .query_map([shift], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    #[test]
    fn a_kept_zones_days_are_filled_from_the_hours_and_follow_them() {
        let conn = test_db();
        let hour = |account: i64, at: &str, spent: i64| {
            conn.execute(
                "INSERT INTO cabinet_hours (account_id, hour, views, clicks, actions,
                    spent_micros) VALUES (?1, ?2, 1, 0, 0, ?3)",
                params![account, at, spent],
            )
            .unwrap();
        };
        hour(7, "2026-11-30T20:00:00Z", 5);
        hour(7, "2026-11-30T21:00:00Z", 7);
        hour(7, "2026-12-01T12:00:00Z", 11);
        hour(8, "2026-11-30T23:00:00Z", 13);
        let on = day("2026-12-01");
        assert_eq!(keep(&conn, chrono_tz::Europe::Moscow, on).unwrap(), 1);
        assert_eq!(
            keep(&conn, chrono_tz::Europe::Moscow, on).unwrap(),
            0,
            "kept once"
        );
        assert!(kept(&conn, 1260).unwrap() && !kept(&conn, 1110).unwrap());
        // Moscow's day starting at 21:00 on the 30th holds its 21:00 hour and the noon after.
        assert_eq!(
            days(&conn, 1260),
            vec![
                (7, "2026-11-29".to_string(), 1, 5),
                (7, "2026-11-30".to_string(), 2, 18),
                (8, "2026-11-30".to_string(), 1, 13),
            ]
        );
        // Every person's zone, New York's two shifts among them.
        conn.execute_batch(
            "INSERT INTO users (email, password_hash, plan, time_zone, created_at)
                 VALUES ('z1@example.com', 'x', 'agency', 'America/New_York', 'x'),
                        ('z2@example.com', 'x', 'agency', 'Europe/Moscow', 'x'),
                        ('z3@example.com', 'x', 'agency', 'Nowhere/Else', 'x');",
        )
        .unwrap();
        assert_eq!(keep_people_zones(&conn, on).unwrap(), 2);
        // The triggers follow an hour inserted, rewritten, moved and removed.
        hour(8, "2026-12-01T04:00:00Z", 17);
        conn.execute_batch(
            "UPDATE cabinet_hours SET spent_micros = 19 WHERE account_id = 7
                 AND hour = '2026-11-30T21:00:00Z';
             UPDATE cabinet_hours SET views = 3 WHERE account_id = 7
                 AND hour = '2026-11-30T20:00:00Z';
             UPDATE cabinet_hours SET hour = '2026-12-02T03:00:00Z' WHERE account_id = 7
                 AND hour = '2026-12-01T12:00:00Z';
             UPDATE cabinet_hours SET account_id = 9, spent_micros = 23 WHERE account_id = 8
                 AND hour = '2026-11-30T23:00:00Z';
             DELETE FROM cabinet_hours WHERE account_id = 7 AND hour = '2026-11-30T20:00:00Z';",
        )
        .unwrap();
        for shift in [1260, 240, 300] {
            assert_eq!(days(&conn, shift), summed(&conn, shift), "shift {shift}");
            assert!(!days(&conn, shift).is_empty());
        }
        assert_eq!(
            days(&conn, 1260),
            vec![
                (7, "2026-11-30".to_string(), 1, 19),
                (7, "2026-12-01".to_string(), 1, 11),
                (8, "2026-11-30".to_string(), 1, 17),
                (9, "2026-11-30".to_string(), 1, 23),
            ]
        );
    }
}
