//! Owns time zones as people write them: an IANA name (`Europe/Berlin`) or a UTC offset
//! (`+03:00`, `UTC+3`), a name's offset from UTC at an instant, daylight saving included, and
//! the instant a day starts in a zone.
//! The API's schedules and the panel's week grid both read zones through it; it knows nothing
//! of which offsets a platform takes.

use chrono::{DateTime, NaiveDate, Offset, TimeZone, Utc};
use chrono_tz::{Tz, TZ_VARIANTS};

/// A zone as written: an IANA name, or a fixed offset in minutes east of UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    Named(Tz),
    Offset(i32),
}

impl Written {
    /// Reads an offset (`+03:00`, `-05:30`, `UTC+3`, `+3`, `UTC`) or an IANA name
    /// (`Europe/Berlin`, as the tz database spells it; case is ignored).
    pub fn parse(text: &str) -> Option<Written> {
        let t = text.trim();
        if let Some(minutes) = parse_offset(t) {
            return Some(Written::Offset(minutes));
        }
        // An IANA name has letters, '/', '_', '-', '+' and digits (`Etc/GMT+3`); a name in
        // other case is looked up among all of them.
        let named = t.len() <= 64
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/_-+".contains(&b))
            && t.bytes().any(|b| b.is_ascii_alphabetic());
        if !named {
            return None;
        }
        t.parse::<Tz>()
            .ok()
            .or_else(|| {
                TZ_VARIANTS
                    .iter()
                    .copied()
                    .find(|zone| zone.name().eq_ignore_ascii_case(t))
            })
            .map(Written::Named)
    }

    /// Minutes east of UTC at `at`: a name's offset then (summer or winter time), or the offset.
    pub fn offset_at(self, at: DateTime<Utc>) -> i32 {
        match self {
            Written::Named(zone) => offset_at(zone, at),
            Written::Offset(minutes) => minutes,
        }
    }
}

/// `zone`'s offset from UTC at `at`, in minutes east (Berlin: 60 in winter, 120 in summer).
pub fn offset_at(zone: Tz, at: DateTime<Utc>) -> i32 {
    at.with_timezone(&zone).offset().fix().local_minus_utc() / 60
}

/// `+05:30` for 330 minutes, `-03:00` for -180.
pub fn offset_text(minutes: i32) -> String {
    let sign = if minutes < 0 { '-' } else { '+' };
    format!("{sign}{:02}:{:02}", minutes.abs() / 60, minutes.abs() % 60)
}

/// Reads `+03:00`, `-05:30`, `UTC+3`, `+3`, `UTC` as written, whatever the offset.
pub fn parse_offset(text: &str) -> Option<i32> {
    let t = text.trim();
    let rest = match t.get(..3) {
        Some(prefix) if prefix.eq_ignore_ascii_case("utc") => &t[3..],
        _ => t,
    };
    if rest.is_empty() {
        return (t.len() == 3).then_some(0);
    }
    let (sign, digits) = match rest.as_bytes()[0] {
        b'+' => (1, &rest[1..]),
        b'-' => (-1, &rest[1..]),
        _ => return None,
    };
    let (h, m) = match digits.split_once(':') {
        Some((h, m)) if m.len() == 2 => (h, m),
        Some(_) => return None,
        None => (digits, "00"),
    };
    if h.is_empty()
        || h.len() > 2
        || !h.bytes().all(|b| b.is_ascii_digit())
        || !m.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some(sign * (h.parse::<i32>().ok()? * 60 + m.parse::<i32>().ok()?))
}

/// The UTC instant `day` starts in `zone` (where a clock change skips midnight, the first hour
/// that exists).
pub fn midnight(zone: Tz, day: NaiveDate) -> DateTime<Utc> {
    (0..3)
        .find_map(|h| {
            let local = day.and_hms_opt(h, 0, 0)?;
            zone.from_local_datetime(&local).earliest()
        })
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_else(|| day.and_time(chrono::NaiveTime::MIN).and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_name_follows_daylight_saving_and_an_offset_stays() {
        let winter = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
        let summer = Utc.with_ymd_and_hms(2026, 7, 15, 12, 0, 0).unwrap();
        let berlin = Written::parse("Europe/Berlin").unwrap();
        assert_eq!(berlin, Written::Named(chrono_tz::Europe::Berlin));
        assert_eq!(berlin.offset_at(winter), 60);
        assert_eq!(berlin.offset_at(summer), 120);
        assert_eq!(
            Written::parse("america/new_york").map(|z| z.offset_at(summer)),
            Some(-240),
            "case is ignored"
        );
        assert_eq!(
            Written::parse("Asia/Kolkata").map(|z| z.offset_at(winter)),
            Some(330)
        );
        let fixed = Written::parse("+03:00").unwrap();
        assert_eq!(
            (fixed.offset_at(winter), fixed.offset_at(summer)),
            (180, 180)
        );
        for bad in [
            "Europe/Atlantis",
            "",
            "Berlin",
            "+3:3",
            "../etc/passwd",
            "é€",
        ] {
            assert_eq!(Written::parse(bad), None, "{bad}");
        }
        assert_eq!(offset_text(-570), "-09:30");
        assert_eq!(offset_text(345), "+05:45");
    }
}
