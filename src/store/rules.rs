//! Owns `rules` and `rule_log`: a cabinet's automation rules (their scope, conditions and
//! action kept as JSON of the domain types), each evaluation that acted, would have acted,
//! failed or was held back by a guard, the runs the guards count, and the hour series a rule's
//! windows are read from.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, Row};
use serde_json::Value;

use super::{optional, StoreError};
use crate::domain::money::Money;
use crate::domain::rule::{
    Action, Condition, Every, Group, Guards, Move, RuleSpec, Run, Scope, GUARD_SPAN,
};
use crate::domain::stats::Totals;
use crate::domain::time;

/// A stored rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleRow {
    pub id: i64,
    pub account_id: i64,
    pub spec: RuleSpec,
    pub created_at: String,
    pub updated_at: String,
}

const COLUMNS: &str = "id, account_id, name, scope, match_all, conditions, action,
    cooldown_hours, max_runs_per_day, enabled, dry_run, created_at, updated_at,
    account_ids, max_total_micros, approval, every";

fn decode<T: serde::de::DeserializeOwned>(r: &Row, i: usize, what: &str) -> rusqlite::Result<T> {
    let text: String = r.get(i)?;
    serde_json::from_str(&text).map_err(|_| super::unreadable(what, &text))
}

/// The stored `conditions`: a list (the flat form, joined by `match_all`) or a tree's group.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Stored {
    Flat(Vec<Condition>),
    Tree(Group),
}

/// The `conditions` column as stored: the flat form's list as it always was, a tree as its
/// outer group (`match_all` then repeats that group's `all`).
fn conditions_json(spec: &RuleSpec) -> String {
    if spec.flat {
        json(&spec.conditions.conditions())
    } else {
        json(&spec.conditions)
    }
}

fn row(r: &Row) -> rusqlite::Result<RuleRow> {
    let match_all: bool = r.get(4)?;
    let (conditions, flat) = match decode::<Stored>(r, 5, "rules.conditions")? {
        Stored::Flat(list) => (Group::flat(match_all, list), true),
        Stored::Tree(group) => (group, false),
    };
    Ok(RuleRow {
        id: r.get(0)?,
        account_id: r.get(1)?,
        spec: RuleSpec {
            name: r.get(2)?,
            scope: decode::<Scope>(r, 3, "rules.scope")?,
            conditions,
            flat,
            action: decode::<Action>(r, 6, "rules.action")?,
            cooldown_hours: r.get(7)?,
            max_runs_per_day: r.get(8)?,
            enabled: r.get(9)?,
            dry_run: r.get(10)?,
            cabinets: across(r)?,
            max_total_per_day: r.get::<_, Option<i64>>(14)?.map(Money::from_micros),
            approval: r.get("approval")?,
            every: every(r, 16)?,
        },
        created_at: r.get(11)?,
        updated_at: r.get(12)?,
    })
}

/// A rule's `every`, as stored (`1h` or `5m`).
fn every(r: &Row, i: usize) -> rusqlite::Result<Every> {
    let text: String = r.get(i)?;
    Every::parse(&text).ok_or_else(|| super::unreadable("rules.every", &text))
}

/// Rows of a query; one whose stored JSON this adcab cannot read is left out with a warning,
/// so one bad row never hides the others.
fn rows(
    stmt: &mut rusqlite::Statement,
    args: impl rusqlite::Params,
) -> Result<Vec<RuleRow>, StoreError> {
    let mut out = Vec::new();
    for r in stmt.query_map(args, row)? {
        match r {
            Ok(rule) => out.push(rule),
            Err(e) => tracing::warn!(error = %e, "rule left out: unreadable"),
        }
    }
    Ok(out)
}

fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

/// Stores a rule: a new one (`id` `None`, returning its id) or the new version of rule `id`
/// (its cabinet and `created_at` stay).
pub fn save(
    conn: &Connection,
    id: Option<i64>,
    account: i64,
    spec: &RuleSpec,
    now: &str,
) -> Result<i64, StoreError> {
    conn.execute(
        "INSERT INTO rules (id, account_id, name, scope, match_all, conditions, action,
            cooldown_hours, max_runs_per_day, enabled, dry_run, created_at, updated_at, every)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, ?13)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, scope = excluded.scope,
            match_all = excluded.match_all, conditions = excluded.conditions,
            action = excluded.action, cooldown_hours = excluded.cooldown_hours,
            max_runs_per_day = excluded.max_runs_per_day, enabled = excluded.enabled,
            dry_run = excluded.dry_run, updated_at = excluded.updated_at,
            every = excluded.every",
        params![
            id,
            account,
            spec.name,
            json(&spec.scope),
            spec.conditions.all,
            conditions_json(spec),
            json(&spec.action),
            spec.cooldown_hours,
            spec.max_runs_per_day,
            spec.enabled,
            spec.dry_run,
            now,
            spec.every.as_str()
        ],
    )?;
    let id = id.unwrap_or_else(|| conn.last_insert_rowid());
    save_across(conn, id, spec)?;
    conn.execute(
        "UPDATE rules SET approval = ?2 WHERE id = ?1",
        params![id, spec.approval],
    )?;
    Ok(id)
}

/// The cabinets a rule across cabinets covers, as stored (none for a rule of one cabinet).
fn across(r: &Row) -> rusqlite::Result<Vec<i64>> {
    let text: Option<String> = r.get(13)?;
    match text {
        None => Ok(Vec::new()),
        Some(text) => {
            serde_json::from_str(&text).map_err(|_| super::unreadable("rules.account_ids", &text))
        }
    }
}

/// Stores the cabinets rule `id` covers and its cap across them.
fn save_across(conn: &Connection, id: i64, spec: &RuleSpec) -> Result<(), StoreError> {
    let ids = (!spec.cabinets.is_empty()).then(|| json(&spec.cabinets));
    conn.execute(
        "UPDATE rules SET account_ids = ?2, max_total_micros = ?3 WHERE id = ?1",
        params![id, ids, spec.max_total_per_day.map(Money::micros)],
    )?;
    Ok(())
}

/// Removes a rule and its log; the money it moved stays in [`super::moves`], and its id is
/// never given again.
pub fn delete(conn: &Connection, id: i64) -> Result<(), StoreError> {
    conn.execute("DELETE FROM rule_log WHERE rule_id = ?1", [id])?;
    conn.execute("DELETE FROM rules WHERE id = ?1", [id])?;
    Ok(())
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<RuleRow>, StoreError> {
    optional(conn.query_row(
        &format!("SELECT {COLUMNS} FROM rules WHERE id = ?1"),
        [id],
        row,
    ))
}

/// The rules of the given cabinets, in the order they run (cabinet, then id).
pub fn list(conn: &Connection, accounts: &[i64]) -> Result<Vec<RuleRow>, StoreError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM rules
         WHERE account_id IN (SELECT value FROM json_each(?1))
            OR EXISTS (SELECT 1 FROM json_each(rules.account_ids)
                WHERE value IN (SELECT value FROM json_each(?1)))
         ORDER BY account_id, id"
    ))?;
    rows(&mut stmt, [super::ids_json(accounts)])
}

/// Every rule of every cabinet (the operator's list).
pub fn all(conn: &Connection) -> Result<Vec<RuleRow>, StoreError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM rules ORDER BY account_id, id"
    ))?;
    rows(&mut stmt, [])
}

/// The cabinets that have an enabled rule.
pub fn cabinets_with_rules(conn: &Connection) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT account_id FROM rules WHERE enabled = 1
         UNION SELECT j.value FROM rules, json_each(rules.account_ids) j WHERE rules.enabled = 1
         ORDER BY 1",
    )?;
    let ids = stmt.query_map([], |r| r.get(0))?;
    Ok(ids.collect::<rusqlite::Result<_>>()?)
}

pub fn count(conn: &Connection, account: i64) -> Result<usize, StoreError> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM rules WHERE account_id = ?1",
        [account],
        |r| r.get::<_, i64>(0),
    )? as usize)
}

/// What one evaluation of a rule on a campaign came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub rule_id: i64,
    pub account_id: i64,
    pub ad_id: i64,
    pub at: String,
    /// `acted`, `dry_run`, `skipped` or `failed`.
    pub outcome: &'static str,
    /// The guard that held it back, or the platform's refusal.
    pub reason: Option<String>,
    pub matched: Value,
    pub action: Value,
    pub moved: Money,
}

/// Records a log entry; returns its id.
pub fn record(conn: &Connection, e: &LogEntry) -> Result<i64, StoreError> {
    conn.prepare_cached(
        "INSERT INTO rule_log (rule_id, account_id, ad_id, at, outcome, reason, matched, action,
            moved_micros)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        e.rule_id,
        e.account_id,
        e.ad_id,
        e.at,
        e.outcome,
        e.reason,
        e.matched.to_string(),
        e.action.to_string(),
        e.moved.micros()
    ])?;
    Ok(conn.last_insert_rowid())
}

/// Sets what became of a logged evaluation once the platform answered: `acted`, or `failed`
/// with the refusal.
pub fn set_outcome(
    conn: &Connection,
    id: i64,
    outcome: &str,
    reason: Option<&str>,
) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE rule_log SET outcome = ?2, reason = ?3 WHERE id = ?1")?
        .execute(params![id, outcome, reason])?;
    Ok(())
}

/// A stored log entry, as the API lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRow {
    pub id: i64,
    pub ad_id: i64,
    pub at: String,
    pub outcome: String,
    pub reason: Option<String>,
    pub matched: Option<Value>,
    pub action: Option<Value>,
}

/// A rule's log, newest first: at most `limit` entries with ids below `before`.
pub fn log(
    conn: &Connection,
    rule: i64,
    before: Option<i64>,
    limit: usize,
) -> Result<Vec<LogRow>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, ad_id, at, outcome, reason, matched, action FROM rule_log
         WHERE rule_id = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3",
    )?;
    let rows = stmt.query_map(
        params![rule, before.unwrap_or(i64::MAX), limit as i64],
        |r| {
            Ok(LogRow {
                id: r.get(0)?,
                ad_id: r.get(1)?,
                at: r.get(2)?,
                outcome: r.get(3)?,
                reason: r.get(4)?,
                matched: crate::db::json_column(r.get(5)?)?,
                action: crate::db::json_column(r.get(6)?)?,
            })
        },
    )?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// What the guards count, at or after `since`: the runs of the cabinet's rules (actions, and
/// dry-run would-be actions), and the money the dry runs would have moved (the money real
/// runs move is in [`super::moves`]).
pub fn runs_since(
    conn: &Connection,
    account: i64,
    since: &str,
) -> Result<(Vec<Run>, Vec<Move>), StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT rule_id, ad_id, at, moved_micros, outcome = 'dry_run' FROM rule_log
         WHERE account_id = ?1 AND at >= ?2 AND outcome IN ('acted', 'dry_run')",
    )?;
    let (mut runs, mut dry) = (Vec::new(), Vec::new());
    let rows = stmt.query_map(params![account, since], |r| {
        let at: String = r.get(2)?;
        let at = time::parse_iso(&at).ok_or_else(|| super::unreadable("rule_log.at", &at))?;
        Ok((r.get::<_, i64>(0)?, r.get(1)?, at, r.get(3)?, r.get(4)?))
    })?;
    for row in rows {
        let (rule_id, ad_id, at, micros, is_dry): (i64, i64, _, i64, bool) = row?;
        runs.push(Run { rule_id, ad_id, at });
        if is_dry && micros > 0 {
            dry.push(Move {
                rule_id,
                at,
                moved: Money::from_micros(micros),
                dry: true,
            });
        }
    }
    Ok((runs, dry))
}

/// The campaigns rule `id`'s `duplicate` action made in cabinet `account`: the new campaigns
/// of the copy tasks its log names there (a rule does not copy its own copies; campaign ids
/// are a cabinet's own).
pub fn copies_made(conn: &Connection, id: i64, account: i64) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT i.ad_id FROM rule_log l
         JOIN task_items i ON i.task_id = json_extract(l.action, '$.task_id')
         WHERE l.rule_id = ?1 AND l.account_id = ?2
            AND json_extract(l.action, '$.type') = 'duplicate' AND i.ad_id IS NOT NULL",
    )?;
    let ids = stmt.query_map([id, account], |r| r.get(0))?;
    Ok(ids.collect::<rusqlite::Result<_>>()?)
}

/// The money rules across cabinets covering `account` moved (or set out to, or would have in
/// a dry run) in their other cabinets at or after `since`, for their cap over all of them.
pub fn moved_elsewhere(
    conn: &Connection,
    account: i64,
    since: &str,
) -> Result<Vec<Move>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT m.rule_id, m.at, m.moved_micros, 0 FROM automation_moves m
         WHERE m.account_id <> ?1 AND m.at >= ?2 AND m.state <> 'failed'
            AND m.rule_id IN (SELECT r.id FROM rules r, json_each(r.account_ids) j
                WHERE j.value = ?1)
         UNION ALL
         SELECT l.rule_id, l.at, l.moved_micros, 1 FROM rule_log l
         WHERE l.account_id <> ?1 AND l.at >= ?2 AND l.outcome = 'dry_run'
            AND l.moved_micros > 0
            AND l.rule_id IN (SELECT r.id FROM rules r, json_each(r.account_ids) j
                WHERE j.value = ?1)",
    )?;
    let rows = stmt.query_map(params![account, since], |r| {
        let at: String = r.get(1)?;
        let at = time::parse_iso(&at).ok_or_else(|| super::unreadable("rule_log.at", &at))?;
        Ok(Move {
            rule_id: r.get(0)?,
            at,
            moved: Money::from_micros(r.get(2)?),
            dry: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The guards of cabinet `account`'s rules at `at`, over the [`GUARD_SPAN`] before it: their
/// runs, the money they moved (the rules' log and the ledger of moves), the cabinet's cap, and
/// what rules across cabinets moved in their other cabinets (for their caps over all of them).
pub fn guards(conn: &Connection, account: i64, at: DateTime<Utc>) -> Result<Guards, StoreError> {
    let since = time::iso(at - GUARD_SPAN);
    let (runs, mut money) = runs_since(conn, account, &since)?;
    money.extend(super::moves::since(conn, account, &since)?);
    Ok(Guards::new(runs, money, cabinet_cap(conn, account)?)
        .with_elsewhere(moved_elsewhere(conn, account, &since)?))
}

/// The cabinet's cap on money automation moves in a day, if the operator set one.
pub fn cabinet_cap(conn: &Connection, account: i64) -> Result<Option<Money>, StoreError> {
    Ok(optional(conn.query_row(
        "SELECT automation_daily_cap_micros FROM cabinets WHERE id = ?1",
        [account],
        |r| r.get::<_, Option<i64>>(0),
    ))?
    .flatten()
    .map(Money::from_micros))
}

pub fn set_cabinet_cap(
    conn: &Connection,
    account: i64,
    cap: Option<Money>,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET automation_daily_cap_micros = ?2 WHERE id = ?1",
        params![account, cap.map(Money::micros)],
    )?;
    Ok(())
}

/// The time zone the cabinet's owner chose; `None` without one (or a name no longer known).
pub fn owner_zone(conn: &Connection, account: i64) -> Result<Option<chrono_tz::Tz>, StoreError> {
    let zone: Option<String> = optional(conn.query_row(
        "SELECT u.time_zone FROM cabinets c JOIN users u ON u.id = c.owner_id WHERE c.id = ?1",
        params![account],
        |r| r.get(0),
    ))?
    .flatten();
    Ok(zone.and_then(|z| z.parse().ok()))
}

/// An hour, counted in hours since the epoch ([`time::hour_number`]).
pub type Hour = i64;

/// Each campaign's hourly gains in the hours starting in `[from, to)`, keyed by campaign.
pub fn hours(
    conn: &Connection,
    account: i64,
    from: &str,
    to: &str,
) -> Result<HashMap<i64, Vec<(Hour, Totals)>>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id, hour, views, opens, clicks, actions, spent_micros FROM hourly_stats
         WHERE account_id = ?1 AND hour >= ?2 AND hour < ?3",
    )?;
    let mut out: HashMap<i64, Vec<(Hour, Totals)>> = HashMap::new();
    let rows = stmt.query_map(params![account, from, to], |r| {
        let hour: String = r.get(1)?;
        let at =
            time::parse_iso(&hour).ok_or_else(|| super::unreadable("hourly_stats.hour", &hour))?;
        Ok((
            r.get::<_, i64>(0)?,
            time::hour_number(at),
            super::stats::totals_at(r, 2)?,
        ))
    })?;
    for r in rows {
        let (ad, hour, totals) = r?;
        out.entry(ad).or_default().push((hour, totals));
    }
    Ok(out)
}

/// One campaign's conversions in one hour and one currency (`None`: sent without an amount).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertedHour {
    pub hour: Hour,
    pub currency: Option<String>,
    pub count: i64,
    pub amount_micros: i128,
}

/// The conversions attributed to the cabinet's campaigns, received in `[from, to)`, per
/// campaign, hour and currency.
pub fn converted_hours(
    conn: &Connection,
    account: i64,
    from: &str,
    to: &str,
) -> Result<HashMap<i64, Vec<ConvertedHour>>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT c.ad_id, c.received_at, c.currency, c.amount_micros FROM conversions c
         WHERE c.account_id = ?1 AND c.ad_id IS NOT NULL
            AND c.received_at >= ?2 AND c.received_at < ?3
         UNION ALL
         SELECT cc.ad_id, c.received_at, c.currency, c.amount_micros
         FROM conversion_campaigns cc JOIN conversions c ON c.id = cc.conversion_id
         WHERE cc.account_id = ?1 AND c.received_at >= ?2 AND c.received_at < ?3",
    )?;
    let mut out: HashMap<i64, Vec<ConvertedHour>> = HashMap::new();
    let rows = stmt.query_map(params![account, from, to], |r| {
        let at: String = r.get(1)?;
        let at = time::parse_iso(&at)
            .ok_or_else(|| super::unreadable("conversions.received_at", &at))?;
        Ok((
            r.get::<_, i64>(0)?,
            time::hour_number(at),
            r.get::<_, Option<String>>(2)?,
            r.get::<_, Option<i64>>(3)?,
        ))
    })?;
    for r in rows {
        let (ad, hour, currency, amount) = r?;
        let currency = amount
            .is_some()
            .then(|| currency.unwrap_or_else(|| "USD".into()));
        let list = out.entry(ad).or_default();
        match list
            .iter_mut()
            .find(|c| c.hour == hour && c.currency == currency)
        {
            Some(c) => {
                c.count += 1;
                c.amount_micros += i128::from(amount.unwrap_or(0));
            }
            None => list.push(ConvertedHour {
                hour,
                currency,
                count: 1,
                amount_micros: i128::from(amount.unwrap_or(0)),
            }),
        }
    }
    Ok(out)
}

/// The cabinets that have an enabled rule checked `every` so often.
pub fn cabinets_checked(conn: &Connection, every: Every) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT account_id FROM rules WHERE enabled = 1 AND every = ?1
         ORDER BY account_id",
    )?;
    let ids = stmt.query_map([every.as_str()], |r| r.get(0))?;
    Ok(ids.collect::<rusqlite::Result<_>>()?)
}
