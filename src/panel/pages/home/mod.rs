//! Owns `/`, the home page of a logged-in person: what needs their attention over the cabinets
//! they reach (`attention`), then the totals per client and currency for the period they pick
//! (`totals`), with ROAS, profit and a total in the reporting currency (`reporting`; the
//! cabinets' owner's choice, or the operator's when they are several owners'),
//! `?format=csv|xlsx` downloading the totals (`download`). Viewing the page marks the list read
//! (`users.attention_seen_at`): what happened after the previous look is marked new.

mod attention;
mod download;
mod lines;
mod reporting;
mod totals;

use maud::html;

use super::super::export::Format;
use super::super::session::Session;
use super::super::{layout, Visit, WebError};
use crate::clock;
use crate::http::Reply;
use crate::store::attention as seen;

pub async fn show<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let format = Format::requested(visit)?;
    let reach = session.person.reach.clone();
    let user = session.person.user.id;
    let zone = visit.zone.unwrap_or(chrono_tz::Tz::UTC);
    let q = |name: &str| visit.query.text(name).map(str::to_string);
    let (period, from, to) = (q("period"), q("from"), q("to"));
    let with_attention = format.is_none();
    // The owner's reporting currency when every cabinet shown is one owner's.
    let default = visit.state.services.config.rates.reporting_currency;
    let (now, chosen, lines, across, found, asks) = visit
        .state
        .services
        .db
        .read(move |conn| {
            let now = clock::now(conn)?;
            let chosen = totals::choose(
                period.as_deref(),
                from.as_deref(),
                to.as_deref(),
                totals::today(zone, now),
            );
            let lines = totals::gather(conn, &reach, &chosen, zone)?;
            let currency = crate::ops::reporting_currency(conn, &default, &reach)?;
            let across = reporting::gather(conn, &lines, &currency, chosen.last)?;
            let found = if with_attention {
                Some(attention::gather(conn, &reach, user, now)?)
            } else {
                None
            };
            let asks = pending(conn, &reach, now)?;
            Ok::<_, crate::store::StoreError>((now, chosen, lines, across, found, asks))
        })
        .await?;
    if let Some(format) = format {
        return download::table(&chosen, &lines, &across).reply(format);
    }
    let previous = session.person.user.attention_seen_at;
    let at = now.timestamp();
    visit
        .state
        .services
        .db
        .write(move |tx| seen::mark_seen(tx, user, at))
        .await?;
    let title = visit.t("home-title");
    let body = html! {
        header.page {
            div {
                h1 { (title) }
                p.muted { (visit.t("home-lead")) }
            }
        }
        @if session.person.reach.is_empty() {
            div.empty { p { (visit.t("home-no-cabinets")) } }
        } @else {
            (super::proposals::section(visit, session, &asks))
            @if let Some(found) = &found {
                (attention::render(visit, session, found, previous))
            }
            (totals::render(visit, &chosen, &lines, &across))
        }
    };
    Ok(layout::page(visit, session, "/", &title, body))
}

/// The pending proposals of the cabinets the person manages.
fn pending(
    conn: &rusqlite::Connection,
    reach: &[crate::store::cabinets::Reachable],
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Vec<crate::store::proposals::Named>, crate::store::StoreError> {
    let ids: Vec<i64> = reach
        .iter()
        .filter(|r| r.access.can_write())
        .map(|r| r.cabinet.id)
        .collect();
    crate::store::proposals::named(conn, None, &ids, &clock::iso(now))
}
