//! Owns `/reports` (the cabinets a person may report on) and `/reports/{account_id}`: a
//! cabinet's client report over `from`..`to` (whole days in the person's time zone, UTC when
//! they keep none; the last 7 by default) and an
//! optional `group_id`, as a page with its pickers, or as a download (`?format=csv|xlsx|pdf`);
//! its share links, made by a form (`POST .../share`) and
//! revoked from the list (`POST .../share/{id}/revoke`); and the agency's logo that heads it
//! (`GET .../logo`). Anyone who reaches the cabinet may read, share and revoke. The cabinet's
//! monthly statement (`.../statement`) is `statement.rs`'s.

mod pdf;
pub mod shared;
pub mod statement;
pub mod table;
pub mod view;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use maud::{html, Markup};

use super::super::export::{self, Format};
use super::super::session::Session;
use super::super::{layout, redirect, Form, Visit, WebError};
use super::ops_error;
use crate::clock;
use crate::http::Reply;
use crate::i18n::Lang;
use crate::ops::reports::links::{self, NewLink, SharedLink, SharedSpan, EXPIRY_DAYS};
use crate::ops::reports::{self, Reader, Report, Span};
use crate::ops::OpsError;
use crate::store::cabinets;
use crate::store::groups::{self, Group};
use crate::store::reports as report_rows;

/// `GET /reports`: the cabinets the person reaches, each a link to its report.
pub async fn index<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let body = html! {
        header.page { div {
            h1 { (visit.t("reports-index-title")) }
            p.muted { (visit.t("reports-index-lead")) }
        } }
        @if session.person.reach.is_empty() {
            div.empty { p { (visit.t("cabinets-none")) } }
        } @else {
            ul.report-list {
                @for r in &session.person.reach {
                    li { a href={ "/reports/" (r.cabinet.id) } { (r.cabinet.name) }
                        " " span.muted { (r.cabinet.id) " · " (r.cabinet.cabinet_type.currency()) } }
                }
            }
        }
    };
    let title = visit.t("reports-index-title");
    Ok(layout::page(visit, session, "/reports", &title, body))
}

/// The cabinet of the path's `{account_id}` as the person may read it; an id they do not
/// reach is a page that is not there.
fn reader(session: &Session, args: &[&str]) -> Result<Reader, WebError> {
    let account: i64 = args
        .first()
        .and_then(|a| a.parse().ok())
        .ok_or(WebError::NotFound)?;
    Reader::of(&session.person.reach, account).ok_or(WebError::NotFound)
}

/// What the page shows around the report: the link just made (its token shown once) and a
/// refusal of the share form.
#[derive(Default)]
struct Extra {
    created: Option<String>,
    refused: Option<String>,
}

/// What one read of the page gathers.
struct Read {
    report: Report,
    groups: Vec<Group>,
    links: Vec<SharedLink>,
    /// The language the cabinet's client reads its reports in, when one is set.
    client_language: Option<Lang>,
    now: DateTime<Utc>,
}

async fn read(
    visit: &Visit<'_>,
    reader: Reader,
    span: Option<Span>,
    group: Option<i64>,
) -> Result<(Read, bool), WebError> {
    let from = visit.query.text("from").map(str::to_string);
    let to = visit.query.text("to").map(str::to_string);
    let zone = visit.zone.unwrap_or(Tz::UTC);
    visit
        .state
        .services
        .db
        .read(move |conn| {
            let now = clock::now(conn)?;
            let today = now.with_timezone(&zone).date_naive();
            let (span, bad_span) = match span {
                Some(s) => (s, false),
                None => match Span::parse(from.as_deref(), to.as_deref(), today) {
                    Ok(s) => (s, false),
                    Err(_) => (Span::last(reports::DEFAULT_DAYS, today), true),
                },
            };
            let span = span.in_zone(zone);
            let account = reader.cabinet().id;
            let report = reports::build(conn, &reader, span, group)?;
            Ok::<_, OpsError>((
                Read {
                    report,
                    groups: groups::list(conn, &[account])?,
                    links: links::list(conn, &reader, now)?,
                    client_language: cabinets::report_language(conn, account)?,
                    now,
                },
                bad_span,
            ))
        })
        .await
        .map_err(ops_error)
}

/// The `group_id` the query names, if any.
fn group_of(visit: &Visit) -> Result<Option<i64>, WebError> {
    match visit.query.text("group_id").filter(|g| !g.is_empty()) {
        None => Ok(None),
        Some(g) => g
            .parse()
            .map(Some)
            .map_err(|_| WebError::BadRequest(visit.t("reports-bad-group"))),
    }
}

/// `GET /reports/{account_id}?from=&to=&group_id=[&format=csv|xlsx|pdf]`.
pub async fn show<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let as_pdf = visit.query.text("format") == Some("pdf");
    let download = if as_pdf {
        None
    } else {
        Format::requested(visit)?
    };
    let reader = reader(session, args)?;
    let group = group_of(visit)?;
    let (read, bad_span) = read(visit, reader, None, group).await?;
    if as_pdf {
        let owner = read.report.agency.owner_id;
        let has_logo = read.report.agency.has_logo;
        let logo = visit
            .state
            .services
            .db
            .read(move |conn| match has_logo {
                true => report_rows::logo(conn, owner),
                false => Ok(None),
            })
            .await?;
        return pdf::reply(read.report, visit.lang, logo.map(|(_, bytes)| bytes))
            .await
            .map_err(ops_error);
    }
    if let Some(format) = download {
        return table::of(&read.report).reply(format);
    }
    let extra = Extra {
        refused: bad_span.then(|| visit.t("reports-bad-span")),
        ..Extra::default()
    };
    Ok(page(visit, session, &read, extra))
}

fn page(visit: &Visit, session: &Session, read: &Read, extra: Extra) -> Reply {
    let report = &read.report;
    let account = report.account_id;
    let path = format!("/reports/{account}");
    let logo = report
        .agency
        .has_logo
        .then(|| format!("/reports/{account}/logo"));
    let group = report.group.as_ref().map(|g| g.id);
    let body = html! {
        header.page {
            div { p.muted { a href="/reports" { (visit.t("reports-index-title")) }
                " · " a #statement-link href={ (path) "/statement" } { (visit.t("statement-link")) } } }
            (export::links(visit, &path))
        }
        form.filters.report-filters method="get" action=(path) {
            label { (visit.t("reports-from")) input type="date" name="from" value=(report.from) required; }
            label { (visit.t("reports-to")) input type="date" name="to" value=(report.to) required; }
            @if !read.groups.is_empty() {
                label { (visit.t("reports-group"))
                    select name="group_id" {
                        option value="" { (visit.t("reports-group-all")) }
                        @for g in &read.groups {
                            option value=(g.id) selected[group == Some(g.id)] { (g.name) }
                        }
                    }
                }
            }
            button.primary type="submit" { (visit.t("reports-show")) }
        }
        @if let Some(refused) = &extra.refused { p.error role="alert" { (refused) } }
        (view::body(visit, report, logo.as_deref()))
        (share_section(visit, session, read, &extra))
    };
    let title = format!("{} · {}", visit.t("reports-title"), report.cabinet_name);
    layout::page(visit, session, "/reports", &title, body)
}

fn span_name(visit: &Visit, link: &SharedLink) -> String {
    match link.span {
        SharedSpan::Fixed => visit.ta(
            "reports-share-fixed-days",
            &[
                ("from", link.from_day.clone().unwrap_or_default().into()),
                ("to", link.to_day.clone().unwrap_or_default().into()),
            ],
        ),
        SharedSpan::Last7 => visit.t("reports-share-last7"),
        SharedSpan::Last30 => visit.t("reports-share-last30"),
    }
}

fn share_section(visit: &Visit, session: &Session, read: &Read, extra: &Extra) -> Markup {
    let report = &read.report;
    // A link speaks the client's language when the cabinet names one, else the page's.
    let share_language = read.client_language.unwrap_or(visit.lang);
    let account = report.account_id;
    let fmt = visit.fmt();
    let group_name = |id: Option<i64>| {
        id.and_then(|id| read.groups.iter().find(|g| g.id == id))
            .map(|g| g.name.clone())
    };
    html! {
        section.card.share id="share" {
            h2 { (visit.t("reports-share-title")) }
            p.muted { (visit.t("reports-share-lead")) }
            @if let Some(url) = &extra.created {
                p.notice role="status" { (visit.t("reports-share-created")) }
                p { code.secret data-share-url="" { (url) } }
            }
            form method="post" action={ "/reports/" (account) "/share" } {
                input type="hidden" name="csrf" value=(session.csrf);
                input type="hidden" name="from" value=(report.from);
                input type="hidden" name="to" value=(report.to);
                @if let Some(g) = &report.group { input type="hidden" name="group_id" value=(g.id); }
                div.filters {
                    label { (visit.t("reports-share-span"))
                        select name="span" {
                            option value="fixed" { (visit.ta("reports-share-fixed-days", &[("from", report.from.to_string().into()), ("to", report.to.to_string().into())])) }
                            option value="last7" selected { (visit.t("reports-share-last7")) }
                            option value="last30" { (visit.t("reports-share-last30")) }
                        }
                    }
                    label { (visit.t("reports-share-expires"))
                        select name="expires_days" {
                            @for days in EXPIRY_DAYS {
                                option value=(days) selected[days == links::DEFAULT_EXPIRY_DAYS] {
                                    (visit.ta("reports-share-days", &[("days", i64::from(days).into())]))
                                }
                            }
                        }
                    }
                    label { (visit.t("reports-share-language"))
                        select name="language" {
                            option value="" { (visit.t("reports-share-language-browser")) }
                            option value="en" selected[share_language == Lang::En] { "English" }
                            option value="ru" selected[share_language == Lang::Ru] { "Русский" }
                        }
                    }
                    button.primary type="submit" { (visit.t("reports-share-create")) }
                }
            }
            @if read.links.is_empty() {
                p.muted { (visit.t("reports-share-none")) }
            } @else {
                div.table-wrap { table.cards.share-links {
                    thead { tr {
                        th { (visit.t("reports-share-span")) } th { (visit.t("reports-group")) }
                        th { (visit.t("reports-share-made")) } th { (visit.t("reports-share-until")) } th {}
                    } }
                    tbody {
                        @for link in &read.links {
                            tr data-link=(link.id) {
                                td data-label=(visit.t("reports-share-span")) { (span_name(visit, link)) }
                                td data-label=(visit.t("reports-group")) { (group_name(link.group_id).unwrap_or_else(|| visit.t("reports-group-all"))) }
                                td data-label=(visit.t("reports-share-made")) { (fmt.time(&link.created_at)) }
                                td data-label=(visit.t("reports-share-until")) { (fmt.time(&link.expires_at)) }
                                td {
                                    form method="post" action={ "/reports/" (account) "/share/" (link.id) "/revoke" } {
                                        input type="hidden" name="csrf" value=(session.csrf);
                                        button type="submit" { (visit.t("reports-share-revoke")) }
                                    }
                                }
                            }
                        }
                    }
                } }
            }
            p.muted { (visit.t("reports-share-now")) " " (fmt.time(&crate::domain::time::iso(read.now))) }
        }
    }
}

/// `POST /reports/{account_id}/share`: `span` (`fixed|last7|last30`), `from`, `to` (a fixed
/// link's days), `group_id`, `expires_days`. Answers the page with the new link shown once.
pub async fn share<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let reader = reader(session, args)?;
    let user = session.person.user.id;
    let field = |name: &str| form.get(name).map(str::to_string);
    let (span, from, to, group, expires, language) = (
        field("span"),
        field("from"),
        field("to"),
        field("group_id"),
        field("expires_days"),
        field("language"),
    );
    let writer = reader.clone();
    let zone = visit.zone.unwrap_or(Tz::UTC);
    let made = visit
        .state
        .services
        .db
        .write(move |tx| {
            let now = clock::now(tx)?;
            let sent = links::Sent {
                span: span.as_deref(),
                from: from.as_deref(),
                to: to.as_deref(),
                group: group.as_deref(),
                expires: expires.as_deref(),
                language: language.as_deref(),
            };
            let new = NewLink::read(&sent, now.with_timezone(&zone).date_naive())?;
            let created = links::create(tx, &writer, user, &new, now)?;
            Ok::<_, OpsError>((created, new))
        })
        .await;
    let (created, new) = match made {
        Ok(made) => made,
        Err(OpsError::Invalid(e)) => {
            let (read, _) = read(visit, reader, None, None).await?;
            let extra = Extra {
                refused: Some(super::why::worded(visit.lang, &e)),
                ..Extra::default()
            };
            return Ok(page(visit, session, &read, extra)
                .with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY));
        }
        Err(e) => return Err(ops_error(e)),
    };
    let public = visit
        .state
        .services
        .config
        .panel
        .public_url
        .trim_end_matches('/');
    let url = format!("{public}{}{}", shared::PREFIX, created.token);
    let span = new.fixed;
    let (read, _) = read(visit, reader, span, new.group).await?;
    let extra = Extra {
        created: Some(url),
        ..Extra::default()
    };
    Ok(page(visit, session, &read, extra))
}

/// `POST /reports/{account_id}/share/{id}/revoke`.
pub async fn revoke<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let reader = reader(session, args)?;
    let id: i64 = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .ok_or(WebError::NotFound)?;
    let account = reader.cabinet().id;
    visit
        .state
        .services
        .db
        .write(move |tx| {
            let now = clock::now(tx)?;
            links::revoke(tx, &reader, id, now)
        })
        .await
        .map_err(ops_error)?;
    Ok(redirect(&format!("/reports/{account}#share")))
}

/// `GET /reports/{account_id}/logo`: the agency's logo that heads the cabinet's report.
pub async fn logo<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let reader = reader(session, args)?;
    let owner = reader.cabinet().owner_id;
    let found = visit
        .state
        .services
        .db
        .read(move |conn| report_rows::logo(conn, owner))
        .await?;
    let (kind, bytes) = found.ok_or(WebError::NotFound)?;
    Ok(image(kind, bytes))
}

/// An image as an answer the browser keeps briefly and never sniffs.
pub fn image(kind: String, bytes: Vec<u8>) -> Reply {
    let mut reply = Reply::raw(bytes::Bytes::from(bytes), &kind);
    reply.headers.extend([
        ("cache-control".into(), "private, max-age=300".into()),
        ("x-content-type-options".into(), "nosniff".into()),
    ]);
    reply
}
