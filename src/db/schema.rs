//! Owns the database's schema: the numbered migrations in `sql/` (the service's, and the
//! simulator's under a ledger of their own), applied once each and in order, and the checks
//! that a database is one this binary can run on: an adcab schema at all, no newer version, no
//! missing table, no damaged page.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode};

use super::sentence;
use super::StoreError;

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
    ],
};

/// The simulator's own tables (`sim_*`), apart from the service's.
const SIMULATOR: Ledger = Ledger {
    table: "sim_schema_migrations",
    migrations: &[(1, include_str!("../../sql/sim/0001_tokens_and_panic.sql"))],
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

/// What `adcab check` and `adcab restore` find in a database file, read without changing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inspection {
    /// The newest service migration recorded (0 for an empty file).
    pub schema: i64,
    /// `PRAGMA integrity_check`: "ok", or the first problems it names.
    pub integrity: String,
    /// Why this binary would refuse the file (a damaged page, no adcab schema, a newer one, a
    /// missing table), as the end of a sentence about it ("its ..."); `None` when it can run
    /// on it, migrating it first when it is older.
    pub refused: Option<String>,
}

impl Inspection {
    /// Whether this binary can serve the file.
    pub fn sound(&self) -> bool {
        self.refused.is_none()
    }
}

/// Opens the file read-only and checks it: SQLite's integrity check, then what `serve` checks
/// of its schema ([`complete`]).
pub fn inspect(path: &Path) -> Result<Inspection, String> {
    if !path.exists() {
        return Err(format!("there is no database at {}", path.display()));
    }
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let read = || -> rusqlite::Result<Inspection> {
        let schema = current(&conn)?;
        let integrity = integrity_check(&conn)?;
        let refused = if integrity != "ok" {
            Some(format!("it failed its integrity check: {integrity}"))
        } else {
            complete(&conn).err()
        };
        Ok(Inspection {
            schema,
            integrity,
            refused,
        })
    };
    read().map_err(|e| format!("cannot read {}: {}", path.display(), sentence(&e)))
}

/// `PRAGMA integrity_check`: "ok", or the first ten problems it names.
pub fn integrity_check(conn: &Connection) -> rusqlite::Result<String> {
    let mut stmt = conn.prepare("PRAGMA integrity_check(10)")?;
    let found = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(found.join("; "))
}

/// What SQLite's quick check of a file found in the time it had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integrity {
    /// It read every page and found none damaged.
    Intact { took: Duration },
    /// It ran out of time before the last page (a large file): nothing found in what it read.
    Unfinished { budget: Duration },
}

/// How many of SQLite's steps the quick check takes between two looks at the clock.
const CHECK_STEPS: i32 = 10_000;

/// Runs `PRAGMA quick_check` (the structure of every page, without comparing indexes to their
/// tables) on a read-only connection of its own, stopping it after `budget`. Damage is an
/// error, the end of a sentence about the file naming what SQLite found.
pub fn quick_check(path: &Path, budget: Duration) -> Result<Integrity, String> {
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| format!("cannot open it for its integrity check: {}", sentence(&e)))?;
    let started = Instant::now();
    let deadline = started + budget;
    conn.progress_handler(CHECK_STEPS, Some(move || Instant::now() >= deadline));
    let found = conn.prepare("PRAGMA quick_check(10)").and_then(|mut stmt| {
        stmt.query_map([], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<String>>>()
    });
    let damaged = |what: String| {
        format!("its pages are damaged ({what}); restore a backup (adcab restore --from PATH)")
    };
    match found {
        Ok(rows) if rows == ["ok"] => Ok(Integrity::Intact {
            took: started.elapsed(),
        }),
        Ok(rows) => Err(damaged(rows.join("; "))),
        Err(e) => match e.sqlite_error_code() {
            Some(ErrorCode::OperationInterrupted) => Ok(Integrity::Unfinished { budget }),
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
                Err(damaged(e.to_string()))
            }
            _ => Err(format!("cannot run its integrity check: {}", sentence(&e))),
        },
    }
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
pub fn migrate(conn: &mut Connection) -> Result<(), String> {
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
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| sentence(&e))?;
        tx.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS {} (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
            ledger.table
        ))
        .map_err(|e| sentence(&e))?;
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
                .map_err(|e| {
                    format!(
                        "migration {version} of {} failed: {}",
                        ledger.table,
                        sentence(&e)
                    )
                })?;
        }
        tx.commit().map_err(|e| sentence(&e))?;
    }
    check_tables(conn)
}

/// The versions recorded in `ledger`, refused when one is not among this binary's migrations
/// (the database was written by a newer adcab).
fn known(conn: &Connection, ledger: &Ledger) -> Result<Vec<i64>, String> {
    let done = applied(conn, ledger).map_err(|e| sentence(&e))?;
    match done
        .iter()
        .find(|v| !ledger.migrations.iter().any(|(m, _)| m == *v))
    {
        Some(unknown) => Err(format!(
            "its {} version {unknown} is newer than this adcab knows (up to {}); run the adcab that wrote it, or restore a backup made for this version",
            if ledger.table == SERVICE.table { "schema" } else { "simulator schema" },
            ledger.newest()
        )),
        None => Ok(done),
    }
}

/// What `serve` requires of a database it did not create, checked without changing it: an
/// adcab schema (an empty or foreign file has none), every recorded migration one this binary
/// knows, and every table the recorded migrations leave. An older database passes: `serve`
/// brings it up to date.
pub fn complete(conn: &Connection) -> Result<(), String> {
    for ledger in &LEDGERS {
        known(conn, ledger)?;
    }
    if current(conn).map_err(|e| sentence(&e))? == 0 {
        return Err(
            "it holds no adcab schema (an empty file, or another program's database)".into(),
        );
    }
    check_tables(conn)
}

/// Every table the recorded migrations leave must be there.
fn check_tables(conn: &Connection) -> Result<(), String> {
    let expected = expected_tables(conn).map_err(|e| sentence(&e))?;
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .map_err(|e| sentence(&e))?;
    let present: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .and_then(|rows| rows.collect())
        .map_err(|e| sentence(&e))?;
    match expected
        .into_iter()
        .find(|t| !present.iter().any(|p| p == t))
    {
        Some(missing) => Err(format!(
            "its table {missing} is missing; the file was changed outside adcab (restore a backup)"
        )),
        None => Ok(()),
    }
}

/// The tables the migrations recorded in the database leave (all of this binary's, once they
/// are applied), read in order from their `CREATE TABLE` and `DROP TABLE` statements.
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
        loop {
            let create = rest.find("CREATE TABLE ");
            let drop = rest.find("DROP TABLE ");
            let (at, len, creates) = match (create, drop) {
                (Some(c), Some(d)) if d < c => (d, "DROP TABLE ".len(), false),
                (Some(c), _) => (c, "CREATE TABLE ".len(), true),
                (None, Some(d)) => (d, "DROP TABLE ".len(), false),
                (None, None) => break,
            };
            rest = &rest[at + len..];
            let name = rest
                .trim_start_matches("IF NOT EXISTS ")
                .trim_start_matches("IF EXISTS ")
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("");
            tables.retain(|t| *t != name);
            if creates && !name.is_empty() {
                tables.push(name);
            }
        }
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_migrated_file_is_sound_and_a_missing_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.db");
        assert!(inspect(&path).unwrap_err().contains("no database"));
        crate::db::Db::open(&path, crate::db::Open::Create).unwrap();
        let found = inspect(&path).unwrap();
        assert_eq!(found.schema, version());
        assert_eq!(found.integrity, "ok");
        assert_eq!(found.refused, None);
        assert!(found.sound());
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("INSERT INTO schema_migrations (version, applied_at) VALUES (99, 'x')")
            .unwrap();
        let newer = inspect(&path).unwrap();
        assert!(!newer.sound());
        assert!(
            newer
                .refused
                .unwrap()
                .contains("schema version 99 is newer"),
            "refused as serve refuses it"
        );
    }

    #[test]
    fn an_empty_or_foreign_file_or_a_missing_table_is_not_complete_and_an_older_one_is() {
        let empty = Connection::open_in_memory().unwrap();
        let err = complete(&empty).unwrap_err();
        assert!(err.contains("no adcab schema"), "{err}");
        empty
            .execute_batch("CREATE TABLE notes (body TEXT)")
            .unwrap();
        let err = complete(&empty).unwrap_err();
        assert!(err.contains("no adcab schema"), "a foreign table: {err}");

        let older = applied_before(13);
        complete(&older).expect("serve migrates an older database");
        older.execute_batch("DROP TABLE cabinets").unwrap();
        let err = complete(&older).unwrap_err();
        assert!(err.contains("table cabinets is missing"), "{err}");

        let mut current = Connection::open_in_memory().unwrap();
        migrate(&mut current).unwrap();
        complete(&current).unwrap();
        current
            .execute_batch(
                "INSERT INTO sim_schema_migrations (version, applied_at) VALUES (7, 'x')",
            )
            .unwrap();
        let err = complete(&current).unwrap_err();
        assert!(err.contains("simulator schema version 7 is newer"), "{err}");
    }

    /// A database file of `rows` users, closed (its log copied in), and its size in pages.
    fn file_with_users(path: &Path, rows: usize) -> u64 {
        let mut conn = Connection::open(path).unwrap();
        migrate(&mut conn).unwrap();
        let tx = conn.transaction().unwrap();
        for i in 0..rows {
            tx.execute(
                "INSERT INTO users (email, plan, created_at) VALUES (?1, 'pro', 'x')",
                [format!("user{i}@example.com")],
            )
            .unwrap();
        }
        tx.commit().unwrap();
        let pages: u64 = conn
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .unwrap();
        drop(conn);
        pages
    }

    #[test]
    fn the_quick_check_finds_a_damaged_page_and_stops_at_its_budget() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.db");
        let pages = file_with_users(&path, 3000);
        let long = Duration::from_secs(60);
        assert!(matches!(
            quick_check(&path, long),
            Ok(Integrity::Intact { .. })
        ));
        assert_eq!(
            quick_check(&path, Duration::ZERO),
            Ok(Integrity::Unfinished {
                budget: Duration::ZERO
            })
        );

        let page_size = 4096;
        let mut bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() as u64, pages * page_size);
        let middle = (pages / 2 * page_size) as usize;
        for (i, b) in bytes[middle..middle + page_size as usize]
            .iter_mut()
            .enumerate()
        {
            *b = (i * 7 + 13) as u8;
        }
        std::fs::write(&path, bytes).unwrap();
        let err = quick_check(&path, long).unwrap_err();
        assert!(err.contains("damaged"), "{err}");
        assert!(
            !inspect(&path).is_ok_and(|found| found.sound()),
            "check refuses it too"
        );
    }

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
    fn applied_before(version: i64) -> Connection {
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
                 FROM campaigns WHERE account_id = 7 AND ad_id = ?1",
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
        let err = migrate(&mut conn).unwrap_err();
        assert!(err.contains("schema version 99 is newer"), "{err}");
        conn.execute("DELETE FROM schema_migrations WHERE version = 99", [])
            .unwrap();
        conn.execute("ALTER TABLE campaigns RENAME TO campaigns_v2", [])
            .unwrap();
        let err = migrate(&mut conn).unwrap_err();
        assert!(err.contains("table campaigns is missing"), "{err}");
    }
}
