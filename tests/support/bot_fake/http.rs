//! The HTTP side (served by `fake_server`): routing `/bot<token>/<method>`, reading
//! parameters (query, JSON or form body), faults, and `sendMessage`'s checks and answers.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::Request;
use parking_lot::Mutex;
use serde_json::{json, Map, Value};

use super::{BotFault, SentMessage, State};

pub type Shared = Arc<Mutex<State>>;
pub use crate::fake_server::{respond, Resp};

/// `sendMessage`'s limit on the text, counted here in chars.
const MAX_TEXT: usize = 4096;

fn ok(result: Value) -> Resp {
    respond(
        200,
        "application/json",
        json!({"ok": true, "result": result}).to_string(),
    )
}

fn error(code: u16, description: &str) -> Resp {
    let body = json!({"ok": false, "error_code": code, "description": description});
    respond(code, "application/json", body.to_string())
}

pub async fn handle(shared: Shared, req: Request<Incoming>) -> Result<Resp, Infallible> {
    shared.lock().calls += 1;
    let path = req.uri().path().to_string();
    let Some((token, method)) = path.strip_prefix("/bot").and_then(|p| p.split_once('/')) else {
        return Ok(error(404, "Not Found"));
    };
    if !shared.lock().tokens.contains(token) {
        return Ok(error(401, "Unauthorized"));
    }
    // Method names are case-insensitive on the real API.
    if !method.eq_ignore_ascii_case("sendMessage") {
        return Ok(error(404, "Not Found"));
    }
    // The bot's user id is the token's part before ':'.
    let bot_id = token.split(':').next().and_then(|i| i.parse().ok());
    let content_type = req.headers().get("content-type");
    let content_type = content_type.and_then(|v| v.to_str().ok()).unwrap_or("");
    let content_type = content_type.to_ascii_lowercase();
    let mut params = parse_form(req.uri().query().unwrap_or(""));
    let body = req.into_body().collect().await.map(|b| b.to_bytes());
    let body = body.unwrap_or_default();
    if content_type.starts_with("application/json") {
        if let Ok(Value::Object(m)) = serde_json::from_slice(&body) {
            params.extend(m);
        }
    } else if content_type.starts_with("application/x-www-form-urlencoded") {
        params.extend(parse_form(&String::from_utf8_lossy(&body)));
    }

    let fault = shared.lock().faults.pop_front();
    match fault {
        None => {}
        Some(BotFault::Flood { retry_after }) => {
            let body = json!({
                "ok": false,
                "error_code": 429,
                "description": format!("Too Many Requests: retry after {retry_after}"),
                "parameters": {"retry_after": retry_after},
            });
            return Ok(respond(429, "application/json", body.to_string()));
        }
        Some(BotFault::ServerError) => return Ok(error(500, "Internal Server Error")),
        Some(BotFault::BadGateway) => {
            let page = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>";
            return Ok(respond(502, "text/html", page.to_string()));
        }
        Some(BotFault::Hang) => std::future::pending::<()>().await,
        Some(BotFault::Delay(d)) => tokio::time::sleep(d).await,
    }
    Ok(
        match send_message(&mut shared.lock(), &params, bot_id.unwrap_or(1)) {
            Ok(result) => ok(result),
            Err((code, description)) => error(code, &description),
        },
    )
}

/// The chat type the real API would report for an id.
fn chat_type(chat_id: i64) -> &'static str {
    match chat_id {
        id if id > 0 => "private",
        id if id < -1_000_000_000_000 => "supergroup",
        _ => "group",
    }
}

/// The checks, in order: chat_id given, text given and not too long, parse_mode known, chat
/// known, chat not blocked; then the message is recorded with the chat's next message_id.
fn send_message(
    st: &mut State,
    p: &Map<String, Value>,
    bot_id: i64,
) -> Result<Value, (u16, String)> {
    let bad = |d: &str| Err((400, format!("Bad Request: {d}")));
    let text_of = |name: &str| match p.get(name) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let chat = text_of("chat_id").map(|s| s.trim().to_string());
    let Some(chat) = chat.filter(|c| !c.is_empty()) else {
        return bad("chat_id is empty");
    };
    let text = text_of("text").unwrap_or_default();
    if text.trim().is_empty() {
        return bad("message text is empty");
    }
    if text.chars().count() > MAX_TEXT {
        return bad("message is too long");
    }
    let parse_mode = text_of("parse_mode").filter(|m| !m.is_empty());
    if let Some(mode) = &parse_mode {
        let known = ["markdown", "markdownv2", "html"];
        if !known.contains(&mode.to_ascii_lowercase().as_str()) {
            return bad("unsupported parse mode");
        }
    }
    let disable_notification = match p.get("disable_notification") {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s == "true" || s == "1",
        _ => false,
    };
    // "@username" chats are never registered, so they are not found either.
    let chat_id = chat.parse::<i64>().ok();
    let Some((chat_id, c)) = chat_id.and_then(|id| Some((id, st.chats.get_mut(&id)?))) else {
        return bad("chat not found");
    };
    if c.blocked {
        let why = match chat_type(chat_id) {
            "private" => "bot was blocked by the user",
            "group" => "bot was kicked from the group chat",
            _ => "bot was kicked from the supergroup chat",
        };
        return Err((403, format!("Forbidden: {why}")));
    }
    c.last_message_id += 1;
    let date = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let result = json!({
        "message_id": c.last_message_id,
        "from": {"id": bot_id, "is_bot": true, "first_name": "Fake bot", "username": "fake_bot"},
        "date": date,
        "chat": {"id": chat_id, "type": chat_type(chat_id)},
        "text": text,
    });
    st.messages.push(SentMessage {
        chat_id,
        text,
        parse_mode,
        disable_notification,
        at: Instant::now(),
    });
    Ok(result)
}

/// Decodes `a=1&b=x+y%21` into string values.
fn parse_form(text: &str) -> Map<String, Value> {
    let pairs = text.split('&').filter(|p| !p.is_empty());
    let pairs = pairs.map(|pair| pair.split_once('=').unwrap_or((pair, "")));
    pairs
        .map(|(k, v)| (percent_decode(k), Value::String(percent_decode(v))))
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'+', _) => out.push(b' '),
            (b'%', Some(b)) => {
                out.push(b);
                i += 2;
            }
            (b, _) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
