//! Owns `GET /v1/account/info`: the cabinets a key reaches, as the spec's cabinet objects.

use serde_json::{json, Value};

use super::error::ApiError;
use super::Ctx;
use crate::http::Reply;
use crate::store::cabinets::Reachable;

pub fn info(ctx: &Ctx) -> Result<Reply, ApiError> {
    let partner = ctx.principal.key.partner;
    let data: Vec<Value> = ctx
        .principal
        .active()
        .map(|r| cabinet_json(r, partner))
        .collect();
    Reply::ok(Value::Array(data))
}

/// A cabinet object; partner keys see `balance: null`.
fn cabinet_json(r: &Reachable, partner: bool) -> Value {
    let c = &r.cabinet;
    json!({
        "id": c.id,
        "name": c.name,
        "cabinet_type": c.cabinet_type.as_str(),
        "is_active": c.is_active,
        "access_level": r.access.as_str(),
        "currency": c.cabinet_type.currency(),
        "balance": if partner { None } else { Some(c.cabinet_type.render(c.balance)) },
        "balance_updated_at": c.balance_updated_at,
        "min_budget": c.min_budget,
        "features": { "ad_button": c.ad_button, "crypto_filters": c.crypto_filters },
    })
}
