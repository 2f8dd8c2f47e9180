//! Owns the request bodies: a valid JSON body per route and its mutations (wrong types, odd
//! values, deep nesting, huge arrays, cut or non-JSON bytes), and multipart uploads.

use super::values::{odd_value, ODD_NUMBERS, ODD_STRINGS};
use super::world::{Rng, World};
use serde_json::{json, Map, Value};

/// Largest body the generator builds, below the 2 MB JSON limit.
const MAX_BODY: usize = 1_900_000;

/// One campaign's fields for a create, with targeting that fits its type.
fn campaign_fields(rng: &mut Rng) -> Map<String, Value> {
    let kind = rng.pick(&["channels", "bots", "search", "users"]);
    let mut c = json!({
        "title": "Fuzz", "text": "Read us daily",
        "promote_url": rng.pick(&[
            "https://t.me/alpha_chan", "https://t.me/shop_bot?start=fz1",
            "@alpha_chan", "https://shop.example.com/?subid=fz"
        ]),
        "cpm": rng.pick(&["2.5", "3"]), "budget": rng.pick(&["0", "10", "25.5"]),
        "target_type": kind
    });
    let targeting = match kind {
        "channels" => json!({ "channels": ["@tech_daily"], "languages": ["en"] }),
        "bots" => json!({ "bots": ["@shop_bot"] }),
        "search" => json!({ "search_keywords": ["cheap flights"] }),
        _ => json!({ "countries": ["DE"], "topics": [1] }),
    };
    let extras = [
        ("active", json!(false)),
        ("daily_budget", json!("5")),
        ("views_per_user", json!(2)),
        ("picture", json!(true)),
        ("button", json!("open")),
        ("website_name", json!("Shop")),
        (
            "schedule",
            json!({ "days": { "mon": [9, 10], "sun": [23] }, "timezone": "+05:45" }),
        ),
    ];
    let map = c.as_object_mut().unwrap();
    map.extend(targeting.as_object().unwrap().clone());
    for (name, value) in extras {
        if rng.chance(20) {
            map.insert(name.into(), value);
        }
    }
    std::mem::take(map)
}

/// A valid schedule, for PATCH, copy and bulk bodies.
fn schedule() -> Value {
    json!({ "days": { "tue": [8, 9] }, "timezone": "UTC+3" })
}

/// A valid JSON body for the route, the start of every body mutation.
fn base_body(rng: &mut Rng, w: &World, route: &str) -> Value {
    let account = rng.pick(&w.accounts);
    let ads = |rng: &mut Rng, from: &[i64]| -> Vec<i64> {
        (0..1 + rng.below(3)).map(|_| rng.pick(from)).collect()
    };
    match route {
        "create" if rng.chance(60) => {
            let mut c = campaign_fields(rng);
            c.insert("account_id".into(), json!(account));
            Value::Object(c)
        }
        "create" => {
            let campaigns: Vec<Value> = (0..1 + rng.below(3))
                .map(|_| Value::Object(campaign_fields(rng)))
                .collect();
            let mut body = json!({ "account_id": account, "campaigns": campaigns });
            match rng.below(3) {
                0 => body["group_id"] = json!(w.group),
                1 => body["new_group_name"] = json!("Fuzzed"),
                _ => {}
            }
            body
        }
        "campaign" => {
            let mut body = json!({ "account_id": account });
            let fields = [
                ("cpm", json!("3.5")),
                ("title", json!("Renamed")),
                ("text", json!("New words")),
                ("active", json!(rng.chance(50))),
                ("schedule", schedule()),
                ("schedule", Value::Null),
                ("views_per_user", json!(3)),
                ("daily_budget", json!("7")),
                ("button", json!("buy")),
                ("website_name", json!("Site")),
                ("picture", json!(false)),
                ("promote_url", json!("https://t.me/beta_chan")),
                ("media", json!("m_nope")),
            ];
            for _ in 0..1 + rng.below(2) {
                let (name, value) = fields[rng.below(fields.len())].clone();
                body[name] = value;
            }
            body
        }
        "budget" => {
            let action = rng.pick(&["add", "withdraw", "withdraw_all"]);
            let mut body = json!({ "account_id": account, "action": action });
            if action != "withdraw_all" {
                body["amount"] = json!(rng.pick(&["1.5", "5", "600"]));
            }
            body
        }
        "copy" => {
            let mut body = json!({ "account_id": account, "copies": 1 + rng.below(3) });
            let overrides = [
                ("title", json!("Copy")),
                ("cpm", json!("2.50")),
                ("budget", json!(0)),
                ("schedule", schedule()),
                ("group_id", json!(w.group)),
                ("new_group_name", json!("Copies")),
                ("views_per_user", json!(4)),
            ];
            for (name, value) in overrides {
                if rng.chance(25) {
                    body[name] = value;
                }
            }
            body
        }
        "bulk" => {
            let action = rng.pick(&[
                "pause",
                "resume",
                "add_budget",
                "withdraw_budget",
                "withdraw_all_budget",
                "set_cpm",
                "set_schedule",
                "delete",
            ]);
            let ids = if action == "delete" {
                ads(rng, &w.doomed)
            } else {
                ads(rng, &w.ads)
            };
            let mut body = json!({ "account_id": account, "action": action, "ad_ids": ids });
            match action {
                "add_budget" | "withdraw_budget" => body["amount"] = json!("1"),
                "set_cpm" => body["cpm"] = json!("2.75"),
                "set_schedule" => body["schedule"] = schedule(),
                _ => {}
            }
            body
        }
        "postback" if rng.chance(60) => event(rng, w),
        "postback" => {
            let events: Vec<Value> = (0..1 + rng.below(20)).map(|_| event(rng, w)).collect();
            json!({ "events": events })
        }
        _ => json!({ "account_id": account }),
    }
}

/// One inbound conversion event, with the spec's names or their aliases.
fn event(rng: &mut Rng, w: &World) -> Value {
    let mut e = Map::new();
    let name = |rng: &mut Rng, names: &[&'static str]| rng.pick(names).to_string();
    e.insert(
        name(
            rng,
            &["ref", "subid", "clickid", "click_id", "cnv_id", "cid"],
        ),
        json!(rng.pick(&["promo42", "s-77", "nobody"])),
    );
    e.insert(
        name(rng, &["event", "type", "goal", "event_type"]),
        json!(rng.pick(&["lead", "signup", "ftd", "sale", "rebill", "teleport"])),
    );
    e.insert(
        name(rng, &["txid", "tid", "transaction_id", "order_id"]),
        json!(format!("fz-{}", rng.below(200))),
    );
    if rng.chance(50) {
        e.insert(
            name(rng, &["amount", "payout", "sum", "revenue", "value"]),
            json!(rng.pick(&["19.99", "-5", "0"])),
        );
        e.insert(name(rng, &["currency", "cur"]), json!("EUR"));
    }
    if rng.chance(20) {
        e.insert("status".into(), json!("Approved (manual)"));
    }
    if rng.chance(20) {
        e.insert("account_id".into(), json!(w.accounts[0]));
    }
    Value::Object(e)
}

/// Changes one spot of `v`: a field dropped, added or given a wrong type, an element
/// pushed, dropped or replaced, or a leaf swapped for an odd value.
fn mutate(rng: &mut Rng, w: &World, v: &mut Value) {
    match v {
        Value::Object(map) if !map.is_empty() && rng.chance(35) => {
            let key = map.keys().nth(rng.below(map.len())).unwrap().clone();
            return mutate(rng, w, map.get_mut(&key).unwrap());
        }
        Value::Array(items) if !items.is_empty() && rng.chance(35) => {
            let i = rng.below(items.len());
            return mutate(rng, w, &mut items[i]);
        }
        _ => {}
    }
    match v {
        Value::Object(map) => {
            let key = map.keys().nth(rng.below(map.len().max(1))).cloned();
            match (rng.below(3), key) {
                (0, Some(key)) => {
                    map.remove(&key);
                }
                (1, Some(key)) => {
                    map.insert(key, odd_value(rng, w, 0));
                }
                _ => {
                    let name = rng.pick(&[
                        "colour",
                        "extra",
                        "é€",
                        "",
                        "account_id ",
                        "__proto__",
                        "ACCOUNT_ID",
                        "accountId",
                        "campaigns",
                        "events",
                        "amount",
                        "ad_ids",
                    ]);
                    map.insert(name.into(), odd_value(rng, w, 0));
                }
            }
        }
        Value::Array(items) => match rng.below(3) {
            0 if !items.is_empty() => {
                items.remove(rng.below(items.len()));
            }
            1 if !items.is_empty() => {
                let i = rng.below(items.len());
                items[i] = odd_value(rng, w, 0);
            }
            _ => items.push(odd_value(rng, w, 0)),
        },
        leaf => *leaf = odd_value(rng, w, 0),
    }
}

/// Nested arrays or objects `depth` levels deep.
fn nested(rng: &mut Rng, depth: usize) -> String {
    if rng.chance(50) {
        "[".repeat(depth) + &"]".repeat(depth)
    } else {
        "{\"a\":".repeat(depth) + "1" + &"}".repeat(depth)
    }
}

/// The body sent to a JSON route: the valid one, a mutation of it, or something that is
/// not the JSON object it wants at all.
pub(super) fn json_body(rng: &mut Rng, w: &World, route: &str) -> Vec<u8> {
    let mut base = base_body(rng, w, route);
    match rng.below(100) {
        0..=14 => base.to_string().into_bytes(),
        15..=34 => {
            let field = rng.pick(&[
                "amount",
                "cpm",
                "budget",
                "daily_budget",
                "copies",
                "views_per_user",
                "account_id",
                "group_id",
                "ad_ids",
                "schedule",
            ]);
            base[field] = match rng.below(3) {
                0 => serde_json::from_str(rng.pick(&ODD_NUMBERS)).expect("a JSON number"),
                1 => json!(rng.pick(&ODD_STRINGS)),
                _ => odd_value(rng, w, 0),
            };
            base.to_string().into_bytes()
        }
        35..=64 => {
            for _ in 0..1 + rng.below(3) {
                mutate(rng, w, &mut base);
            }
            base.to_string().into_bytes()
        }
        65..=71 => {
            let depth = 100 + rng.below(500);
            let deep = nested(rng, depth);
            if rng.chance(50) {
                return deep.into_bytes();
            }
            let field = rng.pick(&["campaigns", "schedule", "events", "amount", "cpm"]);
            format!("{{\"account_id\":{},\"{field}\":{deep}}}", w.accounts[0]).into_bytes()
        }
        72..=77 => {
            let n = 1_000 + rng.below(4_001);
            let element = match rng.below(4) {
                0 => json!(w.ads[0]),
                1 => json!("x"),
                2 => base.clone(),
                _ => odd_value(rng, w, 0),
            };
            let field = rng.pick(&["campaigns", "events", "ad_ids", "channels", "extra"]);
            base[field] = Value::Array(vec![element; n]);
            let mut bytes = base.to_string().into_bytes();
            bytes.truncate(MAX_BODY);
            bytes
        }
        78..=83 => (0..1 + rng.below(2_000))
            .map(|_| rng.next() as u8)
            .collect(),
        84..=89 => {
            let mut bytes = base.to_string().into_bytes();
            bytes.truncate(rng.below(bytes.len()));
            bytes
        }
        90..=94 => rng
            .pick(&["null", "[]", "\"x\"", "1", "true", "", "   ", "{}", "[{}]"])
            .into(),
        _ => {
            let text = base.to_string();
            match rng.below(4) {
                0 => format!("\u{feff}{text}"),
                1 => format!("{text},"),
                2 => text.replacen('{', "{\"account_id\":1,", 1),
                _ => text.replacen('}', ",}", 1),
            }
            .into_bytes()
        }
    }
}

/// A PNG signature, which is all the upload checks the type by.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR-not-a-real-image";

/// A multipart upload body (sometimes with a wrong field, wrong content or a broken frame)
/// and the Content-Type that announces it.
pub(super) fn media_body(rng: &mut Rng) -> (Vec<u8>, String) {
    let boundary = "fuzzBoundary7";
    let field = rng.pick(&["file", "file", "upload", "", "é€"]);
    let content: Vec<u8> = match rng.below(3) {
        0 => PNG.to_vec(),
        1 => b"GIF89a\x01\0\x01\0".to_vec(),
        _ => (0..rng.below(3_000)).map(|_| rng.next() as u8).collect(),
    };
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(&content);
    if rng.chance(80) {
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    }
    let content_type = match rng.below(5) {
        0 => "multipart/form-data".to_string(),
        1 => "multipart/form-data; boundary=".to_string(),
        2 => "multipart/form-data; boundary=other".to_string(),
        _ => format!("multipart/form-data; boundary={boundary}"),
    };
    (body, content_type)
}
