//! Owns `GET /v1/groups`: the groups of one reachable cabinet, or of all of them.

use serde_json::{json, Value};

use super::error::ApiError;
use super::Ctx;
use crate::http::AppState;
use crate::http::Reply;
use crate::store;

pub async fn list(state: &AppState, ctx: &Ctx) -> Result<Reply, ApiError> {
    let accounts: Vec<i64> = ctx
        .principal
        .scope(ctx.query.account_id()?)?
        .iter()
        .map(|r| r.cabinet.id)
        .collect();
    let groups = state
        .services
        .db
        .read(move |conn| store::groups::list(conn, &accounts))
        .await?;
    let data: Vec<Value> = groups
        .iter()
        .map(
            |g| json!({ "id": g.id, "account_id": g.account_id, "name": g.name, "color": g.color }),
        )
        .collect();
    Reply::ok(Value::Array(data))
}
