//! Owns reading the new-campaign form into the create command's fields (the names are the
//! API's): which targeting fields each target type takes (a field of another type, shown when
//! the page has no script, is left out), lists split on commas and new lines, empty fields
//! left out, the week grid as the schedule, dates in the person's time zone as UTC, and bulk
//! creation: one ad per listed channel and/or one per text variant, as one create of several.

use chrono::{NaiveDateTime, TimeZone};
use serde_json::{json, Map, Value};

use super::super::super::{week, Form};
use crate::domain::campaign::TargetType;
use crate::domain::targeting::fields_of;
use crate::domain::{ParseError, Why};

/// Most campaigns one form creates (the create's own limit).
pub const MAX_BULK: usize = 100;

/// Fields every campaign has, sent as written when not empty.
pub const TEXTS: [&str; 6] = [
    "title",
    "text",
    "promote_url",
    "cpm",
    "budget",
    "target_type",
];

/// Optional fields sent as written when not empty.
const OPTIONAL_TEXTS: [&str; 5] = [
    "daily_budget",
    "website_name",
    "button",
    "placement",
    "media",
];

/// Targeting lists typed as text (commas or new lines between entries).
pub const LISTS: [&str; 6] = [
    "channels",
    "bots",
    "audience_channels",
    "exclude_channels",
    "search_keywords",
    "cities",
];

/// Targeting picked from the platform's lists (repeated form fields).
pub const PICKED: [&str; 4] = ["countries", "languages", "topics", "exclude_topics"];

/// The target types, in the order the form offers them.
pub const TYPES: [TargetType; 4] = [
    TargetType::Channels,
    TargetType::Bots,
    TargetType::Users,
    TargetType::Search,
];

/// The targeting fields `target` takes (the domain's list).
pub fn takes(target: TargetType, field: &str) -> bool {
    fields_of(target).contains(&field)
}

/// The target types that take `field`, as the page's `data-for` (`channels users`).
pub fn types_of(field: &str) -> String {
    TYPES
        .iter()
        .filter(|t| takes(**t, field))
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A list typed as text: entries between commas and new lines, trimmed, empty ones dropped.
pub fn split(text: &str) -> Vec<String> {
    text.split([',', '\n', '\r'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The campaign's fields (one ad) as the create reads them, from the form; `zone` is the
/// person's time zone the dates are read in (UTC without one).
pub fn campaign(
    form: &Form,
    zone: Option<chrono_tz::Tz>,
) -> Result<Map<String, Value>, ParseError> {
    let mut body = Map::new();
    for field in TEXTS {
        if let Some(v) = form.get(field) {
            body.insert(field.into(), json!(v.trim()));
        }
    }
    for field in OPTIONAL_TEXTS {
        if let Some(v) = form.text(field) {
            body.insert(field.into(), json!(v.trim()));
        }
    }
    let target = form.get("target_type").and_then(TargetType::parse);
    let taken = |field: &str| target.is_none_or(|t| takes(t, field));
    for field in LISTS {
        let entries = split(form.get(field).unwrap_or(""));
        if entries.is_empty() || !taken(field) {
            continue;
        }
        let value = if field == "cities" {
            entries
                .iter()
                .map(|c| c.parse::<i64>().map_or_else(|_| json!(c), |id| json!(id)))
                .collect()
        } else {
            json!(entries)
        };
        body.insert(field.into(), value);
    }
    for field in PICKED {
        let picked: Vec<&str> = form.all(field).filter(|v| !v.is_empty()).collect();
        if picked.is_empty() || !taken(field) {
            continue;
        }
        let value = if field.ends_with("topics") {
            picked
                .iter()
                .map(|t| t.parse::<i64>().map_or_else(|_| json!(t), |id| json!(id)))
                .collect()
        } else {
            json!(picked)
        };
        body.insert(field.into(), value);
    }
    for field in ["add_similar_channels", "intersect_topics"] {
        if form.get(field).is_some() && taken(field) {
            body.insert(field.into(), json!(true));
        }
    }
    for field in ["device", "political_channels"] {
        if let Some(v) = form.text(field).filter(|_| taken(field)) {
            body.insert(field.into(), json!(v));
        }
    }
    if form.get("picture").is_some() {
        body.insert("picture".into(), json!(true));
    }
    if form.get("active") == Some("false") {
        body.insert("active".into(), json!(false));
    }
    if let Some(v) = form.text("views_per_user") {
        let value = v.parse::<i64>().map_or_else(|_| json!(v), |n| json!(n));
        body.insert("views_per_user".into(), value);
    }
    for field in ["starts_at", "ends_at"] {
        if let Some(v) = form.text(field) {
            body.insert(field.into(), json!(utc(v, zone)));
        }
    }
    if let Some(schedule) = week::from_form(form)? {
        body.insert("schedule".into(), schedule);
    }
    Ok(body)
}

/// A `datetime-local` value (`2026-12-01T09:30`) read in `zone` as the API's UTC time; any
/// other text is passed on for the create's own refusal.
fn utc(local: &str, zone: Option<chrono_tz::Tz>) -> String {
    let Ok(at) = NaiveDateTime::parse_from_str(local.trim(), "%Y-%m-%dT%H:%M") else {
        return local.trim().to_string();
    };
    let utc = match zone {
        Some(tz) => tz
            .from_local_datetime(&at)
            .earliest()
            .map(|t| t.with_timezone(&chrono::Utc).naive_utc())
            .unwrap_or(at),
        None => at,
    };
    utc.format("%Y-%m-%dT%H:%M:00Z").to_string()
}

/// The create's fields from the form: one campaign, or with the bulk choices (`per_channel`:
/// one ad per listed channel; `variants`: one ad per line of text) `campaigns`, at most
/// [`MAX_BULK`]; the group name goes at the top level. Returns the fields and how many ads.
pub fn create(form: &Form, zone: Option<chrono_tz::Tz>) -> Result<(Value, usize), ParseError> {
    let one = campaign(form, zone)?;
    let variants: Vec<String> = form
        .get("variants")
        .unwrap_or("")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    let per_channel = form.get("per_channel").is_some()
        && one.get("target_type").and_then(Value::as_str) == Some("channels");
    let channels: Vec<Value> = match (per_channel, one.get("channels")) {
        (true, Some(Value::Array(list))) => list.iter().map(|c| json!([c])).collect(),
        _ => vec![],
    };
    let texts: Vec<Value> = variants.iter().map(|t| json!(t)).collect();
    let mut many = Vec::new();
    let channel_choices: Vec<Option<&Value>> = if channels.is_empty() {
        vec![None]
    } else {
        channels.iter().map(Some).collect()
    };
    for channel in &channel_choices {
        let text_choices: Vec<Option<&Value>> = if texts.is_empty() {
            vec![None]
        } else {
            // The main text is the first variant; each line adds one more.
            std::iter::once(None)
                .chain(texts.iter().map(Some))
                .collect()
        };
        for text in text_choices {
            let mut ad = one.clone();
            if let Some(c) = channel {
                ad.insert("channels".into(), (*c).clone());
            }
            if let Some(t) = text {
                ad.insert("text".into(), t.clone());
            }
            many.push(Value::Object(ad));
        }
    }
    if many.len() > MAX_BULK {
        return Err(
            ParseError::new("variants", format!("At most {MAX_BULK} campaigns at once."))
                .because(Why::TooMany { max: MAX_BULK }),
        );
    }
    let group = form.text("new_group_name").map(str::trim);
    let count = many.len();
    if count == 1 && group.is_none() {
        return Ok((many.remove(0), 1));
    }
    let mut top = Map::new();
    if let Some(name) = group {
        top.insert("new_group_name".into(), json!(name));
    }
    if count == 1 {
        if let Value::Object(ad) = many.remove(0) {
            top.extend(ad);
        }
        return Ok((Value::Object(top), 1));
    }
    top.insert("campaigns".into(), Value::Array(many));
    Ok((Value::Object(top), count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::query::Query;

    #[test]
    fn a_field_of_another_target_type_is_left_out_and_lists_are_split() {
        let form = Query::parse(
            "title=T&text=X&target_type=channels&channels=%40one%2C+two%0Athree&bots=%40nobot&countries=DE&languages=en&topics=3",
        )
        .unwrap();
        let body = campaign(&form, None).unwrap();
        assert_eq!(body["channels"], json!(["@one", "two", "three"]));
        assert!(body.get("bots").is_none() && body.get("countries").is_none());
        assert_eq!(body["languages"], json!(["en"]));
        assert_eq!(body["topics"], json!([3]));
    }

    #[test]
    fn a_date_is_read_in_the_persons_zone() {
        let form = Query::parse("starts_at=2026-12-01T10%3A00").unwrap();
        let berlin: chrono_tz::Tz = "Europe/Berlin".parse().unwrap();
        let body = campaign(&form, Some(berlin)).unwrap();
        assert_eq!(body["starts_at"], "2026-12-01T09:00:00Z");
    }

    #[test]
    fn one_ad_per_channel_and_per_text_variant() {
        let form = Query::parse(
            "title=T&text=A&target_type=channels&channels=one_chan%2Ctwo_chan&per_channel=on&variants=B%0A%0AC&new_group_name=G",
        )
        .unwrap();
        let (body, count) = create(&form, None).unwrap();
        assert_eq!(count, 6);
        let ads = body["campaigns"].as_array().unwrap();
        assert_eq!(ads[0]["channels"], json!(["one_chan"]));
        assert_eq!(ads[0]["text"], "A");
        assert_eq!(ads[2]["text"], "C");
        assert_eq!(ads[3]["channels"], json!(["two_chan"]));
        assert_eq!(body["new_group_name"], "G");
    }
}
