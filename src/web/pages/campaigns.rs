//! Owns `/campaigns`: the campaigns of the person's cabinets with the API list's filters,
//! sorts and pages (the same parameters, read by the same code), status badges, money in each
//! cabinet's currency, and the client's own conversions and revenue.

use maud::{html, Markup};

use super::super::format::{count, money, ratio};
use super::super::session::Session;
use super::super::{layout, Visit, WebError};
use super::status_badge;
use crate::domain::campaign::Status;
use crate::domain::money::{CabinetType, Money};
use crate::domain::stats::Totals;
use crate::http::campaigns::{encode_cursor, list_request, ListRequest};
use crate::http::error::ApiError;
use crate::http::response::Reply;
use crate::store::campaigns::{self as repo, CampaignRow, Page};
use crate::store::conversions::{self, Summary};
use crate::store::StoreError;

/// Campaigns on a page unless `limit` says otherwise.
const PAGE: &str = "50";

/// Sortable columns: the parameter and the heading.
const SORTS: [(&str, &str); 6] = [
    ("title", "Campaign"),
    ("status", "Status"),
    ("budget", "Budget"),
    ("spent", "Spent"),
    ("views", "Views"),
    ("cpm", "CPM"),
];

pub async fn list<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let q = &visit.query;
    let person = &session.person;
    let chosen = q.get("account_id").filter(|v| !v.is_empty());
    let scope: Vec<(i64, CabinetType, String)> = match chosen {
        Some(text) => {
            let id = text.parse::<i64>().map_err(|_| WebError::NotFound)?;
            let r = person.cabinet(id).ok_or(WebError::NotFound)?;
            vec![(id, r.cabinet.cabinet_type, r.cabinet.name.clone())]
        }
        None => person
            .active()
            .map(|r| (r.cabinet.id, r.cabinet.cabinet_type, r.cabinet.name.clone()))
            .collect(),
    };
    let mut query = q.clone();
    if query.get("limit").is_none() {
        query = query.with("limit", PAGE);
    }
    let found = match list_request(&query, scope.iter().map(|s| s.0).collect()) {
        Ok(request) => Ok(read(visit, request).await?),
        Err(ApiError::Validation { param, message }) => Err((param, message)),
        Err(other) => return Err(WebError::BadRequest(other.to_string())),
    };
    let cabinet = |account: i64| scope.iter().find(|s| s.0 == account);
    let body = html! {
        header.page {
            div {
                h1 { "Campaigns" }
                p.muted { "Every campaign of your cabinets. Filter, sort, and open one for its history and chart." }
            }
        }
        (filters(visit, person.active().map(|r| (r.cabinet.id, r.cabinet.name.as_str())).collect()))
        @match &found {
            Err((param, message)) => p.error role="alert" { (param) ": " (message) },
            Ok(listed) if listed.rows.is_empty() => div.empty {
                p { "No campaigns match." }
                @if scope.is_empty() { p { "You reach no active cabinet yet." } }
                @else { p { "Clear the filters, or create campaigns through the API (" code { "POST /api/v1/campaigns" } ")." } }
            },
            Ok(listed) => {
                div.table-wrap {
                    table {
                        thead { tr {
                            th { (sort_link(visit, SORTS[0])) } th { "Cabinet" } th { (sort_link(visit, SORTS[1])) }
                            th.num { (sort_link(visit, SORTS[2])) } th.num { (sort_link(visit, SORTS[3])) }
                            th.num { (sort_link(visit, SORTS[4])) } th.num { "CTR" } th.num { (sort_link(visit, SORTS[5])) }
                            th.num { "CPA" } th.num { "Conversions" } th.num { "Revenue" }
                        } }
                        tbody {
                            @for (row, summary) in listed.rows.iter().zip(&listed.summaries) {
                                @if let Some((_, kind, name)) = cabinet(row.account_id) {
                                    (line(row, summary, *kind, name))
                                }
                            }
                        }
                    }
                }
                (pager(visit, listed))
            }
        }
    };
    Ok(layout::page(
        visit,
        session,
        "/campaigns",
        "Campaigns",
        body,
    ))
}

/// What one page of the list found.
struct Listed {
    rows: Vec<CampaignRow>,
    summaries: Vec<Summary>,
    more: bool,
    page: Page,
}

async fn read(visit: &Visit<'_>, request: ListRequest) -> Result<Listed, WebError> {
    let ListRequest { filter, page, .. } = request;
    let listed = visit
        .state
        .services
        .db
        .read(move |conn| {
            let (rows, more) = repo::list(conn, &filter, &page)?;
            let keys: Vec<(i64, i64)> = rows.iter().map(|r| (r.account_id, r.ad_id)).collect();
            let summaries = conversions::summaries(conn, &keys)?;
            Ok::<_, StoreError>(Listed {
                rows,
                summaries,
                more,
                page,
            })
        })
        .await?;
    Ok(listed)
}

fn line(row: &CampaignRow, summary: &Summary, kind: CabinetType, cabinet: &str) -> Markup {
    let totals = Totals {
        views: row.views,
        opens: row.opens,
        clicks: row.clicks,
        actions: row.actions,
        spent: row.spent,
    };
    let conversions: i64 = summary.counts.values().sum();
    html! {
        tr {
            td { a href={ "/campaigns/" (row.account_id) "/" (row.ad_id) } { (row.title) } br; span.muted { "#" (row.ad_id) } }
            td { (cabinet) }
            td { (status_badge(row.status)) }
            td.num { (money(kind, row.budget)) }
            td.num { (money(kind, row.spent)) }
            td.num { (count(row.views)) }
            td.num { (ratio(totals.ctr(), row.views > 0)) "%" }
            td.num { (money_or_dash(kind, totals.cpm(), row.views > 0)) }
            td.num { (money_or_dash(kind, totals.cpa(), row.actions > 0)) }
            td.num { (count(conversions)) }
            td.num {
                @if summary.revenue.is_empty() { "–" }
                @for (currency, micros) in &summary.revenue {
                    div { (revenue(*micros)) " " (currency) }
                }
            }
        }
    }
}

/// A rate in money, at the currency's scale, or a dash when undefined.
fn money_or_dash(kind: CabinetType, value: rust_decimal::Decimal, defined: bool) -> String {
    match (defined, Money::from_decimal(value)) {
        (true, Some(m)) => money(kind, m),
        _ => "–".into(),
    }
}

/// Revenue in micro-units (summed wide) as a decimal with two places.
fn revenue(micros: i128) -> String {
    let d = rust_decimal::Decimal::from_i128_with_scale(micros, 6);
    d.round_dp(2).to_string()
}

fn filters(visit: &Visit, cabinets: Vec<(i64, &str)>) -> Markup {
    let q = &visit.query;
    let value = |name: &str| q.get(name).unwrap_or("").to_string();
    html! {
        form.filters method="get" action="/campaigns" {
            label { "Cabinet"
                select name="account_id" {
                    option value="" { "All cabinets" }
                    @for (id, name) in &cabinets {
                        option value=(id) selected[value("account_id") == id.to_string()] { (name) }
                    }
                }
            }
            label { "Status"
                select name="status" {
                    option value="" { "Any but deleted" }
                    @for status in Status::ALL {
                        option value=(status.as_str()) selected[value("status") == status.as_str()] { (status.as_str()) }
                    }
                }
            }
            label { "Title contains" input type="text" name="title" value=(value("title")); }
            label { "Link type"
                select name="type" {
                    option value="" { "Any" }
                    @for (v, name) in [("channel", "Channel"), ("bot", "Bot"), ("site", "Website")] {
                        option value=(v) selected[value("type") == v] { (name) }
                    }
                }
            }
            @if let Some(sort) = q.get("sortBy") { input type="hidden" name="sortBy" value=(sort); }
            @if let Some(order) = q.get("sortOrder") { input type="hidden" name="sortOrder" value=(order); }
            button.primary type="submit" { "Filter" }
            a href="/campaigns" { "Clear" }
        }
    }
}

/// A column heading that sorts by it, descending first, then flips.
fn sort_link(visit: &Visit, (key, heading): (&str, &str)) -> Markup {
    let q = &visit.query;
    let current = q.get("sortBy") == Some(key);
    let descending = q.get("sortOrder") != Some("asc");
    let order = if current && descending { "asc" } else { "desc" };
    let href = visit
        .query
        .without(&["sortBy", "sortOrder", "offset", "cursor"])
        .with("sortBy", key)
        .with("sortOrder", order)
        .to_url("/campaigns");
    html! {
        a href=(href) {
            (heading)
            @if current { @if descending { " ↓" } @else { " ↑" } }
        }
    }
}

fn pager(visit: &Visit, listed: &Listed) -> Markup {
    let next = match (&listed.page, listed.more) {
        (_, false) => None,
        (Page::Offset { offset, limit, .. }, true) => Some(
            visit
                .query
                .without(&["offset"])
                .with("offset", &(offset + limit).to_string())
                .to_url("/campaigns"),
        ),
        (Page::Cursor { .. }, true) => listed.rows.last().map(|r| {
            visit
                .query
                .without(&["cursor"])
                .with("cursor", &encode_cursor(r.account_id, r.ad_id))
                .to_url("/campaigns")
        }),
    };
    let previous = match &listed.page {
        Page::Offset { offset, limit, .. } if *offset > 0 => Some(
            visit
                .query
                .without(&["offset"])
                .with("offset", &(offset - limit).max(0).to_string())
                .to_url("/campaigns"),
        ),
        _ => None,
    };
    html! {
        div.pager {
            @if let Some(href) = previous { a href=(href) { "← Previous" } }
            @if let Some(href) = next { a href=(href) { "Next →" } }
        }
    }
}
