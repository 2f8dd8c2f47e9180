//! Owns `/team` (agency owners): the members of the person's team with their access to each
//! shared cabinet; inviting a person by email (created when new, given a one-time link shown
//! once on the page and sent to their Telegram chat when they have one); a new link for a
//! member who has not set a password yet (the invitation in the language the owner chose for
//! the person, their own by default); changing a member's access and taking a cabinet, or
//! the whole team place, away. Team access is changed here, never on the command line.

use maud::{html, Markup};

use super::super::export::{self, Cell, Table};
use super::super::session::Session;
use super::super::{layout, redirect, Form, Visit, WebError};
use super::{ops_error, panel_op};
use crate::domain::access::Access;
use crate::http::Reply;
use crate::i18n::{Arg, Lang};
use crate::ops::people::{self, Invitation, Invited};
use crate::ops::{self, OpsError, TeamAccess};
use crate::store::alerts::{Due, Outcome};
use crate::store::users::{self, User};
use crate::store::{invites, sessions, teams, StoreError};

/// One member and what the agency shares with them.
struct Member {
    user: User,
    shares: Vec<(i64, Access)>,
    has_password: bool,
    /// The owner may make a new invitation link for them (see `ops::people::invite_link`).
    linkable: bool,
}

/// A refusal beside one of the page's fields, with the invitation form as it was sent.
struct Problem<'f> {
    field: &'static str,
    message: String,
    sent: Option<&'f Form>,
}

/// What happened to the link sent to the person's Telegram chat.
enum Sent {
    Yes,
    NoChat,
    NoBot,
    NoAddress,
    Failed,
}

/// An invitation made: shown once, with its link.
struct Made {
    invited: Invited,
    link: Option<String>,
    sent: Sent,
}

fn agency_only(visit: &Visit, session: &Session) -> Result<i64, WebError> {
    if session.person.is_agency_owner() {
        Ok(session.person.user.id)
    } else {
        Err(WebError::Forbidden(visit.t("people-team-only-agency")))
    }
}

pub async fn show<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    if let Some(format) = export::Format::requested(visit)? {
        let agency = agency_only(visit, session)?;
        return download(&members_of(visit, agency).await?).reply(format);
    }
    page(visit, session, None, None).await
}

/// The agency's members, each with their shares of its cabinets and whether a link may be made.
async fn members_of(visit: &Visit<'_>, agency: i64) -> Result<Vec<Member>, WebError> {
    visit
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
                    let has_password = sessions::password_of(conn, user.id)?.is_some();
                    let linkable = !has_password && invites::invited_by(conn, user.id, agency)?;
                    Ok(Member {
                        user,
                        shares,
                        has_password,
                        linkable,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()
        })
        .await
        .map_err(WebError::from)
}

/// The team as a download: a line per member and cabinet shared with them (a member with none
/// has one line without a cabinet).
fn download(members: &[Member]) -> Table {
    let mut rows = Vec::new();
    for m in members {
        let line = |share: Option<&(i64, Access)>| {
            vec![
                Cell::Int(m.user.id),
                Cell::from(m.user.email.as_str()),
                Cell::from(share.map(|(c, _)| *c)),
                Cell::from(share.map(|(_, a)| a.as_str())),
                Cell::Text(m.has_password.to_string()),
            ]
        };
        if m.shares.is_empty() {
            rows.push(line(None));
        }
        rows.extend(m.shares.iter().map(|s| line(Some(s))));
    }
    Table {
        name: "team".into(),
        columns: vec!["user_id", "email", "account_id", "access", "has_password"],
        rows,
    }
}

async fn page(
    visit: &Visit<'_>,
    session: &Session,
    problem: Option<Problem<'_>>,
    made: Option<Made>,
) -> Result<Reply, WebError> {
    let agency = agency_only(visit, session)?;
    let members = members_of(visit, agency).await?;
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
    let beside = |field: &str| match &problem {
        Some(p) if p.field == field => {
            html! { p.error role="alert" data-param=(p.field) { (p.message) } }
        }
        _ => html! {},
    };
    let sent = problem.as_ref().and_then(|p| p.sent);
    let sent_email = sent.and_then(|f| f.get("email")).unwrap_or("");
    let ticked = |id: i64| sent.is_some_and(|f| f.all("cabinet").any(|c| c == id.to_string()));
    let sent_access = match sent.and_then(|f| f.get("access")) {
        Some("manager") => Access::Manager,
        _ => Access::Viewer,
    };
    let sent_language = sent
        .and_then(|f| f.get("language"))
        .and_then(Lang::parse)
        .unwrap_or(visit.lang);
    let csrf = &session.csrf;
    let title = visit.t("people-team-title");
    let body = html! {
        header.page {
            div {
                h1 { (title) }
                p.muted { (visit.t("people-team-lead")) }
            }
            @if !members.is_empty() { (export::links(visit, "/team")) }
        }
        @if let Some(made) = &made { (made_box(visit, made)) }
        @if let Some(p) = &problem { @if p.field == "member" || p.field == "team" { p.error role="alert" data-param=(p.field) { (p.message) } } }
        @if members.is_empty() {
            div.empty { (visit.t("people-team-empty")) }
        } @else {
            div.table-wrap { table.cards {
                thead { tr {
                    th { (visit.t("people-team-person")) }
                    th { (visit.t("people-team-access")) }
                    th { (visit.t("people-team-actions")) }
                } }
                tbody { @for m in &members { tr id={ "member-" (m.user.id) } {
                    td data-label=(visit.t("people-team-person")) {
                        (m.user.email)
                        @if !m.has_password { br; span.muted { (visit.t("people-team-no-password")) } }
                    }
                    td data-label=(visit.t("people-team-access")) { @for (cabinet, access) in &m.shares {
                        form.filters method="post" action={ "/team/" (m.user.id) "/access" } {
                            input type="hidden" name="csrf" value=(csrf);
                            input type="hidden" name="cabinet" value=(cabinet);
                            span { (name(*cabinet)) }
                            (access_select(visit, *access))
                            button type="submit" { (visit.t("people-team-save")) }
                            button type="submit" name="remove" value="1" { (visit.t("people-team-take-away")) }
                        }
                    } }
                    td data-label=(visit.t("people-team-actions")) {
                        @if m.linkable {
                            form method="post" action={ "/team/" (m.user.id) "/link" } {
                                input type="hidden" name="csrf" value=(csrf);
                                button type="submit" { (visit.t("people-team-new-link")) }
                            }
                        }
                        form method="post" action={ "/team/" (m.user.id) "/remove" } {
                            input type="hidden" name="csrf" value=(csrf);
                            button type="submit" { (visit.t("people-team-remove")) }
                        }
                    }
                } } }
            } }
        }
        h2 { (visit.t("people-invite-title")) }
        form.card method="post" action="/team/invite" {
            input type="hidden" name="csrf" value=(csrf);
            p.muted { (visit.t("people-invite-lead")) }
            label { (visit.t("people-invite-email")) input type="email" name="email" value=(sent_email) autocomplete="off" required; }
            (beside("email"))
            fieldset {
                legend { (visit.t("people-invite-cabinets")) }
                @if own.is_empty() { p.muted { (visit.t("people-invite-no-cabinets")) } }
                @for (id, n) in &own {
                    label.check { input type="checkbox" name="cabinet" value=(id) checked[ticked(*id) || own.len() == 1]; " " (n) }
                }
            }
            (beside("cabinet"))
            label { (visit.t("people-invite-access")) (access_select(visit, sent_access)) }
            (beside("access"))
            label { (visit.t("people-invite-language"))
                select name="language" {
                    @for lang in Lang::ALL {
                        option value=(lang.code()) selected[lang == sent_language] { (visit.t(language_key(lang))) }
                    }
                }
            }
            p.muted { (visit.t("people-invite-language-help")) }
            (beside("language"))
            button.primary type="submit" { (visit.t("people-invite-submit")) }
        }
    };
    let reply = layout::page(visit, session, "/team", &title, body);
    Ok(match problem {
        Some(_) => reply.with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY),
        None => reply,
    })
}

/// The invitation just made: who, the link (once) and whether it reached their Telegram.
fn made_box(visit: &Visit, made: &Made) -> Markup {
    let who = [("email", Arg::from(made.invited.email.as_str()))];
    let said = if made.invited.created {
        visit.ta("people-invited-new", &who)
    } else {
        visit.ta("people-invited-existing", &who)
    };
    let token = made.invited.token.as_deref();
    let sent = match made.sent {
        Sent::Yes => "people-invite-sent",
        Sent::NoChat => "people-invite-not-sent-no-chat",
        Sent::NoBot => "people-invite-not-sent-no-bot",
        Sent::NoAddress => "people-invite-not-sent-no-address",
        Sent::Failed => "people-invite-not-sent-failed",
    };
    html! {
        section.card.invited role="status" {
            p { (said) }
            @match token {
                Some(token) => {
                    @let shown = made.link.clone().unwrap_or_else(|| format!("/invite/{token}"));
                    label { (visit.t("people-invite-link"))
                        input type="text" readonly value=(shown) id="invite-link";
                    }
                    p.muted { (visit.t("people-invite-link-once")) }
                    p { (visit.t(sent)) }
                }
                None => p { (visit.t("people-invited-no-link")) },
            }
        }
    }
}

fn access_select(visit: &Visit, current: Access) -> Markup {
    html! {
        select name="access" {
            option value="manager" selected[current == Access::Manager] { (visit.t("people-team-manager")) }
            option value="viewer" selected[current == Access::Viewer] { (visit.t("people-team-viewer")) }
        }
    }
}

fn access_of(visit: &Visit, form: &Form) -> Result<TeamAccess, (&'static str, String)> {
    match form.get("access") {
        Some("manager") => Ok(TeamAccess::Manager),
        Some("viewer") => Ok(TeamAccess::Viewer),
        _ => Err(("access", visit.t("people-team-pick-access"))),
    }
}

/// The language chosen for the invitation; left out, the inviter's own.
fn language_of(visit: &Visit, form: &Form) -> Result<Lang, (&'static str, String)> {
    match form.get("language").filter(|l| !l.is_empty()) {
        None => Ok(visit.lang),
        Some(code) => {
            Lang::parse(code).ok_or_else(|| ("language", visit.t("people-settings-language-bad")))
        }
    }
}

/// The catalogue key of a language's own name.
fn language_key(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "people-settings-language-en",
        Lang::Ru => "people-settings-language-ru",
    }
}

fn cabinet_of(visit: &Visit, form: &Form) -> Result<i64, (&'static str, String)> {
    form.get("cabinet")
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| ("cabinet", visit.t("people-team-not-yours")))
}

/// An operation's refusal of a team change, beside the field it names, in the person's words.
fn refusal(visit: &Visit, e: OpsError) -> Result<(&'static str, String), WebError> {
    match e {
        OpsError::Invalid(e) => Ok(match e.param.as_str() {
            "email" => ("email", visit.t("people-invite-email-self")),
            "cabinet" => ("cabinet", visit.t("people-team-not-yours")),
            _ => ("member", visit.t("people-team-no-place")),
        }),
        e => Err(ops_error(e)),
    }
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
        Err(e) => {
            // Shown above the members: the invitation form's fields are not this form's.
            let (_, message) = refusal(visit, e)?;
            let problem = Problem {
                field: "team",
                message,
                sent: None,
            };
            page(visit, session, Some(problem), None).await
        }
    }
}

/// Sends the link to the person's Telegram chat, if they have one and adcab has a bot.
async fn send_link(visit: &Visit<'_>, session: &Session, invited: &Invited) -> Sent {
    let notify = visit.state.services.config.notify.clone();
    let (Some(token), Some(chat)) = (invited.token.as_deref(), invited.chat) else {
        return Sent::NoChat;
    };
    if notify.bot_token.is_empty() {
        return Sent::NoBot;
    }
    let Some(link) = people::link_url(&visit.state.services.config.panel.public_url, token) else {
        return Sent::NoAddress;
    };
    let lang = invited.language.unwrap_or(visit.lang);
    let agency = session.person.user.email.as_str();
    let text = lang.ta(
        "people-invite-message",
        &[("agency", Arg::from(agency)), ("link", Arg::from(link))],
    );
    let due = Due {
        id: 0,
        chat_id: chat,
        text,
        attempts: 0,
    };
    let outcome = crate::db::in_request(move || crate::jobs::notify::send(&notify, &due)).await;
    match outcome {
        Outcome::Sent => Sent::Yes,
        Outcome::Retry { why, .. } | Outcome::Undeliverable(why) | Outcome::Failed(why) => {
            tracing::warn!(chat, %why, "invitation link not sent");
            Sent::Failed
        }
    }
}

/// Shows the invitation just made, with its link once.
async fn made(visit: &Visit<'_>, session: &Session, invited: Invited) -> Result<Reply, WebError> {
    let sent = send_link(visit, session, &invited).await;
    let link = invited
        .token
        .as_deref()
        .and_then(|t| people::link_url(&visit.state.services.config.panel.public_url, t));
    let made = Made {
        invited,
        link,
        sent,
    };
    // The link is in this page only; no cache keeps a panel page (`Cache-Control: no-store`).
    page(visit, session, None, Some(made)).await
}

/// `POST /team/invite`: `email`, one or more `cabinet`s of the owner's, `access`.
pub async fn invite<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let agency = agency_only(visit, session)?;
    let email = form.get("email").unwrap_or("").trim().to_string();
    let own: Vec<i64> = session
        .person
        .reach
        .iter()
        .filter(|r| r.access == Access::Owner)
        .map(|r| r.cabinet.id)
        .collect();
    let cabinets: Vec<i64> = form.all("cabinet").filter_map(|c| c.parse().ok()).collect();
    let refused = if !people::is_email(&email) {
        Some(("email", visit.t("people-invite-email-invalid")))
    } else if cabinets.is_empty() {
        Some(("cabinet", visit.t("people-invite-pick-cabinet")))
    } else if !cabinets.iter().all(|c| own.contains(c)) {
        Some(("cabinet", visit.t("people-team-not-yours")))
    } else {
        None
    };
    let read = match refused {
        Some(problem) => Err(problem),
        None => access_of(visit, form).and_then(|a| Ok((a, language_of(visit, form)?))),
    };
    let (access, language) = match read {
        Ok(read) => read,
        Err((field, message)) => {
            let problem = Problem {
                field,
                message,
                sent: Some(form),
            };
            return page(visit, session, Some(problem), None).await;
        }
    };
    let invitation = Invitation {
        email,
        cabinets,
        access,
        language,
    };
    match panel_op(visit, move |s| people::invite(s, agency, &invitation)).await {
        Ok(invited) => made(visit, session, invited).await,
        Err(e) => {
            let (field, message) = refusal(visit, e)?;
            let problem = Problem {
                field,
                message,
                sent: Some(form),
            };
            page(visit, session, Some(problem), None).await
        }
    }
}

/// `POST /team/{member}/link`: a new invitation link for a member without a password.
pub async fn link<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let agency = agency_only(visit, session)?;
    let member: i64 = args[0].parse().map_err(|_| WebError::NotFound)?;
    match panel_op(visit, move |s| people::invite_link(s, agency, member)).await {
        Ok(invited) => made(visit, session, invited).await,
        Err(OpsError::Invalid(_)) => {
            let problem = Problem {
                field: "member",
                message: visit.t("people-team-not-member"),
                sent: None,
            };
            page(visit, session, Some(problem), None).await
        }
        Err(e) => Err(ops_error(e)),
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
    let agency = agency_only(visit, session)?;
    let member: i64 = args[0].parse().map_err(|_| WebError::NotFound)?;
    let (cabinet, access) = match (cabinet_of(visit, form), access_of(visit, form)) {
        (Ok(c), Ok(a)) => (c, a),
        (Err((_, message)), _) | (_, Err((_, message))) => {
            let problem = Problem {
                field: "team",
                message,
                sent: None,
            };
            return page(visit, session, Some(problem), None).await;
        }
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
    let agency = agency_only(visit, session)?;
    let member: i64 = args[0].parse().map_err(|_| WebError::NotFound)?;
    change(visit, session, move |s| {
        ops::member_remove(s, agency, member, None)
    })
    .await
}
