//! The targeting catalogues (languages, topics, countries, locations), peer resolution of
//! channels and bots (§9.4), and the `getTarget*` methods.

use serde_json::{json, Value};

use super::params::{int_value, Params};
use super::state::{err, ApiResult, State};

pub const LANGUAGES: &[(&str, &str)] = &[
    ("en", "English"),
    ("ru", "Russian"),
    ("es", "Spanish"),
    ("de", "German"),
    ("fr", "French"),
    ("it", "Italian"),
    ("pt", "Portuguese"),
    ("uk", "Ukrainian"),
    ("ar", "Arabic"),
    ("fa", "Persian"),
    ("tr", "Turkish"),
    ("id", "Indonesian"),
];

pub const TOPICS: &[(i64, &str)] = &[
    (1, "News"),
    (2, "Technology"),
    (3, "Crypto"),
    (4, "Business"),
    (5, "Entertainment"),
    (6, "Sports"),
    (7, "Education"),
    (8, "Travel"),
    (9, "Music"),
    (10, "Games"),
];

pub const COUNTRIES: &[(&str, &str)] = &[
    ("US", "United States"),
    ("GB", "United Kingdom"),
    ("DE", "Germany"),
    ("RU", "Russia"),
    ("FR", "France"),
    ("ES", "Spain"),
    ("IT", "Italy"),
    ("UA", "Ukraine"),
    ("IN", "India"),
    ("BR", "Brazil"),
    ("NL", "Netherlands"),
    ("TR", "Turkey"),
];

/// (location_id, name, country_code, region)
pub const LOCATIONS: &[(i64, &str, &str, Option<&str>)] = &[
    (101, "New York", "US", Some("New York")),
    (102, "Los Angeles", "US", Some("California")),
    (103, "California", "US", None),
    (104, "Texas", "US", None),
    (105, "San Francisco", "US", Some("California")),
    (201, "London", "GB", Some("England")),
    (202, "Manchester", "GB", Some("England")),
    (203, "Scotland", "GB", None),
    (301, "Berlin", "DE", Some("Berlin")),
    (302, "Munich", "DE", Some("Bavaria")),
    (303, "Bavaria", "DE", None),
    (401, "Moscow", "RU", Some("Moscow")),
    (402, "Saint Petersburg", "RU", Some("Saint Petersburg")),
    (501, "Paris", "FR", Some("Ile-de-France")),
    (601, "Madrid", "ES", Some("Madrid")),
    (602, "Barcelona", "ES", Some("Catalonia")),
];

pub fn language(code: &str) -> Option<Value> {
    let (c, n) = LANGUAGES.iter().find(|(c, _)| *c == code)?;
    Some(json!({"language_code": c, "name": n}))
}

pub fn topic(id: i64) -> Option<Value> {
    let (t, n) = TOPICS.iter().find(|(t, _)| *t == id)?;
    Some(json!({"topic_id": t, "name": n}))
}

pub fn country(code: &str) -> Option<Value> {
    let (c, n) = COUNTRIES.iter().find(|(c, _)| *c == code)?;
    Some(json!({"country_code": c, "name": n}))
}

pub fn location(id: i64) -> Option<(Value, &'static str)> {
    let (l, name, cc, region) = LOCATIONS.iter().find(|(l, ..)| *l == id)?;
    let mut v = json!({"location_id": l, "name": name, "country_code": cc});
    if let Some(r) = region {
        v["region"] = json!(r);
    }
    Some((v, cc))
}

/// Usernames that resolve: 5-32 of `[a-z0-9_]`, starting with a letter, not `missing...`.
pub fn resolvable(username: &str) -> bool {
    let b = username.as_bytes();
    (5..=32).contains(&b.len())
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
        && !username.starts_with("missing")
}

/// A stable id in 1..2^52 for a username (FNV-1a); bots and channels hash apart.
pub fn peer_id(bot: bool, username: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in [
        if bot { b"b:" } else { b"c:" }.as_slice(),
        username.as_bytes(),
    ]
    .concat()
    {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h % ((1u64 << 52) - 1)) as i64 + 1
}

/// Resolves a channel or bot reference (`"@username"` or a numeric id) for `resolver`, the
/// token's own account, which remembers usernames it resolved (§9.4 [F]).
pub fn resolve(st: &mut State, resolver: &str, bot: bool, v: &Value) -> Result<i64, String> {
    let (unknown, invalid) = if bot {
        ("BOT_ID_UNKNOWN", "BOT_ID_INVALID")
    } else {
        ("CHANNEL_ID_UNKNOWN", "CHANNEL_ID_INVALID")
    };
    if let Some(name) = v.as_str().and_then(|s| s.trim().strip_prefix('@')) {
        let name = name.to_ascii_lowercase();
        if !resolvable(&name) {
            return err(unknown);
        }
        let id = peer_id(bot, &name);
        st.peers.insert(id, (bot, name));
        let a = st.acct_mut(resolver);
        let set = if bot { &mut a.bots } else { &mut a.channels };
        set.insert(id);
        return Ok(id);
    }
    let id = int_value(v).ok_or_else(|| invalid.to_string())?;
    if id <= 0 {
        return err(invalid);
    }
    let a = st.acct(resolver);
    let set = if bot { &a.bots } else { &a.channels };
    if set.contains(&id) {
        Ok(id)
    } else {
        err(unknown)
    }
}

/// `TargetChannel` / `TargetBot` for a resolved id.
pub fn peer_json(st: &State, id: i64) -> Value {
    let (bot, name) = st
        .peers
        .get(&id)
        .cloned()
        .unwrap_or((false, format!("peer{id}")));
    let title: Vec<String> = name
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| w[..1].to_ascii_uppercase() + &w[1..])
        .collect();
    let key = if bot { "bot_id" } else { "channel_id" };
    json!({
        key: id,
        "title": title.join(" "),
        "username": name,
        "photo_url": format!("https://promote-fake.invalid/peer/{id}.jpg"),
    })
}

/// The catalogue methods; None when `method` is not one of them.
pub fn call(st: &mut State, resolver: &str, method: &str, p: &Params) -> Option<ApiResult> {
    Some(match method {
        "getTargetLanguagesList" => Ok(LANGUAGES.iter().filter_map(|(c, _)| language(c)).collect()),
        "getTargetTopicsList" => Ok(TOPICS.iter().filter_map(|(t, _)| topic(*t)).collect()),
        "getTargetCountriesList" => Ok(COUNTRIES.iter().filter_map(|(c, _)| country(c)).collect()),
        "getTargetLocationsList" => locations_list(p),
        "getTargetLocationsById" => (|| -> ApiResult {
            let ids = p.ints("location_ids", "LOCATION_ID_INVALID")?;
            let ids = ids
                .filter(|i| !i.is_empty())
                .ok_or("LOCATION_IDS_REQUIRED")?;
            Ok(ids
                .iter()
                .filter_map(|i| location(*i).map(|l| l.0))
                .collect())
        })(),
        "getTargetChannel" => target_peer(st, resolver, p, false),
        "getTargetBot" => target_peer(st, resolver, p, true),
        _ => return None,
    })
}

fn target_peer(st: &mut State, resolver: &str, p: &Params, bot: bool) -> ApiResult {
    let (name, required) = if bot {
        ("bot_id", "BOT_ID_REQUIRED")
    } else {
        ("channel_id", "CHANNEL_ID_REQUIRED")
    };
    let v = p.json(name).ok_or(required)?;
    // A form value "@name" is not JSON text; `json` kept it as a string.
    let id = resolve(st, resolver, bot, &v)?;
    Ok(peer_json(st, id))
}

fn locations_list(p: &Params) -> ApiResult {
    let cc = p
        .str("country_code", "COUNTRY_CODE_INVALID")?
        .ok_or("COUNTRY_CODE_REQUIRED")?;
    let cc = cc.to_ascii_uppercase();
    if country(&cc).is_none() {
        return err("COUNTRY_CODE_INVALID");
    }
    let query = p
        .str("query", "QUERY_INVALID")?
        .unwrap_or_default()
        .to_lowercase();
    if query.trim().is_empty() {
        return err("QUERY_REQUIRED");
    }
    let limit = p.int("limit", "LIMIT_INVALID")?.unwrap_or(100);
    if !(0..=1000).contains(&limit) {
        return err("LIMIT_INVALID");
    }
    let start = match p.str("offset", "OFFSET_INVALID")?.filter(|s| !s.is_empty()) {
        None => 0,
        Some(o) => o
            .strip_prefix("l:")
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or("OFFSET_INVALID")?,
    };
    let found: Vec<Value> = LOCATIONS
        .iter()
        .filter(|(_, name, c, _)| *c == cc && name.to_lowercase().contains(query.trim()))
        .filter_map(|(id, ..)| location(*id).map(|l| l.0))
        .collect();
    let page: Vec<Value> = found
        .iter()
        .skip(start)
        .take(limit as usize)
        .cloned()
        .collect();
    let mut out = json!({"total_count": found.len(), "locations": page});
    let end = start + limit as usize;
    if limit > 0 && end < found.len() {
        out["next_offset"] = json!(format!("l:{end}"));
    }
    Ok(out)
}
