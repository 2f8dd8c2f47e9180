//! Owns `campaign_history`: each change to a campaign with who made it: its source (`api`,
//! `panel`, `automation`, ...), the person the face acted for and the automation rule that
//! made it, where known, and the assistant (an MCP client's name) a change came through; read
//! back with the person's email and the rule's name of now.

use std::sync::Arc;

use rusqlite::{params, Connection};
use serde::Serialize;
use serde_json::Value;

use super::StoreError;
pub use crate::domain::campaign::Source;

/// Who made a change: the face it came through, the person it was made for (none for the
/// platform's own changes and for automation, which acts on its own) and the automation rule
/// that made it, and the assistant (an MCP client, by the name it gave) it came through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Author {
    pub source: Source,
    pub user: Option<i64>,
    pub rule: Option<i64>,
    pub client: Option<Arc<str>>,
}

impl Author {
    /// `source` with the person `user`.
    pub fn person(source: Source, user: i64) -> Author {
        Author {
            source,
            user: Some(user),
            rule: None,
            client: None,
        }
    }

    /// The same author, the change made through the assistant `client` when there is one.
    pub fn with_client(self, client: Option<Arc<str>>) -> Author {
        Author {
            client: client.or(self.client),
            ..self
        }
    }

    /// The same author, the change made by `rule` when there is one.
    pub fn with_rule(self, rule: Option<i64>) -> Author {
        Author {
            rule: rule.or(self.rule),
            ..self
        }
    }
}

impl From<Source> for Author {
    /// A change nobody in particular made (the platform's, an import, the operator's).
    fn from(source: Source) -> Author {
        Author {
            source,
            user: None,
            rule: None,
            client: None,
        }
    }
}

/// One change in a campaign's history.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub at: String,
    pub source: String,
    pub action: String,
    pub details: Option<Value>,
    /// The person the change was made for, when known.
    pub user_id: Option<i64>,
    /// That person's email now; none when they are unknown or no longer exist.
    pub user_email: Option<String>,
    /// The automation rule that made the change, when one did.
    pub rule_id: Option<i64>,
    /// That rule's name now; none when it was deleted.
    pub rule_name: Option<String>,
    /// The assistant (an MCP client's name) the change came through, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}

pub fn record(
    conn: &Connection,
    account: i64,
    ad: i64,
    at: &str,
    by: Author,
    action: &str,
    details: &Value,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO campaign_history
            (account_id, ad_id, at, source, action, details, user_id, rule_id, client)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            account,
            ad,
            at,
            by.source.as_str(),
            action,
            details.to_string(),
            by.user,
            by.rule,
            by.client.as_deref()
        ],
    )?;
    Ok(())
}

/// The campaign's history, oldest first.
pub fn list(conn: &Connection, account: i64, ad: i64) -> Result<Vec<Entry>, StoreError> {
    let mut stmt = conn.prepare(
        "SELECT h.at, h.source, h.action, h.details, h.user_id, u.email, h.rule_id, r.name,
            h.client
         FROM campaign_history h
         LEFT JOIN users u ON u.id = h.user_id
         LEFT JOIN rules r ON r.id = h.rule_id
         WHERE h.account_id = ?1 AND h.ad_id = ?2 ORDER BY h.id",
    )?;
    let rows = stmt.query_map([account, ad], |r| {
        Ok(Entry {
            at: r.get(0)?,
            source: r.get(1)?,
            action: r.get(2)?,
            details: crate::db::json_column(r.get(3)?)?,
            user_id: r.get(4)?,
            user_email: r.get(5)?,
            rule_id: r.get(6)?,
            rule_name: r.get(7)?,
            client: r.get(8)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The campaign of `account` whose history has an `action` entry made under `token` (its
/// details' `token`), if any: how a step repeated after a crash finds that it was done.
pub fn made_under(
    conn: &Connection,
    account: i64,
    action: &str,
    token: &str,
) -> Result<Option<i64>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id FROM campaign_history
         WHERE account_id = ?1 AND action = ?2 AND json_extract(details, '$.token') = ?3
         ORDER BY id LIMIT 1",
    )?;
    let mut rows = stmt.query_map(params![account, action, token], |r| r.get(0))?;
    Ok(rows.next().transpose()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_entry_reads_back_its_person_and_rule_by_their_names_of_now() {
        let conn = crate::store::test_db();
        conn.execute_batch(
            "INSERT INTO rules (id, account_id, name, scope, match_all, conditions, action,
                cooldown_hours, max_runs_per_day, enabled, dry_run, created_at, updated_at)
             VALUES (4, 7, 'Scale winners', '{}', 1, '[]', '{}', 24, 1, 1, 0, 't', 't');",
        )
        .unwrap();
        let d = json!({});
        let panel = Author::person(Source::Panel, 1);
        record(&conn, 7, 3, "t1", panel, "pause", &d).unwrap();
        let rule = Author::from(Source::Automation).with_rule(Some(4));
        record(&conn, 7, 3, "t2", rule.clone(), "rule", &d).unwrap();
        record(
            &conn,
            7,
            3,
            "t3",
            Author::person(Source::Api, 99),
            "resume",
            &d,
        )
        .unwrap();
        record(&conn, 7, 3, "t4", Source::Sync.into(), "edit", &d).unwrap();
        conn.execute("DELETE FROM rules WHERE id = 4", []).unwrap();
        record(&conn, 7, 3, "t5", rule, "rule", &d).unwrap();
        let read: Vec<_> = list(&conn, 7, 3)
            .unwrap()
            .into_iter()
            .map(|e| (e.user_id, e.user_email, e.rule_id, e.rule_name))
            .collect();
        assert_eq!(
            read,
            vec![
                (Some(1), Some("a@example.com".into()), None, None),
                (None, None, Some(4), None),
                (Some(99), None, None, None),
                (None, None, None, None),
                (None, None, Some(4), None),
            ],
            "the rule deleted before the read has no name; a person who is gone neither"
        );
    }
}
