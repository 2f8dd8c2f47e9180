//! Owns the `users` table: people, their plan and their subscription state.

use rusqlite::{params, Connection, Row};

use super::optional;
use super::StoreError;
use crate::domain::access::Plan;
use crate::i18n::Lang;

#[derive(Debug, Clone)]
pub struct User {
    pub id: i64,
    pub email: String,
    pub plan: Plan,
    pub subscription_active: bool,
    /// The language the person chose for the panel; `None` follows the browser.
    pub language: Option<Lang>,
    /// The IANA time zone the person chose; `None` (or a name no longer known) follows the
    /// browser.
    pub time_zone: Option<chrono_tz::Tz>,
    /// When the person last read the home page's "needs attention" list (unix seconds).
    pub attention_seen_at: Option<i64>,
}

fn from_row(r: &Row) -> rusqlite::Result<User> {
    let plan: String = r.get("plan")?;
    let subscription: String = r.get("subscription")?;
    Ok(User {
        id: r.get("id")?,
        email: r.get("email")?,
        plan: Plan::parse(&plan).unwrap_or(Plan::Free),
        subscription_active: subscription == "active",
        language: r
            .get::<_, Option<String>>("language")?
            .as_deref()
            .and_then(Lang::parse),
        time_zone: r
            .get::<_, Option<String>>("time_zone")?
            .and_then(|name| name.parse().ok()),
        attention_seen_at: r.get("attention_seen_at")?,
    })
}

pub fn insert(conn: &Connection, email: &str, plan: Plan, now: &str) -> Result<i64, StoreError> {
    conn.execute(
        "INSERT INTO users (email, plan, created_at) VALUES (?1, ?2, ?3)",
        params![email, plan.as_str(), now],
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<User>, StoreError> {
    optional(
        conn.prepare_cached("SELECT * FROM users WHERE id = ?1")?
            .query_row([id], from_row),
    )
}

/// The person with this email (compared without case).
pub fn by_email(conn: &Connection, email: &str) -> Result<Option<User>, StoreError> {
    optional(
        conn.prepare_cached("SELECT * FROM users WHERE email = ?1 COLLATE NOCASE")?
            .query_row([email], from_row),
    )
}

/// A person's own settings: the panel's language and the time zone times are shown in
/// (`None`: the browser's).
pub fn set_settings(
    conn: &Connection,
    id: i64,
    language: Option<Lang>,
    time_zone: Option<chrono_tz::Tz>,
) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE users SET language = ?2, time_zone = ?3 WHERE id = ?1",
        params![id, language.map(Lang::code), time_zone.map(|z| z.name())],
    )?;
    Ok(())
}

/// Sets `id`'s language to `language` when they have chosen none (an accepted invitation
/// passes on the language the inviter chose for them).
pub fn set_language_if_unset(conn: &Connection, id: i64, language: Lang) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE users SET language = ?2 WHERE id = ?1 AND language IS NULL",
        params![id, language.code()],
    )?;
    Ok(())
}

/// Every person, by id.
pub fn list(conn: &Connection) -> Result<Vec<User>, StoreError> {
    let mut stmt = conn.prepare("SELECT * FROM users ORDER BY id")?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn count(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))?)
}

pub fn set_plan(conn: &Connection, id: i64, plan: Plan) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE users SET plan = ?2 WHERE id = ?1",
        params![id, plan.as_str()],
    )?;
    Ok(())
}

pub fn set_subscription(conn: &Connection, id: i64, active: bool) -> Result<(), StoreError> {
    let value = if active { "active" } else { "expired" };
    conn.execute(
        "UPDATE users SET subscription = ?2 WHERE id = ?1",
        params![id, value],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::store::{keys, test_db};

    /// The columns [`super::User`] is read from but `attention_seen_at`.
    const FOLLOWED: [&str; 6] = [
        "id",
        "email",
        "plan",
        "subscription",
        "language",
        "time_zone",
    ];

    #[test]
    fn the_columns_a_principal_reads_move_the_access_generation_but_the_home_pages_look() {
        let conn = test_db();
        let columns = keys::test_columns_moving_access(&conn, "users", "id = 1");
        for name in FOLLOWED.iter().chain(&["attention_seen_at"]) {
            assert!(columns.iter().any(|(c, _)| c == name), "{name}");
        }
        for (column, moved) in &columns {
            assert_eq!(*moved, FOLLOWED.contains(&column.as_str()), "{column}");
        }
    }
}
