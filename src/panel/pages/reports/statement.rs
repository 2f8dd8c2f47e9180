//! Owns `/reports/{account_id}/statement?month=YYYY-MM`: a cabinet's monthly statement as a
//! page (a month picker that posts nothing, the last whole month by default; the balances, the
//! month's moves of money, the spend per campaign with the fee, the reconciliation with the
//! platform's account report) or as a download (`&format=csv|xlsx`). Anyone who reaches the
//! cabinet may read it. The statement is `ops::statement`'s, as the API's is.

use maud::{html, Markup};
use rust_decimal::{Decimal, RoundingStrategy};

use super::super::super::export::{self, Cell, Format, Table};
use super::super::super::session::Session;
use super::super::super::{layout, Visit, WebError};
use super::super::{ops_error, panel_op};
use crate::clock;
use crate::domain::money::{CabinetType, Money};
use crate::domain::time::Month;
use crate::http::Reply;
use crate::ops::statement::{self, LineKind, Peer, Reconciliation, Statement};
use crate::ops::OpsError;

/// An amount as the statement keeps it (the currency's decimals at least, more when the
/// platform's ledger has them), in the page's language, with its code.
fn amount(visit: &Visit, kind: CabinetType, m: Money) -> String {
    let d: Decimal = m
        .render(kind.scale())
        .parse()
        .unwrap_or_else(|_| m.to_decimal());
    format!("{}\u{a0}{}", visit.lang.decimal(d), kind.currency())
}

/// A decimal amount (the fee's figures, already at the currency's decimals) with its code.
fn decimal(visit: &Visit, kind: CabinetType, d: Decimal) -> String {
    let mut d = d.round_dp_with_strategy(kind.scale(), RoundingStrategy::MidpointAwayFromZero);
    d.rescale(kind.scale());
    format!("{}\u{a0}{}", visit.lang.decimal(d), kind.currency())
}

fn kind_word(visit: &Visit, k: LineKind) -> String {
    visit.t(&format!("statement-kind-{}", k.as_str().replace('_', "-")))
}

fn peer_word(visit: &Visit, p: &Peer) -> String {
    match p {
        Peer::MainAccount => visit.t("statement-peer-main"),
        Peer::Account(title) => title.clone(),
        Peer::Campaign { ad_id, title } => format!("{title} ({ad_id})"),
        Peer::Outside(Some(comment)) => {
            format!("{} ({comment})", visit.t("statement-peer-outside"))
        }
        Peer::Outside(None) => visit.t("statement-peer-outside"),
        Peer::Unknown(name) => name.clone(),
    }
}

/// `GET /reports/{account_id}/statement?month=[&format=csv|xlsx]`.
pub async fn show<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let download = Format::requested(visit)?;
    let reader = super::reader(session, args)?;
    let account = reader.cabinet().id;
    let name = reader.cabinet().name.clone();
    let now = visit.state.services.db.read(clock::now).await?;
    let asked = visit.query.text("month");
    let month = match statement::month_of(asked, now) {
        Ok(m) => m,
        Err(_) => {
            let why = visit.ta(
                "statement-bad-month",
                &[("month", asked.unwrap_or_default().to_string().into())],
            );
            return Ok(refused(visit, session, account, &name, None, why));
        }
    };
    let made = panel_op(visit, move |s| statement::statement(s, &reader, month)).await;
    let st = match made {
        Ok(st) => st,
        Err(OpsError::Invalid(_)) => {
            let key = if month.start() > now {
                "statement-not-begun"
            } else {
                "statement-too-far"
            };
            let why = visit.ta(key, &[("month", month.to_string().into())]);
            return Ok(refused(visit, session, account, &name, Some(month), why));
        }
        Err(e) => return Err(ops_error(e)),
    };
    if let Some(format) = download {
        return table(&st).reply(format);
    }
    let body = html! {
        (head(visit, account, &name, Some(month)))
        (body(visit, &st))
    };
    let title = format!("{} · {}", visit.t("statement-title"), name);
    Ok(layout::page(visit, session, "/reports", &title, body))
}

/// The page without a statement: the picker and why there is none.
fn refused(
    visit: &Visit,
    session: &Session,
    account: i64,
    name: &str,
    month: Option<Month>,
    why: String,
) -> Reply {
    let body = html! {
        (head(visit, account, name, month))
        p.error role="alert" { (why) }
    };
    let title = format!("{} · {}", visit.t("statement-title"), name);
    layout::page(visit, session, "/reports", &title, body)
        .with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY)
}

fn head(visit: &Visit, account: i64, name: &str, month: Option<Month>) -> Markup {
    let path = format!("/reports/{account}/statement");
    html! {
        header.page {
            div {
                p.muted { a href={ "/reports/" (account) } { (visit.t("statement-back")) } }
                h1 { (visit.t("statement-title")) " · " (name) }
                p.muted { (visit.t("statement-lead")) }
            }
            @if month.is_some() { (export::links(visit, &path)) }
        }
        form.filters.statement-month method="get" action=(path) {
            label { (visit.t("statement-month"))
                input type="month" name="month" pattern="[0-9]{4}-[0-9]{2}" placeholder="YYYY-MM"
                    value=[month.map(|m| m.to_string())] required;
            }
            button.primary type="submit" { (visit.t("statement-show")) }
        }
    }
}

fn body(visit: &Visit, st: &Statement) -> Markup {
    let kind = st.kind;
    let money = |m: Money| amount(visit, kind, m);
    let fmt = visit.fmt();
    let balances = st.balances();
    let unknown = visit.t("statement-unknown");
    html! {
        @if st.so_far {
            p.notice #statement-so-far { (visit.t("statement-so-far")) " " (fmt.time(&clock::iso(st.to))) }
        }
        section.card #statement-balances {
            h2 { (visit.t("statement-balances")) }
            @if balances.is_none() { p.muted { (visit.t("statement-no-ledger")) } }
            div.table-wrap { table.cards {
                tbody {
                    tr #statement-opening {
                        th scope="row" { (visit.t("statement-opening")) }
                        td.num { (balances.map_or(unknown.clone(), |(o, _)| money(o))) }
                    }
                    @for (k, sum) in &st.totals {
                        tr data-kind=(k.as_str()) {
                            th scope="row" { (kind_word(visit, *k)) }
                            td.num { (money(*sum)) }
                        }
                    }
                    tr #statement-closing {
                        th scope="row" { (visit.t("statement-closing")) }
                        td.num { (balances.map_or(unknown.clone(), |(_, c)| money(c))) }
                    }
                }
            } }
        }
        section.card #statement-lines {
            h2 { (visit.t("statement-lines")) }
            @if st.lines.is_empty() {
                p.muted { (visit.t("statement-no-lines")) }
            } @else {
                div.table-wrap { table.cards {
                    thead { tr {
                        th { (visit.t("statement-when")) } th { (visit.t("statement-kind")) }
                        th { (visit.t("statement-peer")) } th.num { (visit.t("statement-amount")) }
                    } }
                    tbody { @for l in &st.lines { tr data-kind=(l.kind.as_str()) {
                        td data-label=(visit.t("statement-when")) { (fmt.time(&clock::iso(l.at))) }
                        td data-label=(visit.t("statement-kind")) { (kind_word(visit, l.kind)) }
                        td data-label=(visit.t("statement-peer")) { (peer_word(visit, &l.peer)) }
                        td.num data-label=(visit.t("statement-amount")) { (money(l.amount)) }
                    } } }
                } }
            }
        }
        section.card #statement-spend {
            h2 { (visit.t("statement-spend")) }
            @if st.campaigns.is_empty() { p.muted { (visit.t("statement-no-spend")) } }
            div.table-wrap { table.cards {
                tbody {
                    @for c in &st.campaigns { tr data-ad=(c.ad_id) {
                        th scope="row" { (c.title) " (" (c.ad_id) ")" }
                        td.num { (money(c.spent)) }
                    } }
                    tr #statement-spend-total { th scope="row" { (visit.t("statement-spend-total")) } td.num { (money(st.spend)) } }
                    @if let Some(fee) = &st.fee {
                        tr #statement-fee {
                            th scope="row" { (visit.ta("statement-fee", &[("percent", fee.percent.normalize().to_string().into())])) }
                            td.num { (decimal(visit, kind, fee.fee)) }
                        }
                        tr #statement-client {
                            th scope="row" { (visit.t("statement-client")) }
                            td.num { (decimal(visit, kind, fee.client_spend)) }
                        }
                    }
                }
            } }
        }
        section.card #statement-reconciliation {
            h2 { (visit.t("statement-reconciliation")) }
            @match &st.reconciliation {
                Reconciliation::NoReport => p.muted { (visit.t("statement-no-report")) },
                Reconciliation::Failed => p.error { (visit.t("statement-not-reconciled")) },
                Reconciliation::Compared(found) if found.is_empty() => p { (visit.t("statement-agrees")) },
                Reconciliation::Compared(found) => {
                    p { (visit.t("statement-differs")) }
                    div.table-wrap { table.cards {
                        thead { tr {
                            th { (visit.t("statement-campaign")) } th { (visit.t("statement-figure")) }
                            th.num { "adcab" } th.num { (visit.t("statement-platform")) }
                        } }
                        tbody { @for m in found { tr data-ad=(m.difference.ad_id) {
                            td data-label=(visit.t("statement-campaign")) { (m.title) " (" (m.difference.ad_id) ")" }
                            td data-label=(visit.t("statement-figure")) { (visit.t(&format!("statement-figure-{}", m.difference.field))) }
                            td.num data-label="adcab" { (plain(&m.difference.adcab)) }
                            td.num data-label=(visit.t("statement-platform")) { (plain(&m.difference.platform)) }
                        } } }
                    } }
                }
            }
        }
    }
}

/// A figure of a difference as text (a count, or spend as its decimal string).
fn plain(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

const COLUMNS: [&str; 8] = [
    "section", "at", "kind", "ad_id", "title", "currency", "amount", "platform",
];

/// The statement as one table: `section` says what a row is (`opening`, `line`, `total`,
/// `closing`, `campaign`, `spend`, `fee`, `client_spend`, `difference`); amounts are plain
/// decimals in the cabinet's currency; a balance not known is empty.
fn table(st: &Statement) -> Table {
    let cur = || Cell::from(st.kind.currency());
    let dec = |m: Money| Cell::Decimal(m.to_decimal().normalize());
    let month = st.month.to_string();
    let row = |section: &str, at: Cell, kind: Cell, ad: Cell, title: Cell, amount: Cell| {
        vec![
            section.into(),
            at,
            kind,
            ad,
            title,
            cur(),
            amount,
            Cell::Empty,
        ]
    };
    let mut rows = Vec::new();
    let (opening, closing) = match st.balances() {
        Some((o, c)) => (dec(o), dec(c)),
        None => (Cell::Empty, Cell::Empty),
    };
    rows.push(row(
        "opening",
        clock::iso(st.from).into(),
        Cell::Empty,
        Cell::Empty,
        Cell::Empty,
        opening,
    ));
    for l in &st.lines {
        let (ad, title) = match &l.peer {
            Peer::Campaign { ad_id, title } => (Cell::Int(*ad_id), Cell::from(title.as_str())),
            Peer::MainAccount => (Cell::Empty, Cell::from("main_account")),
            Peer::Account(t) => (Cell::Empty, Cell::from(t.as_str())),
            Peer::Outside(c) => (
                Cell::Empty,
                c.as_deref().map(Cell::from).unwrap_or(Cell::Empty),
            ),
            Peer::Unknown(n) => (Cell::Empty, Cell::from(n.as_str())),
        };
        rows.push(row(
            "line",
            clock::iso(l.at).into(),
            l.kind.as_str().into(),
            ad,
            title,
            dec(l.amount),
        ));
    }
    for (k, sum) in &st.totals {
        rows.push(row(
            "total",
            month.clone().into(),
            k.as_str().into(),
            Cell::Empty,
            Cell::Empty,
            dec(*sum),
        ));
    }
    rows.push(row(
        "closing",
        clock::iso(st.to).into(),
        Cell::Empty,
        Cell::Empty,
        Cell::Empty,
        closing,
    ));
    for c in &st.campaigns {
        rows.push(row(
            "campaign",
            month.clone().into(),
            Cell::Empty,
            Cell::Int(c.ad_id),
            c.title.as_str().into(),
            dec(c.spent),
        ));
    }
    rows.push(row(
        "spend",
        month.clone().into(),
        Cell::Empty,
        Cell::Empty,
        Cell::Empty,
        dec(st.spend),
    ));
    if let Some(fee) = &st.fee {
        let percent = Cell::from(format!("{}%", fee.percent.normalize()));
        rows.push(row(
            "fee",
            month.clone().into(),
            Cell::Empty,
            Cell::Empty,
            percent,
            fee.fee.into(),
        ));
        rows.push(row(
            "client_spend",
            month.clone().into(),
            Cell::Empty,
            Cell::Empty,
            Cell::Empty,
            fee.client_spend.into(),
        ));
    }
    if let Reconciliation::Compared(found) = &st.reconciliation {
        for m in found {
            let d = &m.difference;
            let mut r = row(
                "difference",
                month.clone().into(),
                d.field.into(),
                Cell::Int(d.ad_id),
                m.title.as_str().into(),
                (&d.adcab).into(),
            );
            r[7] = (&d.platform).into();
            rows.push(r);
        }
    }
    Table {
        name: format!("statement-{}-{}", st.account_id, st.month),
        columns: COLUMNS.to_vec(),
        rows,
    }
}
