//! Owns the panel: every `adcab admin` and `adcab sim` operation of the operator document, each
//! returning the exact JSON object the command prints. The CLI and the tests both call these;
//! they reuse the store, platform and webhook code of the service. Blocking.

use serde_json::{json, Value};

use crate::auth::{self, generate_key, random_hex, sha256_hex};
use crate::clock;
use crate::domain::access::{Access, Plan};
use crate::domain::money::{CabinetType, Money, MAX_UNITS, MONEY_SCALE};
use crate::domain::task::TaskStatus;
use crate::platform::sim::{Fault, SimError, Simulator};
use crate::platform::PlatformError;
use crate::store::cabinets::{Cabinet, Reachable};
use crate::store::{
    cabinets, campaigns, deliveries, groups, history, keys, tasks, teams, users, StoreError,
};
use crate::webhooks::{guard, sender};
use crate::Services;

/// Each person may hold this many active keys.
pub const MAX_ACTIVE_KEYS: i64 = 5;
const DEFAULT_GROUP_COLOR: &str = "#4A90D9";
const DEFAULT_WEBHOOK_LOG: i64 = 20;

/// Why a panel command was not done. `Display` is the sentence the operator reads.
#[derive(Debug)]
pub enum PanelError {
    /// The operator's input is wrong; `param` names the flag.
    Invalid {
        param: String,
        message: String,
    },
    /// The platform refused what the command asked of it.
    Platform(PlatformError),
    Store(StoreError),
}

impl PanelError {
    /// The flag an input error names.
    pub fn param(&self) -> Option<&str> {
        match self {
            PanelError::Invalid { param, .. } => Some(param),
            PanelError::Platform(_) | PanelError::Store(_) => None,
        }
    }
}

impl std::fmt::Display for PanelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PanelError::Invalid { message, .. } => f.write_str(message),
            PanelError::Platform(e) => write!(f, "the platform refused: {e}"),
            PanelError::Store(StoreError::Busy) => f.write_str(
                "the database is locked by another process (the server or another command); nothing was done, try again",
            ),
            PanelError::Store(e) => write!(f, "internal error: {e}"),
        }
    }
}

impl std::error::Error for PanelError {}

impl From<StoreError> for PanelError {
    fn from(e: StoreError) -> Self {
        PanelError::Store(e)
    }
}

impl From<SimError> for PanelError {
    fn from(e: SimError) -> Self {
        match e {
            SimError::NoAccount(_) => bad("account", e.to_string()),
            SimError::NoAd { .. } | SimError::NotInReview { .. } => bad("ad", e.to_string()),
            SimError::Store(e) => PanelError::Store(e),
        }
    }
}

/// An input error naming `param`.
pub fn bad(param: &str, message: impl Into<String>) -> PanelError {
    PanelError::Invalid {
        param: param.into(),
        message: message.into(),
    }
}

fn now_iso(conn: &rusqlite::Connection) -> Result<String, PanelError> {
    Ok(clock::iso(clock::now(conn)?))
}

fn parse_plan(plan: &str) -> Result<Plan, PanelError> {
    Plan::parse(plan).ok_or_else(|| {
        bad(
            "plan",
            format!("unknown plan '{plan}' (free, pro or agency)"),
        )
    })
}

fn parse_balance(text: &str) -> Result<Money, PanelError> {
    Money::parse(text, MONEY_SCALE).map_err(|e| bad("balance", format!("balance {e}")))
}

fn require_user(conn: &rusqlite::Connection, id: i64) -> Result<users::User, PanelError> {
    users::get(conn, id)?.ok_or_else(|| bad("id", format!("no user with id {id}")))
}

fn require_cabinet(conn: &rusqlite::Connection, id: i64) -> Result<Cabinet, PanelError> {
    cabinets::get(conn, id)?.ok_or_else(|| bad("cabinet", format!("no cabinet with id {id}")))
}

fn require_key(conn: &rusqlite::Connection, id: i64) -> Result<keys::KeyRow, PanelError> {
    keys::get(conn, id)?.ok_or_else(|| bad("id", format!("no key with id {id}")))
}

pub fn user_add(s: &Services, email: &str, plan: &str) -> Result<Value, PanelError> {
    let plan = parse_plan(plan)?;
    let email = email.trim();
    if !email.contains('@') {
        return Err(bad("email", format!("'{email}' is not an email address")));
    }
    s.db.write_blocking(|tx| {
        let now = now_iso(tx)?;
        match users::insert(tx, email, plan, &now) {
            Ok(id) => Ok(json!({ "id": id })),
            Err(StoreError::Conflict) => {
                Err(bad("email", format!("a user with email {email} exists")))
            }
            Err(e) => Err(e.into()),
        }
    })
}

pub fn user_set(
    s: &Services,
    id: i64,
    plan: Option<&str>,
    subscription: Option<&str>,
) -> Result<Value, PanelError> {
    let plan = plan.map(parse_plan).transpose()?;
    let active = subscription
        .map(|v| match v {
            "active" => Ok(true),
            "expired" => Ok(false),
            other => Err(bad(
                "subscription",
                format!("unknown subscription state '{other}' (active or expired)"),
            )),
        })
        .transpose()?;
    s.db.write_blocking(|tx| {
        require_user(tx, id)?;
        if let Some(plan) = plan {
            users::set_plan(tx, id, plan)?;
        }
        if let Some(active) = active {
            users::set_subscription(tx, id, active)?;
        }
        Ok(json!({ "id": id }))
    })
}

/// Options of `admin cabinet add`.
pub struct NewCabinet<'a> {
    pub owner: i64,
    pub name: &'a str,
    pub kind: &'a str,
    pub balance: Option<&'a str>,
    pub min_budget: Option<i64>,
    pub ad_button: bool,
    pub crypto_filters: bool,
}

/// The smallest non-zero budget of a new cabinet when none is given.
fn default_min_budget(kind: CabinetType) -> i64 {
    match kind {
        CabinetType::Euro | CabinetType::Ton => 5,
        CabinetType::Stars => 500,
    }
}

pub fn cabinet_add(s: &Services, c: &NewCabinet) -> Result<Value, PanelError> {
    let kind = CabinetType::parse(c.kind).ok_or_else(|| {
        bad(
            "type",
            format!("unknown cabinet type '{}' (euro, ton or stars)", c.kind),
        )
    })?;
    let balance = c
        .balance
        .map(parse_balance)
        .transpose()?
        .unwrap_or(Money::ZERO);
    let min_budget = c.min_budget.unwrap_or_else(|| default_min_budget(kind));
    if !(0..=MAX_UNITS).contains(&min_budget) {
        return Err(bad(
            "min-budget",
            format!("min-budget must be from 0 to {MAX_UNITS}"),
        ));
    }
    if c.name.trim().is_empty() {
        return Err(bad("name", "the cabinet needs a name"));
    }
    s.db.read_blocking(|conn| {
        require_user(conn, c.owner)
            .map_err(|_| bad("owner", format!("no user with id {}", c.owner)))
    })?;
    let id = s
        .platform
        .open_account(kind, balance)
        .map_err(|e| bad("platform", e.to_string()))?;
    s.db.write_blocking(|tx| {
        let now = now_iso(tx)?;
        let cabinet = Cabinet {
            id,
            owner_id: c.owner,
            name: c.name.trim().to_string(),
            cabinet_type: kind,
            is_active: true,
            balance,
            balance_updated_at: now.clone(),
            min_budget,
            ad_button: c.ad_button,
            crypto_filters: c.crypto_filters,
            auth_expired: false,
            locked: false,
        };
        cabinets::insert(tx, &cabinet, &now)?;
        Ok(json!({ "id": id }))
    })
}

/// Options of `admin cabinet set`.
#[derive(Default)]
pub struct CabinetChange<'a> {
    pub active: Option<bool>,
    pub balance: Option<&'a str>,
    pub auth_expired: Option<bool>,
    pub locked: Option<bool>,
}

pub fn cabinet_set(s: &Services, id: i64, change: &CabinetChange) -> Result<Value, PanelError> {
    let balance = change.balance.map(parse_balance).transpose()?;
    s.db.read_blocking(|conn| require_cabinet(conn, id))?;
    if let Some(balance) = balance {
        s.platform
            .set_balance(id, balance)
            .map_err(|e| bad("balance", e.to_string()))?;
    }
    s.db.write_blocking(|tx| {
        let now = now_iso(tx)?;
        if let Some(balance) = balance {
            cabinets::set_balance(tx, id, balance, &now)?;
        }
        if let Some(active) = change.active {
            cabinets::set_active(tx, id, active)?;
        }
        if let Some(expired) = change.auth_expired {
            cabinets::set_auth_expired(tx, id, expired)?;
        }
        if let Some(locked) = change.locked {
            cabinets::set_locked(tx, id, locked)?;
        }
        Ok(json!({ "id": id }))
    })
}

pub fn member_add(
    s: &Services,
    agency: i64,
    member: i64,
    cabinet: i64,
    access: &str,
) -> Result<Value, PanelError> {
    let access = match Access::parse(access) {
        Some(a @ (Access::Manager | Access::Viewer)) => a,
        _ => {
            return Err(bad(
                "access",
                format!("unknown access '{access}' (manager or viewer)"),
            ))
        }
    };
    s.db.write_blocking(|tx| {
        let owner = require_user(tx, agency)
            .map_err(|_| bad("agency", format!("no user with id {agency}")))?;
        if owner.plan != Plan::Agency {
            return Err(bad(
                "agency",
                format!("user {agency} is not on the Agency plan"),
            ));
        }
        require_user(tx, member).map_err(|_| bad("member", format!("no user with id {member}")))?;
        if member == agency {
            return Err(bad(
                "member",
                "the agency owner cannot be their own team member",
            ));
        }
        let c = require_cabinet(tx, cabinet)?;
        if c.owner_id != agency {
            return Err(bad(
                "cabinet",
                format!("cabinet {cabinet} does not belong to user {agency}"),
            ));
        }
        teams::add_member(tx, agency, member)?;
        teams::share(tx, agency, member, cabinet, access)?;
        Ok(json!({}))
    })
}

pub fn member_remove(
    s: &Services,
    agency: i64,
    member: i64,
    cabinet: Option<i64>,
) -> Result<Value, PanelError> {
    s.db.write_blocking(|tx| {
        let removed = match cabinet {
            Some(c) => teams::unshare(tx, agency, member, c)?,
            None => teams::remove_member(tx, agency, member)?,
        };
        if removed == 0 {
            return Err(bad(
                "member",
                format!("user {member} has no such place in the team of user {agency}"),
            ));
        }
        Ok(json!({}))
    })
}

pub fn group_add(
    s: &Services,
    cabinet: i64,
    name: &str,
    color: Option<&str>,
) -> Result<Value, PanelError> {
    let color = color.unwrap_or(DEFAULT_GROUP_COLOR);
    let valid = color.len() == 7
        && color.starts_with('#')
        && color[1..].chars().all(|c| c.is_ascii_hexdigit());
    if !valid {
        return Err(bad("color", format!("'{color}' is not a #RRGGBB color")));
    }
    let name = name.trim();
    if name.is_empty() {
        return Err(bad("name", "the group needs a name"));
    }
    s.db.write_blocking(|tx| {
        require_cabinet(tx, cabinet)?;
        match groups::insert(tx, cabinet, name, color) {
            Ok(id) => Ok(json!({ "id": id })),
            Err(StoreError::Conflict) => Err(bad(
                "name",
                format!("cabinet {cabinet} already has a group named '{name}'"),
            )),
            Err(e) => Err(e.into()),
        }
    })
}

/// Options of `admin key create`.
#[derive(Default)]
pub struct NewKey<'a> {
    pub user: i64,
    pub manage: bool,
    pub postbacks: bool,
    pub cabinets: Option<Vec<i64>>,
    pub partner: bool,
    pub webhook_url: Option<&'a str>,
}

fn check_scope(conn: &rusqlite::Connection, user: i64, cabinets: &[i64]) -> Result<(), PanelError> {
    if cabinets.is_empty() {
        return Err(bad(
            "cabinets",
            "name at least one cabinet, or leave --cabinets out for all",
        ));
    }
    let reach = cabinets::reachable_by(conn, user)?;
    match cabinets
        .iter()
        .find(|id| !reach.iter().any(|r| r.cabinet.id == **id))
    {
        Some(id) => Err(bad(
            "cabinets",
            format!("user {user} cannot open cabinet {id}"),
        )),
        None => Ok(()),
    }
}

fn check_webhook_url(s: &Services, url: &str) -> Result<(), PanelError> {
    guard::check_url(url, s.config.webhooks.allow_private_targets)
        .map(|_| ())
        .map_err(|e| bad("webhook-url", e))
}

pub fn key_create(s: &Services, k: &NewKey) -> Result<Value, PanelError> {
    if let Some(url) = k.webhook_url {
        check_webhook_url(s, url)?;
    }
    let key = generate_key();
    let secret = webhook_secret();
    s.db.write_blocking(|tx| {
        let user = require_user(tx, k.user)
            .map_err(|_| bad("user", format!("no user with id {}", k.user)))?;
        let covered = !teams::covering_agencies(tx, user.id)?.is_empty();
        if !user.plan.includes_api() && !covered {
            return Err(bad(
                "user",
                "API keys are available on the Pro and Agency plans",
            ));
        }
        if keys::count_active(tx, user.id)? >= MAX_ACTIVE_KEYS {
            return Err(bad(
                "user",
                format!(
                    "user {} already holds {MAX_ACTIVE_KEYS} active keys",
                    user.id
                ),
            ));
        }
        if let Some(list) = &k.cabinets {
            check_scope(tx, user.id, list)?;
        }
        let now = now_iso(tx)?;
        let hash = sha256_hex(&key);
        let id = keys::insert(
            tx,
            &keys::NewKey {
                user_id: user.id,
                key_hash: &hash,
                manage: k.manage,
                postbacks: k.postbacks,
                partner: k.partner,
                scope_all: k.cabinets.is_none(),
                webhook_url: k.webhook_url,
                webhook_secret: &secret,
            },
            &now,
        )?;
        if let Some(list) = &k.cabinets {
            keys::set_scope(tx, id, Some(list))?;
        }
        Ok(json!({ "id": id, "key": key, "webhook_secret": secret }))
    })
}

fn webhook_secret() -> String {
    format!("whsec_{}", random_hex(32))
}

/// Options of `admin key set`; `cabinets: Some(None)` is scope "All".
#[derive(Default)]
pub struct KeyChange<'a> {
    pub manage: Option<bool>,
    pub postbacks: Option<bool>,
    /// `Some(None)` removes the URL.
    pub webhook_url: Option<Option<&'a str>>,
    pub cabinets: Option<Option<Vec<i64>>>,
}

pub fn key_set(s: &Services, id: i64, change: &KeyChange) -> Result<Value, PanelError> {
    if let Some(Some(url)) = change.webhook_url {
        check_webhook_url(s, url)?;
    }
    s.db.write_blocking(|tx| {
        let key = require_key(tx, id)?;
        if let Some(manage) = change.manage {
            keys::set_manage(tx, id, manage)?;
        }
        if let Some(on) = change.postbacks {
            keys::set_postbacks(tx, id, on)?;
        }
        if let Some(url) = change.webhook_url {
            keys::set_webhook_url(tx, id, url)?;
        }
        if let Some(scope) = &change.cabinets {
            if let Some(list) = scope {
                check_scope(tx, key.user_id, list)?;
            }
            keys::set_scope(tx, id, scope.as_deref())?;
        }
        Ok(json!({ "id": id }))
    })
}

pub fn key_revoke(s: &Services, id: i64) -> Result<Value, PanelError> {
    s.db.write_blocking(|tx| {
        require_key(tx, id)?;
        keys::revoke(tx, id, &now_iso(tx)?)?;
        Ok(json!({ "id": id }))
    })
}

pub fn key_rotate_secret(s: &Services, id: i64) -> Result<Value, PanelError> {
    let secret = webhook_secret();
    s.db.write_blocking(|tx| {
        require_key(tx, id)?;
        keys::set_webhook_secret(tx, id, &secret)?;
        Ok(json!({ "id": id, "webhook_secret": secret }))
    })
}

/// The Test button: sends a `ping` to the key's webhook URL now and logs the delivery.
pub fn key_ping(s: &Services, id: i64) -> Result<Value, PanelError> {
    let key = s.db.read_blocking(|conn| require_key(conn, id))?;
    let url = key
        .webhook_url
        .clone()
        .ok_or_else(|| bad("id", format!("key {id} has no webhook URL")))?;
    let delivery = uuid::Uuid::new_v4().to_string();
    let payload = json!({ "event": "ping", "key_id": id });
    let outcome = sender::dispatch(s, &key, &url, "ping", &delivery, payload, None)?;
    Ok(json!({ "delivery": delivery, "status": outcome.status }))
}

/// A person's keys; an agency owner also sees the keys of their team.
pub fn key_list(s: &Services, user: i64) -> Result<Value, PanelError> {
    s.db.read_blocking(|conn| {
        let owner =
            require_user(conn, user).map_err(|_| bad("user", format!("no user with id {user}")))?;
        let mut people = vec![owner.id];
        if owner.plan == Plan::Agency {
            people.extend(teams::members(conn, owner.id)?);
        }
        let mut list = Vec::new();
        for key in keys::list_active(conn, &people)? {
            let reach = auth::reach_of(conn, &key)?;
            let cabinets = reach
                .iter()
                .filter(|r: &&Reachable| r.cabinet.is_active)
                .count();
            list.push(json!({
                "id": key.id,
                "owner": key.user_id,
                "manage": key.manage,
                "postbacks": key.postbacks,
                "partner": key.partner,
                "scope": if key.scope_all { "all" } else { "several" },
                "cabinets": cabinets,
                "last_used_at": key.last_used_at,
            }));
        }
        Ok(json!({ "keys": list }))
    })
}

pub fn tracker_rotate(s: &Services, user: i64) -> Result<Value, PanelError> {
    let token = format!("trk_{}", random_hex(24));
    s.db.write_blocking(|tx| {
        require_user(tx, user).map_err(|_| bad("user", format!("no user with id {user}")))?;
        keys::replace_tracker_token(tx, user, &sha256_hex(&token), &now_iso(tx)?)?;
        Ok(json!({ "token": token, "path": format!("/api/v1/ingest/{token}") }))
    })
}

fn require_task(conn: &rusqlite::Connection, id: i64) -> Result<tasks::Task, PanelError> {
    tasks::get(conn, id)?.ok_or_else(|| bad("id", format!("no such task: {id}")))
}

/// Cancels a task that has not ended; an item already under way still finishes.
pub fn task_cancel(s: &Services, id: i64) -> Result<Value, PanelError> {
    s.db.write_blocking(|tx| {
        let task = require_task(tx, id)?;
        if task.status.is_final() {
            return Err(bad(
                "id",
                format!("task {id} is already {}", task.status.as_str()),
            ));
        }
        tasks::cancel(tx, id, &now_iso(tx)?)?;
        Ok(json!({ "id": id, "status": "cancelled" }))
    })
}

/// Resumes a paused task (after a top-up): it queues again and continues where it stopped.
pub fn task_resume(s: &Services, id: i64) -> Result<Value, PanelError> {
    s.db.write_blocking(|tx| {
        let task = require_task(tx, id)?;
        if task.status != TaskStatus::Paused {
            return Err(bad(
                "id",
                format!("task {id} is {}, not paused", task.status.as_str()),
            ));
        }
        tasks::resume(tx, id)?;
        Ok(json!({ "id": id, "status": "pending" }))
    })
}

pub fn history(s: &Services, account: i64, ad: i64) -> Result<Value, PanelError> {
    s.db.read_blocking(|conn| {
        campaigns::get(conn, account, ad)?
            .ok_or_else(|| bad("ad", format!("no campaign {ad} in cabinet {account}")))?;
        Ok(json!({ "events": history::list(conn, account, ad)? }))
    })
}

pub fn webhook_log(s: &Services, key: i64, limit: Option<i64>) -> Result<Value, PanelError> {
    let limit = limit.unwrap_or(DEFAULT_WEBHOOK_LOG);
    if !(1..=1000).contains(&limit) {
        return Err(bad("limit", "limit must be from 1 to 1000"));
    }
    s.db.read_blocking(|conn| {
        require_key(conn, key).map_err(|_| bad("key", format!("no key with id {key}")))?;
        Ok(json!({ "deliveries": deliveries::recent(conn, key, limit)? }))
    })
}

fn simulator(s: &Services) -> Result<&Simulator, PanelError> {
    s.sim
        .as_deref()
        .ok_or_else(|| bad("platform", "the simulator is not the configured platform"))
}

pub fn sim_now(s: &Services) -> Result<Value, PanelError> {
    let now = s.db.read_blocking(clock::now)?;
    Ok(json!({ "now": clock::iso(now) }))
}

pub fn sim_advance(s: &Services, seconds: i64) -> Result<Value, PanelError> {
    simulator(s)?;
    if !(1..=clock::MAX_ADVANCE).contains(&seconds) {
        return Err(bad(
            "seconds",
            format!("seconds must be from 1 to {} (a year)", clock::MAX_ADVANCE),
        ));
    }
    let now =
        s.db.write_blocking(|tx| clock::advance(tx, seconds))?
            .ok_or_else(|| {
                bad(
                    "seconds",
                    "the service clock cannot run more than a hundred years ahead",
                )
            })?;
    Ok(json!({ "now": clock::iso(now) }))
}

/// Decides a pending review and brings the service's copy up to date at once.
pub fn sim_review(
    s: &Services,
    account: i64,
    ad: i64,
    approve: bool,
    reason: Option<&str>,
) -> Result<Value, PanelError> {
    let status = simulator(s)?.review(account, ad, approve, reason)?;
    if let Err(e) = crate::sync::reread(s, account, ad)? {
        tracing::warn!(account, ad, error = %e, "the copy was not refreshed after review");
    }
    Ok(json!({ "status": status.as_str() }))
}

pub fn sim_fail(s: &Services, account: i64, next: &str, count: u32) -> Result<Value, PanelError> {
    let fault = Fault::parse(next).ok_or_else(|| {
        bad(
            "next",
            format!("unknown fault '{next}' (timeout, refuse, ignore or panic)"),
        )
    })?;
    simulator(s)?.inject_fault(account, fault, count)?;
    Ok(json!({}))
}
