//! Owns the operations under the faces: each change of state one function, called by the API,
//! the command line (every `adcab admin` and `adcab sim` operation of the operator document),
//! the web panel, the demo and the tests alike. A change of a cabinet's campaigns, rules or
//! media takes the [`Actor`] allowed to make it and a typed command, and returns a typed result
//! or an `OpsError` (`campaigns/`, `rule/`, `media.rs`); a change of a person's keys or tasks
//! takes [`By`] whom (the operator, or the person, who may change only their own); the
//! operator's own take their input and return a typed answer (that serializes to the exact
//! JSON object the command prints) or an `OpsError`: people and teams, cabinets and groups,
//! keys and webhooks, tasks, rule lists, and the simulator. Blocking.

mod actor;
mod cabinets;
pub mod campaigns;
mod connect;
mod error;
pub mod funds;
pub mod ingest;
mod keys;
pub mod lookup;
pub mod media;
pub mod people;
pub mod proposal_text;
pub mod proposals;
mod rates;
mod reconcile;
pub mod reports;
pub mod returns;
pub mod rule;
mod rules;
mod sim;
pub mod statement;
mod tasks;
mod users;
pub mod write_back;

pub use actor::{Actor, By};
pub use cabinets::{cabinet_add, cabinet_set, group_add, history, CabinetChange, NewCabinet};
pub use connect::{
    cabinet_connect, cabinet_list, cabinet_reconnect, cabinet_sync, platform_check, read_token,
    CabinetList, Checked, Connected, Synced, MAX_TOKEN,
};
pub use error::{bad, refused, OpsError, Owned};
pub use keys::{
    key_create, key_list, key_of, key_ping, key_revoke, key_rotate_secret, key_set, tracker_rotate,
    webhook_log, webhook_resend, KeyChange, NewKey, Scope, WebhookUrl, MAX_ACTIVE_KEYS,
};
pub use rates::{rate_list, rate_set, RateList, RateShown};
pub use rates::{reporting_currencies, reporting_currency, reporting_currency_set};
pub use reconcile::{cabinet_reconcile, Difference, Reconciled};
pub use rules::{auto_cpm_log, rule_list, AutoCpmLog, RuleList};
pub use sim::{sim_advance, sim_fail, sim_now, sim_review};
pub use tasks::{outcome_sentence, task_cancel, task_resume};
pub use users::{
    member_add, member_remove, user_add, user_add_with_password, user_find, user_list, user_set,
    user_set_chat, Subscription, TeamAccess, UserList,
};

use serde::Serialize;

use crate::clock;
use crate::store::cabinets::Cabinet;
use crate::store::{
    cabinets as cabinet_rows, deliveries, history as history_rows, keys as key_rows,
    users as user_rows,
};

/// The answer of a command that made or changed one thing: `{"id": N}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Id {
    pub id: i64,
}

/// The answer of a command with nothing to report: `{}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Done {}

/// `admin key create`: the key, shown once, and its webhook secret.
#[derive(Debug, Clone, Serialize)]
pub struct CreatedKey {
    pub id: i64,
    pub key: String,
    pub webhook_secret: String,
}

/// `admin key rotate-secret`.
#[derive(Debug, Clone, Serialize)]
pub struct RotatedSecret {
    pub id: i64,
    pub webhook_secret: String,
}

/// `admin key ping`: the delivery and the receiver's status, if it answered.
#[derive(Debug, Clone, Serialize)]
pub struct Pinged {
    pub delivery: String,
    pub status: Option<u16>,
}

/// One key in `admin key list`.
#[derive(Debug, Clone, Serialize)]
pub struct KeySummary {
    pub id: i64,
    pub owner: i64,
    pub manage: bool,
    pub postbacks: bool,
    pub partner: bool,
    pub scope: &'static str,
    pub cabinets: usize,
    pub last_used_at: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct KeyList {
    pub keys: Vec<KeySummary>,
}

/// `admin tracker rotate`: the new token, shown once, and its URL path.
#[derive(Debug, Clone, Serialize)]
pub struct Tracker {
    pub token: String,
    pub path: String,
}

/// `admin task cancel|resume`.
#[derive(Debug, Clone, Serialize)]
pub struct TaskState {
    pub id: i64,
    pub status: &'static str,
}

/// `admin history`.
#[derive(Debug, Clone, Serialize)]
pub struct History {
    pub events: Vec<history_rows::Entry>,
}

/// `admin webhook log`.
#[derive(Debug, Clone, Serialize)]
pub struct WebhookLog {
    pub deliveries: Vec<deliveries::Delivery>,
}

/// `sim now` and `sim advance`.
#[derive(Debug, Clone, Serialize)]
pub struct Now {
    pub now: String,
}

/// `sim review`: the ad's status after the decision.
#[derive(Debug, Clone, Serialize)]
pub struct Reviewed {
    pub status: &'static str,
}

pub(crate) fn now_iso(conn: &rusqlite::Connection) -> Result<String, OpsError> {
    Ok(clock::iso(clock::now(conn)?))
}

pub(crate) fn require_user(
    conn: &rusqlite::Connection,
    id: i64,
) -> Result<user_rows::User, OpsError> {
    user_rows::get(conn, id)?.ok_or_else(|| bad("id", format!("no user with id {id}")))
}

/// A Telegram chat id as the operator gives it: an integer, or `none` for no chat.
pub(crate) fn parse_chat(text: &str, what: &str) -> Result<Option<i64>, OpsError> {
    match text.trim() {
        "none" => Ok(None),
        t => t
            .parse()
            .map(Some)
            .map_err(|_| bad(what, format!("'{t}' is not a chat id (an integer) or none"))),
    }
}

pub(crate) fn require_cabinet(conn: &rusqlite::Connection, id: i64) -> Result<Cabinet, OpsError> {
    cabinet_rows::get(conn, id)?.ok_or_else(|| bad("cabinet", format!("no cabinet with id {id}")))
}

pub(crate) fn require_key(
    conn: &rusqlite::Connection,
    id: i64,
) -> Result<key_rows::KeyRow, OpsError> {
    key_rows::get(conn, id)?.ok_or_else(|| bad("id", format!("no key with id {id}")))
}
