//! Owns sending one webhook event: signed headers, the guard on the resolved address, a
//! 10-second answer limit, no redirects, and one retry after 750 ms on a failure or a 5xx
//! (never on a 4xx) with the same delivery id. What went wrong names the URL redacted, never
//! its password or query values. Blocking: run it off the async runtime.

use std::time::{Duration, Instant};

use super::guard::{self, Target};
use super::sign::signature;
use crate::config::WebhookConfig;
pub use crate::domain::delivery::Outcome;
use crate::primitives::unix_now;

const ANSWER_LIMIT: Duration = Duration::from_secs(10);
const RETRY_AFTER: Duration = Duration::from_millis(750);

/// Sends `body` as event `event` to `url`, signed with `secret`.
pub fn send(
    config: &WebhookConfig,
    url: &str,
    secret: &str,
    event: &str,
    delivery_id: &str,
    body: &[u8],
) -> Outcome {
    let started = Instant::now();
    let target = match guard::check_url(url, config.allow_private_targets) {
        Ok(target) => target,
        Err(e) => return refused(started, e.to_string()),
    };
    let agent = agent(&target, config.allow_private_targets);
    let mut attempts = 0;
    loop {
        attempts += 1;
        let (status, error) = attempt(&agent, config, url, secret, event, delivery_id, body);
        let retry = match status {
            Some(s) => !(200..300).contains(&s) && !(400..500).contains(&s),
            None => true,
        };
        if !retry || attempts == 2 {
            return Outcome {
                status,
                attempts,
                duration_ms: started.elapsed().as_millis() as u64,
                error,
            };
        }
        std::thread::sleep(RETRY_AFTER);
    }
}

fn refused(started: Instant, error: String) -> Outcome {
    Outcome {
        status: None,
        attempts: 0,
        duration_ms: started.elapsed().as_millis() as u64,
        error: Some(error),
    }
}

/// The spec's `Service-Webhook/1.0`, then the operator's `[webhooks] contact_url` in
/// parentheses when one is set (no placeholder address otherwise), then `adcab/<version>`,
/// so a receiver can tell whose adcab is calling and which release.
pub fn user_agent(config: &WebhookConfig) -> String {
    let product = concat!("adcab/", env!("CARGO_PKG_VERSION"));
    match config.contact_url.trim() {
        "" => format!("Service-Webhook/1.0 {product}"),
        url => format!("Service-Webhook/1.0 ({url}) {product}"),
    }
}

/// An agent that resolves through the guard (connecting only to checked addresses), waits at
/// most ten seconds, and follows no redirect.
fn agent(target: &Target, allow_private: bool) -> ureq::Agent {
    let target = target.clone();
    ureq::AgentBuilder::new()
        .timeout(ANSWER_LIMIT)
        .redirects(0)
        .resolver(move |_netloc: &str| {
            guard::resolve(&target, allow_private)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::PermissionDenied, e))
        })
        .build()
}

fn attempt(
    agent: &ureq::Agent,
    config: &WebhookConfig,
    url: &str,
    secret: &str,
    event: &str,
    delivery_id: &str,
    body: &[u8],
) -> (Option<u16>, Option<String>) {
    let timestamp = unix_now();
    let result = agent
        .post(url)
        .set("Content-Type", "application/json")
        .set("User-Agent", &user_agent(config))
        .set("X-Service-Event", event)
        .set("X-Service-Delivery", delivery_id)
        .set("X-Service-Timestamp", &timestamp.to_string())
        .set("X-Service-Signature", &signature(secret, timestamp, body))
        .send_bytes(body);
    match result {
        Ok(response) => {
            let status = response.status();
            let error = (!(200..300).contains(&status)).then(|| format!("answered {status}"));
            (Some(status), error)
        }
        Err(ureq::Error::Status(status, _)) => (Some(status), Some(format!("answered {status}"))),
        Err(ureq::Error::Transport(t)) => {
            // Said without the URL as ureq writes it, which carries its password and tokens.
            let mut why = format!("{}: {}", guard::redact(url), t.kind());
            if let Some(message) = t.message() {
                why.push_str(&format!(": {message}"));
            }
            if let Some(cause) = std::error::Error::source(&t) {
                why.push_str(&format!(": {cause}"));
            }
            (None, Some(why))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_agent_keeps_the_specs_name_adds_a_contact_only_when_set_and_the_version() {
        let mut config = crate::config::Config::default().webhooks;
        let version = env!("CARGO_PKG_VERSION");
        assert_eq!(
            user_agent(&config),
            format!("Service-Webhook/1.0 adcab/{version}")
        );
        config.contact_url = "https://agency.example/hooks".into();
        assert_eq!(
            user_agent(&config),
            format!("Service-Webhook/1.0 (https://agency.example/hooks) adcab/{version}")
        );
    }
}
