//! Owns the new-campaign form's look-ups, small HTML fragments the page fetches as the person
//! types (htmx): `GET /campaigns/new/lookup?target_type=channels|bots&q=NAME&account_id=N`
//! asks the platform for the channel or bot with that name (its title and picture where the
//! platform gives them, and a button that adds it to the list), and `GET
//! /campaigns/new/link?promote_url=URL` says what the link resolves to, and `GET
//! /campaigns/new/preview` draws the ad's preview from the fields typed so far, and `GET
//! /campaigns/new/cities?countries=CC&city=TEXT&account_id=N` lists the platform's cities of
//! the first country chosen whose name holds the text (each with a button that adds its id).

use maud::html;

use super::super::super::session::Session;
use super::super::super::{Visit, WebError};
use super::super::panel_op;
use super::preview::{card, link_note};
use crate::domain::campaign::TargetType;
use crate::http::Reply;
use crate::ops::lookup::{look_up_cities, look_up_peer};

/// `GET /campaigns/new/lookup`: the channel or bot the platform finds by the name typed, as a
/// fragment, looked up with the chosen cabinet (the first the person reaches without one).
pub async fn peers<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let q = visit.query.get("q").unwrap_or("").trim().to_string();
    let target = match visit.query.get("target_type") {
        Some("bots") => TargetType::Bots,
        _ => TargetType::Channels,
    };
    let to = match target {
        TargetType::Bots => "bots",
        TargetType::Channels | TargetType::Users | TargetType::Search => {
            match visit.query.get("to") {
                Some("exclude_channels") => "exclude_channels",
                Some("audience_channels") => "audience_channels",
                _ => "channels",
            }
        }
    };
    let account = looked_up_with(visit, session)?;
    if q.is_empty() {
        return Ok(Reply::html(String::new()));
    }
    let found = panel_op(visit, move |s| look_up_peer(s, account, target, &q)).await;
    let markup = match found {
        Ok(Some(peer)) => html! {
            ul.lookup-results {
                li {
                    @if let Some(photo) = &peer.photo_url {
                        img.peer-photo src=(photo) alt="" width="32" height="32";
                    }
                    @if let Some(title) = &peer.title { strong { (title) } " " }
                    span.muted { (peer.username) }
                    " "
                    button.small type="button" data-add=(peer.username) data-to=(to) {
                        (visit.t("new-lookup-add"))
                    }
                }
            }
        },
        Ok(None) => html! { p.muted { (visit.t("new-lookup-none")) } },
        Err(e) => {
            tracing::warn!(request_id = %visit.request_id, error = ?e, "panel look-up failed");
            html! { p.muted { (visit.t("new-lookup-failed")) } }
        }
    };
    Ok(Reply::html(markup.into_string()))
}

/// The cabinet a look-up asks the platform with: the one chosen in the form, else the first
/// the person reaches.
fn looked_up_with(visit: &Visit, session: &Session) -> Result<i64, WebError> {
    let chosen = visit.query.get("account_id").and_then(|a| a.parse().ok());
    match chosen.and_then(|a| session.person.cabinet(a)) {
        Some(r) => Ok(r.cabinet.id),
        None => match session.person.active().next() {
            Some(r) => Ok(r.cabinet.id),
            None => Err(WebError::NotFound),
        },
    }
}

/// `GET /campaigns/new/cities`: the cities of the first country chosen (`countries`) whose
/// name holds `city`, as a fragment, each with a button that adds its id to the form's
/// `cities`; asked with the chosen cabinet as `GET /v1/targeting/cities` asks.
pub async fn cities<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let account = looked_up_with(visit, session)?;
    let q = visit.query.get("city").unwrap_or("").trim().to_string();
    let Some(country) = visit.query.get("countries").map(str::to_string) else {
        let note = html! { p.muted { (visit.t("new-cities-country-first")) } };
        return Ok(Reply::html(note.into_string()));
    };
    if q.is_empty() {
        return Ok(Reply::html(String::new()));
    }
    let found = panel_op(visit, move |s| look_up_cities(s, account, &country, &q)).await;
    let markup = match found {
        Ok(list) if list.is_empty() => html! { p.muted { (visit.t("new-cities-none")) } },
        Ok(list) => html! {
            ul.lookup-results.city-results {
                @for city in &list {
                    li {
                        strong { (city.name) }
                        " " span.muted { (city.country) " · " (city.id) }
                        " "
                        button.small type="button" data-add=(city.id) data-to="cities" {
                            (visit.t("new-lookup-add"))
                        }
                    }
                }
            }
        },
        Err(e) => {
            tracing::warn!(request_id = %visit.request_id, error = ?e, "panel city look-up failed");
            html! { p.muted { (visit.t("new-lookup-failed")) } }
        }
    };
    Ok(Reply::html(markup.into_string()))
}

/// `GET /campaigns/new/link`: what `promote_url` resolves to, as a fragment.
pub async fn link<'a>(
    visit: &'a Visit<'a>,
    _: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let url = visit.query.get("promote_url").unwrap_or("");
    Ok(Reply::html(link_note(visit, url).into_string()))
}

/// `GET /campaigns/new/preview`: the preview card of the fields sent, as a fragment.
pub async fn preview<'a>(
    visit: &'a Visit<'a>,
    _: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    Ok(Reply::html(card(visit, &visit.query, 1).into_string()))
}
