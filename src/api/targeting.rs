//! Owns `GET /v1/targeting`: countries, and the platform's languages, topics and buttons.

use serde_json::{json, Value};

use super::error::ApiError;
use crate::domain::countries::COUNTRIES;
use crate::http::{AppState, Reply};

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
