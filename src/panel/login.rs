//! Owns logging in and out: the login form (its CSRF token is a cookie of its own, as no
//! session exists yet), the password check off the runtime, the limits on failed attempts per
//! account and per client address (each attempt counted before its password is checked, and
//! at most two checks at once), the session cookie, and logging out (this browser, or
//! everywhere).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

use maud::html;

use super::layout;
use super::session::{self, Session, COOKIE};
use super::{Form, Visit, WebError};
use crate::api::response::Reply;
use crate::db::Gate;
use crate::domain::password;
use crate::primitives::{random_hex, unix_now};
use crate::store::{sessions, StoreError};

/// The login form's own CSRF cookie.
pub const LOGIN_COOKIE: &str = "adcab_login";
/// The window over which failed logins are counted, in seconds.
pub const WINDOW: u64 = 15 * 60;
/// Most accounts and addresses with failures remembered at once; past it the oldest windows go.
const TRACKED: usize = 50_000;
/// Passwords checked at once. Each check is Argon2id over 19 MiB, so this bounds the memory
/// and the threads logins take, however many arrive.
const VERIFYING: usize = 2;
/// Logins that may wait for a check, and how long; one more is told to try again shortly.
const VERIFY_QUEUE: usize = 16;
const VERIFY_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Logins per email and per client address in the current window, counted before their
/// password is checked, and the admission to the password checks.
pub struct LoginLimiter {
    counts: Mutex<Counts>,
    verifying: Gate,
}

impl Default for LoginLimiter {
    fn default() -> Self {
        LoginLimiter {
            counts: Mutex::default(),
            verifying: Gate::new(VERIFYING, VERIFY_QUEUE),
        }
    }
}

/// Both counts under one lock, so an attempt is reserved against both limits at once.
#[derive(Default)]
struct Counts {
    accounts: Failures,
    addresses: Failures,
}

#[derive(Default)]
struct Failures {
    /// Key → (window start, attempts counted in it).
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

    /// Counts one attempt; returns the start of the window it counts in.
    fn add(&mut self, key: &str, now: u64) -> u64 {
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
        entry.0
    }

    /// Takes back one attempt counted in the window that started at `start`, if that window
    /// is still the key's.
    fn take_back(&mut self, key: &str, start: u64) {
        if let Some((s, n)) = self.seen.get_mut(key) {
            if *s == start && *n > 0 {
                *n -= 1;
            }
        }
    }
}

/// One login attempt, counted as a failure from the moment it was reserved: concurrent
/// guesses cannot all pass the check that comes before their passwords are verified. It stays
/// counted unless [`Attempt::take_back`] says the password matched or was never checked.
pub struct Attempt<'a> {
    limiter: &'a LoginLimiter,
    account: String,
    address: String,
    windows: (u64, u64),
}

impl Attempt<'_> {
    pub fn take_back(self) {
        let mut counts = lock(&self.limiter.counts);
        counts.accounts.take_back(&self.account, self.windows.0);
        counts.addresses.take_back(&self.address, self.windows.1);
    }
}

impl LoginLimiter {
    /// Counts an attempt for `email` from `address` at `now`, unless either has reached its
    /// limit (`limits`: per account, per address); `None` then, and nothing is counted.
    pub fn reserve(
        &self,
        limits: (u32, u32),
        email: &str,
        address: IpAddr,
        now: u64,
    ) -> Option<Attempt<'_>> {
        let account = email.to_ascii_lowercase();
        let address = address.to_string();
        let mut counts = lock(&self.counts);
        if counts.accounts.count(&account, now) >= limits.0
            || counts.addresses.count(&address, now) >= limits.1
        {
            return None;
        }
        let windows = (
            counts.accounts.add(&account, now),
            counts.addresses.add(&address, now),
        );
        Some(Attempt {
            limiter: self,
            account,
            address,
            windows,
        })
    }

    /// Checks `password` against `stored` (a decoy hash when the email is unknown, so both
    /// take as long) off the runtime, at most [`VERIFYING`] at once; `Busy` when no check
    /// frees up within [`VERIFY_WAIT`] or [`VERIFY_QUEUE`] logins already wait.
    pub async fn verify(
        &self,
        password: String,
        stored: Option<String>,
    ) -> Result<bool, StoreError> {
        let permit = self.verifying.enter(VERIFY_WAIT).await?;
        Ok(crate::db::in_request(move || {
            let _permit = permit;
            let hash = stored.as_deref().unwrap_or(password::decoy());
            password::verify(&password, hash) && stored.is_some()
        })
        .await)
    }
}

fn lock(m: &Mutex<Counts>) -> std::sync::MutexGuard<'_, Counts> {
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
    let Some(attempt) = limiter.reserve(limits, &email, visit.client, now) else {
        let text = "Too many failed sign-ins. Wait 15 minutes and try again.";
        return Ok(page(
            visit,
            expected,
            &email,
            Some(text),
            hyper::StatusCode::TOO_MANY_REQUESTS,
        ));
    };
    let db = visit.state.services.db.clone();
    let lookup = email.clone();
    let found = db
        .read(move |conn| sessions::login_of(conn, &lookup))
        .await?;
    let stored = found.as_ref().and_then(|(_, hash)| hash.clone());
    let matched = match limiter.verify(password, stored).await {
        Ok(matched) => matched,
        Err(_) => {
            attempt.take_back();
            let text = "Many sign-ins are being checked right now. Try again shortly.";
            let mut reply = page(
                visit,
                expected,
                &email,
                Some(text),
                hyper::StatusCode::SERVICE_UNAVAILABLE,
            );
            reply.headers.push(("retry-after".into(), "2".into()));
            return Ok(reply);
        }
    };
    let user = match (matched, found) {
        (true, Some((id, _))) => {
            attempt.take_back();
            id
        }
        _ => {
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
    fn attempts_count_per_window_and_per_key() {
        let limiter = LoginLimiter::default();
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        let other: IpAddr = "192.0.2.2".parse().unwrap();
        for _ in 0..3 {
            assert!(limiter.reserve((3, 100), "A@x.org", ip, 1000).is_some());
        }
        assert!(
            limiter.reserve((3, 100), "a@x.org", other, 1001).is_none(),
            "the account"
        );
        assert!(
            limiter.reserve((3, 100), "b@x.org", ip, 1001).is_some(),
            "another account"
        );
        assert!(
            limiter.reserve((100, 4), "c@x.org", ip, 1001).is_none(),
            "the address"
        );
        assert!(
            limiter
                .reserve((3, 3), "a@x.org", ip, 1000 + WINDOW)
                .is_some(),
            "a new window"
        );
    }

    #[test]
    fn an_attempt_taken_back_no_longer_counts() {
        let limiter = LoginLimiter::default();
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        for _ in 0..5 {
            limiter
                .reserve((2, 100), "a@x.org", ip, 1000)
                .unwrap()
                .take_back();
        }
        let kept = limiter.reserve((2, 100), "a@x.org", ip, 1000).unwrap();
        drop(kept);
        assert!(limiter.reserve((2, 100), "a@x.org", ip, 1000).is_some());
        assert!(
            limiter.reserve((2, 100), "a@x.org", ip, 1000).is_none(),
            "two kept attempts reach a limit of two"
        );
    }

    #[test]
    fn concurrent_attempts_never_pass_the_limit() {
        let limiter = LoginLimiter::default();
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        let reserved = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..40 {
                s.spawn(|| {
                    if let Some(attempt) = limiter.reserve((5, 100), "a@x.org", ip, 1000) {
                        reserved.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        drop(attempt);
                    }
                });
            }
        });
        assert_eq!(reserved.into_inner(), 5);
    }

    #[test]
    fn the_remembered_attempts_stay_bounded() {
        let mut f = Failures::default();
        for i in 0..(TRACKED + 10) {
            f.add(&i.to_string(), i as u64 / 1000);
        }
        assert!(f.seen.len() <= TRACKED, "{}", f.seen.len());
    }
}
