//! Owns the rules' proposals in the panel: the home page's list of those pending in the
//! cabinets the person manages (rule, campaign, change, readings, when it expires) with
//! Approve and Reject forms, and `POST /proposals/{id}/approve|reject`, which decide one
//! through `ops::proposals` (as the bot and the API do) and return to the home page.

use maud::{html, Markup};

use super::super::session::Session;
use super::super::{redirect, Form, Visit, WebError};
use crate::http::Reply;
use crate::ops::proposal_text;
use crate::ops::proposals::{self, Choice, ProposalError, Via};
use crate::store::proposals::Named;

/// The pending proposals' section of the home page; nothing when there are none.
pub fn section(visit: &Visit, session: &Session, list: &[Named]) -> Markup {
    let fmt = visit.fmt();
    html! {
        @if !list.is_empty() {
            section.proposals aria-labelledby="home-proposals" {
                h2 #home-proposals { (visit.t("proposals-title")) }
                p.muted { (visit.t("proposals-lead")) }
                ul.proposals {
                    @for n in list {
                        @let p = &n.row;
                        @let kind = session.person.reach.iter()
                            .find(|r| r.cabinet.id == p.account_id)
                            .map(|r| r.cabinet.cabinet_type);
                        li.proposal data-proposal=(p.id) {
                            p.what {
                                strong { (n.rule_name) } ": "
                                @if let Some(kind) = kind {
                                    (proposal_text::change(visit.lang, &p.change, kind))
                                }
                                " · "
                                a href={ "/campaigns/" (p.account_id) "/" (p.ad_id) } {
                                    (n.title) " #" (p.ad_id)
                                }
                            }
                            p.muted.readings {
                                (visit.t("proposals-readings")) " " (proposal_text::readings(&p.matched))
                            }
                            p.muted.expires {
                                (visit.t("proposals-expires")) " " (fmt.time(&p.expires_at))
                            }
                            div.actions {
                                form method="post" action={ "/proposals/" (p.id) "/approve" } {
                                    input type="hidden" name="csrf" value=(session.csrf);
                                    button.primary type="submit" { (visit.t("proposals-approve")) }
                                }
                                form method="post" action={ "/proposals/" (p.id) "/reject" } {
                                    input type="hidden" name="csrf" value=(session.csrf);
                                    button type="submit" { (visit.t("proposals-reject")) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `POST /proposals/{id}/approve`.
pub async fn approve<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    decide(visit, session, args, Choice::Approve).await
}

/// `POST /proposals/{id}/reject`.
pub async fn reject<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    decide(visit, session, args, Choice::Reject).await
}

async fn decide(
    visit: &Visit<'_>,
    session: &Session,
    args: &[&str],
    choice: Choice,
) -> Result<Reply, WebError> {
    let id: i64 = args
        .first()
        .and_then(|a| a.parse().ok())
        .ok_or(WebError::NotFound)?;
    let user = session.person.user.id;
    let done = visit
        .state
        .panel_work(move |s| proposals::decide(s, user, Via::Panel, id, choice))
        .await?;
    match done {
        Ok(_) => Ok(redirect(&format!("/?decided={id}#home-proposals"))),
        Err(ProposalError::NotFound) => Err(WebError::NotFound),
        Err(ProposalError::NoAccess(e)) => Err(WebError::Denied(e)),
        Err(ProposalError::Decided(state)) => Err(WebError::Conflict(visit.ta(
            "proposals-already",
            &[("state", visit.t(&format!("proposal-state-{state}")).into())],
        ))),
        Err(ProposalError::Store(e)) => Err(e.into()),
    }
}
