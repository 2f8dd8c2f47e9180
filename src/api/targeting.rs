//! Owns `GET /v1/targeting`: countries, languages, topics and buttons.

use serde_json::{json, Value};

use super::error::ApiError;
use crate::domain::countries::COUNTRIES;
use crate::domain::targeting::{BUTTONS, LANGUAGES, TOPICS};
use crate::http::Reply;

pub fn lists() -> Result<Reply, ApiError> {
    let pairs = |list: &[(&str, &str)]| -> Vec<Value> {
        list.iter()
            .map(|(code, name)| json!({ "code": code, "name": name }))
            .collect()
    };
    let topics: Vec<Value> = TOPICS
        .iter()
        .map(|(id, name)| json!({ "id": id, "name": name }))
        .collect();
    Reply::ok(json!({
        "countries": pairs(COUNTRIES),
        "languages": pairs(LANGUAGES),
        "topics": topics,
        "buttons": BUTTONS,
    }))
}
