//! Owns `/sim`, while the simulator is the platform (a trial): the service clock with buttons
//! that move it on (an hour, six, a day, a week; the hourly sync then catches up as it does
//! after any jump), and the campaigns in review in the person's cabinets with Approve and
//! Decline, so a campaign's whole life can be watched from the browser.

use maud::html;

use super::super::session::Session;
use super::super::{layout, redirect, Form, Visit, WebError};
use super::{internal, panel_op};
use crate::clock;
use crate::domain::campaign::Status;
use crate::http::Reply;
use crate::ops;
use crate::store::campaigns::{self, ListFilter, Page, SortKey};

/// The advance buttons, in seconds.
const STEPS: [i64; 4] = [3600, 6 * 3600, 86_400, 7 * 86_400];

/// An advance button's label in the page's language: `+1 hour`, `+1 час`.
fn step_label(visit: &Visit<'_>, seconds: i64) -> String {
    if seconds % 86_400 == 0 && seconds >= 7 * 86_400 {
        visit.ta(
            "sim-step-weeks",
            &[("count", (seconds / (7 * 86_400)).into())],
        )
    } else if seconds % 86_400 == 0 {
        visit.ta("sim-step-days", &[("count", (seconds / 86_400).into())])
    } else {
        visit.ta("sim-step-hours", &[("count", (seconds / 3600).into())])
    }
}
/// Campaigns in review the page lists.
const IN_REVIEW: i64 = 100;

fn simulator(visit: &Visit<'_>) -> Result<(), WebError> {
    match visit.state.services.sim {
        Some(_) => Ok(()),
        None => Err(WebError::NotFound),
    }
}

/// Whether the person may move the clock every cabinet shares: only one who may change one of
/// their cabinets (a viewer, or a person without a plan or a cabinet, only watches).
fn moves_the_clock(session: &Session) -> bool {
    let person = &session.person;
    person
        .active()
        .any(|r| person.writable(r.cabinet.id).is_ok())
}

pub async fn show<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    simulator(visit)?;
    let accounts: Vec<i64> = session
        .person
        .active()
        .filter(|r| session.person.writable(r.cabinet.id).is_ok())
        .map(|r| r.cabinet.id)
        .collect();
    let orders = visit.state.services.db.figure_orders();
    let (now, waiting) = visit
        .state
        .services
        .db
        .read(move |conn| {
            let filter = ListFilter {
                accounts,
                statuses: Some(vec![Status::InReview]),
                title: None,
                username: None,
                domain: None,
                kind: None,
            };
            let page = Page::Offset {
                offset: 0,
                limit: IN_REVIEW,
                sort: SortKey::Date,
                descending: false,
            };
            Ok::<_, crate::store::StoreError>((
                clock::now(conn)?,
                campaigns::list(conn, &orders, &filter, &page)?.0,
            ))
        })
        .await?;
    let csrf = &session.csrf;
    let moves = moves_the_clock(session);
    let fmt = visit.fmt();
    let body = html! {
        header.page { div {
            h1 { (visit.t("sim-title")) }
            p.muted { (visit.t("sim-lead")) }
        } }
        div.card {
            h2 { (visit.t("sim-clock")) }
            p { (visit.t("sim-now")) " " (fmt.time(&clock::iso(now))) }
            @if moves {
                form.filters.buttons method="post" action="/sim/advance" {
                    input type="hidden" name="csrf" value=(csrf);
                    @for seconds in STEPS {
                        button type="submit" name="seconds" value=(seconds) { (step_label(visit, seconds)) }
                    }
                }
            } @else {
                p.muted { (visit.t("sim-clock-shared")) }
            }
        }
        h2 { (visit.t("sim-in-review")) }
        @if waiting.is_empty() {
            div.empty { (visit.t("sim-nothing-waits")) }
        } @else {
            div.table-wrap { table.cards {
                thead { tr {
                    th { (visit.t("sim-campaign")) } th { (visit.t("sim-cabinet")) }
                    th { (visit.t("sim-text")) } th { (visit.t("sim-decision")) }
                } }
                tbody { @for c in &waiting { tr id={ "review-" (c.account_id) "-" (c.ad_id) } {
                    td data-label=(visit.t("sim-campaign")) { a href={ "/campaigns/" (c.account_id) "/" (c.ad_id) } { (c.title) } }
                    td data-label=(visit.t("sim-cabinet")) { (session.person.cabinet(c.account_id).map(|r| r.cabinet.name.as_str()).unwrap_or("")) }
                    td data-label=(visit.t("sim-text")) { (c.text) }
                    td data-label=(visit.t("sim-decision")) { form.filters.buttons method="post" action={ "/sim/review/" (c.account_id) "/" (c.ad_id) } {
                        input type="hidden" name="csrf" value=(csrf);
                        button.primary type="submit" name="decision" value="approve" { (visit.t("sim-approve")) }
                        button type="submit" name="decision" value="decline" { (visit.t("sim-decline")) }
                    } }
                } } }
            } }
        }
    };
    let title = visit.t("sim-title");
    Ok(layout::page(visit, session, "/sim", &title, body))
}

/// `POST /sim/advance`: moves the service clock on by one of the offered steps, for a person
/// who may change one of their cabinets.
pub async fn advance<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    simulator(visit)?;
    if !moves_the_clock(session) {
        return Err(WebError::Forbidden(visit.t("sim-clock-refused")));
    }
    let seconds = form
        .get("seconds")
        .and_then(|s| s.parse::<i64>().ok())
        .filter(|s| STEPS.contains(s))
        .ok_or_else(|| WebError::BadRequest(visit.t("sim-step-unknown")))?;
    panel_op(visit, move |s| ops::sim_advance(s, seconds))
        .await
        .map_err(internal)?;
    visit.state.wake.notify_one();
    Ok(redirect("/sim"))
}

/// `POST /sim/review/{account_id}/{ad_id}`: approves or declines a campaign in review in a
/// cabinet the person may change.
pub async fn review<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    simulator(visit)?;
    let (Ok(account), Ok(ad)) = (args[0].parse::<i64>(), args[1].parse::<i64>()) else {
        return Err(WebError::NotFound);
    };
    session.person.cabinet(account).ok_or(WebError::NotFound)?;
    session.person.writable(account)?;
    let approve = match form.get("decision") {
        Some("approve") => true,
        Some("decline") => false,
        _ => return Err(WebError::BadRequest(visit.t("sim-decision-unknown"))),
    };
    match panel_op(visit, move |s| {
        ops::sim_review(s, account, ad, approve, None)
    })
    .await
    {
        Ok(_) => Ok(redirect("/sim")),
        Err(e) => Err(internal(e)),
    }
}
