//! Owns `alerts`, `alert_sends` and `alert_marks`, and the Telegram chats of people and
//! cabinets: an alert with one send per chat that should read it, the sends due, their
//! outcome (a chat that refuses the bot is switched off), and the conditions already told.

use rusqlite::{params, Connection};

use super::{optional, parsed, stats, StoreError};
use crate::domain::ad::DeclineReason;
use crate::domain::money::CabinetType;
use crate::domain::stats::Totals;
use crate::i18n::{Lang, Texts};

/// An alert to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAlert<'a> {
    pub kind: &'a str,
    /// The cabinet it is about; its chat and the chats of everyone who opens it read it.
    pub account_id: Option<i64>,
    pub ad_id: Option<i64>,
    /// The person it is about when no cabinet is (their keys' webhooks failing).
    pub user_id: Option<i64>,
    /// What it says, in each language.
    pub text: &'a Texts,
    pub at: &'a str,
}

pub fn set_user_chat(conn: &Connection, user: i64, chat: Option<i64>) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE users SET telegram_chat = ?2 WHERE id = ?1",
        params![user, chat],
    )?;
    Ok(())
}

pub fn set_cabinet_chat(
    conn: &Connection,
    account: i64,
    chat: Option<i64>,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET telegram_chat = ?2 WHERE id = ?1",
        params![account, chat],
    )?;
    Ok(())
}

pub fn user_chat(conn: &Connection, user: i64) -> Result<Option<i64>, StoreError> {
    Ok(optional(conn.query_row(
        "SELECT telegram_chat FROM users WHERE id = ?1",
        [user],
        |r| r.get::<_, Option<i64>>(0),
    ))?
    .flatten())
}

/// The chats that read an alert: the cabinet's own, then those of its owner and of the team
/// members it is shared with; or the one person's. Each chat once.
fn recipients(
    conn: &Connection,
    a: &NewAlert,
) -> Result<Vec<(i64, &'static str, i64)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT telegram_chat, 'cabinet', id FROM cabinets
            WHERE id = ?1 AND telegram_chat IS NOT NULL
         UNION ALL
         SELECT u.telegram_chat, 'user', u.id FROM users u
            WHERE u.telegram_chat IS NOT NULL AND (
                u.id = ?2
                OR u.id IN (SELECT owner_id FROM cabinets WHERE id = ?1)
                OR u.id IN (SELECT member_id FROM cabinet_shares WHERE cabinet_id = ?1))",
    )?;
    let rows = stmt.query_map(params![a.account_id, a.user_id], |r| {
        let owner: String = r.get(1)?;
        Ok((
            r.get(0)?,
            if owner == "cabinet" {
                "cabinet"
            } else {
                "user"
            },
            r.get(2)?,
        ))
    })?;
    let mut out: Vec<(i64, &'static str, i64)> = Vec::new();
    for row in rows {
        let row = row?;
        if !out.iter().any(|(chat, _, _)| *chat == row.0) {
            out.push(row);
        }
    }
    Ok(out)
}

/// Records an alert and, when `telegram`, one pending send per chat that reads it, due at
/// `now` (wall time, unix seconds). Returns the alert's id.
pub fn raise(conn: &Connection, a: &NewAlert, telegram: bool, now: i64) -> Result<i64, StoreError> {
    conn.execute(
        "INSERT INTO alerts (kind, account_id, ad_id, user_id, text, text_ru, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            a.kind,
            a.account_id,
            a.ad_id,
            a.user_id,
            a.text.get(Lang::En),
            a.text.get(Lang::Ru),
            a.at
        ],
    )?;
    let id = conn.last_insert_rowid();
    if telegram {
        for (chat, owner, owner_id) in recipients(conn, a)? {
            conn.execute(
                "INSERT INTO alert_sends (alert_id, chat_id, owner, owner_id, state, next_at)
                 VALUES (?1, ?2, ?3, ?4, 'pending', ?5)",
                params![id, chat, owner, owner_id, now],
            )?;
        }
    }
    Ok(id)
}

/// Alerts about a cabinet recorded with the hour end `at`.
pub fn count_at(conn: &Connection, account: i64, at: &str) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached("SELECT COUNT(*) FROM alerts WHERE account_id = ?1 AND at = ?2")?
        .query_row(params![account, at], |r| r.get(0))?)
}

/// Counts one alert about a cabinet held back at the hour end `at`.
pub fn hold(conn: &Connection, account: i64, at: &str) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO alert_holds (account_id, at, held) VALUES (?1, ?2, 1)
         ON CONFLICT (account_id, at) DO UPDATE SET held = held + 1",
    )?
    .execute(params![account, at])?;
    Ok(())
}

/// The cabinets with alerts held back at the hour end `at` not yet told, and how many.
pub fn held_at(conn: &Connection, at: &str) -> Result<Vec<(i64, i64)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT account_id, held FROM alert_holds WHERE at = ?1 AND noted = 0 ORDER BY account_id",
    )?;
    let rows = stmt.query_map([at], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Marks the alerts of a cabinet held back at `at` as told.
pub fn noted(conn: &Connection, account: i64, at: &str) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE alert_holds SET noted = 1 WHERE account_id = ?1 AND at = ?2")?
        .execute(params![account, at])?;
    Ok(())
}

/// A send to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Due {
    pub id: i64,
    pub chat_id: i64,
    pub text: String,
    pub attempts: i64,
}

/// Pending sends due by `now` (unix seconds), oldest first, at most `limit`. Each is in the
/// language of the person whose chat it is (for a cabinet's chat, the cabinet owner's):
/// Russian when they chose it in the panel, else English.
pub fn due(conn: &Connection, now: i64, limit: usize) -> Result<Vec<Due>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT s.id, s.chat_id,
                CASE WHEN a.text_ru IS NOT NULL AND 'ru' = (
                    SELECT language FROM users WHERE id = CASE s.owner
                        WHEN 'user' THEN s.owner_id
                        ELSE (SELECT owner_id FROM cabinets WHERE id = s.owner_id) END)
                THEN a.text_ru ELSE a.text END,
                s.attempts
         FROM alert_sends s
         JOIN alerts a ON a.id = s.alert_id
         WHERE s.state = 'pending' AND s.next_at <= ?1 ORDER BY s.id LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![now, limit as i64], |r| {
        Ok(Due {
            id: r.get(0)?,
            chat_id: r.get(1)?,
            text: r.get(2)?,
            attempts: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The outcome of one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Sent,
    /// Try again at `next_at` (unix seconds).
    Retry {
        next_at: i64,
        why: String,
    },
    /// The chat refused the bot; its link is switched off.
    Undeliverable(String),
    Failed(String),
}

pub fn record(conn: &Connection, send: i64, outcome: &Outcome) -> Result<(), StoreError> {
    let (state, next_at, detail) = match outcome {
        Outcome::Sent => ("sent", None, None),
        Outcome::Retry { next_at, why } => ("pending", Some(*next_at), Some(why.as_str())),
        Outcome::Undeliverable(why) => ("undeliverable", None, Some(why.as_str())),
        Outcome::Failed(why) => ("failed", None, Some(why.as_str())),
    };
    conn.execute(
        "UPDATE alert_sends SET state = ?2, attempts = attempts + 1,
            next_at = COALESCE(?3, next_at), detail = ?4
         WHERE id = ?1",
        params![send, state, next_at, detail],
    )?;
    if let Outcome::Undeliverable(_) = outcome {
        conn.execute(
            "UPDATE users SET telegram_chat = NULL WHERE id = (
                SELECT owner_id FROM alert_sends WHERE id = ?1 AND owner = 'user')
             AND telegram_chat = (SELECT chat_id FROM alert_sends WHERE id = ?1)",
            [send],
        )?;
        conn.execute(
            "UPDATE cabinets SET telegram_chat = NULL WHERE id = (
                SELECT owner_id FROM alert_sends WHERE id = ?1 AND owner = 'cabinet')
             AND telegram_chat = (SELECT chat_id FROM alert_sends WHERE id = ?1)",
            [send],
        )?;
    }
    Ok(())
}

/// An alert as recorded, with its sends: (chat, state, detail).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub id: i64,
    pub kind: String,
    pub account_id: Option<i64>,
    pub ad_id: Option<i64>,
    pub text: String,
    pub at: String,
    pub sends: Vec<(i64, String, Option<String>)>,
}

/// The most recent alerts, newest first.
pub fn recent(conn: &Connection, limit: usize) -> Result<Vec<Recorded>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT id, kind, account_id, ad_id, text, at FROM alerts ORDER BY id DESC LIMIT ?1",
    )?;
    let alerts = stmt
        .query_map([limit as i64], |r| {
            Ok(Recorded {
                id: r.get(0)?,
                kind: r.get(1)?,
                account_id: r.get(2)?,
                ad_id: r.get(3)?,
                text: r.get(4)?,
                at: r.get(5)?,
                sends: Vec::new(),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut sends = conn.prepare(
        "SELECT chat_id, state, detail FROM alert_sends WHERE alert_id = ?1 ORDER BY id",
    )?;
    alerts
        .into_iter()
        .map(|mut a| {
            a.sends = sends
                .query_map([a.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?;
            Ok(a)
        })
        .collect()
}

/// Whether the condition `(kind, account, ad)` was already told (and not cleared since).
pub fn marked(conn: &Connection, kind: &str, account: i64, ad: i64) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT 1 FROM alert_marks WHERE kind = ?1 AND account_id = ?2 AND ad_id = ?3",
        )?
        .exists(params![kind, account, ad])?)
}

pub fn mark(
    conn: &Connection,
    kind: &str,
    account: i64,
    ad: i64,
    at: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT OR REPLACE INTO alert_marks (kind, account_id, ad_id, at) VALUES (?1, ?2, ?3, ?4)",
        params![kind, account, ad, at],
    )?;
    Ok(())
}

/// Clears a condition, so it is told again when it returns.
pub fn unmark(conn: &Connection, kind: &str, account: i64, ad: i64) -> Result<(), StoreError> {
    conn.execute(
        "DELETE FROM alert_marks WHERE kind = ?1 AND account_id = ?2 AND ad_id = ?3",
        params![kind, account, ad],
    )?;
    Ok(())
}

/// The conditions of `kind` already told: (account or key, ad).
pub fn marks_of(conn: &Connection, kind: &str) -> Result<Vec<(i64, i64)>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT account_id, ad_id FROM alert_marks WHERE kind = ?1")?;
    let rows = stmt.query_map([kind], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A campaign that turned `Declined`, with the platform's reason then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declined {
    pub account_id: i64,
    pub ad_id: i64,
    pub reason: Option<DeclineReason>,
}

/// Campaigns that turned `Declined` at a time in `[from, to)`, each once with the reason of
/// its latest decline then, by cabinet and campaign.
pub fn declined_between(
    conn: &Connection,
    from: &str,
    to: &str,
) -> Result<Vec<Declined>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT account_id, ad_id, decline_reason, decline_description FROM status_events
         WHERE id IN (SELECT MAX(id) FROM status_events
                      WHERE new_status = 'Declined' AND at >= ?1 AND at < ?2
                      GROUP BY account_id, ad_id)
         ORDER BY account_id, ad_id",
    )?;
    let rows = stmt.query_map([from, to], |r| {
        Ok(Declined {
            account_id: r.get(0)?,
            ad_id: r.get(1)?,
            reason: super::decline_reason(r, 2, 3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// `Active` campaigns whose budget left is below `percent` of all they were given:
/// (account, ad).
pub fn low_budgets(conn: &Connection, percent: u32) -> Result<Vec<(i64, i64)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT account_id, ad_id FROM campaign_counters
         WHERE listed_status = 'Active' AND budget_micros + spent_micros > 0
           AND budget_micros * 100 < ?1 * (budget_micros + spent_micros)",
    )?;
    let rows = stmt.query_map([percent], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Active cabinets whose balance would not cover the spend of their last day (the hours
/// starting at or after `since`), when there was any: (account, 0).
pub fn low_balances(conn: &Connection, since: &str) -> Result<Vec<(i64, i64)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, 0 FROM (
            SELECT c.id, c.balance_micros AS balance,
                (SELECT COALESCE(SUM(h.spent_micros), 0) FROM cabinet_hours h
                 WHERE h.account_id = c.id AND h.hour >= ?1) AS spent
            FROM cabinets c WHERE c.is_active = 1)
         WHERE spent > 0 AND balance < spent",
    )?;
    let rows = stmt.query_map([since], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Active cabinets whose platform session expired: (account, 0).
pub fn expired_sessions(conn: &Connection) -> Result<Vec<(i64, i64)>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT id, 0 FROM cabinets WHERE is_active = 1 AND auth_expired = 1")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Active keys whose last three webhook deliveries all failed: (key, its holder).
pub fn failing_keys(conn: &Connection) -> Result<Vec<(i64, i64)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT k.id, k.user_id FROM api_keys k
         WHERE k.revoked_at IS NULL AND k.webhook_url IS NOT NULL
           AND (SELECT COUNT(*) FROM (SELECT status FROM webhook_deliveries
                    WHERE key_id = k.id ORDER BY id DESC LIMIT 3)
                WHERE status IS NULL OR status NOT BETWEEN 200 AND 299) = 3",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The people who have a chat.
pub fn people_with_chats(conn: &Connection) -> Result<Vec<i64>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT id FROM users WHERE telegram_chat IS NOT NULL ORDER BY id")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A cabinet's day in a digest: its name and currency type, its sums over the hours
/// starting in `[from, to)`, and the alerts about it recorded at or after `from`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CabinetDay {
    pub account_id: i64,
    pub name: String,
    pub cabinet_type: CabinetType,
    pub totals: Totals,
    pub alerts: i64,
}

/// The active cabinets `person` opens (owns, or has shared with them), each with its day.
pub fn days_of(
    conn: &Connection,
    person: i64,
    from: &str,
    to: &str,
) -> Result<Vec<CabinetDay>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT c.id, c.name, c.cabinet_type,
            (SELECT COUNT(*) FROM alerts a WHERE a.account_id = c.id AND a.at >= ?2)
         FROM cabinets c
         WHERE c.is_active = 1 AND (c.owner_id = ?1
            OR c.id IN (SELECT cabinet_id FROM cabinet_shares WHERE member_id = ?1))
         ORDER BY c.id",
    )?;
    let rows = stmt.query_map(params![person, from], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            parsed(r, 2, "cabinets.cabinet_type", CabinetType::parse)?,
            r.get::<_, i64>(3)?,
        ))
    })?;
    let mut days = Vec::new();
    for row in rows {
        let (account_id, name, cabinet_type, alerts) = row?;
        days.push(CabinetDay {
            account_id,
            name,
            cabinet_type,
            totals: stats::of_cabinet(conn, account_id, from, to)?,
            alerts,
        });
    }
    Ok(days)
}
