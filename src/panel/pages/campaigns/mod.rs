//! Owns `/campaigns`: the campaigns of the person's cabinets with the API list's filters,
//! sorts and pages (the same parameters, read by the same code), status badges (a declined
//! one with the platform's short reason, the full one as its tooltip), money in each
//! cabinet's currency, the client's own conversions and revenue, a totals line per currency
//! over every matching campaign, and the list as a download (`?format=csv|xlsx`); a row
//! action's refusal (`refuse_row`) is the list again with the sentence in that row. Lines are
//! in `row`, bulk actions in `bulk`, the download in `download`.

mod bulk;
mod download;
mod row;

use hyper::StatusCode;
use maud::{html, Markup};

use super::super::export::{self, Format};
use super::super::session::Session;
use super::super::{layout, Visit, WebError};
use crate::domain::campaign::Status;
use crate::domain::money::CabinetType;
use crate::domain::ParseError;
use crate::http::{Query, Reply};
use crate::ops::campaigns::list::{encode_cursor, list_request, ListRequest};
use crate::ops::returns::{self, Returns};
use crate::store::campaigns::{self as repo, CampaignRow, Page, Sums};
use crate::store::StoreError;

pub use bulk::bulk;
pub use row::{RowForm, RowRefusal};

/// Campaigns on a page unless `limit` says otherwise.
const PAGE: &str = "50";

/// A cabinet the list covers: id, currency and name.
type Scope = (i64, CabinetType, String);

pub async fn list<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    match Format::requested(visit)? {
        Some(format) => download::reply(visit, session, format).await,
        None => render(visit, session, &visit.query, None, None).await,
    }
}

/// A row action's refusal: the list of `back` (the row's list and its query) again, answered
/// `422`, with the sentence beside the row's field and what was sent kept in it. Where the row
/// is no longer on that page, the sentence stands above the table instead.
pub async fn refuse_row(
    visit: &Visit<'_>,
    session: &Session,
    back: &Query,
    refused: &RowRefusal,
) -> Result<Reply, WebError> {
    render(visit, session, back, None, Some(refused)).await
}

/// The cabinets `q` lists: the one its `account_id` names, else every active one the person
/// reaches.
fn scope(session: &Session, q: &Query) -> Result<Vec<Scope>, WebError> {
    let person = &session.person;
    Ok(match q.get("account_id").filter(|v| !v.is_empty()) {
        Some(text) => {
            let id = text.parse::<i64>().map_err(|_| WebError::NotFound)?;
            let r = person.cabinet(id).ok_or(WebError::NotFound)?;
            vec![(id, r.cabinet.cabinet_type, r.cabinet.name.clone())]
        }
        None => person
            .active()
            .map(|r| (r.cabinet.id, r.cabinet.cabinet_type, r.cabinet.name.clone()))
            .collect(),
    })
}

/// The list for `q`, with a refused bulk action's message next to the action bar, or a refused
/// row action's in its row.
async fn render(
    visit: &Visit<'_>,
    session: &Session,
    q: &Query,
    problem: Option<ParseError>,
    refused: Option<&RowRefusal>,
) -> Result<Reply, WebError> {
    let person = &session.person;
    let scope = scope(session, q)?;
    let q = q.without(&["format"]);
    let mut query = q.clone();
    if query.get("limit").is_none() {
        query = query.with("limit", PAGE);
    }
    let found = match list_request(&query, scope.iter().map(|s| s.0).collect()) {
        Ok(request) => Ok(read(visit, request, &scope).await?),
        Err(e) => Err((e.param, e.message)),
    };
    let cabinet = |account: i64| scope.iter().find(|s| s.0 == account);
    let back = q.to_url("/campaigns");
    let mut cx = row::Context::new(visit, session, &back);
    cx.refused = refused;
    let may_create = person
        .active()
        .any(|r| person.writable(r.cabinet.id).is_ok());
    let body = html! {
        header.page {
            div {
                h1 { (visit.t("campaigns-title")) }
                p.muted { (visit.t("campaigns-intro")) }
            }
            @if may_create { a.button.primary href="/campaigns/new" { (visit.t("campaigns-new")) } }
        }
        (filters(visit, &q, person.active().map(|r| (r.cabinet.id, r.cabinet.name.as_str())).collect()))
        @match &found {
            Err((param, message)) => p.error role="alert" { (param) ": " (message) },
            Ok(listed) if listed.rows.is_empty() => div.empty {
                p { (visit.t("campaigns-empty")) }
                @if scope.is_empty() { p { (visit.t("campaigns-empty-no-cabinet")) } }
                @else { p { (visit.t("campaigns-empty-hint")) } }
            },
            Ok(listed) => {
                @if let Some(r) = refused.filter(|r| !listed.rows.iter().any(|row| (row.account_id, row.ad_id) == (r.account, r.ad))) {
                    p.error role="alert" data-param=(r.param) data-ad=(r.ad) { (r.message) }
                }
                (bulk::action_bar(visit, session, back.trim_start_matches("/campaigns").trim_start_matches('?'), problem.as_ref()))
                p.downloads { (export::links(visit, "/campaigns")) }
                div.table-wrap {
                    table.cards.campaign-list {
                        thead { tr {
                            th.pick { input type="checkbox" data-select-all="ad" aria-label=(visit.t("campaigns-col-select-all")); }
                            @for (i, (key, sort)) in row::COLUMNS.iter().enumerate() {
                                th class=[(i >= 2).then_some("num")] {
                                    @match sort {
                                        Some(sort) => (sort_link(&q, sort, &visit.t(key))),
                                        None => (visit.t(key)),
                                    }
                                }
                            }
                        } }
                        tbody {
                            @for (row, returns) in listed.rows.iter().zip(&listed.returns) {
                                @if let Some((_, kind, name)) = cabinet(row.account_id) {
                                    (row::line(&cx, row, returns, *kind, name, person.writable(row.account_id).is_ok()))
                                }
                            }
                        }
                        tfoot { (row::totals(&cx, &listed.sums)) }
                    }
                }
                (pager(visit, &q, listed))
            }
        }
    };
    let reply = layout::page(
        visit,
        session,
        "/campaigns",
        &visit.t("campaigns-title"),
        body,
    );
    Ok(if problem.is_some() || refused.is_some() {
        reply.with_status(StatusCode::UNPROCESSABLE_ENTITY)
    } else {
        reply
    })
}

/// What one page of the list found, and the sums of every campaign its filters match.
struct Listed {
    rows: Vec<CampaignRow>,
    /// Each row's ROAS and profit in its cabinet's currency.
    returns: Vec<Returns>,
    sums: Vec<(CabinetType, Sums)>,
    more: bool,
    page: Page,
}

async fn read(
    visit: &Visit<'_>,
    request: ListRequest,
    scope: &[Scope],
) -> Result<Listed, WebError> {
    let ListRequest { filter, page, .. } = request;
    let kinds: Vec<(i64, CabinetType)> = scope.iter().map(|s| (s.0, s.1)).collect();
    let orders = visit.state.services.db.figure_orders();
    let listed = visit
        .state
        .services
        .db
        .read(move |conn| {
            let (rows, more) = repo::list(conn, &orders, &filter, &page)?;
            let day = crate::clock::now(conn)?.date_naive();
            let returns = rows
                .iter()
                .map(|row| {
                    let kind = kinds.iter().find(|(id, _)| *id == row.account_id);
                    let kind = kind.map_or(CabinetType::Euro, |k| k.1);
                    returns::of_campaign(conn, row, kind, day)
                })
                .collect::<Result<Vec<_>, _>>()?;
            let sums = repo::sums(conn, &filter)?
                .into_iter()
                .filter_map(|s| {
                    let kind = kinds.iter().find(|(id, _)| *id == s.account_id)?.1;
                    Some((kind, s))
                })
                .collect();
            Ok::<_, StoreError>(Listed {
                rows,
                returns,
                sums,
                more,
                page,
            })
        })
        .await?;
    Ok(listed)
}

/// The catalogue key of a status's name.
fn status_key(status: Status) -> &'static str {
    match status {
        Status::Active => "campaigns-status-active",
        Status::InReview => "campaigns-status-in-review",
        Status::Declined => "campaigns-status-declined",
        Status::Paused => "campaigns-status-paused",
        Status::Stopped => "campaigns-status-stopped",
        Status::OnHold => "campaigns-status-on-hold",
        Status::Deleted => "campaigns-status-deleted",
    }
}

fn filters(visit: &Visit, q: &Query, cabinets: Vec<(i64, &str)>) -> Markup {
    let value = |name: &str| q.get(name).unwrap_or("").to_string();
    let kinds = [
        ("channel", "campaigns-type-channel"),
        ("bot", "campaigns-type-bot"),
        ("site", "campaigns-type-site"),
    ];
    html! {
        form.filters.stack method="get" action="/campaigns" {
            label { (visit.t("campaigns-filter-cabinet"))
                select name="account_id" {
                    option value="" { (visit.t("campaigns-filter-all-cabinets")) }
                    @for (id, name) in &cabinets {
                        option value=(id) selected[value("account_id") == id.to_string()] { (name) }
                    }
                }
            }
            label { (visit.t("campaigns-filter-status"))
                select name="status" {
                    option value="" { (visit.t("campaigns-filter-any-status")) }
                    @for status in Status::ALL {
                        option value=(status.as_str()) selected[value("status") == status.as_str()] { (visit.t(status_key(status))) }
                    }
                }
            }
            label { (visit.t("campaigns-filter-title")) input type="text" name="title" value=(value("title")); }
            label { (visit.t("campaigns-filter-type"))
                select name="type" {
                    option value="" { (visit.t("campaigns-filter-any-type")) }
                    @for (v, key) in kinds {
                        option value=(v) selected[value("type") == v] { (visit.t(key)) }
                    }
                }
            }
            @if let Some(sort) = q.get("sortBy") { input type="hidden" name="sortBy" value=(sort); }
            @if let Some(order) = q.get("sortOrder") { input type="hidden" name="sortOrder" value=(order); }
            button.primary type="submit" { (visit.t("campaigns-filter-apply")) }
            a href="/campaigns" { (visit.t("campaigns-filter-clear")) }
        }
    }
}

/// A column heading that sorts by it, descending first, then flips.
fn sort_link(q: &Query, key: &str, heading: &str) -> Markup {
    let current = q.get("sortBy") == Some(key);
    let descending = q.get("sortOrder") != Some("asc");
    let order = if current && descending { "asc" } else { "desc" };
    let href = q
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

fn pager(visit: &Visit, q: &Query, listed: &Listed) -> Markup {
    let next = match (&listed.page, listed.more) {
        (_, false) => None,
        (Page::Offset { offset, limit, .. }, true) => Some(
            q.without(&["offset"])
                .with("offset", &(offset + limit).to_string())
                .to_url("/campaigns"),
        ),
        (Page::Cursor { .. }, true) => listed.rows.last().map(|r| {
            q.without(&["cursor"])
                .with("cursor", &encode_cursor(r.account_id, r.ad_id))
                .to_url("/campaigns")
        }),
    };
    let previous = match &listed.page {
        Page::Offset { offset, limit, .. } if *offset > 0 => Some(
            q.without(&["offset"])
                .with("offset", &(offset - limit).max(0).to_string())
                .to_url("/campaigns"),
        ),
        _ => None,
    };
    html! {
        div.pager {
            @if let Some(href) = previous { a href=(href) { (visit.t("campaigns-previous")) } }
            @if let Some(href) = next { a href=(href) { (visit.t("campaigns-next")) } }
        }
    }
}
