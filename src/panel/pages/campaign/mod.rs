//! Owns `/campaigns/{account_id}/{ad_id}`: one campaign's page, read in one go (`load`) and
//! laid out with its action bar first (`actions`), then its hourly chart over 24 hours, 7 days
//! or 30 days and its download (`hourly`), why the platform declined it while it is declined,
//! its figures (ROAS and profit with the rates revenue was converted at) and settings with the targeting as names (`targeting`), the edit form (`edit`),
//! its Auto CPM card (`auto_cpm`), its conversions and its history as sentences (`history`).
//! A refused form is the page again with the refusal beside its field.

mod actions;
mod answer;
mod edit;
mod history;
mod hourly;
mod targeting;

use std::collections::HashMap;

use maud::{html, Markup};

use super::super::session::Session;
use super::super::{export, layout, Form, Visit, WebError};
use super::campaigns::{RowForm, RowRefusal};
use super::rate_notes;
use super::{auto_cpm, status_badge, Refused};
use crate::clock;
use crate::domain::campaign::Status;
use crate::domain::money::CabinetType;
use crate::domain::stats::Totals;
use crate::http::Reply;
use crate::ops::lookup;
use crate::ops::returns::{self, Returns};
use crate::store::campaigns::{self, CampaignRow};
use crate::store::conversions;
use crate::store::groups::{self, Group};
use crate::store::history::{self as history_store, Entry};
use crate::store::{peers, StoreError};

pub use actions::{budget, copy, cpm, delete, pause, recreate, resume};
pub use edit::{edit, set_auto_cpm};

/// Conversions the page lists.
const RECENT: i64 = 20;

/// What the page shows of one campaign.
struct Found {
    row: CampaignRow,
    /// ROAS and profit, revenue converted into the cabinet's currency.
    returns: Returns,
    /// The most recent conversions attributed to it.
    recent: Vec<conversions::Recent>,
    history: Vec<Entry>,
    /// Per bucket: its first hour, the totals and the conversions in it.
    buckets: Vec<(String, Totals, i64)>,
    auto_cpm: auto_cpm::Shown,
    /// The cabinet's groups, for the copy form.
    groups: Vec<Group>,
    /// The titles kept for the channels and bots its targeting names, by `peers::key`.
    titles: HashMap<String, String>,
}

/// Which of the page's forms a refusal answers: only that form shows it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Which {
    Edit,
    Switch,
    Budget,
    Cpm,
    Copy,
    Recreate,
    Delete,
}

/// A refusal of one of the page's forms.
struct Shown<'f> {
    which: Which,
    refused: Refused<'f>,
}

impl<'f> Shown<'f> {
    /// The refusal, when it answers `which`.
    fn of(shown: Option<&'f Shown<'f>>, which: Which) -> Option<&'f Refused<'f>> {
        shown.filter(|s| s.which == which).map(|s| &s.refused)
    }
}

/// The path's cabinet and campaign ids.
fn ids(args: &[&str]) -> Result<(i64, i64), WebError> {
    match (args[0].parse::<i64>(), args[1].parse::<i64>()) {
        (Ok(account), Ok(ad)) => Ok((account, ad)),
        _ => Err(WebError::NotFound),
    }
}

/// The campaign's own page.
fn own_path(account: i64, ad: i64) -> String {
    format!("/campaigns/{account}/{ad}")
}

/// `GET /campaigns/{account_id}/{ad_id}`: the page, or with `?format=csv|xlsx` the hourly
/// stats of the chart's period as a download.
pub async fn show<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let (account, ad) = ids(args)?;
    if let Some(format) = export::Format::requested(visit)? {
        let reach = session.person.cabinet(account).ok_or(WebError::NotFound)?;
        let kind = reach.cabinet.cabinet_type;
        let period = hourly::period(visit);
        let table = visit
            .state
            .services
            .db
            .read(move |conn| {
                if campaigns::get(conn, account, ad)?.is_none() {
                    return Ok(None);
                }
                hourly::table(conn, account, ad, kind, period).map(Some)
            })
            .await?
            .ok_or(WebError::NotFound)?;
        return table.reply(format);
    }
    render(visit, session, account, ad, None).await
}

/// Reads what the page shows of campaign `ad` of `account`.
async fn load(
    visit: &Visit<'_>,
    account: i64,
    ad: i64,
    kind: CabinetType,
    period: hourly::Period,
) -> Result<Found, WebError> {
    let reviews = visit
        .state
        .services
        .platform
        .capabilities()
        .bid_edit_reviews;
    let platform = lookup::platform_key(&visit.state.services);
    visit
        .state
        .services
        .db
        .read(move |conn| {
            let Some(row) = campaigns::get(conn, account, ad)? else {
                return Ok(None);
            };
            let now = clock::now(conn)?;
            let day = now.date_naive();
            Ok::<_, StoreError>(Some(Found {
                buckets: hourly::buckets(conn, account, ad, now, period)?,
                returns: returns::of_campaign(conn, &row, kind, day)?,
                history: history_store::list(conn, account, ad)?,
                recent: conversions::recent_of_campaign(conn, account, ad, RECENT)?,
                auto_cpm: auto_cpm::load(conn, account, ad, reviews)?,
                groups: groups::list(conn, &[account])?,
                titles: peers::titles(conn, platform, &targeting::peer_names(&row.targeting))?,
                row,
            }))
        })
        .await?
        .ok_or(WebError::NotFound)
}

async fn render(
    visit: &Visit<'_>,
    session: &Session,
    account: i64,
    ad: i64,
    shown: Option<Shown<'_>>,
) -> Result<Reply, WebError> {
    let reach = session.person.cabinet(account).ok_or(WebError::NotFound)?;
    let kind = reach.cabinet.cabinet_type;
    let cabinet_name = reach.cabinet.name.clone();
    let period = hourly::period(visit);
    let found = load(visit, account, ad, kind, period).await?;
    let row = &found.row;
    let shown = shown.as_ref();
    let writable = session.person.writable(account).is_ok() && row.status != Status::Deleted;
    let edit_refused = Shown::of(shown, Which::Edit);
    let body = html! {
        header.page {
            div {
                p.muted {
                    a href={ "/campaigns?account_id=" (account) } { (cabinet_name) }
                    " · " (visit.ta("campaign-number", &[("id", ad.into())]))
                }
                h1 { (row.title) " " (status_badge(visit, row.status)) }
            }
        }
        @if writable {
            (actions::bar(visit, session, row, kind, &found.groups, shown))
        }
        section.hourly aria-label=(visit.t("campaign-hourly")) {
            nav.tabs aria-label=(visit.t("campaign-period")) {
                @for p in hourly::PERIODS {
                    a href={ "?period=" (p.key) } aria-current=[(p.key == period.key).then_some("true")] { (visit.t(p.label)) }
                }
            }
            (hourly::chart(visit, &found.buckets, kind))
            p { (export::links(visit, &own_path(account, ad))) }
        }
        @if let Some(reason) = &row.decline_reason {
            div.card.declined role="status" {
                p { strong { (visit.ta("campaign-declined", &[("reason", reason.text().into())])) } }
                @if let Some(explained) = reason.description() { p { (explained) } }
                p.muted { (visit.t("campaign-declined-help")) }
            }
        }
        div.grid {
            div.card { h2 { (visit.t("campaign-delivery")) } (figures(visit, row, kind, &found.returns)) }
            div.card { h2 { (visit.t("campaign-settings")) } (targeting::settings(visit, row, kind, &found.groups, &found.titles)) }
            @if writable {
                div.card.wide { h2 { (visit.t("campaign-edit")) } (edit::form(visit, session, row, kind, edit_refused)) }
            }
            div.card { h2 { "Auto CPM" } (auto_cpm::card(visit, session, row, kind, &found.auto_cpm, writable, edit_refused)) }
        }
        h2 { (visit.t("campaign-conversions")) }
        (conversions_table(visit, &found.recent))
        h2 { (visit.t("campaign-history")) }
        (history::table(visit, &found.history, kind))
    };
    let reply = layout::page(visit, session, "/campaigns", &row.title, body);
    Ok(match shown {
        Some(_) => reply.with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY),
        None => reply,
    })
}

/// Renders the page again with `message` beside field `param` of form `which`; a row form of
/// the campaigns list (switch, budget, bid) gets the list again with it in that row.
async fn refuse(
    visit: &Visit<'_>,
    session: &Session,
    (account, ad): (i64, i64),
    which: Which,
    sent: &Form,
    (param, message): (String, String),
) -> Result<Reply, WebError> {
    let row_form = match which {
        Which::Switch => Some((RowForm::Switch, "")),
        Which::Budget => Some((RowForm::Budget, "amount")),
        Which::Cpm => Some((RowForm::Bid, "cpm")),
        Which::Edit | Which::Copy | Which::Recreate | Which::Delete => None,
    };
    if let (Some((form, field)), Some(list)) = (row_form, answer::list_query(sent)) {
        let refused = RowRefusal {
            account,
            ad,
            form,
            param,
            message,
            sent: sent.get(field).unwrap_or("").to_string(),
        };
        return super::campaigns::refuse_row(visit, session, &list, &refused).await;
    }
    let refused = Refused {
        sent,
        param,
        message,
    };
    render(visit, session, account, ad, Some(Shown { which, refused })).await
}

fn figures(visit: &Visit, row: &CampaignRow, kind: CabinetType, returns: &Returns) -> Markup {
    let summary = &row.conversions;
    let said = rate_notes::notes(visit, &returns.used, &returns.missing);
    let f = visit.fmt();
    let t = Totals {
        views: row.views,
        opens: row.opens,
        clicks: row.clicks,
        actions: row.actions,
        spent: row.spent,
    };
    let currency = |defined: bool| {
        if defined {
            format!(" {}", kind.currency())
        } else {
            String::new()
        }
    };
    html! {
        dl.fields {
            dt { (visit.t("campaign-budget")) } dd { (f.money(kind, row.budget)) }
            dt { (visit.t("campaign-spent")) } dd { (f.money(kind, row.spent)) }
            @if let Some(daily) = row.daily_budget { dt { (visit.t("campaign-daily-budget")) } dd { (f.money(kind, daily)) } }
            dt { (visit.t("campaign-views")) } dd { (f.count(row.views)) }
            dt { (visit.t("campaign-opens")) } dd { (f.count(row.opens)) }
            dt { (visit.t("campaign-clicks")) } dd { (f.count(row.clicks)) }
            dt { (visit.t("campaign-actions")) } dd { (f.count(row.actions)) }
            dt { "CTR" } dd { (f.percent(t.ctr(), row.views > 0)) }
            dt { (visit.t("campaign-paid-cpm")) } dd { (f.ratio(t.cpm(), row.views > 0)) (currency(row.views > 0)) }
            dt { "CPA" } dd { (f.ratio(t.cpa(), row.actions > 0)) (currency(row.actions > 0)) }
            dt { (visit.t("campaign-conversions")) } dd {
                @if summary.counts.total() == 0 { (visit.t("campaign-conversions-none")) }
                @for (event, n) in summary.counts.counted() { (f.count(n)) " " (event.as_str()) " " }
            }
            dt { (visit.t("campaign-revenue")) } dd {
                @if summary.revenue.is_empty() { "–" }
                @for (currency, micros) in &summary.revenue {
                    (f.ratio(rust_decimal::Decimal::from_i128_with_scale(*micros, 6), true)) " " (currency) " "
                }
            }
            @if !summary.revenue.is_empty() {
                dt { "ROAS" } dd data-figure="roas" {
                    @match returns.roas { Some(r) => (f.ratio(r, true)), None => "–" }
                }
                dt { (visit.t("campaign-profit")) } dd data-figure="profit" {
                    @match returns.profit {
                        Some(p) => { (f.ratio(p, true)) (currency(true)) }
                        None => "–",
                    }
                    @for note in &said { br; small.muted.rate-note { (note) } }
                }
            }
        }
    }
}

fn conversions_table(visit: &Visit, recent: &[conversions::Recent]) -> Markup {
    let f = visit.fmt();
    let (when, event, amount, reference) = (
        visit.t("campaign-when"),
        visit.t("campaign-event"),
        visit.t("campaign-amount"),
        visit.t("campaign-reference"),
    );
    html! {
        @if recent.is_empty() {
            div.empty { (visit.t("campaign-conversions-empty")) " " code { "POST /api/v1/postback" } "." }
        } @else {
            div.table-wrap { table.cards {
                thead { tr { th { (when) } th { (event) } th.num { (amount) } th { (reference) } } }
                tbody { @for c in recent { tr {
                    td data-label=(when) { (f.time(&c.received_at)) }
                    td data-label=(event) { (c.event_type) }
                    td.num data-label=(amount) {
                        @match (c.amount_micros, &c.currency) {
                            (Some(m), Some(cur)) => { (f.ratio(rust_decimal::Decimal::new(m, 6), true)) " " (cur) },
                            (Some(m), None) => (f.ratio(rust_decimal::Decimal::new(m, 6), true)),
                            _ => "–",
                        }
                    }
                    td data-label=(reference) { @if let Some(r) = &c.reference { code { (r) } } }
                } } }
            } }
        }
    }
}
