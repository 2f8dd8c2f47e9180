//! Owns `GET /v1/account/info`: the cabinets a key reaches, as the spec's cabinet objects,
//! each with the limits of its platform (`limits`), so a client knows them before it sends.

use serde_json::{json, Map, Value};

use super::error::ApiError;
use super::{AppState, Ctx};
use crate::domain::capabilities::{Capabilities, MediaClass};
use crate::http::Reply;
use crate::store::cabinets::Reachable;

pub fn info(state: &AppState, ctx: &Ctx) -> Result<Reply, ApiError> {
    let partner = ctx.principal.key.partner;
    // The cabinet's platform decides; today every cabinet is on the service's one platform.
    let caps = state.services.platform.capabilities();
    let data: Vec<Value> = ctx
        .principal
        .active()
        .map(|r| cabinet_json(r, partner, caps))
        .collect();
    Reply::ok(Value::Array(data))
}

/// A cabinet object on a platform of `caps`; partner keys see `balance: null`.
pub(super) fn cabinet_json(r: &Reachable, partner: bool, caps: &Capabilities) -> Value {
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
        "limits": limits_json(caps),
    })
}

/// What a platform takes: search keywords (how many, how long), the largest photo and video
/// in bytes, the media types, the target types whose ads carry media, and each target type's
/// placements.
fn limits_json(caps: &Capabilities) -> Value {
    let placements: Map<String, Value> = caps
        .targets
        .iter()
        .map(|t| (t.target.as_str().to_string(), json!(t.placements)))
        .collect();
    let media_types: Vec<&str> = caps.media.iter().map(|m| m.media_type).collect();
    let media_targets: Vec<&str> = caps.media_targets.iter().map(|t| t.as_str()).collect();
    json!({
        "search_keywords": caps.keywords.max_count,
        "search_keyword_length": caps.keywords.max_chars,
        "photo_bytes": caps.largest_of(MediaClass::Photo),
        "video_bytes": caps.largest_of(MediaClass::Video),
        "media_types": media_types,
        "media_targets": media_targets,
        "placements": placements,
    })
}
