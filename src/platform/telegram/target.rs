//! Owns the translation of a campaign's targeting to and from the platform's target shapes
//! (§10.3): the input target a create sends (channels, bots, cities as location ids and
//! exclusions already resolved), and the output target (catalogue objects with names) read
//! back as adcab's targeting fields, named as a request names them.

use serde_json::{json, Map, Value};

use super::errors::Unsendable;
use crate::domain::campaign::TargetType;
use crate::domain::targeting::PeerEntry;

/// The channels and bots of an output target that have a username, with the title and
/// picture its catalogue objects (`TargetChannel`, `TargetBot`) give.
pub(super) fn peers_of(target: &Value) -> Vec<PeerEntry> {
    ["channels", "exclude_channels", "bots"]
        .iter()
        .filter_map(|f| target.get(f).and_then(Value::as_array))
        .flatten()
        .filter_map(|p| {
            let name = p.get("username").and_then(Value::as_str)?;
            let name = name.trim_start_matches('@');
            let text = |f: &str| p.get(f).and_then(Value::as_str).map(str::to_string);
            (!name.is_empty()).then(|| PeerEntry {
                username: format!("@{name}"),
                title: text("title"),
                photo_url: text("photo_url"),
            })
        })
        .collect()
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
pub(super) fn targeting_from(t: TargetType, target: &Value) -> Value {
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
    if t == TargetType::Users {
        users_extras(target, &mut out);
    } else if t == TargetType::Channels {
        let excluded = json!(peer_names(target.get("exclude_channels"), "channel_id"));
        out.insert("exclude_channels".into(), excluded);
    }
    let listed = fields
        .into_iter()
        .map(|(ours, theirs, id)| (ours, json!(codes(target.get(theirs), id))))
        .chain(peers);
    for (name, v) in listed {
        out.insert(name.into(), v);
    }
    out.retain(|_, v| !v.as_array().is_some_and(|a| a.is_empty()));
    Value::Object(out)
}

/// The fields only a `users` output target has: its locations as `cities` (their ids),
/// `device`, `intersect_topics` (when set), `exclude_channels` and `political_channels`.
fn users_extras(target: &Value, out: &mut Map<String, Value>) {
    let flag = |name: &str| target.get(name).and_then(Value::as_bool) == Some(true);
    out.insert(
        "cities".into(),
        json!(codes(target.get("locations"), "location_id")),
    );
    if let Some(device) = target.get("device").and_then(Value::as_str) {
        out.insert("device".into(), json!(device));
    }
    if flag("intersect_topics") {
        out.insert("intersect_topics".into(), json!(true));
    }
    out.insert(
        "exclude_channels".into(),
        json!(peer_names(target.get("exclude_channels"), "channel_id")),
    );
    if flag("exclude_political_channels") {
        out.insert("political_channels".into(), json!("exclude"));
    } else if flag("political_channels_only") {
        out.insert("political_channels".into(), json!("only"));
    }
}

/// A draft's targets as the platform knows them: the channels or bots to reach, the channels
/// to leave out, and the cities' location ids.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resolved {
    pub peers: Vec<String>,
    pub excluded: Vec<String>,
    pub locations: Vec<i64>,
}

/// adcab's targeting as the platform's input target, with channels and bots already narrowed
/// to the ones that resolved. The platform targets channels by a list, or by languages and
/// topics, never both, so a channels ad with a list sends only the list and its exclusions.
pub(super) fn input_target(
    t: TargetType,
    targeting: &Value,
    resolved: &Resolved,
) -> Result<Value, Unsendable> {
    let peers = &resolved.peers;
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
            insert_nonempty(&mut target, "exclude_channel_ids", json!(resolved.excluded));
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
            insert_nonempty(&mut target, "location_ids", json!(resolved.locations));
            insert_nonempty(&mut target, "exclude_channel_ids", json!(resolved.excluded));
            if targeting["intersect_topics"].as_bool() == Some(true) {
                target.insert("intersect_topics".into(), json!(true));
            }
            if let Some(device) = targeting["device"].as_str() {
                target.insert("device".into(), json!(device));
            }
            match targeting["political_channels"].as_str() {
                Some("exclude") => {
                    target.insert("exclude_political_channels".into(), json!(true));
                }
                Some("only") => {
                    target.insert("political_channels_only".into(), json!(true));
                }
                _ => {}
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_sent_in_the_platform_shapes() {
        let users = json!({"countries": ["DE"], "languages": ["de"], "audience_channels": ["@a"]});
        let t = input_target(TargetType::Users, &users, &peers(&["@abcde"])).unwrap();
        assert_eq!(
            t,
            json!({"type": "users", "country_codes": ["DE"], "language_codes": ["de"], "channel_ids": ["@abcde"]})
        );
        let search = json!({"search_keywords": ["shoes"]});
        let t = input_target(TargetType::Search, &search, &Resolved::default()).unwrap();
        assert_eq!(t, json!({"type": "search", "search_queries": ["shoes"]}));
        let mixed = json!({"channels": ["@abcde"], "languages": ["en"]});
        let err = input_target(TargetType::Channels, &mixed, &peers(&["@abcde"])).unwrap_err();
        assert_eq!(err.param, "languages");
    }

    fn peers(names: &[&str]) -> Resolved {
        Resolved {
            peers: names.iter().map(|n| n.to_string()).collect(),
            ..Resolved::default()
        }
    }

    #[test]
    fn full_users_targeting_goes_out_and_reads_back() {
        let users = json!({"countries": ["DE"], "cities": ["Berlin", 302], "device": "ios",
                           "intersect_topics": true, "exclude_channels": ["@spam_news"],
                           "political_channels": "exclude"});
        let resolved = Resolved {
            peers: Vec::new(),
            excluded: vec!["@spam_news".into()],
            locations: vec![301, 302],
        };
        let t = input_target(TargetType::Users, &users, &resolved).unwrap();
        assert_eq!(
            t,
            json!({"type": "users", "country_codes": ["DE"], "location_ids": [301, 302],
                   "exclude_channel_ids": ["@spam_news"], "intersect_topics": true,
                   "device": "ios", "exclude_political_channels": true})
        );
        let out = json!({"type": "users", "countries": [{"country_code": "DE", "name": "Germany"}],
                         "locations": [{"location_id": 301, "name": "Berlin"}], "intersect_topics": false,
                         "exclude_channels": [{"channel_id": 9, "username": "spam_news"}],
                         "device": "android", "exclude_political_channels": false,
                         "political_channels_only": true});
        assert_eq!(
            targeting_from(TargetType::Users, &out),
            json!({"countries": ["DE"], "cities": [301], "device": "android",
                   "exclude_channels": ["@spam_news"], "political_channels": "only"})
        );
    }
}
