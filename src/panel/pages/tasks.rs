//! Owns `/tasks`: the person's running and recent tasks with their progress and the error of
//! each failed item, and the forms that cancel a task or resume a paused one. While a task
//! is under way the list refreshes itself every two seconds (htmx; without script, reload).

use maud::{html, Markup};

use super::super::format::{count, time};
use super::super::session::Session;
use super::super::{layout, redirect, Form, Visit, WebError};
use super::{internal, panel_op};
use crate::domain::task::TaskStatus;
use crate::http::Reply;
use crate::ops::{self, By, OpsError};
use crate::store::tasks::{self, Task};

/// Tasks the page lists.
const RECENT: i64 = 50;

pub async fn list<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let owner = session.person.user.id;
    let found = visit
        .state
        .services
        .db
        .read(move |conn| tasks::of_owner(conn, owner, RECENT))
        .await?;
    let cabinet = |id: i64| {
        session
            .person
            .reach
            .iter()
            .find(|r| r.cabinet.id == id)
            .map(|r| r.cabinet.name.clone())
            .unwrap_or_else(|| id.to_string())
    };
    let busy = found.iter().any(|t| !t.status.is_final());
    let body = html! {
        header.page {
            div {
                h1 { "Tasks" }
                p.muted { "Bulk changes and campaign creation run as tasks, one campaign at a time. Your 50 most recent." }
            }
        }
        div id="tasks" hx-get=[busy.then_some("/tasks")] hx-trigger=[busy.then_some("every 2s")]
            hx-select="#tasks" hx-swap="outerHTML" {
            @if found.is_empty() {
                div.empty { p { "No tasks yet." } p { "Select campaigns on the " a href="/campaigns" { "campaign list" } " and apply an action: it runs here." } }
            } @else {
                div.table-wrap { table {
                    thead { tr {
                        th { "Task" } th { "Cabinet" } th { "Status" } th.num { "Progress" }
                        th.num { "Done" } th.num { "Failed" } th { "Created" } th { "Errors" } th {}
                    } }
                    tbody {
                        @for t in &found { (line(session, t, &cabinet(t.account_id))) }
                    }
                } }
            }
        }
    };
    Ok(layout::page(visit, session, "/tasks", "Tasks", body))
}

fn line(session: &Session, t: &Task, cabinet: &str) -> Markup {
    let class = match t.status {
        TaskStatus::Completed => "active",
        TaskStatus::Running | TaskStatus::Pending => "review",
        TaskStatus::Paused => "paused",
        TaskStatus::Failed => "declined",
        TaskStatus::Cancelled => "",
    };
    html! {
        tr id={ "task-" (t.id) } {
            td { "#" (t.id) " " (t.payload.get("action").and_then(|a| a.as_str()).unwrap_or(t.kind.as_str())) }
            td { (cabinet) }
            td {
                span class={ "badge " (class) } { (t.status.as_str()) }
                @if let Some(why) = &t.paused_reason { br; span.muted { (why) } }
                @if let Some(error) = &t.error { br; span.error { (error) } }
            }
            td.num { progress value=(t.progress) max=(t.total.max(1)) {} " " (t.progress) "/" (t.total) }
            td.num { (count(t.succeeded.unwrap_or(0))) }
            td.num { (count(t.failed.unwrap_or(0))) }
            td { (time(&t.created_at)) }
            td {
                @for e in &t.errors {
                    div.error { @if let Some(ad) = e.ad_id { "#" (ad) ": " } (e.error) }
                }
            }
            td {
                @if !t.status.is_final() {
                    form method="post" action={ "/tasks/" (t.id) "/cancel" } {
                        input type="hidden" name="csrf" value=(session.csrf);
                        button type="submit" { "Cancel" }
                    }
                }
                @if t.status == TaskStatus::Paused {
                    form method="post" action={ "/tasks/" (t.id) "/resume" } {
                        input type="hidden" name="csrf" value=(session.csrf);
                        button.primary type="submit" { "Resume" }
                    }
                }
            }
        }
    }
}

/// `POST /tasks/{id}/cancel`.
pub async fn cancel<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    change(visit, session, args[0], ops::task_cancel).await
}

/// `POST /tasks/{id}/resume`.
pub async fn resume<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    change(visit, session, args[0], ops::task_resume).await
}

/// Cancels or resumes a task of the person's own (the operation refuses another's as if it
/// were not there, as the API lets only its owner read it).
async fn change(
    visit: &Visit<'_>,
    session: &Session,
    id: &str,
    act: fn(&crate::services::Services, By, i64) -> Result<ops::TaskState, OpsError>,
) -> Result<Reply, WebError> {
    let id: i64 = id.parse().map_err(|_| WebError::NotFound)?;
    let by = By::Person(session.person.user.id);
    match panel_op(visit, move |services| act(services, by, id)).await {
        Ok(_) => Ok(redirect("/tasks")),
        Err(OpsError::Invalid(e)) => Err(WebError::Conflict(e.message)),
        Err(e) => Err(internal(e)),
    }
}
