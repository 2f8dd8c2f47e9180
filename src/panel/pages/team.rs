//! Owns `/team` (agency owners): the members of the person's team with their access to each
//! shared cabinet, adding a person (an account the operator created) to a cabinet as manager
//! or viewer, changing that access, and taking a cabinet, or the whole team place, away. The
//! same operations as `adcab admin member ...`.

use maud::{html, Markup};

use super::super::session::Session;
use super::super::{layout, redirect, Form, Visit, WebError};
use super::{internal, panel_op, sentence};
use crate::domain::access::Access;
use crate::http::Reply;
use crate::ops::{self, OpsError, TeamAccess};
use crate::store::users::{self, User};
use crate::store::{teams, StoreError};

/// One member and what the agency shares with them.
struct Member {
    user: User,
    shares: Vec<(i64, Access)>,
}

fn agency_only(session: &Session) -> Result<i64, WebError> {
    if session.person.is_agency_owner() {
        Ok(session.person.user.id)
    } else {
        Err(WebError::Forbidden(
            "A team belongs to an owner on the Agency plan.".into(),
        ))
    }
}

pub async fn show<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    page(visit, session, None).await
}

async fn page(
    visit: &Visit<'_>,
    session: &Session,
    problem: Option<(String, String)>,
) -> Result<Reply, WebError> {
    let agency = agency_only(session)?;
    let members = visit
        .state
        .services
        .db
        .read(move |conn| {
            let shares = teams::shares_of(conn, agency)?;
            teams::members(conn, agency)?
                .into_iter()
                .filter_map(|id| users::get(conn, id).transpose())
                .map(|user| {
                    let user = user?;
                    let shares = shares
                        .iter()
                        .filter(|(m, _, _)| *m == user.id)
                        .map(|(_, c, a)| (*c, *a))
                        .collect();
                    Ok(Member { user, shares })
                })
                .collect::<Result<Vec<_>, StoreError>>()
        })
        .await?;
    let own: Vec<(i64, String)> = session
        .person
        .reach
        .iter()
        .filter(|r| r.access == Access::Owner)
        .map(|r| (r.cabinet.id, r.cabinet.name.clone()))
        .collect();
    let name = |id: i64| {
        own.iter()
            .find(|c| c.0 == id)
            .map(|c| c.1.clone())
            .unwrap_or_else(|| id.to_string())
    };
    let csrf = &session.csrf;
    let body = html! {
        header.page { div {
            h1 { "Team" }
            p.muted { "People who work in your cabinets, each with Manager (changes campaigns) or Viewer (reads) access per cabinet." }
        } }
        @if let Some((param, message)) = &problem { p.error role="alert" data-param=(param) { (message) } }
        @if members.is_empty() {
            div.empty { "No one in your team yet. Add a person below." }
        } @else {
            div.table-wrap { table {
                thead { tr { th { "Person" } th { "Cabinets and access" } th {} } }
                tbody { @for m in &members { tr id={ "member-" (m.user.id) } {
                    td { (m.user.email) }
                    td { @for (cabinet, access) in &m.shares {
                        form.filters method="post" action={ "/team/" (m.user.id) "/access" } {
                            input type="hidden" name="csrf" value=(csrf);
                            input type="hidden" name="cabinet" value=(cabinet);
                            span { (name(*cabinet)) }
                            (access_select(*access))
                            button type="submit" { "Save" }
                            button type="submit" name="remove" value="1" { "Take away" }
                        }
                    } }
                    td { form method="post" action={ "/team/" (m.user.id) "/remove" } {
                        input type="hidden" name="csrf" value=(csrf);
                        button type="submit" { "Remove from the team" }
                    } }
                } } }
            } }
        }
        h2 { "Add a person" }
        form.card method="post" action="/team/invite" {
            input type="hidden" name="csrf" value=(csrf);
            p.muted { "The person needs an adcab account first: the operator creates it with " code { "adcab admin user add" } "." }
            label { "Email" input type="email" name="email" required; }
            label { "Cabinet" select name="cabinet" { @for (id, n) in &own { option value=(id) { (n) } } } }
            label { "Access" (access_select(Access::Viewer)) }
            button.primary type="submit" { "Add to the team" }
        }
    };
    let reply = layout::page(visit, session, "/team", "Team", body);
    Ok(match problem {
        Some(_) => reply.with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY),
        None => reply,
    })
}

fn access_select(current: Access) -> Markup {
    html! {
        select name="access" {
            option value="manager" selected[current == Access::Manager] { "Manager" }
            option value="viewer" selected[current == Access::Viewer] { "Viewer" }
        }
    }
}

fn access_of(form: &Form) -> Result<TeamAccess, (String, String)> {
    match form.get("access") {
        Some("manager") => Ok(TeamAccess::Manager),
        Some("viewer") => Ok(TeamAccess::Viewer),
        _ => Err(("access".into(), "Choose Manager or Viewer.".into())),
    }
}

fn cabinet_of(form: &Form) -> Result<i64, (String, String)> {
    form.get("cabinet")
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| ("cabinet".into(), "Choose one of your cabinets.".into()))
}

/// Runs a team change and answers with the team page: again on success, with the refusal
/// beside the form otherwise.
async fn change(
    visit: &Visit<'_>,
    session: &Session,
    op: impl FnOnce(&crate::services::Services) -> Result<ops::Done, OpsError> + Send + 'static,
) -> Result<Reply, WebError> {
    match panel_op(visit, op).await {
        Ok(_) => Ok(redirect("/team")),
        Err(OpsError::Invalid(e)) => {
            page(visit, session, Some((e.param, sentence(&e.message)))).await
        }
        Err(e) => Err(internal(e)),
    }
}

/// `POST /team/invite`: an existing person, by email, to one of the agency's cabinets.
pub async fn invite<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let agency = agency_only(session)?;
    let email = form.get("email").unwrap_or("").trim().to_string();
    let found = visit
        .state
        .services
        .db
        .read(move |conn| users::by_email(conn, &email))
        .await?;
    let read = (|| Ok((found, cabinet_of(form)?, access_of(form)?)))();
    match read {
        Ok((Some(member), cabinet, access)) => {
            change(visit, session, move |s| {
                ops::member_add(s, agency, member.id, cabinet, access)
            })
            .await
        }
        Ok((None, _, _)) => {
            let why = "No adcab account has this email. The operator adds people with `adcab admin user add`.";
            page(visit, session, Some(("email".into(), why.into()))).await
        }
        Err(problem) => page(visit, session, Some(problem)).await,
    }
}

/// `POST /team/{member}/access`: changes (or with `remove`, takes away) the member's access to
/// one cabinet.
pub async fn access<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let agency = agency_only(session)?;
    let member: i64 = args[0].parse().map_err(|_| WebError::NotFound)?;
    let (cabinet, access) = match (cabinet_of(form), access_of(form)) {
        (Ok(c), Ok(a)) => (c, a),
        (Err(p), _) | (_, Err(p)) => return page(visit, session, Some(p)).await,
    };
    if form.get("remove") == Some("1") {
        return change(visit, session, move |s| {
            ops::member_remove(s, agency, member, Some(cabinet))
        })
        .await;
    }
    change(visit, session, move |s| {
        ops::member_add(s, agency, member, cabinet, access)
    })
    .await
}

/// `POST /team/{member}/remove`: the member leaves the team and every shared cabinet.
pub async fn remove<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let agency = agency_only(session)?;
    let member: i64 = args[0].parse().map_err(|_| WebError::NotFound)?;
    change(visit, session, move |s| {
        ops::member_remove(s, agency, member, None)
    })
    .await
}
