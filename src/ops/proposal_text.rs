//! Owns how a proposal is worded for people, alike in the panel's list and the bot's
//! messages: its change, its readings and what became of it, from the catalogue in the
//! reader's language.

use serde_json::Value;

use crate::domain::money::CabinetType;
use crate::i18n::Lang;
use crate::store::proposals::{Named, ProposalRow};

/// A planned change (`Planned::to_json`) as a phrase.
pub fn change(lang: Lang, change: &Value, kind: CabinetType) -> String {
    let cur = kind.currency();
    let text = |key: &str| change[key].as_str().unwrap_or("").to_string();
    match change["type"].as_str() {
        Some("pause") => lang.t("proposal-change-pause"),
        Some("resume") => lang.t("proposal-change-resume"),
        Some("cpm") => lang.ta(
            "proposal-change-cpm",
            &[
                ("from", text("from").into()),
                ("to", text("to").into()),
                ("currency", cur.into()),
            ],
        ),
        Some("add_budget") => lang.ta(
            "proposal-change-add-budget",
            &[("amount", text("amount").into()), ("currency", cur.into())],
        ),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// The readings that matched (`{"spent (24h)": "5", ...}`) as one line.
pub fn readings(matched: &Value) -> String {
    match matched.as_object() {
        Some(map) => map
            .iter()
            .map(|(k, v)| format!("{k}: {}", v.as_str().map_or(v.to_string(), str::to_string)))
            .collect::<Vec<_>>()
            .join("; "),
        None => String::new(),
    }
}

/// A proposal's message: the rule, the change, the campaign, the readings, the expiry.
pub fn proposal(lang: Lang, n: &Named, cabinet: &str, kind: CabinetType) -> String {
    let p = &n.row;
    lang.ta(
        "bot-proposal",
        &[
            ("rule", n.rule_name.as_str().into()),
            ("change", change(lang, &p.change, kind).into()),
            ("title", n.title.as_str().into()),
            ("id", p.ad_id.to_string().into()),
            ("cabinet", cabinet.into()),
            ("readings", readings(&p.matched).into()),
            ("expires", short_time(&p.expires_at).into()),
        ],
    )
}

/// What became of a decided proposal, with who decided it (their email).
pub fn decided(lang: Lang, p: &ProposalRow, who: Option<&str>) -> String {
    let who = who.unwrap_or("?");
    let via = p.decided_via.as_deref().unwrap_or("");
    let outcome = p.outcome.as_deref().unwrap_or("");
    match p.state.as_str() {
        "approved" => lang.ta(
            "bot-proposal-approved",
            &[("person", who.into()), ("via", via.into())],
        ),
        "rejected" => lang.ta(
            "bot-proposal-rejected",
            &[("person", who.into()), ("via", via.into())],
        ),
        "failed" => lang.ta(
            "bot-proposal-failed",
            &[
                ("person", who.into()),
                ("via", via.into()),
                (
                    "why",
                    outcome.rsplit("not done: ").next().unwrap_or("").into(),
                ),
            ],
        ),
        "expired" => lang.t("bot-proposal-expired"),
        other => other.to_string(),
    }
}

/// `2026-11-28T19:00:00Z` as `2026-11-28 19:00`.
pub fn short_time(iso: &str) -> String {
    iso.get(..16).unwrap_or(iso).replace('T', " ")
}
