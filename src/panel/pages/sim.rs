//! Owns `/sim`, while the simulator is the platform (a trial): the service clock with buttons
//! that move it on (an hour, six, a day, a week; the hourly sync then catches up as it does
//! after any jump), and the campaigns in review in the person's cabinets with Approve and
//! Decline, so a campaign's whole life can be watched from the browser.

use maud::html;

use super::super::format::time;
use super::super::session::Session;
use super::super::{layout, redirect, Form, Visit, WebError};
use super::{internal, panel_op};
use crate::clock;
use crate::domain::campaign::Status;
use crate::http::Reply;
use crate::ops;
use crate::store::campaigns::{self, ListFilter, Page, SortKey};

/// The advance buttons: seconds and label.
const STEPS: [(i64, &str); 4] = [
    (3600, "+1 hour"),
    (6 * 3600, "+6 hours"),
    (86_400, "+1 day"),
    (7 * 86_400, "+1 week"),
];
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
                campaigns::list(conn, &filter, &page)?.0,
            ))
        })
        .await?;
    let csrf = &session.csrf;
    let moves = moves_the_clock(session);
    let body = html! {
        header.page { div {
            h1 { "Simulator" }
            p.muted { "This adcab runs on its built-in simulator: a trial. Move its clock on and decide reviews to watch campaigns deliver." }
        } }
        div.card {
            h2 { "Service clock" }
            p { "Now: " (time(&clock::iso(now))) }
            @if moves {
                form.filters method="post" action="/sim/advance" {
                    input type="hidden" name="csrf" value=(csrf);
                    @for (seconds, label) in STEPS {
                        button type="submit" name="seconds" value=(seconds) { (label) }
                    }
                }
            } @else {
                p.muted { "The clock is shared by every cabinet; a person who may change one of their cabinets moves it." }
            }
        }
        h2 { "In review" }
        @if waiting.is_empty() {
            div.empty { "Nothing waits for review in your cabinets." }
        } @else {
            div.table-wrap { table {
                thead { tr { th { "Campaign" } th { "Cabinet" } th { "Text" } th {} } }
                tbody { @for c in &waiting { tr id={ "review-" (c.account_id) "-" (c.ad_id) } {
                    td { a href={ "/campaigns/" (c.account_id) "/" (c.ad_id) } { (c.title) } }
                    td { (session.person.cabinet(c.account_id).map(|r| r.cabinet.name.as_str()).unwrap_or("")) }
                    td { (c.text) }
                    td { form.filters method="post" action={ "/sim/review/" (c.account_id) "/" (c.ad_id) } {
                        input type="hidden" name="csrf" value=(csrf);
                        button.primary type="submit" name="decision" value="approve" { "Approve" }
                        button type="submit" name="decision" value="decline" { "Decline" }
                    } }
                } } }
            } }
        }
    };
    Ok(layout::page(visit, session, "/sim", "Simulator", body))
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
        return Err(WebError::Forbidden(
            "The simulator's clock is shared by every cabinet: only a person who may change one of their cabinets moves it.".into(),
        ));
    }
    let seconds = form
        .get("seconds")
        .and_then(|s| s.parse::<i64>().ok())
        .filter(|s| STEPS.iter().any(|(step, _)| step == s))
        .ok_or_else(|| WebError::BadRequest("Choose one of the offered steps.".into()))?;
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
        _ => return Err(WebError::BadRequest("Approve or decline.".into())),
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
