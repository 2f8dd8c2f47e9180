//! Owns the Telegram bot face, beside the other jobs when `[notify] bot_token` is set: the
//! proposals' messages sent and edited (`outbox`), the updates read by long polling
//! (`getUpdates` with its offset kept in the database) or, when `[notify] public_url` is
//! set, received on the webhook it registers (`webhook`), each handled by `updates` (buttons)
//! and `commands` (chat commands). A face over `ops`: it never imports the panel or the API.

pub mod api;
mod commands;
mod outbox;
mod sender;
mod updates;
pub mod webhook;

use std::time::Duration;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::sync::watch;

use crate::config::NotifyConfig;
use crate::db;
use crate::ops::proposals;
use crate::services::Services;
use crate::store::bot;

/// How long one `getUpdates` waits for an update, in seconds.
const POLL_SECONDS: u64 = 25;
/// The pause of the outbox between rounds, and after a failure of the updates.
const IDLE: Duration = Duration::from_secs(1);
const RETRY: Duration = Duration::from_secs(5);
/// The name of the long-polling offset in `bot_state`.
const OFFSET: &str = "update_offset";

/// The webhook's secret, in its path and in Telegram's `X-Telegram-Bot-Api-Secret-Token`:
/// derived from the bot token, so that it changes with it and is never stored.
pub fn secret(config: &NotifyConfig) -> String {
    let digest = Sha256::digest(format!("adcab bot webhook\n{}", config.bot_token).as_bytes());
    digest.iter().take(24).map(|b| format!("{b:02x}")).collect()
}

/// Runs the bot until `stop` turns true; nothing when no bot token is set.
pub async fn run(services: Services, stop: watch::Receiver<bool>) {
    if services.config.notify.bot_token.is_empty() {
        return;
    }
    tokio::join!(
        send_loop(services.clone(), stop.clone()),
        update_loop(services, stop)
    );
}

/// Sleeps `pause`, or less when `stop` turns; whether to go on.
async fn pause(stop: &mut watch::Receiver<bool>, pause: Duration) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(pause) => {}
        _ = stop.changed() => {}
    }
    !*stop.borrow()
}

/// Lets overdue proposals expire and sends or edits their messages, every second.
async fn send_loop(s: Services, mut stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        let round = s.clone();
        let done = db::blocking(move || {
            proposals::expire_due(&round)?;
            outbox::round(&round)
        })
        .await;
        match done {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::error!(error = %e, "the bot's outbox failed"),
            Err(panic) => tracing::error!(%panic, "the bot's outbox panicked"),
        }
        if !pause(&mut stop, IDLE).await {
            return;
        }
    }
}

/// Registers the webhook (public URL set) and waits, or reads updates by long polling.
async fn update_loop(s: Services, mut stop: watch::Receiver<bool>) {
    let config = s.config.notify.clone();
    let public = config.public_url.trim_end_matches('/').to_string();
    let hook = if public.is_empty() {
        json!({"url": ""})
    } else {
        json!({
            "url": format!("{public}{}{}", webhook::PREFIX, secret(&config)),
            "secret_token": secret(&config),
            "allowed_updates": ["message", "callback_query"],
        })
    };
    // Set (or, for long polling, removed) once, tried again until it takes.
    loop {
        let (c, body) = (config.clone(), hook.clone());
        let set = db::blocking(move || api::call(&c, "setWebhook", &body, Duration::ZERO)).await;
        match set {
            Ok(Ok(_)) => break,
            Ok(Err(e)) => tracing::warn!(error = %e, "the bot's webhook not set"),
            Err(panic) => tracing::error!(%panic, "setting the bot's webhook panicked"),
        }
        if !pause(&mut stop, RETRY).await {
            return;
        }
    }
    if !public.is_empty() {
        let _ = stop.changed().await;
        return;
    }
    while !*stop.borrow() {
        let polled = tokio::select! {
            got = poll(&s) => got,
            _ = stop.changed() => return,
        };
        let wait = match polled {
            Ok(list) => {
                let handled = s.clone();
                match db::blocking(move || handle_all(&handled, &list)).await {
                    Ok(Ok(())) => Duration::ZERO,
                    Ok(Err(e)) => {
                        tracing::error!(error = %e, "the bot's updates failed");
                        RETRY
                    }
                    Err(panic) => {
                        tracing::error!(%panic, "the bot's updates panicked");
                        RETRY
                    }
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "getUpdates failed");
                RETRY
            }
        };
        if !wait.is_zero() && !pause(&mut stop, wait).await {
            return;
        }
    }
}

/// One `getUpdates` from the kept offset, in a thread of its own: a poll waits up to
/// [`POLL_SECONDS`], and a shutdown does not wait for it (updates it read and nobody handled
/// are not confirmed, so Telegram gives them again).
async fn poll(s: &Services) -> Result<Vec<Value>, String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let s = s.clone();
    std::thread::spawn(move || {
        let got = s
            .db
            .read_blocking(|c| bot::bot_value(c, OFFSET))
            .map_err(|e| e.to_string())
            .and_then(|offset| {
                let offset: i64 = offset.and_then(|o| o.parse().ok()).unwrap_or(0);
                let body = json!({"offset": offset, "timeout": POLL_SECONDS,
                                  "allowed_updates": ["message", "callback_query"]});
                let extra = Duration::from_secs(POLL_SECONDS);
                api::call(&s.config.notify, "getUpdates", &body, extra).map_err(|e| e.to_string())
            });
        let _ = tx.send(got);
    });
    match rx.await {
        Ok(got) => Ok(got?.as_array().cloned().unwrap_or_default()),
        Err(_) => Err("the poll's thread ended".into()),
    }
}

/// Handles updates in order, keeping the offset past each one handled.
fn handle_all(s: &Services, list: &[Value]) -> Result<(), crate::store::StoreError> {
    for update in list {
        let Some(id) = update["update_id"].as_i64() else {
            continue;
        };
        if let Err(e) = updates::handle(s, update) {
            tracing::error!(update = id, error = %e, "a bot update failed");
        }
        let next = (id + 1).to_string();
        s.db.write_blocking(|tx| bot::set_bot_value(tx, OFFSET, &next))?;
    }
    Ok(())
}
