//! Owns the Auto CPM card of a campaign's page: its settings, its last decisions with what
//! each read, and, for owners and managers, the form that sets them
//! (`POST /campaigns/{account_id}/{ad_id}/auto-cpm`), sent as the edit `{"auto_cpm": {...}}`
//! that the API makes too, so its checks and messages are the API's.

use maud::{html, Markup};
use rusqlite::Connection;
use serde_json::{Map, Value};

use super::super::format::{money, time};
use super::super::session::Session;
use super::super::Form;
use super::Refused;
use crate::domain::auto_cpm::{CpaFrom, Goal, Settings};
use crate::domain::money::CabinetType;
use crate::store::auto_cpm::{self, Decided};
use crate::store::campaigns::CampaignRow;
use crate::store::StoreError;

/// The prefix of the API's `param` for Auto CPM's fields.
pub const PARAM: &str = "auto_cpm";
/// Decisions the card lists, newest first.
const SHOWN: usize = 5;

/// What the card shows: the settings (none before the first), the latest decisions, and
/// whether the platform's review holds each bid edit.
pub(super) struct Shown {
    settings: Option<Settings>,
    decisions: Vec<Decided>,
    reviews: bool,
}

pub(super) fn load(
    conn: &Connection,
    account: i64,
    ad: i64,
    reviews: bool,
) -> Result<Shown, StoreError> {
    let mut decisions = auto_cpm::log(conn, account, ad)?;
    decisions.reverse();
    decisions.truncate(SHOWN);
    Ok(Shown {
        settings: auto_cpm::get(conn, account, ad)?.map(|m| m.settings),
        decisions,
        reviews,
    })
}

/// Minutes in review as the card says them: hours with one decimal.
fn in_review(minutes: i64) -> String {
    format!("{:.1} h in review", minutes as f64 / 60.0)
}

pub(super) fn card(
    session: &Session,
    row: &CampaignRow,
    kind: CabinetType,
    shown: &Shown,
    writable: bool,
    refused: Option<&Refused>,
) -> Markup {
    let refused = refused.filter(|r| r.param.starts_with(PARAM));
    let sent = |field: &str, stored: String| {
        refused
            .and_then(|r| r.sent.get(field))
            .map(str::to_string)
            .unwrap_or(stored)
    };
    let s = shown.settings;
    let stored_money = |pick: fn(&Settings) -> crate::domain::money::Money| {
        s.map(|s| kind.render(pick(&s))).unwrap_or_default()
    };
    let goal = sent("goal", s.map_or("cpa", |s| s.goal.as_str()).into());
    let from = sent(
        "cpa_from",
        s.map_or("actions", |s| s.cpa_from.as_str()).into(),
    );
    let on = sent(
        "enabled",
        if row.auto_cpm_enabled { "on" } else { "off" }.into(),
    );
    let last_review = shown
        .decisions
        .iter()
        .find(|d| d.to.is_some())
        .and_then(|d| d.review_minutes);
    html! {
        p.muted {
            @if shown.reviews {
                "Hourly, once the bid has delivered for 24 hours since its last edit came back from the platform's review (each bid edit sends the ad back to review) and there is enough data, Auto CPM moves it toward the goal by at most -20 % or +25 %, within the bounds, at most 4 times a day. It never edits a bid while the ad is in review."
            } @else {
                "Hourly, once the bid has rested 6 hours and there is enough data, Auto CPM moves it toward the goal by at most -20 % or +25 %, within the bounds, at most 4 times a day."
            }
        }
        @match s {
            Some(s) => dl.fields {
                dt { "State" } dd { @if row.auto_cpm_enabled { "on" } @else { "off" } }
                dt { "Goal" } dd {
                    @match s.goal {
                        Goal::Cpa => { "CPA of " (money(kind, s.target)) " per " (if s.cpa_from == CpaFrom::Postbacks { "conversion (postbacks)" } else { "platform action" }) },
                        Goal::Pace => { "spend of " (money(kind, s.target)) " a day" },
                    }
                }
                dt { "Bounds" } dd { (money(kind, s.min_cpm)) " – " (money(kind, s.max_cpm)) }
                @if let Some(minutes) = last_review {
                    dt { "Last edit" } dd.review { (in_review(minutes)) }
                }
            },
            None => p { "Not set up." },
        }
        @if !shown.decisions.is_empty() {
            table {
                thead { tr { th { "Time" } th { "Read" } th { "Decision" } } }
                tbody {
                    @for d in &shown.decisions {
                        tr {
                            td { (time(&d.at)) }
                            td { (d.hours) " h: " (d.figures.views) " views, " (d.figures.actions) " actions, " (money(kind, d.figures.spent))
                                @if let Some(o) = &d.observed { " → " (o) } }
                            td { (d.reason) @if let Some(to) = d.to { ": " (money(kind, d.from)) " → " (money(kind, to)) }
                                @if let Some(minutes) = d.review_minutes { " (" (in_review(minutes)) ")" } }
                        }
                    }
                }
            }
        }
        @if writable {
            form method="post" action={ "/campaigns/" (row.account_id) "/" (row.ad_id) "/auto-cpm" } {
                input type="hidden" name="csrf" value=(session.csrf);
                label { "Auto CPM"
                    select name="enabled" {
                        option value="on" selected[on == "on"] { "on" }
                        option value="off" selected[on == "off"] { "off" }
                    }
                }
                label { "Goal"
                    select name="goal" {
                        option value="cpa" selected[goal == "cpa"] { "cost per acquisition (CPA)" }
                        option value="pace" selected[goal == "pace"] { "spend a day (pace)" }
                    }
                }
                label { "A CPA counts"
                    select name="cpa_from" {
                        option value="actions" selected[from == "actions"] { "the platform's actions" }
                        option value="postbacks" selected[from == "postbacks"] { "conversions sent by postback" }
                    }
                }
                label { "Target (" (kind.currency()) ")" input type="text" name="target" value=(sent("target", stored_money(|s| s.target))); }
                label { "Lowest bid (" (kind.currency()) ")" input type="text" name="min_cpm" value=(sent("min_cpm", stored_money(|s| s.min_cpm))); }
                label { "Highest bid (" (kind.currency()) ")" input type="text" name="max_cpm" value=(sent("max_cpm", stored_money(|s| s.max_cpm))); }
                @if let Some(r) = refused { p.error role="alert" data-param=(r.param) { (r.message) } }
                button.primary type="submit" { "Save Auto CPM" }
            }
        }
    }
}

/// The Auto CPM form as the edit's body `{"auto_cpm": {...}}` (empty fields left out, so the
/// stored settings stand).
pub fn form_body(form: &Form) -> Map<String, Value> {
    let mut auto = Map::new();
    auto.insert(
        "enabled".into(),
        Value::Bool(form.get("enabled") == Some("on")),
    );
    for field in ["goal", "cpa_from", "target", "min_cpm", "max_cpm"] {
        if let Some(v) = form.get(field).map(str::trim).filter(|v| !v.is_empty()) {
            auto.insert(field.into(), Value::from(v));
        }
    }
    let mut body = Map::new();
    body.insert(PARAM.into(), Value::Object(auto));
    body
}
