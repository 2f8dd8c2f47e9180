//! Owns a cabinet's monthly statement over HTTP: `GET /v1/cabinets/{account_id}/statement
//! ?month=YYYY-MM` (the last whole month without one), read by any key that reaches the
//! cabinet. The statement is `ops::statement`'s, as the panel's is; this file only writes it
//! as JSON, money as decimal strings in the cabinet's currency.

use serde_json::{json, Value};

use super::error::ApiError;
use super::write::run;
use super::{AppState, Ctx};
use crate::auth::AuthError;
use crate::clock;
use crate::domain::funds::render_transfer;
use crate::http::Reply;
use crate::ops::reports::Reader;
use crate::ops::statement::{self, Peer, Reconciliation, Source, Statement};

/// `GET /v1/cabinets/{account_id}/statement?month=`.
pub async fn show(state: &AppState, ctx: &Ctx, segment: &str) -> Result<Reply, ApiError> {
    let account = crate::domain::id::parse("account_id", segment)?;
    let kind = ctx.principal.cabinet(account)?.cabinet.cabinet_type;
    let reader = Reader::of(&ctx.principal.reach, account)
        .ok_or(ApiError::Auth(AuthError::AccountNotFound))?;
    let asked = ctx.query.text("month").map(str::to_string);
    let made = run(state, kind, move |s| {
        let now = s.db.read_blocking(clock::now)?;
        let month = statement::month_of(asked.as_deref(), now)?;
        statement::statement(s, &reader, month)
    })
    .await?;
    Reply::ok::<ApiError>(json_of(&made))
}

/// The statement as the API answers it.
pub fn json_of(st: &Statement) -> Value {
    let kind = st.kind;
    let money = |m| render_transfer(kind, m);
    let (opening, closing) = match st.source {
        Source::Ledger { opening, closing } => (json!(money(opening)), json!(money(closing))),
        Source::TransfersOnly => (Value::Null, Value::Null),
    };
    let lines: Vec<Value> = st
        .lines
        .iter()
        .map(|l| {
            let peer = match &l.peer {
                Peer::MainAccount => json!({ "type": "main_account" }),
                Peer::Account(title) => json!({ "type": "account", "title": title }),
                Peer::Campaign { ad_id, title } => {
                    json!({ "type": "campaign", "ad_id": ad_id, "title": title })
                }
                Peer::Outside(comment) => json!({ "type": "external", "comment": comment }),
                Peer::Unknown(name) => json!({ "type": "other", "kind": name }),
            };
            json!({
                "at": clock::iso(l.at),
                "kind": l.kind.as_str(),
                "amount": money(l.amount),
                "peer": peer,
            })
        })
        .collect();
    let totals: serde_json::Map<String, Value> = st
        .totals
        .iter()
        .map(|(k, m)| (k.as_str().to_string(), json!(money(*m))))
        .collect();
    let campaigns: Vec<Value> = st
        .campaigns
        .iter()
        .map(|c| json!({ "ad_id": c.ad_id, "title": c.title, "spent": money(c.spent) }))
        .collect();
    let fee = st.fee.as_ref().map(|f| {
        json!({
            "percent": f.percent.normalize().to_string(),
            "platform_spend": f.platform_spend.to_string(),
            "fee": f.fee.to_string(),
            "client_spend": f.client_spend.to_string(),
        })
    });
    let reconciliation = match &st.reconciliation {
        Reconciliation::Compared(found) => json!({
            "status": "compared",
            "differences": found.iter().map(|m| json!({
                "ad_id": m.difference.ad_id,
                "title": m.title,
                "field": m.difference.field,
                "adcab": m.difference.adcab,
                "platform": m.difference.platform,
            })).collect::<Vec<_>>(),
        }),
        Reconciliation::NoReport => json!({ "status": "no_report", "differences": [] }),
        Reconciliation::Failed => json!({ "status": "failed", "differences": [] }),
    };
    json!({
        "account_id": st.account_id,
        "cabinet_name": st.cabinet_name,
        "currency": kind.currency(),
        "month": st.month.to_string(),
        "from": clock::iso(st.from),
        "to": clock::iso(st.to),
        "so_far": st.so_far,
        "balances_known": st.balances().is_some(),
        "opening_balance": opening,
        "closing_balance": closing,
        "lines": lines,
        "totals": totals,
        "campaigns": campaigns,
        "spend": money(st.spend),
        "fee": fee,
        "reconciliation": reconciliation,
    })
}
