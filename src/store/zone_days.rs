//! Owns which local days the cabinets' spend is kept for (schema 67): the shifts of the time
//! zones people chose (the minutes after a UTC midnight at which their days start), each added
//! with its weeks filled from the cabinets' hours and removed once no zone has it; the triggers
//! on `cabinet_hours` keep the weeks in between.

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

/// What [`follow`] changed: the shifts whose weeks it added (filled from the hours) and those
/// it removed with their weeks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Followed {
    pub added: Vec<i64>,
    pub removed: Vec<i64>,
    /// The zones people chose that the time zone database no longer names (left out).
    pub unknown: Vec<String>,
}

/// Keeps the shifts of the zones people chose now, around `day` ([`shifts_of`]), and only
/// those: each missing one added with its weeks filled from the cabinets' hours, each no zone
/// has any more removed with its weeks. What the service does as it starts and as a person
/// saves a zone, so the shifts kept (and the rows each later hour writes) stay those in use.
pub fn follow(conn: &Connection, day: NaiveDate) -> Result<Followed, StoreError> {
    let names: Vec<String> = conn
        .prepare_cached("SELECT DISTINCT time_zone FROM users WHERE time_zone IS NOT NULL")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut followed = Followed::default();
    let mut wanted = BTreeSet::new();
    for name in names {
        match name.parse::<Tz>() {
            Ok(zone) => wanted.extend(shifts_of(zone, day)),
            Err(_) => followed.unknown.push(name),
        }
    }
    let kept: BTreeSet<i64> = conn
        .prepare_cached("SELECT shift FROM zone_shifts")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for &shift in wanted.difference(&kept) {
        keep_shift(conn, shift)?;
        followed.added.push(shift);
    }
    for &shift in kept.difference(&wanted) {
        conn.prepare_cached("DELETE FROM cabinet_zone_weeks WHERE shift = ?1")?
            .execute([shift])?;
        conn.prepare_cached("DELETE FROM zone_shifts WHERE shift = ?1")?
            .execute([shift])?;
        followed.removed.push(shift);
    }
    Ok(followed)
}

/// Keeps the days of `shift` (minutes, 1 to 1439), its weeks filled from the cabinets' hours,
/// unless they are kept; whether it added them.
pub fn keep_shift(conn: &Connection, shift: i64) -> Result<bool, StoreError> {
    let new = conn
        .prepare_cached("INSERT INTO zone_shifts (shift) VALUES (?1) ON CONFLICT DO NOTHING")?
        .execute([shift])?;
    if new == 0 {
        return Ok(false);
    }
    conn.prepare_cached(
        "INSERT INTO cabinet_zone_weeks (shift, account_id, week, hours, spent_mon, spent_tue,
            spent_wed, spent_thu, spent_fri, spent_sat, spent_sun)
         SELECT ?1, account_id, date(day, '-6 days', 'weekday 1') AS monday, COUNT(*),
            SUM(CASE strftime('%u', day) WHEN '1' THEN spent_micros ELSE 0 END),
            SUM(CASE strftime('%u', day) WHEN '2' THEN spent_micros ELSE 0 END),
            SUM(CASE strftime('%u', day) WHEN '3' THEN spent_micros ELSE 0 END),
            SUM(CASE strftime('%u', day) WHEN '4' THEN spent_micros ELSE 0 END),
            SUM(CASE strftime('%u', day) WHEN '5' THEN spent_micros ELSE 0 END),
            SUM(CASE strftime('%u', day) WHEN '6' THEN spent_micros ELSE 0 END),
            SUM(CASE strftime('%u', day) WHEN '7' THEN spent_micros ELSE 0 END)
         FROM (SELECT account_id, spent_micros, date(hour, -?1 || ' minutes') AS day
               FROM cabinet_hours)
         WHERE day IS NOT NULL
         GROUP BY account_id, monday",
    )?
    .execute(params![shift])?;
    Ok(true)
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

    /// A week's row: its cabinet, Monday, hours and spend per day.
    type Week = (i64, String, i64, [i64; 7]);

    /// The kept weeks of `shift`.
    fn weeks(conn: &Connection, shift: i64) -> Vec<Week> {
        week_rows(
            conn,
            "SELECT account_id, week, hours, spent_mon, spent_tue, spent_wed, spent_thu,
                spent_fri, spent_sat, spent_sun
             FROM cabinet_zone_weeks WHERE shift = ?1 ORDER BY account_id, week",
            shift,
        )
    }

    /// The hours of `shift`'s weeks summed from `cabinet_hours`, as [`weeks`] gives them.
    fn summed(conn: &Connection, shift: i64) -> Vec<Week> {
        week_rows(
            conn,
            "SELECT account_id, date(day, '-6 days', 'weekday 1') AS monday, COUNT(*),
                SUM(spent_micros * (strftime('%u', day) = '1')),
                SUM(spent_micros * (strftime('%u', day) = '2')),
                SUM(spent_micros * (strftime('%u', day) = '3')),
                SUM(spent_micros * (strftime('%u', day) = '4')),
                SUM(spent_micros * (strftime('%u', day) = '5')),
                SUM(spent_micros * (strftime('%u', day) = '6')),
                SUM(spent_micros * (strftime('%u', day) = '7'))
             FROM (SELECT account_id, spent_micros, date(hour, -?1 || ' minutes') AS day
                   FROM cabinet_hours)
             GROUP BY account_id, monday ORDER BY account_id, monday",
            shift,
        )
    }

    /// The rows of `sql` (of `shift`) as [`Week`]s.
    fn week_rows(conn: &Connection, sql: &str, shift: i64) -> Vec<Week> {
        conn.prepare(sql)
            .unwrap()
            .query_map([shift], |r| {
                let mut spent = [0; 7];
                for (d, s) in spent.iter_mut().enumerate() {
                    *s = r.get(3 + d)?;
                }
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, spent))
            })
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    #[test]
    fn a_kept_zones_weeks_are_filled_from_the_hours_and_follow_them() {
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
        let person = |email: &str, zone: &str| {
            conn.execute(
                "INSERT INTO users (email, plan, time_zone, created_at)
                 VALUES (?1, 'agency', ?2, 'x')",
                params![email, zone],
            )
            .unwrap();
        };
        person("z1@example.com", "Europe/Moscow");
        let followed = follow(&conn, on).unwrap();
        assert_eq!((followed.added, followed.removed), (vec![1260], vec![]));
        assert!(follow(&conn, on).unwrap().added.is_empty(), "kept once");
        assert!(kept(&conn, 1260).unwrap() && !kept(&conn, 1110).unwrap());
        // Moscow's day starting at 21:00 on Monday the 30th holds its 21:00 hour and the noon
        // after; its 20:00 hour is in the Sunday before, the last day of the week before.
        assert_eq!(
            weeks(&conn, 1260),
            vec![
                (7, "2026-11-23".to_string(), 1, [0, 0, 0, 0, 0, 0, 5]),
                (7, "2026-11-30".to_string(), 2, [18, 0, 0, 0, 0, 0, 0]),
                (8, "2026-11-30".to_string(), 1, [13, 0, 0, 0, 0, 0, 0]),
            ]
        );
        // More people's zones, New York's two shifts among them, and one no longer named.
        person("z2@example.com", "America/New_York");
        person("z3@example.com", "Nowhere/Else");
        let followed = follow(&conn, on).unwrap();
        assert_eq!(
            (followed.added, followed.unknown),
            (vec![240, 300], vec!["Nowhere/Else".to_string()])
        );
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
            assert_eq!(weeks(&conn, shift), summed(&conn, shift), "shift {shift}");
            assert!(!weeks(&conn, shift).is_empty());
        }
        assert_eq!(
            weeks(&conn, 1260),
            vec![
                (7, "2026-11-30".to_string(), 2, [19, 11, 0, 0, 0, 0, 0]),
                (8, "2026-11-30".to_string(), 1, [17, 0, 0, 0, 0, 0, 0]),
                (9, "2026-11-30".to_string(), 1, [23, 0, 0, 0, 0, 0, 0]),
            ]
        );
        // No one's zone is Moscow's any more: its shift goes, with its weeks.
        conn.execute(
            "UPDATE users SET time_zone = NULL WHERE email = 'z1@example.com'",
            [],
        )
        .unwrap();
        let followed = follow(&conn, on).unwrap();
        assert_eq!((followed.added, followed.removed), (vec![], vec![1260]));
        assert!(!kept(&conn, 1260).unwrap() && weeks(&conn, 1260).is_empty());
        assert!(kept(&conn, 240).unwrap() && !weeks(&conn, 240).is_empty());
    }
}
