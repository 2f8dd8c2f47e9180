//! Ad targets (§10.3): checking the four input shapes and their caps, rendering the output
//! shapes with catalogue objects; placements (§9.2); schedules (§10.4).

use serde_json::{json, Map, Value};

use super::catalog::{country, language, location, peer_json, resolve, topic};
use super::params::int_value;
use super::state::{err, Ad, State};

#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Channels {
        languages: Vec<String>,
        topics: Vec<i64>,
        exclude_topics: Vec<i64>,
        channels: Vec<i64>,
        exclude_channels: Vec<i64>,
    },
    Users {
        countries: Vec<String>,
        locations: Vec<i64>,
        languages: Vec<String>,
        topics: Vec<i64>,
        intersect_topics: bool,
        exclude_topics: Vec<i64>,
        channels: Vec<i64>,
        exclude_channels: Vec<i64>,
        device: Option<String>,
        exclude_political_channels: bool,
        political_channels_only: bool,
    },
    Bots {
        bots: Vec<i64>,
    },
    Search {
        queries: Vec<String>,
    },
}

impl Target {
    pub fn kind(&self) -> &'static str {
        match self {
            Target::Channels { .. } => "channels",
            Target::Users { .. } => "users",
            Target::Bots { .. } => "bots",
            Target::Search { .. } => "search",
        }
    }
}

/// The placement for a target: the given one if the pair is allowed, else the inferred one.
pub fn placement(target: &Target, given: Option<&str>) -> Result<String, String> {
    let allowed: &[&str] = match target {
        Target::Channels { .. } => &["channel_post"],
        Target::Users { .. } => &["channel_post", "video_banner"],
        Target::Bots { .. } => &["bot_banner"],
        Target::Search { .. } => &["search_result"],
    };
    match given {
        None => Ok(allowed[0].to_string()),
        Some(p) if allowed.contains(&p) => Ok(p.to_string()),
        Some(_) => err("PLACEMENT_INVALID"),
    }
}

struct Input<'a> {
    m: &'a Map<String, Value>,
}

impl Input<'_> {
    /// A list field; absent, null and `[]` are all empty (telead leaves empty lists out).
    fn list(&self, name: &str) -> Result<Vec<Value>, String> {
        match self.m.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => Ok(a.clone()),
            Some(_) => err("TARGET_INVALID"),
        }
    }
    fn flag(&self, name: &str) -> Result<bool, String> {
        match self.m.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => err("TARGET_INVALID"),
        }
    }
    fn langs(&self, name: &str) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for v in self.list(name)? {
            let code = v.as_str().ok_or("LANGUAGE_CODE_INVALID")?;
            language(code).ok_or("LANGUAGE_CODE_INVALID")?;
            out.push(code.to_string());
        }
        Ok(out)
    }
    fn topics(&self, name: &str) -> Result<Vec<i64>, String> {
        let mut out = Vec::new();
        for v in self.list(name)? {
            let id = int_value(&v).ok_or("TOPIC_ID_INVALID")?;
            topic(id).ok_or("TOPIC_ID_INVALID")?;
            out.push(id);
        }
        Ok(out)
    }
    fn peers(
        &self,
        st: &mut State,
        resolver: &str,
        name: &str,
        bot: bool,
    ) -> Result<Vec<i64>, String> {
        let mut out = Vec::new();
        for v in self.list(name)? {
            out.push(resolve(st, resolver, bot, &v)?);
        }
        Ok(out)
    }
}

fn cap(ok: bool) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        err("TARGET_INVALID")
    }
}

/// Checks an `InputAdTarget`; `resolver` is the token's account (peer resolution).
pub fn parse(st: &mut State, resolver: &str, v: &Value) -> Result<Target, String> {
    let m = v.as_object().ok_or("TARGET_INVALID")?;
    let i = Input { m };
    let kind = m
        .get("type")
        .and_then(Value::as_str)
        .ok_or("TARGET_INVALID")?;
    match kind {
        "channels" => {
            let (languages, topics) = (i.langs("language_codes")?, i.topics("topic_ids")?);
            let exclude_topics = i.topics("exclude_topic_ids")?;
            let (n_ch, n_ex) = (
                i.list("channel_ids")?.len(),
                i.list("exclude_channel_ids")?.len(),
            );
            if n_ch > 0 {
                cap(languages.is_empty() && topics.is_empty())?;
            } else if !topics.is_empty() {
                cap(languages.len() == 1)?;
            } else {
                cap(!languages.is_empty() && languages.len() <= 8)?;
            }
            cap(topics.len() + exclude_topics.len() <= 20 && n_ch + n_ex <= 100)?;
            let channels = i.peers(st, resolver, "channel_ids", false)?;
            let exclude_channels = i.peers(st, resolver, "exclude_channel_ids", false)?;
            Ok(Target::Channels {
                languages,
                topics,
                exclude_topics,
                channels,
                exclude_channels,
            })
        }
        "users" => {
            let mut countries = Vec::new();
            for v in i.list("country_codes")? {
                let code = v.as_str().ok_or("COUNTRY_CODE_INVALID")?;
                country(code).ok_or("COUNTRY_CODE_INVALID")?;
                countries.push(code.to_string());
            }
            cap(countries.len() <= 8)?;
            let mut locations = Vec::new();
            for v in i.list("location_ids")? {
                let id = int_value(&v).ok_or("LOCATION_ID_INVALID")?;
                let (_, cc) = location(id).ok_or("LOCATION_ID_INVALID")?;
                cap(countries.len() == 1)?;
                if cc != countries[0] {
                    return err("LOCATION_ID_INVALID");
                }
                locations.push(id);
            }
            cap(locations.len() <= 20)?;
            let languages = i.langs("language_codes")?;
            let (topics, exclude_topics) = (i.topics("topic_ids")?, i.topics("exclude_topic_ids")?);
            cap(languages.len() <= 8 && topics.len() + exclude_topics.len() <= 20)?;
            let (n_ch, n_ex) = (
                i.list("channel_ids")?.len(),
                i.list("exclude_channel_ids")?.len(),
            );
            cap(n_ch + n_ex <= 100)?;
            let (aud, ex_aud) = (
                i.list("audience_ids")?.len(),
                i.list("exclude_audience_ids")?.len(),
            );
            cap(aud <= 4 && ex_aud <= 4 && aud + ex_aud <= 10)?;
            if aud + ex_aud > 0 {
                // No account of the fake has retargeting, so no audience can exist.
                return err("RETARGETING_DISABLED");
            }
            let device = match m.get("device") {
                None | Some(Value::Null) => None,
                Some(Value::String(d))
                    if ["ios", "android", "mobile", "desktop"].contains(&d.as_str()) =>
                {
                    Some(d.clone())
                }
                Some(_) => return err("DEVICE_INVALID"),
            };
            let exclude_political_channels = i.flag("exclude_political_channels")?;
            let political_channels_only = i.flag("political_channels_only")?;
            cap(!(exclude_political_channels && political_channels_only))?;
            let intersect_topics = i.flag("intersect_topics")?;
            let channels = i.peers(st, resolver, "channel_ids", false)?;
            let exclude_channels = i.peers(st, resolver, "exclude_channel_ids", false)?;
            Ok(Target::Users {
                countries,
                locations,
                languages,
                topics,
                intersect_topics,
                exclude_topics,
                channels,
                exclude_channels,
                device,
                exclude_political_channels,
                political_channels_only,
            })
        }
        "bots" => {
            let n = i.list("bot_ids")?.len();
            cap((1..=100).contains(&n))?;
            Ok(Target::Bots {
                bots: i.peers(st, resolver, "bot_ids", true)?,
            })
        }
        "search" => {
            let mut queries = Vec::new();
            for v in i.list("search_queries")? {
                let q = v
                    .as_str()
                    .filter(|q| !q.trim().is_empty())
                    .ok_or("TARGET_INVALID")?;
                queries.push(q.to_string());
            }
            cap((1..=10).contains(&queries.len()))?;
            Ok(Target::Search { queries })
        }
        _ => err("TARGET_INVALID"),
    }
}

/// The output `AdTarget` with catalogue objects (§10.3).
pub fn render(st: &State, t: &Target) -> Value {
    let langs = |v: &[String]| v.iter().filter_map(|c| language(c)).collect::<Vec<_>>();
    let topics = |v: &[i64]| v.iter().filter_map(|t| topic(*t)).collect::<Vec<_>>();
    let peers = |v: &[i64]| v.iter().map(|id| peer_json(st, *id)).collect::<Vec<_>>();
    match t {
        Target::Channels {
            languages,
            topics: tp,
            exclude_topics,
            channels,
            exclude_channels,
        } => json!({
            "type": "channels",
            "languages": langs(languages),
            "topics": topics(tp),
            "exclude_topics": topics(exclude_topics),
            "channels": peers(channels),
            "exclude_channels": peers(exclude_channels),
        }),
        Target::Users {
            countries,
            locations,
            languages,
            topics: tp,
            intersect_topics,
            exclude_topics,
            channels,
            exclude_channels,
            device,
            exclude_political_channels,
            political_channels_only,
        } => {
            let mut v = json!({
                "type": "users",
                "countries": countries.iter().filter_map(|c| country(c)).collect::<Vec<_>>(),
                "locations": locations.iter().filter_map(|l| location(*l).map(|x| x.0)).collect::<Vec<_>>(),
                "languages": langs(languages),
                "topics": topics(tp),
                "intersect_topics": intersect_topics,
                "exclude_topics": topics(exclude_topics),
                "channels": peers(channels),
                "exclude_channels": peers(exclude_channels),
                "audiences": [],
                "exclude_audiences": [],
                "exclude_political_channels": exclude_political_channels,
                "political_channels_only": political_channels_only,
            });
            if let Some(d) = device {
                v["device"] = json!(d);
            }
            v
        }
        Target::Bots { bots } => json!({"type": "bots", "bots": peers(bots)}),
        Target::Search { queries } => json!({"type": "search", "search_queries": queries}),
    }
}

/// The 40 allowed schedule time zones, in minutes east of UTC.
const ZONES_MIN: &[i64] = &[
    -720, -660, -600, -570, -540, -480, -420, -360, -300, -240, -210, -180, -150, -120, -60, 0, 60,
    120, 180, 210, 240, 270, 300, 330, 345, 360, 390, 420, 480, 525, 540, 570, 600, 630, 660, 720,
    765, 780, 825, 840,
];

/// Checks a schedule; `Ok(None)` is `schedule: false` (remove it).
pub fn schedule(v: &Value, users: bool) -> Result<Option<Value>, String> {
    let v = match v {
        Value::Bool(false) => return Ok(None),
        Value::String(s) if s == "false" => return Ok(None),
        Value::String(s) => serde_json::from_str(s).map_err(|_| "SCHEDULE_INVALID".to_string())?,
        v => v.clone(),
    };
    let m = v.as_object().ok_or("SCHEDULE_INVALID")?;
    let masks = m
        .get("week_hours_mask")
        .and_then(Value::as_array)
        .ok_or("SCHEDULE_INVALID")?;
    let masks: Vec<i64> = masks
        .iter()
        .filter_map(int_value)
        .filter(|x| (0..1 << 24).contains(x))
        .collect();
    if masks.len() != 7 || m["week_hours_mask"].as_array().map(Vec::len) != Some(7) {
        return err("SCHEDULE_INVALID");
    }
    let viewer = match m.get("use_viewer_timezone") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return err("SCHEDULE_INVALID"),
    };
    if viewer && !users {
        return err("SCHEDULE_INVALID");
    }
    let mut out = json!({"week_hours_mask": masks});
    match m.get("timezone").filter(|t| !t.is_null()) {
        Some(t) => {
            let tz = int_value(t).ok_or("SCHEDULE_INVALID")?;
            if tz % 60 != 0 || !ZONES_MIN.contains(&(tz / 60)) {
                return err("SCHEDULE_INVALID");
            }
            out["timezone"] = json!(tz);
        }
        None if !viewer => return err("SCHEDULE_INVALID"),
        None => {}
    }
    if viewer {
        out["use_viewer_timezone"] = json!(true);
    }
    Ok(Some(out))
}

/// Whether the ad's schedule allows showing it at `now` (viewer time zones are taken as UTC).
pub fn in_schedule(ad: &Ad, now: i64) -> bool {
    let Some(s) = &ad.schedule else { return true };
    let masks: Vec<i64> = s["week_hours_mask"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(int_value)
        .collect();
    if masks.iter().all(|m| *m == 0) {
        return true;
    }
    let local = now + s.get("timezone").and_then(int_value).unwrap_or(0);
    let weekday = (local.div_euclid(86400) + 3).rem_euclid(7) as usize; // 1970-01-01 was a Thursday
    let hour = local.rem_euclid(86400) / 3600;
    masks.get(weekday).is_some_and(|m| m & (1 << hour) != 0)
}
