//! Owns a campaign's history as sentences: each stored change (its action and details) read
//! back as what changed ("Bid changed from 2.00 to 2.50 EUR") and who changed it ("by
//! automation, rule Scale winners"), newest first, in the page's language.

use maud::{html, Markup};
use serde_json::Value;

use super::super::super::Visit;
use crate::domain::campaign::Source;
use crate::domain::money::CabinetType;
use crate::domain::task::BulkKind;
use crate::i18n::Arg;
use crate::store::history::Entry;

/// The history as a table of sentences, newest first.
pub(super) fn table(visit: &Visit, entries: &[Entry], kind: CabinetType) -> Markup {
    let f = visit.fmt();
    let (when, source, change) = (
        visit.t("campaign-when"),
        visit.t("campaign-source"),
        visit.t("campaign-change"),
    );
    html! {
        @if entries.is_empty() {
            div.empty { (visit.t("campaign-history-empty")) }
        } @else {
            div.table-wrap { table.cards.history {
                thead { tr { th { (when) } th { (source) } th { (change) } } }
                tbody {
                    @for e in entries.iter().rev() {
                        tr {
                            td data-label=(when) { (f.time(&e.at)) }
                            td data-label=(source) { span.badge { (source_name(visit, &e.source)) } }
                            td data-label=(change) { (sentence(visit, e, kind)) }
                        }
                    }
                }
            } }
        }
    }
}

/// A source's short name, as the badge shows it.
fn source_name(visit: &Visit, source: &str) -> String {
    match Source::parse(source) {
        Some(s) => visit.t(&format!("campaign-source-{}", s.as_str())),
        None => source.to_string(),
    }
}

/// One change as a sentence: what changed, then who changed it.
pub(super) fn sentence(visit: &Visit, e: &Entry, kind: CabinetType) -> String {
    let null = Value::Null;
    let d = e.details.as_ref().unwrap_or(&null);
    let cur = kind.currency();
    let text = |key: &str| d.get(key).and_then(Value::as_str).unwrap_or("").to_string();
    let money = |v: &Value| format!("{} {cur}", v.as_str().unwrap_or("0"));
    let what = match e.action.as_str() {
        "create" => visit.ta("campaign-h-create", &[("title", text("title").into())]),
        "edit" => edited(visit, d, cur),
        "pause" => visit.t("campaign-h-pause"),
        "resume" => visit.t("campaign-h-resume"),
        "delete" => visit.t("campaign-h-delete"),
        "budget" => {
            let moved = money(&d["moved"]);
            match d["action"].as_str() {
                Some("add") => visit.ta("campaign-h-budget-add", &[("amount", moved.into())]),
                Some("withdraw") => {
                    visit.ta("campaign-h-budget-withdraw", &[("amount", moved.into())])
                }
                _ => visit.ta(
                    "campaign-h-budget-withdraw-all",
                    &[("amount", moved.into())],
                ),
            }
        }
        "recreated_from" => visit.ta("campaign-h-recreated-from", &[("id", id(d))]),
        "recreated_as" => visit.ta("campaign-h-recreated-as", &[("id", id(d))]),
        "rule" => rule_change(visit, &d["change"], cur),
        "auto_cpm" => bid(visit, d.get("from"), &d["to"], cur),
        "proposal" if text("decision") == "rejected" => visit.ta(
            "campaign-h-proposal-rejected",
            &[("rule", text("name").into())],
        ),
        "proposal" => visit.ta(
            "campaign-h-proposal-approved",
            &[
                ("rule", text("name").into()),
                ("outcome", text("outcome").into()),
            ],
        ),
        "reconcile" => visit.ta("campaign-h-reconcile", &[("month", text("month").into())]),
        "zone_refused" => visit.ta(
            "campaign-h-zone-refused",
            &[
                ("zone", text("zone").into()),
                ("offset", text("offset").into()),
                ("held", text("held").into()),
            ],
        ),
        other => match other.strip_prefix("bulk_").and_then(BulkKind::parse) {
            Some(k) => visit.ta(
                "campaign-h-bulk",
                &[
                    ("action", visit.t(&bulk_key(k)).into()),
                    ("task", id_of(d, "task")),
                ],
            ),
            None => other.to_string(),
        },
    };
    let who = author(visit, e, d);
    format!("{what} {who}")
}

/// Who made the change: an AI assistant by its name, for the person whose key it used; Auto
/// CPM; an automation rule by its name of now (or, deleted, by the name it had then or its
/// number); the person by their email with the face they used (or a person no longer there);
/// else the face alone, as rows from before persons were kept read.
fn author(visit: &Visit, e: &Entry, d: &Value) -> String {
    let source = Source::parse(&e.source);
    let then = d.get("name").and_then(Value::as_str);
    if let Some(client) = &e.client {
        // An AI assistant's change through MCP, made with a person's key.
        let person = e
            .user_email
            .clone()
            .unwrap_or_else(|| visit.t("campaign-by-client-someone"));
        return visit.ta(
            "campaign-by-client",
            &[
                ("client", client.as_str().into()),
                ("person", person.into()),
            ],
        );
    }
    match (source, e.action.as_str()) {
        (Some(Source::Automation), "auto_cpm") => visit.t("campaign-by-auto-cpm"),
        (Some(Source::Automation), _) => match (&e.rule_name, e.rule_id, then) {
            (Some(now), _, _) => visit.ta("campaign-by-rule", &[("rule", now.as_str().into())]),
            (None, Some(_), Some(then)) => {
                visit.ta("campaign-by-rule-deleted", &[("rule", then.into())])
            }
            (None, Some(id), None) => {
                visit.ta("campaign-by-rule-gone", &[("id", id.to_string().into())])
            }
            (None, None, Some(then)) => visit.ta("campaign-by-rule", &[("rule", then.into())]),
            (None, None, None) => visit.t("campaign-by-automation"),
        },
        (Some(s), _) => match (e.user_id, &e.user_email) {
            (Some(_), Some(email)) => visit.ta(
                "campaign-by-person",
                &[
                    ("person", email.as_str().into()),
                    ("source", source_name(visit, s.as_str()).into()),
                ],
            ),
            (Some(_), None) => visit.ta(
                "campaign-by-person-gone",
                &[("source", source_name(visit, s.as_str()).into())],
            ),
            (None, _) => visit.t(&format!("campaign-by-{}", s.as_str())),
        },
        (None, _) => e.source.clone(),
    }
}

fn id(d: &Value) -> Arg<'static> {
    id_of(d, "ad_id")
}

fn id_of(d: &Value, key: &str) -> Arg<'static> {
    d.get(key).and_then(Value::as_i64).unwrap_or(0).into()
}

/// The catalogue key naming a bulk action.
fn bulk_key(k: BulkKind) -> String {
    format!("campaign-bulk-{}", k.name().replace('_', "-"))
}

/// A bid's change, from `from` when it is known.
fn bid(visit: &Visit, from: Option<&Value>, to: &Value, cur: &str) -> String {
    let to = to.as_str().unwrap_or("").to_string();
    match from.and_then(Value::as_str) {
        Some(from) => visit.ta(
            "campaign-h-bid-from",
            &[
                ("from", from.into()),
                ("to", to.into()),
                ("currency", cur.into()),
            ],
        ),
        None => visit.ta(
            "campaign-h-bid",
            &[("to", to.into()), ("currency", cur.into())],
        ),
    }
}

/// What an automation rule did (its logged change).
fn rule_change(visit: &Visit, change: &Value, cur: &str) -> String {
    match change["type"].as_str() {
        Some("cpm") => bid(visit, change.get("from"), &change["to"], cur),
        Some("add_budget") => visit.ta(
            "campaign-h-budget-add",
            &[(
                "amount",
                format!("{} {cur}", change["amount"].as_str().unwrap_or("0")).into(),
            )],
        ),
        Some("pause") => visit.t("campaign-h-pause"),
        Some("resume") => visit.t("campaign-h-resume"),
        Some(other) => visit.ta("campaign-h-rule-other", &[("action", other.into())]),
        None => visit.ta("campaign-h-rule-other", &[("action", "?".into())]),
    }
}

/// An edit's changed fields, each as a clause, joined; the bid with its value before when the
/// face stored it (`was`).
fn edited(visit: &Visit, d: &Value, cur: &str) -> String {
    let Some(fields) = d.as_object() else {
        return visit.t("campaign-h-edit");
    };
    let was = d.get("was");
    // A schedule moved with its zone's clocks is said as that, not as a schedule edited.
    let moved = d.get("zone").is_some();
    let clauses: Vec<String> = fields
        .iter()
        .filter(|(k, _)| k.as_str() != "was" && !(moved && k.as_str() == "schedule"))
        .map(|(k, v)| match k.as_str() {
            "cpm" => bid(visit, was.and_then(|w| w.get("cpm")), v, cur),
            "title" => visit.ta(
                "campaign-h-title",
                &[("title", v.as_str().unwrap_or("").into())],
            ),
            "daily_budget" => match v.as_str() {
                Some(a) => visit.ta(
                    "campaign-h-daily-budget",
                    &[("amount", format!("{a} {cur}").into())],
                ),
                None => visit.t("campaign-h-daily-budget-none"),
            },
            "views_per_user" => visit.ta(
                "campaign-h-views-per-user",
                &[("count", v.as_i64().unwrap_or(0).into())],
            ),
            "active" => visit.t(if v.as_bool() == Some(true) {
                "campaign-h-resume"
            } else {
                "campaign-h-pause"
            }),
            "schedule" if v.is_null() => visit.t("campaign-h-schedule-none"),
            "zone" => {
                let part = |key: &str| v[key].as_str().unwrap_or("").to_string();
                visit.ta(
                    "campaign-h-zone-moved",
                    &[
                        ("zone", part("name").into()),
                        ("from", part("from").into()),
                        ("to", part("to").into()),
                    ],
                )
            }
            field => visit.ta(
                "campaign-h-field",
                &[("field", visit.t(&field_key(field)).into())],
            ),
        })
        .collect();
    if clauses.is_empty() {
        visit.t("campaign-h-edit")
    } else {
        clauses.join("; ")
    }
}

/// The catalogue key naming an edited field.
fn field_key(field: &str) -> String {
    let known = [
        "text",
        "promote_url",
        "website_name",
        "schedule",
        "auto_cpm",
        "media",
        "button",
        "picture",
        "starts_at",
        "ends_at",
        "targeting",
    ];
    if known.contains(&field) {
        format!("campaign-field-{}", field.replace('_', "-"))
    } else {
        "campaign-field-other".into()
    }
}
