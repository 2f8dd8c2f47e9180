//! Owns the schedule object: parsing client input (days of hour lists, a UTC offset among the
//! platform's time zones, an IANA zone name turned into its offset now and kept beside it, or
//! `viewer`) with `param` naming the exact field, and the normalised form the platform is sent
//! and the campaign object returns (all seven days, sorted hours, offsets as `+HH:MM`, the
//! zone's name apart as `timezone_name`).

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use serde_json::{json, Map, Value};

use super::campaign::TargetType;
use super::capabilities::Capabilities;
use super::zone::{offset_at, offset_text, Written};
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
    /// The IANA zone the schedule was given in, whose offset `zone` holds; adcab keeps it
    /// (the platform keeps only the offset) and moves the offset when the zone's changes.
    pub named: Option<Tz>,
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
        if let Some(unknown) = obj
            .keys()
            .find(|k| !["days", "timezone", "timezone_name"].contains(&k.as_str()))
        {
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
        let named = match Written::parse(tz) {
            Some(Written::Named(name)) => Some(name),
            Some(Written::Offset(_)) | None => {
                let name_param = format!("{param}.timezone_name");
                match obj.get("timezone_name") {
                    None | Some(Value::Null) => None,
                    Some(sent) => echoed_name(sent, zone, now)
                        .map_err(|why| ParseError::new(&name_param, why).because(Why::Zone))?,
                }
            }
        };
        if zone == Zone::Viewer && target_type.is_some_and(|t| t != TargetType::Users) {
            return Err(ParseError::new(
                &tz_param,
                "timezone viewer is allowed only for users ads.",
            )
            .because(Why::Zone));
        }
        Ok(Schedule { days, zone, named })
    }

    /// The normalised object the platform is sent: all seven days and `+HH:MM` (or
    /// `viewer`), without the zone's name (the platform keeps offsets).
    pub fn to_json(&self) -> Value {
        let mut days = Map::new();
        for (name, hours) in DAYS.iter().zip(&self.days) {
            days.insert((*name).into(), json!(hours));
        }
        json!({ "days": days, "timezone": zone_text(self.zone) })
    }

    /// The normalised object with the zone's name as `timezone_name` when it was given by
    /// name: as adcab keeps and answers it.
    pub fn to_json_named(&self) -> Value {
        let mut value = self.to_json();
        if let Some(name) = self.zone_name() {
            value["timezone_name"] = name.into();
        }
        value
    }

    /// The same schedule given in the zone named `name` (as stored beside it; an unknown
    /// name, which only a damaged row holds, is left out), for an offset only.
    pub fn named_as(self, name: Option<&str>) -> Schedule {
        let named = match (self.zone, name.and_then(Written::parse)) {
            (Zone::Offset(_), Some(Written::Named(zone))) => Some(zone),
            _ => None,
        };
        Schedule { named, ..self }
    }

    /// The zone's name as the tz database spells it, when the schedule was given by name.
    pub fn zone_name(&self) -> Option<&'static str> {
        self.named.map(|zone| zone.name())
    }

    /// Whether the offset it holds is one its zone takes in the year around `at` (summer or
    /// winter time); not so when the schedule was changed on the platform itself to another
    /// offset, which then no longer follows the zone. True for a schedule given by no name.
    pub fn holds_its_zones_offset(&self, at: DateTime<Utc>) -> bool {
        match (self.named, self.zone) {
            (Some(zone), Zone::Offset(held)) => takes_this_year(zone, held, at),
            _ => true,
        }
    }

    /// The schedule moved to its zone's offset at `at` (summer or winter time), when it was
    /// given by name and that offset differs from the one it holds.
    pub fn shifted_at(&self, at: DateTime<Utc>) -> Option<Schedule> {
        let (Some(zone), Zone::Offset(held)) = (self.named, self.zone) else {
            return None;
        };
        let minutes = offset_at(zone, at);
        (minutes != held).then(|| Schedule {
            zone: Zone::Offset(minutes),
            ..self.clone()
        })
    }
}

/// A client's `timezone_name` sent back beside an offset (the campaign object as read): kept
/// when the offset is one the zone takes this year (its summer or winter time), dropped when
/// it is not (the client changed the offset, so the name no longer applies).
fn echoed_name(sent: &Value, zone: Zone, now: DateTime<Utc>) -> Result<Option<Tz>, String> {
    let named = match sent.as_str().and_then(Written::parse) {
        Some(Written::Named(name)) => name,
        Some(Written::Offset(_)) | None => {
            return Err(format!(
                "timezone_name is an IANA zone name such as Europe/Berlin; got {sent}."
            ))
        }
    };
    let Zone::Offset(held) = zone else {
        return Ok(None);
    };
    Ok(takes_this_year(named, held, now).then_some(named))
}

/// Whether `zone` is at `held` minutes east of UTC some time within a year of `now` (its
/// summer or its winter time), looked at every 15 days, which catches an offset held for a
/// month (Morocco's during Ramadan).
fn takes_this_year(zone: Tz, held: i32, now: DateTime<Utc>) -> bool {
    (-24..=24).any(|step| offset_at(zone, now + Duration::days(15 * step)) == held)
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
        "Use an IANA zone name such as Europe/Berlin (sent as its UTC offset, moved when its clocks change), a UTC offset the platform takes ({offsets}), or viewer (each viewer's own time, users ads only)."
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

    #[test]
    fn a_name_is_kept_beside_its_offset_moves_with_its_clocks_and_is_read_back_as_answered() {
        use chrono::TimeZone;
        let winter = Utc.with_ymd_and_hms(2027, 1, 15, 12, 0, 0).unwrap();
        let summer = Utc.with_ymd_and_hms(2027, 3, 29, 12, 0, 0).unwrap();
        let zones = Some(&[60, 120, 180][..]);
        let read = |v: Value, at| Schedule::read(&v, "schedule", None, zones, at);
        let berlin = read(
            json!({ "days": { "mon": [9] }, "timezone": "europe/berlin" }),
            winter,
        )
        .unwrap();
        assert_eq!(
            (berlin.zone, berlin.zone_name()),
            (Zone::Offset(60), Some("Europe/Berlin"))
        );
        assert_eq!(berlin.to_json()["timezone"], "+01:00");
        assert_eq!(
            berlin.to_json().get("timezone_name"),
            None,
            "the platform's shape"
        );
        let answered = berlin.to_json_named();
        assert_eq!(answered["timezone_name"], "Europe/Berlin");
        assert_eq!(berlin.shifted_at(winter), None, "winter time is held");
        assert!(berlin.holds_its_zones_offset(summer));
        let moved = berlin.shifted_at(summer).unwrap();
        assert_eq!(
            (moved.zone, moved.zone_name()),
            (Zone::Offset(120), Some("Europe/Berlin"))
        );
        assert_eq!(moved.days, berlin.days);
        // Sent back as read, in winter or in summer, the name is kept.
        assert_eq!(read(answered.clone(), winter).unwrap(), berlin);
        assert_eq!(read(moved.to_json_named(), winter).unwrap(), moved);
        // With another offset than the zone ever takes, the offset wins and the name goes.
        let mut other = answered.clone();
        other["timezone"] = "+03:00".into();
        assert_eq!(read(other, winter).unwrap().named, None);
        let mut odd = answered;
        odd["timezone_name"] = "Europe/Atlantis".into();
        assert_eq!(
            read(odd, winter).unwrap_err().param,
            "schedule.timezone_name"
        );
        let fixed = read(
            json!({ "days": { "mon": [9] }, "timezone": "+03:00" }),
            winter,
        )
        .unwrap();
        assert_eq!(
            (fixed.named, fixed.shifted_at(summer)),
            (None, None),
            "an offset stays"
        );
        assert_eq!(
            fixed.clone().named_as(Some("Europe/Berlin")).zone_name(),
            Some("Europe/Berlin")
        );
        assert_eq!(fixed.clone().named_as(Some("nowhere")).named, None);
        assert!(
            !fixed
                .named_as(Some("Europe/Berlin"))
                .holds_its_zones_offset(winter),
            "+03:00 is never Berlin's"
        );
    }
}
