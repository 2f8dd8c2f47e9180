//! Owns `/cabinets`: every cabinet the person reaches, with its currency, balance and state,
//! its campaigns by status, and its spend today and over the last 7 days.

use chrono::Duration;
use maud::html;

use super::super::format::{count, money};
use super::super::session::Session;
use super::super::{layout, Visit, WebError};
use crate::clock;
use crate::domain::campaign::Status;
use crate::domain::stats::Totals;
use crate::domain::time::iso;
use crate::http::Reply;
use crate::store::cabinets::Reachable;
use crate::store::{campaigns, stats, StoreError};

/// One cabinet's line.
struct Line {
    cabinet: Reachable,
    by_status: Vec<(Status, i64)>,
    today: Totals,
    week: Totals,
}

pub async fn list<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let reach = session.person.reach.clone();
    let lines = visit
        .state
        .services
        .db
        .read(move |conn| {
            let now = clock::now(conn)?;
            let day = now
                .date_naive()
                .and_hms_opt(0, 0, 0)
                .expect("midnight")
                .and_utc();
            let (today, week, to) = (
                iso(day),
                iso(now - Duration::days(7)),
                iso(now + Duration::hours(1)),
            );
            reach
                .into_iter()
                .map(|cabinet| {
                    let id = cabinet.cabinet.id;
                    Ok(Line {
                        by_status: campaigns::count_by_status(conn, id)?,
                        today: stats::of_cabinet(conn, id, &today, &to)?,
                        week: stats::of_cabinet(conn, id, &week, &to)?,
                        cabinet,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()
        })
        .await?;
    let body = html! {
        header.page {
            div {
                h1 { "Cabinets" }
                p.muted { "Ad accounts you reach, with their money and campaigns. Spend is counted in UTC days of the service clock." }
            }
        }
        @if lines.is_empty() {
            div.empty {
                p { "No cabinets yet." }
                p { "Cabinets are connected by the operator (" code { "adcab admin cabinet add" } "), or shared with you by your agency." }
            }
        } @else {
            div.table-wrap {
                table {
                    thead { tr {
                        th { "Cabinet" } th { "State" } th.num { "Balance" } th { "Campaigns" }
                        th.num { "Spend today" } th.num { "Spend, 7 days" } th { "Your access" }
                    } }
                    tbody {
                        @for line in &lines {
                            @let c = &line.cabinet.cabinet;
                            tr {
                                td {
                                    a href={ "/campaigns?account_id=" (c.id) } { (c.name) }
                                    br; span.muted { (c.id) " · " (c.cabinet_type.currency()) }
                                }
                                td {
                                    @if !c.is_active { span.badge { "Inactive" } }
                                    @else if c.locked { span.badge.locked { "Locked" } }
                                    @else if c.auth_expired { span.badge.expired { "Session expired" } }
                                    @else { span.badge.active { "Active" } }
                                }
                                td.num { (money(c.cabinet_type, c.balance)) }
                                td {
                                    @if line.by_status.is_empty() { span.muted { "none" } }
                                    @for (i, (status, n)) in line.by_status.iter().enumerate() {
                                        @if i > 0 { " · " }
                                        a href={ "/campaigns?account_id=" (c.id) "&status=" (status.as_str()) } {
                                            (count(*n)) " " (status.as_str())
                                        }
                                    }
                                }
                                td.num { (money(c.cabinet_type, line.today.spent)) }
                                td.num { (money(c.cabinet_type, line.week.spent)) }
                                td { (line.cabinet.access.as_str()) }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok(layout::page(visit, session, "/cabinets", "Cabinets", body))
}
