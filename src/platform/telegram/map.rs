//! Owns the translation between the Telegram Ads API's shapes and adcab's: status values,
//! money (JSON numbers read from their text, sent at the currency's precision), field names (`impression_frequency`,
//! `show_userpic`, `daily_budget_limit`, `activate_date`, ...), currencies and placements (the
//! one asked for, else the platform's for the target type), a declined ad's `decline_reason`. The schedule's week masks are
//! in `schedule`, the target shapes in `target`.

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::{json, Map, Value};

use super::capabilities::CAPABILITIES;
use super::errors::Unsendable;
use super::html::plain_text;
use super::schedule::{schedule_from, schedule_to};
pub use super::target::Resolved;
use super::target::{input_target, peers_of, targeting_from};
use crate::domain::ad::{AdCounters, AdDraft, AdEdit, AdSnapshot, AdSpec, DeclineReason};
use crate::domain::campaign::{Status, TargetType};
use crate::domain::dates::Dates;
use crate::domain::money::{CabinetType, Money, MONEY_SCALE};

/// The platform's status as adcab's. `ready_for_review` (created or edited without budget,
/// not submitted) reads as `Stopped`: it has no budget and nothing is shown; the connector
/// submits it as soon as it gives it budget.
pub fn status(text: &str) -> Option<Status> {
    match text {
        "active" => Some(Status::Active),
        "in_review" => Some(Status::InReview),
        "declined" => Some(Status::Declined),
        "on_hold" => Some(Status::OnHold),
        "stopped" | "ready_for_review" => Some(Status::Stopped),
        _ => None,
    }
}

/// A money value as the platform sends it: a JSON number (read from its text, never as a
/// float) or a numeric string; negative amounts are read as their size.
pub fn money(value: &Value) -> Option<Money> {
    let text = match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        _ => return None,
    };
    let d = text
        .parse::<Decimal>()
        .or_else(|_| Decimal::from_scientific(&text))
        .ok()?
        .abs()
        .round_dp_with_strategy(MONEY_SCALE, RoundingStrategy::MidpointAwayFromZero);
    let micros = (d * Decimal::from(1_000_000)).to_i64()?;
    Some(Money::from_micros(micros))
}

/// A money value as a JSON number with at most `scale` decimals (half-up, as the platform
/// rounds).
pub fn number(m: Money, scale: u32) -> Value {
    let d = m
        .to_decimal()
        .round_dp_with_strategy(scale, RoundingStrategy::MidpointAwayFromZero)
        .normalize();
    serde_json::from_str(&d.to_string()).expect("a decimal is a JSON number")
}

/// Why a declined `Ad` was declined: `decline_reason.text` and its `description_html` read as
/// plain text (a bare string is read as the text). `None` for an ad that is not declined, or
/// a decline the platform gave no reason for.
pub fn decline_reason(ad: &Value, status: Status) -> Option<DeclineReason> {
    if status != Status::Declined {
        return None;
    }
    let reason = ad.get("decline_reason")?;
    let text = reason
        .as_str()
        .or_else(|| reason.get("text").and_then(Value::as_str))
        .unwrap_or("");
    let description = reason
        .get("description_html")
        .and_then(Value::as_str)
        .map(plain_text);
    DeclineReason::new(&plain_text(text), description.as_deref())
}

/// An ad's lifetime counters and money, read from an `Ad` object (`joins` is the older name
/// of `actions`; missing counters are zero), with its decline reason.
pub fn counters(ad: &Value, changed_at: &str) -> Option<AdCounters> {
    let count = |name: &str| ad.get(name).and_then(Value::as_i64);
    let status = status(ad.get("status")?.as_str()?)?;
    Some(AdCounters {
        ad_id: ad.get("ad_id")?.as_i64()?,
        status,
        active: !ad
            .get("is_paused")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        budget: money(ad.get("remaining_budget")?)?,
        spent: money(ad.get("spent_budget")?)?,
        views: count("views").unwrap_or(0),
        opens: count("opens").unwrap_or(0),
        clicks: count("clicks").unwrap_or(0),
        actions: count("actions").or_else(|| count("joins")).unwrap_or(0),
        status_changed_at: changed_at.to_string(),
        decline_reason: decline_reason(ad, status),
    })
}

/// An `Ad` object (read with `return_target`) as adcab's snapshot. `media` is the service's
/// token and type for the ad's photo or video, when it was uploaded through adcab.
pub fn snapshot(
    account: i64,
    ad: &Value,
    media: Option<(String, String)>,
    changed_at: &str,
) -> Option<AdSnapshot> {
    let c = counters(ad, changed_at)?;
    let text_of = |name: &str| ad.get(name).and_then(Value::as_str).map(str::to_string);
    let target = ad.get("target").cloned().unwrap_or(Value::Null);
    let target_type = target_type(ad, &target)?;
    let (media_token, media_type) = match media {
        Some((token, media_type)) => (Some(token), Some(media_type)),
        None if ad.get("video").is_some() => (None, Some("video/mp4".to_string())),
        None if ad.get("photo").is_some() => (None, Some("image/jpeg".to_string())),
        None => (None, None),
    };
    Some(AdSnapshot {
        account_id: account,
        ad_id: c.ad_id,
        spec: AdSpec {
            title: text_of("title")?,
            text: text_of("text").unwrap_or_default(),
            promote_url: text_of("promote_url")?,
            target_type,
            targeting: targeting_from(target_type, &target),
            views_per_user: ad
                .get("impression_frequency")
                .and_then(Value::as_i64)
                .unwrap_or(1),
            media_token,
            media_type,
            picture: ad
                .get("show_userpic")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            button: text_of("button").filter(|b| !b.is_empty()),
            website_name: text_of("website_name"),
            placement: text_of("placement"),
        },
        status: c.status,
        active: c.active,
        cpm: money(ad.get("cpm")?)?,
        budget: c.budget,
        spent: c.spent,
        daily_budget: ad
            .get("daily_budget_limit")
            .and_then(money)
            .filter(|m| m.micros() > 0),
        schedule: ad.get("schedule").and_then(schedule_from),
        dates: Dates {
            starts_at: ad.get("activate_date").and_then(Value::as_i64),
            ends_at: ad.get("deactivate_date").and_then(Value::as_i64),
        },
        views: c.views,
        opens: c.opens,
        clicks: c.clicks,
        actions: c.actions,
        created_at: ad.get("created_date").and_then(Value::as_i64).unwrap_or(0),
        status_changed_at: c.status_changed_at,
        invite_link: None,
        decline_reason: c.decline_reason,
        peers: peers_of(&target),
    })
}

/// The photo or video id of an `Ad`, to find the service's token for it.
pub fn media_id(ad: &Value) -> Option<&str> {
    ad.get("photo")
        .and_then(|p| p.get("photo_id"))
        .or_else(|| ad.get("video").and_then(|v| v.get("video_id")))
        .and_then(Value::as_str)
}

fn target_type(ad: &Value, target: &Value) -> Option<TargetType> {
    if let Some(t) = target.get("type").and_then(Value::as_str) {
        return TargetType::parse(t);
    }
    Some(
        ad.get("placement")
            .and_then(Value::as_str)
            .and_then(|p| CAPABILITIES.target_of_placement(p))
            .unwrap_or(TargetType::Channels),
    )
}

/// The `https://t.me/...` link the platform takes for `@name`; other links are sent as given.
pub fn promote_url(url: &str) -> String {
    match url.trim().strip_prefix('@') {
        Some(name) => format!("https://t.me/{name}"),
        None => url.trim().to_string(),
    }
}

/// `createAd` parameters for a draft (targets already resolved into `peers`; `media` is the
/// platform's photo or video id).
pub fn create_params(
    kind: CabinetType,
    draft: &AdDraft,
    resolved: &Resolved,
    media: Option<(&str, &str)>,
) -> Result<Map<String, Value>, Unsendable> {
    let spec = &draft.spec;
    let scale = kind.scale();
    let mut p = Map::new();
    p.insert("title".into(), json!(spec.title));
    if !spec.text.is_empty() || spec.target_type != TargetType::Search {
        p.insert("text".into(), json!(spec.text));
    }
    p.insert("promote_url".into(), json!(promote_url(&spec.promote_url)));
    p.insert("cpm".into(), number(draft.cpm, scale));
    p.insert(
        "target".into(),
        input_target(spec.target_type, &spec.targeting, resolved)?,
    );
    let placement = spec
        .placement
        .as_deref()
        .or_else(|| CAPABILITIES.placement(spec.target_type))
        .ok_or_else(|| Unsendable {
            param: "target_type",
            reason: format!("The platform has no {} ads.", spec.target_type.as_str()),
        })?;
    p.insert("placement".into(), json!(placement));
    common_fields(&mut p, spec, media);
    if draft.budget.micros() > 0 {
        p.insert("initial_budget".into(), number(draft.budget, scale));
    }
    if let Some(daily) = draft.daily_budget {
        p.insert("daily_budget_limit".into(), number(daily, scale));
    }
    if draft.active {
        put_dates(&mut p, draft.dates);
    } else {
        // A date would start it: the platform ignores is_paused beside one (§9.2), so a
        // campaign made switched off keeps its dates in adcab until it is resumed.
        p.insert("is_paused".into(), json!(true));
    }
    if let Some(schedule) = &draft.schedule {
        p.insert("schedule".into(), schedule_to(schedule)?);
    }
    Ok(p)
}

fn common_fields(p: &mut Map<String, Value>, spec: &AdSpec, media: Option<(&str, &str)>) {
    if spec.views_per_user != 1 {
        p.insert("impression_frequency".into(), json!(spec.views_per_user));
    }
    if let Some((field, id)) = media {
        p.insert(field.into(), json!(id));
    }
    if spec.picture {
        p.insert("show_userpic".into(), json!(true));
    }
    if let Some(button) = &spec.button {
        p.insert("button".into(), json!(button));
    }
    if let Some(name) = &spec.website_name {
        p.insert("website_name".into(), json!(name));
    }
}

/// `editAd` parameters for a change (only the fields that change). A removed daily cap is
/// `0`, a removed schedule `false`, a removed button empty (the platform's default button).
pub fn edit_params(
    kind: CabinetType,
    edit: &AdEdit,
    media: Option<(&str, &str)>,
) -> Result<Map<String, Value>, Unsendable> {
    let scale = kind.scale();
    let mut p = Map::new();
    let mut put = |name: &str, v: Value| {
        p.insert(name.into(), v);
    };
    if let Some(title) = &edit.title {
        put("title", json!(title));
    }
    if let Some(text) = &edit.text {
        put("text", json!(text));
    }
    if let Some(url) = &edit.promote_url {
        put("promote_url", json!(promote_url(url)));
    }
    if let Some(cpm) = edit.cpm {
        put("cpm", number(cpm, scale));
    }
    if let Some(daily) = edit.daily_budget {
        put(
            "daily_budget_limit",
            daily.map_or(json!(0), |d| number(d, scale)),
        );
    }
    if let Some(vpu) = edit.views_per_user {
        put("impression_frequency", json!(vpu));
    }
    if let Some(schedule) = &edit.schedule {
        put(
            "schedule",
            match schedule {
                Some(s) => schedule_to(s)?,
                None => json!(false),
            },
        );
    }
    if let Some((field, id)) = media {
        put(field, json!(id));
    }
    if let Some(picture) = edit.picture {
        put("show_userpic", json!(picture));
    }
    if let Some(button) = &edit.button {
        put("button", json!(button.clone().unwrap_or_default()));
    }
    if let Some(Some(name)) = &edit.website_name {
        put("website_name", json!(name));
    }
    if let Some(dates) = edit.dates {
        put_dates(&mut p, dates);
    }
    Ok(p)
}

/// The dates as the platform takes them (`activate_date`, `deactivate_date`, Unix seconds),
/// each one set.
pub fn put_dates(p: &mut Map<String, Value>, dates: Dates) {
    if let Some(start) = dates.starts_at {
        p.insert("activate_date".into(), json!(start));
    }
    if let Some(end) = dates.ends_at {
        p.insert("deactivate_date".into(), json!(end));
    }
}

/// The create parameter of a media type: `photo_id` or `video_id`.
pub fn media_field(media_type: &str) -> &'static str {
    if media_type.starts_with("video/") {
        "video_id"
    } else {
        "photo_id"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_is_read_from_the_number_text_and_sent_at_the_currency_precision() {
        let v: Value = serde_json::from_str("0.00246").unwrap();
        assert_eq!(money(&v), Some(Money::from_micros(2_460)));
        assert_eq!(money(&json!("12.5")), Some(Money::from_micros(12_500_000)));
        let v: Value = serde_json::from_str("100.0").unwrap();
        assert_eq!(money(&v), Some(Money::from_micros(100_000_000)));
        assert_eq!(money(&json!(true)), None);
        let m = Money::from_micros(2_455_000);
        assert_eq!(number(m, 2).to_string(), "2.46", "half up");
        assert_eq!(number(m, 0).to_string(), "2");
        assert_eq!(number(Money::from_micros(5_000_000), 2).to_string(), "5");
    }

    #[test]
    fn statuses_map_and_unsubmitted_ads_read_as_stopped() {
        assert_eq!(status("active"), Some(Status::Active));
        assert_eq!(status("in_review"), Some(Status::InReview));
        assert_eq!(status("declined"), Some(Status::Declined));
        assert_eq!(status("on_hold"), Some(Status::OnHold));
        assert_eq!(status("stopped"), Some(Status::Stopped));
        assert_eq!(status("ready_for_review"), Some(Status::Stopped));
        assert_eq!(status("archived"), None);
    }

    fn peers(names: &[&str]) -> Resolved {
        Resolved {
            peers: names.iter().map(|n| n.to_string()).collect(),
            ..Resolved::default()
        }
    }

    #[test]
    fn an_ad_object_reads_as_a_snapshot() {
        let ad = json!({
            "ad_id": 1001, "title": "T", "text": "Hello", "currency": "EUR",
            "promote_url": "https://t.me/abcde", "cpm": 2.5, "placement": "channel_post",
            "target": {"type": "channels", "channels": [{"channel_id": 77, "title": "A", "username": "abcde"}],
                       "exclude_topics": [{"topic_id": 3, "name": "Crypto"}]},
            "impression_frequency": 2, "show_userpic": true,
            "spent_budget": 0.00246, "remaining_budget": 9.99754,
            "views": 1, "joins": 4, "created_date": 1700000000, "is_paused": true,
            "status": "on_hold",
            "schedule": {"week_hours_mask": [1, 1, 1, 1, 1, 1, 1], "timezone": 0}
        });
        let s = snapshot(5, &ad, None, "2026-01-01T00:00:00Z").unwrap();
        assert_eq!((s.account_id, s.ad_id), (5, 1001));
        assert_eq!(s.status, Status::OnHold);
        assert!(!s.active);
        assert_eq!(s.cpm, Money::from_micros(2_500_000));
        assert_eq!(s.spent, Money::from_micros(2_460));
        assert_eq!(s.budget, Money::from_micros(9_997_540));
        assert_eq!((s.views, s.clicks, s.actions), (1, 0, 4));
        assert_eq!(s.spec.views_per_user, 2);
        assert!(s.spec.picture);
        assert_eq!(s.spec.target_type, TargetType::Channels);
        assert_eq!(
            s.spec.targeting,
            json!({"channels": ["@abcde"], "exclude_topics": [3]})
        );
        assert_eq!(s.schedule.unwrap()["timezone"], "+00:00");
        assert_eq!(s.daily_budget, None);
    }

    #[test]
    fn a_declined_ad_reads_its_reason_as_plain_text_and_only_while_declined() {
        let declined = json!({
            "status": "declined",
            "decline_reason": {"text": "Misleading claims",
                "description_html": "<p>The ad <b>promises</b> income &amp; more.</p>"}
        });
        let r = decline_reason(&declined, Status::Declined).unwrap();
        assert_eq!(
            r.shown(),
            "Misleading claims — The ad promises income & more."
        );
        assert_eq!(decline_reason(&declined, Status::InReview), None);
        let bare = json!({"decline_reason": "Prohibited product"});
        let r = decline_reason(&bare, Status::Declined).unwrap();
        assert_eq!((r.text(), r.description()), ("Prohibited product", None));
        assert_eq!(decline_reason(&json!({}), Status::Declined), None);
    }

    #[test]
    fn edits_send_only_what_changes_with_removals_spelled_the_platform_way() {
        let edit = AdEdit {
            cpm: Some(Money::from_micros(1_234_567)),
            daily_budget: Some(None),
            schedule: Some(None),
            button: Some(None),
            ..AdEdit::default()
        };
        let p = edit_params(CabinetType::Stars, &edit, None).unwrap();
        assert_eq!(
            Value::Object(p),
            json!({"cpm": 1, "daily_budget_limit": 0, "schedule": false, "button": ""})
        );
    }

    #[test]
    fn dates_go_out_as_unix_seconds_and_a_switched_off_draft_keeps_them_back() {
        let dates = Dates {
            starts_at: Some(1_800_000_000),
            ends_at: None,
        };
        let edit = AdEdit {
            dates: Some(dates),
            ..AdEdit::default()
        };
        let p = edit_params(CabinetType::Euro, &edit, None).unwrap();
        assert_eq!(Value::Object(p), json!({"activate_date": 1_800_000_000}));
        let spec = AdSpec::plain(
            "T",
            "Text",
            "https://t.me/abcde",
            TargetType::Channels,
            json!({}),
        );
        let mut draft = AdDraft::running(spec, Money::from_micros(2_000_000), Money::ZERO);
        draft.dates = dates;
        let p = create_params(CabinetType::Euro, &draft, &peers(&["@abcde"]), None).unwrap();
        assert_eq!(p["activate_date"], 1_800_000_000);
        assert_eq!(
            p["placement"], "channel_post",
            "the target type's own when none is asked"
        );
        draft.active = false;
        draft.spec.placement = Some("video_banner".into());
        let p = create_params(CabinetType::Euro, &draft, &peers(&["@abcde"]), None).unwrap();
        assert!(p.get("activate_date").is_none() && p["is_paused"] == true);
        assert_eq!(p["placement"], "video_banner");
    }
}
