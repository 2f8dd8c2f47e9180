//! Owns the translation between the Telegram Ads API's shapes and adcab's: status values,
//! money (JSON numbers read from their text, sent at the currency's precision), targeting
//! (the API's input and output target shapes), field names (`impression_frequency`,
//! `show_userpic`, `daily_budget_limit`, `activate_date`, ...), currencies and placements (the
//! one asked for, else the platform's for the target type), a declined ad's `decline_reason`. The schedule's week masks are
//! in `schedule`.

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::{json, Map, Value};

use super::capabilities::CAPABILITIES;
use super::errors::Unsendable;
use super::html::plain_text;
use super::schedule::{schedule_from, schedule_to};
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

/// `@username` of a catalogue channel or bot, or its numeric id as text when it has none.
fn peer_names(list: Option<&Value>, id_field: &str) -> Vec<String> {
    list.and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|p| match p.get("username").and_then(Value::as_str) {
                    Some(u) if !u.is_empty() => Some(format!("@{}", u.trim_start_matches('@'))),
                    _ => p.get(id_field).map(|id| id.to_string()),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn codes(list: Option<&Value>, field: &str) -> Vec<Value> {
    list.and_then(Value::as_array)
        .map(|items| items.iter().filter_map(|i| i.get(field).cloned()).collect())
        .unwrap_or_default()
}

/// A targeting field read from a list of catalogue objects: adcab's name, the platform's, and
/// the id field of its objects.
type CatalogueField = (&'static str, &'static str, &'static str);

/// The platform's output target (catalogue objects with names) as adcab's targeting fields.
fn targeting_from(t: TargetType, target: &Value) -> Value {
    let channels = json!(peer_names(target.get("channels"), "channel_id"));
    let audience = [
        ("languages", "languages", "language_code"),
        ("topics", "topics", "topic_id"),
        ("exclude_topics", "exclude_topics", "topic_id"),
    ];
    let (peers, fields): (Option<(&str, Value)>, Vec<CatalogueField>) = match t {
        TargetType::Channels => (Some(("channels", channels)), audience.to_vec()),
        TargetType::Users => {
            let mut fields = vec![("countries", "countries", "country_code")];
            fields.extend(audience);
            (Some(("audience_channels", channels)), fields)
        }
        TargetType::Bots => (
            Some(("bots", json!(peer_names(target.get("bots"), "bot_id")))),
            Vec::new(),
        ),
        TargetType::Search => (
            Some((
                "search_keywords",
                target.get("search_queries").cloned().unwrap_or(json!([])),
            )),
            Vec::new(),
        ),
    };
    let mut out = Map::new();
    let listed = fields
        .into_iter()
        .map(|(ours, theirs, id)| (ours, json!(codes(target.get(theirs), id))))
        .chain(peers);
    for (name, v) in listed {
        if v.as_array().is_some_and(|a| !a.is_empty()) {
            out.insert(name.into(), v);
        }
    }
    Value::Object(out)
}

/// adcab's targeting as the platform's input target, with channels and bots already narrowed
/// to the ones that resolved. The platform targets channels by a list, or by languages and
/// topics, never both, so a channels ad with a list sends only the list and its exclusions.
pub fn input_target(
    t: TargetType,
    targeting: &Value,
    peers: &[String],
) -> Result<Value, Unsendable> {
    let list = |name: &str| targeting.get(name).cloned().unwrap_or_else(|| json!([]));
    let mut target = Map::new();
    target.insert("type".into(), json!(t.as_str()));
    match t {
        TargetType::Channels => {
            let has_audience = [list("languages"), list("topics")]
                .iter()
                .any(|l| l.as_array().is_some_and(|a| !a.is_empty()));
            if has_audience {
                return Err(Unsendable {
                    param: "languages",
                    reason: "The platform targets channels either by a list of channels or by languages and topics, not both; drop languages and topics, or use target_type users.".into(),
                });
            }
            target.insert("channel_ids".into(), json!(peers));
            insert_nonempty(&mut target, "exclude_topic_ids", list("exclude_topics"));
        }
        TargetType::Bots => {
            target.insert("bot_ids".into(), json!(peers));
        }
        TargetType::Search => {
            target.insert("search_queries".into(), list("search_keywords"));
        }
        TargetType::Users => {
            target.insert("country_codes".into(), list("countries"));
            insert_nonempty(&mut target, "language_codes", list("languages"));
            insert_nonempty(&mut target, "topic_ids", list("topics"));
            insert_nonempty(&mut target, "exclude_topic_ids", list("exclude_topics"));
            if !peers.is_empty() {
                target.insert("channel_ids".into(), json!(peers));
            }
        }
    }
    Ok(Value::Object(target))
}

fn insert_nonempty(map: &mut Map<String, Value>, name: &str, v: Value) {
    if v.as_array().is_some_and(|a| !a.is_empty()) {
        map.insert(name.into(), v);
    }
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
    peers: &[String],
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
        input_target(spec.target_type, &spec.targeting, peers)?,
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

    #[test]
    fn targets_are_sent_in_the_platform_shapes() {
        let users = json!({"countries": ["DE"], "languages": ["de"], "audience_channels": ["@a"]});
        let t = input_target(TargetType::Users, &users, &["@abcde".into()]).unwrap();
        assert_eq!(
            t,
            json!({"type": "users", "country_codes": ["DE"], "language_codes": ["de"], "channel_ids": ["@abcde"]})
        );
        let search = json!({"search_keywords": ["shoes"]});
        let t = input_target(TargetType::Search, &search, &[]).unwrap();
        assert_eq!(t, json!({"type": "search", "search_queries": ["shoes"]}));
        let mixed = json!({"channels": ["@abcde"], "languages": ["en"]});
        let err = input_target(TargetType::Channels, &mixed, &["@abcde".into()]).unwrap_err();
        assert_eq!(err.param, "languages");
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
        let p = create_params(CabinetType::Euro, &draft, &["@abcde".into()], None).unwrap();
        assert_eq!(p["activate_date"], 1_800_000_000);
        assert_eq!(
            p["placement"], "channel_post",
            "the target type's own when none is asked"
        );
        draft.active = false;
        draft.spec.placement = Some("video_banner".into());
        let p = create_params(CabinetType::Euro, &draft, &["@abcde".into()], None).unwrap();
        assert!(p.get("activate_date").is_none() && p["is_paused"] == true);
        assert_eq!(p["placement"], "video_banner");
    }
}
