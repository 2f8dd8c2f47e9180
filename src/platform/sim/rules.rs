//! Owns the platform's rules as the simulator enforces them: what it can do (Telegram Ads'
//! capabilities with the spec's generic limits in place of the platform's own: every media
//! type the spec lists up to 10 MB, on every target type, and 100 search keywords), content
//! lengths, the minimum bids of its capabilities, username and keyword resolution, what
//! switching on or off does, and which edit fields send an ad back to review.

use serde_json::{json, Value};

use crate::domain::ad::{AdDraft, AdEdit, AdSnapshot, AdSpec};
use crate::domain::campaign::{Status, TargetType};
use crate::domain::capabilities::Capabilities;
use crate::domain::dates::Dates;
use crate::domain::money::{CabinetType, Money};
use crate::domain::targeting::{keyword_usable, target_username, PeerEntry};
use crate::platform::telegram;
use crate::platform::{PlatformError, Switch};

/// What the simulator can do: Telegram Ads', with the spec's media and keyword limits, and
/// bids changed without a review (the spec: changing only `cpm`, `active` or `schedule` never
/// triggers review).
pub const CAPABILITIES: Capabilities = Capabilities {
    media: telegram::SPEC_MEDIA,
    media_targets: telegram::SPEC_MEDIA_TARGETS,
    keywords: telegram::SPEC_KEYWORDS,
    bid_edit_reviews: false,
    similar_channels: true,
    text_chars: 160,
    ..telegram::CAPABILITIES
};

/// Switching on or off at `now` (Unix seconds), as the platform decides it: a pause clears
/// the ad's dates, a resume takes `dates` (and waits `On Hold` for a start still ahead).
pub(super) fn switch(ad: &mut AdSnapshot, active: bool, dates: Dates, now: i64) -> Switch {
    match (active, ad.status) {
        (false, Status::Active) => {
            ad.active = false;
            ad.dates = Dates::default();
            ad.status = Status::OnHold;
            Switch::Applied
        }
        (false, Status::OnHold) if ad.active => {
            // Switched on and waiting for its start: the pause is what holds it now.
            ad.active = false;
            ad.dates = Dates::default();
            Switch::Applied
        }
        (false, Status::OnHold) | (true, Status::Active) => {
            ad.active = active;
            Switch::AlreadySet
        }
        (true, Status::OnHold) if ad.active => Switch::AlreadySet,
        (true, Status::OnHold) => {
            ad.active = true;
            ad.dates = dates;
            ad.status = approved_status(ad.budget.micros(), true, dates, now);
            match ad.status {
                Status::Active => Switch::Applied,
                _ => Switch::IntentOnly,
            }
        }
        (_, _) => {
            ad.active = active;
            Switch::IntentOnly
        }
    }
}

/// Applies an edit after checking it against the platform's rules.
pub(super) fn apply_edit(
    kind: CabinetType,
    ad: &mut AdSnapshot,
    edit: &AdEdit,
    now: i64,
) -> Result<(), PlatformError> {
    let mut spec = ad.spec.clone();
    if let Some(title) = &edit.title {
        spec.title = title.clone();
    }
    if let Some(text) = &edit.text {
        spec.text = text.clone();
    }
    if let Some(url) = &edit.promote_url {
        spec.promote_url = url.clone();
    }
    if let Some(vpu) = edit.views_per_user {
        spec.views_per_user = vpu;
    }
    if let Some((token, media_type)) = &edit.media {
        spec.media_token = Some(token.clone());
        spec.media_type = Some(media_type.clone());
    }
    if let Some(picture) = edit.picture {
        spec.picture = picture;
    }
    if let Some(button) = &edit.button {
        spec.button = button.clone();
    }
    if let Some(name) = &edit.website_name {
        spec.website_name = name.clone();
    }
    check_content(&spec)?;
    if let Some(cpm) = edit.cpm {
        check_cpm(kind, spec.target_type, cpm)?;
        ad.cpm = cpm;
    }
    if let Some(Some(_)) = &edit.schedule {
        if ad.budget.micros() == 0 && ad.status != Status::OnHold {
            return Err(rejected(
                "The campaign has no budget, so a schedule cannot be set.",
                "schedule",
            ));
        }
    }
    if let Some(schedule) = &edit.schedule {
        ad.schedule = schedule.clone();
    }
    if let Some(daily) = edit.daily_budget {
        ad.daily_budget = daily;
    }
    ad.spec = spec;
    if let Some(dates) = edit.dates {
        ad.dates = dates;
        if matches!(ad.status, Status::Active | Status::OnHold | Status::Stopped) {
            ad.status = approved_status(ad.budget.micros(), ad.active, dates, now);
        }
    }
    if edit.triggers_review() {
        ad.status = Status::InReview;
    }
    Ok(())
}

/// A platform username resolves when it is 5-32 of `a-z`, `0-9`, `_`, starts with a letter,
/// and does not start with `missing`. Accepts `@name`, `name` and short links.
pub fn resolve_username(input: &str) -> Option<String> {
    let name = target_username(input).to_ascii_lowercase();
    let valid = (5..=32).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !name.starts_with("missing");
    valid.then_some(name)
}

/// The channels and bots `targeting` names, titled as the simulator titles them.
pub(super) fn peers_of(targeting: &Value) -> Vec<PeerEntry> {
    ["channels", "bots", "audience_channels", "exclude_channels"]
        .iter()
        .filter_map(|f| targeting.get(f).and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(resolve_username)
        .map(|name| PeerEntry {
            title: Some(title_of(&name)),
            username: format!("@{name}"),
            photo_url: None,
        })
        .collect()
}

/// The title the simulator gives a channel or bot: its username's words, capitalised.
pub(super) fn title_of(name: &str) -> String {
    let words: Vec<String> = name
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|first| first.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        })
        .collect();
    words.join(" ")
}

pub(super) fn rejected(reason: impl Into<String>, param: &'static str) -> PlatformError {
    PlatformError::Rejected {
        reason: reason.into(),
        param: Some(param),
        min_cpm: None,
    }
}

/// The platform's content rules: lengths of title, text, link and website name.
pub(super) fn check_content(spec: &AdSpec) -> Result<(), PlatformError> {
    if spec.title.is_empty() || spec.title.len() > 128 {
        return Err(rejected("Title must be 1-128 bytes.", "title"));
    }
    let text_len = spec.text.chars().count();
    if text_len == 0 || text_len > CAPABILITIES.text_chars {
        return Err(rejected("Text must be 1-160 characters.", "text"));
    }
    if spec.promote_url.chars().count() > 256 {
        return Err(rejected(
            "The link must be at most 256 characters.",
            "promote_url",
        ));
    }
    if spec
        .website_name
        .as_ref()
        .is_some_and(|n| n.chars().count() > 40)
    {
        return Err(rejected(
            "The website name must be at most 40 characters.",
            "website_name",
        ));
    }
    Ok(())
}

/// The bid must reach the minimum of the currency and target type (none where the
/// capabilities name none).
pub(super) fn check_cpm(
    kind: CabinetType,
    target: TargetType,
    cpm: Money,
) -> Result<(), PlatformError> {
    let min = CAPABILITIES.min_cpm(kind, target).unwrap_or(Money::ZERO);
    if cpm < min {
        return Err(PlatformError::Rejected {
            reason: format!(
                "The bid is below the minimum of {} {}.",
                kind.render(min),
                kind.currency()
            ),
            param: Some("cpm"),
            min_cpm: Some(min),
        });
    }
    Ok(())
}

/// Applies the platform's rules to a new ad; returns its spec with targets resolved.
pub(super) fn check_draft(kind: CabinetType, draft: &AdDraft) -> Result<AdSpec, PlatformError> {
    let spec = &draft.spec;
    check_content(spec)?;
    check_cpm(kind, spec.target_type, draft.cpm)?;
    let mut resolved = spec.clone();
    let allowed = CAPABILITIES.placements(spec.target_type);
    let placement = match spec.placement.as_deref() {
        None => allowed.first(),
        Some(p) => allowed.iter().find(|a| **a == p),
    }
    .ok_or_else(|| {
        rejected(
            format!(
                "Ads for {} cannot take this placement.",
                spec.target_type.as_str()
            ),
            "placement",
        )
    })?;
    resolved.placement = Some((*placement).to_string());
    let list = |field: &str| -> Vec<String> {
        spec.targeting[field]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    match spec.target_type {
        TargetType::Channels | TargetType::Bots => {
            let field = spec.target_type.as_str();
            let asked = list(field);
            let found: Vec<String> = asked.iter().filter_map(|n| resolve_username(n)).collect();
            if found.is_empty() {
                return Err(rejected(
                    format!("No targets found: {}", asked.join(", ")),
                    field,
                ));
            }
            resolved.targeting[field] = json!(found);
        }
        TargetType::Search => {
            let found: Vec<String> = list("search_keywords")
                .into_iter()
                .filter(|k| keyword_usable(k))
                .collect();
            if found.is_empty() {
                return Err(rejected("No valid search queries found", "search_keywords"));
            }
            resolved.targeting["search_keywords"] = json!(found);
        }
        TargetType::Users => {
            if let Some(asked) = spec.targeting["cities"].as_array() {
                let country = spec.targeting["countries"][0].as_str().unwrap_or_default();
                let mut ids = Vec::new();
                for city in asked {
                    let id = super::cities::find(country, city).ok_or_else(|| {
                        rejected(
                            format!(
                                "{city} is not a city of {country}; look it up with GET /v1/targeting/cities?country={country}."
                            ),
                            "cities",
                        )
                    })?;
                    ids.push(id);
                }
                resolved.targeting["cities"] = json!(ids);
            }
        }
    }
    Ok(resolved)
}

/// Where an approved ad goes at `now` (Unix seconds), in the platform's order (§13): `Stopped`
/// once its end date passed, `On Hold` when switched off or before its start date, `Stopped`
/// without budget, else it runs.
pub(super) fn approved_status(budget_micros: i64, active: bool, dates: Dates, now: i64) -> Status {
    if dates.ends_at.is_some_and(|end| end <= now) {
        Status::Stopped
    } else if !active || dates.starts_at.is_some_and(|start| start > now) {
        Status::OnHold
    } else if budget_micros == 0 {
        Status::Stopped
    } else {
        Status::Active
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn usernames_resolve_by_the_platform_rules() {
        assert_eq!(
            resolve_username("@Crypto_News").as_deref(),
            Some("crypto_news")
        );
        assert_eq!(
            resolve_username("https://t.me/dailyfeed").as_deref(),
            Some("dailyfeed")
        );
        assert_eq!(resolve_username("abcd"), None, "too short");
        assert_eq!(resolve_username("1abcde"), None, "starts with a digit");
        assert_eq!(resolve_username("missing_channel"), None);
        assert_eq!(resolve_username(&"a".repeat(33)), None);
        assert_eq!(resolve_username("bad-name"), None);
    }

    fn draft(target_type: TargetType, targeting: Value, cpm_micros: i64) -> AdDraft {
        let spec = AdSpec::plain(
            "Title",
            "Text",
            "https://example.com",
            target_type,
            targeting,
        );
        AdDraft::running(spec, Money::from_micros(cpm_micros), Money::ZERO)
    }

    fn refusal(
        result: Result<AdSpec, PlatformError>,
    ) -> (String, Option<&'static str>, Option<Money>) {
        match result {
            Err(PlatformError::Rejected {
                reason,
                param,
                min_cpm,
            }) => (reason, param, min_cpm),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn content_rules_refuse_with_the_field_named() {
        let users = || draft(TargetType::Users, json!({ "countries": ["DE"] }), 1_000_000);
        let mut d = users();
        d.spec.title = "t".repeat(129);
        assert_eq!(refusal(check_draft(CabinetType::Euro, &d)).1, Some("title"));
        let mut d = users();
        d.spec.text = "é".repeat(161);
        assert_eq!(refusal(check_draft(CabinetType::Euro, &d)).1, Some("text"));
        d.spec.text = "é".repeat(160);
        assert!(
            check_draft(CabinetType::Euro, &d).is_ok(),
            "160 characters, not bytes"
        );
        let mut d = users();
        d.spec.promote_url = format!("https://example.com/{}", "a".repeat(240));
        assert_eq!(
            refusal(check_draft(CabinetType::Euro, &d)).1,
            Some("promote_url")
        );
        let mut d = users();
        d.spec.website_name = Some("w".repeat(41));
        assert_eq!(
            refusal(check_draft(CabinetType::Euro, &d)).1,
            Some("website_name")
        );
    }

    #[test]
    fn a_low_bid_is_refused_with_the_minimum() {
        let d = draft(
            TargetType::Channels,
            json!({ "channels": ["@tech_daily"] }),
            990_000,
        );
        let (reason, param, min) = refusal(check_draft(CabinetType::Euro, &d));
        assert_eq!(param, Some("cpm"));
        assert_eq!(min, Some(Money::from_micros(1_000_000)));
        assert!(reason.contains("1.00 EUR"), "{reason}");
        let users = draft(TargetType::Users, json!({ "countries": ["DE"] }), 700_000);
        assert!(check_draft(CabinetType::Euro, &users).is_ok());
    }

    #[test]
    fn targets_resolve_or_the_ad_fails_with_the_spec_texts() {
        let d = draft(
            TargetType::Bots,
            json!({ "bots": ["@missing_bot", "x"] }),
            1_000_000,
        );
        let (reason, param, _) = refusal(check_draft(CabinetType::Euro, &d));
        assert!(reason.starts_with("No targets found:"), "{reason}");
        assert_eq!(param, Some("bots"));
        let d = draft(
            TargetType::Search,
            json!({ "search_keywords": ["  ", "?!"] }),
            1_000_000,
        );
        assert!(refusal(check_draft(CabinetType::Euro, &d))
            .0
            .starts_with("No valid search queries found"));
        let d = draft(
            TargetType::Search,
            json!({ "search_keywords": ["shoes", "..."] }),
            1_000_000,
        );
        assert_eq!(
            check_draft(CabinetType::Euro, &d).unwrap().targeting["search_keywords"],
            json!(["shoes"])
        );
    }

    #[test]
    fn minimum_bids_follow_currency_and_target() {
        for (kind, target, targeting, min) in [
            (
                CabinetType::Euro,
                TargetType::Channels,
                json!({ "channels": ["@tech_daily"] }),
                1_000_000,
            ),
            (
                CabinetType::Euro,
                TargetType::Users,
                json!({ "countries": ["DE"] }),
                700_000,
            ),
            (
                CabinetType::Ton,
                TargetType::Bots,
                json!({ "bots": ["@shop_bot"] }),
                100_000,
            ),
            (
                CabinetType::Stars,
                TargetType::Search,
                json!({ "search_keywords": ["shoes"] }),
                1_000_000,
            ),
        ] {
            let low = draft(target, targeting.clone(), min - 1);
            assert_eq!(
                refusal(check_draft(kind, &low)).2,
                Some(Money::from_micros(min)),
                "{} {}",
                kind.as_str(),
                target.as_str()
            );
            assert!(check_draft(kind, &draft(target, targeting, min)).is_ok());
        }
    }
}
