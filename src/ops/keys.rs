//! Owns keys and webhooks, for `adcab admin key` and the web panel alike: creating, changing,
//! revoking keys and their secrets, the Test button, a person's (or a team's) keys, the tracker
//! token, and the delivery log.

use serde_json::json;

use super::{
    bad, now_iso, require_key, require_user, By, CreatedKey, Id, KeyList, KeySummary, OpsError,
    Owned, Pinged, RotatedSecret, Tracker, WebhookLog,
};
use crate::auth::{self, generate_key};
use crate::domain::access::Plan;
use crate::outbound;
use crate::primitives::{random_hex, sha256_hex};
use crate::services::Services;
use crate::store::cabinets::{self, Reachable};
use crate::store::keys::KeyRow;
use crate::store::{deliveries, keys, teams, users};
use crate::webhooks::{guard, sender};

/// Each person may hold this many active keys.
pub const MAX_ACTIVE_KEYS: i64 = 5;
/// Deliveries `admin webhook log` lists by default.
const DEFAULT_WEBHOOK_LOG: i64 = 20;

/// Options of `admin key create`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct NewKey {
    #[arg(long)]
    pub user: i64,
    /// Allow managing campaigns.
    #[arg(long)]
    pub manage: bool,
    /// Receive postbacks.
    #[arg(long)]
    pub postbacks: bool,
    /// Scope: these cabinets only, ID,ID,... (default: all).
    #[arg(long, value_delimiter = ',')]
    pub cabinets: Option<Vec<i64>>,
    /// A partner key: never writes, balances hidden.
    #[arg(long)]
    pub partner: bool,
    #[arg(long)]
    pub webhook_url: Option<String>,
}

/// A key's scope as `admin key set --cabinets` takes it: `all`, or `ID,ID,...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    All,
    Cabinets(Vec<i64>),
}

/// A part of `--cabinets` that is not a cabinet id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotACabinetId(pub String);

impl std::fmt::Display for NotACabinetId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}' is not a cabinet id", self.0)
    }
}

impl std::error::Error for NotACabinetId {}

impl std::str::FromStr for Scope {
    type Err = NotACabinetId;

    fn from_str(text: &str) -> Result<Scope, NotACabinetId> {
        if text == "all" {
            return Ok(Scope::All);
        }
        text.split(',')
            .map(|p| {
                p.trim()
                    .parse::<i64>()
                    .map_err(|_| NotACabinetId(p.to_string()))
            })
            .collect::<Result<_, _>>()
            .map(Scope::Cabinets)
    }
}

/// A key's webhook URL as `admin key set --webhook-url` takes it: a URL, or `none`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookUrl {
    None,
    Url(String),
}

impl std::str::FromStr for WebhookUrl {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<WebhookUrl, Self::Err> {
        Ok(match text {
            "none" => WebhookUrl::None,
            url => WebhookUrl::Url(url.to_string()),
        })
    }
}

fn check_scope(conn: &rusqlite::Connection, user: i64, cabinets: &[i64]) -> Result<(), OpsError> {
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

fn check_webhook_url(s: &Services, url: &str) -> Result<(), OpsError> {
    guard::check_url(url, s.config.webhooks.allow_private_targets)
        .map(|_| ())
        .map_err(|e| bad("webhook-url", e.to_string()))
}

pub fn key_create(s: &Services, k: &NewKey) -> Result<CreatedKey, OpsError> {
    if let Some(url) = &k.webhook_url {
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
                webhook_url: k.webhook_url.as_deref(),
                webhook_secret: &secret,
            },
            &now,
        )?;
        if let Some(list) = &k.cabinets {
            keys::set_scope(tx, id, Some(list))?;
        }
        Ok(CreatedKey {
            id,
            key,
            webhook_secret: secret,
        })
    })
}

fn webhook_secret() -> String {
    format!("whsec_{}", random_hex(32))
}

/// Options of `admin key set`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct KeyChange {
    #[arg(long)]
    pub manage: Option<bool>,
    #[arg(long)]
    pub postbacks: Option<bool>,
    /// A URL, or `none` to remove it.
    #[arg(long)]
    pub webhook_url: Option<WebhookUrl>,
    /// ID,ID,... or `all`.
    #[arg(long)]
    pub cabinets: Option<Scope>,
}

/// Key `id` as `by` may change it: any key for the operator (an unknown id is an input error),
/// a live key of their own for a person ([`OpsError::NotYours`] otherwise).
pub fn key_of(conn: &rusqlite::Connection, by: By, id: i64) -> Result<KeyRow, OpsError> {
    match by {
        By::Operator => require_key(conn, id),
        By::Person(_) => keys::get(conn, id)?
            .filter(|k| by.may_change(k.user_id) && !k.revoked)
            .ok_or(OpsError::NotYours(Owned::Key)),
    }
}

pub fn key_set(s: &Services, by: By, id: i64, change: &KeyChange) -> Result<Id, OpsError> {
    if let Some(WebhookUrl::Url(url)) = &change.webhook_url {
        check_webhook_url(s, url)?;
    }
    s.db.write_blocking(|tx| {
        let key = key_of(tx, by, id)?;
        if let Some(manage) = change.manage {
            keys::set_manage(tx, id, manage)?;
        }
        if let Some(on) = change.postbacks {
            keys::set_postbacks(tx, id, on)?;
        }
        if let Some(url) = &change.webhook_url {
            let url = match url {
                WebhookUrl::None => None,
                WebhookUrl::Url(url) => Some(url.as_str()),
            };
            keys::set_webhook_url(tx, id, url)?;
        }
        match &change.cabinets {
            None => {}
            Some(Scope::All) => keys::set_scope(tx, id, None)?,
            Some(Scope::Cabinets(list)) => {
                check_scope(tx, key.user_id, list)?;
                keys::set_scope(tx, id, Some(list))?;
            }
        }
        Ok(Id { id })
    })
}

pub fn key_revoke(s: &Services, by: By, id: i64) -> Result<Id, OpsError> {
    s.db.write_blocking(|tx| {
        key_of(tx, by, id)?;
        keys::revoke(tx, id, &now_iso(tx)?)?;
        Ok(Id { id })
    })
}

pub fn key_rotate_secret(s: &Services, by: By, id: i64) -> Result<RotatedSecret, OpsError> {
    let secret = webhook_secret();
    s.db.write_blocking(|tx| {
        key_of(tx, by, id)?;
        keys::set_webhook_secret(tx, id, &secret)?;
        Ok(RotatedSecret {
            id,
            webhook_secret: secret,
        })
    })
}

/// The Test button: sends a `ping` to the key's webhook URL now and logs the delivery. One
/// Test of a key at a time, and a few in all (see [`crate::outbound`]).
pub fn key_ping(s: &Services, by: By, id: i64) -> Result<Pinged, OpsError> {
    let key = s.db.read_blocking(|conn| key_of(conn, by, id))?;
    let _turn = s.outbound.test(id).map_err(|refused| {
        bad(
            "id",
            match refused {
                outbound::Refused::SameKey => format!(
                    "a test of key {id} is still waiting for its receiver; try again when it has answered"
                ),
                outbound::Refused::Full => format!(
                    "{} webhook tests are waiting for their receivers; try again shortly",
                    outbound::TESTS
                ),
            },
        )
    })?;
    let url = key
        .webhook_url
        .clone()
        .ok_or_else(|| bad("id", format!("key {id} has no webhook URL")))?;
    let delivery = uuid::Uuid::new_v4().to_string();
    let payload = json!({ "event": "ping", "key_id": id }).to_string();
    let outcome = sender::dispatch(s, &key, &url, "ping", &delivery, &payload, None)?;
    Ok(Pinged {
        delivery,
        status: outcome.status,
    })
}

/// Sends a logged delivery again, under a new delivery id and with a new `delivered_at`,
/// signed with the key's current secret: for a delivery that failed (one that was
/// delivered is refused, so a receiver never gets an event twice by mistake). The body is
/// the one logged; deliveries logged before bodies were kept cannot be sent again.
pub fn webhook_resend(s: &Services, delivery: &str) -> Result<Pinged, OpsError> {
    let wanted = delivery.to_string();
    let logged =
        s.db.read_blocking(|conn| deliveries::by_delivery_id(conn, &wanted))?
            .ok_or_else(|| bad("delivery", format!("no delivery {delivery} is logged")))?;
    if logged.status.is_some_and(|st| (200..300).contains(&st)) {
        return Err(bad(
            "delivery",
            format!(
                "delivery {delivery} was delivered ({}); only a failed one is sent again",
                logged.status.unwrap_or_default()
            ),
        ));
    }
    let body = logged.payload.ok_or_else(|| {
        bad(
            "delivery",
            format!("delivery {delivery} was logged without its body, so it cannot be sent again"),
        )
    })?;
    let mut payload: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&body)
        .map_err(|e| {
            bad(
                "delivery",
                format!("the logged body of {delivery} is not a JSON object: {e}"),
            )
        })?;
    // Stamped anew as it goes.
    payload.remove("delivered_at");
    let payload = serde_json::Value::Object(payload).to_string();
    let key =
        s.db.read_blocking(|conn| require_key(conn, logged.key_id))?;
    let url = key
        .webhook_url
        .clone()
        .ok_or_else(|| bad("delivery", format!("key {} has no webhook URL now", key.id)))?;
    let new_id = uuid::Uuid::new_v4().to_string();
    let outcome = sender::dispatch(s, &key, &url, &logged.event, &new_id, &payload, None)?;
    Ok(Pinged {
        delivery: new_id,
        status: outcome.status,
    })
}

/// A person's keys; an agency owner also sees the keys of their team. Without a person,
/// every active key of every person.
pub fn key_list(s: &Services, user: Option<i64>) -> Result<KeyList, OpsError> {
    s.db.read_blocking(|conn| {
        let people = match user {
            Some(user) => {
                let owner = require_user(conn, user)
                    .map_err(|_| bad("user", format!("no user with id {user}")))?;
                let mut people = vec![owner.id];
                if owner.plan == Plan::Agency {
                    people.extend(teams::members(conn, owner.id)?);
                }
                people
            }
            None => users::list(conn)?.into_iter().map(|u| u.id).collect(),
        };
        let mut list = Vec::new();
        for key in keys::list_active(conn, &people)? {
            let reach = auth::reach_of(conn, &key)?;
            let cabinets = reach
                .iter()
                .filter(|r: &&Reachable| r.cabinet.is_active)
                .count();
            list.push(KeySummary {
                id: key.id,
                owner: key.user_id,
                manage: key.manage,
                postbacks: key.postbacks,
                partner: key.partner,
                scope: if key.scope_all { "all" } else { "several" },
                cabinets,
                last_used_at: key.last_used_at,
            });
        }
        Ok(KeyList { keys: list })
    })
}

pub fn tracker_rotate(s: &Services, user: i64) -> Result<Tracker, OpsError> {
    let token = format!("trk_{}", random_hex(24));
    s.db.write_blocking(|tx| {
        require_user(tx, user).map_err(|_| bad("user", format!("no user with id {user}")))?;
        keys::replace_tracker_token(tx, user, &sha256_hex(&token), &now_iso(tx)?)?;
        Ok(Tracker {
            path: format!("/api/v1/ingest/{token}"),
            token,
        })
    })
}

pub fn webhook_log(s: &Services, key: i64, limit: Option<i64>) -> Result<WebhookLog, OpsError> {
    let limit = limit.unwrap_or(DEFAULT_WEBHOOK_LOG);
    if !(1..=1000).contains(&limit) {
        return Err(bad("limit", "limit must be from 1 to 1000"));
    }
    s.db.read_blocking(|conn| {
        require_key(conn, key).map_err(|_| bad("key", format!("no key with id {key}")))?;
        Ok(WebhookLog {
            deliveries: deliveries::recent(conn, key, limit)?,
        })
    })
}
