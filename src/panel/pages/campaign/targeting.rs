//! Owns a campaign's settings as a person reads them: text, link, bid, switch, the target type
//! and its targeting as names (channels and bots as links to their `t.me` pages, by their
//! titles where kept: "Title (@username)"; countries as
//! flag, code and name, languages and topics by the platform's names, keywords as chips), the
//! schedule as the week grid, the group by name, and when it changed and was synced.

use std::collections::HashMap;

use maud::{html, Markup};
use serde_json::Value;

use super::super::super::{week, Visit};
use crate::domain::campaign::TargetType;
use crate::domain::countries::COUNTRIES;
use crate::domain::money::CabinetType;
use crate::domain::schedule::Schedule;
use crate::store::campaigns::CampaignRow;
use crate::store::groups::Group;
use crate::store::peers;

/// The settings card of the page.
pub(super) fn settings(
    visit: &Visit,
    row: &CampaignRow,
    kind: CabinetType,
    groups: &[Group],
    titles: &HashMap<String, String>,
) -> Markup {
    let f = visit.fmt();
    let schedule = row
        .schedule
        .as_ref()
        .and_then(|s| Schedule::stored(s).ok())
        .map(|s| s.named_as(row.schedule_zone.as_deref()));
    html! {
        dl.fields {
            dt { (visit.t("campaign-text")) } dd { (row.text) }
            dt { (visit.t("campaign-link")) } dd { (row.promote_url) }
            @if let Some(site) = &row.website_name { dt { (visit.t("campaign-website-name")) } dd { (site) } }
            @if let Some(button) = &row.button { dt { (visit.t("campaign-button")) } dd { (button) } }
            dt { (visit.t("campaign-bid")) } dd { (f.money(kind, row.cpm)) @if row.auto_cpm_enabled { " · Auto CPM" } }
            dt { (visit.t("campaign-switched")) } dd { (visit.t(if row.active { "campaign-on" } else { "campaign-off" })) }
            dt { (visit.t("campaign-targets")) } dd { (visit.t(target_key(row.target_type))) }
            (targeting(visit, &row.targeting, titles))
            dt { (visit.t("campaign-views-per-user")) } dd { (row.views_per_user) }
            @if let Some(group) = row.group_id {
                dt { (visit.t("campaign-group")) }
                dd { (groups.iter().find(|g| g.id == group).map_or_else(|| format!("#{group}"), |g| g.name.clone())) }
            }
            @if let Some(media) = &row.media_type { dt { (visit.t("campaign-media")) } dd { (media) } }
            dt { (visit.t("campaign-status-since")) } dd { (f.time(&row.status_changed_at)) }
            dt { (visit.t("campaign-synced")) } dd { (f.time(&row.synced_at)) }
        }
        h3 { (visit.t("campaign-schedule")) }
        div.scroll-x { (week::view(visit, schedule.as_ref())) }
    }
}

/// The catalogue key naming a target type.
fn target_key(t: TargetType) -> &'static str {
    match t {
        TargetType::Channels => "campaign-target-channels",
        TargetType::Bots => "campaign-target-bots",
        TargetType::Search => "campaign-target-search",
        TargetType::Users => "campaign-target-users",
    }
}

/// The targeting's fields the campaign has, each as a `dt`/`dd` pair of names.
fn targeting(visit: &Visit, targeting: &Value, titles: &HashMap<String, String>) -> Markup {
    let Some(fields) = targeting.as_object() else {
        return html! {};
    };
    let caps = visit.state.services.platform.capabilities();
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|x| match x {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    html! {
        @for (name, value) in fields {
            @if !value.is_null() && value.as_array().is_none_or(|a| !a.is_empty()) {
                dt { (visit.t(&format!("campaign-targeting-{}", field_key(name)))) }
                dd {
                    @match name.as_str() {
                        "channels" | "bots" | "audience_channels" | "exclude_channels" => {
                            ul.names { @for c in strings(value) { li { (peer(&c, titles)) } } }
                        },
                        "countries" => {
                            ul.names { @for c in strings(value) { li { (country(visit, &c)) } } }
                        },
                        "languages" => {
                            ul.names { @for l in strings(value) {
                                li { (caps.languages.iter().find(|(code, _)| *code == l).map_or(l.clone(), |(_, n)| (*n).to_string())) }
                            } }
                        },
                        "topics" | "exclude_topics" => {
                            ul.names { @for t in value.as_array().into_iter().flatten() {
                                li { (t.as_i64().and_then(|id| caps.topics.iter().find(|(i, _)| *i == id)).map_or_else(|| t.to_string(), |(_, n)| (*n).to_string())) }
                            } }
                        },
                        "search_keywords" => {
                            ul.chips { @for k in strings(value) { li { (k) } } }
                        },
                        "cities" => {
                            ul.names { @for c in value.as_array().into_iter().flatten() {
                                li { (c.get("name").and_then(Value::as_str).map_or_else(|| c.to_string(), str::to_string)) }
                            } }
                        },
                        _ => {
                            @match value {
                                Value::Bool(b) => (visit.t(if *b { "campaign-yes" } else { "campaign-no" })),
                                Value::String(s) => (s),
                                other => (other.to_string()),
                            }
                        },
                    }
                }
            }
        }
    }
}

/// The catalogue's name part of a targeting field; one it does not know is `other`.
fn field_key(name: &str) -> &'static str {
    match name {
        "channels" => "channels",
        "bots" => "bots",
        "audience_channels" => "audience-channels",
        "exclude_channels" => "exclude-channels",
        "search_keywords" => "keywords",
        "countries" => "countries",
        "languages" => "languages",
        "topics" => "topics",
        "exclude_topics" => "exclude-topics",
        "add_similar_channels" => "similar",
        "cities" => "cities",
        "device" => "device",
        "intersect_topics" => "intersect-topics",
        "political_channels" => "political",
        _ => "other",
    }
}

/// The targeting fields that name channels or bots.
const PEER_FIELDS: [&str; 4] = ["channels", "bots", "audience_channels", "exclude_channels"];

/// Every channel and bot `targeting` names, as it names them.
pub(super) fn peer_names(targeting: &Value) -> Vec<String> {
    PEER_FIELDS
        .iter()
        .filter_map(|f| targeting.get(f).and_then(Value::as_array))
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// A channel or bot as a link to its `t.me` page: "Title (@username)" when its title is
/// kept, else as the targeting names it.
fn peer(target: &str, titles: &HashMap<String, String>) -> Markup {
    let key = peers::key(target);
    let title = key.as_ref().and_then(|k| titles.get(k));
    let name = match key {
        Some(_) => format!("@{}", bare(target)),
        None => target.to_string(),
    };
    html! {
        a href=(t_me(target)) rel="noopener" {
            @if let Some(title) = title { (title) " " span.muted { "(" (name) ")" } } @else { (name) }
        }
    }
}

/// A channel's or bot's name without `@` or a `t.me` link around it.
fn bare(target: &str) -> &str {
    target
        .trim_start_matches("https://")
        .trim_start_matches("t.me/")
        .trim_start_matches('@')
}

/// A channel or bot as a link to its `t.me` page.
fn t_me(target: &str) -> String {
    format!("https://t.me/{}", bare(target))
}

/// A country as its flag, its code and (in English) its name.
fn country(visit: &Visit, code: &str) -> String {
    let upper = code.to_ascii_uppercase();
    let flag: String = if upper.len() == 2 && upper.chars().all(|c| c.is_ascii_uppercase()) {
        upper
            .chars()
            .filter_map(|c| char::from_u32(0x1F1E6 + (c as u32 - 'A' as u32)))
            .collect()
    } else {
        String::new()
    };
    let name = COUNTRIES
        .iter()
        .find(|(c, _)| *c == upper)
        .map(|(_, n)| *n)
        .filter(|_| visit.lang == crate::i18n::Lang::En);
    match name {
        Some(name) => format!("{flag} {upper} {name}"),
        None => format!("{flag} {upper}"),
    }
}
