//! Owns saying a rule and what it did in sentences of the page's language: its scope,
//! conditions, action, guards and state, and a log entry's readings, change and reason
//! ("Bid raised from 2.00 to 2.50 EUR on Winter sale"). Amounts are written as the language
//! writes them; the catalogue's `rules.ftl` holds every word.

use maud::{html, Markup, PreEscaped};
use rust_decimal::Decimal;
use serde_json::Value;

use crate::domain::money::{CabinetType, Money};
use crate::domain::rule::{
    Action, ActionKind, Against, CompareTo, Condition, Group as Conditions, Metric, Node, RuleSpec,
    Scope, Threshold,
};
use crate::i18n::Lang;
use crate::panel::format::Fmt;
use crate::store::groups::Group;

/// The stand-in for the `i`-th piece of markup in a sentence (see [`splice`]).
pub fn slot(i: u32) -> String {
    char::from_u32(0xE000 + i)
        .map(String::from)
        .unwrap_or_default()
}

/// A sentence of the catalogue whose arguments were given as [`slot`]s, with each slot
/// replaced by its markup; the rest of the sentence is escaped as text.
pub fn splice(sentence: &str, parts: &[Markup]) -> Markup {
    let mut out = html! { (sentence) }.into_string();
    for (i, part) in (0u32..).zip(parts) {
        out = out.replacen(&slot(i), &part.0, 1);
    }
    PreEscaped(out)
}

fn metric_key(m: Metric) -> &'static str {
    match m {
        Metric::Views => "rules-metric-views",
        Metric::Clicks => "rules-metric-clicks",
        Metric::Actions => "rules-metric-actions",
        Metric::Spent => "rules-metric-spent",
        Metric::Cpm => "rules-metric-cpm",
        Metric::Ctr => "rules-metric-ctr",
        Metric::Cpc => "rules-metric-cpc",
        Metric::Cpa => "rules-metric-cpa",
        Metric::Conversions => "rules-metric-conversions",
        Metric::Revenue => "rules-metric-revenue",
        Metric::Budget => "rules-metric-budget",
        Metric::Status => "rules-metric-status",
        Metric::DailyBudget => "rules-metric-daily-budget",
        Metric::BudgetLeftHours => "rules-metric-budget-left-hours",
        Metric::Roas => "rules-metric-roas",
        Metric::Profit => "rules-metric-profit",
        Metric::Hour => "rules-metric-hour",
    }
}

pub fn metric_name(lang: Lang, m: Metric) -> String {
    lang.t(metric_key(m))
}

/// An amount in a rule at least at the currency's scale (2.5 as 2.50), in the language's
/// writing, with the currency: `2.50 EUR`, `2,50 EUR`.
fn amount(lang: Lang, kind: CabinetType, d: Decimal) -> String {
    let mut d = d;
    d.rescale(d.scale().max(kind.scale()));
    format!("{}\u{a0}{}", lang.decimal(d), kind.currency())
}

/// A threshold of `metric` in words: money with the currency, CTR in percent.
fn value_words(lang: Lang, kind: CabinetType, metric: Metric, value: &Threshold) -> String {
    match (value, metric) {
        (Threshold::Status(s), _) => s.as_str().to_string(),
        (Threshold::Number(d), Metric::Ctr) => format!("{}%", lang.decimal(*d)),
        (
            Threshold::Number(d),
            Metric::Spent
            | Metric::Cpm
            | Metric::Cpc
            | Metric::Cpa
            | Metric::Budget
            | Metric::DailyBudget
            | Metric::Profit,
        ) => amount(lang, kind, *d),
        (
            Threshold::Number(d),
            Metric::Views
            | Metric::Clicks
            | Metric::Actions
            | Metric::Conversions
            | Metric::Revenue
            | Metric::Status
            | Metric::BudgetLeftHours
            | Metric::Roas
            | Metric::Hour,
        ) => lang.decimal(*d),
    }
}

/// The reading a condition compares with: `1.3 × CPA over 168 h`, `spend over 24 h, 24 h
/// earlier`.
fn compare_words(lang: Lang, cmp: &CompareTo) -> String {
    let metric = metric_name(lang, cmp.metric);
    let side = match (cmp.metric.windowed(), cmp.offset_hours) {
        (false, _) => metric,
        (true, 0) => lang.ta(
            "rules-compare-window",
            &[
                ("metric", metric.into()),
                ("hours", i64::from(cmp.window_hours).into()),
            ],
        ),
        (true, offset) => lang.ta(
            "rules-compare-earlier",
            &[
                ("metric", metric.into()),
                ("hours", i64::from(cmp.window_hours).into()),
                ("offset", i64::from(offset).into()),
            ],
        ),
    };
    if cmp.factor == Decimal::ONE {
        side
    } else {
        lang.ta(
            "rules-compare-factor",
            &[
                ("factor", lang.decimal(cmp.factor).into()),
                ("side", side.into()),
            ],
        )
    }
}

/// A condition in a sentence: `CPA over 24 h > 2.50 EUR`, `CPA over 24 h > 1.3 × CPA over
/// 168 h`.
pub fn condition_words(lang: Lang, c: &Condition, kind: CabinetType) -> String {
    let mut metric = metric_name(lang, c.metric);
    if let Some(currency) = &c.currency {
        metric = format!("{metric} ({currency})");
    }
    let value = match &c.against {
        Against::Value(v) => value_words(lang, kind, c.metric, v),
        Against::Compare(cmp) => compare_words(lang, cmp),
    };
    let args = [
        ("metric", metric.into()),
        ("op", c.op.as_str().into()),
        ("value", value.into()),
        ("hours", i64::from(c.window_hours).into()),
    ];
    if c.metric.windowed() {
        lang.ta("rules-condition-windowed", &args)
    } else {
        lang.ta("rules-condition", &args)
    }
}

/// A rule's conditions: the flat form as a line per condition joined by "and" / "or", a tree
/// as nested lists under "all of these" / "one of these".
pub fn conditions_words(lang: Lang, spec: &RuleSpec, kind: CabinetType) -> Markup {
    if !spec.flat {
        return tree_words(lang, &spec.conditions, kind);
    }
    let join = lang.t(if spec.conditions.all {
        "rules-and"
    } else {
        "rules-or"
    });
    html! {
        @for (i, c) in spec.conditions.conditions().into_iter().enumerate() {
            div { @if i > 0 { span.muted { (join) " " } } (condition_words(lang, c, kind)) }
        }
    }
}

fn tree_words(lang: Lang, group: &Conditions, kind: CabinetType) -> Markup {
    let head = lang.t(if group.all {
        "rules-tree-all"
    } else {
        "rules-tree-any"
    });
    html! {
        div.rule-tree {
            span.muted { (head) }
            ul {
                @for node in &group.nodes {
                    li {
                        @match node {
                            Node::Condition(c) => (condition_words(lang, c, kind)),
                            Node::Group(g) => (tree_words(lang, g, kind)),
                        }
                    }
                }
            }
        }
    }
}

pub fn action_words(fmt: Fmt, a: &Action, kind: CabinetType) -> String {
    let lang = fmt.lang;
    match a {
        Action::Pause => lang.t("rules-action-pause"),
        Action::Resume => lang.t("rules-action-resume"),
        Action::SetCpm { cpm } => lang.ta(
            "rules-action-set-cpm",
            &[("cpm", fmt.money(kind, *cpm).into())],
        ),
        Action::ChangeCpm {
            percent,
            min_cpm,
            max_cpm,
        } => {
            let key = if percent.is_sign_negative() {
                "rules-action-lower-cpm"
            } else {
                "rules-action-raise-cpm"
            };
            lang.ta(
                key,
                &[
                    ("percent", lang.decimal(percent.abs()).into()),
                    ("min", fmt.money(kind, *min_cpm).into()),
                    ("max", fmt.money(kind, *max_cpm).into()),
                ],
            )
        }
        Action::AddBudget {
            amount,
            max_per_day,
        } => lang.ta(
            "rules-action-add-budget",
            &[
                ("amount", fmt.money(kind, *amount).into()),
                ("max", fmt.money(kind, *max_per_day).into()),
            ],
        ),
        Action::Notify { text } => {
            lang.ta("rules-action-notify", &[("text", text.as_str().into())])
        }
        Action::Duplicate {
            cpm,
            budget,
            max_per_day,
        } => {
            let or_same = |m: &Option<Money>| match m {
                Some(m) => fmt.money(kind, *m),
                None => lang.t("rules-action-duplicate-same"),
            };
            let copy = lang.ta(
                "rules-action-duplicate",
                &[
                    ("cpm", or_same(cpm).into()),
                    ("budget", or_same(budget).into()),
                ],
            );
            match max_per_day {
                Some(max) => {
                    let cap = lang.ta(
                        "rules-action-at-most",
                        &[("max", fmt.money(kind, *max).into())],
                    );
                    format!("{copy}{cap}")
                }
                None => copy,
            }
        }
        Action::SetDailyBudget { amount } => lang.ta(
            "rules-action-set-daily-budget",
            &[("amount", fmt.money(kind, *amount).into())],
        ),
        Action::Webhook => lang.t("rules-action-webhook"),
    }
}

/// The cabinets a rule across cabinets watches, with its cap over all of them.
pub fn across_words(fmt: Fmt, spec: &RuleSpec, kind: CabinetType) -> String {
    let lang = fmt.lang;
    let list = spec
        .cabinets
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let words = lang.ta("rules-scope-across", &[("list", list.into())]);
    match spec.max_total_per_day {
        Some(max) => {
            let cap = lang.ta(
                "rules-scope-across-cap",
                &[("max", fmt.money(kind, max).into())],
            );
            format!("{words}{cap}")
        }
        None => words,
    }
}

/// The campaigns a rule watches; a campaign by its title where `title` knows it.
pub fn scope_words(
    lang: Lang,
    scope: &Scope,
    groups: &[Group],
    title: &dyn Fn(i64) -> Option<String>,
) -> String {
    match scope {
        Scope::Cabinet => lang.t("rules-scope-cabinet"),
        Scope::Group(id) => match groups.iter().find(|g| g.id == *id) {
            Some(g) => lang.ta("rules-scope-group", &[("name", g.name.as_str().into())]),
            None => lang.ta("rules-scope-group-id", &[("id", id.to_string().into())]),
        },
        Scope::Ads(ads) => {
            let named = |ad: &i64| match title(*ad) {
                Some(t) => format!("{t} ({ad})"),
                None => ad.to_string(),
            };
            let list = ads
                .iter()
                .take(10)
                .map(named)
                .collect::<Vec<_>>()
                .join(", ");
            if ads.len() > 10 {
                lang.ta(
                    "rules-scope-ads-more",
                    &[("list", list.into()), ("count", (ads.len() - 10).into())],
                )
            } else {
                lang.ta("rules-scope-ads", &[("list", list.into())])
            }
        }
    }
}

pub fn guards_words(lang: Lang, spec: &RuleSpec) -> String {
    lang.ta(
        "rules-guards",
        &[
            ("hours", i64::from(spec.cooldown_hours).into()),
            ("runs", i64::from(spec.max_runs_per_day).into()),
        ],
    )
}

pub fn state_badges(lang: Lang, spec: &RuleSpec) -> Markup {
    html! {
        @if spec.enabled { span.badge.active { (lang.t("rules-enabled")) } }
        @else { span.badge { (lang.t("rules-disabled")) } }
        @if spec.dry_run { " " span.badge.review { (lang.t("rules-dry-run")) } }
        @if spec.every == crate::domain::rule::Every::FiveMinutes { " " span.badge { (lang.t("rules-every-5m")) } }
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
pub fn action_label(lang: Lang, kind: ActionKind) -> String {
    lang.t(match kind {
        ActionKind::Pause => "rules-kind-pause",
        ActionKind::Resume => "rules-kind-resume",
        ActionKind::SetCpm => "rules-kind-set-cpm",
        ActionKind::ChangeCpm => "rules-kind-change-cpm",
        ActionKind::AddBudget => "rules-kind-add-budget",
        ActionKind::Notify => "rules-kind-notify",
        ActionKind::Duplicate => "rules-kind-duplicate",
        ActionKind::SetDailyBudget => "rules-kind-set-daily-budget",
        ActionKind::Webhook => "rules-kind-webhook",
    })
}

/// An evaluation's outcome (`acted`, `dry_run`, `skipped`, `failed`, `would_act`) in words.
pub fn outcome_words(lang: Lang, outcome: &str) -> String {
    match outcome {
        "acted" => lang.t("rules-outcome-acted"),
        "dry_run" => lang.t("rules-outcome-dry_run"),
        "skipped" => lang.t("rules-outcome-skipped"),
        "failed" => lang.t("rules-outcome-failed"),
        "would_act" => lang.t("rules-outcome-would_act"),
        other => other.replace('_', " "),
    }
}

/// Why an evaluation did not act: a guard in words, else the platform's sentence as stored.
pub fn reason_words(lang: Lang, reason: &str) -> String {
    match reason {
        "cooldown" => lang.t("rules-skip-cooldown"),
        "max_runs_per_day" => lang.t("rules-skip-max_runs_per_day"),
        "max_per_day" => lang.t("rules-skip-max_per_day"),
        "cabinet_daily_cap" => lang.t("rules-skip-cabinet_daily_cap"),
        "max_total_per_day" => lang.t("rules-skip-max_total_per_day"),
        other => other.to_string(),
    }
}

/// An amount of a log entry's change (`"2.50"`, as the API writes it) in the language's
/// writing; with the currency when `currency` is given.
fn logged(lang: Lang, text: &str, currency: Option<&str>) -> String {
    let shown = text
        .parse::<Decimal>()
        .map_or_else(|_| text.to_string(), |d| lang.decimal(d));
    match currency {
        Some(c) => format!("{shown}\u{a0}{c}"),
        None => shown,
    }
}

/// A log entry's change as a sentence naming its campaign by `campaign` (markup, a link):
/// done ("Bid raised from 2.00 to 2.50 EUR on Winter sale") when it `acted`, else what it
/// would have done.
pub fn change_words(
    lang: Lang,
    kind: CabinetType,
    action: &Value,
    done: bool,
    campaign: Markup,
) -> Markup {
    let currency = kind.currency();
    let field = |name: &str| action[name].as_str().unwrap_or("?").to_string();
    let name = ("campaign", slot(0).into());
    let pick = |did: &'static str, would: &'static str| if done { did } else { would };
    let sentence = match action["type"].as_str() {
        Some("pause") => lang.ta(pick("rules-did-pause", "rules-would-pause"), &[name]),
        Some("resume") => lang.ta(pick("rules-did-resume", "rules-would-resume"), &[name]),
        Some("cpm") => {
            let (from, to) = (field("from"), field("to"));
            let lower = match (from.parse::<Decimal>(), to.parse::<Decimal>()) {
                (Ok(f), Ok(t)) => t < f,
                _ => false,
            };
            let key = match lower {
                true => pick("rules-did-lower", "rules-would-lower"),
                false => pick("rules-did-raise", "rules-would-raise"),
            };
            lang.ta(
                key,
                &[
                    name,
                    ("from", logged(lang, &from, None).into()),
                    ("to", logged(lang, &to, Some(currency)).into()),
                ],
            )
        }
        Some("add_budget") => lang.ta(
            pick("rules-did-add-budget", "rules-would-add-budget"),
            &[
                name,
                (
                    "amount",
                    logged(lang, &field("amount"), Some(currency)).into(),
                ),
            ],
        ),
        Some("notify") => lang.ta(
            pick("rules-did-notify", "rules-would-notify"),
            &[name, ("text", field("text").into())],
        ),
        _ => lang.ta("rules-did-nothing", &[name]),
    };
    splice(&sentence, &[campaign])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn said(lang: Lang, action: Value, done: bool) -> String {
        let campaign = html! { a href="/campaigns/1/7" { "Winter sale" } };
        change_words(lang, CabinetType::Euro, &action, done, campaign).into_string()
    }

    #[test]
    fn a_bid_change_reads_as_a_sentence_naming_the_campaign() {
        let raised = json!({"type": "cpm", "from": "2.00", "to": "2.50"});
        assert_eq!(
            said(Lang::En, raised.clone(), true),
            "Bid raised from 2.00 to 2.50\u{a0}EUR on <a href=\"/campaigns/1/7\">Winter sale</a>"
        );
        assert_eq!(
            said(Lang::Ru, raised, true),
            "<a href=\"/campaigns/1/7\">Winter sale</a>: ставка CPM поднята с 2,00 до 2,50\u{a0}EUR"
        );
        let lowered = json!({"type": "cpm", "from": "2.50", "to": "2.00"});
        assert_eq!(
            said(Lang::En, lowered, false),
            "Lower the bid from 2.50 to 2.00\u{a0}EUR on <a href=\"/campaigns/1/7\">Winter sale</a>"
        );
    }

    #[test]
    fn the_sentence_is_escaped_and_only_the_slots_are_markup() {
        let action = json!({"type": "notify", "text": "<b>&"});
        assert_eq!(
            said(Lang::En, action, true),
            "Sent the alert “&lt;b&gt;&amp;” about <a href=\"/campaigns/1/7\">Winter sale</a>"
        );
    }
}
