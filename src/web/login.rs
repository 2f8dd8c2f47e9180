//! Owns logging in and out: the login form (its CSRF token is a cookie of its own, as no
//! session exists yet), the password check off the runtime, the limits on failed attempts per
//! account and per client address, the session cookie, and logging out (this browser, or
//! everywhere).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

use maud::html;

use super::layout;
use super::session::{self, Session, COOKIE};
use super::{Form, Visit, WebError};
use crate::domain::password;
use crate::http::response::Reply;
use crate::primitives::{random_hex, unix_now};
use crate::store::{sessions, StoreError};

/// The login form's own CSRF cookie.
pub const LOGIN_COOKIE: &str = "adcab_login";
/// The window over which failed logins are counted, in seconds.
pub const WINDOW: u64 = 15 * 60;
/// Most accounts and addresses with failures remembered at once; past it the oldest windows go.
const TRACKED: usize = 50_000;

/// Failed logins in the current window, per email and per client address.
#[derive(Default)]
pub struct LoginLimiter {
    accounts: Mutex<Failures>,
    addresses: Mutex<Failures>,
}

#[derive(Default)]
struct Failures {
    /// Key → (window start, failures in it).
    seen: HashMap<String, (u64, u32)>,
}

impl Failures {
    fn count(&mut self, key: &str, now: u64) -> u32 {
        match self.seen.get(key) {
            Some((start, n)) if now < start + WINDOW => *n,
            Some(_) => {
                self.seen.remove(key);
                0
            }
            None => 0,
        }
    }

    fn fail(&mut self, key: &str, now: u64) {
        if self.seen.len() >= TRACKED && !self.seen.contains_key(key) {
            self.seen.retain(|_, (start, _)| now < *start + WINDOW);
            if self.seen.len() >= TRACKED {
                let oldest = self.seen.values().map(|(s, _)| *s).min().unwrap_or(now);
                self.seen.retain(|_, (start, _)| *start > oldest);
            }
        }
        let entry = self.seen.entry(key.to_string()).or_insert((now, 0));
        if now >= entry.0 + WINDOW {
            *entry = (now, 0);
        }
        entry.1 += 1;
    }
}

impl LoginLimiter {
    /// Whether another attempt for `email` from `address` may be checked at `now`.
    pub fn allowed(&self, limits: (u32, u32), email: &str, address: IpAddr, now: u64) -> bool {
        let account = lock(&self.accounts).count(&email.to_ascii_lowercase(), now);
        let from = lock(&self.addresses).count(&address.to_string(), now);
        account < limits.0 && from < limits.1
    }

    pub fn failed(&self, email: &str, address: IpAddr, now: u64) {
        lock(&self.accounts).fail(&email.to_ascii_lowercase(), now);
        lock(&self.addresses).fail(&address.to_string(), now);
    }
}

fn lock(m: &Mutex<Failures>) -> std::sync::MutexGuard<'_, Failures> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// `GET /login`: the form, or the campaigns for someone already logged in.
pub fn form(visit: &Visit, session: Option<&Session>) -> Result<Reply, WebError> {
    if session.is_some() {
        return Ok(super::redirect("/campaigns"));
    }
    let token = visit
        .cookie(LOGIN_COOKIE)
        .filter(|t| t.len() == 64)
        .map(str::to_string)
        .unwrap_or_else(|| random_hex(32));
    let mut reply = page(visit, &token, "", None, hyper::StatusCode::OK);
    reply.headers.push((
        "set-cookie".into(),
        visit.cookie_header(LOGIN_COOKIE, &token, None),
    ));
    Ok(reply)
}

fn page(
    visit: &Visit,
    csrf: &str,
    email: &str,
    error: Option<&str>,
    status: hyper::StatusCode,
) -> Reply {
    let body = html! {
        main.login {
            h1 { "adcab" }
            p.muted { "Sign in to manage your cabinets and campaigns." }
            form method="post" action="/login" {
                input type="hidden" name="csrf" value=(csrf);
                label { "Email" input type="email" name="email" value=(email) autocomplete="username" required autofocus; }
                label { "Password" input type="password" name="password" autocomplete="current-password" required; }
                @if let Some(error) = error { p.error role="alert" { (error) } }
                button.primary type="submit" { "Sign in" }
            }
        }
    };
    layout::bare(visit, "Sign in", body).with_status(status)
}

/// `POST /login`.
pub async fn submit(visit: &Visit<'_>, form: &Form) -> Result<Reply, WebError> {
    let expected = visit.cookie(LOGIN_COOKIE).unwrap_or_default();
    if expected.is_empty() || !session::same_secret(expected, form.get("csrf").unwrap_or("")) {
        return Err(WebError::Csrf);
    }
    let email = form.get("email").unwrap_or("").trim().to_string();
    let password = form.get("password").unwrap_or("").to_string();
    let config = &visit.state.services.config.panel;
    let limits = (
        config.login_failures_per_account,
        config.login_failures_per_address,
    );
    let now = unix_now();
    let limiter = &visit.state.logins;
    if !limiter.allowed(limits, &email, visit.peer, now) {
        let text = "Too many failed sign-ins. Wait 15 minutes and try again.";
        return Ok(page(
            visit,
            expected,
            &email,
            Some(text),
            hyper::StatusCode::TOO_MANY_REQUESTS,
        ));
    }
    let db = visit.state.services.db.clone();
    let lookup = email.clone();
    let found = db
        .read(move |conn| sessions::login_of(conn, &lookup))
        .await?;
    let stored = found.as_ref().and_then(|(_, hash)| hash.clone());
    let matched = crate::db::in_request(move || {
        let hash = stored.as_deref().unwrap_or(password::decoy());
        password::verify(&password, hash) && stored.is_some()
    })
    .await;
    let user = match (matched, found) {
        (true, Some((id, _))) => id,
        _ => {
            limiter.failed(&email, visit.peer, now);
            return Ok(page(
                visit,
                expected,
                &email,
                Some("Wrong email or password."),
                hyper::StatusCode::UNAUTHORIZED,
            ));
        }
    };
    let config = config.clone();
    let opened = db
        .write(move |tx| session::open(tx, &config, user, now as i64))
        .await?;
    let mut reply = super::redirect("/campaigns");
    let max_age = i64::from(visit.state.services.config.panel.session_max_days) * 86_400;
    reply.headers.push((
        "set-cookie".into(),
        visit.cookie_header(COOKIE, &opened.token, Some(max_age)),
    ));
    reply.headers.push((
        "set-cookie".into(),
        visit.cookie_header(LOGIN_COOKIE, "", Some(0)),
    ));
    Ok(reply)
}

/// `POST /logout`: ends this session, or with `everywhere=1` every session of the person.
pub async fn logout(visit: &Visit<'_>, session: &Session, form: &Form) -> Result<Reply, WebError> {
    let everywhere = form.get("everywhere") == Some("1");
    let token_hash = session.token_hash.clone();
    let user = session.person.user.id;
    visit
        .state
        .services
        .db
        .write(move |tx| {
            if everywhere {
                sessions::delete_of_user(tx, user)?;
            } else {
                sessions::delete(tx, &token_hash)?;
            }
            Ok::<_, StoreError>(())
        })
        .await?;
    let mut reply = super::redirect("/login");
    reply.headers.push((
        "set-cookie".into(),
        visit.cookie_header(COOKIE, "", Some(0)),
    ));
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_count_per_window_and_per_key() {
        let limiter = LoginLimiter::default();
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        let other: IpAddr = "192.0.2.2".parse().unwrap();
        for _ in 0..3 {
            limiter.failed("A@x.org", ip, 1000);
        }
        assert!(
            !limiter.allowed((3, 100), "a@x.org", other, 1001),
            "the account"
        );
        assert!(
            limiter.allowed((3, 100), "b@x.org", ip, 1001),
            "another account"
        );
        assert!(
            !limiter.allowed((100, 3), "b@x.org", ip, 1001),
            "the address"
        );
        assert!(
            limiter.allowed((3, 3), "a@x.org", ip, 1000 + WINDOW),
            "a new window"
        );
    }

    #[test]
    fn the_remembered_failures_stay_bounded() {
        let mut f = Failures::default();
        for i in 0..(TRACKED + 10) {
            f.fail(&i.to_string(), i as u64 / 1000);
        }
        assert!(f.seen.len() <= TRACKED, "{}", f.seen.len());
    }
}
