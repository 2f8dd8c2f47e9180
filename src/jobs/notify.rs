//! Owns sending alerts to Telegram chats through the Bot API (`sendMessage`): the pending
//! sends are taken in order, each call waits at most `notify.timeout_ms`; a chat that blocked
//! the bot or does not exist is logged as undeliverable and its link switched off, flood
//! control is waited out as the API asks, and other failures are tried again a few times
//! with growing pauses. The bot token never reaches a log.

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
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_millis(config.timeout_ms))
        .redirects(0)
        .build();
    let url = format!("{}/bot{}/sendMessage", config.bot_api_url, config.bot_token);
    let body = json!({ "chat_id": d.chat_id, "text": d.text, "disable_web_page_preview": true });
    let answer = agent
        .post(&url)
        .set("Content-Type", "application/json")
        .send_string(&body.to_string());
    let retry = |why: String| {
        if d.attempts + 1 >= ATTEMPTS {
            Outcome::Failed(why)
        } else {
            let pause = 5 * 2_i64.pow(d.attempts as u32);
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
