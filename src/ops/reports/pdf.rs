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
    // CPM, revenue and CPA at the currency's decimals, ROAS and revenue as reported at two, as
    // the report page shows them: the stored six are noise on paper.
    let priced = |d: Decimal| lang.fixed(d, report.scale);
    let ratio = |d: Decimal| lang.fixed(d, 2);
    let title = match &report.agency.name {
        Some(agency) => format!("{agency} · {}", report.cabinet_name),
        None => report.cabinet_name.clone(),
    };
    let mut subtitle = lang.ta(
        "reports-span",
        &[
            ("from", day(lang, report.from).into()),
            ("to", day(lang, report.to).into()),
            ("zone", report.time_zone.into()),
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
            figure("reports-roas", optional(t.roas, &ratio), None),
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
                optional(f.cpm, &priced),
                lang.count(f.actions),
                lang.count(f.conversions),
                optional(f.revenue, &priced),
                optional(f.cpa, &priced),
                optional(f.roas, &ratio),
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
                        .map(|a| format!("{} {}", ratio(a.amount), a.currency))
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
            .map(|a| ratio(a.amount))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::reports::{Agency, CampaignLine, Change, Day, EventLine, Fee, Revenue};
    use chrono::Days;

    fn figures(views: i64, cents: i64) -> Figures {
        let spent = Decimal::new(cents, 2);
        Figures {
            views,
            clicks: views / 80,
            actions: views / 1000,
            spent,
            ctr: Some(Decimal::new(125, 2)),
            cpm: Some(Decimal::new(250, 2)),
            conversions: views / 2000,
            revenue: None,
            cpa: None,
            roas: None,
        }
    }

    /// A week of a Russian agency's cabinet with `campaigns` campaigns.
    fn sample(campaigns: usize) -> Report {
        let from = NaiveDate::from_ymd_opt(2026, 11, 16).unwrap();
        let totals = figures(123_456, 4251);
        Report {
            account_id: 7,
            cabinet_name: "Кофейня «Зерно»".into(),
            currency: "EUR",
            scale: 2,
            group: None,
            agency: Agency {
                owner_id: 1,
                name: Some("Агентство Север".into()),
                has_logo: false,
            },
            from,
            to: from + Days::new(6),
            time_zone: "Europe/Moscow",
            previous_from: from - Days::new(7),
            previous_to: from - Days::new(1),
            previous: figures(100_000, 4000),
            change: Change {
                views: Some(Decimal::new(2346, 2)),
                ..Change::default()
            },
            totals,
            daily: (0..7)
                .map(|i| Day {
                    day: from + Days::new(i),
                    figures: figures(1000 + 300 * i as i64, 200 + 65 * i as i64),
                })
                .collect(),
            campaigns: (0..campaigns)
                .map(|i| CampaignLine {
                    ad_id: 100 + i as i64,
                    title: format!("Осенняя кампания {i}"),
                    figures: figures(5000 - i as i64, 123),
                })
                .collect(),
            events: vec![EventLine {
                event_type: "purchase".into(),
                count: 61,
                revenue: vec![],
            }],
            revenue: Revenue::default(),
            fee: Some(Fee {
                percent: Decimal::new(10, 0),
                platform_spend: Decimal::new(4251, 2),
                fee: Decimal::new(425, 2),
                client_spend: Decimal::new(4676, 2),
            }),
        }
    }

    fn text(pdf: &[u8]) -> String {
        let doc = lopdf::Document::load_mem(pdf).unwrap();
        let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
        doc.extract_text(&pages).unwrap()
    }

    #[test]
    fn the_report_reads_back_in_each_language_with_its_figures() {
        let report = sample(3);
        let en = render(&report, Lang::En, None).unwrap();
        let ru = render(&report, Lang::Ru, None).unwrap();
        let en_text = text(&en);
        for want in [
            "Агентство Север · Кофейня «Зерно»",
            "2026-11-16 – 2026-11-22 (days in Europe/Moscow)",
            "42.51 EUR",
            "123,456",
            "+23.46 %",
            "Agency fee (10%)",
            "46.76 EUR",
            "Spend, EUR · By day",
            "Осенняя кампания 2",
            "Purchase",
        ] {
            assert!(en_text.contains(want), "{want:?} missing from {en_text}");
        }
        let ru_text = text(&ru);
        for want in [
            "16.11.2026 – 22.11.2026 (сутки по Europe/Moscow)",
            "42,51 EUR",
            "123\u{a0}456",
            "Расход",
        ] {
            assert!(ru_text.contains(want), "{want:?} missing from {ru_text}");
        }
        // The font is embedded as a subset: a report stays small.
        assert!(en.len() < 120_000, "{} bytes", en.len());
    }

    #[test]
    fn a_cabinet_with_many_campaigns_gets_more_pages() {
        let pdf = render(&sample(90), Lang::En, None).unwrap();
        let doc = lopdf::Document::load_mem(&pdf).unwrap();
        assert!(doc.get_pages().len() >= 3);
        let all = text(&pdf);
        assert!(all.contains("Осенняя кампания 88"), "{all}");
    }
}
