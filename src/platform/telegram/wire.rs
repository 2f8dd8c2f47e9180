//! Owns the Telegram Ads API's wire: one `POST /<method>` with a JSON body (or a multipart
//! upload), the bearer token and `Idempotency-Key` headers, the `{ok, result | error}`
//! envelope read the way the platform's own client reads it, errors classed by code, the pace
//! of calls per token, flood waits, which calls may be sent again after a failure, and what
//! the last call found of the way to the platform (why it failed is named in `transport`).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use serde_json::{Map, Value};

use super::transport;
use crate::platform::{Reach, Unreachable};
use crate::primitives::{random_hex, sha256_hex};

/// Sends of one call at most: the first and two retries.
const ATTEMPTS: u32 = 3;
/// First pause before a retry; it doubles each time.
const BACKOFF: Duration = Duration::from_millis(500);
/// A flood wait this short is slept through; a longer one is reported, so that a request is
/// answered at once and a task waits in its queue instead of holding the worker.
const FLOOD_SLEEP_MAX: Duration = Duration::from_secs(5);
/// Uploads get at least this long, as the platform's client gives them.
const UPLOAD_TIMEOUT: Duration = Duration::from_secs(120);
/// An answer larger than this is not read.
const MAX_ANSWER: u64 = 16 * 1024 * 1024;

/// Why a call did not succeed, classed as the platform's client classes it.
#[derive(Debug, Clone, PartialEq)]
pub enum WireError {
    /// `ACCESS_TOKEN_*`: the token is missing, revoked or expired.
    Auth(String),
    /// A flood wait or 429: calls with this token wait this long. The call did not run.
    RateLimited(Duration),
    /// The platform refused the call with this code (on HTTP 200).
    Api(String),
    /// No answer, a transport failure, a 5xx or a page that is not an envelope (the cause
    /// says which). For a call that is not safe to repeat, it may or may not have taken effect.
    Unavailable(Unreachable),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Auth(code) => write!(f, "the platform refused the token ({code})"),
            WireError::RateLimited(wait) => {
                write!(f, "the platform asked to wait {} s", wait.as_secs())
            }
            WireError::Api(code) => f.write_str(code),
            WireError::Unavailable(cause) => write!(f, "{cause}"),
        }
    }
}

/// How a call may be repeated after a failure that leaves its effect unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Safety {
    /// Reads and absolute edits: sent again after a transport failure.
    Repeatable,
    /// Deletes, review submissions and uploads: the first attempt may have taken effect.
    Once,
}

/// One call: method, parameters, and the idempotency key of a call that moves money or
/// creates something.
pub struct Call<'a> {
    pub method: &'a str,
    pub params: Map<String, Value>,
    pub key: Option<String>,
    pub safety: Safety,
}

impl<'a> Call<'a> {
    pub fn read(method: &'a str, params: Map<String, Value>) -> Call<'a> {
        Call {
            method,
            params,
            key: None,
            safety: Safety::Repeatable,
        }
    }

    /// A call the platform deduplicates by `key`: repeating it is safe.
    pub fn keyed(method: &'a str, params: Map<String, Value>, key: String) -> Call<'a> {
        Call {
            method,
            params,
            key: Some(key),
            safety: Safety::Repeatable,
        }
    }

    pub fn once(method: &'a str, params: Map<String, Value>) -> Call<'a> {
        Call {
            method,
            params,
            key: None,
            safety: Safety::Once,
        }
    }
}

/// A file for an upload method.
pub struct Upload<'a> {
    pub method: &'a str,
    pub account_id: Option<&'a str>,
    pub file_name: &'a str,
    pub content_type: &'a str,
    pub bytes: Vec<u8>,
}

/// When the next call with a token may start.
#[derive(Default)]
struct Pace {
    next_slot: Option<Instant>,
    blocked_until: Option<Instant>,
}

pub struct Wire {
    base: String,
    agent: ureq::Agent,
    upload_agent: ureq::Agent,
    spacing: Duration,
    /// By the token's SHA-256, so no token is kept as a map key.
    pace: Mutex<HashMap<String, Pace>>,
    /// When the last send ended, and whether it reached the platform (why not, if not).
    last: Mutex<Option<(Instant, Result<(), Unreachable>)>>,
}

impl Wire {
    pub fn new(base: &str, timeout: Duration, calls_per_second: u32) -> Wire {
        let agent = |timeout: Duration| {
            ureq::AgentBuilder::new()
                .timeout_connect(timeout.min(Duration::from_secs(10)))
                .timeout(timeout)
                .user_agent(concat!("adcab/", env!("CARGO_PKG_VERSION")))
                .build()
        };
        Wire {
            base: base.trim_end_matches('/').to_string(),
            agent: agent(timeout),
            upload_agent: agent(timeout.max(UPLOAD_TIMEOUT)),
            spacing: Duration::from_secs(1) / calls_per_second.max(1),
            pace: Mutex::new(HashMap::new()),
            last: Mutex::new(None),
        }
    }

    /// What the last send found of the way to the platform.
    pub fn reach(&self) -> Reach {
        match &*self.last.lock() {
            None => Reach::Untried,
            Some((at, Ok(()))) => Reach::Reached { ago: at.elapsed() },
            Some((at, Err(cause))) => Reach::Failed {
                cause: cause.clone(),
                ago: at.elapsed(),
            },
        }
    }

    /// Sends a call and returns its `result` and whether the platform replayed an earlier
    /// answer for its key. Rate limits are waited out when short; transport failures of a
    /// repeatable call and `IDEMPOTENT_REQUEST_IN_PROGRESS` are retried with backoff.
    pub fn call(&self, token: &str, call: &Call) -> Result<(Value, bool), WireError> {
        let body = Value::Object(call.params.clone()).to_string();
        let url = format!("{}/{}", self.base, call.method);
        self.send(token, call.method, call.safety, || {
            let mut request = self
                .agent
                .post(&url)
                .set("Authorization", &format!("Bearer {token}"))
                .set("Accept", "application/json")
                .set("Content-Type", "application/json");
            if let Some(key) = &call.key {
                request = request.set("Idempotency-Key", key);
            }
            request.send_string(&body).map_err(Box::new)
        })
    }

    /// Sends a multipart upload: the `file` part and, for a related account, `account_id`.
    /// Never repeated after a transport failure.
    pub fn upload(&self, token: &str, upload: &Upload) -> Result<Value, WireError> {
        let boundary = format!("adcab-{}", random_hex(12));
        let mut body = Vec::with_capacity(upload.bytes.len() + 512);
        if let Some(account) = upload.account_id {
            body.extend_from_slice(
                format!(
                    "--{boundary}\r\nContent-Disposition: form-data; name=\"account_id\"\r\n\r\n{account}\r\n"
                )
                .as_bytes(),
            );
        }
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{}\"\r\nContent-Type: {}\r\n\r\n",
                upload.file_name, upload.content_type
            )
            .as_bytes(),
        );
        body.extend_from_slice(&upload.bytes);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let url = format!("{}/{}", self.base, upload.method);
        let (value, _) = self.send(token, upload.method, Safety::Once, || {
            self.upload_agent
                .post(&url)
                .set("Authorization", &format!("Bearer {token}"))
                .set("Accept", "application/json")
                .set(
                    "Content-Type",
                    &format!("multipart/form-data; boundary={boundary}"),
                )
                .send_bytes(&body)
                .map_err(Box::new)
        })?;
        Ok(value)
    }

    fn send(
        &self,
        token: &str,
        method: &str,
        safety: Safety,
        request: impl Fn() -> Result<ureq::Response, Box<ureq::Error>>,
    ) -> Result<(Value, bool), WireError> {
        let pace_key = sha256_hex(token);
        let mut attempt = 0;
        loop {
            self.wait_turn(&pace_key)?;
            attempt += 1;
            let answer = read_answer(request(), &self.base);
            self.note(&answer);
            let failure = match answer {
                Ok(answer) => return Ok(answer),
                Err(e) => e,
            };
            let retry = match &failure {
                Failure::RateLimited(wait) => {
                    self.block(&pace_key, *wait);
                    true
                }
                Failure::Api(code) if code == "IDEMPOTENT_REQUEST_IN_PROGRESS" => true,
                Failure::Transport(_) => safety == Safety::Repeatable,
                Failure::Api(_) => false,
            };
            if !retry || attempt >= ATTEMPTS {
                if let Failure::Transport(cause) = &failure {
                    tracing::warn!(
                        method,
                        attempts = attempt,
                        cause = cause.name(),
                        "the Telegram Ads API call failed: {cause}"
                    );
                }
                return Err(failure.into_error());
            }
            if let Failure::Transport(cause) = &failure {
                tracing::debug!(method, attempt, cause = cause.name(), "retrying: {cause}");
            }
            if !matches!(failure, Failure::RateLimited(_)) {
                std::thread::sleep(BACKOFF * 2u32.pow(attempt - 1));
            }
        }
    }

    /// Remembers whether a send reached the platform: any answer of its API did, whatever it
    /// said; a transport failure, a server error or a page that is not an envelope did not.
    fn note(&self, answer: &Result<(Value, bool), Failure>) {
        let reached = match answer {
            Ok(_) | Err(Failure::RateLimited(_) | Failure::Api(_)) => Ok(()),
            Err(Failure::Transport(cause)) => Err(cause.clone()),
        };
        *self.last.lock() = Some((Instant::now(), reached));
    }

    /// Waits for this token's next slot; refuses at once while a long flood wait holds it.
    fn wait_turn(&self, pace_key: &str) -> Result<(), WireError> {
        let start = {
            let mut pace = self.pace.lock();
            let entry = pace.entry(pace_key.to_string()).or_default();
            let now = Instant::now();
            if let Some(until) = entry.blocked_until.filter(|u| *u > now) {
                if until - now > FLOOD_SLEEP_MAX {
                    return Err(WireError::RateLimited(until - now));
                }
            }
            let start = [Some(now), entry.next_slot, entry.blocked_until]
                .into_iter()
                .flatten()
                .max()
                .unwrap_or(now);
            entry.next_slot = Some(start + self.spacing);
            start
        };
        let now = Instant::now();
        if start > now {
            std::thread::sleep(start - now);
        }
        Ok(())
    }

    fn block(&self, pace_key: &str, wait: Duration) {
        let until = Instant::now() + wait;
        let mut pace = self.pace.lock();
        let entry = pace.entry(pace_key.to_string()).or_default();
        entry.blocked_until = Some(entry.blocked_until.map_or(until, |u| u.max(until)));
    }
}

/// What went wrong with one send, before retries are decided.
#[derive(Debug)]
enum Failure {
    RateLimited(Duration),
    Api(String),
    Transport(Unreachable),
}

impl Failure {
    fn into_error(self) -> WireError {
        match self {
            Failure::RateLimited(wait) => WireError::RateLimited(wait),
            Failure::Api(code) if code.starts_with("ACCESS_TOKEN_") => WireError::Auth(code),
            Failure::Api(code) => WireError::Api(code),
            Failure::Transport(cause) => WireError::Unavailable(cause),
        }
    }
}

/// Reads one answer as the platform's client does: a JSON object with `ok: true` and a status
/// below 400 is a success; otherwise the code is `error`, or `HTTP_<status>` without an
/// envelope. `base` names the platform when a transport failure does not.
fn read_answer(
    sent: Result<ureq::Response, Box<ureq::Error>>,
    base: &str,
) -> Result<(Value, bool), Failure> {
    let response = match sent.map_err(|e| *e) {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(ureq::Error::Transport(t)) => {
            return Err(Failure::Transport(transport::cause(&t, base)))
        }
    };
    let status = response.status();
    let retry_after = response
        .header("Retry-After")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs);
    let replayed = response
        .header("Idempotent-Replayed")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let mut text = String::new();
    use std::io::Read;
    response
        .into_reader()
        .take(MAX_ANSWER)
        .read_to_string(&mut text)
        .map_err(|e| Failure::Transport(transport::of_io(&e)))?;
    let envelope = serde_json::from_str::<Value>(&text)
        .ok()
        .filter(Value::is_object);
    let code = envelope.as_ref().and_then(error_code);
    if let Some(env) = &envelope {
        if env["ok"] == Value::Bool(true) && status < 400 {
            return Ok((env.get("result").cloned().unwrap_or(Value::Null), replayed));
        }
    }
    classify(status, code, retry_after)
}

/// The error code of an envelope: `error` as a string, or the `code`/`error` of an object.
fn error_code(envelope: &Value) -> Option<String> {
    let error = envelope.get("error")?;
    let code = match error {
        Value::String(s) => s.as_str(),
        Value::Object(o) => o
            .get("code")
            .or_else(|| o.get("error"))
            .and_then(Value::as_str)?,
        _ => return None,
    };
    (!code.is_empty()).then(|| code.to_string())
}

fn classify(
    status: u16,
    code: Option<String>,
    retry_after: Option<Duration>,
) -> Result<(Value, bool), Failure> {
    let flood = code
        .as_deref()
        .and_then(|c| c.strip_prefix("FLOOD_WAIT_"))
        .and_then(|n| n.parse::<u64>().ok())
        .map(Duration::from_secs);
    if let Some(wait) = flood {
        return Err(Failure::RateLimited(wait));
    }
    if status == 429 || code.as_deref() == Some("TOO_MANY_REQUESTS") {
        return Err(Failure::RateLimited(
            retry_after.unwrap_or(Duration::from_secs(5)),
        ));
    }
    match code {
        Some(code) if status < 500 => Err(Failure::Api(code)),
        Some(code) => Err(Failure::Transport(Unreachable::BadAnswer(format!(
            "HTTP {status} {code}"
        )))),
        None => Err(Failure::Transport(Unreachable::BadAnswer(format!(
            "HTTP {status} without an envelope"
        )))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(status: u16, code: Option<&str>, after: Option<u64>) -> Failure {
        classify(
            status,
            code.map(str::to_string),
            after.map(Duration::from_secs),
        )
        .unwrap_err()
    }

    #[test]
    fn flood_waits_and_429_are_rate_limits_with_their_wait() {
        assert!(matches!(
            class(200, Some("FLOOD_WAIT_17"), None),
            Failure::RateLimited(d) if d == Duration::from_secs(17)
        ));
        assert!(matches!(
            class(429, None, Some(3)),
            Failure::RateLimited(d) if d == Duration::from_secs(3)
        ));
        assert!(matches!(
            class(200, Some("TOO_MANY_REQUESTS"), None),
            Failure::RateLimited(d) if d == Duration::from_secs(5)
        ));
    }

    #[test]
    fn token_codes_are_auth_failures_and_others_keep_their_code() {
        let auth = class(200, Some("ACCESS_TOKEN_INVALID"), None).into_error();
        assert_eq!(auth, WireError::Auth("ACCESS_TOKEN_INVALID".into()));
        let api = class(200, Some("MAIN_ACCOUNT_REQUIRED"), None).into_error();
        assert_eq!(api, WireError::Api("MAIN_ACCOUNT_REQUIRED".into()));
    }

    #[test]
    fn gateway_pages_and_server_errors_are_unavailable() {
        assert!(matches!(class(502, None, None), Failure::Transport(_)));
        assert!(matches!(
            class(500, Some("INTERNAL_ERROR"), None),
            Failure::Transport(_)
        ));
        assert!(matches!(class(200, None, None), Failure::Transport(_)));
    }

    #[test]
    fn error_objects_give_their_code() {
        let v: Value = serde_json::json!({"ok": false, "error": {"code": "AD_ID_INVALID"}});
        assert_eq!(error_code(&v).as_deref(), Some("AD_ID_INVALID"));
        let v: Value = serde_json::json!({"ok": false, "error": ""});
        assert_eq!(error_code(&v), None);
    }
}
