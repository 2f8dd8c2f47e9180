//! Owns the schedule's translation: adcab's days of hours and UTC offset to and from the
//! platform's seven 24-bit week masks, Monday first, and its time zone in seconds.

use serde_json::{json, Map, Value};

use super::capabilities::CAPABILITIES;
use super::errors::Unsendable;
use crate::domain::schedule::{Schedule, Zone, DAYS};

/// adcab's schedule (days of hours, an offset) as the platform's week masks; refused when it
/// does not read as a schedule of the platform's (its offset not one of the platform's time
/// zones among them).
pub fn schedule_to(value: &Value) -> Result<Value, Unsendable> {
    let schedule =
        Schedule::parse(value, "schedule", None, &CAPABILITIES).map_err(|e| Unsendable {
            param: "schedule",
            reason: e.message,
        })?;
    let masks: Vec<u32> = schedule
        .days
        .iter()
        .map(|hours| hours.iter().fold(0u32, |m, h| m | (1 << h)))
        .collect();
    Ok(match schedule.zone {
        Zone::Viewer => json!({ "week_hours_mask": masks, "use_viewer_timezone": true }),
        Zone::Offset(minutes) => json!({ "week_hours_mask": masks, "timezone": minutes * 60 }),
    })
}

/// The platform's schedule as adcab's object; all masks zero (any time) reads as no schedule.
pub fn schedule_from(value: &Value) -> Option<Value> {
    let masks = value.get("week_hours_mask")?.as_array()?;
    if masks.len() != 7 || masks.iter().all(|m| m.as_u64() == Some(0)) {
        return None;
    }
    let mut days = Map::new();
    for (name, mask) in DAYS.iter().zip(masks) {
        let mask = mask.as_u64().unwrap_or(0);
        let hours: Vec<u64> = (0..24).filter(|h| mask & (1 << h) != 0).collect();
        days.insert((*name).into(), json!(hours));
    }
    let zone = if value.get("use_viewer_timezone").and_then(Value::as_bool) == Some(true) {
        "viewer".to_string()
    } else {
        let minutes = value.get("timezone").and_then(Value::as_i64).unwrap_or(0) / 60;
        let sign = if minutes < 0 { '-' } else { '+' };
        format!("{sign}{:02}:{:02}", minutes.abs() / 60, minutes.abs() % 60)
    };
    Some(json!({ "days": days, "timezone": zone }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_become_week_masks_and_back() {
        let ours = json!({"days": {"mon": [9, 10, 17], "sun": [0]}, "timezone": "+02:00"});
        let theirs = schedule_to(&ours).unwrap();
        assert_eq!(
            theirs,
            json!({"week_hours_mask": [132608, 0, 0, 0, 0, 0, 1], "timezone": 7200})
        );
        let back = schedule_from(&theirs).unwrap();
        assert_eq!(back["days"]["mon"], json!([9, 10, 17]));
        assert_eq!(back["days"]["sun"], json!([0]));
        assert_eq!(back["days"]["tue"], json!([]));
        assert_eq!(back["timezone"], "+02:00");
        let viewer = json!({"days": {"fri": [23]}, "timezone": "viewer"});
        assert_eq!(
            schedule_to(&viewer).unwrap()["use_viewer_timezone"],
            json!(true)
        );
        let odd = json!({"days": {"fri": [23]}, "timezone": "-02:30"});
        assert_eq!(schedule_to(&odd).unwrap()["timezone"], json!(-9000));
        let unoffered = json!({"days": {"fri": [23]}, "timezone": "+05:15"});
        assert_eq!(schedule_to(&unoffered).unwrap_err().param, "schedule");
        assert_eq!(
            schedule_from(&json!({"week_hours_mask": [0, 0, 0, 0, 0, 0, 0], "timezone": 0})),
            None
        );
    }
}
