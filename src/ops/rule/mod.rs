//! Owns a rule as every face writes it: its reading (`read`), and the operations that create,
//! change and delete one in the actor's cabinet, with its scope checked against the cabinet and
//! the cabinet's limit on rules, in the caller's transaction; and a rule as every face shows it.

mod across;
pub mod act;
mod condition;
mod read;
pub mod template;
mod tree;

pub use across::listed;
pub use read::{read, read_change, RuleChange};

use rusqlite::Connection;
use serde_json::{json, Value};

use super::{Actor, OpsError};
use crate::clock;
use crate::domain::money::CabinetType;
use crate::domain::rule::{RuleSpec, Scope, MAX_RULES_PER_CABINET};
use crate::domain::{ParseError, Why};
use crate::store::rules::{self, RuleRow};
use crate::store::{campaigns, groups};

/// Refuses a scope naming a group or campaigns the cabinet does not have.
fn check_scope(conn: &Connection, account: i64, scope: &Scope) -> Result<(), OpsError> {
    match scope {
        Scope::Cabinet => Ok(()),
        Scope::Group(g) => match groups::get(conn, *g)? {
            Some(group) if group.account_id == account => Ok(()),
            _ => Err(
                ParseError::new("scope.group_id", "No such group in this cabinet.")
                    .because(Why::Unknown)
                    .into(),
            ),
        },
        Scope::Ads(ads) => {
            let live = campaigns::live_ids(conn, account)?;
            match ads.iter().position(|ad| !live.contains(ad)) {
                Some(i) => Err(ParseError::new(
                    format!("scope.ad_ids[{i}]"),
                    format!("No live campaign {} in this cabinet.", ads[i]),
                )
                .into()),
                None => Ok(()),
            }
        }
    }
}

/// Stores a new rule `spec` of one cabinet, the actor's (the API's create, the panel's form, a
/// template, an assistant's tool).
pub fn create(tx: &Connection, actor: &Actor, spec: &RuleSpec) -> Result<RuleRow, OpsError> {
    // A rule across cabinets needs the write checks of each (`create_across`); a face that
    // reached one cabinet only (a template's form, an assistant's tool) cannot make one.
    if !spec.cabinets.is_empty() {
        return Err(ParseError::new(
            "scope.account_ids",
            "A rule across cabinets is made with POST /v1/rules (scope.account_ids, no account_id) or the panel's rule form.",
        )
        .because(Why::NotHere)
        .into());
    }
    store_new(tx, actor, spec)
}

/// Stores a new rule in the actor's cabinet, its home: the scope checked against the cabinet,
/// and the cabinet's rule limit.
fn store_new(tx: &Connection, actor: &Actor, spec: &RuleSpec) -> Result<RuleRow, OpsError> {
    let account = actor.cabinet().id;
    check_scope(tx, account, &spec.scope)?;
    if rules::count(tx, account)? >= MAX_RULES_PER_CABINET {
        return Err(ParseError::new(
            "account_id",
            format!("A cabinet holds at most {MAX_RULES_PER_CABINET} rules."),
        )
        .because(Why::TooMany {
            max: MAX_RULES_PER_CABINET,
        })
        .into());
    }
    let id = rules::save(tx, None, account, spec, &clock::iso(clock::now(tx)?))?;
    rules::get(tx, id)?.ok_or(OpsError::RuleNotFound)
}

/// Stores a new rule across the cabinets of `actors` (one for each of `spec.cabinets`, in
/// order, each found writable by the face): one owner's, amounts only in one currency; its home
/// is the first.
pub fn create_across(
    tx: &Connection,
    actors: &[Actor],
    spec: &RuleSpec,
) -> Result<RuleRow, OpsError> {
    across::check(actors, spec)?;
    let home = actors.first().ok_or(OpsError::RuleNotFound)?;
    store_new(tx, home, spec)
}

/// Stores `change` of rule `id` as [`update`] does, for a caller found to write to each of
/// the cabinets of `actors` (those the rule covers after the change, its home first).
pub fn update_across(
    tx: &Connection,
    actors: &[Actor],
    id: i64,
    change: RuleChange,
) -> Result<RuleRow, OpsError> {
    across::check(actors, &change.spec)?;
    let home = actors.first().ok_or(OpsError::RuleNotFound)?;
    let stored = rules::get(tx, id)?.ok_or(OpsError::RuleNotFound)?;
    if home.cabinet().id != stored.account_id {
        return Err(ParseError::new(
            "scope.account_ids[0]",
            format!(
                "A rule stays in its home cabinet: list {} first.",
                stored.account_id
            ),
        )
        .because(Why::Other)
        .into());
    }
    update(tx, home, id, change)
}

/// The stored rule `id` of the actor's cabinet.
fn own(tx: &Connection, actor: &Actor, id: i64) -> Result<RuleRow, OpsError> {
    rules::get(tx, id)?
        .filter(|r| r.account_id == actor.cabinet().id)
        .ok_or(OpsError::RuleNotFound)
}

/// Stores `change` as the new version of rule `id` of the actor's cabinet (its scope checked
/// again when sent).
pub fn update(
    tx: &Connection,
    actor: &Actor,
    id: i64,
    change: RuleChange,
) -> Result<RuleRow, OpsError> {
    let account = own(tx, actor, id)?.account_id;
    if change.scope_sent {
        check_scope(tx, account, &change.spec.scope)?;
        if change
            .spec
            .cabinets
            .first()
            .is_some_and(|home| *home != account)
        {
            return Err(ParseError::new(
                "scope.account_ids[0]",
                format!("A rule stays in its home cabinet: list {account} first."),
            )
            .because(Why::Other)
            .into());
        }
    }
    rules::save(
        tx,
        Some(id),
        account,
        &change.spec,
        &clock::iso(clock::now(tx)?),
    )?;
    rules::get(tx, id)?.ok_or(OpsError::RuleNotFound)
}

/// Deletes rule `id` of the actor's cabinet with its log.
pub fn delete(tx: &Connection, actor: &Actor, id: i64) -> Result<(), OpsError> {
    own(tx, actor, id)?;
    Ok(rules::delete(tx, id)?)
}

/// A rule as the API, the panel and the operator's commands show it.
pub fn describe(rule: &RuleRow, kind: CabinetType) -> Value {
    let spec = &rule.spec;
    let mut described = json!({
        "id": rule.id,
        "account_id": rule.account_id,
        "name": spec.name,
        "scope": spec.scope.to_json(),
        "match": spec.conditions.word(),
        "conditions": if spec.flat {
            let list = spec.conditions.conditions();
            Value::Array(list.iter().map(|c| c.to_json()).collect())
        } else {
            spec.conditions.to_json()
        },
        "action": spec.action.to_json(kind),
        "cooldown_hours": spec.cooldown_hours,
        "max_runs_per_day": spec.max_runs_per_day,
        "enabled": spec.enabled,
        "dry_run": spec.dry_run,
        "created_at": rule.created_at,
        "updated_at": rule.updated_at,
        "max_total_per_day": spec.max_total_per_day.map(|m| kind.render(m)),
        "approval": spec.approval,
        "every": spec.every.as_str(),
    });
    if !spec.cabinets.is_empty() {
        described["scope"] = json!({ "account_ids": spec.cabinets });
    }
    described
}
