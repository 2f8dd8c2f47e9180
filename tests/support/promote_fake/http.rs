//! The HTTP side: parsing a request (§1), the envelope and HTTP statuses (§3), injected
//! faults, and the idempotency pipeline (§6) around each call (served by `fake_server`).

use std::sync::Arc;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::Request;
use parking_lot::Mutex;
use serde_json::{json, Value};

use super::params::{canonical, parse_body, parse_form, Params};
use super::state::{IdemEntry, State, KEY_LIFETIME};
use super::{control, methods, Call, Fault};

pub type Shared = Arc<Mutex<State>>;
pub use crate::fake_server::{respond, Resp};

/// The largest body read (the biggest upload is 20 MB).
const MAX_BODY: usize = 24 << 20;

fn ok_body(v: &Value) -> String {
    json!({"ok": true, "result": v}).to_string()
}

fn err_body(code: &str) -> String {
    json!({"ok": false, "error": code}).to_string()
}

fn error(status: u16, code: &str) -> Resp {
    respond(status, "application/json", err_body(code))
}

/// What closes a connection without an answer (hyper drops it on a service error).
fn dropped() -> std::io::Error {
    std::io::Error::other("fake promote: connection dropped on purpose")
}

/// Frees an idempotency key reserved by a call that ended without a stored result (an error,
/// or the call's future dropped mid-way).
struct KeyGuard {
    shared: Shared,
    slot: Option<(String, String)>,
}

impl Drop for KeyGuard {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.take() {
            let mut st = self.shared.lock();
            if st.idem.get(&slot).is_some_and(|e| e.body.is_none()) {
                st.idem.remove(&slot);
            }
        }
    }
}

enum Pre {
    Run(methods::Ctx, Option<(String, String)>),
    Replay(String),
}

/// Admission and the idempotency check, under the lock.
fn prepare(
    st: &mut State,
    method: &str,
    token: Option<&str>,
    key: Option<&str>,
    p: &Params,
) -> Result<Pre, String> {
    let ctx = methods::admit(st, method, token, p)?;
    let kind = methods::kind(method).expect("known method");
    let Some(key) = key.filter(|_| kind.k) else {
        return Ok(Pre::Run(ctx, None));
    };
    if key.is_empty() {
        return Err("IDEMPOTENCY_KEY_INVALID".into());
    }
    if key.chars().count() > 128 {
        return Err("IDEMPOTENCY_KEY_TOO_LONG".into());
    }
    let canon = canonical(&p.map);
    let slot = (ctx.acting.clone(), key.to_string());
    let now = st.now;
    if let Some(e) = st
        .idem
        .get(&slot)
        .filter(|e| now - e.first_used < KEY_LIFETIME)
    {
        if e.method != method || e.canon != canon {
            return Err("IDEMPOTENT_PARAM_MISMATCH".into());
        }
        return match &e.body {
            Some(body) => Ok(Pre::Replay(body.clone())),
            None => Err("IDEMPOTENT_REQUEST_IN_PROGRESS".into()),
        };
    }
    let entry = IdemEntry {
        method: method.to_string(),
        canon,
        first_used: now,
        body: None,
    };
    st.idem.insert(slot.clone(), entry);
    Ok(Pre::Run(ctx, Some(slot)))
}

pub async fn handle(shared: Shared, req: Request<Incoming>) -> Result<Resp, std::io::Error> {
    let path = req.uri().path().to_string();
    if let Some(name) = path.strip_prefix("/_fake/") {
        let name = name.to_string();
        let query = req.uri().query().unwrap_or("").to_string();
        let body = req
            .into_body()
            .collect()
            .await
            .map_err(|_| dropped())?
            .to_bytes();
        let args = if body.iter().all(u8::is_ascii_whitespace) {
            parse_form(&query).map(Value::Object).unwrap_or(Value::Null)
        } else {
            serde_json::from_slice(&body).unwrap_or(Value::Null)
        };
        let mut st = shared.lock();
        return Ok(match control::dispatch(&mut st, &name, &args) {
            Ok(v) => respond(200, "application/json", ok_body(&v)),
            Err(e) => error(400, &e),
        });
    }
    let method = path.trim_start_matches('/').to_string();
    if methods::kind(&method).is_none() {
        return Ok(error(404, "METHOD_NOT_FOUND"));
    }
    let get = req.method() == hyper::Method::GET;
    if !get && req.method() != hyper::Method::POST {
        return Ok(error(405, "METHOD_NOT_ALLOWED"));
    }
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let content_type = header("content-type").unwrap_or_default();
    let header_key = header("idempotency-key");
    let token = header("authorization").and_then(|a| {
        let (scheme, rest) = a.trim().split_once(' ')?;
        scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| rest.trim().to_string())
    });
    let query = req.uri().query().unwrap_or("").to_string();
    let body = http_body_util::Limited::new(req.into_body(), MAX_BODY)
        .collect()
        .await;
    let Ok(body) = body.map(|b| b.to_bytes()) else {
        return Ok(error(400, "BAD_REQUEST"));
    };
    let parsed = if get {
        parse_form(&query).map(|m| (m, None))
    } else {
        parse_body(&content_type, body).await
    };
    let Some((mut map, upload)) = parsed else {
        return Ok(error(400, "BAD_REQUEST"));
    };
    let body_key = map.remove("idempotency_key").and_then(|v| match v {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.as_str().to_string()),
        _ => None,
    });
    let key = header_key.or(body_key);
    let p = Params { map };

    let (seq, fault) = {
        let mut st = shared.lock();
        let seq = st.next_seq();
        let call = Call {
            method: method.clone(),
            token: token.clone().unwrap_or_default(),
            idempotency_key: key.clone(),
            replayed: false,
        };
        st.calls.push((seq, call));
        (seq, st.take_fault(&method))
    };
    let mut delay = None;
    let mut drop_after = false;
    let mut hold = None;
    match fault {
        None => {}
        Some(Fault::Http429 { retry_after }) => {
            let mut r = error(429, "TOO_MANY_REQUESTS");
            if let Some(s) = retry_after {
                r.headers_mut()
                    .insert("Retry-After", s.to_string().parse().expect("header"));
            }
            return Ok(r);
        }
        Some(Fault::FloodWait(n)) => return Ok(error(200, &format!("FLOOD_WAIT_{n}"))),
        Some(Fault::ApiError(code)) => return Ok(error(200, &code)),
        Some(Fault::Gateway) => {
            let page = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>";
            return Ok(respond(502, "text/html", page.to_string()));
        }
        Some(Fault::DropBefore) => return Err(dropped()),
        Some(Fault::Delay(d)) => delay = Some(d),
        Some(Fault::Drop) => drop_after = true,
        Some(Fault::Hold(d)) => hold = Some(d),
    }

    let pre = {
        let mut st = shared.lock();
        prepare(&mut st, &method, token.as_deref(), key.as_deref(), &p)
    };
    // An answer decided before running (an error or a replay), or the call to run.
    let run = match pre {
        Err(code) => Err(error(200, &code)),
        Ok(Pre::Replay(body)) => {
            let mut st = shared.lock();
            if let Some((_, c)) = st.calls.iter_mut().find(|(s, _)| *s == seq) {
                c.replayed = true;
            }
            drop(st);
            let mut r = respond(200, "application/json", body);
            r.headers_mut()
                .insert("Idempotent-Replayed", "true".parse().expect("header"));
            Err(r)
        }
        Ok(Pre::Run(ctx, slot)) => Ok((
            ctx,
            KeyGuard {
                shared: shared.clone(),
                slot,
            },
        )),
    };
    if let Some(d) = delay {
        tokio::time::sleep(d).await;
    }
    let (ctx, mut guard) = match run {
        Ok(run) => run,
        Err(_) if drop_after => return Err(dropped()),
        Err(answer) => return Ok(answer),
    };
    let body = {
        let mut st = shared.lock();
        let result = methods::run(&mut st, &method, &ctx, &p, upload.as_ref());
        let body = match &result {
            Ok(v) => ok_body(v),
            Err(code) => err_body(code),
        };
        if let (Ok(_), Some(slot)) = (&result, guard.slot.take()) {
            if let Some(e) = st.idem.get_mut(&slot) {
                e.body = Some(body.clone());
            }
        }
        body
    };
    drop(guard);
    if drop_after {
        return Err(dropped());
    }
    if let Some(d) = hold {
        tokio::time::sleep(d).await;
    }
    Ok(respond(200, "application/json", body))
}

impl State {
    /// The first queued fault for `method`, consumed.
    pub fn take_fault(&mut self, method: &str) -> Option<Fault> {
        let i = self
            .faults
            .iter()
            .position(|f| f.left > 0 && f.method.as_deref().is_none_or(|m| m == method))?;
        let rule = &mut self.faults[i];
        rule.left -= 1;
        let fault = rule.fault.clone();
        if rule.left == 0 {
            self.faults.remove(i);
        }
        Some(fault)
    }
}
