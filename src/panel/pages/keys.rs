//! Owns `/keys` (API & Webhooks): the person's API keys (an agency owner also sees the
//! team's), a new key with its permissions and scope (the key and its webhook secret shown
//! once, on the answer to the form), and per key of their own: the webhook URL, the Test
//! button, a new secret (shown once), revoking it, and its delivery log; and the tracker URL
//! (shown once when rotated). Every change goes through the same operations as
//! `adcab admin key ...`.

use maud::{html, Markup};

use super::super::format::time;
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
    page(visit, session, Notice::None).await
}

async fn page(visit: &Visit<'_>, session: &Session, notice: Notice) -> Result<Reply, WebError> {
    let person = session.person.user.clone();
    let listed = visit
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
        .await?;
    let me = session.person.user.id;
    let problem = match &notice {
        Notice::Problem { param, message } => Some((param.as_str(), message.as_str())),
        _ => None,
    };
    let body = html! {
        header.page { div {
            h1 { "API & Webhooks" }
            p.muted { "Keys for the API under " code { "/api/v1" } ", where each key's webhooks go, and your tracker URL for postbacks." }
        } }
        @if let Notice::Created(created) = &notice {
            div.card role="status" {
                h2 { "Key #" (created.id) " created" }
                p { strong { "Copy them now: they are shown once." } " adcab keeps only the key's SHA-256." }
                dl.fields {
                    dt { "API key" } dd { code.secret { (created.key) } }
                    dt { "Webhook secret" } dd { code.secret { (created.webhook_secret) } }
                }
            }
        }
        h2 { "Keys" }
        @if listed.is_empty() {
            div.empty { "No keys yet. Create one below." }
        } @else {
            div.table-wrap { table {
                thead { tr { th { "Key" } th { "Owner" } th { "Permissions" } th { "Cabinets" } th { "Webhook" } th { "Last used" } } }
                tbody { @for l in &listed { tr id={ "key-" (l.key.id) } {
                    td { @if l.key.user_id == me { a href={ "/keys/" (l.key.id) } { "#" (l.key.id) } } @else { "#" (l.key.id) } }
                    td { (l.owner) }
                    td {
                        @if l.key.manage { span.badge.active { "Manage" } " " } @else { span.badge { "Read" } " " }
                        @if l.key.postbacks { span.badge { "Postbacks" } " " }
                        @if l.key.partner { span.badge { "Partner" } }
                    }
                    td { @if l.key.scope_all { "All" } @else { (l.cabinets.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")) } }
                    td { @match &l.key.webhook_url { Some(url) => code { (url) }, None => span.muted { "none" } } }
                    td { @match &l.key.last_used_at { Some(t) => (time(t)), None => span.muted { "never" } } }
                } } }
            } }
        }
        h2 { "New key" }
        form.card method="post" action="/keys" {
            input type="hidden" name="csrf" value=(session.csrf);
            label { span { input type="checkbox" name="manage" value="1"; " Manage campaigns (writes)" } }
            label { span { input type="checkbox" name="postbacks" value="1"; " Receive postbacks" } }
            fieldset {
                legend { "Cabinets" }
                label { span { input type="radio" name="scope" value="all" checked; " All, including cabinets added later" } }
                label { span { input type="radio" name="scope" value="chosen"; " Only the ticked ones:" } }
                @for r in session.person.active() {
                    label.sub { span { input type="checkbox" name="cabinet" value=(r.cabinet.id); " " (r.cabinet.name) } }
                }
                (field_error(problem, "cabinets"))
            }
            label { "Webhook URL (optional, public https)" input type="text" name="webhook_url" placeholder="https://example.com/adcab"; }
            (field_error(problem, "webhook-url"))
            (field_error(problem, "user"))
            button.primary type="submit" { "Create key" }
        }
        h2 { "Tracker URL" }
        form.card method="post" action="/tracker/rotate" {
            input type="hidden" name="csrf" value=(session.csrf);
            p.muted { "Postbacks from trackers go to a secret URL of yours. A new one replaces the old one at once." }
            button type="submit" { "New tracker URL" }
        }
    };
    let reply = layout::page(visit, session, "/keys", "API & Webhooks", body);
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
    let body = html! {
        header.page { div {
            p.muted { a href="/keys" { "API & Webhooks" } }
            h1 { "Key #" (id) }
        } }
        @match &shown {
            Shown::Secret(secret) => div.card role="status" {
                p { strong { "New webhook secret, shown once:" } } p { code.secret { (secret) } }
                p.muted { "Webhooks are signed with it from now on." }
            },
            Shown::Tested(p) => div.card role="status" {
                p { "Test delivery " code { (p.delivery) } ": "
                    @match p.status { Some(st) => { "answered " (st) }, None => "no answer" } }
            },
            Shown::Problem(message) => p.error role="alert" data-param="webhook-url" { (message) },
            Shown::None => {},
        }
        div.grid {
            form.card method="post" action={ "/keys/" (id) "/webhook" } {
                input type="hidden" name="csrf" value=(csrf);
                label { "Webhook URL (empty: none)"
                    input type="text" name="webhook_url" value=(key.webhook_url.clone().unwrap_or_default()); }
                button.primary type="submit" { "Save" }
            }
            div.card {
                form method="post" action={ "/keys/" (id) "/test" } {
                    input type="hidden" name="csrf" value=(csrf);
                    button type="submit" disabled[key.webhook_url.is_none()] { "Test (send a ping)" }
                }
                form method="post" action={ "/keys/" (id) "/secret" } {
                    input type="hidden" name="csrf" value=(csrf);
                    button type="submit" { "New webhook secret" }
                }
                form method="post" action={ "/keys/" (id) "/revoke" } {
                    input type="hidden" name="csrf" value=(csrf);
                    button type="submit" { "Revoke this key" }
                }
            }
        }
        h2 { "Deliveries" }
        @if log.is_empty() {
            div.empty { "Nothing sent to this key's webhook yet." }
        } @else {
            div.table-wrap { table {
                thead { tr { th { "When" } th { "Event" } th { "Delivery" } th.num { "Attempts" } th.num { "Status" } th.num { "ms" } th { "Error" } } }
                tbody { @for d in &log { tr {
                    td { (time(&d.at)) } td { (d.event) } td { code { (d.delivery) } }
                    td.num { (d.attempts) }
                    td.num { @match d.status { Some(st) => (st), None => "–" } }
                    td.num { (d.duration_ms) }
                    td { @if let Some(e) = &d.error { span.error { (e) } } }
                } } }
            } }
        }
    };
    Ok(layout::page(
        visit,
        session,
        "/keys",
        &format!("Key #{id}"),
        body,
    ))
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
        header.page { div { p.muted { a href="/keys" { "API & Webhooks" } } h1 { "New tracker URL" } } }
        div.card role="status" {
            p { strong { "Copy it now: it is shown once." } " The previous URL no longer takes postbacks." }
            p { code.secret { (tracker.path) } }
        }
    };
    Ok(layout::page(visit, session, "/keys", "Tracker URL", body))
}
