//! Owns agency money in the panel: opening a client cabinet from `/cabinets` (a form with the
//! API's field names), and a client cabinet's money page `/cabinets/{id}/money`: both
//! balances, a move of money in (or, for the owner, out) with a confirmation step that shows
//! both balances before and after, the cabinet's transfers and the platform's transactions.
//! The work is `ops::funds`'s, as the API's is.

use maud::{html, Markup};
use serde_json::{json, Map, Value};

use super::super::session::Session;
use super::super::{layout, redirect, Form, Visit, WebError};
use super::{ops_error, panel_op};
use crate::domain::access::Access;
use crate::domain::campaign::Source;
use crate::domain::funds::{render_transfer, Direction, FundsMove, RelatedInfo};
use crate::domain::money::{CabinetType, Money};
use crate::http::Reply;
use crate::ops::funds::{self, FundsRefusal, Opener};
use crate::ops::{Actor, OpsError};
use crate::platform::TransactionPeer;
use crate::store::cabinets::{self, AgencyRole, Cabinet, Reachable};
use crate::store::transfers::{self, TransferRow};

const FIELDS: [(&str, &str); 7] = [
    ("title", "funds-field-title"),
    ("full_name", "funds-field-full-name"),
    ("email", "funds-field-email"),
    ("phone_number", "funds-field-phone"),
    ("country", "funds-field-country"),
    ("city", "funds-field-city"),
    ("legal_name", "funds-field-legal-name"),
];

/// The "open a client cabinet" form for the main accounts `mains` of the person.
pub fn open_form(visit: &Visit<'_>, session: &Session, mains: &[(i64, String)]) -> Markup {
    html! {
        details.card #open-client {
            summary { (visit.t("funds-open-title")) }
            form method="post" action="/cabinets/clients" {
                input type="hidden" name="csrf" value=(session.csrf);
                input type="hidden" name="token" value=(uuid::Uuid::new_v4().simple());
                label { (visit.t("funds-main-account"))
                    select name="account_id" {
                        @for (id, name) in mains { option value=(id) { (name) " · " (id) } }
                    }
                }
                @for (name, label) in FIELDS {
                    label { (visit.t(label))
                        input name=(name) required[name != "legal_name"] maxlength="256";
                    }
                }
                button type="submit" { (visit.t("funds-open")) }
            }
        }
    }
}

fn form_json(form: &Form, names: &[&str]) -> Value {
    let mut map = Map::new();
    for name in names {
        if let Some(v) = form.text(name).filter(|v| !v.trim().is_empty()) {
            map.insert((*name).to_string(), json!(v));
        }
    }
    Value::Object(map)
}

fn id_arg(arg: &str) -> Result<i64, WebError> {
    arg.parse().map_err(|_| WebError::NotFound)
}

/// `POST /cabinets/clients`: opens a client cabinet under the person's main account.
pub async fn open<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let main = form
        .text("account_id")
        .and_then(|t| t.parse::<i64>().ok())
        .ok_or(WebError::NotFound)?;
    let names: Vec<&str> = FIELDS.iter().map(|(n, _)| *n).collect();
    let info = RelatedInfo::read(&form_json(form, &names)).map_err(|e| ops_error(e.into()))?;
    let user = session.person.user.id;
    let token = format!("panel:{user}:{}", form.text("token").unwrap_or_default());
    let by = Opener {
        source: Source::Panel,
        user: Some(user),
    };
    let cabinet = panel_op(visit, move |s| {
        funds::open_related(s, by, main, &info, &token)
    })
    .await
    .map_err(ops_error)?;
    Ok(redirect(&format!("/cabinets/{}/money", cabinet.id)))
}

/// A client cabinet the person reaches, its main account and the transfers so far.
struct Client {
    reach: Reachable,
    main: Cabinet,
}

async fn client(visit: &Visit<'_>, session: &Session, id: i64) -> Result<Client, WebError> {
    let reach = session
        .person
        .cabinet(id)
        .cloned()
        .ok_or(WebError::NotFound)?;
    let main = visit
        .state
        .services
        .db
        .read(move |c| {
            Ok::<_, crate::store::StoreError>(match cabinets::agency_role(c, id)? {
                Some(AgencyRole::Related { main }) => cabinets::get(c, main)?,
                _ => None,
            })
        })
        .await?
        .ok_or_else(|| ops_error(OpsError::Funds(FundsRefusal::NotClientCabinet)))?;
    Ok(Client { reach, main })
}

fn status_word(visit: &Visit<'_>, t: &TransferRow) -> String {
    visit.t(&format!("funds-status-{}", t.status.as_str()))
}

/// `GET /cabinets/{id}/money[?cursor=]`.
pub async fn page<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let id = id_arg(args[0])?;
    let Client { reach, main } = client(visit, session, id).await?;
    let c = &reach.cabinet;
    let kind = c.cabinet_type;
    let list = visit
        .state
        .services
        .db
        .read(move |conn| transfers::of_cabinet(conn, id, 50))
        .await?;
    let cursor = visit.query.text("cursor").map(str::to_string);
    let asked = cursor.clone();
    let page = panel_op(visit, move |s| {
        funds::transactions(s, id, asked.as_deref(), 20)
    })
    .await;
    let fmt = visit.fmt();
    let may_write = session.person.writable(id).is_ok();
    let owner = reach.access == Access::Owner;
    let money = |m: Money| render_transfer(kind, m);
    let body = html! {
        header.page { div {
            p.muted { a href="/cabinets" { (visit.t("cabinets-title")) } }
            h1 { (c.name) }
            p.muted { (visit.t("funds-lead")) }
            p { a #statement-link href={ "/reports/" (id) "/statement" } { (visit.t("statement-link")) } }
        } }
        div.card {
            p { (visit.t("funds-main-balance")) " (" (main.name) "): " strong { (fmt.money(kind, main.balance)) } }
            p { (visit.t("funds-balance")) ": " strong #client-balance { (fmt.money(kind, c.balance)) } }
        }
        @if may_write {
            form.card method="post" action={ "/cabinets/" (id) "/money/confirm" } {
                input type="hidden" name="csrf" value=(session.csrf);
                label { (visit.t("funds-amount")) " (" (kind.currency()) ")"
                    input name="amount" inputmode="decimal" required;
                }
                label { (visit.t("funds-direction"))
                    select name="direction" {
                        option value="in" { (visit.t("funds-in")) }
                        @if owner { option value="out" { (visit.t("funds-out")) } }
                    }
                }
                button type="submit" { (visit.t("funds-review")) }
            }
        }
        h2 { (visit.t("funds-transfers")) }
        @if list.is_empty() { p.muted { (visit.t("funds-none")) } } @else {
            div.table-wrap { table.cards #transfers {
                thead { tr { th { (visit.t("funds-when")) } th { (visit.t("funds-direction")) } th.num { (visit.t("funds-amount")) } th { (visit.t("funds-status")) } } }
                tbody { @for t in &list { tr {
                    td data-label=(visit.t("funds-when")) { (t.requested_at) }
                    td data-label=(visit.t("funds-direction")) { (visit.t(if t.direction == Direction::In { "funds-in" } else { "funds-out" })) }
                    td.num data-label=(visit.t("funds-amount")) { (money(t.amount)) " " (kind.currency()) }
                    td data-label=(visit.t("funds-status")) { (status_word(visit, t)) }
                } } }
            } }
        }
        h2 { (visit.t("funds-transactions")) }
        @match &page {
            Err(_) => p.muted { (visit.t("funds-unreadable")) },
            Ok(p) if p.items.is_empty() => p.muted { (visit.t("funds-none")) },
            Ok(p) => {
                div.table-wrap { table.cards {
                    thead { tr { th { (visit.t("funds-when")) } th { (visit.t("funds-peer")) } th.num { (visit.t("funds-amount")) } } }
                    tbody { @for t in &p.items { tr {
                        td data-label=(visit.t("funds-when")) { (crate::clock::iso(t.at)) }
                        td data-label=(visit.t("funds-peer")) { (peer(visit, &t.peer)) }
                        td.num data-label=(visit.t("funds-amount")) { (t.amount.render(kind.scale())) " " (kind.currency()) }
                    } } }
                } }
                @if let Some(next) = &p.next {
                    p { a href={ "/cabinets/" (id) "/money?cursor=" (next) } { (visit.t("funds-next-page")) } }
                }
            }
        }
    };
    let title = visit.t("funds-title");
    Ok(layout::page(visit, session, "/cabinets", &title, body))
}

fn peer(visit: &Visit<'_>, p: &TransactionPeer) -> String {
    match p {
        TransactionPeer::External(Some(c)) => format!("{} ({c})", visit.t("funds-peer-external")),
        TransactionPeer::External(None) => visit.t("funds-peer-external"),
        TransactionPeer::MainAccount => visit.t("funds-peer-main"),
        TransactionPeer::Related { title, .. } => title.clone(),
        TransactionPeer::Ad { title, ad_id } => format!("{title} ({ad_id})"),
        TransactionPeer::Other(kind) => kind.clone(),
    }
}

fn read_move(form: &Form, kind: CabinetType) -> Result<FundsMove, WebError> {
    FundsMove::read(&form_json(form, &["amount", "direction"]), kind)
        .map_err(|e| ops_error(e.into()))
}

/// `POST /cabinets/{id}/money/confirm`: both balances before and after, and the button that
/// moves the money.
pub async fn confirm<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let id = id_arg(args[0])?;
    session.person.writable(id)?;
    let Client { reach, main } = client(visit, session, id).await?;
    let kind = reach.cabinet.cabinet_type;
    let mv = read_move(form, kind)?;
    if mv.direction == Direction::Out && reach.access != Access::Owner {
        return Err(ops_error(OpsError::Funds(FundsRefusal::OwnerOnly)));
    }
    let (main_after, after) = match mv.direction {
        Direction::In => (
            main.balance.checked_sub(mv.amount),
            reach.cabinet.balance.checked_add(mv.amount),
        ),
        Direction::Out => (
            main.balance.checked_add(mv.amount),
            reach.cabinet.balance.checked_sub(mv.amount),
        ),
    };
    let show = |m: Option<Money>| {
        m.map_or_else(
            || "—".into(),
            |m| format!("{} {}", render_transfer(kind, m), kind.currency()),
        )
    };
    let now = |m: Money| format!("{} {}", render_transfer(kind, m), kind.currency());
    let body = html! {
        header.page { div {
            p.muted { a href={ "/cabinets/" (id) "/money" } { (reach.cabinet.name) } }
            h1 { (visit.t("funds-confirm-title")) }
            p { (visit.t(if mv.direction == Direction::In { "funds-in" } else { "funds-out" })) ": " strong { (now(mv.amount)) } }
        } }
        div.table-wrap { table.cards #confirm {
            thead { tr { th {} th.num { (visit.t("funds-before")) } th.num { (visit.t("funds-after")) } } }
            tbody {
                tr { td { (visit.t("funds-main-balance")) " (" (main.name) ")" }
                    td.num data-label=(visit.t("funds-before")) { (now(main.balance)) }
                    td.num data-label=(visit.t("funds-after")) { (show(main_after)) } }
                tr { td { (reach.cabinet.name) }
                    td.num data-label=(visit.t("funds-before")) { (now(reach.cabinet.balance)) }
                    td.num data-label=(visit.t("funds-after")) { (show(after)) } }
            }
        } }
        form method="post" action={ "/cabinets/" (id) "/money" } {
            input type="hidden" name="csrf" value=(session.csrf);
            input type="hidden" name="token" value=(uuid::Uuid::new_v4().simple());
            input type="hidden" name="amount" value=(mv.amount.render(0));
            input type="hidden" name="direction" value=(mv.direction.as_str());
            button type="submit" #confirm-move { (visit.t("funds-confirm")) }
            " " a href={ "/cabinets/" (id) "/money" } { (visit.t("funds-cancel")) }
        }
    };
    let title = visit.t("funds-confirm-title");
    Ok(layout::page(visit, session, "/cabinets", &title, body))
}

/// `POST /cabinets/{id}/money`: moves the money (once per confirmation), then the money page.
pub async fn move_money<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    form: &'a Form,
    args: &'a [&'a str],
) -> Result<Reply, WebError> {
    let id = id_arg(args[0])?;
    let reach = session.person.writable(id)?;
    let actor = Actor::writer(Source::Panel, session.person.user.id, reach)?;
    let mv = read_move(form, reach.cabinet.cabinet_type)?;
    let token = format!(
        "panel:{}:{}",
        session.person.user.id,
        form.text("token").unwrap_or_default()
    );
    panel_op(visit, move |s| funds::move_funds(s, &actor, mv, &token))
        .await
        .map_err(ops_error)?;
    Ok(redirect(&format!("/cabinets/{id}/money")))
}
