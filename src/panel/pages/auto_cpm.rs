//! Owns the Auto CPM card of a campaign's page: its settings, its last decisions with what
//! each read, and, for owners and managers, the form that sets them
//! (`POST /campaigns/{account_id}/{ad_id}/auto-cpm`), sent as the edit `{"auto_cpm": {...}}`
//! that the API makes too, so its checks and messages are the API's.

use maud::{html, Markup};
use rusqlite::Connection;
use rust_decimal::Decimal;
use serde_json::{Map, Value};

use super::super::session::Session;
use super::super::{Form, Visit};
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
fn in_review(visit: &Visit<'_>, minutes: i64) -> String {
    let hours = Decimal::from(minutes) / Decimal::from(60);
    let mut hours = hours.round_dp(1);
    hours.rescale(1);
    visit.ta(
        "autocpm-in-review",
        &[("hours", visit.lang.decimal(hours).into())],
    )
}

pub(super) fn card(
    visit: &Visit<'_>,
    session: &Session,
    row: &CampaignRow,
    kind: CabinetType,
    shown: &Shown,
    writable: bool,
    refused: Option<&Refused>,
) -> Markup {
    let fmt = visit.fmt();
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
    let currency = kind.currency();
    html! {
        p.muted {
            @if shown.reviews { (visit.t("autocpm-how-reviewed")) } @else { (visit.t("autocpm-how")) }
        }
        @match s {
            Some(s) => dl.fields {
                dt { (visit.t("autocpm-state")) } dd { @if row.auto_cpm_enabled { (visit.t("autocpm-on")) } @else { (visit.t("autocpm-off")) } }
                dt { (visit.t("autocpm-goal")) } dd {
                    @match (s.goal, s.cpa_from) {
                        (Goal::Cpa, CpaFrom::Postbacks) => { (visit.ta("autocpm-goal-cpa-postbacks", &[("target", fmt.money(kind, s.target).into())])) },
                        (Goal::Cpa, CpaFrom::Actions) => { (visit.ta("autocpm-goal-cpa-actions", &[("target", fmt.money(kind, s.target).into())])) },
                        (Goal::Pace, _) => { (visit.ta("autocpm-goal-pace", &[("target", fmt.money(kind, s.target).into())])) },
                    }
                }
                dt { (visit.t("autocpm-bounds")) } dd { (fmt.money(kind, s.min_cpm)) " – " (fmt.money(kind, s.max_cpm)) }
                @if let Some(minutes) = last_review {
                    dt { (visit.t("autocpm-last-edit")) } dd.review { (in_review(visit, minutes)) }
                }
            },
            None => p { (visit.t("autocpm-not-set")) },
        }
        @if !shown.decisions.is_empty() {
            table.cards {
                thead { tr { th { (visit.t("autocpm-time")) } th { (visit.t("autocpm-read")) } th { (visit.t("autocpm-decision")) } } }
                tbody {
                    @for d in &shown.decisions {
                        tr {
                            td data-label=(visit.t("autocpm-time")) { (fmt.time(&d.at)) }
                            td data-label=(visit.t("autocpm-read")) {
                                (visit.ta("autocpm-read-figures", &[
                                    ("hours", d.hours.into()),
                                    ("views", fmt.count(d.figures.views).into()),
                                    ("actions", fmt.count(d.figures.actions).into()),
                                    ("spent", fmt.money(kind, d.figures.spent).into()),
                                ]))
                                @if let Some(o) = &d.observed { " → " (o) } }
                            td data-label=(visit.t("autocpm-decision")) { (d.reason) @if let Some(to) = d.to { ": " (fmt.money(kind, d.from)) " → " (fmt.money(kind, to)) }
                                @if let Some(minutes) = d.review_minutes { " (" (in_review(visit, minutes)) ")" } }
                        }
                    }
                }
            }
        }
        @if writable {
            form method="post" action={ "/campaigns/" (row.account_id) "/" (row.ad_id) "/auto-cpm" } {
                input type="hidden" name="csrf" value=(session.csrf);
                label { (visit.t("autocpm-title"))
                    select name="enabled" {
                        option value="on" selected[on == "on"] { (visit.t("autocpm-on")) }
                        option value="off" selected[on == "off"] { (visit.t("autocpm-off")) }
                    }
                }
                label { (visit.t("autocpm-goal"))
                    select name="goal" {
                        option value="cpa" selected[goal == "cpa"] { (visit.t("autocpm-goal-cpa")) }
                        option value="pace" selected[goal == "pace"] { (visit.t("autocpm-goal-pace-option")) }
                    }
                }
                label { (visit.t("autocpm-cpa-counts"))
                    select name="cpa_from" {
                        option value="actions" selected[from == "actions"] { (visit.t("autocpm-from-actions")) }
                        option value="postbacks" selected[from == "postbacks"] { (visit.t("autocpm-from-postbacks")) }
                    }
                }
                label { (visit.ta("autocpm-target", &[("currency", currency.into())])) input type="text" name="target" inputmode="decimal" value=(sent("target", stored_money(|s| s.target))); }
                label { (visit.ta("autocpm-min", &[("currency", currency.into())])) input type="text" name="min_cpm" inputmode="decimal" value=(sent("min_cpm", stored_money(|s| s.min_cpm))); }
                label { (visit.ta("autocpm-max", &[("currency", currency.into())])) input type="text" name="max_cpm" inputmode="decimal" value=(sent("max_cpm", stored_money(|s| s.max_cpm))); }
                @if let Some(r) = refused { p.error role="alert" data-param=(r.param) { (r.message) } }
                button.primary type="submit" { (visit.t("autocpm-save")) }
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
