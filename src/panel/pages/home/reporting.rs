//! Owns the home totals' figures across currencies: ROAS and profit of each line (a cabinet,
//! or a currency's sum) in its own currency, and every cabinet's spend and revenue summed in the
//! reporting currency, each converted at the kept rate of the period's last day (or the newest
//! of the week before it), with every rate and its date written beside the figure. A currency
//! with no rate stays native and is named in a note, never guessed.

use chrono::NaiveDate;
use maud::{html, Markup};
use rust_decimal::Decimal;

use super::super::super::format::Fmt;
use super::super::super::Visit;
use super::super::rate_notes;
use super::lines::{per_currency, Line};
use crate::domain::agency::CurrencyCode;
use crate::ops::returns::{self, Returns, Summed, Used};
use crate::store::StoreError;

/// ROAS and profit per line, and the totals in the reporting currency.
#[derive(Debug, Clone)]
pub struct Reporting {
    /// One per cabinet line, in the lines' order.
    pub per_line: Vec<Returns>,
    /// One per currency's sum, in `per_currency`'s order.
    pub per_sum: Vec<Returns>,
    pub spend: Summed,
    pub revenue: Summed,
    pub returns: Returns,
    /// The day whose rates convert (the period's last).
    pub day: NaiveDate,
}

fn revenue_of(line: &Line) -> Vec<(String, Decimal)> {
    returns::revenue_amounts(line.now.converted.revenue.iter().map(|(c, m)| (c, m)))
}

fn returns_of(
    conn: &rusqlite::Connection,
    line: &Line,
    to: &CurrencyCode,
    day: NaiveDate,
) -> Result<Returns, StoreError> {
    let spend = line.now.totals.spent.to_decimal();
    returns::returns(
        conn,
        spend,
        &line.kind.currency_code(),
        &revenue_of(line),
        to,
        day,
    )
}

/// The figures of `lines` converted at the rates of `day`, the totals into `currency`.
pub fn gather(
    conn: &rusqlite::Connection,
    lines: &[Line],
    currency: &CurrencyCode,
    day: NaiveDate,
) -> Result<Reporting, StoreError> {
    let own = |line: &Line| returns_of(conn, line, &line.kind.currency_code(), day);
    let sums = per_currency(lines);
    let per_line = lines.iter().map(own).collect::<Result<_, _>>()?;
    let per_sum = sums.iter().map(own).collect::<Result<_, _>>()?;
    let spent: Vec<(String, Decimal)> = sums
        .iter()
        .map(|s| {
            (
                s.kind.currency().to_string(),
                s.now.totals.spent.to_decimal(),
            )
        })
        .collect();
    let income: Vec<(String, Decimal)> = sums.iter().flat_map(revenue_of).collect();
    let spend = returns::sum_in(conn, &spent, currency, day)?;
    let revenue = returns::sum_in(conn, &income, currency, day)?;
    let all = if income.is_empty() {
        Returns::none(currency)
    } else {
        returns::between(&revenue, &spend)
    };
    Ok(Reporting {
        per_line,
        per_sum,
        spend,
        revenue,
        returns: all,
        day,
    })
}

/// An amount of `currency` to two places with its code.
fn amount(fmt: Fmt, d: Decimal, currency: &CurrencyCode) -> String {
    let mut d = d.round_dp(2);
    d.rescale(2);
    format!("{}\u{a0}{currency}", fmt.lang.decimal(d))
}

/// The notes of a figure: each rate it was converted at, and each currency left native.
fn notes(visit: &Visit, used: &[Used], missing: &[String]) -> Vec<String> {
    rate_notes::notes(visit, used, missing)
}

/// A line's ROAS and profit cells, in its currency, with the rates as a small note.
pub fn cells(visit: &Visit, fmt: Fmt, r: Option<&Returns>) -> Markup {
    let none = html! { "–" };
    let Some(r) = r else {
        return html! { td.num { (none) } td.num { (none) } };
    };
    let said = notes(visit, &r.used, &r.missing).join("; ");
    let note = html! {
        @if !said.is_empty() { br; small.muted.rate-note { (said) } }
    };
    html! {
        td.num data-label=(visit.t("home-col-roas")) data-figure="roas" title=[(!said.is_empty()).then_some(&said)] {
            @match r.roas { Some(x) => (fmt.ratio(x, true)), None => (none) }
            @if r.roas.is_none() && !r.missing.is_empty() { (note) }
        }
        td.num data-label=(visit.t("home-col-profit")) data-figure="profit" title=[(!said.is_empty()).then_some(&said)] {
            @match r.profit { Some(p) => (amount(fmt, p, &r.currency)), None => (none) }
            (note)
        }
    }
}

/// Whether the totals span more than the reporting currency alone.
pub fn worth_showing(lines: &[Line], r: &Reporting) -> bool {
    let sums = per_currency(lines);
    sums.len() > 1
        || sums
            .iter()
            .any(|s| s.kind.currency() != r.spend.currency.as_str())
        || !r.revenue.used.is_empty()
        || !r.revenue.missing.is_empty()
}

/// The totals across currencies in the reporting currency, each with its rates and dates.
pub fn render(visit: &Visit, r: &Reporting) -> Markup {
    let fmt = visit.fmt();
    let currency = &r.spend.currency;
    let figure = |label: &str, value: Option<String>, used: &[Used], missing: &[String]| {
        let said = notes(visit, used, missing);
        html! {
            div.figure data-figure=(label) {
                dt { (visit.t(&format!("home-across-{label}"))) }
                dd {
                    strong { (value.unwrap_or_else(|| "–".into())) }
                    @for note in &said { br; small.muted.rate-note { (note) } }
                }
            }
        }
    };
    let spend =
        (!r.spend.used.is_empty() || r.spend.missing.is_empty() || r.spend.amount > Decimal::ZERO)
            .then(|| amount(fmt, r.spend.amount, currency));
    let revenue = (!r.revenue.used.is_empty() || r.revenue.amount > Decimal::ZERO)
        .then(|| amount(fmt, r.revenue.amount, currency));
    html! {
        section.home-across aria-labelledby="home-across" data-currency=(currency) {
            h3 #home-across { (visit.ta("home-across", &[("currency", currency.as_str().into())])) }
            p.muted { (visit.ta("home-across-lead", &[("date", rate_notes::short_date(visit.lang, r.day).into())])) }
            dl.figures {
                (figure("spend", spend, &r.spend.used, &r.spend.missing))
                (figure("revenue", revenue, &r.revenue.used, &r.revenue.missing))
                (figure("roas", r.returns.roas.map(|x| fmt.ratio(x, true)), &[], &[]))
                (figure("profit", r.returns.profit.map(|p| amount(fmt, p, currency)), &[], &[]))
            }
        }
    }
}
