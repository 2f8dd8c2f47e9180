//! Owns the bounded fuzz of the HTTP surface: a few thousand malformed or half-valid requests
//! (every route, unknown paths, protocol garbage) from a fixed seed, each answer checked to be
//! under 500 and in the spec's envelope.

use std::collections::BTreeMap;
use std::io::Write;
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use crate::helpers::{printed, read_answer, read_head, spawn_app_with, Camp, RawResp, TestApp};
use adcab::panel::{self, NewKey};
use serde_json::{json, Map, Value};

/// The fixed seed: the same requests on every run.
const SEED: u64 = 0x00ad_cab5_eed0_f022;
/// Requests the generator makes (the fixed protocol cases come on top).
const REQUESTS: usize = 3_000;
/// Largest body the generator builds, below the 2 MB JSON limit.
const MAX_BODY: usize = 1_900_000;
/// Failures listed when the test fails.
const SHOWN: usize = 20;

/// xorshift64*: tiny and deterministic, enough to pick cases.
struct Rng(u64);

impl Rng {
    /// The next 64 random bits.
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items`, each as likely.
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// What the fuzz aims at: the fixtures' keys, cabinets, campaigns, group, task and tracker.
struct World {
    manage: String,
    read_only: String,
    /// The euro cabinet, then the stars one.
    accounts: [i64; 2],
    /// Campaigns the fuzz reads and changes but never deletes on purpose.
    ads: Vec<i64>,
    /// Campaigns the fuzz may delete.
    doomed: Vec<i64>,
    group: i64,
    task: i64,
    tracker: String,
    /// A campaign-list cursor the service would issue.
    cursor: String,
}

/// An agency owner with a euro and a stars cabinet, two keys, campaigns (funded, unfunded,
/// bot and website ones with refs, one in a group), a create task and a tracker token.
fn world(app: &TestApp) -> World {
    let user = app.user("agency");
    let euro = app.cabinet(user, "euro", "100000");
    let stars = app.cabinet(user, "stars", "1000000");
    let manage = app.key_with(NewKey {
        user,
        manage: true,
        postbacks: true,
        ..NewKey::default()
    });
    let read_only = app.key(user);
    let group = printed(panel::group_add(&app.services, euro, "Fuzz", Some("#ff8800")).unwrap())
        ["id"]
        .as_i64()
        .unwrap();
    let ads = vec![
        app.funded(euro, 50_000_000),
        app.funded(stars, 2_000_000_000),
        app.campaign(
            euro,
            Camp::channel("Bot", "https://t.me/shop_bot?start=promo42"),
        ),
        app.campaign(
            euro,
            Camp::site("Shop", "https://shop.example.com/?subid=s-77"),
        ),
        app.campaign(
            stars,
            Camp {
                budget_micros: 0,
                ..Camp::channel("Empty", "https://t.me/alpha_chan")
            },
        ),
        app.campaign(
            euro,
            Camp {
                group: Some(group),
                ..Camp::channel("Grouped", "https://t.me/beta_chan")
            },
        ),
    ];
    let doomed = vec![app.funded(euro, 7_000_000), app.funded(stars, 600_000_000)];
    let created = app.send(
        "POST",
        "/campaigns",
        &manage,
        Some(&json!({
            "account_id": euro, "title": "Seed", "text": "Read us daily",
            "promote_url": "https://t.me/alpha_chan", "cpm": 2, "budget": 10,
            "target_type": "channels", "channels": ["@tech_daily"]
        })),
        &[("Idempotency-Key", "fuzz-seed-create-0001")],
    );
    assert_eq!(created.status, 202, "{}", created.body);
    let tracker = printed(panel::tracker_rotate(&app.services, user).unwrap())["token"]
        .as_str()
        .unwrap()
        .to_string();
    World {
        manage,
        read_only,
        accounts: [euro, stars],
        cursor: hex(&format!("v1:{euro}:{}", ads[0])),
        ads,
        doomed,
        group,
        task: created.body["data"]["id"].as_i64().unwrap(),
        tracker,
    }
}

/// The lowercase hex of `text`'s bytes, as the service spells its list cursors.
fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

/// One request as bytes, and what sending and checking it needs to know.
struct Case {
    bytes: Vec<u8>,
    /// The route it aims at, for the summary.
    route: &'static str,
    /// Closes the write side after the bytes: a body cut short, which may go unanswered.
    cut: bool,
}

impl Case {
    fn new(route: &'static str, bytes: impl Into<Vec<u8>>) -> Case {
        Case {
            bytes: bytes.into(),
            route,
            cut: false,
        }
    }

    /// A HEAD request's answer has no body.
    fn head(&self) -> bool {
        self.bytes.starts_with(b"HEAD ")
    }

    /// The request as the failure list shows it: escaped, long runs cut.
    fn shown(&self) -> String {
        let text = String::from_utf8_lossy(&self.bytes);
        let escaped: Vec<char> = text.chars().flat_map(char::escape_default).collect();
        if escaped.len() <= 600 {
            return escaped.into_iter().collect();
        }
        let start: String = escaped[..450].iter().collect();
        let end: String = escaped[escaped.len() - 150..].iter().collect();
        format!("{start} …[{} bytes in all]… {end}", self.bytes.len())
    }
}

/// What a generated request aims at: each route of the table, and paths it does not have.
const ROUTES: [&str; 20] = [
    "account_info",
    "targeting",
    "groups",
    "list",
    "create",
    "campaign",
    "pause",
    "resume",
    "budget",
    "copy",
    "history",
    "bulk",
    "task",
    "media",
    "stats",
    "stats_total",
    "postback",
    "conversions",
    "ingest",
    "unknown",
];

/// Request targets the route table does not serve.
const UNKNOWN_PATHS: [&str; 18] = [
    "/",
    "/api",
    "/api/v1",
    "/api/v1/",
    "/api/v2/targeting",
    "/API/V1/targeting",
    "/api/v1/nope",
    "/api/v1/campaigns/1/fly",
    "/api/v1/campaigns/1/history/extra",
    "/api/v1//campaigns",
    "/api/v1/ingest/",
    "/api/v1/ingest/a/b",
    "/api/v1/tasks",
    "/api/v1/stats/total/more",
    "/api/v1/../v1/targeting",
    "/%2e%2e/%2e%2e/etc/passwd",
    "*",
    "http://127.0.0.1/api/v1/targeting",
];

/// JSON numbers at the edges: signs, exponents, past `i64`, past `f64`, more decimals
/// than money has.
const ODD_NUMBERS: [&str; 20] = [
    "0",
    "-0",
    "1",
    "-1",
    "2.5",
    "4",
    "1e5",
    "1E400",
    "1e-400",
    "-1e400",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "9223372036854775807999",
    "9223372036854.775807",
    "0.0000001",
    "123456789012345678901234567890.5",
    "18446744073709551616",
    "500",
    "100000000000000",
];

/// Strings that look like amounts or ids but are not, or only nearly.
const ODD_STRINGS: [&str; 24] = [
    "1e5",
    "1_0",
    " 5",
    "+5",
    "é€",
    "-0",
    "9223372036854.775807",
    "9223372036854775807999",
    "",
    "0",
    "1.0000001",
    "5 ",
    "0x10",
    "1,5",
    "١٢",
    "NaN",
    "Infinity",
    "-1",
    "2.50",
    "500",
    "0.000001",
    "10.",
    ".5",
    "1e-7",
];

/// Words valid somewhere in the API, to put where they are not.
const ENUM_WORDS: [&str; 24] = [
    "channels",
    "bots",
    "search",
    "users",
    "add",
    "withdraw",
    "withdraw_all",
    "pause",
    "resume",
    "set_cpm",
    "set_schedule",
    "delete",
    "viewer",
    "+05:45",
    "UTC+3",
    "-12:00",
    "lead",
    "purchase",
    "#ff0000",
    "subscribe",
    "mon",
    "https://t.me/alpha_chan",
    "@tech_daily",
    "https://shop.example.com/x",
];

/// Characters for junk text: separators, quotes, escapes, controls, non-ASCII.
const TEXT_CHARS: [char; 34] = [
    'a', 'Z', '0', '9', ' ', '-', '_', '.', '%', '&', '=', '+', '/', '?', '#', '"', '\'', '\\',
    'é', '€', '😀', '\u{0}', '\u{7f}', '\u{202e}', '<', '>', ';', ',', ':', '@', '*', '\n', '\t',
    '\u{fffd}',
];

/// A short random text over awkward characters.
fn junk_text(rng: &mut Rng, max: usize) -> String {
    let n = rng.below(max + 1);
    (0..n).map(|_| rng.pick(&TEXT_CHARS)).collect()
}

/// A JSON value chosen to break the field it lands in.
fn odd_value(rng: &mut Rng, w: &World, depth: usize) -> Value {
    match rng.below(11) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 | 3 => serde_json::from_str(rng.pick(&ODD_NUMBERS)).expect("a JSON number"),
        4 | 5 => json!(rng.pick(&ODD_STRINGS)),
        6 => json!(junk_text(rng, 40)),
        7 if depth < 3 => Value::Array(
            (0..rng.below(4))
                .map(|_| odd_value(rng, w, depth + 1))
                .collect(),
        ),
        8 if depth < 3 => json!({ "x": odd_value(rng, w, depth + 1) }),
        9 => json!(rng.pick(&ENUM_WORDS)),
        _ => json!(rng.pick(&[
            w.accounts[0],
            w.accounts[1],
            w.ads[0],
            w.ads[2],
            w.group,
            w.task
        ])),
    }
}

/// A path segment: the valid one about half the time, else a mutation of it.
fn segment(rng: &mut Rng, valid: &str) -> String {
    if rng.chance(55) {
        return valid.to_string();
    }
    let long = |c: char, n: usize| std::iter::repeat_n(c, n).collect::<String>();
    match rng.below(16) {
        0 => "0".into(),
        1 => "-1".into(),
        2 => "9223372036854775807".into(),
        3 => "9223372036854775808".into(),
        4 => "-9223372036854775808".into(),
        5 => "99999999999999999999999999".into(),
        6 => "é€".into(),
        7 => "%C3%A9%E2%82%AC".into(),
        8 => "%zz".into(),
        9 => "..".into(),
        10 => String::new(),
        11 => {
            let n = 100 + rng.below(8_000);
            long(rng.pick(&['9', 'a', '%']), n)
        }
        12 => "%00".into(),
        13 => rng
            .pick(&["1e3", "+5", "%205", "0x1F", "1.0", "%2F", "-0", "null"])
            .into(),
        14 => format!("{valid}{valid}"),
        _ => format!("{valid};x=1"),
    }
}

/// Percent-encodes everything but the unreserved characters.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Query parameter names the API reads somewhere, and the postback aliases.
const QUERY_KEYS: [&str; 30] = [
    "account_id",
    "accountId",
    "limit",
    "cursor",
    "status",
    "period",
    "startDate",
    "endDate",
    "startHour",
    "endHour",
    "ad_id",
    "event",
    "since",
    "until",
    "title",
    "type",
    "bot_username",
    "promote_domain",
    "promote_domain_mode",
    "sortBy",
    "sortOrder",
    "offset",
    "ref",
    "txid",
    "amount",
    "currency",
    "subid",
    "goal",
    "payout",
    "link",
];

/// A value that makes sense for the query parameter `key`, or a near miss.
fn query_value(rng: &mut Rng, w: &World, key: &str) -> String {
    let sure = |rng: &mut Rng, xs: &[&str]| rng.pick(xs).to_string();
    match key {
        "account_id" | "accountId" => match rng.below(4) {
            0 | 1 => rng.pick(&w.accounts).to_string(),
            _ => sure(rng, &["0", "-5", "999999", "1.5", "9223372036854775808"]),
        },
        "limit" | "offset" | "startHour" | "endHour" => sure(
            rng,
            &["0", "1", "23", "24", "100", "500", "501", "-1", "1e2", "07"],
        ),
        "cursor" => match rng.below(4) {
            0 => w.cursor.clone(),
            1 => String::new(),
            2 => hex(&sure(
                rng,
                &[
                    "v1:9223372036854775807:9223372036854775807",
                    "v1:-9223372036854775808:0",
                    "v1:1",
                    "v1:1:2:3",
                    "v2:1:1",
                    "v1:é:€",
                ],
            )),
            _ => sure(
                rng,
                &["zz", "12", "abc", "0", "-1", "9999999999999999999999"],
            ),
        },
        "status" => sure(
            rng,
            &[
                "Active",
                "active,paused",
                "Deleted",
                "In Review",
                "Nope",
                ",",
                "ACTIVE,,",
            ],
        ),
        "period" => sure(
            rng,
            &["1d", "7d", "30d", "all", "24h", "custom", "x", "365d"],
        ),
        "startDate" | "endDate" | "since" | "until" => sure(
            rng,
            &[
                "2024-01-01",
                "2024-02-30",
                "9999-12-31",
                "0001-01-01",
                "2024-1-1",
                "today",
                "2024-01-01T00:00:00Z",
                "-2024-01-01",
                "+002024-01-01",
                "1970-01-01",
                "+275760-09-13T00:00:00Z",
                "2024-01-01T25:61:61Z",
                "1e10",
            ],
        ),
        "ad_id" => match rng.below(2) {
            0 => rng.pick(&w.ads).to_string(),
            _ => sure(rng, &["0", "x", "-3", "18446744073709551616"]),
        },
        "event" | "goal" => sure(rng, &["lead", "purchase", "signup", "sale", "nope", ""]),
        "type" => sure(rng, &["bot", "channel", "site", "x", "join"]),
        "sortBy" => sure(
            rng,
            &[
                "date", "ad_id", "title", "status", "views", "spent", "cpm", "x",
            ],
        ),
        "sortOrder" | "promote_domain_mode" => sure(rng, &["asc", "desc", "exact", "suffix", "x"]),
        "ref" | "subid" => sure(rng, &["promo42", "s-77", "unknown", ""]),
        "amount" | "payout" => rng.pick(&ODD_STRINGS).to_string(),
        _ => junk_text(rng, 30),
    }
}

/// A query string: the route's own parameters with plausible or near-miss values, a few more
/// known ones, well encoded; now and then up to 250 pairs with unknown names, junk values
/// and broken escapes.
fn query(rng: &mut Rng, w: &World, route: &str) -> String {
    let mut pairs: Vec<(String, String)> = Vec::new();
    if route == "ingest" && rng.chance(70) {
        pairs.push(("ref".into(), rng.pick(&["promo42", "s-77"]).into()));
        pairs.push(("event".into(), "signup".into()));
        pairs.push(("txid".into(), format!("fz{}", rng.below(50))));
    }
    if route == "history" && rng.chance(50) {
        pairs.push(("period".into(), "custom".into()));
    }
    let own: &[&str] = match route {
        "history" => &["startDate", "endDate", "startHour", "endHour", "period"],
        "list" => &[
            "cursor",
            "limit",
            "offset",
            "sortBy",
            "sortOrder",
            "status",
            "type",
            "bot_username",
            "promote_domain",
            "promote_domain_mode",
            "title",
        ],
        "conversions" => &["since", "until", "ad_id", "event", "cursor", "limit"],
        "stats" | "stats_total" => &["period"],
        _ => &[],
    };
    for key in own.iter().chain(&["account_id"]) {
        if rng.chance(40) {
            pairs.push((key.to_string(), query_value(rng, w, key)));
        }
    }
    let wild = rng.chance(30);
    let n = match rng.below(100) {
        0..=34 => 0,
        35..=84 => 1 + rng.below(6),
        _ if !wild => 7,
        85..=94 => 7 + rng.below(40),
        _ => 150 + rng.below(101),
    };
    for _ in 0..n {
        let key = if !wild || rng.chance(85) {
            rng.pick(&QUERY_KEYS).to_string()
        } else {
            junk_text(rng, 12)
        };
        let value = if !wild || rng.chance(60) {
            query_value(rng, w, &key)
        } else {
            junk_text(rng, 30)
        };
        pairs.push((key, value));
    }
    let text: Vec<String> = pairs
        .iter()
        .map(|(k, v)| match rng.below(100) {
            _ if !wild => format!("{}={}", encode(k), encode(v)),
            0..=84 => format!("{}={}", encode(k), encode(v)),
            85..=89 => encode(k),
            90..=94 => format!("{k}={v}"),
            _ => format!(
                "{}={}%{}",
                encode(k),
                encode(v),
                rng.pick(&["z", "", "e9", "C3", "0"])
            ),
        })
        .collect();
    text.join("&")
}

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
fn json_body(rng: &mut Rng, w: &World, route: &str) -> Vec<u8> {
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
fn media_body(rng: &mut Rng) -> (Vec<u8>, String) {
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

/// The `X-API-Key` header line: mostly a valid key, else a wrong one, two, or none.
fn key_header(rng: &mut Rng, w: &World) -> Option<Vec<u8>> {
    let value: Vec<u8> = match rng.below(100) {
        0..=69 => w.manage.clone().into_bytes(),
        70..=79 => w.read_only.clone().into_bytes(),
        80..=81 => format!("adcab_{}", hex(&junk_text(rng, 24))).into_bytes(),
        82..=83 => {
            let mut k = w.manage.clone().into_bytes();
            k.truncate(rng.below(k.len()));
            k
        }
        84..=85 => w.tracker.clone().into_bytes(),
        86..=87 => Vec::new(),
        88..=89 => b"adcab_\xff\xfe\xc3".to_vec(),
        90..=91 => {
            return Some(
                format!("X-API-Key: {}\r\nX-API-Key: {}\r\n", w.manage, w.read_only).into_bytes(),
            )
        }
        _ => return None,
    };
    let mut line = b"X-API-Key: ".to_vec();
    line.extend_from_slice(&value);
    line.extend_from_slice(b"\r\n");
    Some(line)
}

/// The `Idempotency-Key` header line: mostly fresh, else shared, odd, or none.
fn idempotency_header(rng: &mut Rng, i: usize) -> Option<String> {
    let value = match rng.below(100) {
        0..=74 => format!("fuzz-{i:06}-{:016x}", rng.next()),
        75..=81 => "fuzz-shared-key-0001".to_string(),
        82..=89 => return None,
        90..=94 => "k".repeat(rng.pick(&[0, 1, 7, 8, 255, 256, 300])),
        _ => {
            let n = rng.below(301);
            (0..n)
                .map(|_| rng.pick(&['a', '0', '-', ' ', 'é', '€', '😀', '"', '\t', '~']))
                .collect()
        }
    };
    Some(format!("Idempotency-Key: {value}\r\n"))
}

/// Turns a method natural for the route into a wrong or junk one now and then.
fn method(rng: &mut Rng, natural: &str) -> String {
    match rng.below(100) {
        0..=79 => natural.to_string(),
        80..=89 => rng
            .pick(&["GET", "POST", "PATCH", "DELETE", "PUT", "HEAD"])
            .to_string(),
        90..=95 => rng
            .pick(&[
                "OPTIONS", "TRACE", "get", "Post", "PROPFIND", "M-SEARCH", "X", "CONNECT",
            ])
            .to_string(),
        _ => (0..1 + rng.below(40))
            .map(|_| rng.pick(&['A', 'z', '!', '#', '$', '~', '|', '\'', '@', '(', 'é']))
            .collect(),
    }
}

/// Flips, drops or inserts a few bytes of a request head.
fn mangle(rng: &mut Rng, head: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(3) {
        if head.is_empty() {
            return;
        }
        let at = rng.below(head.len());
        match rng.below(3) {
            0 => head[at] = rng.next() as u8,
            1 => {
                head.remove(at);
            }
            _ => head.insert(
                at,
                rng.pick(&[0u8, 1, b'\r', b'\n', 0x7f, 0xff, b' ', b':']),
            ),
        }
    }
}

/// One generated request.
fn generate(rng: &mut Rng, w: &World, i: usize) -> Case {
    let route = rng.pick(&ROUTES);
    let ad = rng.pick(&w.ads).to_string();
    let (natural, path) = match route {
        "account_info" => ("GET", "/api/v1/account/info".to_string()),
        "targeting" => ("GET", "/api/v1/targeting".into()),
        "groups" => ("GET", "/api/v1/groups".into()),
        "list" => ("GET", "/api/v1/campaigns".into()),
        "create" => ("POST", "/api/v1/campaigns".into()),
        "campaign" => (rng.pick(&["GET", "PATCH", "DELETE"]), String::new()),
        "pause" | "resume" | "budget" | "copy" | "history" => {
            let m = if route == "history" { "GET" } else { "POST" };
            (
                m,
                format!("/api/v1/campaigns/{}/{route}", segment(rng, &ad)),
            )
        }
        "bulk" => ("POST", "/api/v1/campaigns/bulk".into()),
        "task" => (
            "GET",
            format!("/api/v1/tasks/{}", segment(rng, &w.task.to_string())),
        ),
        "media" => ("POST", "/api/v1/media".into()),
        "stats" => ("GET", "/api/v1/stats".into()),
        "stats_total" => ("GET", "/api/v1/stats/total".into()),
        "postback" => ("POST", "/api/v1/postback".into()),
        "conversions" => ("GET", "/api/v1/conversions".into()),
        "ingest" => {
            let token = match rng.below(4) {
                0 => format!("trk_{}", hex(&junk_text(rng, 24))),
                _ => w.tracker.clone(),
            };
            (
                rng.pick(&["GET", "POST"]),
                format!("/api/v1/ingest/{}", segment(rng, &token)),
            )
        }
        _ => ("GET", rng.pick(&UNKNOWN_PATHS).to_string()),
    };
    let method = method(rng, natural);
    let mut target = if route == "campaign" {
        // Chosen once the method is: a DELETE only names a campaign the fuzz may lose.
        let ad = rng.pick(if method == "DELETE" {
            &w.doomed
        } else {
            &w.ads
        });
        format!("/api/v1/campaigns/{}", segment(rng, &ad.to_string()))
    } else {
        path
    };
    let q = query(rng, w, route);
    if !q.is_empty() || rng.chance(5) {
        target = format!("{target}?{q}");
    }
    let (body, content_type) = match route {
        "media" => {
            let (body, ct) = media_body(rng);
            (body, Some(ct))
        }
        "create" | "budget" | "copy" | "bulk" | "postback" => (
            json_body(rng, w, route),
            Some("application/json".to_string()),
        ),
        "campaign" if method == "PATCH" || rng.chance(15) => (
            json_body(rng, w, route),
            Some("application/json".to_string()),
        ),
        _ if rng.chance(12) => (
            json_body(rng, w, route),
            Some("application/json".to_string()),
        ),
        _ => (Vec::new(), None),
    };
    let content_type = match rng.below(100) {
        0..=79 => content_type,
        80..=84 => None,
        _ => Some(
            rng.pick(&[
                "application/json; charset=utf-8",
                "text/plain",
                "multipart/form-data; boundary=fuzzBoundary7",
                "multipart/form-data",
                "application/x-www-form-urlencoded",
                "é€/ü",
                "",
                "application/json, application/json",
            ])
            .to_string(),
        ),
    };
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n").into_bytes();
    if let Some(line) = key_header(rng, w) {
        head.extend_from_slice(&line);
    }
    if let Some(line) = idempotency_header(rng, i) {
        head.extend_from_slice(line.as_bytes());
    }
    if let Some(ct) = content_type {
        head.extend_from_slice(format!("Content-Type: {ct}\r\n").as_bytes());
    }
    if rng.chance(4) {
        mangle(rng, &mut head);
    }
    head.extend_from_slice(
        format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    head.extend_from_slice(&body);
    Case::new(route, head)
}

/// Requests that break HTTP itself, each sent once.
fn protocol_cases(w: &World) -> Vec<Case> {
    let tail = "Host: x\r\nConnection: close\r\n\r\n";
    let line = |l: &str| Case::new("protocol", format!("{l}\r\n{tail}"));
    let with = |headers: &str| {
        Case::new(
            "protocol",
            format!(
                "GET /api/v1/account/info HTTP/1.1\r\nX-API-Key: {}\r\n{headers}{tail}",
                w.manage
            ),
        )
    };
    let post = |path: &str, headers: &str, body: &[u8]| {
        let mut bytes = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nX-API-Key: {}\r\nIdempotency-Key: fuzz-protocol-0001\r\nContent-Type: application/json\r\n{headers}Connection: close\r\n\r\n",
            w.manage
        )
        .into_bytes();
        bytes.extend_from_slice(body);
        Case::new("protocol", bytes)
    };
    let mut cases = vec![
        Case::new("protocol", "GARBAGE\r\n\r\n"),
        Case::new("protocol", "GET\r\n\r\n"),
        Case::new("protocol", "GET /api/v1/targeting\r\n\r\n"),
        Case::new(
            "protocol",
            "\r\n\r\nGET /api/v1/targeting HTTP/1.1\r\nConnection: close\r\n\r\n",
        ),
        Case::new(
            "protocol",
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n".to_vec(),
        ),
        Case::new("protocol", b"\x00\x01\x02\x03\xff\xfe\r\n\r\n".to_vec()),
        Case::new("protocol", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
        line("GET /api/v1/targeting HTTP/1.1 extra"),
        line("GET  /api/v1/targeting  HTTP/1.1"),
        line("GET\t/api/v1/targeting\tHTTP/1.1"),
        line("GET /api/v1/targeting HTTP/2.0"),
        line("GET /api/v1/targeting HTTP/1.2"),
        line("GET /api/v1/targeting HTTP/0.9"),
        line("GET /api/v1/targeting HTTP/9.9"),
        line("GET /api/v1/targeting HTTPS/1.1"),
        line("GET /api/v1/targeting http/1.1"),
        line("GET /api/v1/targeting HTTP/1.10"),
        line("GET /api/v1/targeting HTTP/ 1.1"),
        line("GET /api/v1/targeting HTTP/1.1\0"),
        line("OPTIONS * HTTP/1.1"),
        line("CONNECT 127.0.0.1:80 HTTP/1.1"),
        line("GET http://127.0.0.1/api/v1/targeting HTTP/1.1"),
        line("GET //api/v1/targeting HTTP/1.1"),
        line("GET api/v1/targeting HTTP/1.1"),
        line("GET /api/v1/campaigns/é€ HTTP/1.1"),
        Case::new(
            "protocol",
            b"GET /api/v1/campaigns/\xff\xfe HTTP/1.1\r\nConnection: close\r\n\r\n".to_vec(),
        ),
        line(&format!(
            "GET /api/v1/targeting?{} HTTP/1.1",
            "a".repeat(70 * 1024)
        )),
        line(&format!("GET /api/v1/{} HTTP/1.1", "x/".repeat(35 * 1024))),
        with(
            &(0..150)
                .map(|i| format!("X-Fuzz-{i}: {i}\r\n"))
                .collect::<String>(),
        ),
        with(&format!("X-Big: {}\r\n", "b".repeat(200 * 1024))),
        with(&format!("X-Big: {}\r\n", "b".repeat(500 * 1024))),
        with("X-Fuzz: a\x01b\r\n"),
        with("X-Fuzz: a\0b\r\n"),
        with("X-Fuzz: \x7f\r\n"),
        with("X-Fuzz: a\rb\r\n"),
        with("X-Fuzz: a\x1bb\r\n"),
        with("Idempotency-Key: fuzz\x02key-0002\r\n"),
        with("NoColon\r\n"),
        with("Bad Name: x\r\n"),
        with(": empty name\r\n"),
        with("X-Fuzz: first\r\n folded\r\n"),
        with("X-Fuzz-é: x\r\n"),
        with("Content-Length: -1\r\n"),
        with("Content-Length: abc\r\n"),
        with("Content-Length: 99999999999999999999999\r\n"),
        with("Content-Length: 1\r\nContent-Length: 2\r\n"),
        with("Transfer-Encoding: gzip\r\n"),
        with("Transfer-Encoding: chunked, identity\r\n"),
        Case::new(
            "protocol",
            format!(
                "GET /api/v1/account/info HTTP/1.1\nX-API-Key: {}\nConnection: close\n\n",
                w.manage
            ),
        ),
        post(
            "/api/v1/postback",
            "Transfer-Encoding: chunked\r\n",
            b"zz\r\n{}\r\n0\r\n\r\n",
        ),
        post(
            "/api/v1/campaigns/bulk",
            "Transfer-Encoding: chunked\r\n",
            b"ffffffffffffffffffff\r\nx\r\n0\r\n\r\n",
        ),
        post(
            "/api/v1/postback",
            "Transfer-Encoding: chunked\r\n",
            b"2;ext=1\r\n{}\r\n0\r\nX-Trailer: 1\r\n\r\n",
        ),
        post("/api/v1/campaigns", "Content-Length: 3000000\r\n", b""),
        post("/api/v1/media", "Content-Length: 20000000\r\n", b""),
        post(
            "/api/v1/postback",
            "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
            b"2\r\n{}\r\n0\r\n\r\n",
        ),
        post(
            "/api/v1/postback",
            "Content-Length: 2\r\n",
            b"{}GET /api/v1/targeting HTTP/1.1\r\n\r\n",
        ),
    ];
    for path in ["/api/v1/postback", "/api/v1/campaigns", "/api/v1/targeting"] {
        let mut cut = post(path, "Content-Length: 500\r\n", b"{\"ref\":\"promo42\",");
        cut.cut = true;
        cases.push(cut);
    }
    cases
}

/// Sends the case on a new connection, writing from a second thread so that an answer sent
/// before the whole body was read is still taken, and reads one answer.
fn exchange(app: &TestApp, case: &Case) -> std::io::Result<RawResp> {
    let mut stream = TcpStream::connect(app.addr())?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut writer = stream.try_clone()?;
    std::thread::scope(|s| {
        s.spawn(move || {
            let _ = writer.write_all(&case.bytes);
            if case.cut {
                let _ = writer.shutdown(Shutdown::Write);
            }
        });
        if case.head() {
            read_head(&mut stream)
        } else {
            read_answer(&mut stream)
        }
    })
}

/// What is wrong with an answer: a 5xx, no request id, or a body that is not the envelope.
fn fault(answer: &RawResp, head: bool) -> Option<String> {
    if answer.status >= 500 {
        return Some(format!("status {}: {}", answer.status, answer.body));
    }
    let Some(id) = answer.headers.get("x-request-id") else {
        return Some(format!("status {} without x-request-id", answer.status));
    };
    if head {
        return None;
    }
    let Ok(body) = serde_json::from_str::<Value>(&answer.body) else {
        return Some(format!(
            "status {}, body not JSON: {:?}",
            answer.status, answer.body
        ));
    };
    let ok = match body["success"] {
        Value::Bool(true) => answer.status < 400 && body.get("data").is_some(),
        Value::Bool(false) => {
            answer.status >= 400
                && body["error"].as_str().is_some_and(|e| !e.is_empty())
                && body["code"].is_string()
                && body["request_id"].as_str() == Some(id.as_str())
        }
        _ => false,
    };
    (!ok).then(|| format!("status {}, not an envelope: {body}", answer.status))
}

/// Every route and unknown paths, bad methods, queries, headers and bodies, and protocol
/// garbage: no answer is a 5xx or outside the envelope, and the service still serves after.
#[test]
fn malformed_requests_never_get_a_5xx_or_a_non_envelope_answer() {
    let app = spawn_app_with(|c| {
        c.limits.reads_per_minute = 1_000_000;
        c.limits.writes_per_minute = 1_000_000;
        c.limits.conversions_burst = 1_000_000;
        c.limits.conversions_per_second = 1_000_000;
    });
    let w = world(&app);
    let mut rng = Rng(SEED);
    let mut cases = protocol_cases(&w);
    let fixed = cases.len();
    cases.extend((0..REQUESTS).map(|i| generate(&mut rng, &w, i)));

    let started = Instant::now();
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    let mut codes: BTreeMap<String, usize> = BTreeMap::new();
    let mut routes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut unanswered = 0;
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        *routes.entry(case.route).or_default() += 1;
        match exchange(&app, case) {
            Ok(answer) => {
                *statuses.entry(answer.status).or_default() += 1;
                let code = serde_json::from_str::<Value>(&answer.body)
                    .ok()
                    .and_then(|b| b["code"].as_str().map(str::to_string));
                if let Some(code) = code {
                    *codes.entry(code).or_default() += 1;
                }
                if let Some(why) = fault(&answer, case.head()) {
                    failures.push(format!("case {i}: {why}\n    request: {}", case.shown()));
                }
            }
            Err(_) if case.cut => unanswered += 1,
            Err(e) => failures.push(format!(
                "case {i}: no answer ({e})\n    request: {}",
                case.shown()
            )),
        }
    }
    let took = started.elapsed();
    println!(
        "fuzz: {} requests ({fixed} protocol cases, {REQUESTS} generated) in {took:.1?}; \
         {unanswered} cut-short bodies unanswered",
        cases.len()
    );
    println!("fuzz: per status {statuses:?}");
    println!("fuzz: per error code {codes:?}");
    println!("fuzz: per route {routes:?}");

    app.get_ok("/account/info", &w.manage);
    let targeting = app.get_ok("/targeting", &w.read_only);
    assert!(targeting["data"]["buttons"].is_array());
    assert!(
        failures.is_empty(),
        "{} of {} requests were answered wrongly; the first {}:\n{}",
        failures.len(),
        cases.len(),
        failures.len().min(SHOWN),
        failures[..failures.len().min(SHOWN)].join("\n")
    );
}
