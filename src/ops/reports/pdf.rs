//! Owns the client report as a PDF: the [`Report`] laid out as a document in the reader's
//! language (the agency's name and logo at its head, the totals with their change, spend and
//! views by day as charts, a table per campaign, conversions by event, the fee line), for the
//! panel's `?format=pdf` and a share link's.

use chrono::NaiveDate;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

use super::{Figures, Report};
use crate::i18n::{Arg, Lang};
use crate::pdf;

/// The report rendered as a PDF in `lang`, headed by `logo` (PNG or JPEG bytes) when given.
/// Blocking: it lays out and writes the whole file.
pub fn render(
    report: &Report,
    lang: Lang,
    logo: Option<Vec<u8>>,
) -> Result<Vec<u8>, pdf::PdfError> {
    pdf::render(&document(report, lang, logo))
}

/// A day as each language writes it: `2026-11-16`, `16.11.2026`.
fn day(lang: Lang, d: NaiveDate) -> String {
    match lang {
        Lang::En => d.format("%Y-%m-%d").to_string(),
        Lang::Ru => d.format("%d.%m.%Y").to_string(),
    }
}

/// The report as a document in `lang`.
pub fn document(report: &Report, lang: Lang, logo: Option<Vec<u8>>) -> pdf::Document {
    let currency = report.currency;
    let money = |d: Decimal| format!("{} {currency}", lang.decimal(d.round_dp(report.scale)));
    let optional = |d: Option<Decimal>, show: &dyn Fn(Decimal) -> String| {
        d.map(show).unwrap_or_else(|| "—".into())
    };
    let percent = |d: Decimal| format!("{} %", lang.decimal(d));
    let plain = |d: Decimal| lang.decimal(d);
    let title = match &report.agency.name {
        Some(agency) => format!("{agency} · {}", report.cabinet_name),
        None => report.cabinet_name.clone(),
    };
    let mut subtitle = lang.ta(
        "reports-span",
        &[
            ("from", day(lang, report.from).into()),
            ("to", day(lang, report.to).into()),
        ],
    );
    if let Some(group) = &report.group {
        subtitle = format!("{subtitle} · {}: {}", lang.t("reports-group"), group.name);
    }
    let change = |c: Option<Decimal>| {
        c.map(|c| {
            let sign = if c > Decimal::ZERO { "+" } else { "" };
            format!("{sign}{} %", lang.decimal(c))
        })
    };
    let t = &report.totals;
    let c = &report.change;
    let figure = |key: &str, value: String, note: Option<String>| pdf::Figure {
        label: lang.t(key),
        value,
        note,
    };
    let mut blocks = vec![
        pdf::Block::Heading(pdf::Heading {
            title: title.clone(),
            subtitle: Some(subtitle),
            logo,
        }),
        pdf::Block::Figures(vec![
            figure("reports-spent", money(t.spent), change(c.spent)),
            figure("reports-views", lang.count(t.views), change(c.views)),
            figure("reports-clicks", lang.count(t.clicks), change(c.clicks)),
            figure("reports-ctr", optional(t.ctr, &percent), None),
            figure("reports-cpm", optional(t.cpm, &money), None),
            figure("reports-actions", lang.count(t.actions), change(c.actions)),
            figure(
                "reports-conversions",
                lang.count(t.conversions),
                change(c.conversions),
            ),
            figure(
                "reports-revenue",
                optional(t.revenue, &money),
                change(c.revenue),
            ),
            figure("reports-roas", optional(t.roas, &plain), None),
        ]),
        pdf::Block::Paragraph(lang.ta(
            "reports-previous",
            &[
                ("from", day(lang, report.previous_from).into()),
                ("to", day(lang, report.previous_to).into()),
            ],
        )),
    ];
    if let Some(fee) = &report.fee {
        blocks.push(pdf::Block::Subheading(lang.t("reports-fee-title")));
        blocks.push(pdf::Block::Figures(vec![
            figure("reports-fee-platform", money(fee.platform_spend), None),
            pdf::Figure {
                label: lang.ta(
                    "reports-fee-line",
                    &[("percent", lang.decimal(fee.percent).into())],
                ),
                value: money(fee.fee),
                note: None,
            },
            figure("reports-fee-client", money(fee.client_spend), None),
        ]));
    }
    let short = |d: NaiveDate| match lang {
        Lang::En => d.format("%m-%d").to_string(),
        Lang::Ru => d.format("%d.%m").to_string(),
    };
    blocks.push(pdf::Block::Chart(pdf::Chart {
        title: format!(
            "{}, {currency} · {}",
            lang.t("reports-spent"),
            lang.t("reports-daily")
        ),
        kind: pdf::ChartKind::Bar,
        points: report
            .daily
            .iter()
            .map(|d| (short(d.day), d.figures.spent.to_f64().unwrap_or(0.0)))
            .collect(),
    }));
    blocks.push(pdf::Block::Chart(pdf::Chart {
        title: format!("{} · {}", lang.t("reports-views"), lang.t("reports-daily")),
        kind: pdf::ChartKind::Line,
        points: report
            .daily
            .iter()
            .map(|d| (short(d.day), d.figures.views as f64))
            .collect(),
    }));
    blocks.push(pdf::Block::Subheading(lang.t("reports-campaigns")));
    if report.campaigns.is_empty() {
        blocks.push(pdf::Block::Paragraph(lang.t("reports-no-stats")));
    } else {
        let right = pdf::Align::Right;
        let column = |key: &str, align| pdf::Column {
            title: lang.t(key),
            align,
        };
        let cells = |name: String, f: &Figures| {
            vec![
                name,
                money(f.spent),
                lang.count(f.views),
                lang.count(f.clicks),
                optional(f.ctr, &plain),
                optional(f.cpm, &plain),
                lang.count(f.actions),
                lang.count(f.conversions),
                optional(f.revenue, &plain),
                optional(f.cpa, &plain),
                optional(f.roas, &plain),
            ]
        };
        blocks.push(pdf::Block::Table(pdf::Table {
            columns: vec![
                column("reports-campaign", pdf::Align::Left),
                column("reports-spent", right),
                column("reports-views", right),
                column("reports-clicks", right),
                column("reports-ctr", right),
                column("reports-cpm", right),
                column("reports-actions", right),
                column("reports-conversions", right),
                column("reports-revenue", right),
                column("reports-cpa", right),
                column("reports-roas", right),
            ],
            rows: report
                .campaigns
                .iter()
                .map(|line| cells(line.title.clone(), &line.figures))
                .collect(),
            total: Some(cells(lang.t("reports-all"), t)),
        }));
    }
    blocks.push(pdf::Block::Subheading(lang.t("reports-events")));
    if report.events.is_empty() {
        blocks.push(pdf::Block::Paragraph(lang.t("reports-no-events")));
    } else {
        blocks.push(pdf::Block::Table(pdf::Table {
            columns: vec![
                pdf::Column {
                    title: lang.t("reports-event"),
                    align: pdf::Align::Left,
                },
                pdf::Column {
                    title: lang.t("reports-count"),
                    align: pdf::Align::Right,
                },
                pdf::Column {
                    title: lang.t("reports-revenue-native"),
                    align: pdf::Align::Right,
                },
            ],
            rows: report
                .events
                .iter()
                .map(|e| {
                    let revenue = e
                        .revenue
                        .iter()
                        .map(|a| format!("{} {}", lang.decimal(a.amount), a.currency))
                        .collect::<Vec<_>>()
                        .join(", ");
                    vec![
                        lang.t(&format!("reports-event-{}", e.event_type)),
                        lang.count(e.count),
                        revenue,
                    ]
                })
                .collect(),
            total: None,
        }));
    }
    for rate in &report.revenue.rates {
        blocks.push(pdf::Block::Paragraph(lang.ta(
            "reports-rate",
            &[
                ("currency", Arg::from(rate.currency.as_str())),
                ("rate", lang.decimal(rate.rate).into()),
                ("into", currency.into()),
                ("day", day(lang, rate.day).into()),
            ],
        )));
    }
    for missing in &report.revenue.unconverted {
        let amount = report
            .revenue
            .native
            .iter()
            .find(|a| &a.currency == missing)
            .map(|a| lang.decimal(a.amount))
            .unwrap_or_default();
        blocks.push(pdf::Block::Paragraph(lang.ta(
            "reports-no-rate",
            &[
                ("currency", Arg::from(missing.as_str())),
                ("amount", amount.into()),
            ],
        )));
    }
    blocks.push(pdf::Block::Paragraph(lang.t("reports-note")));
    pdf::Document { title, blocks }
}
