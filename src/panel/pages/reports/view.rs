//! Owns how a client report reads on a page, the same for the panel's `/reports/{account_id}`
//! and a share link's `/r/{token}`: the agency's name and logo at its head, the totals with
//! their change against the previous period, the fee line, the daily chart, the campaigns and
//! the conversions by event. It holds no link and no form: the panel's page puts its controls
//! around it, and a share link shows it alone.

use maud::{html, Markup};
use rust_decimal::{Decimal, RoundingStrategy};

use super::super::super::chart::{self, Series};
use super::super::super::Visit;
use crate::i18n::Lang;
use crate::ops::reports::{Figures, Report};

/// A decimal amount of the report's currency at its scale, with the code.
pub fn money(lang: Lang, report: &Report, amount: Decimal) -> String {
    let mut d = amount.round_dp_with_strategy(report.scale, RoundingStrategy::MidpointAwayFromZero);
    d.rescale(report.scale);
    format!("{}\u{a0}{}", lang.decimal(d), report.currency)
}

/// A plain decimal to `dp` places in the page's language, or a dash.
fn number(lang: Lang, value: Option<Decimal>, dp: u32) -> String {
    match value {
        Some(v) => lang.fixed(v, dp),
        None => "–".into(),
    }
}

fn percent(lang: Lang, value: Option<Decimal>) -> String {
    match value {
        Some(_) => format!("{}%", number(lang, value, 2)),
        None => "–".into(),
    }
}

/// A day as the page's language writes it.
fn day(lang: Lang, d: chrono::NaiveDate) -> String {
    match lang {
        Lang::En => d.format("%-d %b %Y").to_string(),
        Lang::Ru => d.format("%d.%m.%Y").to_string(),
    }
}

/// The change of a figure, signed, with its direction for the style; a dash without one.
fn change(visit: &Visit, value: Option<Decimal>) -> Markup {
    match value {
        Some(v) => {
            let class = if v > Decimal::ZERO {
                "up"
            } else if v < Decimal::ZERO {
                "down"
            } else {
                "flat"
            };
            let sign = if v > Decimal::ZERO { "+" } else { "" };
            html! {
                span.change class=(class) title=(visit.t("reports-change-title")) {
                    (sign) (percent(visit.lang, Some(v)))
                }
            }
        }
        None => html! { span.change.flat title=(visit.t("reports-change-none")) { "–" } },
    }
}

/// The report's body; `logo` is where its image is read from (a route of the panel, or the
/// image itself as a `data:` URL on a share link).
pub fn body(visit: &Visit, report: &Report, logo: Option<&str>) -> Markup {
    let lang = visit.lang;
    let t = &report.totals;
    let agency = report
        .agency
        .name
        .as_deref()
        .filter(|n| !n.trim().is_empty());
    let span = visit.ta(
        "reports-span",
        &[
            ("from", day(lang, report.from).into()),
            ("to", day(lang, report.to).into()),
            ("zone", report.time_zone.into()),
        ],
    );
    let previous = visit.ta(
        "reports-previous",
        &[
            ("from", day(lang, report.previous_from).into()),
            ("to", day(lang, report.previous_to).into()),
        ],
    );
    html! {
        header.report-head {
            @if let Some(src) = logo { img.logo src=(src) alt=(agency.unwrap_or("")); }
            div {
                @if let Some(name) = agency { p.agency { (name) } }
                h1 { (visit.t("reports-title")) " · " (report.cabinet_name) }
                p.muted {
                    (span)
                    @if let Some(g) = &report.group { " · " (visit.t("reports-group")) " " (g.name) }
                    " · " (report.currency)
                }
            }
        }
        section.totals aria-label=(visit.t("reports-totals")) {
            (tile(visit, "reports-spent", &money(lang, report, t.spent), change(visit, report.change.spent)))
            (tile(visit, "reports-views", &lang.count(t.views), change(visit, report.change.views)))
            (tile(visit, "reports-clicks", &lang.count(t.clicks), change(visit, report.change.clicks)))
            (tile(visit, "reports-actions", &lang.count(t.actions), change(visit, report.change.actions)))
            (tile(visit, "reports-conversions", &lang.count(t.conversions), change(visit, report.change.conversions)))
            (tile(visit, "reports-revenue", &t.revenue.map_or("–".into(), |r| money(lang, report, r)), change(visit, report.change.revenue)))
            (tile(visit, "reports-roas", &percent(lang, t.roas.map(|r| r * Decimal::ONE_HUNDRED)), html! {}))
            (tile(visit, "reports-cpm", &t.cpm.map_or("–".into(), |c| money(lang, report, c)), html! {}))
        }
        p.muted.compare { (previous) }
        @if let Some(fee) = &report.fee {
            div.card.fee {
                h2 { (visit.t("reports-fee-title")) }
                dl.fields {
                    dt { (visit.t("reports-fee-platform")) } dd data-figure="platform_spend" { (money(lang, report, fee.platform_spend)) }
                    dt { (visit.ta("reports-fee-line", &[("percent", number(lang, Some(fee.percent), 2).into())])) }
                    dd data-figure="fee" { (money(lang, report, fee.fee)) }
                    dt { strong { (visit.t("reports-fee-client")) } } dd data-figure="client_spend" { strong { (money(lang, report, fee.client_spend)) } }
                }
            }
        }
        h2 { (visit.t("reports-daily")) }
        (daily_chart(visit, report))
        h2 { (visit.t("reports-campaigns")) }
        @if report.campaigns.is_empty() {
            p.empty { (visit.t("reports-no-stats")) }
        } @else {
            div.table-wrap {
                table.cards.report-campaigns {
                    thead { tr {
                        th { (visit.t("reports-campaign")) }
                        @for key in COLUMNS { th.num { (visit.t(key)) } }
                    } }
                    tbody {
                        @for line in &report.campaigns {
                            tr data-ad=(line.ad_id) {
                                td data-label=(visit.t("reports-campaign")) { (line.title) br; span.muted { "#" (line.ad_id) } }
                                (cells(visit, report, &line.figures))
                            }
                        }
                    }
                    tfoot { tr {
                        td data-label="" { strong { (visit.t("reports-all")) } }
                        (cells(visit, report, t))
                    } }
                }
            }
        }
        h2 { (visit.t("reports-events")) }
        @if report.events.is_empty() {
            p.muted { (visit.t("reports-no-events")) }
        } @else {
            div.table-wrap {
                table.cards.report-events {
                    thead { tr {
                        th { (visit.t("reports-event")) } th.num { (visit.t("reports-count")) } th.num { (visit.t("reports-revenue-native")) }
                    } }
                    tbody {
                        @for e in &report.events {
                            tr data-event=(e.event_type) {
                                td data-label=(visit.t("reports-event")) { (event_name(visit, &e.event_type)) }
                                td.num data-label=(visit.t("reports-count")) { (lang.count(e.count)) }
                                td.num data-label=(visit.t("reports-revenue-native")) {
                                    @if e.revenue.is_empty() { "–" }
                                    @for (i, a) in e.revenue.iter().enumerate() {
                                        @if i > 0 { br; }
                                        (number(lang, Some(a.amount), 2)) "\u{a0}" (a.currency)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        @if !report.revenue.rates.is_empty() || !report.revenue.unconverted.is_empty() {
            ul.rates.muted {
                @for r in &report.revenue.rates {
                    @if r.currency != report.currency {
                        li { (visit.ta("reports-rate", &[
                            ("currency", r.currency.clone().into()),
                            ("rate", number(lang, Some(r.rate), 6).into()),
                            ("into", report.currency.to_string().into()),
                            ("day", day(lang, r.day).into()),
                        ])) }
                    }
                }
                @for c in &report.revenue.unconverted {
                    @let native = report.revenue.native.iter().find(|a| &a.currency == c);
                    li.warning { (visit.ta("reports-no-rate", &[
                        ("currency", c.clone().into()),
                        ("amount", number(lang, native.map(|a| a.amount), 2).into()),
                    ])) }
                }
            }
        }
        p.muted.note { (visit.t("reports-note")) }
    }
}

/// The columns of the campaigns table after its name, by catalogue key.
const COLUMNS: [&str; 10] = [
    "reports-spent",
    "reports-views",
    "reports-clicks",
    "reports-ctr",
    "reports-cpm",
    "reports-actions",
    "reports-conversions",
    "reports-revenue",
    "reports-cpa",
    "reports-roas",
];

fn cells(visit: &Visit, report: &Report, f: &Figures) -> Markup {
    let lang = visit.lang;
    let values = [
        money(lang, report, f.spent),
        lang.count(f.views),
        lang.count(f.clicks),
        percent(lang, f.ctr),
        f.cpm.map_or("–".into(), |c| money(lang, report, c)),
        lang.count(f.actions),
        lang.count(f.conversions),
        f.revenue.map_or("–".into(), |r| money(lang, report, r)),
        f.cpa.map_or("–".into(), |c| money(lang, report, c)),
        percent(lang, f.roas.map(|r| r * Decimal::ONE_HUNDRED)),
    ];
    html! {
        @for (key, value) in COLUMNS.iter().zip(values) {
            td.num data-label=(visit.t(key)) { (value) }
        }
    }
}

fn tile(visit: &Visit, key: &str, value: &str, change: Markup) -> Markup {
    html! {
        div.tile data-figure=(key.trim_start_matches("reports-")) {
            span.name { (visit.t(key)) }
            strong.value { (value) }
            (change)
        }
    }
}

/// A conversion event's name in the page's language.
fn event_name(visit: &Visit, event: &str) -> String {
    match event {
        "lead" => visit.t("reports-event-lead"),
        "conversion" => visit.t("reports-event-conversion"),
        "purchase" => visit.t("reports-event-purchase"),
        other => other.to_string(),
    }
}

fn daily_chart(visit: &Visit, report: &Report) -> Markup {
    let lang = visit.lang;
    let to_f = |d: Decimal| d.try_into().unwrap_or(0.0);
    let spent: Vec<f64> = report.daily.iter().map(|d| to_f(d.figures.spent)).collect();
    let views: Vec<f64> = report
        .daily
        .iter()
        .map(|d| d.figures.views as f64)
        .collect();
    let clicks: Vec<f64> = report
        .daily
        .iter()
        .map(|d| d.figures.clicks as f64)
        .collect();
    let conversions: Vec<f64> = report
        .daily
        .iter()
        .map(|d| d.figures.conversions as f64)
        .collect();
    let labels: Vec<String> = report
        .daily
        .iter()
        .map(|d| match lang {
            Lang::En => d.day.format("%-d %b").to_string(),
            Lang::Ru => d.day.format("%d.%m").to_string(),
        })
        .collect();
    let spend_name = visit.t("reports-spent");
    let views_name = visit.t("reports-views");
    let clicks_name = visit.t("reports-clicks");
    let conv_name = visit.t("reports-conversions");
    let series = [
        Series {
            name: &spend_name,
            class: "s-spent",
            peak: money(lang, report, report.totals.spent),
            values: spent,
        },
        Series {
            name: &views_name,
            class: "s-views",
            peak: lang.count(report.totals.views),
            values: views,
        },
        Series {
            name: &clicks_name,
            class: "s-clicks",
            peak: lang.count(report.totals.clicks),
            values: clicks,
        },
        Series {
            name: &conv_name,
            class: "s-conv",
            peak: lang.count(report.totals.conversions),
            values: conversions,
        },
    ];
    let value = |i: usize, v: f64| {
        if i == 0 {
            let d = Decimal::try_from(v).unwrap_or_default();
            money(lang, report, d)
        } else {
            lang.count(v.round() as i64)
        }
    };
    chart::with_axes(&series, &labels, &visit.t("reports-daily"), &value)
}
