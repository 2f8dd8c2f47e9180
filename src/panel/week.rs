//! Owns the schedule as people see it: a week grid of hours (days down, hours across), shown
//! read-only on a campaign's page and as boxes to tick in its forms, with the time zone
//! chosen by name (`Europe/Berlin`, shown with its offset now), sent by name so the schedule
//! follows the zone's clocks, and shown back by name.

use chrono::Utc;
use chrono_tz::TZ_VARIANTS;
use maud::{html, Markup};
use serde_json::{json, Map, Value};

use super::{Form, Visit};
use crate::domain::schedule::{Schedule, Zone, DAYS};
use crate::domain::zone::offset_at;
pub use crate::domain::zone::offset_text;
use crate::domain::{ParseError, Why};

/// The grid's form field for a day's hours: `schedule.days.mon`, as the API names it.
fn day_field(day: &str) -> String {
    format!("schedule.days.{day}")
}

/// The form field for the time zone: a zone name, an offset (`+03:00`) or `viewer`.
pub const ZONE_FIELD: &str = "schedule.timezone";

fn zone_label(visit: &Visit, schedule: &Schedule) -> String {
    match (schedule.zone, schedule.zone_name()) {
        (Zone::Viewer, _) => visit.t("week-zone-viewer"),
        (Zone::Offset(m), Some(name)) => format!("{name} (UTC{})", offset_text(m)),
        (Zone::Offset(m), None) => format!("UTC{}", offset_text(m)),
    }
}

/// A stored schedule as a read-only grid; `None` runs around the clock.
pub fn view(visit: &Visit, schedule: Option<&Schedule>) -> Markup {
    let Some(schedule) = schedule else {
        return html! { p.muted { (visit.t("week-always")) } };
    };
    html! {
        div.week {
            table.week-grid aria-label=(visit.t("week-grid")) {
                (hours_head())
                tbody {
                    @for (i, day) in DAYS.iter().enumerate() {
                        tr {
                            th scope="row" { (visit.t(&format!("week-day-{day}"))) }
                            @for hour in 0..24u8 {
                                @let on = schedule.days[i].contains(&hour);
                                td class=[on.then_some("on")] title=(format!("{hour:02}:00")) {
                                    @if on { span.sr { (visit.t("week-on")) } }
                                }
                            }
                        }
                    }
                }
            }
            p.muted { (visit.t("week-zone")) ": " (zone_label(visit, schedule)) }
        }
    }
}

fn hours_head() -> Markup {
    html! {
        thead {
            tr {
                th {}
                @for hour in 0..24u8 { th scope="col" { (hour) } }
            }
        }
    }
}

/// The grid as boxes to tick, filled from `schedule` (or the refused form `sent`, which wins),
/// with the time zone field. No box ticked sends no schedule: the ad runs around the clock.
pub fn input(visit: &Visit, schedule: Option<&Schedule>, sent: Option<&Form>) -> Markup {
    let ticked = |day: usize, hour: u8| match sent {
        Some(form) => form
            .all(&day_field(DAYS[day]))
            .any(|h| h == hour.to_string()),
        None => schedule.is_some_and(|s| s.days[day].contains(&hour)),
    };
    let zone = match sent {
        Some(form) => form.get(ZONE_FIELD).unwrap_or("").to_string(),
        None => schedule.map_or_else(String::new, |s| match (s.zone, s.zone_name()) {
            (Zone::Viewer, _) => "viewer".into(),
            (Zone::Offset(_), Some(name)) => name.into(),
            (Zone::Offset(m), None) => offset_text(m),
        }),
    };
    html! {
        fieldset.week {
            legend { (visit.t("week-legend")) }
            p.muted { (visit.t("week-help")) }
            div.week-scroll {
                table.week-grid.pick {
                    (hours_head())
                    tbody {
                        @for (i, day) in DAYS.iter().enumerate() {
                            tr {
                                th scope="row" { (visit.t(&format!("week-day-{day}"))) }
                                @for hour in 0..24u8 {
                                    td {
                                        input type="checkbox" name=(day_field(day)) value=(hour)
                                            checked[ticked(i, hour)]
                                            aria-label=(format!("{} {hour:02}:00", visit.t(&format!("week-day-{day}"))));
                                    }
                                }
                            }
                        }
                    }
                }
            }
            label {
                (visit.t("week-zone")) " "
                input type="text" name=(ZONE_FIELD) value=(zone) list="adcab-zones"
                    placeholder="Europe/Berlin" autocomplete="off";
            }
            datalist id="adcab-zones" {
                option value="viewer" { (visit.t("week-zone-viewer")) }
                @for zone in TZ_VARIANTS.iter() {
                    option value=(zone.name()) { (zone.name()) " (UTC" (offset_text(offset_at(*zone, Utc::now()))) ")" }
                }
            }
        }
    }
}

/// The schedule the grid sent, as the API's object: `None` when no box is ticked (around the
/// clock). The zone may be a name (sent as written: the API's parse turns it into its offset
/// now and keeps it, so the schedule follows the zone), an offset or `viewer`; the API's own
/// checks (offsets the platform takes, `viewer` only for `users`) follow.
pub fn from_form(form: &Form) -> Result<Option<Value>, ParseError> {
    let mut days = Map::new();
    let mut any = false;
    for day in DAYS {
        let field = day_field(day);
        let mut hours = Vec::new();
        for h in form.all(&field).take(24) {
            let hour: u8 = h.parse().ok().filter(|h| *h < 24).ok_or_else(|| {
                ParseError::new(&field, "hours run from 0 to 23.").because(Why::Hours)
            })?;
            hours.push(hour);
        }
        any |= !hours.is_empty();
        days.insert(day.into(), json!(hours));
    }
    if !any {
        return Ok(None);
    }
    let zone = form.text(ZONE_FIELD).unwrap_or("+00:00");
    Ok(Some(json!({ "days": days, "timezone": zone.trim() })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::query::Query;

    #[test]
    fn ticked_boxes_become_the_apis_schedule_with_the_zone_by_name() {
        let form = Query::parse(
            "schedule.days.mon=9&schedule.days.mon=10&schedule.days.sun=23&schedule.timezone=Asia%2FKolkata",
        )
        .unwrap();
        let value = from_form(&form).unwrap().unwrap();
        assert_eq!(value["days"]["mon"], json!([9, 10]));
        assert_eq!(value["days"]["sun"], json!([23]));
        assert_eq!(value["days"]["tue"], json!([]));
        assert_eq!(
            value["timezone"], "Asia/Kolkata",
            "the name, for the schedule to follow"
        );
        let read = Schedule::stored(&value).unwrap();
        assert_eq!(
            (read.zone, read.zone_name()),
            (Zone::Offset(330), Some("Asia/Kolkata"))
        );
    }

    #[test]
    fn no_box_ticked_is_no_schedule_and_a_bad_hour_names_its_day() {
        let empty = Query::parse("schedule.timezone=Europe%2FBerlin").unwrap();
        assert_eq!(from_form(&empty).unwrap(), None);
        let bad = Query::parse("schedule.days.wed=24").unwrap();
        assert_eq!(from_form(&bad).unwrap_err().param, "schedule.days.wed");
    }
}
