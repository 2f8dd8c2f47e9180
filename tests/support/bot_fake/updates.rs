//! The bot's side of updates in the fake: updates injected by a test (messages, callback
//! queries) read by `getUpdates` (long polling: it waits up to `timeout` seconds for one; an
//! `offset` confirms every update below it, which is then gone) or POSTed to the webhook
//! `setWebhook` registered (with `X-Telegram-Bot-Api-Secret-Token`; `getUpdates` then answers
//! 409 as the real API does), and what the bot answers to them: `answerCallbackQuery`,
//! `editMessageText`, `editMessageReplyMarkup`. Unlike the real API, a webhook may be plain
//! `http://` on any port (the service under test listens on 127.0.0.1).

use std::collections::VecDeque;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use super::http::Shared;
use super::{FakeBot, State};

/// The methods this file answers (lowercase).
pub const METHODS: [&str; 7] = [
    "getupdates",
    "setwebhook",
    "deletewebhook",
    "getwebhookinfo",
    "answercallbackquery",
    "editmessagetext",
    "editmessagereplymarkup",
];

/// The longest long poll the real API allows, in seconds.
const MAX_TIMEOUT: u64 = 50;

/// The webhook the bot registered.
#[derive(Clone, Debug, PartialEq)]
pub struct Webhook {
    pub url: String,
    pub secret_token: Option<String>,
}

/// One `answerCallbackQuery`.
#[derive(Clone, Debug, PartialEq)]
pub struct Answered {
    pub callback_query_id: String,
    pub text: Option<String>,
    pub show_alert: bool,
}

/// One edit of a message (`editMessageText` has `text`; both may carry `reply_markup`).
#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    pub chat_id: i64,
    pub message_id: i64,
    pub text: Option<String>,
    pub reply_markup: Option<Value>,
}

#[derive(Default)]
pub struct Updates {
    queue: VecDeque<Value>,
    last_id: i64,
    webhook: Option<Webhook>,
    /// Status of each webhook delivery (0: no answer), in order.
    deliveries: Vec<u16>,
    /// Callback queries not answered yet.
    open_queries: Vec<String>,
    answered: Vec<Answered>,
    edits: Vec<Edit>,
    polls: usize,
}

fn unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn chat(id: i64) -> Value {
    let kind = match id {
        id if id > 0 => "private",
        id if id < -1_000_000_000_000 => "supergroup",
        _ => "group",
    };
    json!({"id": id, "type": kind})
}

fn from(id: i64) -> Value {
    json!({"id": id, "is_bot": false, "first_name": "Tester", "language_code": "en"})
}

impl FakeBot {
    /// A person (`from`) writes `text` in `chat`; a leading `/word` is marked a bot command.
    /// Returns the update's id.
    pub fn inject_message(&self, chat_id: i64, from_id: i64, text: &str) -> i64 {
        let mut message = json!({
            "message_id": 900_000 + self.shared.lock().updates.last_id,
            "from": from(from_id),
            "chat": chat(chat_id),
            "date": unix(),
            "text": text,
        });
        if text.starts_with('/') {
            let len = text
                .split_whitespace()
                .next()
                .unwrap_or("")
                .encode_utf16()
                .count();
            message["entities"] = json!([{"type": "bot_command", "offset": 0, "length": len}]);
        }
        self.inject("message", message)
    }

    /// A person (`from`) presses a button with `data` under message `message_id` of `chat`.
    /// Returns the callback query's id.
    pub fn inject_callback(
        &self,
        chat_id: i64,
        from_id: i64,
        message_id: i64,
        data: &str,
    ) -> String {
        let text = {
            let st = self.shared.lock();
            let sent = st
                .messages
                .iter()
                .find(|m| m.chat_id == chat_id && m.message_id == message_id);
            sent.map(|m| m.text.clone()).unwrap_or_default()
        };
        let id = format!("{}", 4_000_000 + self.shared.lock().updates.last_id);
        let query = json!({
            "id": id,
            "from": from(from_id),
            "message": {"message_id": message_id, "chat": chat(chat_id), "date": unix(), "text": text},
            "chat_instance": "7000",
            "data": data,
        });
        self.shared.lock().updates.open_queries.push(id.clone());
        self.inject("callback_query", query);
        id
    }

    fn inject(&self, kind: &str, body: Value) -> i64 {
        let (update, hook) = {
            let mut st = self.shared.lock();
            st.updates.last_id += 1;
            let mut update = json!({"update_id": st.updates.last_id});
            update[kind] = body;
            match st.updates.webhook.clone() {
                Some(hook) => (update, Some(hook)),
                None => {
                    st.updates.queue.push_back(update.clone());
                    (update, None)
                }
            }
        };
        let id = update["update_id"].as_i64().unwrap_or(0);
        if let Some(hook) = hook {
            let shared = self.shared.clone();
            std::thread::spawn(move || {
                let agent = ureq::AgentBuilder::new()
                    .timeout(Duration::from_secs(10))
                    .build();
                let mut req = agent
                    .post(&hook.url)
                    .set("Content-Type", "application/json");
                if let Some(secret) = &hook.secret_token {
                    req = req.set("X-Telegram-Bot-Api-Secret-Token", secret);
                }
                let status = match req.send_string(&update.to_string()) {
                    Ok(r) => r.status(),
                    Err(ureq::Error::Status(s, _)) => s,
                    Err(_) => 0,
                };
                shared.lock().updates.deliveries.push(status);
            });
        }
        id
    }

    /// The webhook registered, if any.
    pub fn webhook(&self) -> Option<Webhook> {
        self.shared.lock().updates.webhook.clone()
    }

    /// The status of each webhook delivery so far (0: no answer).
    pub fn deliveries(&self) -> Vec<u16> {
        self.shared.lock().updates.deliveries.clone()
    }

    /// Updates injected and not yet confirmed by an offset (or delivered to a webhook).
    pub fn unconfirmed(&self) -> usize {
        self.shared.lock().updates.queue.len()
    }

    /// `getUpdates` calls received.
    pub fn polls(&self) -> usize {
        self.shared.lock().updates.polls
    }

    /// Every `answerCallbackQuery`, in order.
    pub fn answered(&self) -> Vec<Answered> {
        self.shared.lock().updates.answered.clone()
    }

    /// Every edit of a message, in order.
    pub fn edits(&self) -> Vec<Edit> {
        self.shared.lock().updates.edits.clone()
    }
}

type Answer = Result<Value, (u16, String)>;

fn bad(description: &str) -> Answer {
    Err((400, format!("Bad Request: {description}")))
}

fn text(p: &Map<String, Value>, name: &str) -> Option<String> {
    match p.get(name) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::Bool(b)) => Some(b.to_string()),
        _ => None,
    }
}

fn int(p: &Map<String, Value>, name: &str) -> Option<i64> {
    text(p, name).and_then(|t| t.trim().parse().ok())
}

fn flag(p: &Map<String, Value>, name: &str) -> bool {
    matches!(text(p, name).as_deref(), Some("true" | "1"))
}

/// `reply_markup` as sent (an object in a JSON body, a JSON string in a form): an inline
/// keyboard of rows of buttons, each with `text` and one of `callback_data` (1-64 bytes) or
/// `url`. Other keyboards are taken as sent.
pub fn markup(p: &Map<String, Value>) -> Result<Option<Value>, (u16, String)> {
    let value = match p.get("reply_markup") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => serde_json::from_str(s).map_err(|_| {
            (
                400,
                "Bad Request: can't parse reply keyboard markup JSON object".to_string(),
            )
        })?,
        Some(v) => v.clone(),
    };
    let refuse = |d: &str| Err((400, format!("Bad Request: {d}")));
    let Some(keyboard) = value.get("inline_keyboard") else {
        return if value.is_object() {
            Ok(Some(value))
        } else {
            refuse("object expected as reply markup")
        };
    };
    let Some(rows) = keyboard.as_array() else {
        return refuse(
            "field \"inline_keyboard\" of the InlineKeyboardMarkup should be an Array of Arrays",
        );
    };
    for row in rows {
        let Some(buttons) = row.as_array() else {
            return refuse("field \"inline_keyboard\" of the InlineKeyboardMarkup should be an Array of Arrays");
        };
        for b in buttons {
            if b.get("text")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                return refuse("text buttons are unallowed in the inline keyboard");
            }
            match (b.get("callback_data").and_then(Value::as_str), b.get("url")) {
                (Some(d), None) if (1..=64).contains(&d.len()) => {}
                (Some(_), None) => return refuse("BUTTON_DATA_INVALID"),
                (None, Some(_)) => {}
                _ => return refuse("can't parse inline keyboard button: exactly one of the optional fields must be used"),
            }
        }
    }
    Ok(Some(value))
}

pub async fn handle(shared: &Shared, method: &str, p: &Map<String, Value>, _bot: i64) -> Answer {
    match method {
        "getupdates" => get_updates(shared, p).await,
        "setwebhook" => set_webhook(&mut shared.lock(), p),
        "deletewebhook" => {
            let mut st = shared.lock();
            if flag(p, "drop_pending_updates") {
                st.updates.queue.clear();
            }
            st.updates.webhook = None;
            Ok(json!(true))
        }
        "getwebhookinfo" => {
            let st = shared.lock();
            let url = st.updates.webhook.as_ref().map_or("", |w| w.url.as_str());
            Ok(json!({"url": url, "has_custom_certificate": false,
                      "pending_update_count": st.updates.queue.len()}))
        }
        "answercallbackquery" => answer_query(&mut shared.lock(), p),
        "editmessagetext" => edit(&mut shared.lock(), p, true),
        _ => edit(&mut shared.lock(), p, false),
    }
}

/// `getUpdates`: drops the updates an `offset` confirms, then answers those left (at most
/// `limit`, 1-100), waiting up to `timeout` seconds for one when there are none.
async fn get_updates(shared: &Shared, p: &Map<String, Value>) -> Answer {
    let timeout = int(p, "timeout").unwrap_or(0).clamp(0, MAX_TIMEOUT as i64) as u64;
    let limit = int(p, "limit").unwrap_or(100).clamp(1, 100) as usize;
    let offset = int(p, "offset");
    {
        let mut st = shared.lock();
        st.updates.polls += 1;
        if st.updates.webhook.is_some() {
            return Err((409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first".into()));
        }
        if let Some(offset) = offset.filter(|o| *o > 0) {
            st.updates
                .queue
                .retain(|u| u["update_id"].as_i64().unwrap_or(0) >= offset);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(timeout);
    loop {
        {
            let st = shared.lock();
            if !st.updates.queue.is_empty() || Instant::now() >= deadline {
                let list: Vec<Value> = st.updates.queue.iter().take(limit).cloned().collect();
                return Ok(Value::Array(list));
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn set_webhook(st: &mut State, p: &Map<String, Value>) -> Answer {
    let url = text(p, "url").unwrap_or_default();
    if url.is_empty() {
        st.updates.webhook = None;
        return Ok(json!(true));
    }
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        return bad("bad webhook: An HTTPS URL must be provided for webhook");
    }
    let secret = text(p, "secret_token").filter(|s| !s.is_empty());
    if let Some(s) = &secret {
        let allowed = s
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if s.len() > 256 || !allowed {
            return bad("secret token contains unallowed characters");
        }
    }
    if flag(p, "drop_pending_updates") {
        st.updates.queue.clear();
    }
    st.updates.webhook = Some(Webhook {
        url,
        secret_token: secret,
    });
    Ok(json!(true))
}

fn answer_query(st: &mut State, p: &Map<String, Value>) -> Answer {
    let id = text(p, "callback_query_id").unwrap_or_default();
    let Some(at) = st.updates.open_queries.iter().position(|q| *q == id) else {
        return bad("query is too old and response timeout expired or query ID is invalid");
    };
    let said = text(p, "text");
    if said.as_ref().is_some_and(|t| t.chars().count() > 200) {
        return bad("MESSAGE_TOO_LONG");
    }
    st.updates.open_queries.remove(at);
    st.updates.answered.push(Answered {
        callback_query_id: id,
        text: said,
        show_alert: flag(p, "show_alert"),
    });
    Ok(json!(true))
}

/// `editMessageText` (`with_text`) or `editMessageReplyMarkup`: the message must be one the
/// bot sent in that chat, and the edit must change it.
fn edit(st: &mut State, p: &Map<String, Value>, with_text: bool) -> Answer {
    let (Some(chat_id), Some(message_id)) = (int(p, "chat_id"), int(p, "message_id")) else {
        return bad("message to edit not found");
    };
    let reply_markup = markup(p)?;
    let said = text(p, "text");
    if with_text && said.as_deref().is_none_or(|t| t.trim().is_empty()) {
        return bad("message text is empty");
    }
    let Some(sent) = st
        .messages
        .iter()
        .find(|m| m.chat_id == chat_id && m.message_id == message_id)
    else {
        return bad("message to edit not found");
    };
    let mine = || {
        st.updates
            .edits
            .iter()
            .rev()
            .filter(|e| e.chat_id == chat_id && e.message_id == message_id)
    };
    let now_text = mine()
        .find_map(|e| e.text.clone())
        .unwrap_or_else(|| sent.text.clone());
    let now_markup = match mine().next() {
        Some(e) => e.reply_markup.clone(),
        None => sent.reply_markup.clone(),
    };
    let new_text = if with_text {
        said.clone().unwrap_or_default()
    } else {
        now_text.clone()
    };
    if new_text == now_text && reply_markup == now_markup {
        return bad("message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message");
    }
    st.updates.edits.push(Edit {
        chat_id,
        message_id,
        text: said.filter(|_| with_text),
        reply_markup: reply_markup.clone(),
    });
    let mut result =
        json!({"message_id": message_id, "chat": chat(chat_id), "date": unix(), "text": new_text});
    if let Some(m) = reply_markup {
        result["reply_markup"] = m;
    }
    Ok(result)
}
