//! Owns saying a rule and what it did in words: its scope, conditions, action, guards and
//! state, and a log entry's readings and change.

use maud::{html, Markup};
use rust_decimal::Decimal;
use serde_json::Value;

use super::super::super::format::money;
use crate::domain::money::CabinetType;
use crate::domain::rule::{Action, ActionKind, Condition, Metric, RuleSpec, Scope, Threshold};
use crate::store::groups::Group;

pub fn metric_name(m: Metric) -> String {
    match m {
        Metric::Spent => "spend".into(),
        Metric::Cpm | Metric::Ctr | Metric::Cpc | Metric::Cpa => m.as_str().to_uppercase(),
        _ => m.as_str().into(),
    }
}

/// A condition in words: `CPA over 24 h > 2.50 EUR`.
pub fn condition_words(c: &Condition, kind: CabinetType) -> Markup {
    // A threshold in money, at least at the currency's scale (2.5 as 2.50).
    let amount = |d: Decimal| {
        let mut d = d;
        d.rescale(d.scale().max(kind.scale()));
        d
    };
    html! {
        (metric_name(c.metric))
        @if let Some(currency) = &c.currency { " (" (currency) ")" }
        @if c.metric.windowed() { " over " (c.window_hours) " h" }
        " " (c.op.as_str()) " "
        @match (&c.value, c.metric) {
            (Threshold::Status(s), _) => (s.as_str()),
            (Threshold::Number(d), Metric::Ctr) => { (d) "%" },
            (Threshold::Number(d), Metric::Spent | Metric::Cpm | Metric::Cpc | Metric::Cpa | Metric::Budget) => {
                (amount(*d)) " " (kind.currency())
            },
            (Threshold::Number(d), _) => (d),
        }
    }
}

pub fn conditions_words(spec: &RuleSpec, kind: CabinetType) -> Markup {
    let join = if spec.match_all { "and" } else { "or" };
    html! {
        @for (i, c) in spec.conditions.iter().enumerate() {
            div { @if i > 0 { span.muted { (join) " " } } (condition_words(c, kind)) }
        }
    }
}

pub fn action_words(a: &Action, kind: CabinetType) -> Markup {
    html! { @match a {
        Action::Pause => "Pause the campaign",
        Action::Resume => "Resume the campaign",
        Action::SetCpm { cpm } => { "Set the bid to " (money(kind, *cpm)) },
        Action::ChangeCpm { percent, min_cpm, max_cpm } => {
            @if percent.is_sign_negative() { "Lower" } @else { "Raise" }
            " the bid by " (percent.abs()) "%, kept within " (money(kind, *min_cpm)) " – " (money(kind, *max_cpm))
        },
        Action::AddBudget { amount, max_per_day } => {
            "Add " (money(kind, *amount)) " to the budget, at most " (money(kind, *max_per_day)) " a day"
        },
        Action::Notify { text } => { "Send the alert “" (text) "”" },
    } }
}

pub fn scope_words(scope: &Scope, groups: &[Group]) -> Markup {
    html! { @match scope {
        Scope::Cabinet => "The whole cabinet",
        Scope::Group(id) => @match groups.iter().find(|g| g.id == *id) {
            Some(g) => { "Group “" (g.name) "”" },
            None => { "Group #" (id) },
        },
        Scope::Ads(ads) => {
            "Campaigns " (ads.iter().take(10).map(i64::to_string).collect::<Vec<_>>().join(", "))
            @if ads.len() > 10 { " and " (ads.len() - 10) " more" }
        },
    } }
}

pub fn guards_words(spec: &RuleSpec) -> Markup {
    let runs = spec.max_runs_per_day;
    html! { "Cooldown " (spec.cooldown_hours) " h · at most " (runs) " run" @if runs != 1 { "s" } " a day" }
}

pub fn state_badges(spec: &RuleSpec) -> Markup {
    html! {
        @if spec.enabled { span.badge.active { "enabled" } } @else { span.badge { "disabled" } }
        @if spec.dry_run { " " span.badge.review { "dry run" } }
    }
}

pub fn matched_words(matched: &Value) -> String {
    match matched.as_object() {
        Some(m) => m
            .iter()
            .map(|(k, v)| format!("{k} = {}", v.as_str().unwrap_or("–")))
            .collect::<Vec<_>>()
            .join(", "),
        None => "–".into(),
    }
}

/// The rule form's words for an action of `kind`.
pub fn action_label(kind: ActionKind) -> &'static str {
    match kind {
        ActionKind::Pause => "Pause the campaign",
        ActionKind::Resume => "Resume the campaign",
        ActionKind::SetCpm => "Set the bid",
        ActionKind::ChangeCpm => "Change the bid by a percent",
        ActionKind::AddBudget => "Add budget",
        ActionKind::Notify => "Send an alert",
    }
}

pub fn change_words(action: &Value) -> String {
    let field = |name: &str| action[name].as_str().unwrap_or("?").to_string();
    match action["type"].as_str() {
        Some("pause") => "pause".into(),
        Some("resume") => "resume".into(),
        Some("cpm") => format!("bid {} → {}", field("from"), field("to")),
        Some("add_budget") => format!("add {} to the budget", field("amount")),
        Some("notify") => format!("alert “{}”", field("text")),
        _ if action.is_null() => "–".into(),
        _ => action.to_string(),
    }
}
