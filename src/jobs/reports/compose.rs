//! Owns a scheduled report's content: the period's figures read from the stored hours (totals,
//! each day, each campaign), as the `report` webhook event carries them and as the PDF shows
//! them in the owner's language. To be replaced by the client report of `ops::reports` when
//! both meet; the job depends only on [`compose`] and [`figures`].

use chrono::NaiveDate;
use rusqlite::Connection;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::{json, Value};

use super::{Period, ReportError};
use crate::domain::money::{ratio, CabinetType, Money};
use crate::domain::stats::{number, Totals};
use crate::i18n::{Arg, Lang};
use crate::pdf;
use crate::services::Services;
use crate::store::{cabinets, campaigns, stats};

/// A report as sent: its PDF, the PDF's caption in the chat, and its figures.
#[derive(Debug, Clone)]
pub struct Composed {
    pub pdf: Vec<u8>,
    pub caption: String,
    pub figures: Value,
}

/// What one report shows.
#[derive(Debug, Clone)]
pub struct Figures {
    pub account_id: i64,
    pub cabinet: String,
    pub kind: CabinetType,
    pub period: Period,
    pub totals: Totals,
    pub days: Vec<(NaiveDate, Totals)>,
    /// Each campaign with stats in the period, largest spend first: id, title, totals.
    pub campaigns: Vec<(i64, Option<String>, Totals)>,
}

/// The cabinet's report for `period` in `lang`: its PDF and its figures. Blocking (it reads
/// the store and renders the PDF).
pub fn compose(
    s: &Services,
    cabinet: i64,
    period: &Period,
    lang: Lang,
) -> Result<Composed, ReportError> {
    let period = period.clone();
    let f = s.db.read_blocking(move |c| figures(c, cabinet, &period))?;
    let pdf = pdf::render(&document(&f, lang)).map_err(ReportError::Pdf)?;
    Ok(Composed {
        pdf,
        caption: caption(&f, lang),
        figures: f.json(),
    })
}

/// The figures of the cabinet's `period` from the stored hours.
pub fn figures(conn: &Connection, account: i64, period: &Period) -> Result<Figures, ReportError> {
    let cabinet = cabinets::get(conn, account)?.ok_or(ReportError::UnknownCabinet(account))?;
    let (from, to) = period.span();
    let totals = stats::of_cabinet(conn, account, &from, &to)?;
    let mut days = Vec::new();
    for day in period.days() {
        let (a, b) = period.day_span(day);
        days.push((day, stats::of_cabinet(conn, account, &a, &b)?));
    }
    let mut rows = stats::per_campaign(conn, account, &from, &to)?;
    rows.sort_by(|a, b| {
        b.1.spent
            .micros()
            .cmp(&a.1.spent.micros())
            .then(a.0.cmp(&b.0))
    });
    let ids: Vec<i64> = rows.iter().map(|(ad, _)| *ad).collect();
    let titles = campaigns::titles(conn, account, &ids)?;
    let campaigns = rows
        .into_iter()
        .map(|(ad, t)| (ad, titles.get(&ad).cloned(), t))
        .collect();
    Ok(Figures {
        account_id: account,
        cabinet: cabinet.name,
        kind: cabinet.cabinet_type,
        period: period.clone(),
        totals,
        days,
        campaigns,
    })
}

/// Click-through rate in percent, two decimals.
fn ctr(t: &Totals) -> Decimal {
    ratio(
        Decimal::from(t.clicks) * Decimal::ONE_HUNDRED,
        Decimal::from(t.views),
        2,
    )
}

/// Cost per thousand views, two decimals.
fn cpm(t: &Totals) -> Decimal {
    ratio(
        t.spent.to_decimal() * Decimal::ONE_THOUSAND,
        Decimal::from(t.views),
        2,
    )
}

/// Spend at the currency's decimals (half away from zero).
fn spend(kind: CabinetType, m: Money) -> Decimal {
    let mut d = m
        .to_decimal()
        .round_dp_with_strategy(kind.scale(), RoundingStrategy::MidpointAwayFromZero);
    d.rescale(kind.scale());
    d
}

impl Figures {
    /// The figures as the `report` event carries them (money as numbers in the cabinet's
    /// currency, like `hourly_digest`).
    pub fn json(&self) -> Value {
        let line = |t: &Totals| {
            json!({
                "spent": number(t.spent.to_decimal()),
                "views": t.views,
                "clicks": t.clicks,
                "actions": t.actions,
                "ctr": number(ctr(t)),
                "cpm": number(cpm(t)),
            })
        };
        let p = &self.period;
        let (start, end) = p.span();
        json!({
            "schedule": p.schedule.as_str(),
            "period": {
                "first_day": p.first.to_string(),
                "last_day": p.last.to_string(),
                "time_zone": p.zone.name(),
                "start": start,
                "end": end,
            },
            "currency": self.kind.currency(),
            "totals": line(&self.totals),
            "days": self.days.iter().map(|(day, t)| json!({
                "day": day.to_string(),
                "spent": number(t.spent.to_decimal()),
                "views": t.views,
                "clicks": t.clicks,
                "actions": t.actions,
            })).collect::<Vec<_>>(),
            "campaigns": self.campaigns.iter().map(|(ad, title, t)| {
                let mut v = line(t);
                v["ad_id"] = json!(ad);
                v["title"] = json!(title);
                v
            }).collect::<Vec<_>>(),
        })
    }
}

/// A day as each language writes it: `2026-11-16`, `16.11.2026`.
pub fn day(lang: Lang, d: NaiveDate) -> String {
    match lang {
        Lang::En => d.format("%Y-%m-%d").to_string(),
        Lang::Ru => d.format("%d.%m.%Y").to_string(),
    }
}

/// The PDF's caption in the chat.
pub fn caption(f: &Figures, lang: Lang) -> String {
    lang.ta(
        "scheduled-caption",
        &[
            ("cabinet", Arg::from(f.cabinet.as_str())),
            ("first", day(lang, f.period.first).into()),
            ("last", day(lang, f.period.last).into()),
        ],
    )
}

/// The report as a document in `lang`.
pub fn document(f: &Figures, lang: Lang) -> pdf::Document {
    let money = |m: Money| format!("{} {}", lang.decimal(spend(f.kind, m)), f.kind.currency());
    let title_key = match f.period.schedule {
        crate::domain::agency::ReportSchedule::Weekly => "scheduled-title-weekly",
        crate::domain::agency::ReportSchedule::Monthly => "scheduled-title-monthly",
    };
    let title = lang.ta(title_key, &[("cabinet", f.cabinet.as_str().into())]);
    let subtitle = lang.ta(
        "scheduled-period",
        &[
            ("first", day(lang, f.period.first).into()),
            ("last", day(lang, f.period.last).into()),
            ("zone", f.period.zone.name().into()),
        ],
    );
    let t = &f.totals;
    let figure = |key: &str, value: String| pdf::Figure {
        label: lang.t(key),
        value,
        note: None,
    };
    let mut blocks = vec![
        pdf::Block::Heading(pdf::Heading {
            title: title.clone(),
            subtitle: Some(subtitle),
            logo: None,
        }),
        pdf::Block::Figures(vec![
            figure("scheduled-spend", money(t.spent)),
            figure("scheduled-views", lang.count(t.views)),
            figure("scheduled-clicks", lang.count(t.clicks)),
            figure("scheduled-actions", lang.count(t.actions)),
            figure("scheduled-ctr", format!("{} %", lang.decimal(ctr(t)))),
            figure("scheduled-cpm", money_decimal(lang, cpm(t), f.kind)),
        ]),
    ];
    let short = |d: NaiveDate| match lang {
        Lang::En => d.format("%m-%d").to_string(),
        Lang::Ru => d.format("%d.%m").to_string(),
    };
    blocks.push(pdf::Block::Chart(pdf::Chart {
        title: lang.ta(
            "scheduled-spend-by-day",
            &[("currency", f.kind.currency().into())],
        ),
        kind: pdf::ChartKind::Bar,
        points: f
            .days
            .iter()
            .map(|(d, t)| (short(*d), spend(f.kind, t.spent).to_f64().unwrap_or(0.0)))
            .collect(),
    }));
    blocks.push(pdf::Block::Chart(pdf::Chart {
        title: lang.t("scheduled-views-by-day"),
        kind: pdf::ChartKind::Line,
        points: f
            .days
            .iter()
            .map(|(d, t)| (short(*d), t.views as f64))
            .collect(),
    }));
    blocks.push(pdf::Block::Subheading(lang.t("scheduled-campaigns")));
    if f.campaigns.is_empty() {
        blocks.push(pdf::Block::Paragraph(lang.t("scheduled-no-campaigns")));
    } else {
        let column = |key: &str, align| pdf::Column {
            title: lang.t(key),
            align,
        };
        let right = pdf::Align::Right;
        let cells = |name: String, t: &Totals| {
            vec![
                name,
                money(t.spent),
                lang.count(t.views),
                lang.count(t.clicks),
                lang.decimal(ctr(t)),
                lang.count(t.actions),
            ]
        };
        blocks.push(pdf::Block::Table(pdf::Table {
            columns: vec![
                column("scheduled-campaign", pdf::Align::Left),
                column("scheduled-spend", right),
                column("scheduled-views", right),
                column("scheduled-clicks", right),
                column("scheduled-ctr", right),
                column("scheduled-actions", right),
            ],
            rows: f
                .campaigns
                .iter()
                .map(|(ad, name, t)| {
                    let name = name
                        .clone()
                        .unwrap_or_else(|| lang.ta("scheduled-untitled", &[("ad", (*ad).into())]));
                    cells(name, t)
                })
                .collect(),
            total: Some(cells(lang.t("scheduled-total"), t)),
        }));
    }
    blocks.push(pdf::Block::Paragraph(lang.t("scheduled-footer")));
    pdf::Document { title, blocks }
}

fn money_decimal(lang: Lang, d: Decimal, kind: CabinetType) -> String {
    format!("{} {}", lang.decimal(d), kind.currency())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::agency::ReportSchedule;

    fn sample(campaigns: usize) -> Figures {
        let period = Period::last_before(
            ReportSchedule::Weekly,
            chrono_tz::Tz::UTC,
            NaiveDate::from_ymd_opt(2026, 11, 23).unwrap(),
        );
        let t = |views: i64, micros: i64| Totals {
            views,
            opens: 0,
            clicks: views / 80,
            actions: views / 1000,
            spent: Money::from_micros(micros),
        };
        let days = period
            .days()
            .enumerate()
            .map(|(i, d)| (d, t(1000 + 300 * i as i64, 2_000_000 + 650_000 * i as i64)))
            .collect();
        Figures {
            account_id: 7,
            cabinet: "Кофейня «Зерно»".into(),
            kind: CabinetType::Euro,
            period,
            totals: t(123_456, 42_505_000),
            days,
            campaigns: (0..campaigns)
                .map(|i| {
                    let title = (i % 5 != 4).then(|| format!("Осенняя кампания {i}"));
                    (100 + i as i64, title, t(5000 - i as i64, 1_234_567))
                })
                .collect(),
        }
    }

    fn text(pdf: &[u8]) -> String {
        let doc = lopdf::Document::load_mem(pdf).unwrap();
        let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
        doc.extract_text(&pages).unwrap()
    }

    #[test]
    fn the_report_reads_back_in_each_language_with_its_figures() {
        let f = sample(3);
        let en = pdf::render(&document(&f, Lang::En)).unwrap();
        let ru = pdf::render(&document(&f, Lang::Ru)).unwrap();
        // `ADCAB_SAMPLE_DIR=docs/samples cargo test --lib compose` rewrites the samples.
        if let Ok(dir) = std::env::var("ADCAB_SAMPLE_DIR") {
            std::fs::write(format!("{dir}/scheduled-report-en.pdf"), &en).unwrap();
            std::fs::write(format!("{dir}/scheduled-report-ru.pdf"), &ru).unwrap();
        }
        let en_text = text(&en);
        for want in [
            "Weekly report: Кофейня «Зерно»",
            "2026-11-16 – 2026-11-22",
            "42.51 EUR",
            "123,456",
            "Spend by day, EUR",
            "Осенняя кампания 2",
            "Total",
        ] {
            assert!(en_text.contains(want), "{want:?} missing from {en_text}");
        }
        let ru_text = text(&ru);
        for want in [
            "Отчёт за неделю: Кофейня «Зерно»",
            "16.11.2026 – 22.11.2026",
            "42,51 EUR",
            "123\u{a0}456",
            "Расход по дням, EUR",
            "Итого",
        ] {
            assert!(ru_text.contains(want), "{want:?} missing from {ru_text}");
        }
        // The font is embedded as a subset: a page stays small.
        assert!(en.len() < 80_000, "{} bytes", en.len());
        assert_eq!(f.json()["totals"]["views"], 123_456);
        assert_eq!(f.json()["days"].as_array().unwrap().len(), 7);
    }

    #[test]
    fn a_cabinet_with_many_campaigns_gets_more_pages_and_untitled_ones_a_name() {
        let pdf = pdf::render(&document(&sample(90), Lang::En)).unwrap();
        let doc = lopdf::Document::load_mem(&pdf).unwrap();
        assert!(doc.get_pages().len() >= 3);
        let all = text(&pdf);
        assert!(all.contains("Campaign 104"), "{all}");
        assert!(all.contains("Осенняя кампания 88"), "{all}");
    }
}
