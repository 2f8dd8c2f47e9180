//! Owns the schedule object: parsing client input (days of hour lists, a UTC offset among the
//! platform's time zones, an IANA zone name turned into its offset now, or `viewer`) with
//! `param` naming the exact field, and the normalised form the campaign object returns (all
//! seven days, sorted hours, offsets as `+HH:MM`).

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use super::campaign::TargetType;
use super::capabilities::Capabilities;
use super::zone::{offset_text, Written};
use super::{ParseError, Why};

pub const DAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
/// Entries a day's list may hold (the 24 hours, with room for repeats), checked before any is
/// read.
const MAX_HOURS: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zone {
    /// Each viewer's local time (only for `users` ads).
    Viewer,
    /// Minutes east of UTC.
    Offset(i32),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// Hours 0-23 per day, Monday first, sorted and unique.
    pub days: [Vec<u8>; 7],
    pub zone: Zone,
}

impl Schedule {
    /// Parses a schedule object; `param` is where it sits in the request (`schedule`,
    /// `campaigns[1].schedule`). An offset must be one of the platform's time zones; a zone
    /// name becomes its offset now, by the wall clock, as the write is made (which must be one
    /// of them too): the platform keeps offsets, not names; `target_type` is checked against
    /// `viewer` when known.
    pub fn parse(
        value: &Value,
        param: &str,
        target_type: Option<TargetType>,
        caps: &Capabilities,
    ) -> Result<Schedule, ParseError> {
        Schedule::read(value, param, target_type, Some(caps.time_zones), Utc::now())
    }

    /// Reads a schedule this service stored (its offset was checked against the platform when
    /// it was sent), taking any well-written offset.
    pub fn stored(value: &Value) -> Result<Schedule, ParseError> {
        Schedule::read(value, "schedule", None, None, Utc::now())
    }

    /// Reads a schedule; `zones` are the offsets the platform takes (`None`: any), `now` the
    /// instant a zone name's offset is taken at.
    fn read(
        value: &Value,
        param: &str,
        target_type: Option<TargetType>,
        zones: Option<&[i32]>,
        now: DateTime<Utc>,
    ) -> Result<Schedule, ParseError> {
        let obj = value.as_object().ok_or_else(|| {
            ParseError::new(param, "schedule must be an object or null.").because(Why::Kind)
        })?;
        if let Some(unknown) = obj.keys().find(|k| *k != "days" && *k != "timezone") {
            return Err(
                ParseError::new(format!("{param}.{unknown}"), "Unknown schedule field.")
                    .because(Why::NotHere),
            );
        }
        let days_param = format!("{param}.days");
        let days_obj = obj.get("days").and_then(Value::as_object).ok_or_else(|| {
            ParseError::new(
                &days_param,
                "days must be an object of day names to hour lists.",
            )
            .because(Why::Kind)
        })?;
        let mut days: [Vec<u8>; 7] = Default::default();
        for (name, hours) in days_obj {
            let day_param = format!("{days_param}.{name}");
            let index = DAYS.iter().position(|d| d == name).ok_or_else(|| {
                ParseError::new(&day_param, format!("Unknown day '{name}'; use mon..sun.")).because(
                    Why::NotOneOf {
                        allowed: super::words(&DAYS),
                    },
                )
            })?;
            let list = hours
                .as_array()
                .filter(|l| l.len() <= MAX_HOURS)
                .ok_or_else(|| {
                    ParseError::new(
                        &day_param,
                        format!("A day is an array of at most {MAX_HOURS} hours 0-23."),
                    )
                    .because(Why::Hours)
                })?;
            let mut parsed = Vec::with_capacity(list.len());
            for hour in list {
                let h = hour.as_u64().filter(|h| *h <= 23).ok_or_else(|| {
                    ParseError::new(&day_param, format!("Hours are integers 0-23; got {hour}."))
                        .because(Why::Hours)
                })?;
                parsed.push(h as u8);
            }
            parsed.sort_unstable();
            parsed.dedup();
            days[index] = parsed;
        }
        if days.iter().all(Vec::is_empty) {
            return Err(
                ParseError::new(&days_param, "A schedule needs at least one hour.")
                    .because(Why::NoHours),
            );
        }
        let tz_param = format!("{param}.timezone");
        let tz = obj.get("timezone").and_then(Value::as_str).ok_or_else(|| {
            ParseError::new(
                &tz_param,
                format!("timezone is required. {}", accepted(zones)),
            )
            .because(Why::Required)
        })?;
        let zone = read_zone(tz, zones, now)
            .map_err(|why| ParseError::new(&tz_param, why).because(Why::Zone))?;
        if zone == Zone::Viewer && target_type.is_some_and(|t| t != TargetType::Users) {
            return Err(ParseError::new(
                &tz_param,
                "timezone viewer is allowed only for users ads.",
            )
            .because(Why::Zone));
        }
        Ok(Schedule { days, zone })
    }

    /// The normalised object: all seven days and `+HH:MM` (or `viewer`).
    pub fn to_json(&self) -> Value {
        let mut days = Map::new();
        for (name, hours) in DAYS.iter().zip(&self.days) {
            days.insert((*name).into(), json!(hours));
        }
        json!({ "days": days, "timezone": zone_text(self.zone) })
    }
}

fn zone_text(zone: Zone) -> String {
    match zone {
        Zone::Viewer => "viewer".into(),
        Zone::Offset(m) => offset_text(m),
    }
}

/// `viewer`, an offset among `zones`, or a zone name whose offset at `now` is among them (any
/// offset when `zones` is `None`); else the sentence saying what is accepted.
fn read_zone(text: &str, zones: Option<&[i32]>, now: DateTime<Utc>) -> Result<Zone, String> {
    if text.trim().eq_ignore_ascii_case("viewer") {
        return Ok(Zone::Viewer);
    }
    let Some(written) = Written::parse(text) else {
        return Err(format!(
            "Unsupported timezone '{text}'. {}",
            accepted(zones)
        ));
    };
    let minutes = written.offset_at(now);
    if zones.is_none_or(|zones| zones.contains(&minutes)) {
        return Ok(Zone::Offset(minutes));
    }
    let at = offset_text(minutes);
    Err(match written {
        Written::Named(_) => format!(
            "'{text}' is at UTC{at} now, which is not one of the platform's time zones. {}",
            accepted(zones)
        ),
        Written::Offset(_) => format!(
            "Unsupported timezone '{text}': UTC{at} is not one of the platform's time zones. {}",
            accepted(zones)
        ),
    })
}

/// What a schedule's `timezone` takes, for a refusal: names, the platform's offsets, `viewer`.
fn accepted(zones: Option<&[i32]>) -> String {
    let offsets = match zones {
        Some(zones) => zones
            .iter()
            .map(|m| offset_text(*m))
            .collect::<Vec<_>>()
            .join(", "),
        None => "+HH:MM".into(),
    };
    format!(
        "Use an IANA zone name such as Europe/Berlin (sent as its UTC offset at the time of the write), a UTC offset the platform takes ({offsets}), or viewer (each viewer's own time, users ads only)."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::capabilities::tests::SMALL;

    /// A platform taking the offsets these tests name (and no other).
    const ZONES: Capabilities = Capabilities {
        time_zones: &[-720, -570, -300, -210, 0, 180, 330, 345, 765, 840],
        ..SMALL
    };

    fn param_of(v: Value, target: Option<TargetType>) -> String {
        let err = Schedule::parse(&v, "schedule", target, &ZONES).unwrap_err();
        err.param
    }

    #[test]
    fn normalises_to_all_seven_days_and_hh_mm() {
        let s = Schedule::parse(
            &json!({ "days": { "mon": [10, 9, 9], "sun": [] }, "timezone": "UTC+3" }),
            "schedule",
            None,
            &ZONES,
        )
        .unwrap();
        let v = s.to_json();
        assert_eq!(v["timezone"], "+03:00");
        assert_eq!(v["days"]["mon"], json!([9, 10]));
        for day in DAYS {
            assert!(v["days"][day].is_array(), "{day} present");
        }
        assert_eq!(
            Schedule::parse(&v, "schedule", None, &ZONES).unwrap(),
            s,
            "the output parses back"
        );
    }

    #[test]
    fn accepts_every_listed_offset_form() {
        for (input, out) in [
            ("+3", "+03:00"),
            ("-05:00", "-05:00"),
            ("+05:30", "+05:30"),
            ("+05:45", "+05:45"),
            ("-09:30", "-09:30"),
            ("+14:00", "+14:00"),
            ("-12", "-12:00"),
            ("UTC", "+00:00"),
            ("utc-3:30", "-03:30"),
            ("+12:45", "+12:45"),
        ] {
            assert_eq!(
                read_zone(input, Some(ZONES.time_zones), Utc::now())
                    .ok()
                    .map(zone_text)
                    .as_deref(),
                Some(out),
                "{input}"
            );
        }
        for bad in [
            "+15:00", "-13:00", "+05:15", "3", "+3:3", "GMT+1", "+03:00x", "", "+", "é€", "ué",
            "UTé", "€+3", "+é", "+3:é0", "utc+٣",
        ] {
            assert!(
                read_zone(bad, Some(ZONES.time_zones), Utc::now()).is_err(),
                "{bad}"
            );
        }
        assert_eq!(
            read_zone("+01:00", Some(ZONES.time_zones), Utc::now()).ok(),
            None,
            "well written, but not a zone of the platform"
        );
        assert_eq!(
            read_zone("viewer", Some(ZONES.time_zones), Utc::now()),
            Ok(Zone::Viewer)
        );
        let odd = json!({ "days": { "mon": [1] }, "timezone": "+01:00" });
        assert_eq!(
            Schedule::stored(&odd).map(|s| s.zone),
            Ok(Zone::Offset(60)),
            "a stored schedule is read as it was stored"
        );
    }

    #[test]
    fn names_the_exact_field_of_each_mistake() {
        assert_eq!(
            param_of(
                json!({ "days": { "mon": [24] }, "timezone": "+00:00" }),
                None
            ),
            "schedule.days.mon"
        );
        assert_eq!(
            param_of(
                json!({ "days": { "mon": ["9"] }, "timezone": "+00:00" }),
                None
            ),
            "schedule.days.mon"
        );
        assert_eq!(
            param_of(
                json!({ "days": { "funday": [1] }, "timezone": "+00:00" }),
                None
            ),
            "schedule.days.funday"
        );
        assert_eq!(
            param_of(json!({ "days": { "mon": [] }, "timezone": "+00:00" }), None),
            "schedule.days"
        );
        assert_eq!(
            param_of(
                json!({ "days": { "mon": [1] }, "timezone": "+01:30" }),
                None
            ),
            "schedule.timezone"
        );
        assert_eq!(
            param_of(json!({ "days": { "mon": [1] } }), None),
            "schedule.timezone"
        );
        assert_eq!(
            param_of(
                json!({ "days": { "mon": [1] }, "timezone": "viewer" }),
                Some(TargetType::Channels)
            ),
            "schedule.timezone"
        );
        assert_eq!(
            param_of(
                json!({ "days": { "mon": [1] }, "timezone": "+00:00", "x": 1 }),
                None
            ),
            "schedule.x"
        );
        assert_eq!(param_of(json!([1]), None), "schedule");
        assert!(Schedule::parse(
            &json!({ "days": { "mon": [1] }, "timezone": "viewer" }),
            "schedule",
            Some(TargetType::Users),
            &ZONES
        )
        .is_ok());
    }

    #[test]
    fn a_zone_name_becomes_its_offset_at_the_time_and_a_refusal_lists_what_is_accepted() {
        use chrono::TimeZone;
        let winter = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap();
        let summer = Utc.with_ymd_and_hms(2026, 7, 15, 12, 0, 0).unwrap();
        let value = json!({ "days": { "mon": [9] }, "timezone": "America/New_York" });
        let zones = Some(ZONES.time_zones);
        let read = |at| Schedule::read(&value, "schedule", None, zones, at).map(|s| s.zone);
        assert_eq!(read(winter), Ok(Zone::Offset(-300)));
        assert_eq!(
            read(summer).unwrap_err().message,
            format!(
                "'America/New_York' is at UTC-04:00 now, which is not one of the platform's time zones. {}",
                accepted(zones)
            ),
            "-04:00 is not among these tests' zones"
        );
        assert_eq!(
            read_zone("Asia/Kolkata", zones, summer),
            Ok(Zone::Offset(330))
        );
        let refused = read_zone("Europe/Atlantis", zones, summer).unwrap_err();
        assert!(
            refused.starts_with("Unsupported timezone 'Europe/Atlantis'."),
            "{refused}"
        );
        for names in ["Europe/Berlin", "-09:30", "+14:00", "viewer"] {
            assert!(refused.contains(names), "{names} in {refused}");
        }
    }
}
