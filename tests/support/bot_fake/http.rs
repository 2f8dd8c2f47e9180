//! The HTTP side (served by `fake_server`): routing `/bot<token>/<method>`, reading
//! parameters (query, JSON, form or multipart body), faults, and `sendMessage`'s and
//! `sendDocument`'s checks and answers.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::Request;
use parking_lot::Mutex;
use serde_json::{json, Map, Value};

use super::{BotFault, SentDocument, SentMessage, State};

pub type Shared = Arc<Mutex<State>>;
pub use crate::fake_server::{respond, Resp};

/// `sendMessage`'s limit on the text, counted here in chars.
const MAX_TEXT: usize = 4096;
/// `sendDocument`'s limit on the caption.
const MAX_CAPTION: usize = 1024;

pub(super) fn ok(result: Value) -> Resp {
    respond(
        200,
        "application/json",
        json!({"ok": true, "result": result}).to_string(),
    )
}

pub(super) fn error(code: u16, description: &str) -> Resp {
    let body = json!({"ok": false, "error_code": code, "description": description});
    respond(code, "application/json", body.to_string())
}

pub async fn handle(shared: Shared, req: Request<Incoming>) -> Result<Resp, Infallible> {
    let path = req.uri().path().to_string();
    // The update side's calls (a bot polls all the time) are not counted in `calls`.
    let method = path.rsplit('/').next().unwrap_or("").to_ascii_lowercase();
    if !super::updates::METHODS.contains(&method.as_str()) {
        shared.lock().calls += 1;
    }
    let Some((token, method)) = path.strip_prefix("/bot").and_then(|p| p.split_once('/')) else {
        return Ok(error(404, "Not Found"));
    };
    if !shared.lock().tokens.contains(token) {
        return Ok(error(401, "Unauthorized"));
    }
    // Method names are case-insensitive on the real API.
    let document = method.eq_ignore_ascii_case("sendDocument");
    let method = method.to_ascii_lowercase();
    if !document && method != "sendmessage" && !super::updates::METHODS.contains(&method.as_str()) {
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
    let mut file = None;
    if content_type.starts_with("multipart/form-data") {
        let boundary = content_type.split("boundary=").nth(1).unwrap_or("");
        let boundary = boundary.trim_matches('"');
        for part in parse_multipart(&body, boundary) {
            match part.filename {
                Some(name) => file = Some((part.name, name, part.content_type, part.data)),
                None => {
                    let text = String::from_utf8_lossy(&part.data).into_owned();
                    params.insert(part.name, Value::String(text));
                }
            }
        }
    }

    if method != "sendmessage" && !document {
        let answer = super::updates::handle(&shared, &method, &params, bot_id.unwrap_or(1)).await;
        return Ok(match answer {
            Ok(result) => ok(result),
            Err((code, description)) => error(code, &description),
        });
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
    if document {
        let sent = send_document(&mut shared.lock(), &params, file, bot_id.unwrap_or(1));
        return Ok(match sent {
            Ok(result) => ok(result),
            Err((code, description)) => error(code, &description),
        });
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
    let reply_markup = super::updates::markup(p)?;
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
    let mut result = result;
    if let Some(m) = &reply_markup {
        result["reply_markup"] = m.clone();
    }
    st.messages.push(SentMessage {
        chat_id,
        message_id: c.last_message_id,
        text,
        reply_markup,
        parse_mode,
        disable_notification,
        at: Instant::now(),
    });
    Ok(result)
}

/// An uploaded file: its field name, file name, content type and bytes.
type File = (String, String, Option<String>, Vec<u8>);

/// The checks of `sendDocument`: chat_id given, a file uploaded as `document`, caption not
/// too long, chat known and not blocked; then the document is recorded.
fn send_document(
    st: &mut State,
    p: &Map<String, Value>,
    file: Option<File>,
    bot_id: i64,
) -> Result<Value, (u16, String)> {
    let bad = |d: &str| Err((400, format!("Bad Request: {d}")));
    let chat = p.get("chat_id").and_then(Value::as_str).map(str::trim);
    let Some(chat) = chat.filter(|c| !c.is_empty()) else {
        return bad("chat_id is empty");
    };
    let Some((field, filename, content_type, bytes)) = file else {
        return bad("there is no document in the request");
    };
    if field != "document" || bytes.is_empty() {
        return bad("there is no document in the request");
    }
    let caption = p.get("caption").and_then(Value::as_str).unwrap_or("");
    if caption.chars().count() > MAX_CAPTION {
        return bad("message caption is too long");
    }
    let chat_id = chat.parse::<i64>().ok();
    let Some((chat_id, c)) = chat_id.and_then(|id| Some((id, st.chats.get_mut(&id)?))) else {
        return bad("chat not found");
    };
    if c.blocked {
        return Err((403, "Forbidden: bot was kicked from the group chat".into()));
    }
    c.last_message_id += 1;
    let result = json!({
        "message_id": c.last_message_id,
        "from": {"id": bot_id, "is_bot": true, "first_name": "Fake bot", "username": "fake_bot"},
        "chat": {"id": chat_id, "type": chat_type(chat_id)},
        "document": {"file_name": filename, "file_size": bytes.len()},
        "caption": caption,
    });
    st.documents.push(SentDocument {
        chat_id,
        filename,
        content_type,
        caption: caption.to_string(),
        bytes,
        at: Instant::now(),
    });
    Ok(result)
}

struct Part {
    name: String,
    filename: Option<String>,
    content_type: Option<String>,
    data: Vec<u8>,
}

/// The parts of a `multipart/form-data` body (RFC 7578), read strictly enough for tests: each
/// part's headers, then its bytes up to the next `\r\n--boundary`.
fn parse_multipart(body: &[u8], boundary: &str) -> Vec<Part> {
    let delimiter = format!("--{boundary}");
    let find = |hay: &[u8], needle: &[u8], from: usize| {
        hay.get(from..)?
            .windows(needle.len())
            .position(|w| w == needle)
            .map(|i| i + from)
    };
    let mut parts = Vec::new();
    let Some(mut at) = find(body, delimiter.as_bytes(), 0) else {
        return parts;
    };
    loop {
        at += delimiter.len();
        if body.get(at..at + 2) != Some(b"\r\n".as_slice()) {
            return parts; // "--" closes the body
        }
        at += 2;
        let Some(head_end) = find(body, b"\r\n\r\n", at) else {
            return parts;
        };
        let head = String::from_utf8_lossy(&body[at..head_end]).into_owned();
        let data_start = head_end + 4;
        let closing = format!("\r\n{delimiter}");
        let Some(data_end) = find(body, closing.as_bytes(), data_start) else {
            return parts;
        };
        let mut part = Part {
            name: String::new(),
            filename: None,
            content_type: None,
            data: body[data_start..data_end].to_vec(),
        };
        for line in head.split("\r\n") {
            let Some((header, value)) = line.split_once(':') else {
                continue;
            };
            if header.eq_ignore_ascii_case("content-type") {
                part.content_type = Some(value.trim().to_string());
            }
            if header.eq_ignore_ascii_case("content-disposition") {
                for param in value.split(';').skip(1) {
                    if let Some((k, v)) = param.trim().split_once('=') {
                        let v = v.trim_matches('"').to_string();
                        match k {
                            "name" => part.name = v,
                            "filename" => part.filename = Some(v),
                            _ => {}
                        }
                    }
                }
            }
        }
        parts.push(part);
        at = data_end + 2;
    }
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
