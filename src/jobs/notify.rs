//! Owns sending to Telegram chats through the Bot API: alerts (`sendMessage`; the pending
//! sends taken in order) and files such as scheduled reports (`sendDocument`). Each call
//! waits at most `notify.timeout_ms`; a chat that blocked the bot or does not exist is logged
//! as undeliverable and its link switched off, flood control is waited out as the API asks,
//! and other failures are tried again a few times with growing pauses. The bot token never
//! reaches a log.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::watch;

use crate::config::NotifyConfig;
use crate::db;
use crate::primitives::unix_now;
use crate::services::Services;
use crate::store::alerts::{self, Due, Outcome};

/// Attempts of one send before it is given up.
const ATTEMPTS: i64 = 5;
/// Sends taken per round.
const BATCH: usize = 20;
/// How long the sender waits when nothing is due.
const IDLE: Duration = Duration::from_secs(1);

/// Sends due alerts until `stop` turns true.
pub async fn run(services: Services, mut stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        if !services.config.notify.bot_token.is_empty() {
            let now = unix_now() as i64;
            match services.db.read(move |c| alerts::due(c, now, BATCH)).await {
                Ok(due) => {
                    for d in due {
                        let s = services.clone();
                        let done = db::blocking(move || {
                            let outcome = send(&s.config.notify, &d);
                            s.db.write_blocking(|tx| alerts::record(tx, d.id, &outcome))
                        })
                        .await;
                        match done {
                            Ok(Ok(())) => {}
                            Ok(Err(e)) => tracing::error!(error = %e, "alert send not recorded"),
                            Err(panic) => tracing::error!(%panic, "alert send panicked"),
                        }
                    }
                }
                Err(e) => tracing::error!(error = %e, "cannot read the alerts to send"),
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(IDLE) => {}
            _ = stop.changed() => {}
        }
    }
}

/// One `sendMessage` call and what it means for the send. Blocking.
pub fn send(config: &NotifyConfig, d: &Due) -> Outcome {
    let url = format!("{}/bot{}/sendMessage", config.bot_api_url, config.bot_token);
    let body = json!({ "chat_id": d.chat_id, "text": d.text, "disable_web_page_preview": true });
    let answer = agent(config)
        .post(&url)
        .set("Content-Type", "application/json")
        .send_string(&body.to_string());
    outcome(answer, d.attempts)
}

/// A file for `sendDocument`.
pub struct Document<'a> {
    pub chat_id: i64,
    /// The name the chat shows, such as `report-2026-11-16.pdf`.
    pub filename: &'a str,
    pub content_type: &'a str,
    /// At most 1024 characters (longer is cut).
    pub caption: &'a str,
    pub bytes: &'a [u8],
}

/// One `sendDocument` call (multipart, the file uploaded) and what it means for the send, by
/// the same rules as `sendMessage`: `attempts` made before this one. Blocking.
pub fn send_document(config: &NotifyConfig, doc: &Document, attempts: i64) -> Outcome {
    let url = format!(
        "{}/bot{}/sendDocument",
        config.bot_api_url, config.bot_token
    );
    let boundary = format!("adcab-{}", uuid::Uuid::new_v4().simple());
    let caption: String = doc.caption.chars().take(1024).collect();
    let answer = agent(config)
        .post(&url)
        .set(
            "Content-Type",
            &format!("multipart/form-data; boundary={boundary}"),
        )
        .send_bytes(&multipart(&boundary, doc, &caption));
    outcome(answer, attempts)
}

/// The `multipart/form-data` body of a `sendDocument` call. The file name is kept to safe
/// characters, so it never breaks out of its quotes.
fn multipart(boundary: &str, doc: &Document, caption: &str) -> Vec<u8> {
    let filename: String = doc
        .filename
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' | '_' => c,
            _ => '_',
        })
        .collect();
    let mut body = Vec::with_capacity(doc.bytes.len() + 512);
    for (name, value) in [
        ("chat_id", doc.chat_id.to_string()),
        ("caption", caption.into()),
    ] {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"document\"; filename=\"{filename}\"\r\nContent-Type: {}\r\n\r\n",
            doc.content_type
        )
        .as_bytes(),
    );
    body.extend_from_slice(doc.bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    body
}

/// An agent whose every call waits at most `notify.timeout_ms` and follows no redirect.
fn agent(config: &NotifyConfig) -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout(Duration::from_millis(config.timeout_ms))
        .redirects(0)
        .build()
}

/// What a Bot API answer means for a send that had `attempts` before this one.
fn outcome(answer: Result<ureq::Response, ureq::Error>, attempts: i64) -> Outcome {
    let retry = |why: String| {
        if attempts + 1 >= ATTEMPTS {
            Outcome::Failed(why)
        } else {
            let pause = 5 * 2_i64.pow(attempts as u32);
            Outcome::Retry {
                next_at: unix_now() as i64 + pause,
                why,
            }
        }
    };
    match answer {
        Ok(_) => Outcome::Sent,
        Err(ureq::Error::Status(status, resp)) => {
            let body: Value = resp
                .into_string()
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
                .unwrap_or(Value::Null);
            let said = body["description"]
                .as_str()
                .unwrap_or("no description")
                .chars()
                .take(200)
                .collect::<String>();
            match status {
                403 => Outcome::Undeliverable(said),
                400 if said.contains("chat not found") => Outcome::Undeliverable(said),
                429 => {
                    let after = body["parameters"]["retry_after"].as_i64().unwrap_or(30);
                    Outcome::Retry {
                        next_at: unix_now() as i64 + after.clamp(1, 3600),
                        why: said,
                    }
                }
                401 | 404 => {
                    Outcome::Failed(format!("the Bot API refused the bot token ({status})"))
                }
                s if s >= 500 => retry(format!("the Bot API answered {s}")),
                s => Outcome::Failed(format!("the Bot API answered {s}: {said}")),
            }
        }
        Err(ureq::Error::Transport(t)) => {
            retry(format!("the Bot API did not answer: {}", t.kind()))
        }
    }
}
