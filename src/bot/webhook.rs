//! Owns the bot's webhook, served on the main listener at `/telegram/<secret>` when
//! `[notify] public_url` is set: the path's secret and Telegram's
//! `X-Telegram-Bot-Api-Secret-Token` header are checked before the body is read (anything
//! else is answered 404), the body is bounded, and the update is handled as a polled one.
//! Telegram is answered 200 once the update is handled (or found unusable), so that it does
//! not send it again.

use std::time::Duration;

use hyper::body::Incoming;
use hyper::http::request::Parts;
use hyper::StatusCode;

use super::updates;
use crate::db;
use crate::http::{read_body, AppState, BodyError, Reply};

/// Where the webhook is served; the secret follows.
pub const PREFIX: &str = "/telegram/";
/// The largest update taken (Telegram's are a few kilobytes).
const MAX_BODY: usize = 256 * 1024;
const BODY_DEADLINE: Duration = Duration::from_secs(10);

fn status(code: StatusCode) -> Reply {
    Reply {
        status: code,
        body: bytes::Bytes::new(),
        headers: vec![("content-type".into(), "text/plain".into())],
    }
}

/// Equal, in a time that does not depend on where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Answers one request under [`PREFIX`].
pub async fn answer(state: &AppState, parts: Parts, incoming: Incoming) -> Reply {
    let services = state.services.clone();
    let config = &services.config.notify;
    if config.bot_token.is_empty() || config.public_url.is_empty() {
        return status(StatusCode::NOT_FOUND);
    }
    let secret = super::secret(config);
    let path_ok = parts
        .uri
        .path()
        .strip_prefix(PREFIX)
        .is_some_and(|s| same(s, &secret));
    let header_ok = parts
        .headers
        .get("x-telegram-bot-api-secret-token")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|s| same(s, &secret));
    if !(path_ok && header_ok) {
        return status(StatusCode::NOT_FOUND);
    }
    if parts.method != hyper::Method::POST {
        return status(StatusCode::METHOD_NOT_ALLOWED);
    }
    let bytes = match read_body(incoming, MAX_BODY, BODY_DEADLINE).await {
        Ok(b) => b,
        Err(BodyError::TooLarge) => return status(StatusCode::PAYLOAD_TOO_LARGE),
        Err(BodyError::Timeout | BodyError::Unreadable(_)) => {
            return status(StatusCode::BAD_REQUEST)
        }
    };
    let Ok(update) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return status(StatusCode::BAD_REQUEST);
    };
    let handled = db::blocking(move || updates::handle(&services, &update)).await;
    match handled {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::error!(error = %e, "a bot update failed"),
        Err(panic) => tracing::error!(%panic, "a bot update panicked"),
    }
    status(StatusCode::OK)
}
