//! Owns the database's schema: the numbered migrations in `sql/` (the service's, and the
//! simulator's and the connector's under ledgers of their own), applied once each and in order,
//! with the tables they leave; the checks that a database is one this binary can run on (an
//! adcab schema at all, no newer version, no missing table, no damaged page) are in `checks`,
//! and `SchemaError` in `error`.

mod checks;
mod error;

use rusqlite::Connection;

use super::StoreError;

pub use checks::{complete, inspect, integrity_check, quick_check, Inspection, Integrity};
pub use error::SchemaError;

/// A numbered series of migrations with its own ledger table; each runs once, in order.
struct Ledger {
    table: &'static str,
    migrations: &'static [(i64, &'static str)],
}

/// The service's tables. (Its first five migrations also made the simulator's first tables;
/// they stay as they were, so a database of any earlier version upgrades.)
const SERVICE: Ledger = Ledger {
    table: "schema_migrations",
    migrations: &[
        (1, include_str!("../../sql/0001_foundation.sql")),
        (2, include_str!("../../sql/0002_writes.sql")),
        (3, include_str!("../../sql/0003_delivery.sql")),
        (4, include_str!("../../sql/0004_sync.sql")),
        (5, include_str!("../../sql/0005_conversions.sql")),
        (6, include_str!("../../sql/0006_list_indexes.sql")),
        (7, include_str!("../../sql/0007_refs_indexed_under.sql")),
        (8, include_str!("../../sql/0008_platform_accounts.sql")),
        (9, include_str!("../../sql/0009_task_waits.sql")),
        (10, include_str!("../../sql/0010_operations.sql")),
        (11, include_str!("../../sql/0011_web_panel.sql")),
        (12, include_str!("../../sql/0012_conversion_totals.sql")),
        (13, include_str!("../../sql/0013_automation.sql")),
        (14, include_str!("../../sql/0014_auto_cpm.sql")),
        (15, include_str!("../../sql/0015_alerts.sql")),
        (16, include_str!("../../sql/0016_marks_in_campaigns.sql")),
        (17, include_str!("../../sql/0017_automation_ledger.sql")),
        (18, include_str!("../../sql/0018_cabinet_types_in_code.sql")),
        (19, include_str!("../../sql/0019_campaign_local_rev.sql")),
        (20, include_str!("../../sql/0020_decline_reason.sql")),
        (21, include_str!("../../sql/0021_auto_cpm_review.sql")),
        (
            22,
            include_str!("../../sql/0022_cabinet_synced_through.sql"),
        ),
        (23, include_str!("../../sql/0023_placement_and_dates.sql")),
        (
            24,
            include_str!("../../sql/0024_history_sources_in_code.sql"),
        ),
        (25, include_str!("../../sql/0025_person_settings.sql")),
        (26, include_str!("../../sql/0026_invitations.sql")),
        (27, include_str!("../../sql/0027_alert_texts.sql")),
        (28, include_str!("../../sql/0028_campaign_totals_index.sql")),
        (29, include_str!("../../sql/0029_history_authors.sql")),
        (30, include_str!("../../sql/0030_peer_titles.sql")),
        (
            31,
            include_str!("../../sql/0031_pace_and_invite_language.sql"),
        ),
        (
            32,
            include_str!("../../sql/0032_agency_terms_and_rates.sql"),
        ),
        (33, include_str!("../../sql/0033_schedule_zone.sql")),
        (34, include_str!("../../sql/0034_conversion_campaign.sql")),
        (35, include_str!("../../sql/0035_agency_money.sql")),
        (37, include_str!("../../sql/0037_client_reports.sql")),
        (38, include_str!("../../sql/0038_report_sends.sql")),
        (39, include_str!("../../sql/0039_reporting_currency.sql")),
        (40, include_str!("../../sql/0040_report_language.sql")),
        (41, include_str!("../../sql/0041_history_client.sql")),
        (42, include_str!("../../sql/0042_fast_checks.sql")),
        (43, include_str!("../../sql/0043_approvals.sql")),
        (44, include_str!("../../sql/0044_rules_across_cabinets.sql")),
        (45, include_str!("../../sql/0045_status_counts.sql")),
        (46, include_str!("../../sql/0046_cabinet_days.sql")),
        (47, include_str!("../../sql/0047_conversions_by_time.sql")),
        (48, include_str!("../../sql/0048_stat_runs.sql")),
        (
            49,
            include_str!("../../sql/0049_cabinet_conversion_days.sql"),
        ),
        (
            50,
            include_str!("../../sql/0050_cabinet_hours_of_rolled_days.sql"),
        ),
        (51, include_str!("../../sql/0051_cabinet_rolled_days.sql")),
        (52, include_str!("../../sql/0052_conversions_by_time.sql")),
        (
            53,
            include_str!("../../sql/0053_list_indexes_cover_status.sql"),
        ),
        (
            54,
            include_str!("../../sql/0054_cabinet_conversion_hours.sql"),
        ),
        (55, include_str!("../../sql/0055_cabinet_opens.sql")),
        (56, include_str!("../../sql/0056_cabinet_weeks.sql")),
        (
            57,
            include_str!("../../sql/0057_campaign_conversion_weeks.sql"),
        ),
        (58, include_str!("../../sql/0058_sync_gives_runs.sql")),
        (
            59,
            include_str!("../../sql/0059_runs_without_functions.sql"),
        ),
        (
            60,
            include_str!("../../sql/0060_campaign_conversion_lines.sql"),
        ),
        (61, include_str!("../../sql/0061_cabinet_copies_rev.sql")),
        (62, include_str!("../../sql/0062_given_runs_are_latest.sql")),
        (63, include_str!("../../sql/0063_kept_rows_by_day.sql")),
        (64, include_str!("../../sql/0064_kept_hours_by_hour.sql")),
        (
            65,
            include_str!("../../sql/0065_cabinet_week_days_spent.sql"),
        ),
        (66, include_str!("../../sql/0066_cabinet_runs.sql")),
        (67, include_str!("../../sql/0067_cabinet_zone_weeks.sql")),
        (68, include_str!("../../sql/0068_campaign_counters.sql")),
        (
            69,
            include_str!("../../sql/0069_attention_across_cabinets.sql"),
        ),
        (
            70,
            include_str!("../../sql/0070_list_indexes_across_cabinets.sql"),
        ),
        (
            71,
            include_str!("../../sql/0071_list_indexes_across_cabinets_unrun.sql"),
        ),
        (72, include_str!("../../sql/0072_campaign_ids.sql")),
        (73, include_str!("../../sql/0073_hourly_entries.sql")),
        (74, include_str!("../../sql/0074_figure_generations.sql")),
        (75, include_str!("../../sql/0075_access_generation.sql")),
    ],
};

/// The simulator's own tables (`sim_*`), apart from the service's.
const SIMULATOR: Ledger = Ledger {
    table: "sim_schema_migrations",
    migrations: &[
        (1, include_str!("../../sql/sim/0001_tokens_and_panic.sql")),
        (
            2,
            include_str!("../../sql/sim/0002_decline_description.sql"),
        ),
        (3, include_str!("../../sql/sim/0003_dates.sql")),
    ],
};

/// The Telegram Ads connector's own tables (`tg_*`).
const TELEGRAM: Ledger = Ledger {
    table: "tg_schema_migrations",
    migrations: &[(1, include_str!("../../sql/telegram/0001_connector.sql"))],
};

const LEDGERS: [Ledger; 3] = [SERVICE, SIMULATOR, TELEGRAM];

impl Ledger {
    fn newest(&self) -> i64 {
        self.migrations.last().map_or(0, |(v, _)| *v)
    }
}

/// The schema version this binary brings a database to.
pub fn version() -> i64 {
    SERVICE.newest()
}

/// Records the schema version in the file's header: a write, so it also proves the database
/// takes writes.
pub fn stamp_version(conn: &Connection) -> Result<(), StoreError> {
    Ok(conn.pragma_update(None, "user_version", version())?)
}

/// The newest service migration applied to the database (0 for an empty one).
pub fn current(conn: &Connection) -> rusqlite::Result<i64> {
    Ok(applied(conn, &SERVICE)?.into_iter().max().unwrap_or(0))
}

/// The versions recorded in `ledger` (none before its table exists).
fn applied(conn: &Connection, ledger: &Ledger) -> rusqlite::Result<Vec<i64>> {
    let exists: bool = conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
        [ledger.table],
        |r| r.get(0),
    )?;
    if !exists {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare(&format!(
        "SELECT version FROM {} ORDER BY version",
        ledger.table
    ))?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    rows.collect()
}

/// Migrations of this binary not yet applied to the database (every ledger).
pub fn pending(conn: &Connection) -> Result<usize, StoreError> {
    let mut count = 0;
    for ledger in &LEDGERS {
        let done = applied(conn, ledger)?;
        count += ledger
            .migrations
            .iter()
            .filter(|(v, _)| !done.contains(v))
            .count();
    }
    Ok(count)
}

/// Applies every migration not yet recorded, the service's first, then the simulator's;
/// running it twice changes nothing, and with nothing pending it takes no write lock. A
/// database that records a migration this binary does not know (written by a newer adcab) is
/// refused, as is one missing a table.
pub fn migrate(conn: &mut Connection) -> Result<(), SchemaError> {
    for ledger in &LEDGERS {
        let done = known(conn, ledger)?;
        let pending: Vec<&(i64, &str)> = ledger
            .migrations
            .iter()
            .filter(|(v, _)| !done.contains(v))
            .collect();
        if pending.is_empty() {
            continue;
        }
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS {} (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
            ledger.table
        ))?;
        for (version, sql) in pending {
            tx.execute_batch(sql)
                .and_then(|()| {
                    tx.execute(
                        &format!(
                            "INSERT INTO {} (version, applied_at) VALUES (?1, datetime('now'))",
                            ledger.table
                        ),
                        [version],
                    )
                })
                .map_err(|source| SchemaError::Migration {
                    ledger: ledger.table,
                    version: *version,
                    source,
                })?;
        }
        tx.commit()?;
    }
    check_tables(conn)
}

/// The versions recorded in `ledger`, refused when one is not among this binary's migrations
/// (the database was written by a newer adcab).
fn known(conn: &Connection, ledger: &Ledger) -> Result<Vec<i64>, SchemaError> {
    let done = applied(conn, ledger)?;
    match done
        .iter()
        .find(|v| !ledger.migrations.iter().any(|(m, _)| m == *v))
    {
        Some(unknown) => Err(SchemaError::Newer {
            what: if ledger.table == SERVICE.table {
                "schema"
            } else {
                "simulator schema"
            },
            version: *unknown,
            known: ledger.newest(),
        }),
        None => Ok(done),
    }
}

/// Every table the recorded migrations leave must be there.
fn check_tables(conn: &Connection) -> Result<(), SchemaError> {
    let expected = expected_tables(conn)?;
    let mut stmt = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")?;
    let present: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .and_then(|rows| rows.collect())?;
    match expected
        .into_iter()
        .find(|t| !present.iter().any(|p| p == t))
    {
        Some(missing) => Err(SchemaError::TableMissing(missing)),
        None => Ok(()),
    }
}

/// The tables the migrations recorded in the database leave (all of this binary's, once they
/// are applied), read in order from their `CREATE TABLE`, `DROP TABLE` and `ALTER TABLE … RENAME
/// TO` statements.
fn expected_tables(conn: &Connection) -> rusqlite::Result<Vec<&'static str>> {
    let mut recorded: Vec<&'static str> = Vec::new();
    for ledger in &LEDGERS {
        let done = applied(conn, ledger)?;
        recorded.extend(
            ledger
                .migrations
                .iter()
                .filter(|(v, _)| done.contains(v))
                .map(|(_, sql)| *sql),
        );
    }
    let mut tables: Vec<&'static str> = Vec::new();
    for sql in recorded {
        let mut rest: &'static str = sql;
        while let Some((at, opening)) = ["CREATE TABLE ", "DROP TABLE ", "ALTER TABLE "]
            .into_iter()
            .filter_map(|opening| rest.find(opening).map(|at| (at, opening)))
            .min_by_key(|(at, _)| *at)
        {
            rest = &rest[at + opening.len()..];
            let named = table_name(rest);
            let renamed = rest[named.len()..].trim_start().strip_prefix("RENAME TO ");
            let (gone, made) = match opening {
                "CREATE TABLE " => (true, Some(named)),
                "DROP TABLE " => (true, None),
                _ => (renamed.is_some(), renamed.map(table_name)),
            };
            if gone {
                tables.retain(|t| *t != named);
            }
            tables.extend(made.filter(|name| !name.is_empty()));
        }
    }
    Ok(tables)
}

/// The table named at the start of `rest` (past `IF [NOT] EXISTS`).
fn table_name(rest: &'static str) -> &'static str {
    rest.trim_start_matches("IF NOT EXISTS ")
        .trim_start_matches("IF EXISTS ")
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_apply_to_an_empty_database_and_twice_change_nothing() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        let versions: i64 = conn
            .query_row("SELECT COUNT(*) FROM schema_migrations", [], |r| r.get(0))
            .unwrap();
        assert_eq!(versions, SERVICE.migrations.len() as i64);
        let sim: i64 = conn
            .query_row("SELECT COUNT(*) FROM sim_schema_migrations", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(sim, SIMULATOR.migrations.len() as i64);
        assert!(expected_tables(&conn).unwrap().contains(&"sim_deletes"));
        let clock_rows: i64 = conn
            .query_row("SELECT COUNT(*) FROM service_clock", [], |r| r.get(0))
            .unwrap();
        assert_eq!(clock_rows, 1);
        assert!(expected_tables(&conn).unwrap().contains(&"campaigns"));
        assert!(
            expected_tables(&conn).unwrap().contains(&"sim_faults"),
            "dropped, then made again"
        );
    }

    /// A database as an older release left it: the service migrations before `version`
    /// applied the way releases before the simulator's own ledger applied them.
    pub(super) fn applied_before(version: i64) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
        )
        .unwrap();
        for (v, sql) in SERVICE.migrations.iter().filter(|(v, _)| *v < version) {
            conn.execute_batch(sql).unwrap();
            conn.execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (?1, 'then')",
                [v],
            )
            .unwrap();
        }
        conn
    }

    #[test]
    fn a_database_of_the_last_release_takes_the_simulators_own_migrations() {
        let mut conn = applied_before(i64::MAX);
        conn.execute_batch(
            "INSERT INTO sim_accounts (id, cabinet_type, balance_micros) VALUES (7, 'euro', 0)",
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        conn.execute_batch(
            "INSERT INTO sim_faults (account_id, kind, remaining) VALUES (7, 'panic', 1);
             INSERT INTO sim_deletes (token, account_id, ad_id, removed, created_at)
             VALUES ('t', 7, 1, 1, 'now');",
        )
        .unwrap();
    }

    /// Migration 72 makes the campaigns' table again: each campaign's rowid becomes its number,
    /// its row of figures (with the figures it had) holds it, and a campaign made later gets
    /// one too, its figures' row holding it from the start; the schema check follows the table
    /// through its rename.
    #[test]
    fn campaigns_keep_their_rowids_as_numbers_held_by_their_figures() {
        let mut conn = applied_before(72);
        let insert = |ad: i64| {
            format!(
                "INSERT INTO campaigns (account_id, ad_id, title, text, status, active,
                    promote_url, link_kind, target_type, targeting, cpm_micros, views_per_user,
                    created_at, synced_at, status_changed_at)
                 VALUES (7, {ad}, 'x', 't', 'Active', 1, 'https://t.me/a', 'channel',
                    'channels', '{{}}', 1, 1, 1, 't', 't');"
            )
        };
        conn.execute_batch(&format!(
            "INSERT INTO users (id, email, plan, created_at) VALUES (1, 'a@example.com', 'pro', 't');
             INSERT INTO cabinets (id, owner_id, name, cabinet_type, balance_updated_at,
                min_budget, created_at) VALUES (7, 1, 'c', 'euro', 't', 1, 't');
             {} {} {}
             DELETE FROM campaigns WHERE ad_id = 2;
             UPDATE campaign_counters SET views = 40 WHERE ad_id = 3;",
            insert(1),
            insert(2),
            insert(3)
        ))
        .unwrap();
        let rowids = |conn: &Connection| -> Vec<(i64, i64)> {
            conn.prepare("SELECT ad_id, rowid FROM campaigns ORDER BY ad_id")
                .unwrap()
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap()
        };
        let before = rowids(&conn);
        assert_eq!(before.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 3]);
        migrate(&mut conn).unwrap();
        conn.execute_batch(&insert(4)).unwrap();
        let held: Vec<(i64, i64, i64, i64)> = conn
            .prepare(
                "SELECT ad_id, id, campaign_id, views FROM campaigns
                 JOIN campaign_counters USING (account_id, ad_id) ORDER BY ad_id",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let numbered: Vec<(i64, i64)> = held.iter().map(|r| (r.0, r.1)).collect();
        assert_eq!(numbered[..2], before[..]);
        assert!(held.iter().all(|r| r.1 == r.2), "{held:?}");
        assert_eq!((held[1].3, held[2].0), (40, 4));
        assert!(held[2].1 > before[1].1);
        let tables = expected_tables(&conn).unwrap();
        assert!(tables.contains(&"campaigns") && !tables.contains(&"campaigns_numbered"));
    }

    #[test]
    fn the_hourly_marks_move_into_the_campaign_rows() {
        let mut conn = applied_before(16);
        conn.execute_batch(
            "INSERT INTO users (id, email, plan, created_at) VALUES (1, 'a@example.com', 'pro', 't');
             INSERT INTO cabinets (id, owner_id, name, cabinet_type, balance_updated_at,
                min_budget, created_at) VALUES (7, 1, 'c', 'euro', 't', 1, 't');
             INSERT INTO campaigns (account_id, ad_id, title, text, status, active, promote_url,
                link_kind, target_type, targeting, cpm_micros, budget_micros, views_per_user,
                created_at, synced_at, status_changed_at)
             VALUES (7, 1, 'x', 't', 'Active', 1, 'https://t.me/a', 'channel', 'channels', '{}',
                1, 1, 1, 1, 't', 't'),
                (7, 2, 'y', 't', 'Active', 1, 'https://t.me/a', 'channel', 'channels', '{}',
                1, 1, 1, 1, 't', 't');
             INSERT INTO stat_marks VALUES (7, 1, 100, 40, 9, 2, 250000);",
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        let marks = |ad: i64| -> (i64, i64, i64, i64, i64) {
            conn.query_row(
                "SELECT mark_views, mark_opens, mark_clicks, mark_actions, mark_spent_micros
                 FROM campaign_counters WHERE account_id = 7 AND ad_id = ?1",
                [ad],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap()
        };
        assert_eq!(marks(1), (100, 40, 9, 2, 250_000), "the mark carried over");
        assert_eq!(marks(2), (0, 0, 0, 0, 0), "never synced: zeros, as before");
        assert!(!expected_tables(&conn).unwrap().contains(&"stat_marks"));
    }

    #[test]
    fn the_ledger_takes_the_logged_moves_and_rule_ids_are_never_given_again() {
        let mut conn = applied_before(17);
        conn.execute_batch(
            "INSERT INTO rules (id, account_id, name, scope, match_all, conditions, action,
                cooldown_hours, max_runs_per_day, enabled, dry_run, created_at, updated_at)
             VALUES (3, 7, 'r', '{}', 1, '[]', '{}', 0, 1, 1, 0, 't', 't');
             INSERT INTO rule_log (rule_id, account_id, ad_id, at, outcome, matched, action,
                moved_micros)
             VALUES (3, 7, 1, '2026-01-01T01:00:00Z', 'acted', '{}', '{}', 5000000),
                (9, 7, 2, '2026-01-01T01:00:00Z', 'acted', '{}', '{}', 2000000),
                (3, 7, 1, '2026-01-01T02:00:00Z', 'skipped', '{}', '{}', 0);",
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        let moved: (i64, i64) = conn
            .query_row(
                "SELECT COUNT(*), SUM(moved_micros) FROM automation_moves WHERE state = 'done'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(
            moved,
            (2, 7_000_000),
            "the two logged moves, the deleted rule's too"
        );
        let kept: String = conn
            .query_row("SELECT name FROM rules WHERE id = 3", [], |r| r.get(0))
            .unwrap();
        assert_eq!(kept, "r");
        conn.execute(
            "INSERT INTO rules (account_id, name, scope, match_all, conditions, action,
                cooldown_hours, max_runs_per_day, enabled, dry_run, created_at, updated_at)
             VALUES (7, 'new', '{}', 1, '[]', '{}', 0, 1, 1, 0, 't', 't')",
            [],
        )
        .unwrap();
        assert_eq!(
            conn.last_insert_rowid(),
            10,
            "past rule 9, deleted but in the log"
        );
    }

    #[test]
    fn a_newer_schema_and_a_missing_table_are_refused_by_name() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        conn.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES (99, 'x')",
            [],
        )
        .unwrap();
        let err = migrate(&mut conn).unwrap_err().to_string();
        assert!(err.contains("schema version 99 is newer"), "{err}");
        conn.execute("DELETE FROM schema_migrations WHERE version = 99", [])
            .unwrap();
        conn.execute("ALTER TABLE campaigns RENAME TO campaigns_v2", [])
            .unwrap();
        let err = migrate(&mut conn).unwrap_err().to_string();
        assert!(err.contains("table campaigns is missing"), "{err}");
    }
}
