//! Owns `/campaigns`: the campaigns of the person's cabinets with the API list's filters,
//! sorts and pages (the same parameters, read by the same code), status badges (a declined
//! one with the platform's short reason, the full one as its tooltip), money in each
//! cabinet's currency, and the client's own conversions and revenue.

use std::collections::BTreeMap;

use hyper::StatusCode;
use maud::{html, Markup};
use serde_json::{Map, Value};

use super::super::format::{count, money, percent};
use super::super::session::Session;
use super::super::{layout, redirect, Form, Visit, WebError};
use super::{ops_error, status_badge};
use crate::domain::campaign::Status;
use crate::domain::capabilities::Capabilities;
use crate::domain::money::{CabinetType, Money};
use crate::domain::stats::Totals;
use crate::domain::task::BulkKind;
use crate::domain::ParseError;
use crate::http::{Query, Reply};
use crate::ops::campaigns::bulk::{self, Bulk};
use crate::ops::campaigns::list::{encode_cursor, list_request, ListRequest};
use crate::ops::campaigns::OpsError;
use crate::ops::Actor;
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
    render(visit, session, &visit.query, None).await
}

/// The list for `q`, with a refused bulk action's message next to the action bar.
async fn render(
    visit: &Visit<'_>,
    session: &Session,
    q: &Query,
    problem: Option<ParseError>,
) -> Result<Reply, WebError> {
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
        Err(e) => Err((e.param, e.message)),
    };
    let cabinet = |account: i64| scope.iter().find(|s| s.0 == account);
    let back = q.to_url("");
    let body = html! {
        header.page {
            div {
                h1 { "Campaigns" }
                p.muted { "Every campaign of your cabinets. Filter, sort, select some and act on them, or open one for its history and chart." }
            }
        }
        (filters(q, person.active().map(|r| (r.cabinet.id, r.cabinet.name.as_str())).collect()))
        @match &found {
            Err((param, message)) => p.error role="alert" { (param) ": " (message) },
            Ok(listed) if listed.rows.is_empty() => div.empty {
                p { "No campaigns match." }
                @if scope.is_empty() { p { "You reach no active cabinet yet." } }
                @else { p { "Clear the filters, or create campaigns through the API (" code { "POST /api/v1/campaigns" } ")." } }
            },
            Ok(listed) => {
                form method="post" action="/campaigns/bulk" {
                    input type="hidden" name="csrf" value=(session.csrf);
                    input type="hidden" name="back" value=(back.trim_start_matches('?'));
                    (action_bar(problem.as_ref()))
                    div.table-wrap {
                        table {
                            thead { tr {
                                th { input type="checkbox" data-select-all="ad" aria-label="Select all"; }
                                th { (sort_link(q, SORTS[0])) } th { "Cabinet" } th { (sort_link(q, SORTS[1])) }
                                th.num { (sort_link(q, SORTS[2])) } th.num { (sort_link(q, SORTS[3])) }
                                th.num { (sort_link(q, SORTS[4])) } th.num { "CTR" } th.num { (sort_link(q, SORTS[5])) }
                                th.num { "CPA" } th.num { "Conversions" } th.num { "Revenue" }
                            } }
                            tbody {
                                @for (row, summary) in listed.rows.iter().zip(&listed.summaries) {
                                    @if let Some((_, kind, name)) = cabinet(row.account_id) {
                                        (line(visit, row, summary, *kind, name, person.writable(row.account_id).is_ok()))
                                    }
                                }
                            }
                        }
                    }
                }
                (pager(q, listed))
            }
        }
    };
    let reply = layout::page(visit, session, "/campaigns", "Campaigns", body);
    Ok(match problem {
        Some(_) => reply.with_status(StatusCode::UNPROCESSABLE_ENTITY),
        None => reply,
    })
}

/// The bulk actions: the API's, by their names, with the field the chosen one takes.
/// A bulk action as the form's list names it.
fn action_label(kind: BulkKind) -> &'static str {
    match kind {
        BulkKind::Pause => "Pause",
        BulkKind::Resume => "Resume",
        BulkKind::AddBudget => "Add budget (amount)",
        BulkKind::WithdrawBudget => "Withdraw budget (amount)",
        BulkKind::WithdrawAllBudget => "Withdraw all budget",
        BulkKind::SetCpm => "Set CPM (amount)",
        BulkKind::SetSchedule => "Set schedule (JSON object; empty removes it)",
        BulkKind::Delete => "Delete",
        BulkKind::Recreate => "Recreate (declined ones, unchanged)",
    }
}

fn action_bar(problem: Option<&ParseError>) -> Markup {
    html! {
        div.filters {
            label { "With the selected"
                select name="action" {
                    @for kind in BulkKind::ALL { option value=(kind.name()) { (action_label(kind)) } }
                }
            }
            label { "Amount, CPM or schedule" input type="text" name="value" placeholder="e.g. 10.00"; }
            button.primary type="submit" { "Apply" }
            @if let Some(problem) = problem {
                p.error role="alert" data-param=(problem.param) { (problem.message) }
            }
        }
    }
}

/// `POST /campaigns/bulk`: the selected campaigns (`ad` = `account:ad`), grouped by cabinet,
/// each group one bulk change read and queued by the operation the API's bulk calls too; every
/// task is queued in one transaction, or none. Then the tasks page shows their progress.
pub async fn bulk<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let back = Query::parse(form.get("back").unwrap_or("")).unwrap_or_default();
    match checked(session, form, visit.state.services.platform.capabilities()) {
        Ok(groups) => {
            let queued = visit
                .state
                .services
                .db
                .write(move |tx| {
                    for (actor, command) in groups {
                        bulk::queue(tx, &actor, command)?;
                    }
                    Ok::<_, OpsError>(())
                })
                .await;
            match queued {
                Ok(()) => {
                    visit.state.wake.notify_one();
                    Ok(redirect("/tasks"))
                }
                Err(OpsError::UnknownAdIds(_)) => {
                    let why =
                        "Some ad_ids are not live campaigns of this cabinet; nothing was queued.";
                    render(visit, session, &back, Some(ParseError::new("ad_ids", why))).await
                }
                Err(e) => Err(ops_error(e)),
            }
        }
        Err(problem) => render(visit, session, &back, Some(problem)).await,
    }
}

/// The selection grouped by cabinet, each with the person's actor there and the bulk change
/// read as the API reads its body.
fn checked(
    session: &Session,
    form: &Form,
    caps: &Capabilities,
) -> Result<Vec<(Actor, Bulk)>, ParseError> {
    let none = || ParseError::new("ad_ids", "Select at least one campaign.");
    let mut groups: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for (k, v) in form.pairs() {
        if k != "ad" {
            continue;
        }
        let pair = v
            .split_once(':')
            .and_then(|(a, d)| Some((a.parse().ok()?, d.parse().ok()?)));
        let (account, ad): (i64, i64) =
            pair.ok_or_else(|| ParseError::new("ad_ids", format!("'{v}' is not a campaign.")))?;
        groups.entry(account).or_default().push(ad);
    }
    if groups.is_empty() {
        return Err(none());
    }
    let action = form.get("action").unwrap_or("");
    let value = form.get("value").unwrap_or("").trim();
    let mut out = Vec::new();
    for (account, ids) in groups {
        let actor = session
            .person
            .actor(account)
            .map_err(|why| ParseError::new("ad_ids", why.sentence()))?;
        let mut body = Map::new();
        body.insert("action".into(), Value::from(action));
        body.insert("ad_ids".into(), Value::from(ids));
        match BulkKind::parse(action).and_then(|k| k.extra().field()) {
            Some("schedule") if value.is_empty() => {
                body.insert("schedule".into(), Value::Null);
            }
            Some("schedule") => {
                let parsed = serde_json::from_str(value).map_err(|_| {
                    ParseError::new("schedule", "The schedule is not a JSON object.")
                })?;
                body.insert("schedule".into(), parsed);
            }
            Some(field) if !value.is_empty() => {
                body.insert(field.into(), Value::from(value));
            }
            _ => {}
        }
        let kind = actor.cabinet().cabinet_type;
        let command = bulk::read(&Value::Object(body), kind, caps)?;
        out.push((actor, command));
    }
    Ok(out)
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
            let summaries = conversions::summaries_of(conn, &rows)?;
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

fn line(
    visit: &Visit<'_>,
    row: &CampaignRow,
    summary: &Summary,
    kind: CabinetType,
    cabinet: &str,
    writable: bool,
) -> Markup {
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
            td {
                input type="checkbox" name="ad" value={ (row.account_id) ":" (row.ad_id) }
                    disabled[!writable] aria-label={ "Select " (row.title) };
            }
            td { a href={ "/campaigns/" (row.account_id) "/" (row.ad_id) } { (row.title) } br; span.muted { "#" (row.ad_id) } }
            td { (cabinet) }
            td {
                (status_badge(visit, row.status))
                @if let Some(reason) = &row.decline_reason {
                    br; span.muted.reason title=(reason.shown()) { (reason.text()) }
                }
            }
            td.num { (money(kind, row.budget)) }
            td.num { (money(kind, row.spent)) }
            td.num { (count(row.views)) }
            td.num { (percent(totals.ctr(), row.views > 0)) }
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

fn filters(q: &Query, cabinets: Vec<(i64, &str)>) -> Markup {
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
fn sort_link(q: &Query, (key, heading): (&str, &str)) -> Markup {
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

fn pager(q: &Query, listed: &Listed) -> Markup {
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
            @if let Some(href) = previous { a href=(href) { "← Previous" } }
            @if let Some(href) = next { a href=(href) { "Next →" } }
        }
    }
}
