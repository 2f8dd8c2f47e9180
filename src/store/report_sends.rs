//! Owns `report_sends`: one row per cabinet, schedule and period of its scheduled client
//! report, written when the report is first due and kept with the outcome of sending it, so a
//! period is sent once; and the query of which cabinets have a schedule, with what their
//! reports need of the owner (language, time zone) and the cabinet (its Telegram chat).

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{parsed, StoreError};
use crate::domain::agency::ReportSchedule;
use crate::i18n::Lang;

/// A cabinet whose reports are scheduled.
#[derive(Debug, Clone)]
pub struct Scheduled {
    pub account_id: i64,
    pub schedule: ReportSchedule,
    pub telegram_chat: Option<i64>,
    /// The cabinet's report language, else the owner's; `None`: English.
    pub language: Option<Lang>,
    /// The owner's time zone; `None` (or a name no longer known): UTC.
    pub time_zone: Option<chrono_tz::Tz>,
}

/// Active cabinets with a report schedule, in order.
pub fn scheduled(conn: &Connection) -> Result<Vec<Scheduled>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT c.id, c.report_schedule, c.telegram_chat,
                COALESCE(c.report_language, u.language), u.time_zone
         FROM cabinets c JOIN users u ON u.id = c.owner_id
         WHERE c.report_schedule IS NOT NULL AND c.is_active = 1 ORDER BY c.id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Scheduled {
            account_id: r.get(0)?,
            schedule: parsed(r, 1, "cabinets.report_schedule", ReportSchedule::parse)?,
            telegram_chat: r.get(2)?,
            language: r
                .get::<_, Option<String>>(3)?
                .as_deref()
                .and_then(Lang::parse),
            time_zone: r
                .get::<_, Option<String>>(4)?
                .and_then(|name| name.parse().ok()),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether the period's report is recorded already.
pub fn exists(
    conn: &Connection,
    account: i64,
    schedule: ReportSchedule,
    first_day: &str,
) -> Result<bool, StoreError> {
    Ok(conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM report_sends
            WHERE account_id = ?1 AND schedule = ?2 AND first_day = ?3)",
        params![account, schedule.as_str(), first_day],
        |r| r.get(0),
    )?)
}

/// A period's report as first recorded.
#[derive(Debug, Clone)]
pub struct New<'a> {
    pub account_id: i64,
    pub schedule: ReportSchedule,
    pub first_day: &'a str,
    pub last_day: &'a str,
    pub language: Lang,
    pub time_zone: chrono_tz::Tz,
    /// The chat to send the PDF to; `None` records the report as `no_chat`.
    pub chat_id: Option<i64>,
    pub next_at: i64,
}

/// Records the period's report unless it is recorded already; whether it was new.
pub fn insert_new(conn: &Connection, n: &New, now: &str) -> Result<bool, StoreError> {
    let state = if n.chat_id.is_some() {
        "pending"
    } else {
        "no_chat"
    };
    let added = conn.execute(
        "INSERT INTO report_sends (account_id, schedule, first_day, last_day, language,
            time_zone, chat_id, state, next_at, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT (account_id, schedule, first_day) DO NOTHING",
        params![
            n.account_id,
            n.schedule.as_str(),
            n.first_day,
            n.last_day,
            n.language.code(),
            n.time_zone.name(),
            n.chat_id,
            state,
            n.chat_id.map(|_| n.next_at),
            now
        ],
    )?;
    Ok(added == 1)
}

/// One recorded report.
#[derive(Debug, Clone, PartialEq)]
pub struct Send {
    pub id: i64,
    pub account_id: i64,
    pub schedule: ReportSchedule,
    pub first_day: String,
    pub last_day: String,
    pub language: Lang,
    pub time_zone: chrono_tz::Tz,
    pub chat_id: Option<i64>,
    pub state: String,
    pub attempts: i64,
    pub next_at: Option<i64>,
    pub detail: Option<String>,
}

const COLUMNS: &str = "id, account_id, schedule, first_day, last_day, language, time_zone,
    chat_id, state, attempts, next_at, detail";

fn from_row(r: &Row) -> rusqlite::Result<Send> {
    Ok(Send {
        id: r.get(0)?,
        account_id: r.get(1)?,
        schedule: parsed(r, 2, "report_sends.schedule", ReportSchedule::parse)?,
        first_day: r.get(3)?,
        last_day: r.get(4)?,
        language: parsed(r, 5, "report_sends.language", Lang::parse)?,
        time_zone: parsed(r, 6, "report_sends.time_zone", |t| t.parse().ok())?,
        chat_id: r.get(7)?,
        state: r.get(8)?,
        attempts: r.get(9)?,
        next_at: r.get(10)?,
        detail: r.get(11)?,
    })
}

/// Pending sends whose time has come (`next_at` at or before `now`), oldest first.
pub fn due(conn: &Connection, now: i64, limit: usize) -> Result<Vec<Send>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM report_sends WHERE state = 'pending' AND next_at <= ?1
         ORDER BY next_at, id LIMIT ?2"
    ))?;
    let rows = stmt.query_map(params![now, limit as i64], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Takes a due send for one attempt: its `next_at` moves to `lease_until`, so no other tick
/// sends it meanwhile, and a send cut short by a crash is tried again after it. Whether this
/// caller got it.
pub fn take(conn: &Connection, send: &Send, lease_until: i64) -> Result<bool, StoreError> {
    let changed = conn.execute(
        "UPDATE report_sends SET next_at = ?3
         WHERE id = ?1 AND state = 'pending' AND next_at IS ?2",
        params![send.id, send.next_at, lease_until],
    )?;
    Ok(changed == 1)
}

/// What one attempt came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Sent,
    /// Try again at `next_at` (service-clock unix seconds).
    Retry {
        next_at: i64,
        why: String,
    },
    /// Given up: not tried again.
    Failed(String),
}

/// Records an attempt's outcome (a sent report is never sent again).
pub fn record(conn: &Connection, id: i64, outcome: &Outcome, now: &str) -> Result<(), StoreError> {
    let (state, next_at, detail, sent_at) = match outcome {
        Outcome::Sent => ("sent", None, None, Some(now)),
        Outcome::Retry { next_at, why } => ("pending", Some(*next_at), Some(why.as_str()), None),
        Outcome::Failed(why) => ("failed", None, Some(why.as_str()), None),
    };
    conn.execute(
        "UPDATE report_sends SET state = ?2, next_at = ?3, detail = ?4, sent_at = ?5,
            attempts = attempts + 1
         WHERE id = ?1 AND state = 'pending'",
        params![id, state, next_at, detail, sent_at],
    )?;
    Ok(())
}

/// Switches off the cabinet's chat link when it is still `chat` (the chat refused the bot).
pub fn forget_chat(conn: &Connection, account: i64, chat: i64) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE cabinets SET telegram_chat = NULL WHERE id = ?1 AND telegram_chat = ?2",
        params![account, chat],
    )?;
    Ok(())
}

/// Every recorded report of a cabinet, oldest period first.
pub fn of_cabinet(conn: &Connection, account: i64) -> Result<Vec<Send>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM report_sends WHERE account_id = ?1 ORDER BY first_day, id"
    ))?;
    let rows = stmt.query_map([account], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One recorded report by id.
pub fn get(conn: &Connection, id: i64) -> Result<Option<Send>, StoreError> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM report_sends WHERE id = ?1"),
            [id],
            from_row,
        )
        .optional()?)
}
