//! Owns the bot's calls of the Telegram Bot API (blocking, JSON bodies): each waits at most
//! `notify.timeout_ms` (a long poll that much longer than its own timeout) and follows no
//! redirect; an answer is the `result` of `{"ok": true}` or a [`BotError`]. The token never
//! reaches a log or an error.

use std::time::Duration;

use serde_json::{json, Value};

use crate::config::NotifyConfig;

/// Why a Bot API call did not give a result.
#[derive(Debug)]
pub enum BotError {
    /// The Bot API answered with an error: its status and description.
    Refused { status: u16, description: String },
    /// No usable answer (transport, or not JSON).
    Unreachable(String),
}

impl std::fmt::Display for BotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BotError::Refused {
                status,
                description,
            } => write!(f, "the Bot API answered {status}: {description}"),
            BotError::Unreachable(why) => write!(f, "the Bot API did not answer: {why}"),
        }
    }
}

impl std::error::Error for BotError {}

/// Calls `method` with `body`, waiting at most `notify.timeout_ms` plus `extra`.
pub fn call(
    config: &NotifyConfig,
    method: &str,
    body: &Value,
    extra: Duration,
) -> Result<Value, BotError> {
    let url = format!("{}/bot{}/{method}", config.bot_api_url, config.bot_token);
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_millis(config.timeout_ms) + extra)
        .redirects(0)
        .build();
    let answer = agent
        .post(&url)
        .set("Content-Type", "application/json")
        .send_string(&body.to_string());
    let text = match answer {
        Ok(resp) => resp.into_string(),
        Err(ureq::Error::Status(status, resp)) => {
            let body: Value = resp
                .into_string()
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
                .unwrap_or(Value::Null);
            let description = body["description"].as_str().unwrap_or("no description");
            return Err(BotError::Refused {
                status,
                description: description.chars().take(200).collect(),
            });
        }
        Err(ureq::Error::Transport(t)) => return Err(BotError::Unreachable(t.kind().to_string())),
    };
    let body: Value = text
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| BotError::Unreachable("an answer that is not JSON".into()))?;
    Ok(body["result"].clone())
}

/// An inline keyboard of one row of `(label, callback_data)` buttons.
pub fn keyboard(buttons: &[(String, String)]) -> Value {
    let row: Vec<Value> = buttons
        .iter()
        .map(|(text, data)| json!({"text": text, "callback_data": data}))
        .collect();
    json!({ "inline_keyboard": [row] })
}

/// `sendMessage` to `chat`, with a keyboard when given: the message's id.
pub fn send(
    config: &NotifyConfig,
    chat: i64,
    text: &str,
    markup: Option<Value>,
) -> Result<i64, BotError> {
    let mut body = json!({"chat_id": chat, "text": text, "disable_web_page_preview": true});
    if let Some(m) = markup {
        body["reply_markup"] = m;
    }
    let sent = call(config, "sendMessage", &body, Duration::ZERO)?;
    Ok(sent["message_id"].as_i64().unwrap_or(0))
}

/// `editMessageText` of message `message` in `chat`: its new text, the keyboard removed.
pub fn edit(config: &NotifyConfig, chat: i64, message: i64, text: &str) -> Result<(), BotError> {
    let body = json!({"chat_id": chat, "message_id": message, "text": text,
                      "reply_markup": {"inline_keyboard": []}});
    call(config, "editMessageText", &body, Duration::ZERO).map(|_| ())
}

/// `answerCallbackQuery`: the short notice the person who pressed a button sees.
pub fn answer(config: &NotifyConfig, query: &str, text: &str) -> Result<(), BotError> {
    let text: String = text.chars().take(200).collect();
    let body = json!({"callback_query_id": query, "text": text});
    call(config, "answerCallbackQuery", &body, Duration::ZERO).map(|_| ())
}
