//! Owns the home totals as a download (`/?format=csv|xlsx`): one row per cabinet, then one
//! per currency, with ROAS and profit in the line's currency.

use rust_decimal::Decimal;

use super::super::super::export::{Cell, Table};
use super::lines::{per_currency, Line};
use super::reporting::Reporting;
use super::totals::Chosen;
use crate::domain::money::Money;

/// The totals as a download: one row per cabinet, then one per currency (`account_id`
/// empty), with the earlier period's figures beside them, and ROAS and profit in the line's
/// currency (empty without revenue or a rate). Revenue is one decimal when the
/// conversions reported one currency (`revenue_currency` names it); with several,
/// `revenue` is empty and `revenue_currency` lists them as `USD 12.50; EUR 3.00`.
pub fn table(chosen: &Chosen, lines: &[Line], reporting: &Reporting) -> Table {
    let sums = per_currency(lines);
    let returns: Vec<_> = reporting
        .per_line
        .iter()
        .chain(&reporting.per_sum)
        .collect();
    let rows = lines
        .iter()
        .chain(&sums)
        .enumerate()
        .map(|(i, line)| {
            let (n, b) = (&line.now.totals, &line.before.totals);
            let scale = line.kind.scale();
            let money = |m: Money| {
                let mut d = m.to_decimal().round_dp(scale);
                d.rescale(scale);
                Cell::Decimal(d)
            };
            let (revenue, revenue_currency) = match line.now.converted.revenue.as_slice() {
                [] => (Cell::Empty, Cell::Empty),
                [(currency, micros)] => (
                    Cell::Decimal(
                        Decimal::try_from_i128_with_scale(*micros, 6)
                            .unwrap_or_default()
                            .normalize(),
                    ),
                    Cell::from(currency.as_str()),
                ),
                several => (
                    Cell::Empty,
                    Cell::Text(
                        several
                            .iter()
                            .map(|(c, m)| {
                                let d = Decimal::try_from_i128_with_scale(*m, 6)
                                    .unwrap_or_default()
                                    .normalize();
                                format!("{c} {d}")
                            })
                            .collect::<Vec<_>>()
                            .join("; "),
                    ),
                ),
            };
            vec![
                Cell::from(line.id),
                Cell::from(line.name.as_str()),
                Cell::from(line.kind.currency()),
                Cell::from(chosen.first.format("%Y-%m-%d").to_string()),
                Cell::from(chosen.last.format("%Y-%m-%d").to_string()),
                money(n.spent),
                Cell::Int(n.views),
                Cell::Int(n.clicks),
                Cell::Decimal(n.ctr()),
                Cell::Decimal(n.cpm()),
                Cell::Int(n.actions),
                Cell::Int(line.now.converted.count),
                revenue,
                revenue_currency,
                money(b.spent),
                Cell::Int(b.views),
                Cell::Int(b.clicks),
                Cell::Int(b.actions),
                Cell::Int(line.before.converted.count),
                returns
                    .get(i)
                    .and_then(|r| r.roas)
                    .map_or(Cell::Empty, Cell::Decimal),
                returns
                    .get(i)
                    .and_then(|r| r.profit)
                    .map_or(Cell::Empty, |p| Cell::Decimal(p.round_dp(6).normalize())),
            ]
        })
        .collect();
    Table {
        name: "totals".into(),
        columns: vec![
            "account_id",
            "title",
            "currency",
            "from",
            "to",
            "spent",
            "views",
            "clicks",
            "ctr",
            "cpm",
            "actions",
            "conversions",
            "revenue",
            "revenue_currency",
            "previous_spent",
            "previous_views",
            "previous_clicks",
            "previous_actions",
            "previous_conversions",
            "roas",
            "profit",
        ],
        rows,
    }
}
