//! Owns `GET /v1/conversions`: the conversions attributed in the key's cabinets, oldest
//! first, in cursor pages, filtered by `account_id`, `ad_id`, `event`, `since` and `until`.

use serde_json::{json, Value};

use super::error::ApiError;
use super::request;
use super::Ctx;
use crate::clock;
use crate::domain::conversion::{render_amount, EventType};
use crate::http::AppState;
use crate::http::Query;
use crate::http::Reply;
use crate::store::conversions::{self, Conversion, ListFilter};

const DEFAULT_LIMIT: i64 = 100;
const MAX_LIMIT: i64 = 500;

pub async fn list(state: &AppState, ctx: &Ctx) -> Result<Reply, ApiError> {
    let q = &ctx.query;
    let accounts = ctx
        .principal
        .scope(q.account_id()?)?
        .iter()
        .map(|r| r.cabinet.id)
        .collect();
    let cursor = q.text("cursor");
    let after = cursor
        .map(|c| {
            c.parse::<i64>()
                .ok()
                .filter(|n| *n >= 0)
                .ok_or_else(|| ApiError::validation("cursor", "This cursor is not valid."))
        })
        .transpose()?
        .unwrap_or(0);
    let filter = ListFilter {
        accounts,
        ad_id: q.text("ad_id").map(request::ad_id).transpose()?,
        event: q
            .text("event")
            .map(|e| {
                EventType::parse(e).map(EventType::as_str).ok_or_else(|| {
                    ApiError::validation("event", "event must be lead, conversion or purchase.")
                })
            })
            .transpose()?,
        since: time(q, "since")?,
        until: time(q, "until")?,
        after,
    };
    let limit = q.int("limit", 1, MAX_LIMIT)?.unwrap_or(DEFAULT_LIMIT);
    let (rows, more) = state
        .services
        .db
        .read(move |c| conversions::list(c, &filter, limit))
        .await?;
    let next = more
        .then(|| rows.last().map(|r| r.id.to_string()))
        .flatten();
    let data: Vec<Value> = rows.iter().map(conversion_json).collect();
    Reply::ok_meta(
        Value::Array(data),
        json!({ "limit": limit, "cursor": cursor, "next_cursor": next, "hasMore": more }),
    )
}

/// A conversion as the list shows it: `id` as a string, `ad_id` the first of `ad_ids`.
fn conversion_json(c: &Conversion) -> Value {
    json!({
        "id": c.id.to_string(),
        "account_id": c.account_id,
        "ad_id": c.ad_ids.first(),
        "ad_ids": c.ad_ids,
        "event_type": c.event_type,
        "txid": c.txid,
        "ref": c.reference,
        "invite_link": c.invite_link,
        "amount": c.amount_micros.map(|a| render_amount(a.into())),
        "currency": c.currency,
        "status": c.status,
        "received_at": c.received_at,
        "updated_at": c.updated_at,
    })
}

/// A bound given as an ISO 8601 timestamp or a `YYYY-MM-DD` date (its midnight, UTC).
fn time(q: &Query, name: &str) -> Result<Option<String>, ApiError> {
    q.text(name)
        .map(|t| {
            clock::parse_iso(t)
                .or_else(|| {
                    chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d")
                        .ok()
                        .and_then(|d| d.and_hms_opt(0, 0, 0))
                        .map(|d| d.and_utc())
                })
                .map(clock::iso)
                .ok_or_else(|| {
                    ApiError::validation(
                        name,
                        format!("{name} must be an ISO 8601 time or a date (YYYY-MM-DD)."),
                    )
                })
        })
        .transpose()
}
