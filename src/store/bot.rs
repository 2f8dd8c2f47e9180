//! Owns what the Telegram bot reads and keeps of its own: `bot_state` (the long-polling
//! offset), `bot_confirms` (a `/pauseall` waiting for its confirmation), the person a Telegram
//! user is (`users.telegram_chat` equal to their id), the cabinet a chat is linked to, and the
//! campaigns its commands name.

use rusqlite::{params, Connection, OptionalExtension};

use super::StoreError;
use crate::i18n::Lang;

/// A value of the bot's own state.
pub fn bot_value(conn: &Connection, name: &str) -> Result<Option<String>, StoreError> {
    Ok(conn
        .query_row("SELECT value FROM bot_state WHERE name = ?1", [name], |r| {
            r.get(0)
        })
        .optional()?)
}

pub fn set_bot_value(conn: &Connection, name: &str, value: &str) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO bot_state (name, value) VALUES (?1, ?2)
            ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        params![name, value],
    )?;
    Ok(())
}

/// Records a `/pauseall` asked in `chat` by `user`, waiting for its confirmation.
pub fn ask_confirm(conn: &Connection, chat: i64, user: i64, at: &str) -> Result<i64, StoreError> {
    conn.execute(
        "INSERT INTO bot_confirms (chat_id, user_id, created_at) VALUES (?1, ?2, ?3)",
        params![chat, user, at],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Takes confirmation `id` of `user` in `chat` asked after `since`: true once, when it was
/// waiting; false when it is not theirs, was used or is too old.
pub fn take_confirm(
    conn: &Connection,
    id: i64,
    chat: i64,
    user: i64,
    since: &str,
) -> Result<bool, StoreError> {
    let changed = conn.execute(
        "UPDATE bot_confirms SET used = 1 WHERE id = ?1 AND chat_id = ?2 AND user_id = ?3
            AND used = 0 AND created_at > ?4",
        params![id, chat, user, since],
    )?;
    Ok(changed == 1)
}

/// The person whose own chat is Telegram user `id` (the lowest id if several), with the
/// language they chose.
pub fn person_of(conn: &Connection, id: i64) -> Result<Option<(i64, Option<Lang>)>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT id, language FROM users WHERE telegram_chat = ?1 ORDER BY id LIMIT 1",
            [id],
            |r| Ok((r.get(0)?, r.get::<_, Option<String>>(1)?)),
        )
        .optional()?
        .map(|(id, lang)| (id, lang.as_deref().and_then(Lang::parse))))
}

/// The cabinets linked to `chat` (`cabinets.telegram_chat`).
pub fn cabinets_of_chat(conn: &Connection, chat: i64) -> Result<Vec<i64>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT id FROM cabinets WHERE telegram_chat = ?1 ORDER BY id")?;
    let rows = stmt.query_map([chat], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A campaign a command names or acts on: (cabinet, ad id, title).
pub type Named = (i64, i64, String);

/// The live campaigns of `accounts` whose id is `word` or whose title is exactly `word`.
pub fn campaigns_named(
    conn: &Connection,
    accounts: &[i64],
    word: &str,
) -> Result<Vec<Named>, StoreError> {
    let list = serde_json::to_string(accounts).unwrap_or_else(|_| "[]".into());
    let id: Option<i64> = word.parse().ok();
    let mut stmt = conn.prepare_cached(
        "SELECT account_id, ad_id, title FROM campaigns
         WHERE account_id IN (SELECT value FROM json_each(?1)) AND status <> 'Deleted'
            AND (ad_id = ?2 OR title = ?3) ORDER BY account_id, ad_id LIMIT 20",
    )?;
    let rows = stmt.query_map(params![list, id, word], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The running campaigns (switched on, not deleted) of `account`.
pub fn running(conn: &Connection, account: i64) -> Result<Vec<Named>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT account_id, ad_id, title FROM campaigns
         WHERE account_id = ?1 AND active = 1 AND status <> 'Deleted' ORDER BY ad_id",
    )?;
    let rows = stmt.query_map([account], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The language the bot writes to `chat` in: the person's whose own chat it is, else the
/// report language of a cabinet linked to it; `None`: neither chose one.
pub fn chat_lang(conn: &Connection, chat: i64) -> Result<Option<Lang>, StoreError> {
    if let Some((_, Some(lang))) = person_of(conn, chat)? {
        return Ok(Some(lang));
    }
    let code: Option<String> = conn
        .query_row(
            "SELECT report_language FROM cabinets WHERE telegram_chat = ?1
                AND report_language IS NOT NULL ORDER BY id LIMIT 1",
            [chat],
            |r| r.get(0),
        )
        .optional()?;
    Ok(code.as_deref().and_then(Lang::parse))
}
