//! Owns a campaign's start and end dates: read from ISO 8601 UTC text at minute precision,
//! shown back in the service's timestamp form, and checked against the service time a change
//! is made at (each date sent in the future and at most [`MAX_DAYS_AHEAD`] days ahead, the end
//! after the start). Pure: the caller says what time it is.

use chrono::{DateTime, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};

use super::time::iso;
use super::{ParseError, Why};

/// How far ahead a date may be set.
pub const MAX_DAYS_AHEAD: i64 = 365;

/// When a campaign starts and ends, in Unix seconds on whole minutes; either may be absent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Dates {
    pub starts_at: Option<i64>,
    pub ends_at: Option<i64>,
}

/// Which of a campaign's dates a change sent (a set date is checked, a kept one is not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sent {
    pub starts_at: bool,
    pub ends_at: bool,
}

impl Sent {
    /// Both dates, as a new campaign sends them (an absent one is not checked).
    pub const BOTH: Sent = Sent {
        starts_at: true,
        ends_at: true,
    };
}

/// Reads `text` sent at `param` as a date: ISO 8601 in UTC (`Z` or `+00:00`) to the minute,
/// `2026-12-01T09:30Z` or `2026-12-01T09:30:00Z`; seconds other than `00` are refused.
pub fn parse(text: &str, param: &str) -> Result<i64, ParseError> {
    let bad = || {
        ParseError::new(
            param,
            format!(
                "{param} must be an ISO 8601 UTC time to the minute, like 2026-12-01T09:30:00Z."
            ),
        )
        .because(Why::Time)
    };
    let t = text.trim();
    let local = t
        .strip_suffix('Z')
        .or_else(|| t.strip_suffix("+00:00"))
        .ok_or_else(bad)?;
    let at = ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(local, f).ok())
        .ok_or_else(bad)?
        .and_utc()
        .timestamp();
    if at.rem_euclid(60) != 0 {
        return Err(ParseError::new(
            param,
            format!("{param} is kept to the minute: its seconds must be 00."),
        )
        .because(Why::Time));
    }
    Ok(at)
}

/// A date as the API shows it (`2026-12-01T09:30:00Z`).
pub fn shown(at: i64) -> Option<String> {
    DateTime::<Utc>::from_timestamp(at, 0).map(iso)
}

impl Dates {
    /// Whether neither date is set.
    pub fn is_empty(&self) -> bool {
        self.starts_at.is_none() && self.ends_at.is_none()
    }

    /// Checks the dates a change `sent` against the service time `now` (Unix seconds): each
    /// one sent is in the future and at most [`MAX_DAYS_AHEAD`] days ahead, and the end comes
    /// after the start (a kept date counts for that too). `at` is the path the fields sit
    /// under (`campaigns[2]`, or the top level).
    pub fn check(&self, sent: Sent, now: i64, at: &str) -> Result<(), ParseError> {
        let latest = now.saturating_add(MAX_DAYS_AHEAD * 86_400);
        for (name, value, was_sent) in [
            ("starts_at", self.starts_at, sent.starts_at),
            ("ends_at", self.ends_at, sent.ends_at),
        ] {
            let Some(value) = value.filter(|_| was_sent) else {
                continue;
            };
            let param = super::fields::path(at, name);
            if value <= now {
                return Err(
                    ParseError::new(param, format!("{name} must be in the future."))
                        .because(Why::Past),
                );
            }
            if value > latest {
                return Err(ParseError::new(
                    param,
                    format!("{name} may be at most {MAX_DAYS_AHEAD} days ahead."),
                )
                .because(Why::TooFar {
                    days: MAX_DAYS_AHEAD,
                }));
            }
        }
        if let (Some(start), Some(end)) = (self.starts_at, self.ends_at) {
            if end <= start {
                let name = if sent.ends_at || !sent.starts_at {
                    "ends_at"
                } else {
                    "starts_at"
                };
                return Err(ParseError::new(
                    super::fields::path(at, name),
                    "ends_at must be after starts_at.",
                )
                .because(Why::Order));
            }
        }
        Ok(())
    }

    /// What a platform is sent at `now`: a start already passed is left out (it has done its
    /// work, and a platform takes only future dates); the end is sent as it is, so a platform
    /// refuses to run a campaign past it rather than run it without one.
    pub fn to_send(&self, now: i64) -> Dates {
        Dates {
            starts_at: self.starts_at.filter(|s| *s > now),
            ends_at: self.ends_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A whole minute.
    const NOW: i64 = 1_800_000_000;

    #[test]
    fn a_date_reads_to_the_minute_in_utc() {
        let t = parse("2026-12-01T09:30:00Z", "starts_at").unwrap();
        assert_eq!(parse("2026-12-01T09:30Z", "starts_at").unwrap(), t);
        assert_eq!(parse("2026-12-01T09:30:00+00:00", "starts_at").unwrap(), t);
        assert_eq!(shown(t).unwrap(), "2026-12-01T09:30:00Z");
        for bad in [
            "2026-12-01T09:30:00+01:00",
            "2026-12-01",
            "tomorrow",
            "2026-12-01T09:30:00",
        ] {
            assert_eq!(parse(bad, "ends_at").unwrap_err().param, "ends_at", "{bad}");
        }
        let seconds = parse("2026-12-01T09:30:15Z", "starts_at").unwrap_err();
        assert!(seconds.message.contains("minute"), "{}", seconds.message);
    }

    #[test]
    fn dates_sent_must_be_ahead_within_a_year_and_in_order() {
        let both = Sent {
            starts_at: true,
            ends_at: true,
        };
        let d = |s: i64, e: i64| Dates {
            starts_at: Some(NOW + s),
            ends_at: Some(NOW + e),
        };
        assert!(d(60, 120).check(both, NOW, "").is_ok());
        assert_eq!(
            d(0, 120).check(both, NOW, "").unwrap_err().param,
            "starts_at"
        );
        assert_eq!(
            d(60, 366 * 86_400)
                .check(both, NOW, "campaigns[1]")
                .unwrap_err()
                .param,
            "campaigns[1].ends_at"
        );
        assert_eq!(
            d(120, 120).check(both, NOW, "").unwrap_err().param,
            "ends_at"
        );
        let only_start = Sent {
            starts_at: true,
            ends_at: false,
        };
        assert_eq!(
            d(180, 120).check(only_start, NOW, "").unwrap_err().param,
            "starts_at",
            "a start moved past the kept end is the start's fault"
        );
        let kept_past_start = Dates {
            starts_at: Some(NOW - 600),
            ends_at: Some(NOW + 60),
        };
        let only_end = Sent {
            starts_at: false,
            ends_at: true,
        };
        assert!(kept_past_start.check(only_end, NOW, "").is_ok());
        assert_eq!(
            kept_past_start.to_send(NOW),
            Dates {
                starts_at: None,
                ends_at: Some(NOW + 60)
            }
        );
        let ended = Dates {
            starts_at: None,
            ends_at: Some(NOW - 60),
        };
        assert_eq!(
            ended.to_send(NOW),
            ended,
            "a passed end is still sent, to be refused"
        );
    }
}
