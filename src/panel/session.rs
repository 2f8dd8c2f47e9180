//! Owns the panel's sessions: the cookie, its token (random, stored only as SHA-256), the idle
//! and absolute expiry (`[panel] session_idle_minutes`, `session_max_days`, wall time), the
//! per-session CSRF token, and who the person behind a session is.

use rusqlite::Connection;

use crate::auth::{self, AuthError};
use crate::config::PanelConfig;
use crate::domain::campaign::Source;
use crate::ops::Actor;
use crate::primitives::{random_hex, sha256_hex};
use crate::store::cabinets::{self, Reachable};
use crate::store::users::{self, User};
use crate::store::{sessions, StoreError};

/// The session cookie's name.
pub const COOKIE: &str = "adcab_session";
/// A session's `seen_at` is written again only when older than this, so reading pages does
/// not write on every request.
const TOUCH_AFTER: i64 = 60;

/// A logged-in person and what they reach, re-read on every request (as the API re-reads a
/// key's holder), so lost access takes effect at once.
#[derive(Debug, Clone)]
pub struct Person {
    pub user: User,
    /// Every cabinet the person reaches, inactive ones included, with their access.
    pub reach: Vec<Reachable>,
    /// The person's plan (own or an agency's) includes API access and has an active
    /// subscription, as writes require.
    pub plan_includes_api: bool,
    pub plan_active: bool,
}

impl Person {
    /// Active cabinets the person reaches.
    pub fn active(&self) -> impl Iterator<Item = &Reachable> {
        self.reach.iter().filter(|r| r.cabinet.is_active)
    }

    /// The named active cabinet, if the person reaches it.
    pub fn cabinet(&self, account: i64) -> Option<&Reachable> {
        self.active().find(|r| r.cabinet.id == account)
    }

    /// The cabinet `account` if the person may change it, as the API decides for a managing
    /// key: owner or manager access, an active plan, an owner with a subscription, a live
    /// platform session and no automatic lock. Otherwise the API's refusal.
    pub fn writable(&self, account: i64) -> Result<&Reachable, AuthError> {
        let reach = self.cabinet(account).ok_or(AuthError::AccountNotFound)?;
        auth::check_write_plan(self.plan_includes_api, self.plan_active)
            .and_then(|()| auth::check_write_cabinet(reach))
            .map(|()| reach)
    }

    /// The person as the actor of a change in cabinet `account`, when [`Person::writable`]
    /// lets them make it.
    pub fn actor(&self, account: i64) -> Result<Actor, AuthError> {
        Actor::writer(Source::Panel, self.user.id, self.writable(account)?)
    }

    pub fn is_agency_owner(&self) -> bool {
        self.user.plan == crate::domain::access::Plan::Agency
    }
}

/// A request's valid session.
#[derive(Debug, Clone)]
pub struct Session {
    pub token_hash: String,
    pub csrf: String,
    pub person: Person,
}

/// A new session's cookie token and CSRF token.
pub struct Opened {
    pub token: String,
    pub csrf: String,
}

/// Starts a session for `user_id` at `now` (unix seconds), removing expired ones on the way.
pub fn open(
    conn: &Connection,
    config: &PanelConfig,
    user_id: i64,
    now: i64,
) -> Result<Opened, StoreError> {
    let (idle_before, begun_before) = limits(config, now);
    sessions::delete_expired(conn, idle_before, begun_before)?;
    let token = random_hex(32);
    let csrf = random_hex(32);
    sessions::insert(conn, &sha256_hex(&token), user_id, &csrf, now)?;
    Ok(Opened { token, csrf })
}

/// The oldest `seen_at` and `created_at` a live session may have at `now`.
fn limits(config: &PanelConfig, now: i64) -> (i64, i64) {
    (
        now - i64::from(config.session_idle_minutes) * 60,
        now - i64::from(config.session_max_days) * 86_400,
    )
}

/// What a session cookie's token names at some time.
pub enum Found {
    /// No session (never was, or removed).
    Unknown,
    /// A session past its idle or absolute expiry, by its token's hash: to be removed.
    Expired(String),
    /// A live session; `stale` when its `seen_at` is due to be written again.
    Live { session: Session, stale: bool },
}

/// The session `token` names and its person, as of `now`. Reads only.
pub fn find(
    conn: &Connection,
    config: &PanelConfig,
    token: &str,
    now: i64,
) -> Result<Found, StoreError> {
    let token_hash = sha256_hex(token);
    let Some(row) = sessions::get(conn, &token_hash)? else {
        return Ok(Found::Unknown);
    };
    let (idle_before, begun_before) = limits(config, now);
    if row.seen_at < idle_before || row.created_at < begun_before {
        return Ok(Found::Expired(token_hash));
    }
    let Some(person) = person(conn, row.user_id)? else {
        return Ok(Found::Unknown);
    };
    Ok(Found::Live {
        stale: now - row.seen_at >= TOUCH_AFTER,
        session: Session {
            token_hash,
            csrf: row.csrf,
            person,
        },
    })
}

/// A person and what they reach.
pub fn person(conn: &Connection, user_id: i64) -> Result<Option<Person>, StoreError> {
    let Some(user) = users::get(conn, user_id)? else {
        return Ok(None);
    };
    let (plan_includes_api, plan_active) = auth::plan_of(conn, &user)?;
    let reach = cabinets::reachable_by(conn, user.id)?;
    Ok(Some(Person {
        user,
        reach,
        plan_includes_api,
        plan_active,
    }))
}

/// The value of cookie `name` in a `Cookie` header.
pub fn cookie<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').find_map(|pair| {
        let (k, v) = pair.trim().split_once('=')?;
        (k == name).then_some(v)
    })
}

/// Compares two secrets in time that does not depend on where they differ.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_found_by_name_among_others() {
        let header = "theme=dark; adcab_session=abc123;other=x";
        assert_eq!(cookie(header, COOKIE), Some("abc123"));
        assert_eq!(cookie(header, "other"), Some("x"));
        assert_eq!(cookie(header, "adcab"), None);
    }

    #[test]
    fn secrets_compare_equal_only_when_identical() {
        assert!(same_secret("abcd", "abcd"));
        assert!(!same_secret("abcd", "abce"));
        assert!(!same_secret("abcd", "abc"));
    }
}
