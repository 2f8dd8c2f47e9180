//! Owns agency money over HTTP: `POST /v1/cabinets` (open a client cabinet under the owner's
//! main account), `POST /v1/cabinets/{account_id}/funds` (move money main ↔ cabinet, exactly
//! once per `Idempotency-Key`) and `GET /v1/cabinets/{account_id}/transactions` (the platform's
//! transactions, in cursor pages). The work is `ops::funds`'s, as the panel's and the command
//! line's is.

use serde_json::{json, Value};

use super::account::cabinet_json;
use super::error::ApiError;
use super::idempotency::Claim;
use super::write::{self, run};
use super::{AppState, Ctx};
use crate::auth::AuthError;
use crate::domain::access::Access;
use crate::domain::campaign::Source;
use crate::domain::fields::Body;
use crate::domain::funds::{render_transfer, FundsMove, RelatedInfo};
use crate::domain::money::CabinetType;
use crate::http::Reply;
use crate::ops::funds::{self, Moved, Opener};
use crate::platform::TransactionPeer;
use crate::store::cabinets::{self, Reachable};

const DEFAULT_LIMIT: i64 = 100;
const MAX_LIMIT: i64 = 100;

fn account_segment(segment: &str) -> Result<i64, ApiError> {
    Ok(crate::domain::id::parse("account_id", segment)?)
}

/// `POST /v1/cabinets`: the owner's main account is the body's `account_id`, or their only one.
pub async fn create(state: &AppState, ctx: &Ctx, _claim: Claim) -> Result<(Reply, bool), ApiError> {
    let body = Body::parse(&ctx.body)?;
    let named = body.account_id()?;
    let info = RelatedInfo::read(&body.fields())?;
    let user = ctx.principal.user.id;
    let main = match named {
        Some(id) => {
            let reach = ctx.principal.cabinet(id)?;
            if reach.access != Access::Owner {
                return Err(ApiError::Auth(AuthError::ViewOnlyAccess));
            }
            id
        }
        None => {
            let mains = state
                .services
                .db
                .read(move |c| cabinets::mains_of(c, user))
                .await?;
            match mains.as_slice() {
                [only] => *only,
                [] => return Err(ApiError::Funds(funds::FundsRefusal::NotMain)),
                _ => {
                    return Err(ApiError::Auth(AuthError::AccountIdRequired {
                        why: "the key's owner has several main accounts",
                    }))
                }
            }
        }
    };
    let kind = ctx
        .principal
        .cabinet(main)
        .map(|r| r.cabinet.cabinet_type)
        .unwrap_or(CabinetType::Euro);
    let token = format!(
        "open:{user}:{}",
        ctx.idempotency_key.as_deref().unwrap_or("")
    );
    let by = Opener {
        source: Source::Api,
        user: Some(user),
    };
    let cabinet = run(state, kind, move |s| {
        funds::open_related(s, by, main, &info, &token)
    })
    .await?;
    let reach = Reachable {
        cabinet,
        access: Access::Owner,
        owner_subscription_active: true,
    };
    let data = cabinet_json(
        &reach,
        ctx.principal.key.partner,
        state.services.platform.capabilities(),
    );
    Ok((Reply::ok::<ApiError>(data)?, false))
}

/// `POST /v1/cabinets/{account_id}/funds`.
pub async fn move_funds(
    state: &AppState,
    ctx: &Ctx,
    segment: &str,
    _claim: Claim,
) -> Result<(Reply, bool), ApiError> {
    let account = account_segment(segment)?;
    let body = Body::parse(&ctx.body)?;
    let actor = write::actor(ctx, Some(account))?;
    let kind = actor.cabinet().cabinet_type;
    let mv = FundsMove::read(&body.fields(), kind)?;
    let token = format!(
        "{}:{}",
        ctx.principal.user.id,
        ctx.idempotency_key.as_deref().unwrap_or("")
    );
    let moved = run(state, kind, move |s| {
        funds::move_funds(s, &actor, mv, &token)
    })
    .await?;
    Ok((Reply::ok::<ApiError>(moved_json(&moved))?, false))
}

/// A transfer as the API answers it.
pub fn moved_json(m: &Moved) -> Value {
    let t = &m.transfer;
    json!({
        "transfer_id": t.id,
        "account_id": t.account_id,
        "main_account_id": t.main_account_id,
        "direction": t.direction.as_str(),
        "status": t.status.as_str(),
        "amount": render_transfer(m.kind, t.amount),
        "currency": m.kind.currency(),
        "main_balance": render_transfer(m.kind, m.main_balance),
        "balance": render_transfer(m.kind, m.balance),
        "error": t.error,
        "requested_at": t.requested_at,
        "settled_at": t.settled_at,
    })
}

/// `GET /v1/cabinets/{account_id}/transactions?cursor=&limit=`.
pub async fn transactions(state: &AppState, ctx: &Ctx, segment: &str) -> Result<Reply, ApiError> {
    let account = account_segment(segment)?;
    let reach = ctx.principal.cabinet(account)?;
    let kind = reach.cabinet.cabinet_type;
    let q = &ctx.query;
    let cursor = q.text("cursor").map(str::to_string);
    let limit = q.int("limit", 1, MAX_LIMIT)?.unwrap_or(DEFAULT_LIMIT);
    let asked = cursor.clone();
    let page = run(state, kind, move |s| {
        funds::transactions(s, account, asked.as_deref(), limit as usize)
    })
    .await?;
    let data: Vec<Value> = page
        .items
        .iter()
        .map(|t| {
            let (peer_type, peer) = match &t.peer {
                TransactionPeer::External(comment) => ("external", json!({ "comment": comment })),
                TransactionPeer::MainAccount => ("main_account", json!({})),
                TransactionPeer::Related { account, title } => (
                    "related_account",
                    json!({ "platform_account_id": account, "title": title }),
                ),
                TransactionPeer::Ad { ad_id, title } => {
                    ("ad", json!({ "ad_id": ad_id, "title": title }))
                }
                TransactionPeer::Other(kind) => ("other", json!({ "kind": kind })),
            };
            let mut peer = peer;
            peer["type"] = json!(peer_type);
            json!({
                "at": crate::clock::iso(t.at),
                "amount": t.amount.render(kind.scale()),
                "currency": kind.currency(),
                "peer": peer,
            })
        })
        .collect();
    let more = page.next.is_some();
    Reply::ok_meta(
        Value::Array(data),
        json!({
            "limit": limit,
            "cursor": cursor,
            "next_cursor": page.next,
            "hasMore": more,
            "total": page.total,
        }),
    )
}
