//! Owns the reads behind the home page's "needs attention" list: a cabinet's declined
//! campaigns, those in review since before a time, those switched on but stopped for lack of
//! budget, what automation did or proposes in it since a time, a person's keys whose webhooks
//! fail; and `users.attention_seen_at`, when the person last read that list. Each read counts
//! every match and returns only the newest few, so a cabinet of thousands costs one index
//! range, not a page of thousands.

use rusqlite::{params, Connection};

use super::StoreError;
use crate::domain::money::Money;

/// One campaign that needs attention.
#[derive(Debug, Clone)]
pub struct Flagged {
    pub account: i64,
    pub ad: i64,
    pub title: String,
    /// When it took the state that flags it (its `status_changed_at`).
    pub at: String,
    /// The platform's short reason, for a declined campaign.
    pub reason: Option<String>,
    /// Budget left.
    pub budget: Money,
    /// What it spent over the hours read (about to stop only).
    pub spent: Money,
}

/// The newest matches of one kind, and how many there are.
#[derive(Debug, Clone, Default)]
pub struct Found {
    pub items: Vec<Flagged>,
    pub total: i64,
}

impl Found {
    /// Adds another cabinet's matches, keeping the `limit` newest.
    pub fn merge(&mut self, other: Found, limit: usize) {
        self.total = self.total.saturating_add(other.total);
        self.items.extend(other.items);
        self.items.sort_by(|a, b| b.at.cmp(&a.at));
        self.items.truncate(limit);
    }
}

fn flagged(r: &rusqlite::Row, account: i64) -> rusqlite::Result<Flagged> {
    Ok(Flagged {
        account,
        ad: r.get(0)?,
        title: r.get(1)?,
        at: r.get(2)?,
        reason: r.get(3)?,
        budget: Money::from_micros(r.get(4)?),
        spent: Money::from_micros(r.get(5)?),
    })
}

/// The campaigns of a status matching `extra` (a condition that may name `?3`, bound to
/// `bound`), newest change first, with how many match: one pass over the status's index
/// range, the count taken over every match before the limit.
fn of_status(
    conn: &Connection,
    account: i64,
    status: &str,
    extra: &str,
    bound: &str,
    limit: i64,
) -> Result<Found, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT ad_id, title, status_changed_at, decline_reason, budget_micros, 0,
            COUNT(*) OVER ()
         FROM campaigns INDEXED BY campaigns_by_status
         WHERE account_id = ?1 AND status = ?2 AND {extra}
         ORDER BY status_changed_at DESC, ad_id DESC LIMIT ?4"
    ))?;
    let mut found = Found::default();
    let mut rows = stmt.query(params![account, status, bound, limit])?;
    while let Some(r) = rows.next()? {
        found.total = r.get(6)?;
        found.items.push(flagged(r, account)?);
    }
    Ok(found)
}

/// A cabinet's declined campaigns, with the platform's reason: the count from the status's
/// index alone, and the most recently created few read in the index's order (no sort over
/// every declined campaign of the cabinet).
pub fn declined(conn: &Connection, account: i64, limit: i64) -> Result<Found, StoreError> {
    let total: i64 = conn
        .prepare_cached(
            "SELECT COUNT(*) FROM campaigns INDEXED BY campaigns_by_status
             WHERE account_id = ?1 AND status = 'Declined'",
        )?
        .query_row(params![account], |r| r.get(0))?;
    if total == 0 {
        return Ok(Found::default());
    }
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id, title, status_changed_at, decline_reason, budget_micros, 0
         FROM campaigns INDEXED BY campaigns_by_status
         WHERE account_id = ?1 AND status = 'Declined' ORDER BY ad_id DESC LIMIT ?2",
    )?;
    let items = stmt
        .query_map(params![account, limit], |r| flagged(r, account))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(Found { items, total })
}

/// A cabinet's campaigns in review since before `before` (an ISO time).
pub fn in_review_since(
    conn: &Connection,
    account: i64,
    before: &str,
    limit: i64,
) -> Result<Found, StoreError> {
    of_status(
        conn,
        account,
        "In Review",
        "status_changed_at < ?3",
        before,
        limit,
    )
}

/// A cabinet's campaigns switched on but stopped with no budget left.
pub fn out_of_budget(conn: &Connection, account: i64, limit: i64) -> Result<Found, StoreError> {
    of_status(
        conn,
        account,
        "Stopped",
        "active = 1 AND budget_micros = 0",
        "",
        limit,
    )
}

/// One thing automation did, proposed or failed to do to a campaign.
#[derive(Debug, Clone)]
pub struct Automated {
    pub account: i64,
    pub ad: i64,
    pub title: Option<String>,
    pub at: String,
    /// The rule's name; `None` for Auto CPM.
    pub rule: Option<String>,
    pub rule_id: Option<i64>,
    /// `acted`, `dry_run` (proposed) or `failed`; Auto CPM's bid moves are `acted`.
    pub outcome: String,
    /// The rule's action as logged (JSON), or Auto CPM's bid from and to (micro-units).
    pub action: String,
    pub bid: Option<(Money, Money)>,
}

/// What a cabinet's rules did, proposed or failed (skips left out), and Auto CPM's bid moves,
/// at or after `since`, newest first.
pub fn automated(
    conn: &Connection,
    account: i64,
    since: &str,
    limit: i64,
) -> Result<Vec<Automated>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT * FROM (
            SELECT l.ad_id, c.title, l.at, r.name, l.rule_id, l.outcome, l.action, NULL, NULL
            FROM rule_log l INDEXED BY rule_log_cabinet
            LEFT JOIN rules r ON r.id = l.rule_id
            LEFT JOIN campaigns c ON c.account_id = l.account_id AND c.ad_id = l.ad_id
            WHERE l.account_id = ?1 AND l.at >= ?2 AND l.outcome <> 'skipped'
            UNION ALL
            SELECT a.ad_id, c.title, a.at, NULL, NULL, 'acted', '', a.from_micros, a.to_micros
            FROM auto_cpm_log a
            LEFT JOIN campaigns c ON c.account_id = a.account_id AND c.ad_id = a.ad_id
            WHERE a.account_id = ?1 AND a.at >= ?2 AND a.to_micros IS NOT NULL
                AND a.to_micros <> a.from_micros)
         ORDER BY 3 DESC LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![account, since, limit], |r| {
        let from: Option<i64> = r.get(7)?;
        let to: Option<i64> = r.get(8)?;
        Ok(Automated {
            account,
            ad: r.get(0)?,
            title: r.get(1)?,
            at: r.get(2)?,
            rule: r.get(3)?,
            rule_id: r.get(4)?,
            outcome: r.get(5)?,
            action: r.get(6)?,
            bid: from
                .zip(to)
                .map(|(f, t)| (Money::from_micros(f), Money::from_micros(t))),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A key of the person whose last three webhook deliveries all failed.
#[derive(Debug, Clone)]
pub struct FailingKey {
    pub key: i64,
    pub url: String,
    /// When the last delivery was tried.
    pub at: String,
}

/// The person's live keys with a webhook whose last three deliveries all failed (no answer,
/// or an answer outside 2xx), as the webhook alert counts them.
pub fn failing_keys(conn: &Connection, user: i64) -> Result<Vec<FailingKey>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT k.id, k.webhook_url,
            (SELECT MAX(created_at) FROM webhook_deliveries WHERE key_id = k.id)
         FROM api_keys k
         WHERE k.user_id = ?1 AND k.revoked_at IS NULL AND k.webhook_url IS NOT NULL
           AND (SELECT COUNT(*) FROM (SELECT status FROM webhook_deliveries
                    WHERE key_id = k.id ORDER BY id DESC LIMIT 3)
                WHERE status IS NULL OR status NOT BETWEEN 200 AND 299) = 3
         ORDER BY k.id",
    )?;
    let rows = stmt.query_map(params![user], |r| {
        Ok(FailingKey {
            key: r.get(0)?,
            url: r.get(1)?,
            at: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// When the person last read the list (unix seconds of the service clock), if ever.
pub fn seen_at(conn: &Connection, user: i64) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT attention_seen_at FROM users WHERE id = ?1")?
        .query_row(params![user], |r| r.get(0))?)
}

/// Marks the list read by the person at `at` (unix seconds).
pub fn mark_seen(conn: &Connection, user: i64, at: i64) -> Result<(), StoreError> {
    conn.prepare_cached("UPDATE users SET attention_seen_at = ?2 WHERE id = ?1")?
        .execute(params![user, at])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_db;

    #[test]
    fn seen_at_round_trips() {
        let conn = test_db();
        assert_eq!(seen_at(&conn, 1).unwrap(), None);
        mark_seen(&conn, 1, 1_700_000_000).unwrap();
        assert_eq!(seen_at(&conn, 1).unwrap(), Some(1_700_000_000));
    }

    #[test]
    fn merging_keeps_the_newest_and_counts_all() {
        let item = |at: &str| Flagged {
            account: 7,
            ad: 1,
            title: "t".into(),
            at: at.into(),
            reason: None,
            budget: Money::ZERO,
            spent: Money::ZERO,
        };
        let mut found = Found {
            items: vec![item("2026-01-01T00:00:00Z")],
            total: 4,
        };
        found.merge(
            Found {
                items: vec![item("2026-02-01T00:00:00Z"), item("2025-12-01T00:00:00Z")],
                total: 9,
            },
            2,
        );
        assert_eq!(found.total, 13);
        let ats: Vec<&str> = found.items.iter().map(|f| f.at.as_str()).collect();
        assert_eq!(ats, ["2026-02-01T00:00:00Z", "2026-01-01T00:00:00Z"]);
    }
}
