//! Owns who a request is: the API key's format, its SHA-256 lookup, and the key holder's reach
//! (plan, scope, cabinets and access levels), read from the database, or kept from a request
//! at the same access generation (`principals`), so revocation and lost access take effect at
//! once. Owns the write-side permission checks.

pub mod logins;
mod principals;

pub use logins::LoginLimiter;
pub use principals::Principals;

use std::sync::Arc;

use rusqlite::Connection;

use crate::domain::access::Access;
use crate::primitives::{random_hex, sha256_hex};
use crate::store::cabinets::Reachable;
use crate::store::keys::KeyRow;
use crate::store::users::User;
use crate::store::StoreError;
use crate::store::{cabinets, keys, teams, users};

/// Why a key, a tracker token or a person may not do what they ask: the access rules' refusals,
/// each with the spec's code and a sentence, read by every face alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthError {
    ApiKeyMissing,
    ApiKeyInvalid,
    NoAccounts,
    /// The key holder's plan does not allow API keys.
    Forbidden,
    ReadOnlyKey,
    WriteNotAllowed,
    ViewOnlyAccess,
    FeatureNotAvailable {
        feature: &'static str,
    },
    SubscriptionRequired,
    AccountInactive,
    AccountIdRequired {
        why: &'static str,
    },
    AccountNotFound,
    /// The tracker token in the ingest path is not (or no longer) valid.
    TokenInvalid,
    /// The cabinet's platform session expired: it is reconnected in the panel.
    CabinetAuthExpired,
    /// The operator put the cabinet under automatic management.
    CabinetLocked,
}

impl AuthError {
    /// The spec's code.
    pub fn code(self) -> &'static str {
        match self {
            AuthError::ApiKeyMissing => "API_KEY_MISSING",
            AuthError::ApiKeyInvalid => "API_KEY_INVALID",
            AuthError::NoAccounts => "NO_ACCOUNTS",
            AuthError::Forbidden => "FORBIDDEN",
            AuthError::ReadOnlyKey => "READ_ONLY_KEY",
            AuthError::WriteNotAllowed => "WRITE_NOT_ALLOWED",
            AuthError::ViewOnlyAccess => "VIEW_ONLY_ACCESS",
            AuthError::FeatureNotAvailable { .. } => "FEATURE_NOT_AVAILABLE",
            AuthError::SubscriptionRequired => "SUBSCRIPTION_REQUIRED",
            AuthError::AccountInactive => "ACCOUNT_INACTIVE",
            AuthError::AccountIdRequired { .. } => "ACCOUNT_ID_REQUIRED",
            AuthError::AccountNotFound => "ACCOUNT_NOT_FOUND",
            AuthError::TokenInvalid => "TOKEN_INVALID",
            AuthError::CabinetAuthExpired => "CABINET_AUTH_EXPIRED",
            AuthError::CabinetLocked => "CABINET_LOCKED",
        }
    }

    /// The sentence for the client or the person.
    pub fn sentence(self) -> String {
        match self {
            AuthError::ApiKeyMissing => "The X-API-Key header is missing.".into(),
            AuthError::ApiKeyInvalid => "The API key is wrong, revoked or expired.".into(),
            AuthError::NoAccounts => "The API key reaches no active cabinet.".into(),
            AuthError::Forbidden => {
                "API keys are not available on the key owner's plan (Pro or Agency needed).".into()
            }
            AuthError::ReadOnlyKey => "This key lacks the Manage campaigns permission.".into(),
            AuthError::WriteNotAllowed => "Partner keys cannot make changes.".into(),
            AuthError::ViewOnlyAccess => "You have Viewer access to this cabinet.".into(),
            AuthError::FeatureNotAvailable { .. } => {
                "Your plan does not include this action; an active Pro or Agency plan is needed."
                    .into()
            }
            AuthError::SubscriptionRequired => {
                "The cabinet owner has no active subscription.".into()
            }
            AuthError::AccountInactive => "The cabinet is deactivated.".into(),
            AuthError::AccountIdRequired { why } => format!("Send account_id: {why}."),
            AuthError::AccountNotFound => {
                "No cabinet with this account_id is reachable with this key.".into()
            }
            AuthError::TokenInvalid => {
                "This tracker URL is not valid; it may have been rotated in the panel.".into()
            }
            AuthError::CabinetAuthExpired => {
                "The cabinet's platform session expired; the owner reconnects it in the panel."
                    .into()
            }
            AuthError::CabinetLocked => {
                "The cabinet is under automatic management; manual changes are blocked.".into()
            }
        }
    }
}

/// A check that read the database: refused, or the store failed.
#[derive(Debug)]
pub enum AuthFailure {
    Refused(AuthError),
    Store(StoreError),
}

impl From<AuthError> for AuthFailure {
    fn from(e: AuthError) -> Self {
        AuthFailure::Refused(e)
    }
}

impl From<StoreError> for AuthFailure {
    fn from(e: StoreError) -> Self {
        AuthFailure::Store(e)
    }
}

/// Every key starts with this prefix and is `KEY_LEN` characters long.
pub const KEY_PREFIX: &str = "adcab_";
pub const KEY_LEN: usize = 54;

/// Feature named by `FEATURE_NOT_AVAILABLE` when the plan no longer allows writes.
const WRITE_FEATURE: &str = "manage_campaigns";

/// A new API key: the prefix and 192 random bits in hex.
pub fn generate_key() -> String {
    let key = format!(
        "{KEY_PREFIX}{}",
        random_hex((KEY_LEN - KEY_PREFIX.len()) / 2)
    );
    debug_assert_eq!(key.len(), KEY_LEN);
    key
}

/// The key holder and everything they reach, as of this request.
#[derive(Debug, Clone)]
pub struct Principal {
    pub key: KeyRow,
    /// The holder; its `attention_seen_at` (the home page's, which no key face reads) is as of
    /// the read the principal was kept from: writing it does not move the access generation.
    pub user: User,
    /// Reachable cabinets within the key's scope, inactive ones included.
    pub reach: Vec<Reachable>,
    /// The plan API keys need (Pro or Agency, own or through an agency team).
    pub plan_includes_api: bool,
    /// That plan's subscription is active, as writes require.
    pub plan_active: bool,
}

/// Finds the key named by the `X-API-Key` header and its holder's reach: kept in `kept` at
/// the access generation `conn`'s snapshot reads, or read and kept. `conn` is in a read
/// transaction (every `Db` read is), so the generation and the rows are of one snapshot.
pub fn authenticate(
    conn: &Connection,
    kept: &Principals,
    header: Option<&str>,
) -> Result<Arc<Principal>, AuthFailure> {
    let text = header
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or(AuthError::ApiKeyMissing)?;
    if text.len() != KEY_LEN || !text.starts_with(KEY_PREFIX) {
        return Err(AuthError::ApiKeyInvalid.into());
    }
    let hash = sha256_hex(text);
    let generation = keys::access_generation(conn)?;
    if let Some(principal) = kept.get(generation, &hash) {
        return Ok(principal);
    }
    let key = keys::find_by_hash(conn, &hash)?
        .filter(|k| !k.revoked)
        .ok_or(AuthError::ApiKeyInvalid)?;
    let principal = Arc::new(principal(conn, key)?.ok_or(AuthError::ApiKeyInvalid)?);
    kept.keep(generation, hash, principal.clone());
    Ok(principal)
}

/// A key's holder and reach as of now; `None` when the holder no longer exists.
pub fn principal(conn: &Connection, key: KeyRow) -> Result<Option<Principal>, StoreError> {
    let Some(user) = users::get(conn, key.user_id)? else {
        return Ok(None);
    };
    let (plan_includes_api, plan_active) = plan_of(conn, &user)?;
    let reach = reach_of(conn, &key)?;
    Ok(Some(Principal {
        key,
        user,
        reach,
        plan_includes_api,
        plan_active,
    }))
}

/// Whether the person's plan (own, or an agency's that covers them) includes API access,
/// and whether that plan's subscription is active.
pub fn plan_of(conn: &Connection, user: &User) -> Result<(bool, bool), StoreError> {
    let agencies = teams::covering_agencies(conn, user.id)?;
    let includes_api = user.plan.includes_api() || !agencies.is_empty();
    let active =
        (user.plan.includes_api() && user.subscription_active) || agencies.iter().any(|a| *a);
    Ok((includes_api, active))
}

/// The person a tracker token belongs to and the active cabinets they reach: the token
/// stands for them with scope "All". `TOKEN_INVALID` for an unknown or rotated token.
pub fn tracker(conn: &Connection, token: &str) -> Result<(i64, Vec<i64>), AuthFailure> {
    let user = keys::tracker_user(conn, &sha256_hex(token))?
        .and_then(|id| users::get(conn, id).transpose())
        .transpose()?
        .ok_or(AuthError::TokenInvalid)?;
    if !plan_of(conn, &user)?.0 {
        return Err(AuthError::Forbidden.into());
    }
    let accounts: Vec<i64> = cabinets::reachable_by(conn, user.id)?
        .iter()
        .filter(|r| r.cabinet.is_active)
        .map(|r| r.cabinet.id)
        .collect();
    if accounts.is_empty() {
        return Err(AuthError::NoAccounts.into());
    }
    Ok((user.id, accounts))
}

/// The cabinets a key reaches: its holder's, narrowed by the key's scope.
pub fn reach_of(conn: &Connection, key: &KeyRow) -> Result<Vec<Reachable>, StoreError> {
    let mut reach = cabinets::reachable_by(conn, key.user_id)?;
    if !key.scope_all {
        let scope = keys::scope_cabinets(conn, key.id)?;
        reach.retain(|r| scope.contains(&r.cabinet.id));
    }
    Ok(reach)
}

/// The plan check of every write: a plan with API access whose subscription is active.
pub fn check_write_plan(includes_api: bool, active: bool) -> Result<(), AuthError> {
    if !includes_api || !active {
        return Err(AuthError::FeatureNotAvailable {
            feature: WRITE_FEATURE,
        });
    }
    Ok(())
}

/// Checks of the cabinet a write acts on, for a key and a person alike: owner or manager
/// access, an owner with an active subscription, a live platform session and no automatic
/// lock.
pub fn check_write_cabinet(reach: &Reachable) -> Result<(), AuthError> {
    if !reach.access.can_write() {
        return Err(AuthError::ViewOnlyAccess);
    }
    if !reach.owner_subscription_active {
        return Err(AuthError::SubscriptionRequired);
    }
    if reach.cabinet.auth_expired {
        return Err(AuthError::CabinetAuthExpired);
    }
    if reach.cabinet.locked {
        return Err(AuthError::CabinetLocked);
    }
    Ok(())
}

impl Principal {
    /// The checks every request passes once the key is known: the plan allows API keys and
    /// the key reaches at least one active cabinet.
    pub fn check_access(&self) -> Result<(), AuthError> {
        if !self.plan_includes_api {
            return Err(AuthError::Forbidden);
        }
        if self.active().next().is_none() {
            return Err(AuthError::NoAccounts);
        }
        Ok(())
    }

    /// Active cabinets the key reaches.
    pub fn active(&self) -> impl Iterator<Item = &Reachable> {
        self.reach.iter().filter(|r| r.cabinet.is_active)
    }

    /// The named cabinet: `ACCOUNT_NOT_FOUND` when out of reach, `ACCOUNT_INACTIVE` when
    /// deactivated.
    pub fn cabinet(&self, account: i64) -> Result<&Reachable, AuthError> {
        let found = self
            .reach
            .iter()
            .find(|r| r.cabinet.id == account)
            .ok_or(AuthError::AccountNotFound)?;
        if !found.cabinet.is_active {
            return Err(AuthError::AccountInactive);
        }
        Ok(found)
    }

    /// The cabinets a read covers: the named one, or every active one.
    pub fn scope(&self, account: Option<i64>) -> Result<Vec<&Reachable>, AuthError> {
        match account {
            Some(id) => Ok(vec![self.cabinet(id)?]),
            None => Ok(self.active().collect()),
        }
    }

    /// The one cabinet a call acts on: the named one, or the only one the key reaches.
    pub fn single(&self, account: Option<i64>) -> Result<&Reachable, AuthError> {
        if let Some(id) = account {
            return self.cabinet(id);
        }
        let mut active = self.active();
        match (active.next(), active.next()) {
            (Some(only), None) => Ok(only),
            _ => Err(AuthError::AccountIdRequired {
                why: "this key reaches several cabinets",
            }),
        }
    }

    /// Checks of the key itself before any write: not a partner key, Manage campaigns on, and
    /// a plan (Pro or Agency, own or an agency's) that includes writes and is active; a
    /// holder on the Free plan is told the feature is not in the plan.
    pub fn check_write_key(&self) -> Result<(), AuthError> {
        if self.key.partner {
            return Err(AuthError::WriteNotAllowed);
        }
        if !self.key.manage {
            return Err(AuthError::ReadOnlyKey);
        }
        check_write_plan(self.plan_includes_api, self.plan_active)
    }

    /// The access level shown for a cabinet.
    pub fn access_of(&self, account: i64) -> Option<Access> {
        self.reach
            .iter()
            .find(|r| r.cabinet.id == account)
            .map(|r| r.access)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{Db, Open};
    use crate::store::test_db;

    /// A new key of person `user`, scope All, as its text.
    fn new_key(conn: &Connection, user: i64) -> String {
        let text = generate_key();
        let key = keys::NewKey {
            user_id: user,
            key_hash: &sha256_hex(&text),
            manage: true,
            postbacks: false,
            partner: false,
            scope_all: true,
            webhook_url: None,
            webhook_secret: "s",
        };
        keys::insert(conn, &key, "t").unwrap();
        text
    }

    #[test]
    fn a_kept_principal_is_used_until_a_write_moves_the_access_generation() {
        let conn = test_db();
        let kept = Principals::default();
        let text = new_key(&conn, 1);
        let first = authenticate(&conn, &kept, Some(&text)).unwrap();
        let again = authenticate(&conn, &kept, Some(&text)).unwrap();
        assert!(
            Arc::ptr_eq(&first, &again),
            "the second request reads none of it"
        );
        assert!(!first.reach[0].cabinet.locked);
        conn.execute("UPDATE cabinets SET locked = 1 WHERE id = 7", [])
            .unwrap();
        let after = authenticate(&conn, &kept, Some(&text)).unwrap();
        assert!(!Arc::ptr_eq(&first, &after));
        assert!(after.reach[0].cabinet.locked);
        assert_eq!(
            check_write_cabinet(&after.reach[0]),
            Err(AuthError::CabinetLocked)
        );
    }

    #[test]
    fn a_key_revoked_by_another_connection_is_refused_at_the_next_request() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.db");
        let db = Db::open(&path, Open::Create).unwrap();
        let text = db
            .write_blocking(|tx| {
                tx.execute_batch(
                    "INSERT INTO users (id, email, plan, created_at)
                        VALUES (1, 'a@example.com', 'pro', 't');
                     INSERT INTO cabinets (id, owner_id, name, cabinet_type, balance_updated_at,
                        min_budget, created_at) VALUES (7, 1, 'c', 'euro', 't', 1, 't');",
                )?;
                Ok::<_, StoreError>(new_key(tx, 1))
            })
            .unwrap();
        let kept = Principals::default();
        let read = || db.read_blocking(|c| authenticate(c, &kept, Some(&text)));
        let first = read().unwrap();
        assert!(Arc::ptr_eq(&first, &read().unwrap()));
        // As an operator's hand-made fix in sqlite3 would: not through the service's writer.
        let other = Connection::open(&path).unwrap();
        other
            .execute("UPDATE api_keys SET revoked_at = 't'", [])
            .unwrap();
        assert!(matches!(
            read(),
            Err(AuthFailure::Refused(AuthError::ApiKeyInvalid))
        ));
    }

    #[test]
    fn an_unknown_key_is_refused_and_nothing_is_kept_for_it() {
        let conn = test_db();
        let kept = Principals::default();
        let text = generate_key();
        for _ in 0..2 {
            assert!(matches!(
                authenticate(&conn, &kept, Some(&text)),
                Err(AuthFailure::Refused(AuthError::ApiKeyInvalid))
            ));
        }
        let generation = keys::access_generation(&conn).unwrap();
        assert!(kept.get(generation, &sha256_hex(&text)).is_none());
    }

    #[test]
    fn keys_have_the_fixed_prefix_and_length() {
        let a = generate_key();
        let b = generate_key();
        assert_eq!(a.len(), KEY_LEN);
        assert!(a.starts_with(KEY_PREFIX));
        assert_ne!(a, b);
    }
}
