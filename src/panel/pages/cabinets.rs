//! Owns `/cabinets`: every cabinet the person reaches, with its currency, balance and state,
//! its campaigns by status, and its spend today and over the last 7 days, with the balances and
//! spend of cabinets in several currencies summed in the reporting currency (the cabinets'
//! owner's choice, or the operator's when they are several owners'; each rate and its date
//! named); as a page, or as a download (`?format=csv|xlsx`); for an agency, the form
//! opening a client cabinet and each client cabinet's link to its money page (`funds`).

use chrono::Duration;
use maud::html;
use rust_decimal::RoundingStrategy;

use super::super::export::{self, Cell, Table};
use super::super::session::Session;
use super::super::{layout, Visit, WebError};
use super::rate_notes;
use super::status_name;
use crate::clock;
use crate::domain::access::Access;
use crate::domain::agency::CurrencyCode;
use crate::domain::campaign::Status;
use crate::domain::money::{CabinetType, Money};
use crate::domain::stats::Totals;
use crate::domain::time::iso;
use crate::http::Reply;
use crate::ops::returns::{self, Summed};
use crate::store::cabinets::{self, AgencyRole, Reachable};
use crate::store::{kept, stats, StoreError};

/// One cabinet's line.
struct Line {
    cabinet: Reachable,
    by_status: Vec<(Status, i64)>,
    today: Totals,
    week: Totals,
    /// A client cabinet of an agency's main account (it has a money page).
    client: bool,
}

pub async fn list<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let download = export::Format::requested(visit)?;
    let reach = session.person.reach.clone();
    // The owner's reporting currency when every cabinet shown is one owner's.
    let default = visit.state.services.config.rates.reporting_currency;
    let me = session.person.user.id;
    let (lines, across, mains) = visit
        .state
        .services
        .db
        .read(move |conn| {
            let currency = crate::ops::reporting_currency(conn, &default, &reach)?;
            let now = clock::now(conn)?;
            let day = now
                .date_naive()
                .and_hms_opt(0, 0, 0)
                .expect("midnight")
                .and_utc();
            let (today, week, to) = (
                iso(day),
                iso(now - Duration::days(7)),
                iso(now + Duration::hours(1)),
            );
            let lines = reach
                .into_iter()
                .map(|cabinet| {
                    let id = cabinet.cabinet.id;
                    Ok(Line {
                        client: matches!(
                            cabinets::agency_role(conn, id)?,
                            Some(AgencyRole::Related { .. })
                        ),
                        by_status: kept::by_status(conn, id)?,
                        today: stats::of_cabinet(conn, id, &today, &to)?,
                        week: stats::of_cabinet(conn, id, &week, &to)?,
                        cabinet,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            let across = across(conn, &lines, &currency, now.date_naive())?;
            let mains = cabinets::mains_of(conn, me)?
                .into_iter()
                .filter_map(|id| {
                    lines
                        .iter()
                        .find(|l| l.cabinet.cabinet.id == id)
                        .map(|l| (id, l.cabinet.cabinet.name.clone()))
                })
                .collect::<Vec<_>>();
            Ok::<_, StoreError>((lines, across, mains))
        })
        .await?;
    if let Some(format) = download {
        return table(&lines).reply(format);
    }
    let fmt = visit.fmt();
    let body = html! {
        header.page {
            div {
                h1 { (visit.t("cabinets-title")) }
                p.muted { (visit.t("cabinets-lead")) }
            }
            @if !lines.is_empty() { (export::links(visit, "/cabinets")) }
        }
        @if !mains.is_empty() { (super::funds::open_form(visit, session, &mains)) }
        @if lines.is_empty() {
            div.empty {
                p { (visit.t("cabinets-none")) }
                p { (visit.t("cabinets-none-how")) " " code { "adcab admin cabinet add" } }
            }
        } @else {
            div.table-wrap {
                table.cards {
                    thead { tr {
                        th { (visit.t("cabinets-cabinet")) } th { (visit.t("cabinets-state")) }
                        th.num { (visit.t("cabinets-balance")) } th { (visit.t("cabinets-campaigns")) }
                        th.num { (visit.t("cabinets-spend-today")) } th.num { (visit.t("cabinets-spend-week")) }
                        th { (visit.t("cabinets-access")) }
                    } }
                    tbody {
                        @for line in &lines {
                            @let c = &line.cabinet.cabinet;
                            tr {
                                td data-label=(visit.t("cabinets-cabinet")) {
                                    a href={ "/campaigns?account_id=" (c.id) } { (c.name) }
                                    br; span.muted { (c.id) " · " (c.cabinet_type.currency()) }
                                    br; a.report href={ "/reports/" (c.id) } { (visit.t("cabinets-report")) }
                                    @if session.person.writable(c.id).is_ok() {
                                        br; a.new href={ "/campaigns/new?account_id=" (c.id) } { (visit.t("cabinets-new-campaign")) }
                                    }
                                    @if line.client {
                                        br; a.money href={ "/cabinets/" (c.id) "/money" } { (visit.t("cabinets-move-money")) }
                                    }
                                }
                                td data-label=(visit.t("cabinets-state")) {
                                    @if !c.is_active { span.badge { (visit.t("status-cabinet-inactive")) } }
                                    @else if c.locked { span.badge.locked { (visit.t("status-cabinet-locked")) } }
                                    @else if c.auth_expired { span.badge.expired { (visit.t("status-cabinet-expired")) } }
                                    @else { span.badge.active { (visit.t("status-cabinet-active")) } }
                                }
                                td.num data-label=(visit.t("cabinets-balance")) { (fmt.money(c.cabinet_type, c.balance)) }
                                td data-label=(visit.t("cabinets-campaigns")) {
                                    @if line.by_status.is_empty() { span.muted { (visit.t("cabinets-no-campaigns")) } }
                                    @for (i, (status, n)) in line.by_status.iter().enumerate() {
                                        @if i > 0 { " · " }
                                        a href={ "/campaigns?account_id=" (c.id) "&status=" (status.as_str()) } {
                                            (fmt.count(*n)) " " (status_name(visit, *status))
                                        }
                                    }
                                }
                                td.num data-label=(visit.t("cabinets-spend-today")) { (fmt.money(c.cabinet_type, line.today.spent)) }
                                td.num data-label=(visit.t("cabinets-spend-week")) { (fmt.money(c.cabinet_type, line.week.spent)) }
                                td data-label=(visit.t("cabinets-access")) { (access_name(visit, line.cabinet.access)) }
                            }
                        }
                    }
                    @if let Some(a) = &across {
                        @let said = notes(visit, a);
                        @let title = said.join("; ");
                        @let shown = |s: &Summed| amount(fmt, s);
                        tfoot { tr.sum data-currency=(a.balance.currency) {
                            td data-label=(visit.t("cabinets-cabinet")) {
                                strong { (visit.ta("cabinets-across", &[("currency", a.balance.currency.as_str().into())])) }
                            }
                            td {}
                            td.num data-label=(visit.t("cabinets-balance")) data-figure="balance" title=(title) { (shown(&a.balance)) }
                            td {}
                            td.num data-label=(visit.t("cabinets-spend-today")) data-figure="today" title=(title) { (shown(&a.today)) }
                            td.num data-label=(visit.t("cabinets-spend-week")) data-figure="week" title=(title) { (shown(&a.week)) }
                            td {}
                        } }
                    }
                }
            }
            @if let Some(a) = &across {
                ul.muted.rate-notes data-figure="rates" {
                    @for note in notes(visit, a) { li { (note) } }
                }
            }
        }
    };
    let title = visit.t("cabinets-title");
    Ok(layout::page(visit, session, "/cabinets", &title, body))
}

/// The cabinets' balance and spend summed in the reporting currency, at the kept rates of
/// `day`; `None` when every cabinet is already in it.
struct Across {
    balance: Summed,
    today: Summed,
    week: Summed,
}

fn across(
    conn: &rusqlite::Connection,
    lines: &[Line],
    currency: &CurrencyCode,
    day: chrono::NaiveDate,
) -> Result<Option<Across>, StoreError> {
    if lines
        .iter()
        .all(|l| l.cabinet.cabinet.cabinet_type.currency() == currency.as_str())
    {
        return Ok(None);
    }
    let sum = |of: &dyn Fn(&Line) -> Money| {
        let amounts: Vec<(String, rust_decimal::Decimal)> = lines
            .iter()
            .map(|l| {
                let kind = l.cabinet.cabinet.cabinet_type;
                (kind.currency().to_string(), of(l).to_decimal())
            })
            .collect();
        returns::sum_in(conn, &amounts, currency, day)
    };
    Ok(Some(Across {
        balance: sum(&|l| l.cabinet.cabinet.balance)?,
        today: sum(&|l| l.today.spent)?,
        week: sum(&|l| l.week.spent)?,
    }))
}

/// A sum in the reporting currency to two places.
fn amount(fmt: super::super::format::Fmt, s: &Summed) -> String {
    let mut d = s.amount.round_dp(2);
    d.rescale(2);
    format!("{}\u{a0}{}", fmt.lang.decimal(d), s.currency)
}

/// Each rate the sums were converted at with its date, then each currency left out.
fn notes(visit: &Visit<'_>, a: &Across) -> Vec<String> {
    let sums = [&a.balance, &a.today, &a.week];
    rate_notes::notes(
        visit,
        sums.iter().flat_map(|s| &s.used),
        sums.iter().flat_map(|s| &s.missing),
    )
}

/// The list as a download: the API's cabinet fields, then the campaigns by status and the
/// spend (money as plain decimals at the currency's scale).
fn table(lines: &[Line]) -> Table {
    let money = |kind: CabinetType, amount: Money| {
        let mut d = amount
            .to_decimal()
            .round_dp_with_strategy(kind.scale(), RoundingStrategy::MidpointAwayFromZero);
        d.rescale(kind.scale());
        Cell::Decimal(d)
    };
    let mut columns = vec![
        "id",
        "name",
        "cabinet_type",
        "currency",
        "is_active",
        "access_level",
        "balance",
    ];
    columns.extend(Status::ALL.map(status_column));
    columns.extend(["spent_today", "spent_7d"]);
    let rows = lines
        .iter()
        .take(export::MAX_ROWS)
        .map(|line| {
            let c = &line.cabinet.cabinet;
            let mut row: Vec<Cell> = vec![
                c.id.into(),
                c.name.as_str().into(),
                c.cabinet_type.as_str().into(),
                c.cabinet_type.currency().into(),
                (if c.is_active { "true" } else { "false" }).into(),
                line.cabinet.access.as_str().into(),
                money(c.cabinet_type, c.balance),
            ];
            row.extend(Status::ALL.map(|status| {
                let n = line.by_status.iter().find(|(s, _)| *s == status);
                Cell::Int(n.map_or(0, |(_, n)| *n))
            }));
            row.push(money(c.cabinet_type, line.today.spent));
            row.push(money(c.cabinet_type, line.week.spent));
            row
        })
        .collect();
    Table {
        name: "cabinets".into(),
        columns,
        rows,
    }
}

/// A download's column of the campaigns in one status: `campaigns_active`, `campaigns_on_hold`.
fn status_column(status: Status) -> &'static str {
    match status {
        Status::Active => "campaigns_active",
        Status::InReview => "campaigns_in_review",
        Status::Declined => "campaigns_declined",
        Status::Paused => "campaigns_paused",
        Status::Stopped => "campaigns_stopped",
        Status::OnHold => "campaigns_on_hold",
        Status::Deleted => "campaigns_deleted",
    }
}

/// An access level's name in the page's language.
fn access_name(visit: &Visit<'_>, access: Access) -> String {
    match access {
        Access::Owner => visit.t("status-access-owner"),
        Access::Manager => visit.t("status-access-manager"),
        Access::Viewer => visit.t("status-access-viewer"),
    }
}
