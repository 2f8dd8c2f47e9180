//! Owns the campaigns list as a download (`/campaigns?format=csv|xlsx`): every campaign the
//! page's filters match, in the page's sort, one line each with the API list object's fields
//! by their names (money as plain decimals: bids and budgets at the currency's scale, spend
//! exact, rates computed as the API computes them).

use rust_decimal::Decimal;

use super::super::super::export::{Cell, Format, Table, MAX_ROWS};
use super::super::super::session::Session;
use super::super::super::{Visit, WebError};
use super::scope;
use crate::domain::conversion::EventType;
use crate::domain::money::{ratio, CabinetType, Money};
use crate::http::Reply;
use crate::ops::campaigns::list::{list_request, ListRequest};
use crate::store::campaigns::{self as repo, CampaignRow};

/// The columns, named as `GET /api/v1/campaigns` names the fields (the conversion counts and
/// the revenue, objects there, spread over columns of their own).
const COLUMNS: [&str; 24] = [
    "ad_id",
    "account_id",
    "title",
    "status",
    "currency",
    "budget",
    "cpm",
    "spent",
    "views",
    "opens",
    "clicks",
    "actions",
    "ctr",
    "cpc",
    "cpa",
    "cvr",
    "conversions.lead",
    "conversions.conversion",
    "conversions.purchase",
    "revenue",
    "revenue_currency",
    "group_id",
    "date",
    "status_changed_at",
];

/// The download of every campaign the page's query matches.
pub async fn reply(
    visit: &Visit<'_>,
    session: &Session,
    format: Format,
) -> Result<Reply, WebError> {
    let scope = scope(session, &visit.query)?;
    let ListRequest { filter, page, .. } =
        list_request(&visit.query, scope.iter().map(|s| s.0).collect())
            .map_err(|e| WebError::BadRequest(format!("{}: {}", e.param, e.message)))?;
    let rows = visit
        .state
        .services
        .db
        .read(move |conn| repo::all(conn, &filter, &page, MAX_ROWS))
        .await?;
    if rows.len() > MAX_ROWS {
        return Err(WebError::BadRequest(
            visit.ta("campaigns-too-many", &[("max", MAX_ROWS.into())]),
        ));
    }
    let kind = |account: i64| scope.iter().find(|s| s.0 == account).map(|s| s.1);
    let table = Table {
        name: "campaigns".into(),
        columns: COLUMNS.to_vec(),
        rows: rows
            .iter()
            .filter_map(|row| Some(line(row, kind(row.account_id)?)))
            .collect(),
    };
    table.reply(format)
}

/// An amount at the currency's scale, exact beyond it when it has more decimals.
fn amount(kind: CabinetType, money: Money) -> Decimal {
    let mut d = money.to_decimal().normalize();
    if d.scale() < kind.scale() {
        d.rescale(kind.scale());
    }
    d
}

fn line(row: &CampaignRow, kind: CabinetType) -> Vec<Cell> {
    let summary = &row.conversions;
    let spent = row.spent.to_decimal();
    let hundred = Decimal::from(100);
    let count = |event| summary.counts.of(event);
    let (revenue, revenue_currency) = match summary.revenue.iter().collect::<Vec<_>>()[..] {
        [] => (Cell::Empty, Cell::Empty),
        [(currency, micros)] => (
            Decimal::try_from_i128_with_scale(*micros, 6)
                .map(|d| Cell::Decimal(d.normalize()))
                .unwrap_or(Cell::Empty),
            Cell::from(currency.as_str()),
        ),
        ref several => (
            Cell::Text(
                several
                    .iter()
                    .map(|(c, m)| {
                        let d = Decimal::try_from_i128_with_scale(**m, 6).unwrap_or_default();
                        format!("{} {c}", d.normalize())
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
            Cell::Empty,
        ),
    };
    vec![
        Cell::Int(row.ad_id),
        Cell::Int(row.account_id),
        Cell::from(row.title.as_str()),
        Cell::from(row.status.as_str()),
        Cell::from(kind.currency()),
        Cell::Decimal(amount(kind, row.budget)),
        Cell::Decimal(amount(kind, row.cpm)),
        Cell::Decimal(amount(kind, row.spent)),
        Cell::Int(row.views),
        Cell::Int(row.opens),
        Cell::Int(row.clicks),
        Cell::Int(row.actions),
        Cell::Decimal(ratio(
            Decimal::from(row.clicks) * hundred,
            row.views.into(),
            2,
        )),
        Cell::Decimal(ratio(spent, row.clicks.into(), 6)),
        Cell::Decimal(ratio(spent, row.actions.into(), 6)),
        Cell::Decimal(ratio(
            Decimal::from(row.actions) * hundred,
            row.clicks.into(),
            2,
        )),
        Cell::Int(count(EventType::Lead)),
        Cell::Int(count(EventType::Conversion)),
        Cell::Int(count(EventType::Purchase)),
        revenue,
        revenue_currency,
        Cell::from(row.group_id),
        Cell::Int(row.created_at),
        Cell::from(row.status_changed_at.as_str()),
    ]
}
