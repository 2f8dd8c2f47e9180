//! Owns `/campaigns/{account_id}/{ad_id}`: one campaign's every field, why the platform
//! declined it while it is declined, its hourly chart (views, clicks, spend, conversions) over
//! 24 hours, 7 days or 30 days, its conversions, its Auto CPM card (`auto_cpm`) and its change
//! history with the source of each change.

use chrono::Duration;
use maud::{html, Markup};
use serde_json::{Map, Value};

use super::super::chart::{self, Series};
use super::super::format::{count, money, percent, ratio, time};
use super::super::session::Session;
use super::super::{layout, redirect, Form, Visit, WebError};
use super::ops_error;
use super::{auto_cpm, status_badge, Refused};
use crate::clock;
use crate::domain::money::CabinetType;
use crate::domain::stats::Totals;
use crate::domain::time::iso;
use crate::domain::ParseError;
use crate::http::Reply;
use crate::ops::campaigns::command::Edit;
use crate::ops::campaigns::edit as ops;
use crate::ops::campaigns::OpsError;
use crate::platform::PlatformError;
use crate::store::campaigns::{self, CampaignRow};
use crate::store::conversions::{self, Summary};
use crate::store::history::{self, Entry};
use crate::store::{stats, StoreError};

/// The chart's periods: parameter, label, hours covered, hours per bucket.
const PERIODS: [(&str, &str, i64, i64); 3] = [
    ("24h", "24 hours", 24, 1),
    ("7d", "7 days", 168, 1),
    ("30d", "30 days", 720, 24),
];

/// Conversions the page lists.
const RECENT: i64 = 20;

/// What the page shows of one campaign.
struct Found {
    row: CampaignRow,
    summary: Summary,
    /// The most recent conversions attributed to it.
    recent: Vec<conversions::Recent>,
    history: Vec<Entry>,
    /// Per bucket: its first hour, the totals and the conversions in it.
    buckets: Vec<(String, Totals, i64)>,
    auto_cpm: auto_cpm::Shown,
}

/// The path's cabinet and campaign ids.
fn ids(args: &[&str]) -> Result<(i64, i64), WebError> {
    match (args[0].parse::<i64>(), args[1].parse::<i64>()) {
        (Ok(account), Ok(ad)) => Ok((account, ad)),
        _ => Err(WebError::NotFound),
    }
}

pub async fn show<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let (account, ad) = ids(args)?;
    render(visit, session, account, ad, None).await
}

async fn render(
    visit: &Visit<'_>,
    session: &Session,
    account: i64,
    ad: i64,
    refused: Option<Refused<'_>>,
) -> Result<Reply, WebError> {
    let reach = session.person.cabinet(account).ok_or(WebError::NotFound)?;
    let kind = reach.cabinet.cabinet_type;
    let cabinet_name = reach.cabinet.name.clone();
    let period = PERIODS
        .iter()
        .find(|p| Some(p.0) == visit.query.get("period"))
        .unwrap_or(&PERIODS[0]);
    let (_, _, hours, per) = *period;
    let reviews = visit
        .state
        .services
        .platform
        .capabilities()
        .bid_edit_reviews;
    let found = visit
        .state
        .services
        .db
        .read(move |conn| {
            let Some(row) = campaigns::get(conn, account, ad)? else {
                return Ok(None);
            };
            let now = clock::now(conn)?;
            let end = crate::domain::time::hour_start(now) + Duration::hours(1);
            let start = end - Duration::hours(hours);
            let (from, to) = (iso(start), iso(end));
            let rows = stats::hours_of_campaign(conn, account, ad, &from, &to)?;
            let conv = conversions::hours_of_campaign(conn, account, ad, &from, &to)?;
            let mut buckets: Vec<(String, Totals, i64)> = (0..hours / per)
                .map(|i| (iso(start + Duration::hours(i * per)), Totals::default(), 0))
                .collect();
            let index = |hour: &str| {
                crate::domain::time::parse_iso(&format!("{}:00:00Z", &hour[..13.min(hour.len())]))
                    .map(|t| ((t - start).num_hours() / per) as usize)
            };
            for (hour, totals) in rows {
                if let Some(b) = index(&hour).and_then(|i| buckets.get_mut(i)) {
                    b.1.add(&totals);
                }
            }
            for (hour, n) in conv {
                if let Some(b) = index(&hour).and_then(|i| buckets.get_mut(i)) {
                    b.2 += n;
                }
            }
            Ok::<_, StoreError>(Some(Found {
                summary: conversions::summary_of(conn, &row)?,
                history: history::list(conn, account, ad)?,
                recent: conversions::recent_of_campaign(conn, account, ad, RECENT)?,
                auto_cpm: auto_cpm::load(conn, account, ad, reviews)?,
                row,
                buckets,
            }))
        })
        .await?
        .ok_or(WebError::NotFound)?;
    let row = &found.row;
    let body = html! {
        header.page {
            div {
                p.muted { a href={ "/campaigns?account_id=" (account) } { (cabinet_name) } " · campaign #" (ad) }
                h1 { (row.title) " " (status_badge(visit, row.status)) }
            }
        }
        @if let Some(reason) = &row.decline_reason {
            div.card.declined role="status" {
                p { strong { "Declined by the platform: " (reason.text()) } }
                @if let Some(explained) = reason.description() { p { (explained) } }
                p.muted { "Edit the text, link or media to send it back to review." }
            }
        }
        div.grid {
            div.card { h2 { "Delivery" } (figures(row, kind, &found.summary)) }
            div.card { h2 { "Settings" } (settings(row, kind)) }
            @let writable = session.person.writable(account).is_ok() && row.status != crate::domain::campaign::Status::Deleted;
            @if writable {
                div.card { h2 { "Edit" } (edit_form(session, row, kind, refused.as_ref())) }
            }
            div.card { h2 { "Auto CPM" } (auto_cpm::card(visit, session, row, kind, &found.auto_cpm, writable, refused.as_ref())) }
        }
        h2 { "Hourly" }
        nav.tabs aria-label="Period" {
            @for (key, label, _, _) in PERIODS {
                a href={ "?period=" (key) } aria-current=[(key == period.0).then_some("true")] { (label) }
            }
        }
        (chart_of(&found, kind))
        h2 { "Conversions" }
        (conversions_table(&found.recent))
        h2 { "History" }
        (history_table(&found.history))
    };
    let reply = layout::page(visit, session, "/campaigns", &row.title, body);
    Ok(match refused {
        Some(_) => reply.with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY),
        None => reply,
    })
}

/// How an edit form field is written and sent.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    /// A string.
    Text,
    /// A string; empty sends `null` (removes it).
    Clearable,
    /// An amount in the cabinet's currency, as a string.
    Money,
    /// An amount; empty sends `null` (removes the cap).
    ClearableMoney,
    /// A whole number.
    Count,
    /// A JSON object; empty sends `null` (removes it).
    Json,
    /// On or off.
    Switch,
}

/// The fields the edit form changes (the API's `PATCH` fields), with their labels.
const EDITED: [(&str, &str, Field); 9] = [
    ("title", "Title", Field::Text),
    ("text", "Text", Field::Text),
    ("promote_url", "Link", Field::Text),
    (
        "website_name",
        "Website name (empty: none)",
        Field::Clearable,
    ),
    ("cpm", "Bid (CPM)", Field::Money),
    (
        "daily_budget",
        "Daily budget (empty: no cap)",
        Field::ClearableMoney,
    ),
    ("views_per_user", "Views per user (1-4)", Field::Count),
    (
        "schedule",
        "Schedule, as the API's JSON object (empty: always)",
        Field::Json,
    ),
    ("active", "Switched", Field::Switch),
];

/// The campaign's value of an edited field, as the form writes it.
fn current(row: &CampaignRow, kind: CabinetType, field: &str) -> String {
    match field {
        "title" => row.title.clone(),
        "text" => row.text.clone(),
        "promote_url" => row.promote_url.clone(),
        "website_name" => row.website_name.clone().unwrap_or_default(),
        "cpm" => kind.render(row.cpm),
        "daily_budget" => row.daily_budget.map(|m| kind.render(m)).unwrap_or_default(),
        "views_per_user" => row.views_per_user.to_string(),
        "schedule" => row
            .schedule
            .as_ref()
            .map(Value::to_string)
            .unwrap_or_default(),
        _ => if row.active { "on" } else { "off" }.into(),
    }
}

/// A changed field's value as the API's body takes it; refused when it should be JSON and is
/// not.
fn sent_value(field: &str, how: Field, sent: &str) -> Result<Value, ParseError> {
    Ok(match how {
        Field::Text | Field::Money => Value::from(sent),
        Field::Clearable | Field::ClearableMoney if sent.is_empty() => Value::Null,
        Field::Clearable | Field::ClearableMoney => Value::from(sent),
        Field::Count => sent
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| Value::from(sent)),
        Field::Json if sent.trim().is_empty() => Value::Null,
        Field::Json => serde_json::from_str(sent)
            .map_err(|_| ParseError::new(field, format!("{field} is not a JSON object.")))?,
        Field::Switch => Value::Bool(sent == "on"),
    })
}

fn edit_form(
    session: &Session,
    row: &CampaignRow,
    kind: CabinetType,
    refused: Option<&Refused>,
) -> Markup {
    let value = |field: &str| {
        refused
            .and_then(|r| r.sent.get(field))
            .map(str::to_string)
            .unwrap_or_else(|| current(row, kind, field))
    };
    html! {
        form #edit method="post" action={ "/campaigns/" (row.account_id) "/" (row.ad_id) "/edit" } {
            input type="hidden" name="csrf" value=(session.csrf);
            @for (field, label, how) in EDITED {
                label {
                    @if how == Field::Money || how == Field::ClearableMoney { (label) " (" (kind.currency()) ")" } @else { (label) }
                    @match how {
                        Field::Switch => select name=(field) {
                            option value="on" selected[value(field) == "on"] { "on" }
                            option value="off" selected[value(field) == "off"] { "off" }
                        },
                        Field::Json => textarea name=(field) rows="3" { (value(field)) },
                        _ => input type="text" name=(field) value=(value(field));,
                    }
                }
                @if let Some(r) = refused.filter(|r| r.param == field || r.param.starts_with(&format!("{field}."))) {
                    p.error role="alert" data-param=(field) { (r.message) }
                }
            }
            @if let Some(r) = refused.filter(|r| !r.param.starts_with(auto_cpm::PARAM) && !EDITED.iter().any(|(f, _, _)| *f == r.param || r.param.starts_with(&format!("{f}.")))) {
                p.error role="alert" data-param=(r.param) { (r.message) }
            }
            p.muted { "Only what you change is sent. A new title, text or link goes back to review on the platform." }
            button.primary type="submit" { "Save" }
        }
    }
}

/// `POST /campaigns/{account_id}/{ad_id}/auto-cpm`: the Auto CPM form as the edit
/// `{"auto_cpm": {...}}` the API makes too.
pub async fn set_auto_cpm<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    send(visit, session, form, args, |_, _| {
        Ok(auto_cpm::form_body(form))
    })
    .await
}

/// `POST /campaigns/{account_id}/{ad_id}/edit`: the fields that differ from the campaign's, as
/// the edit `PATCH /v1/campaigns/{ad_id}` makes too (its checks, the platform call, the
/// history, here with source `panel`).
pub async fn edit<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    send(visit, session, form, args, |row, kind| {
        let mut body = Map::new();
        for (field, _, how) in EDITED {
            let Some(sent) = form.get(field) else {
                continue;
            };
            if sent == current(row, kind, field) {
                continue;
            }
            let value = sent_value(field, how, sent).map_err(|e| (e.param, e.message))?;
            body.insert(field.into(), value);
        }
        Ok(body)
    })
    .await
}

/// Sends a form of the campaign's page as an edit (`ops::campaigns::edit`: the edit the API
/// makes, with its checks and sentences, the platform call, the history, here with source
/// `panel`), read from the fields `body` builds from the campaign and its currency (or the field
/// and sentence it refuses); a refusal is shown on the page beside its field.
async fn send<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
    body: impl FnOnce(&CampaignRow, CabinetType) -> Result<Map<String, Value>, (String, String)>,
) -> Result<Reply, WebError> {
    let (account, ad) = ids(args)?;
    session.person.cabinet(account).ok_or(WebError::NotFound)?;
    let actor = session.person.actor(account)?;
    let found = visit
        .state
        .panel_work(move |s| {
            let row = ops::live(s, account, ad)?;
            let stored = ops::stored_auto_cpm(s, account, ad)?;
            Ok::<_, OpsError>((row, stored))
        })
        .await?;
    let (row, stored) = found.map_err(ops_error)?;
    let refuse = |param: String, message: String| Refused {
        sent: form,
        param,
        message,
    };
    let body = match body(&row, actor.cabinet().cabinet_type) {
        Ok(body) => body,
        Err((param, message)) => {
            return render(visit, session, account, ad, Some(refuse(param, message))).await
        }
    };
    if body.is_empty() {
        let r = refuse("body".into(), "Change at least one field.".into());
        return render(visit, session, account, ad, Some(r)).await;
    }
    let body = Value::Object(body);
    let caps = visit.state.services.platform.capabilities();
    let command = match Edit::read(&body, actor.cabinet(), caps, &row, stored, body.clone()) {
        Ok(command) => command,
        Err(e) => {
            return render(
                visit,
                session,
                account,
                ad,
                Some(refuse(e.param, e.message)),
            )
            .await
        }
    };
    let edited = visit
        .state
        .panel_work(move |s| ops::edit(s, &actor, &row, command))
        .await?;
    match edited {
        Ok(_) => Ok(redirect(&format!("/campaigns/{account}/{ad}"))),
        Err(OpsError::Invalid(e)) => {
            render(
                visit,
                session,
                account,
                ad,
                Some(refuse(e.param, e.message)),
            )
            .await
        }
        Err(OpsError::Platform(PlatformError::Rejected { reason, param, .. })) => {
            let param = param.map_or_else(|| "body".into(), str::to_string);
            render(visit, session, account, ad, Some(refuse(param, reason))).await
        }
        Err(e) => Err(ops_error(e)),
    }
}

fn figures(row: &CampaignRow, kind: CabinetType, summary: &Summary) -> Markup {
    let t = Totals {
        views: row.views,
        opens: row.opens,
        clicks: row.clicks,
        actions: row.actions,
        spent: row.spent,
    };
    html! {
        dl.fields {
            dt { "Budget" } dd { (money(kind, row.budget)) }
            dt { "Spent" } dd { (money(kind, row.spent)) }
            @if let Some(daily) = row.daily_budget { dt { "Daily budget" } dd { (money(kind, daily)) } }
            dt { "Views" } dd { (count(row.views)) }
            dt { "Opens" } dd { (count(row.opens)) }
            dt { "Clicks" } dd { (count(row.clicks)) }
            dt { "Actions" } dd { (count(row.actions)) }
            dt { "CTR" } dd { (percent(t.ctr(), row.views > 0)) }
            dt { "Paid CPM" } dd { (ratio(t.cpm(), row.views > 0)) @if row.views > 0 { " " (kind.currency()) } }
            dt { "CPA" } dd { (ratio(t.cpa(), row.actions > 0)) @if row.actions > 0 { " " (kind.currency()) } }
            dt { "Conversions" } dd {
                @if summary.counts.is_empty() { "none yet" }
                @for (event, n) in &summary.counts { (count(*n)) " " (event) " " }
            }
            dt { "Revenue" } dd {
                @if summary.revenue.is_empty() { "–" }
                @for (currency, micros) in &summary.revenue {
                    (rust_decimal::Decimal::from_i128_with_scale(*micros, 6).round_dp(2)) " " (currency) " "
                }
            }
        }
    }
}

fn settings(row: &CampaignRow, kind: CabinetType) -> Markup {
    html! {
        dl.fields {
            dt { "Text" } dd { (row.text) }
            dt { "Link" } dd { (row.promote_url) }
            @if let Some(site) = &row.website_name { dt { "Website name" } dd { (site) } }
            @if let Some(button) = &row.button { dt { "Button" } dd { (button) } }
            dt { "Bid (CPM)" } dd { (money(kind, row.cpm)) @if row.auto_cpm_enabled { " · Auto CPM" } }
            dt { "Switched" } dd { @if row.active { "on" } @else { "off" } }
            dt { "Targets" } dd { (row.target_type.as_str()) }
            dt { "Targeting" } dd { code { (row.targeting.to_string()) } }
            dt { "Schedule" } dd {
                @match &row.schedule { Some(s) => code { (s.to_string()) }, None => "always" }
            }
            dt { "Views per user" } dd { (row.views_per_user) }
            @if let Some(group) = row.group_id { dt { "Group" } dd { (group) } }
            @if let Some(media) = &row.media_type { dt { "Media" } dd { (media) } }
            dt { "Status since" } dd { (time(&row.status_changed_at)) }
            dt { "Synced" } dd { (time(&row.synced_at)) }
        }
    }
}

fn chart_of(found: &Found, kind: CabinetType) -> Markup {
    let b = &found.buckets;
    let pick = |f: &dyn Fn(&(String, Totals, i64)) -> f64| b.iter().map(f).collect::<Vec<f64>>();
    let max_of = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max);
    let views = pick(&|x| x.1.views as f64);
    let clicks = pick(&|x| x.1.clicks as f64);
    let spent = pick(&|x| x.1.spent.micros() as f64 / 1e6);
    let conv = pick(&|x| x.2 as f64);
    let peak_spent = b.iter().map(|x| x.1.spent).max().unwrap_or_default();
    let series = [
        Series {
            name: "Views",
            class: "s-views",
            peak: count(max_of(&views) as i64),
            values: views,
        },
        Series {
            name: "Clicks",
            class: "s-clicks",
            peak: count(max_of(&clicks) as i64),
            values: clicks,
        },
        Series {
            name: "Spend",
            class: "s-spent",
            peak: money(kind, peak_spent),
            values: spent,
        },
        Series {
            name: "Conversions",
            class: "s-conv",
            peak: count(max_of(&conv) as i64),
            values: conv,
        },
    ];
    let label = |i: usize| {
        b.get(i)
            .map(|x| x.0.replace('T', " ").trim_end_matches(":00Z").to_string() + " UTC")
            .unwrap_or_default()
    };
    html! {
        @if b.iter().all(|x| x.1.is_idle() && x.2 == 0) {
            div.empty { "No delivery in this period. Stats arrive with each hourly sync." }
        } @else {
            (chart::bars(&series, &label(0), &label(b.len().saturating_sub(1))))
        }
    }
}

fn conversions_table(recent: &[conversions::Recent]) -> Markup {
    html! {
        @if recent.is_empty() {
            div.empty { "No conversions yet. Trackers send them to your tracker URL (API & Webhooks), or clients with " code { "POST /api/v1/postback" } "." }
        } @else {
            div.table-wrap { table {
                thead { tr { th { "When" } th { "Event" } th.num { "Amount" } th { "Reference" } } }
                tbody { @for c in recent { tr {
                    td { (time(&c.received_at)) }
                    td { (c.event_type) }
                    td.num {
                        @match (c.amount_micros, &c.currency) {
                            (Some(m), Some(cur)) => { (rust_decimal::Decimal::new(m, 6).round_dp(2)) " " (cur) },
                            (Some(m), None) => (rust_decimal::Decimal::new(m, 6).round_dp(2)),
                            _ => "–",
                        }
                    }
                    td { @if let Some(r) = &c.reference { code { (r) } } }
                } } }
            } }
        }
    }
}

fn history_table(entries: &[Entry]) -> Markup {
    html! {
        @if entries.is_empty() {
            div.empty { "No changes recorded yet." }
        } @else {
            div.table-wrap { table {
                thead { tr { th { "When" } th { "Source" } th { "Change" } th { "Details" } } }
                tbody {
                    @for e in entries.iter().rev() {
                        tr {
                            td { (time(&e.at)) }
                            td { span.badge { (e.source) } }
                            td { (e.action) }
                            td { @if let Some(d) = &e.details { code { (d.to_string()) } } }
                        }
                    }
                }
            } }
        }
    }
}
