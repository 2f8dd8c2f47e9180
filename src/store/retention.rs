//! Owns the retention statements: hourly stats rolled into `daily_stats`, and the removal of
//! old conversions (their campaigns' `conversion_totals` already count them), webhook
//! deliveries, sent status events and idempotency records. Each function does one small batch
//! (at most `limit` rows, or one campaign's stats) in the caller's transaction and says how
//! many rows it took, so the caller loops in short transactions that never hold the writer
//! long.
//!
//! Old rows are found through their ids, which grow with time: the first row at or after the
//! cutoff bounds the batch, so no statement scans rows it will not remove.

use rusqlite::{params, Connection};

use super::StoreError;

/// Whether a cabinet has any hourly row before `cutoff`.
pub fn has_hours_before(conn: &Connection, account: i64, cutoff: &str) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM hourly_stats WHERE account_id = ?1 AND hour < ?2)",
        )?
        .query_row(params![account, cutoff], |r| r.get(0))?)
}

/// A cabinet's stored campaigns in id order, after `after`, at most `limit`. Every campaign
/// with hourly stats is among them: only a copy of an ad that never ran is ever removed.
pub fn campaigns_after(
    conn: &Connection,
    account: i64,
    after: i64,
    limit: i64,
) -> Result<Vec<i64>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT ad_id FROM campaigns WHERE account_id = ?1 AND ad_id > ?2 ORDER BY ad_id LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![account, after, limit], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Moves a campaign's hourly rows before `cutoff` (the start of a day) into its days' rows in
/// `daily_stats` (adding to what a day holds) and removes them. Returns the rows moved. Taken
/// campaign by campaign in id order, both the hourly rows' key (hour, then campaign) and
/// their campaign index are walked in order, so a batch touches few pages. The campaign index
/// is named: left to itself, SQLite reads the key's range of every campaign's old hours.
pub fn roll_campaign(
    conn: &Connection,
    account: i64,
    ad: i64,
    cutoff: &str,
) -> Result<usize, StoreError> {
    conn.prepare_cached(
        "INSERT INTO daily_stats (account_id, ad_id, day, views, opens, clicks, actions,
            spent_micros, run_views, run_opens, run_clicks, run_actions, run_spent_micros)
         SELECT account_id, ad_id, day, views, opens, clicks, actions, spent_micros, run_views,
            run_opens, run_clicks, run_actions, run_spent_micros
         FROM (SELECT account_id, ad_id, substr(hour, 1, 10) AS day, SUM(views) AS views,
                SUM(opens) AS opens, SUM(clicks) AS clicks, SUM(actions) AS actions,
                SUM(spent_micros) AS spent_micros, MAX(hour), run_views, run_opens,
                run_clicks, run_actions, run_spent_micros
             FROM hourly_stats INDEXED BY hourly_stats_ad
             WHERE account_id = ?1 AND ad_id = ?2 AND hour < ?3
             GROUP BY substr(hour, 1, 10))
         WHERE true
         ON CONFLICT (account_id, ad_id, day) DO UPDATE SET views = views + excluded.views,
            opens = opens + excluded.opens, clicks = clicks + excluded.clicks,
            actions = actions + excluded.actions,
            spent_micros = spent_micros + excluded.spent_micros",
    )?
    .execute(params![account, ad, cutoff])?;
    Ok(conn
        .prepare_cached(
            "DELETE FROM hourly_stats INDEXED BY hourly_stats_ad
             WHERE account_id = ?1 AND ad_id = ?2 AND hour < ?3",
        )?
        .execute(params![account, ad, cutoff])?)
}

/// The first id of `table` whose time column is at or after `cutoff` (one past the last id
/// when none is): every id below it is older.
fn first_kept(
    conn: &Connection,
    table: &str,
    at: &str,
    cutoff: &str,
) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT COALESCE(
                (SELECT id FROM {table} WHERE {at} >= ?1 ORDER BY id LIMIT 1),
                (SELECT MAX(id) + 1 FROM {table}))"
        ))?
        .query_row([cutoff], |r| r.get(0))?)
}

/// Removes at most `limit` rows of `table` whose time column `at` is before `cutoff` and that
/// match `only` (an SQL condition of the table's own columns).
fn prune_older(
    conn: &Connection,
    table: &str,
    at: &str,
    only: &str,
    cutoff: &str,
    limit: i64,
) -> Result<usize, StoreError> {
    let Some(bound) = first_kept(conn, table, at, cutoff)? else {
        return Ok(0);
    };
    Ok(conn
        .prepare_cached(&format!(
            "DELETE FROM {table} WHERE id IN
             (SELECT id FROM {table} WHERE id < ?1 AND {only} ORDER BY id LIMIT ?2)"
        ))?
        .execute(params![bound, limit])?)
}

/// Removes at most `limit` of the webhook deliveries logged before `cutoff`.
pub fn prune_deliveries(conn: &Connection, cutoff: &str, limit: i64) -> Result<usize, StoreError> {
    prune_older(conn, "webhook_deliveries", "created_at", "1", cutoff, limit)
}

/// Removes at most `limit` of the status events recorded before `cutoff` that were sent.
pub fn prune_events(conn: &Connection, cutoff: &str, limit: i64) -> Result<usize, StoreError> {
    prune_older(conn, "status_events", "at", "sent = 1", cutoff, limit)
}

/// Removes at most `limit` of automation's records made before `cutoff`: rule log entries,
/// moves of money, Auto CPM decisions, decided proposals (with their messages) and the bot's
/// `/pauseall` confirmations, counts of alerts held back, and alerts with no send still
/// pending (with their sends).
pub fn prune_automation(conn: &Connection, cutoff: &str, limit: i64) -> Result<usize, StoreError> {
    let mut removed = prune_older(conn, "rule_log", "at", "1", cutoff, limit)?;
    removed += prune_older(conn, "automation_moves", "at", "1", cutoff, limit)?;
    removed += prune_older(conn, "alert_holds", "at", "1", cutoff, limit)?;
    removed += prune_older(conn, "auto_cpm_log", "at", "1", cutoff, limit)?;
    removed += prune_older(
        conn,
        "proposals",
        "created_at",
        "state <> 'pending'",
        cutoff,
        limit,
    )?;
    removed += prune_older(conn, "bot_confirms", "created_at", "1", cutoff, limit)?;
    removed += conn
        .prepare_cached(
            "DELETE FROM proposal_messages WHERE proposal_id IN (SELECT m.proposal_id
                FROM proposal_messages m LEFT JOIN proposals p ON p.id = m.proposal_id
                WHERE p.id IS NULL LIMIT ?1)",
        )?
        .execute([limit])?;
    removed += prune_older(
        conn,
        "alerts",
        "at",
        "NOT EXISTS (SELECT 1 FROM alert_sends s WHERE s.alert_id = alerts.id AND s.state = 'pending')",
        cutoff,
        limit,
    )?;
    removed += conn
        .prepare_cached(
            "DELETE FROM alert_sends WHERE id IN (SELECT s.id FROM alert_sends s
                LEFT JOIN alerts a ON a.id = s.alert_id WHERE a.id IS NULL LIMIT ?1)",
        )?
        .execute([limit])?;
    Ok(removed)
}

/// Removes at most `limit` of the finished idempotency records made before `cutoff`.
pub fn prune_idempotency(conn: &Connection, cutoff: &str, limit: i64) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached(
            "DELETE FROM idempotency_keys WHERE rowid IN
             (SELECT rowid FROM idempotency_keys WHERE created_at < ?1 AND state = 'done'
              ORDER BY rowid LIMIT ?2)",
        )?
        .execute(params![cutoff, limit])?)
}

/// Removes at most `limit` of the conversions received before `cutoff` and their
/// attributions (the running totals in `conversion_totals` keep what they added). Returns how
/// many.
pub fn prune_conversions(conn: &Connection, cutoff: &str, limit: i64) -> Result<usize, StoreError> {
    let Some(bound) = first_kept(conn, "conversions", "received_at", cutoff)? else {
        return Ok(0);
    };
    let last: Option<i64> = conn
        .prepare_cached(
            "SELECT MAX(id) FROM (SELECT id FROM conversions WHERE id < ?1 ORDER BY id LIMIT ?2)",
        )?
        .query_row(params![bound, limit], |r| r.get(0))?;
    let Some(last) = last else { return Ok(0) };
    conn.prepare_cached("DELETE FROM conversion_campaigns WHERE conversion_id <= ?1")?
        .execute([last])?;
    Ok(conn
        .prepare_cached("DELETE FROM conversions WHERE id <= ?1")?
        .execute([last])?)
}
