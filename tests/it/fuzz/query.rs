//! Owns the query strings: each route's own parameters with plausible or near-miss values,
//! and now and then hundreds of unknown, junk or badly escaped pairs.

use adcab::primitives::form_encode as encode;

use super::values::{junk_text, ODD_STRINGS};
use super::world::{hex, Rng, World};

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
pub(super) fn query(rng: &mut Rng, w: &World, route: &str) -> String {
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
