//! Owns `proposals` and `proposal_messages`: the changes a rule that asks first proposed, each
//! pending until a person decides it or it expires, and the Telegram messages that carry it
//! (sent, then edited to say who decided what).

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::Value;

use super::StoreError;

/// A stored proposal.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposalRow {
    pub id: i64,
    pub rule_id: i64,
    pub account_id: i64,
    pub ad_id: i64,
    /// The planned change, as the rule's log shows it.
    pub change: Value,
    /// The readings that matched.
    pub matched: Value,
    pub created_at: String,
    pub expires_at: String,
    /// `pending`, `approved`, `rejected`, `expired` or `failed`.
    pub state: String,
    pub decided_by: Option<i64>,
    /// `panel`, `telegram` or `api`.
    pub decided_via: Option<String>,
    pub decided_at: Option<String>,
    /// What became of it, a sentence.
    pub outcome: Option<String>,
}

const COLUMNS: &str = "id, rule_id, account_id, ad_id, change, matched, created_at, expires_at,
    state, decided_by, decided_via, decided_at, outcome";

fn row(r: &Row) -> rusqlite::Result<ProposalRow> {
    let json = |i: usize| -> rusqlite::Result<Value> {
        let text: String = r.get(i)?;
        Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
    };
    Ok(ProposalRow {
        id: r.get(0)?,
        rule_id: r.get(1)?,
        account_id: r.get(2)?,
        ad_id: r.get(3)?,
        change: json(4)?,
        matched: json(5)?,
        created_at: r.get(6)?,
        expires_at: r.get(7)?,
        state: r.get(8)?,
        decided_by: r.get(9)?,
        decided_via: r.get(10)?,
        decided_at: r.get(11)?,
        outcome: r.get(12)?,
    })
}

/// A proposal to store.
pub struct NewProposal<'a> {
    pub rule_id: i64,
    pub account_id: i64,
    pub ad_id: i64,
    pub change: &'a Value,
    pub matched: &'a Value,
    pub created_at: &'a str,
    pub expires_at: &'a str,
}

/// Stores a pending proposal; `None` when one of the same rule and campaign is pending already.
pub fn create(conn: &Connection, p: &NewProposal) -> Result<Option<i64>, StoreError> {
    let made = conn.execute(
        "INSERT OR IGNORE INTO proposals (rule_id, account_id, ad_id, change, matched,
            created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            p.rule_id,
            p.account_id,
            p.ad_id,
            p.change.to_string(),
            p.matched.to_string(),
            p.created_at,
            p.expires_at
        ],
    )?;
    Ok((made == 1).then(|| conn.last_insert_rowid()))
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<ProposalRow>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM proposals WHERE id = ?1");
    Ok(conn.query_row(&sql, [id], row).optional()?)
}

/// The pending proposals whose time ran out at `now`.
pub fn due_to_expire(conn: &Connection, now: &str) -> Result<Vec<ProposalRow>, StoreError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM proposals WHERE state = 'pending' AND expires_at <= ?1 ORDER BY id"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map([now], row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A decision on a proposal.
pub struct Decided<'a> {
    pub state: &'a str,
    pub by: Option<i64>,
    pub via: Option<&'a str>,
    pub at: &'a str,
    pub outcome: &'a str,
}

/// Marks pending proposal `id` decided; false when it was no longer pending (a decision came
/// first), so that a proposal is decided once.
pub fn decide(conn: &Connection, id: i64, d: &Decided) -> Result<bool, StoreError> {
    let changed = conn.execute(
        "UPDATE proposals SET state = ?2, decided_by = ?3, decided_via = ?4, decided_at = ?5,
            outcome = ?6 WHERE id = ?1 AND state = 'pending'",
        params![id, d.state, d.by, d.via, d.at, d.outcome],
    )?;
    Ok(changed == 1)
}

/// Sets what became of an approved proposal once its change was tried.
pub fn settle(conn: &Connection, id: i64, state: &str, outcome: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE proposals SET state = ?2, outcome = ?3 WHERE id = ?1",
        params![id, state, outcome],
    )?;
    Ok(())
}

/// The chats a proposal goes to: the cabinet's own, then those of its owner and of the team
/// members with manager access. Each chat once.
pub fn chats_of(conn: &Connection, account: i64) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT telegram_chat FROM cabinets WHERE id = ?1 AND telegram_chat IS NOT NULL
         UNION ALL
         SELECT u.telegram_chat FROM users u WHERE u.telegram_chat IS NOT NULL AND (
            u.id IN (SELECT owner_id FROM cabinets WHERE id = ?1)
            OR u.id IN (SELECT member_id FROM cabinet_shares
                        WHERE cabinet_id = ?1 AND access = 'manager'))",
    )?;
    let mut out: Vec<i64> = Vec::new();
    for chat in stmt.query_map([account], |r| r.get(0))? {
        let chat = chat?;
        if !out.contains(&chat) {
            out.push(chat);
        }
    }
    Ok(out)
}

/// Queues a proposal's message to `chat`.
pub fn queue_message(conn: &Connection, proposal: i64, chat: i64) -> Result<(), StoreError> {
    conn.execute(
        "INSERT OR IGNORE INTO proposal_messages (proposal_id, chat_id) VALUES (?1, ?2)",
        params![proposal, chat],
    )?;
    Ok(())
}

/// A proposal's message to send or to edit.
#[derive(Debug, Clone)]
pub struct Message {
    pub proposal_id: i64,
    pub chat_id: i64,
    pub message_id: Option<i64>,
    pub attempts: i64,
}

/// The messages in `state` (`pending`: to send; `edit`: sent, to be edited after a decision).
pub fn messages_in(
    conn: &Connection,
    state: &str,
    limit: usize,
) -> Result<Vec<Message>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT proposal_id, chat_id, message_id, attempts FROM proposal_messages
            WHERE state = ?1 ORDER BY proposal_id, chat_id LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![state, limit as i64], |r| {
        Ok(Message {
            proposal_id: r.get(0)?,
            chat_id: r.get(1)?,
            message_id: r.get(2)?,
            attempts: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Records what became of a message: `sent` (with its id), `edit`, `done`, `failed`, or still
/// `pending` after one more attempt.
pub fn set_message(
    conn: &Connection,
    m: &Message,
    state: &str,
    message_id: Option<i64>,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE proposal_messages SET state = ?3, message_id = COALESCE(?4, message_id),
            attempts = attempts + 1 WHERE proposal_id = ?1 AND chat_id = ?2",
        params![m.proposal_id, m.chat_id, state, message_id],
    )?;
    Ok(())
}

/// A decided proposal's sent messages are to be edited; those never sent are dropped.
pub fn messages_to_edit(conn: &Connection, proposal: i64) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE proposal_messages SET state = CASE WHEN message_id IS NULL THEN 'done'
            ELSE 'edit' END, attempts = 0 WHERE proposal_id = ?1 AND state IN ('pending', 'sent')",
        [proposal],
    )?;
    Ok(())
}

/// A proposal with the names people read: its rule's and its campaign's.
#[derive(Debug, Clone)]
pub struct Named {
    pub row: ProposalRow,
    /// The rule's name (empty when it was deleted).
    pub rule_name: String,
    /// The campaign's title (empty when it is unknown).
    pub title: String,
}

/// [`Named`] proposals: proposal `id` alone, or the pending ones of `accounts` not expired at
/// `now`, oldest first (at most 200).
pub fn named(
    conn: &Connection,
    id: Option<i64>,
    accounts: &[i64],
    now: &str,
) -> Result<Vec<Named>, StoreError> {
    let list = serde_json::to_string(accounts).unwrap_or_else(|_| "[]".into());
    let columns: Vec<String> = COLUMNS
        .split(',')
        .map(|c| format!("p.{}", c.trim()))
        .collect();
    let sql = format!(
        "SELECT {}, COALESCE(r.name, ''), COALESCE(c.title, '') FROM proposals p
            LEFT JOIN rules r ON r.id = p.rule_id
            LEFT JOIN campaigns c ON c.account_id = p.account_id AND c.ad_id = p.ad_id
         WHERE CASE WHEN ?1 IS NOT NULL THEN p.id = ?1 ELSE p.state = 'pending'
            AND p.expires_at > ?3 AND p.account_id IN (SELECT value FROM json_each(?2)) END
         ORDER BY p.id LIMIT 200",
        columns.join(", ")
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params![id, list, now], |r| {
        Ok(Named {
            row: row(r)?,
            rule_name: r.get(13)?,
            title: r.get(14)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
