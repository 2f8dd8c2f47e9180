//! Owns a client report as a download (`?format=csv|xlsx` on its page or its share link): one
//! table whose `section` column says what each row is (`total`, `previous`, `fee`,
//! `client_spend`, `day`, `campaign`, `event`), with the report's figures as plain decimals in
//! the cabinet's currency, the column names the same in every language.

use super::super::super::export::{Cell, Table};
use crate::ops::reports::{Figures, Report};

const COLUMNS: [&str; 15] = [
    "section",
    "day",
    "ad_id",
    "title",
    "currency",
    "spent",
    "views",
    "clicks",
    "ctr",
    "cpm",
    "actions",
    "conversions",
    "revenue",
    "cpa",
    "roas",
];

/// The report as one table.
pub fn of(report: &Report) -> Table {
    let mut rows = Vec::new();
    let currency = || Cell::from(report.currency);
    let range = format!("{}..{}", report.from, report.to);
    let before = format!("{}..{}", report.previous_from, report.previous_to);
    rows.push(line(
        "total",
        range.clone().into(),
        Cell::Empty,
        Cell::Empty,
        currency(),
        &report.totals,
    ));
    rows.push(line(
        "previous",
        before.into(),
        Cell::Empty,
        Cell::Empty,
        currency(),
        &report.previous,
    ));
    if let Some(fee) = &report.fee {
        for (section, amount) in [("fee", fee.fee), ("client_spend", fee.client_spend)] {
            let mut row = vec![
                section.into(),
                range.clone().into(),
                Cell::Empty,
                format!("{}%", fee.percent.normalize()).into(),
                currency(),
                amount.into(),
            ];
            row.resize(COLUMNS.len(), Cell::Empty);
            rows.push(row);
        }
    }
    for d in &report.daily {
        rows.push(line(
            "day",
            d.day.to_string().into(),
            Cell::Empty,
            Cell::Empty,
            currency(),
            &d.figures,
        ));
    }
    for c in &report.campaigns {
        rows.push(line(
            "campaign",
            range.clone().into(),
            c.ad_id.into(),
            c.title.as_str().into(),
            currency(),
            &c.figures,
        ));
    }
    for e in &report.events {
        let mut row = vec![
            "event".into(),
            range.clone().into(),
            Cell::Empty,
            e.event_type.as_str().into(),
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            e.count.into(),
        ];
        row.resize(COLUMNS.len(), Cell::Empty);
        rows.push(row);
    }
    Table {
        // The file's stem and the workbook's sheet name, which may not pass 31 characters.
        name: format!("report-{}", report.account_id),
        columns: COLUMNS.to_vec(),
        rows,
    }
}

fn line(section: &str, day: Cell, ad: Cell, title: Cell, currency: Cell, f: &Figures) -> Vec<Cell> {
    vec![
        section.into(),
        day,
        ad,
        title,
        currency,
        f.spent.into(),
        f.views.into(),
        f.clicks.into(),
        f.ctr.into(),
        f.cpm.into(),
        f.actions.into(),
        f.conversions.into(),
        f.revenue.into(),
        f.cpa.into(),
        f.roas.into(),
    ]
}
