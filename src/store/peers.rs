//! Owns `peer_titles`: what the platform last said about a public channel or bot (its title
//! and picture), kept per platform kind and username when a look-up or an ad's targeting
//! gives it, so targeting can be read as "Title (@username)".

use std::collections::HashMap;

use rusqlite::{params, Connection};

use super::StoreError;
use crate::domain::targeting::PeerEntry;

/// The key a channel or bot is kept under: its username, lower case, without `@` or a
/// `t.me` link around it; `None` for a numeric id or an empty name.
pub fn key(target: &str) -> Option<String> {
    let name = target
        .trim()
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .trim_start_matches("t.me/")
        .trim_start_matches('@')
        .trim_end_matches('/');
    let numeric = name
        .trim_start_matches('-')
        .chars()
        .all(|c| c.is_ascii_digit());
    (!name.is_empty() && !numeric).then(|| name.to_ascii_lowercase())
}

/// Keeps what the platform `platform` said about `peer` (seen at `at`); a look-up without a
/// title keeps nothing, and never erases a title kept before.
pub fn remember(
    conn: &Connection,
    platform: &str,
    peer: &PeerEntry,
    at: &str,
) -> Result<(), StoreError> {
    let (Some(name), Some(title)) = (key(&peer.username), peer.title.as_deref()) else {
        return Ok(());
    };
    let title = title.trim();
    if title.is_empty() {
        return Ok(());
    }
    conn.prepare_cached(
        "INSERT INTO peer_titles (platform, username, title, photo_url, seen_at)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (platform, username) DO UPDATE SET
            title = excluded.title,
            photo_url = COALESCE(excluded.photo_url, peer_titles.photo_url),
            seen_at = excluded.seen_at",
    )?
    .execute(params![platform, name, title, peer.photo_url, at])?;
    Ok(())
}

/// The titles kept for `targets` (usernames as targeting names them, in any of the forms
/// [`key`] reads) on platform `platform`, by their key.
pub fn titles(
    conn: &Connection,
    platform: &str,
    targets: &[String],
) -> Result<HashMap<String, String>, StoreError> {
    let keys: Vec<String> = targets.iter().filter_map(|t| key(t)).collect();
    if keys.is_empty() {
        return Ok(HashMap::new());
    }
    let mut stmt = conn.prepare_cached(
        "SELECT username, title FROM peer_titles
         WHERE platform = ?1 AND title IS NOT NULL
           AND username IN (SELECT value FROM json_each(?2))",
    )?;
    let list = serde_json::Value::from(keys).to_string();
    let rows = stmt.query_map(params![platform, list], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(username: &str, title: Option<&str>) -> PeerEntry {
        PeerEntry {
            username: username.into(),
            title: title.map(str::to_string),
            photo_url: None,
        }
    }

    #[test]
    fn a_title_is_kept_per_platform_and_read_by_any_form_of_the_name() {
        let conn = crate::store::test_db();
        let news = peer("@Daily_News", Some("Daily News"));
        remember(&conn, "telegram", &news, "t1").unwrap();
        remember(&conn, "telegram", &peer("@bare", None), "t1").unwrap();
        let asked: Vec<String> = ["@daily_news", "https://t.me/DAILY_NEWS", "bare", "-1001"]
            .map(str::to_string)
            .to_vec();
        let found = titles(&conn, "telegram", &asked).unwrap();
        assert_eq!(found.len(), 1, "only the titled peer: {found:?}");
        assert_eq!(found["daily_news"], "Daily News");
        assert!(
            titles(&conn, "sim", &asked).unwrap().is_empty(),
            "other platform"
        );
        remember(
            &conn,
            "telegram",
            &peer("@daily_news", Some("News Daily")),
            "t2",
        )
        .unwrap();
        remember(&conn, "telegram", &peer("@daily_news", None), "t3").unwrap();
        let again = titles(&conn, "telegram", &asked[..1]).unwrap();
        assert_eq!(again["daily_news"], "News Daily", "renamed, and not erased");
    }
}
