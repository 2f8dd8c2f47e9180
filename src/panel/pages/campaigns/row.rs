//! Owns one line of the campaigns table: the campaign's figures in the page's language, and
//! for a person who may change its cabinet the on/off switch and the budget and bid edited in
//! place (small forms posting to the campaign's own actions, coming back to the list; with
//! htmx only the row is swapped), a refusal of one of them beside its field in the row; and
//! the totals lines, one per currency.

use maud::{html, Markup};
use rust_decimal::Decimal;

use super::super::super::format::Fmt;
use super::super::super::session::Session;
use super::super::super::Visit;
use super::super::rate_notes;
use super::super::status_badge;
use super::bulk::FORM;
use crate::domain::campaign::Status;
use crate::domain::money::{CabinetType, Money};
use crate::domain::stats::Totals;
use crate::ops::returns::Returns;
use crate::store::campaigns::{CampaignRow, Sums};
use crate::store::conversions::Summary;

/// The table's columns: catalogue key of the heading, and the sort it links to.
pub const COLUMNS: [(&str, Option<&str>); 13] = [
    ("campaigns-col-campaign", Some("title")),
    ("campaigns-col-status", Some("status")),
    ("campaigns-col-budget", Some("budget")),
    ("campaigns-col-bid", Some("cpm")),
    ("campaigns-col-spent", Some("spent")),
    ("campaigns-col-views", Some("views")),
    ("campaigns-col-clicks", Some("clicks")),
    ("campaigns-col-ctr", None),
    ("campaigns-col-cpm", None),
    ("campaigns-col-actions", None),
    ("campaigns-col-cpa", None),
    ("campaigns-col-conversions", None),
    ("campaigns-col-revenue", None),
];

/// Which of a row's forms a refusal answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowForm {
    Switch,
    Budget,
    Bid,
}

/// A row action's refusal, shown in the row it came from: the campaign, the form, the field the
/// refusal names, its sentence in the person's language, and the value sent (amount or bid).
#[derive(Debug, Clone)]
pub struct RowRefusal {
    pub account: i64,
    pub ad: i64,
    pub form: RowForm,
    pub param: String,
    pub message: String,
    pub sent: String,
}

/// What every row needs: the page, the person (for the forms' `csrf`), and the list's URL
/// with its query, where the forms come back to.
pub struct Context<'a> {
    pub visit: &'a Visit<'a>,
    pub session: &'a Session,
    pub back: &'a str,
    /// The columns' headings, read from the catalogue once for every row.
    pub labels: Vec<String>,
    /// A row action's refusal, shown in its row.
    pub refused: Option<&'a RowRefusal>,
}

impl Context<'_> {
    /// The refusal of `form` in the row of `row`, if that is what was refused.
    fn refused(&self, row: &CampaignRow, form: RowForm) -> Option<&RowRefusal> {
        self.refused
            .filter(|r| (r.account, r.ad, r.form) == (row.account_id, row.ad_id, form))
    }
}

/// A refusal's sentence under its form.
fn error(refused: Option<&RowRefusal>) -> Markup {
    html! {
        @if let Some(r) = refused {
            p.error role="alert" data-param=(r.param) { (r.message) }
        }
    }
}

impl<'a> Context<'a> {
    pub fn new(visit: &'a Visit<'a>, session: &'a Session, back: &'a str) -> Context<'a> {
        Context {
            visit,
            session,
            back,
            labels: COLUMNS.iter().map(|(key, _)| visit.t(key)).collect(),
            refused: None,
        }
    }
}

/// The row's id, the target its forms swap.
pub fn row_id(account: i64, ad: i64) -> String {
    format!("c-{account}-{ad}")
}

/// The campaign's line. `writable`: the person may change its cabinet.
pub fn line(
    cx: &Context,
    row: &CampaignRow,
    returns: &Returns,
    kind: CabinetType,
    cabinet: &str,
    writable: bool,
) -> Markup {
    let summary = &row.conversions;
    let visit = cx.visit;
    let fmt = visit.fmt();
    let label = |i: usize| cx.labels[i].as_str();
    let conversions = summary.counts.total();
    let live = writable && row.status != Status::Deleted;
    let id = row_id(row.account_id, row.ad_id);
    let base = format!("/campaigns/{}/{}", row.account_id, row.ad_id);
    html! {
        tr id=(id) {
            td.pick {
                input type="checkbox" form=(FORM) name="ad" value={ (row.account_id) ":" (row.ad_id) }
                    disabled[!writable] aria-label=(visit.ta("campaigns-col-select", &[("title", row.title.as_str().into())]));
            }
            td data-label=(label(0)) {
                div { a href=(base) { (row.title) } br; span.muted { "#" (row.ad_id) " · " (cabinet) } }
            }
            td data-label=(label(1)) {
                (status_badge(visit, row.status))
                @if let Some(reason) = &row.decline_reason {
                    br; span.muted.reason title=(reason.shown()) { (reason.text()) }
                }
                @if live { (switch(cx, row, &id, &base)) }
            }
            td.num data-label=(label(2)) {
                @if live { (budget_form(cx, row, kind, &id, &base)) }
                @else { (fmt.money(kind, row.budget)) }
            }
            td.num data-label=(label(3)) {
                @if live { (bid_form(cx, row, kind, &id, &base)) }
                @else { (fmt.money(kind, row.cpm)) }
            }
            (figures(fmt, kind, &Figures::of(row), conversions, &summary.revenue, &cx.labels, returns_of(cx, summary, returns)))
        }
    }
}

/// ROAS and profit under a row's revenue, in the cabinet's currency, each rate the revenue was
/// converted at named with its date, or a note naming a currency with no rate.
fn returns_of(cx: &Context, summary: &Summary, r: &Returns) -> Markup {
    if summary.revenue.is_empty() {
        return html! {};
    }
    let visit = cx.visit;
    let fmt = visit.fmt();
    let said = rate_notes::notes(visit, &r.used, &r.missing).join("; ");
    let profit = r.profit.map(|p| {
        let mut p = p.round_dp(2);
        p.rescale(2);
        format!("{}\u{a0}{}", fmt.lang.decimal(p), r.currency)
    });
    html! {
        div.muted data-figure="returns" title=[(!said.is_empty()).then_some(&said)] {
            "ROAS " (r.roas.map_or("–".to_string(), |x| fmt.ratio(x, true)))
            br; (visit.t("campaigns-profit")) " " (profit.unwrap_or_else(|| "–".into()))
            @if !said.is_empty() { br; small.rate-note { (said) } }
        }
    }
}

/// The delivery a row or a total shows, as the API counts it.
struct Figures {
    spent: Money,
    views: i64,
    clicks: i64,
    actions: i64,
}

impl Figures {
    fn of(row: &CampaignRow) -> Figures {
        Figures {
            spent: row.spent,
            views: row.views,
            clicks: row.clicks,
            actions: row.actions,
        }
    }
}

/// The cells from spent to revenue.
fn figures(
    fmt: Fmt,
    kind: CabinetType,
    f: &Figures,
    conversions: i64,
    revenue: &std::collections::BTreeMap<String, i128>,
    labels: &[String],
    returns: Markup,
) -> Markup {
    let label = |i: usize| labels[i].as_str();
    let totals = Totals {
        views: f.views,
        opens: 0,
        clicks: f.clicks,
        actions: f.actions,
        spent: f.spent,
    };
    html! {
        td.num data-label=(label(4)) { (fmt.money(kind, f.spent)) }
        td.num data-label=(label(5)) { (fmt.count(f.views)) }
        td.num data-label=(label(6)) { (fmt.count(f.clicks)) }
        td.num data-label=(label(7)) { (fmt.percent(totals.ctr(), f.views > 0)) }
        td.num data-label=(label(8)) { (money_or_dash(fmt, kind, totals.cpm(), f.views > 0)) }
        td.num data-label=(label(9)) { (fmt.count(f.actions)) }
        td.num data-label=(label(10)) { (money_or_dash(fmt, kind, totals.cpa(), f.actions > 0)) }
        td.num data-label=(label(11)) { (fmt.count(conversions)) }
        td.num data-label=(label(12)) {
            @if revenue.is_empty() { "–" }
            @for (currency, micros) in revenue {
                div { (revenue_text(fmt, *micros)) "\u{a0}" (currency) }
            }
            (returns)
        }
    }
}

/// The totals of the matching campaigns, one line per currency (cabinets of one currency
/// summed together, the amounts checked).
pub fn totals(cx: &Context, sums: &[(CabinetType, Sums)]) -> Markup {
    let visit = cx.visit;
    let fmt = visit.fmt();
    let label = |i: usize| cx.labels[i].as_str();
    let mut kinds: Vec<CabinetType> = Vec::new();
    for (kind, _) in sums {
        if !kinds.contains(kind) {
            kinds.push(*kind);
        }
    }
    html! {
        @for kind in kinds {
            @let mine = sums.iter().filter(|(k, _)| *k == kind).map(|(_, s)| s);
            @let total = add(mine);
            @if let Some((campaigns, budget, f, conversions, revenue)) = total {
                tr.totals {
                    td.pick {}
                    th scope="row" data-label=(visit.ta("campaigns-totals", &[("currency", kind.currency().into())])) {
                        (visit.ta("campaigns-totals", &[("currency", kind.currency().into())]))
                        br; span.muted { (visit.ta("common-campaigns", &[("count", campaigns.into())])) }
                    }
                    td {}
                    td.num data-label=(label(2)) { (fmt.money(kind, budget)) }
                    td {}
                    (figures(fmt, kind, &f, conversions, &revenue, &cx.labels, html! {}))
                }
            }
        }
    }
}

type Added = (
    i64,
    Money,
    Figures,
    i64,
    std::collections::BTreeMap<String, i128>,
);

/// The sums of several cabinets of one currency; `None` when an amount overflows.
fn add<'s>(sums: impl Iterator<Item = &'s Sums>) -> Option<Added> {
    let mut campaigns = 0i64;
    let mut budget = Money::from_micros(0);
    let mut f = Figures {
        spent: Money::from_micros(0),
        views: 0,
        clicks: 0,
        actions: 0,
    };
    let mut conversions = 0i64;
    let mut revenue = std::collections::BTreeMap::new();
    for s in sums {
        campaigns = campaigns.checked_add(s.campaigns)?;
        budget = budget.checked_add(Money::from_micros(s.budget_micros))?;
        f.spent = f.spent.checked_add(Money::from_micros(s.spent_micros))?;
        f.views = f.views.checked_add(s.views)?;
        f.clicks = f.clicks.checked_add(s.clicks)?;
        f.actions = f.actions.checked_add(s.actions)?;
        conversions = conversions.checked_add(s.conversions)?;
        for (currency, amount) in &s.revenue {
            let sum: &mut i128 = revenue.entry(currency.clone()).or_default();
            *sum = sum.checked_add(*amount)?;
        }
    }
    Some((campaigns, budget, f, conversions, revenue))
}

/// The htmx target and selection of a row's forms: the row, swapped with its new self from
/// the list the action comes back to.
fn swap_attrs(id: &str) -> (String, String) {
    let row = format!("#{id}");
    (row.clone(), row)
}

/// The on/off switch: the campaign switched on (by its client) pauses, else resumes.
fn switch(cx: &Context, row: &CampaignRow, id: &str, base: &str) -> Markup {
    let visit = cx.visit;
    let (action, key, on) = if row.active {
        ("pause", "campaigns-pause", true)
    } else {
        ("resume", "campaigns-resume", false)
    };
    let (target, select) = swap_attrs(id);
    html! {
        form.switch method="post" action={ (base) "/" (action) }
            hx-post={ (base) "/" (action) } hx-target=(target) hx-select=(select) hx-swap="outerHTML" {
            input type="hidden" name="csrf" value=(cx.session.csrf);
            input type="hidden" name="back" value=(cx.back);
            button type="submit" role="switch" aria-checked=(on)
                aria-label=(visit.ta(key, &[("title", row.title.as_str().into())])) {
                span.knob {} (visit.t(if on { "campaigns-switch-on" } else { "campaigns-switch-off" }))
            }
            (error(cx.refused(row, RowForm::Switch)))
        }
    }
}

/// The budget, opened into a small form to add to it or withdraw from it.
fn budget_form(cx: &Context, row: &CampaignRow, kind: CabinetType, id: &str, base: &str) -> Markup {
    let visit = cx.visit;
    let (target, select) = swap_attrs(id);
    let step = step(kind);
    let refused = cx.refused(row, RowForm::Budget);
    html! {
        details.inline open[refused.is_some()] {
            summary title=(visit.ta("campaigns-budget-change", &[("title", row.title.as_str().into())])) {
                (visit.fmt().money(kind, row.budget))
            }
            form method="post" action={ (base) "/budget" }
                hx-post={ (base) "/budget" } hx-target=(target) hx-select=(select) hx-swap="outerHTML" {
                input type="hidden" name="csrf" value=(cx.session.csrf);
                input type="hidden" name="back" value=(cx.back);
                input type="number" name="amount" min="0" step=(step) required
                    value=[refused.map(|r| r.sent.as_str())]
                    aria-invalid=[refused.map(|_| "true")]
                    aria-label=(visit.t("campaigns-budget-amount")) placeholder=(visit.t("campaigns-budget-amount"));
                button type="submit" name="direction" value="add" { (visit.t("campaigns-budget-add")) }
                button type="submit" name="direction" value="withdraw" { (visit.t("campaigns-budget-withdraw")) }
                (error(refused))
            }
        }
    }
}

/// The bid, opened into a small form holding it.
fn bid_form(cx: &Context, row: &CampaignRow, kind: CabinetType, id: &str, base: &str) -> Markup {
    let visit = cx.visit;
    let (target, select) = swap_attrs(id);
    let refused = cx.refused(row, RowForm::Bid);
    let value = refused.map_or_else(|| kind.render(row.cpm), |r| r.sent.clone());
    html! {
        details.inline open[refused.is_some()] {
            summary title=(visit.ta("campaigns-bid-change", &[("title", row.title.as_str().into())])) {
                (visit.fmt().money(kind, row.cpm))
            }
            form method="post" action={ (base) "/cpm" }
                hx-post={ (base) "/cpm" } hx-target=(target) hx-select=(select) hx-swap="outerHTML" {
                input type="hidden" name="csrf" value=(cx.session.csrf);
                input type="hidden" name="back" value=(cx.back);
                input type="number" name="cpm" min="0" step=(step(kind)) required value=(value)
                    aria-invalid=[refused.map(|_| "true")]
                    aria-label=(visit.t("campaigns-bid"));
                button type="submit" { (visit.t("common-save")) }
                (error(refused))
            }
        }
    }
}

/// The smallest step of an amount in the cabinet's currency (`0.01`, `1`).
fn step(kind: CabinetType) -> String {
    Decimal::new(1, kind.scale()).to_string()
}

/// A rate in money, at the currency's scale, or a dash when undefined.
fn money_or_dash(fmt: Fmt, kind: CabinetType, value: Decimal, defined: bool) -> String {
    match (defined, Money::from_decimal(value)) {
        (true, Some(m)) => fmt.money(kind, m),
        _ => "–".into(),
    }
}

/// Revenue in micro-units (summed wide) as a decimal with two places, in the page's language.
fn revenue_text(fmt: Fmt, micros: i128) -> String {
    let d = Decimal::try_from_i128_with_scale(micros, 6).unwrap_or(Decimal::MAX);
    fmt.ratio(d, true)
}
