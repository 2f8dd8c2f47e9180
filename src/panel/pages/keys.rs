//! Owns `/keys` (API & Webhooks): the person's API keys (an agency owner also sees the
//! team's), a new key with its permissions and scope (the key and its webhook secret shown
//! once, on the answer to the form), and per key of their own: the webhook URL, the Test
//! button, a new secret (shown once), revoking it, and its delivery log; and the tracker URL
//! (shown once when rotated). Every change goes through the same operations as
//! `adcab admin key ...`.

use maud::{html, Markup};

use super::super::export::{self, Cell, Table};
use super::super::session::Session;
use super::super::{layout, redirect, Form, Visit, WebError};
use super::{internal, ops_error, panel_op, sentence};
use crate::domain::access::Plan;
use crate::http::Reply;
use crate::ops::{self, By, KeyChange, NewKey, OpsError, WebhookUrl};
use crate::store::deliveries::{self, Delivery};
use crate::store::keys::{self, KeyRow};
use crate::store::{teams, users, StoreError};

/// Deliveries a key's page lists.
const LOG: i64 = 50;

/// One key as the list shows it.
struct Listed {
    key: KeyRow,
    owner: String,
    cabinets: Vec<i64>,
}

/// What the page shows besides the list: a secret to show once, or a refusal next to a field.
enum Notice {
    None,
    Created(ops::CreatedKey),
    Problem { param: String, message: String },
}

pub async fn list<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    if let Some(format) = export::Format::requested(visit)? {
        return download(&read(visit, session).await?).reply(format);
    }
    page(visit, session, Notice::None).await
}

/// The person's keys (an agency owner's with the team's), each with its owner's email and the
/// cabinets of its scope.
async fn read(visit: &Visit<'_>, session: &Session) -> Result<Vec<Listed>, WebError> {
    let person = session.person.user.clone();
    visit
        .state
        .services
        .db
        .read(move |conn| {
            let mut people = vec![person.id];
            if person.plan == Plan::Agency {
                people.extend(teams::members(conn, person.id)?);
            }
            keys::list_active(conn, &people)?
                .into_iter()
                .map(|key| {
                    let owner = users::get(conn, key.user_id)?
                        .map(|u| u.email)
                        .unwrap_or_default();
                    let cabinets = keys::scope_cabinets(conn, key.id)?;
                    Ok(Listed {
                        key,
                        owner,
                        cabinets,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()
        })
        .await
        .map_err(WebError::from)
}

/// The columns of the keys' download; a secret is never among them.
const COLUMNS: [&str; 8] = [
    "id",
    "owner",
    "manage",
    "postbacks",
    "partner",
    "account_ids",
    "webhook_url",
    "last_used_at",
];

/// The keys as a download: permissions, scope (`all`, or the cabinets' ids), webhook and last
/// use.
fn download(listed: &[Listed]) -> Table {
    let flag = |b: bool| Cell::Text(b.to_string());
    let rows = listed
        .iter()
        .map(|l| {
            let scope = if l.key.scope_all {
                "all".to_string()
            } else {
                l.cabinets
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            vec![
                Cell::Int(l.key.id),
                Cell::from(l.owner.as_str()),
                flag(l.key.manage),
                flag(l.key.postbacks),
                flag(l.key.partner),
                Cell::Text(scope),
                Cell::from(l.key.webhook_url.clone()),
                Cell::from(l.key.last_used_at.clone()),
            ]
        })
        .collect();
    Table {
        name: "keys".into(),
        columns: COLUMNS.to_vec(),
        rows,
    }
}

async fn page(visit: &Visit<'_>, session: &Session, notice: Notice) -> Result<Reply, WebError> {
    let listed = read(visit, session).await?;
    let me = session.person.user.id;
    let problem = match &notice {
        Notice::Problem { param, message } => Some((param.as_str(), message.as_str())),
        _ => None,
    };
    let fmt = visit.fmt();
    let body = html! {
        header.page {
            div {
                h1 { (visit.t("keys-title")) }
                p.muted { (visit.t("keys-lead")) " " code { "/api/v1" } }
            }
            @if !listed.is_empty() { (export::links(visit, "/keys")) }
        }
        @if let Notice::Created(created) = &notice {
            div.card role="status" {
                h2 { (visit.ta("keys-created", &[("id", created.id.into())])) }
                p { strong { (visit.t("keys-copy-now")) } " " (visit.t("keys-kept-hash")) }
                dl.fields {
                    dt { (visit.t("keys-api-key")) } dd { code.secret { (created.key) } }
                    dt { (visit.t("keys-webhook-secret")) } dd { code.secret { (created.webhook_secret) } }
                }
            }
        }
        h2 { (visit.t("keys-keys")) }
        @if listed.is_empty() {
            div.empty { (visit.t("keys-none")) }
        } @else {
            div.table-wrap { table.cards {
                thead { tr {
                    th { (visit.t("keys-key")) } th { (visit.t("keys-owner")) } th { (visit.t("keys-permissions")) }
                    th { (visit.t("keys-cabinets")) } th { (visit.t("keys-webhook")) } th { (visit.t("keys-last-used")) }
                } }
                tbody { @for l in &listed { tr id={ "key-" (l.key.id) } {
                    td data-label=(visit.t("keys-key")) { @if l.key.user_id == me { a href={ "/keys/" (l.key.id) } { "#" (l.key.id) } } @else { "#" (l.key.id) } }
                    td data-label=(visit.t("keys-owner")) { (l.owner) }
                    td data-label=(visit.t("keys-permissions")) {
                        @if l.key.manage { span.badge.active { (visit.t("keys-manage")) } " " } @else { span.badge { (visit.t("keys-read")) } " " }
                        @if l.key.postbacks { span.badge { (visit.t("keys-postbacks")) } " " }
                        @if l.key.partner { span.badge { (visit.t("keys-partner")) } }
                    }
                    td data-label=(visit.t("keys-cabinets")) { @if l.key.scope_all { (visit.t("keys-all")) } @else { (l.cabinets.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")) } }
                    td data-label=(visit.t("keys-webhook")) { @match &l.key.webhook_url { Some(url) => code { (url) }, None => span.muted { (visit.t("keys-no-webhook")) } } }
                    td data-label=(visit.t("keys-last-used")) { @match &l.key.last_used_at { Some(t) => (fmt.time(t)), None => span.muted { (visit.t("keys-never")) } } }
                } } }
            } }
        }
        h2 { (visit.t("keys-new")) }
        form.card method="post" action="/keys" {
            input type="hidden" name="csrf" value=(session.csrf);
            label.check { span { input type="checkbox" name="manage" value="1"; " " (visit.t("keys-new-manage")) } }
            label.check { span { input type="checkbox" name="postbacks" value="1"; " " (visit.t("keys-new-postbacks")) } }
            fieldset {
                legend { (visit.t("keys-cabinets")) }
                label.check { span { input type="radio" name="scope" value="all" checked; " " (visit.t("keys-scope-all")) } }
                label.check { span { input type="radio" name="scope" value="chosen"; " " (visit.t("keys-scope-chosen")) } }
                @for r in session.person.active() {
                    label.check.sub { span { input type="checkbox" name="cabinet" value=(r.cabinet.id); " " (r.cabinet.name) } }
                }
                (field_error(problem, "cabinets"))
            }
            label { (visit.t("keys-new-webhook")) input type="text" name="webhook_url" placeholder="https://example.com/adcab"; }
            (field_error(problem, "webhook-url"))
            (field_error(problem, "user"))
            button.primary type="submit" { (visit.t("keys-create")) }
        }
        h2 { (visit.t("keys-tracker")) }
        form.card method="post" action="/tracker/rotate" {
            input type="hidden" name="csrf" value=(session.csrf);
            p.muted { (visit.t("keys-tracker-lead")) }
            button type="submit" { (visit.t("keys-tracker-new")) }
        }
    };
    let title = visit.t("keys-title");
    let reply = layout::page(visit, session, "/keys", &title, body);
    Ok(match notice {
        Notice::Problem { .. } => reply.with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY),
        _ => reply,
    })
}

/// The refusal's sentence under the field it names.
fn field_error(problem: Option<(&str, &str)>, param: &str) -> Markup {
    html! {
        @if let Some((p, message)) = problem {
            @if p == param { p.error role="alert" data-param=(param) { (message) } }
        }
    }
}

/// `POST /keys`: a new key of the person's own.
pub async fn create<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let chosen: Vec<i64> = form
        .pairs()
        .iter()
        .filter(|(k, _)| k == "cabinet")
        .filter_map(|(_, v)| v.parse().ok())
        .collect();
    let new = NewKey {
        user: session.person.user.id,
        manage: form.get("manage") == Some("1"),
        postbacks: form.get("postbacks") == Some("1"),
        cabinets: (form.get("scope") == Some("chosen")).then_some(chosen),
        partner: false,
        webhook_url: form
            .get("webhook_url")
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .map(str::to_string),
    };
    match panel_op(visit, move |s| ops::key_create(s, &new)).await {
        Ok(created) => page(visit, session, Notice::Created(created)).await,
        Err(e) => page(visit, session, refusal(e)?).await,
    }
}

/// A panel refusal as a notice beside its field; a store failure stays an error.
fn refusal(e: OpsError) -> Result<Notice, WebError> {
    match e {
        OpsError::Invalid(e) => Ok(Notice::Problem {
            param: e.param,
            message: sentence(&e.message),
        }),
        e => Err(internal(e)),
    }
}

/// The person's own live key named by the path, or `404`.
async fn own_key(visit: &Visit<'_>, session: &Session, id: &str) -> Result<KeyRow, WebError> {
    let id: i64 = id.parse().map_err(|_| WebError::NotFound)?;
    let by = By::Person(session.person.user.id);
    let found = visit
        .state
        .services
        .db
        .read(move |conn| ops::key_of(conn, by, id))
        .await;
    found.map_err(ops_error)
}

/// What a key's page shows once: a new secret, a test delivery's outcome, or a refusal.
enum Shown {
    None,
    Secret(String),
    Tested(ops::Pinged),
    Problem(String),
}

/// `GET /keys/{id}`.
pub async fn show<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let key = own_key(visit, session, args[0]).await?;
    key_page(visit, session, key, Shown::None).await
}

async fn key_page(
    visit: &Visit<'_>,
    session: &Session,
    key: KeyRow,
    shown: Shown,
) -> Result<Reply, WebError> {
    let id = key.id;
    let log: Vec<Delivery> = visit
        .state
        .services
        .db
        .read(move |conn| deliveries::recent(conn, id, LOG))
        .await?;
    let csrf = &session.csrf;
    let fmt = visit.fmt();
    let title = visit.ta("keys-key-title", &[("id", id.into())]);
    let body = html! {
        header.page { div {
            p.muted { a href="/keys" { (visit.t("keys-title")) } }
            h1 { (title) }
        } }
        @match &shown {
            Shown::Secret(secret) => div.card role="status" {
                p { strong { (visit.t("keys-secret-new")) } } p { code.secret { (secret) } }
                p.muted { (visit.t("keys-secret-signed")) }
            },
            Shown::Tested(p) => div.card role="status" {
                p { (visit.t("keys-test-delivery")) " " code { (p.delivery) } ": "
                    @match p.status {
                        Some(st) => { (visit.ta("keys-test-answered", &[("status", i64::from(st).into())])) },
                        None => { (visit.t("keys-test-no-answer")) },
                    } }
            },
            Shown::Problem(message) => p.error role="alert" data-param="webhook-url" { (message) },
            Shown::None => {},
        }
        div.grid {
            form.card method="post" action={ "/keys/" (id) "/webhook" } {
                input type="hidden" name="csrf" value=(csrf);
                label { (visit.t("keys-webhook-url"))
                    input type="text" name="webhook_url" value=(key.webhook_url.clone().unwrap_or_default()); }
                button.primary type="submit" { (visit.t("common-save")) }
            }
            div.card {
                form method="post" action={ "/keys/" (id) "/test" } {
                    input type="hidden" name="csrf" value=(csrf);
                    button type="submit" disabled[key.webhook_url.is_none()] { (visit.t("keys-test")) }
                }
                form method="post" action={ "/keys/" (id) "/secret" } {
                    input type="hidden" name="csrf" value=(csrf);
                    button type="submit" { (visit.t("keys-secret-rotate")) }
                }
                form method="post" action={ "/keys/" (id) "/revoke" } {
                    input type="hidden" name="csrf" value=(csrf);
                    button type="submit" { (visit.t("keys-revoke")) }
                }
            }
        }
        h2 { (visit.t("keys-deliveries")) }
        @if log.is_empty() {
            div.empty { (visit.t("keys-deliveries-none")) }
        } @else {
            div.table-wrap { table.cards {
                thead { tr {
                    th { (visit.t("keys-when")) } th { (visit.t("keys-event")) } th { (visit.t("keys-delivery")) }
                    th.num { (visit.t("keys-attempts")) } th.num { (visit.t("keys-status")) } th.num { (visit.t("keys-ms")) }
                    th { (visit.t("keys-error")) }
                } }
                tbody { @for d in &log { tr {
                    td data-label=(visit.t("keys-when")) { (fmt.time(&d.at)) }
                    td data-label=(visit.t("keys-event")) { (d.event) }
                    td data-label=(visit.t("keys-delivery")) { code { (d.delivery) } }
                    td.num data-label=(visit.t("keys-attempts")) { (fmt.count(d.attempts)) }
                    td.num data-label=(visit.t("keys-status")) { @match d.status { Some(st) => (st), None => "–" } }
                    td.num data-label=(visit.t("keys-ms")) { (fmt.count(d.duration_ms)) }
                    td data-label=(visit.t("keys-error")) { @if let Some(e) = &d.error { span.error { (e) } } }
                } } }
            } }
        }
    };
    Ok(layout::page(visit, session, "/keys", &title, body))
}

/// `POST /keys/{id}/webhook`: sets or removes the key's webhook URL.
pub async fn webhook<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let key = own_key(visit, session, args[0]).await?;
    let (id, by) = (key.id, By::Person(session.person.user.id));
    let url = match form.get("webhook_url").map(str::trim).unwrap_or("") {
        "" => WebhookUrl::None,
        url => WebhookUrl::Url(url.to_string()),
    };
    let change = KeyChange {
        webhook_url: Some(url),
        ..KeyChange::default()
    };
    match panel_op(visit, move |s| ops::key_set(s, by, id, &change)).await {
        Ok(_) => Ok(redirect(&format!("/keys/{id}"))),
        Err(OpsError::Invalid(e)) => {
            let page = key_page(visit, session, key, Shown::Problem(sentence(&e.message))).await?;
            Ok(page.with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY))
        }
        Err(e) => Err(internal(e)),
    }
}

/// `POST /keys/{id}/test`: the Test button.
pub async fn test<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let key = own_key(visit, session, args[0]).await?;
    let (id, by) = (key.id, By::Person(session.person.user.id));
    let shown = match panel_op(visit, move |s| ops::key_ping(s, by, id)).await {
        Ok(pinged) => Shown::Tested(pinged),
        Err(OpsError::Invalid(e)) => Shown::Problem(sentence(&e.message)),
        Err(e) => return Err(internal(e)),
    };
    key_page(visit, session, key, shown).await
}

/// `POST /keys/{id}/secret`: a new webhook secret, shown once.
pub async fn secret<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let key = own_key(visit, session, args[0]).await?;
    let (id, by) = (key.id, By::Person(session.person.user.id));
    let rotated = panel_op(visit, move |s| ops::key_rotate_secret(s, by, id))
        .await
        .map_err(internal)?;
    key_page(visit, session, key, Shown::Secret(rotated.webhook_secret)).await
}

/// `POST /keys/{id}/revoke`.
pub async fn revoke<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let id = own_key(visit, session, args[0]).await?.id;
    let by = By::Person(session.person.user.id);
    panel_op(visit, move |s| ops::key_revoke(s, by, id))
        .await
        .map_err(internal)?;
    Ok(redirect("/keys"))
}

/// `POST /tracker/rotate`: a new tracker URL, shown once.
pub async fn tracker<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let me = session.person.user.id;
    let tracker = panel_op(visit, move |s| ops::tracker_rotate(s, me))
        .await
        .map_err(internal)?;
    let body = html! {
        header.page { div { p.muted { a href="/keys" { (visit.t("keys-title")) } } h1 { (visit.t("keys-tracker-new-title")) } } }
        div.card role="status" {
            p { strong { (visit.t("keys-tracker-copy")) } " " (visit.t("keys-tracker-old")) }
            p { code.secret { (tracker.path) } }
        }
    };
    let title = visit.t("keys-tracker");
    Ok(layout::page(visit, session, "/keys", &title, body))
}
