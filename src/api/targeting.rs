//! Owns `GET /v1/targeting`: countries, and the platform's languages, topics and buttons; and
//! `GET /v1/targeting/cities`, the platform's cities of one country by a part of their name.

use std::time::Duration;

use serde_json::{json, Value};

use super::error::ApiError;
use super::Ctx;
use crate::domain::countries::COUNTRIES;
use crate::domain::money::CabinetType;
use crate::http::{AppState, Reply};
use crate::platform::{PlatformError, Unreachable};

pub fn lists(state: &AppState) -> Result<Reply, ApiError> {
    let caps = state.services.platform.capabilities();
    let pairs = |list: &[(&str, &str)]| -> Vec<Value> {
        list.iter()
            .map(|(code, name)| json!({ "code": code, "name": name }))
            .collect()
    };
    let topics: Vec<Value> = caps
        .topics
        .iter()
        .map(|(id, name)| json!({ "id": id, "name": name }))
        .collect();
    Reply::ok(json!({
        "countries": pairs(COUNTRIES),
        "languages": pairs(caps.languages),
        "topics": topics,
        "buttons": caps.buttons,
    }))
}

/// `GET /v1/targeting/cities?country=DE&q=ber`: the cities of `country` whose name holds `q`,
/// looked up with the first cabinet the key reaches (`account_id` picks another).
pub async fn cities(state: &AppState, ctx: &Ctx) -> Result<Reply, ApiError> {
    let country = ctx
        .query
        .text("country")
        .unwrap_or("")
        .trim()
        .to_ascii_uppercase();
    if !COUNTRIES.iter().any(|(code, _)| *code == country) {
        return Err(ApiError::validation(
            "country",
            "country must be a code of GET /v1/targeting countries.",
        ));
    }
    let query = ctx.query.text("q").unwrap_or("").trim().to_string();
    if query.is_empty() {
        return Err(ApiError::validation(
            "q",
            "q is a part of a city's name; it must not be empty.",
        ));
    }
    let scope = ctx.principal.scope(ctx.query.account_id()?)?;
    let cabinet = scope
        .first()
        .map(|r| (r.cabinet.id, r.cabinet.cabinet_type));
    let account = cabinet.map(|(id, _)| id);
    // Through the platform gate, within the read deadline, like every other platform read.
    let wait = Duration::from_millis(state.services.config.platform.read_timeout_ms);
    let found = state
        .platform_call(wait, move |s| s.platform.cities(account, &country, &query))
        .await?
        .unwrap_or(Err(PlatformError::Unreachable(Unreachable::Timeout)));
    // A look-up's refusal carries no bid, so the cabinet type only names no currency.
    let kind = cabinet.map_or(CabinetType::Euro, |(_, kind)| kind);
    match found {
        Ok(list) => Reply::ok(json!(list)),
        Err(e) => Err(ApiError::of_platform(e, kind)),
    }
}
