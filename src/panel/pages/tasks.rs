//! Owns `/tasks`: the person's running and recent tasks, each said as a sentence with the
//! campaigns' names and the amount ("Add 10.00 EUR to the budget of Winter sale, Spring sale
//! and 3 more"), how each campaign went (done, or the platform's refusal), who started it and
//! when in the person's time zone; the list as CSV or XLSX; and the forms that cancel a task
//! or resume a paused one. While a task is under way the list refreshes itself every two
//! seconds (htmx; without script, reload).

use std::collections::HashMap;

use maud::{html, Markup};

use super::super::export::{self, Cell, Table};
use super::super::session::Session;
use super::super::{layout, redirect, Form, Visit, WebError};
use super::{internal, panel_op};
use crate::domain::campaign::Source;
use crate::domain::money::{CabinetType, Money};
use crate::domain::task::{BulkAction, Outcome, Payload, TaskStatus};
use crate::http::Reply;
use crate::i18n::Lang;
use crate::ops::{self, By, OpsError};
use crate::panel::format::Fmt;
use crate::store::campaigns;
use crate::store::tasks::{self, Item, Task};
use crate::store::StoreError;

/// Tasks the page lists.
const RECENT: i64 = 50;
/// Campaigns a task's outcome lists (its failures first); the rest are counted.
const SHOWN_ITEMS: usize = 100;

/// What the page reads: the tasks, their processed items and the titles of their campaigns.
struct Found {
    tasks: Vec<Task>,
    items: HashMap<i64, Vec<Item>>,
    titles: HashMap<(i64, i64), String>,
}

/// The campaigns a stored task names, by id (bulk changes) or by the title it creates.
fn subjects(t: &Task) -> Vec<Subject> {
    match Payload::from_json(t.kind, &t.payload) {
        Ok(Payload::Bulk { ad_ids, .. }) => ad_ids.into_iter().map(Subject::Ad).collect(),
        Ok(Payload::Create { campaigns, .. }) => campaigns
            .into_iter()
            .map(|c| Subject::New(c.spec.title))
            .collect(),
        Ok(Payload::Recreate { items }) => items
            .into_iter()
            .map(|i| Subject::New(i.campaign.spec.title))
            .collect(),
        Err(_) => t.ad_ids.iter().copied().map(Subject::Ad).collect(),
    }
}

enum Subject {
    Ad(i64),
    New(String),
}

impl Found {
    fn name(&self, t: &Task, subject: &Subject) -> String {
        match subject {
            Subject::Ad(ad) => self
                .titles
                .get(&(t.account_id, *ad))
                .cloned()
                .unwrap_or_else(|| format!("#{ad}")),
            Subject::New(title) => title.clone(),
        }
    }

    fn names(&self, t: &Task) -> Vec<String> {
        subjects(t).iter().map(|s| self.name(t, s)).collect()
    }
}

async fn read(
    visit: &Visit<'_>,
    owner: i64,
    limit: i64,
    with_items: bool,
) -> Result<Found, WebError> {
    let found = visit.state.services.db.read(move |conn| {
        let tasks = tasks::of_owner(conn, owner, limit)?;
        let ids: Vec<i64> = tasks.iter().map(|t| t.id).collect();
        let listed = if with_items {
            tasks::items(conn, &ids)?
        } else {
            Vec::new()
        };
        let mut wanted: HashMap<i64, Vec<i64>> = HashMap::new();
        for t in &tasks {
            let ads = subjects(t).into_iter().filter_map(|s| match s {
                Subject::Ad(ad) => Some(ad),
                Subject::New(_) => None,
            });
            wanted.entry(t.account_id).or_default().extend(ads);
        }
        let mut titles = HashMap::new();
        for (account, ads) in wanted {
            for (ad, title) in campaigns::titles(conn, account, &ads)? {
                titles.insert((account, ad), title);
            }
        }
        let mut items: HashMap<i64, Vec<Item>> = HashMap::new();
        for (task, item) in listed {
            items.entry(task).or_default().push(item);
        }
        Ok::<_, StoreError>(Found {
            tasks,
            items,
            titles,
        })
    });
    Ok(found.await?)
}

/// Up to two names, then how many more: `Winter sale, Spring sale and 3 more`.
fn names_words(lang: Lang, names: &[String]) -> String {
    let at = |i: usize| names.get(i).cloned().unwrap_or_default();
    match names.len() {
        0 => String::new(),
        1 => lang.ta("tasks-names-one", &[("first", at(0).into())]),
        2 => lang.ta(
            "tasks-names-two",
            &[("first", at(0).into()), ("second", at(1).into())],
        ),
        3 => lang.ta(
            "tasks-names-three",
            &[
                ("first", at(0).into()),
                ("second", at(1).into()),
                ("third", at(2).into()),
            ],
        ),
        n => lang.ta(
            "tasks-names-more",
            &[
                ("first", at(0).into()),
                ("second", at(1).into()),
                ("count", (n - 2).into()),
            ],
        ),
    }
}

/// What a task does, in a sentence of the page's language.
fn summary(fmt: Fmt, kind: Option<CabinetType>, t: &Task, names: &[String]) -> String {
    let lang = fmt.lang;
    let names = names_words(lang, names);
    let amount = |m: Money| match kind {
        Some(kind) => fmt.money(kind, m),
        None => m.to_decimal().to_string(),
    };
    let plain = |key: &str| lang.ta(key, &[("names", names.clone().into())]);
    let priced = |key: &str, m: Money| {
        lang.ta(
            key,
            &[
                ("names", names.clone().into()),
                ("amount", amount(m).into()),
            ],
        )
    };
    match Payload::from_json(t.kind, &t.payload) {
        Ok(Payload::Bulk { action, .. }) => match action {
            BulkAction::Pause => plain("tasks-do-pause"),
            BulkAction::Resume => plain("tasks-do-resume"),
            BulkAction::AddBudget(m) => priced("tasks-do-add-budget", m),
            BulkAction::WithdrawBudget(m) => priced("tasks-do-withdraw-budget", m),
            BulkAction::WithdrawAllBudget => plain("tasks-do-withdraw-all"),
            BulkAction::SetCpm(m) => priced("tasks-do-set-cpm", m),
            BulkAction::SetSchedule(Some(_)) => plain("tasks-do-set-schedule"),
            BulkAction::SetSchedule(None) => plain("tasks-do-clear-schedule"),
            BulkAction::Delete => plain("tasks-do-delete"),
        },
        Ok(Payload::Create { .. }) if t.kind == crate::domain::task::TaskKind::Copy => {
            plain("tasks-do-copy")
        }
        Ok(Payload::Create { .. }) => plain("tasks-do-create"),
        Ok(Payload::Recreate { .. }) => plain("tasks-do-recreate"),
        Err(_) => lang.ta("tasks-do-unknown", &[("kind", t.kind.as_str().into())]),
    }
}

fn status_key(s: TaskStatus) -> &'static str {
    match s {
        TaskStatus::Pending => "tasks-status-pending",
        TaskStatus::Running => "tasks-status-running",
        TaskStatus::Paused => "tasks-status-paused",
        TaskStatus::Completed => "tasks-status-completed",
        TaskStatus::Failed => "tasks-status-failed",
        TaskStatus::Cancelled => "tasks-status-cancelled",
    }
}

fn source_key(s: Source) -> &'static str {
    match s {
        Source::Api => "tasks-by-api",
        Source::Task => "tasks-by-task",
        Source::Panel => "tasks-by-panel",
        Source::Automation => "tasks-by-automation",
        Source::Sync => "tasks-by-sync",
        Source::Operator => "tasks-by-operator",
        Source::System => "tasks-by-system",
        Source::Telegram => "tasks-by-telegram",
    }
}

pub async fn list<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let owner = session.person.user.id;
    let format = export::Format::requested(visit)?;
    let limit = match format {
        Some(_) => i64::try_from(export::MAX_ROWS).unwrap_or(i64::MAX),
        None => RECENT,
    };
    let found = read(visit, owner, limit, format.is_none()).await?;
    let reach = |id: i64| session.person.reach.iter().find(|r| r.cabinet.id == id);
    let cabinet = |id: i64| reach(id).map_or_else(|| id.to_string(), |r| r.cabinet.name.clone());
    let kind = |id: i64| reach(id).map(|r| r.cabinet.cabinet_type);
    let fmt = visit.fmt();
    if let Some(format) = format {
        return download(&found, fmt, &kind).reply(format);
    }
    let busy = found.tasks.iter().any(|t| !t.status.is_final());
    let title = visit.t("tasks-title");
    let body = html! {
        header.page {
            div {
                h1 { (title) }
                p.muted { (visit.t("tasks-lead")) }
            }
            @if !found.tasks.is_empty() { (export::links(visit, "/tasks")) }
        }
        div id="tasks" hx-get=[busy.then_some("/tasks")] hx-trigger=[busy.then_some("every 2s")]
            hx-select="#tasks" hx-swap="outerHTML" {
            @if found.tasks.is_empty() {
                div.empty {
                    p { (visit.t("tasks-empty")) }
                    p { (visit.t("tasks-empty-hint")) " " a href="/campaigns" { (visit.t("tasks-empty-link")) } }
                }
            } @else {
                div.table-wrap { table.cards.tasks {
                    thead { tr {
                        th { (visit.t("tasks-col-task")) } th { (visit.t("tasks-col-cabinet")) }
                        th { (visit.t("tasks-col-status")) } th.num { (visit.t("tasks-col-progress")) }
                        th.num { (visit.t("tasks-col-done")) } th.num { (visit.t("tasks-col-failed")) }
                        th { (visit.t("tasks-col-created")) } th {}
                    } }
                    tbody {
                        @for t in &found.tasks {
                            (line(visit, session, &found, t, &cabinet(t.account_id), kind(t.account_id)))
                        }
                    }
                } }
            }
        }
    };
    Ok(layout::page(visit, session, "/tasks", &title, body))
}

fn line(
    visit: &Visit<'_>,
    session: &Session,
    found: &Found,
    t: &Task,
    cabinet: &str,
    kind: Option<CabinetType>,
) -> Markup {
    let fmt = visit.fmt();
    let class = match t.status {
        TaskStatus::Completed => "active",
        TaskStatus::Running | TaskStatus::Pending => "review",
        TaskStatus::Paused => "paused",
        TaskStatus::Failed => "declined",
        TaskStatus::Cancelled => "",
    };
    let subjects = subjects(t);
    let names: Vec<String> = subjects.iter().map(|s| found.name(t, s)).collect();
    let items = found
        .items
        .get(&t.id)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let (failed, done): (Vec<&Item>, Vec<&Item>) = items.iter().partition(|i| i.error.is_some());
    let shown = failed.into_iter().chain(done).take(SHOWN_ITEMS);
    let unlisted = items.len().saturating_sub(SHOWN_ITEMS);
    let label = |key: &str| visit.t(key);
    html! {
        tr id={ "task-" (t.id) } {
            td.task data-label=(label("tasks-col-task")) {
                strong.summary { (summary(fmt, kind, t, &names)) }
                br; span.muted { "#" (t.id) " · " (visit.t(source_key(t.source))) }
                @if !items.is_empty() {
                    details.items {
                        summary { (visit.ta("tasks-items", &[("done", items.len().into()), ("total", t.total.into())])) }
                        ul {
                            @for item in shown {
                                @let idx = usize::try_from(item.idx).ok();
                                @let name = match (item.ad_id, idx.and_then(|i| subjects.get(i))) {
                                    (_, Some(s)) => found.name(t, s),
                                    (Some(ad), None) => format!("#{ad}"),
                                    (None, None) => format!("#{}", item.idx + 1),
                                };
                                li.item data-idx=(item.idx) {
                                    @match (&item.ad_id, &item.error) {
                                        (Some(ad), None) => a href={ "/campaigns/" (t.account_id) "/" (ad) } { (name) },
                                        _ => (name),
                                    }
                                    ": "
                                    @match &item.error {
                                        None => span.ok { (visit.t("tasks-item-ok")) },
                                        Some(why) => span.error { (visit.ta("tasks-item-failed", &[("reason", outcome(visit, why).into())])) },
                                    }
                                }
                            }
                        }
                        @if unlisted > 0 { p.muted { (visit.ta("tasks-items-more", &[("count", unlisted.into())])) } }
                    }
                }
            }
            td data-label=(label("tasks-col-cabinet")) { (cabinet) }
            td data-label=(label("tasks-col-status")) {
                span class={ "badge " (class) } { (visit.t(status_key(t.status))) }
                @if let Some(why) = &t.paused_reason { br; span.muted { (outcome(visit, why)) } }
                @if let Some(error) = &t.error { br; span.error.outcome { (outcome(visit, error)) } }
            }
            td.num data-label=(label("tasks-col-progress")) {
                progress value=(t.progress) max=(t.total.max(1)) {} " " (t.progress) "/" (t.total)
            }
            td.num data-label=(label("tasks-col-done")) { (fmt.count(t.succeeded.unwrap_or(0))) }
            td.num data-label=(label("tasks-col-failed")) { (fmt.count(t.failed.unwrap_or(0))) }
            td data-label=(label("tasks-col-created")) { (fmt.time(&t.created_at)) }
            td data-label=(label("tasks-col-actions")) {
                @if !t.status.is_final() {
                    form method="post" action={ "/tasks/" (t.id) "/cancel" } {
                        input type="hidden" name="csrf" value=(session.csrf);
                        button type="submit" { (visit.t("tasks-cancel")) }
                    }
                }
                @if t.status == TaskStatus::Paused {
                    form method="post" action={ "/tasks/" (t.id) "/resume" } {
                        input type="hidden" name="csrf" value=(session.csrf);
                        button.primary type="submit" { (visit.t("tasks-resume")) }
                    }
                }
            }
        }
    }
}

/// The list as a download: one row per task, the API's field names, the sentence beside.
fn download(found: &Found, fmt: Fmt, kind: &dyn Fn(i64) -> Option<CabinetType>) -> Table {
    let rows = found.tasks.iter().map(|t| {
        let names = found.names(t);
        let action = t.payload["action"].as_str().map(str::to_string);
        vec![
            Cell::Int(t.id),
            t.kind.as_str().into(),
            action.into(),
            t.status.as_str().into(),
            Cell::Int(t.account_id),
            summary(fmt, kind(t.account_id), t, &names).into(),
            Cell::Int(t.total),
            Cell::Int(t.progress),
            t.succeeded.into(),
            t.failed.into(),
            t.source.as_str().into(),
            t.created_at.clone().into(),
            t.completed_at.clone().into(),
        ]
    });
    Table {
        name: "tasks".into(),
        columns: vec![
            "id",
            "type",
            "action",
            "status",
            "account_id",
            "summary",
            "total",
            "progress",
            "succeeded",
            "failed",
            "source",
            "created_at",
            "completed_at",
        ],
        rows: rows.take(export::MAX_ROWS).collect(),
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
        Err(OpsError::Invalid(e)) => Err(WebError::Conflict(super::why::worded(visit.lang, &e))),
        Err(e) => Err(internal(e)),
    }
}

/// A task's stored outcome (its error, why it paused, an item's error) in the person's
/// language; a text the task kept as it was said (the platform's reason) as it is.
fn outcome(visit: &Visit, stored: &str) -> String {
    match Outcome::read(stored) {
        Outcome::CabinetGone => visit.t("tasks-outcome-cabinet-gone"),
        Outcome::CabinetInactive => visit.t("tasks-outcome-cabinet-inactive"),
        Outcome::SessionExpired => visit.t("tasks-outcome-session-expired"),
        Outcome::PlatformSilent => visit.t("tasks-outcome-platform-silent"),
        Outcome::Unreadable => visit.t("tasks-outcome-unreadable"),
        Outcome::OutOfBalance { item } => visit.ta(
            "tasks-outcome-out-of-balance",
            &[("item", item.saturating_add(1).into())],
        ),
        Outcome::NoSuchCampaign => visit.t("tasks-outcome-no-such-campaign"),
        Outcome::NotDeclined => visit.t("tasks-outcome-not-declined"),
        Outcome::AdBalance => visit.t("tasks-outcome-ad-balance"),
        Outcome::AutoCpmLocked => visit.t("tasks-outcome-auto-cpm-locked"),
        Outcome::ViewerZone => visit.t("tasks-outcome-viewer-zone"),
        Outcome::Said(text) => text,
    }
}
