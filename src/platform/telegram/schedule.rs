//! Owns the schedule's translation: adcab's days of hours and UTC offset to and from the
//! platform's seven 24-bit week masks, Monday first, with its 40 time zones.

use serde_json::{json, Map, Value};

use super::errors::Unsendable;
use crate::domain::schedule::{Schedule, Zone, DAYS};

/// adcab's schedule (days of hours, an offset) as the platform's week masks. `None` when the
/// offset is not one of the platform's 40 time zones.
pub fn schedule_to(value: &Value) -> Result<Value, Unsendable> {
    let schedule = Schedule::parse(value, "schedule", None).map_err(|e| Unsendable {
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
        Zone::Offset(minutes) => {
            if !PLATFORM_OFFSETS.contains(&minutes) {
                return Err(Unsendable {
                    param: "schedule",
                    reason: "The platform does not offer this time zone; use a whole-hour offset or one of its half and quarter hours.".into(),
                });
            }
            json!({ "week_hours_mask": masks, "timezone": minutes * 60 })
        }
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

/// The platform's time zones, in minutes east of UTC.
const PLATFORM_OFFSETS: [i32; 40] = [
    -720, -660, -600, -570, -540, -480, -420, -360, -300, -240, -210, -180, -150, -120, -60, 0, 60,
    120, 180, 210, 240, 270, 300, 330, 345, 360, 390, 420, 480, 525, 540, 570, 600, 630, 660, 720,
    765, 780, 825, 840,
];

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
        assert_eq!(
            schedule_from(&json!({"week_hours_mask": [0, 0, 0, 0, 0, 0, 0], "timezone": 0})),
            None
        );
    }
}
