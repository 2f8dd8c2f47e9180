//! `adcab backup` while the in-process server takes writes, `adcab restore` refused while it
//! serves and atomic once it stopped, `restore` and `check` refusing what `serve` would
//! refuse, scheduled backups with rotation, and the backup taken before a migration.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::Value;

use super::block_on;
use crate::helpers::{spawn_app, spawn_app_with};
use adcab::db::schema;
use adcab::domain::access::Plan;
use adcab::{jobs::upkeep, ops};

/// A config file naming `db` as the database.
fn config_for(dir: &Path, db: &Path) -> PathBuf {
    let path = dir.join("ops.toml");
    std::fs::write(&path, format!("[storage]\npath = \"{}\"\n", db.display())).unwrap();
    path
}

/// Runs the binary; returns its exit success and the JSON it printed.
fn adcab(config: &Path, args: &[&str]) -> (bool, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_adcab"))
        .arg("--config")
        .arg(config)
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let value = serde_json::from_str(text.trim()).unwrap_or_else(|_| panic!("not JSON: {text}"));
    (out.status.success(), value)
}

fn users(db: &Path) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_backup_under_writes_restores_every_acknowledged_write_and_restore_waits_for_the_server() {
    let app = spawn_app();
    let db = app.services.config.storage.path.clone();
    let config = config_for(app.dir.path(), &db);
    let acked = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (services, acked, stop) = (app.services.clone(), acked.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let email = format!("{}@example.com", uuid::Uuid::new_v4().simple());
                ops::user_add(&services, &email, Plan::Pro).unwrap();
                acked.fetch_add(1, Ordering::SeqCst);
            }
        })
    };
    while acked.load(Ordering::SeqCst) < 50 {
        std::thread::yield_now();
    }
    let before = acked.load(Ordering::SeqCst) as i64;
    let to = app.dir.path().join("backups/b1");
    let (ok, report) = adcab(&config, &["backup", "--to", to.to_str().unwrap()]);
    stop.store(true, Ordering::SeqCst);
    writer.join().unwrap();
    assert!(ok, "{report}");
    assert_eq!(report["path"], to.display().to_string());
    assert!(report["bytes"].as_u64().unwrap() > 0);
    let counted = report["tables"]["users"].as_i64().unwrap();
    assert!(
        counted >= before,
        "{counted} users in the backup, {before} acknowledged before it"
    );
    assert_eq!(users(&to.join("adcab.db")), counted);
    assert_eq!(
        schema::inspect(&to.join("adcab.db")).unwrap().integrity,
        "ok"
    );

    let (ok, refused) = adcab(&config, &["restore", "--from", to.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("a server holds the database"),
        "{refused}"
    );
    let all = users(&db);
    assert!(all > counted, "writes went on after the backup");

    let dir = app.into_dir();
    let (ok, restored) = adcab(&config, &["restore", "--from", to.to_str().unwrap()]);
    assert!(ok, "{restored}");
    assert_eq!(restored["restored"], to.display().to_string());
    assert_eq!(users(&db), counted, "the database is the backup's");
    assert_eq!(schema::inspect(&db).unwrap().integrity, "ok");
    drop(dir);
}

#[test]
fn restore_and_check_refuse_a_file_serve_would_refuse() {
    let app = spawn_app();
    let db = app.services.config.storage.path.clone();
    let config = config_for(app.dir.path(), &db);
    let dir = app.into_dir();
    let users_before = users(&db);
    let (ok, checked) = adcab(&config, &["check"]);
    assert!(ok, "{checked}");
    assert!(checked.get("error").is_none(), "{checked}");

    let foreign = dir.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    rusqlite::Connection::open(foreign.join("adcab.db"))
        .unwrap()
        .execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hello');")
        .unwrap();
    let (ok, said) = adcab(&config, &["restore", "--from", foreign.to_str().unwrap()]);
    assert!(!ok);
    let sentence = said["error"].as_str().unwrap();
    assert!(
        sentence.contains("nothing was restored") && sentence.contains("no adcab schema"),
        "{said}"
    );
    assert_eq!(users(&db), users_before, "the database is untouched");

    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("DROP TABLE rule_log")
        .unwrap();
    let (ok, checked) = adcab(&config, &["check"]);
    assert!(!ok, "a table missing: {checked}");
    assert_eq!(checked["database"]["integrity"], "ok");
    assert!(
        checked["error"]
            .as_str()
            .unwrap()
            .contains("table rule_log is missing"),
        "{checked}"
    );

    std::fs::write(&db, b"").unwrap();
    let (ok, checked) = adcab(&config, &["check"]);
    assert!(!ok, "an empty file: {checked}");
    assert_eq!(checked["database"]["schema"], 0);
    assert!(
        checked["error"]
            .as_str()
            .unwrap()
            .contains("no adcab schema"),
        "{checked}"
    );
    drop(dir);
}

#[test]
fn scheduled_backups_run_when_due_and_keep_the_newest() {
    let app = spawn_app_with(|c| {
        c.backup.every_hours = 24;
        c.backup.keep = 2;
    });
    let dir = app.dir.path().join("scheduled");
    let app = app.restart_with(|c| c.backup.dir = dir.clone());
    // One start for every call: each `Utc::now()` of its own may cross a second and name
    // another backup.
    let start = chrono::Utc::now();
    let day = |d: i64| start + chrono::Duration::days(d);
    let first = block_on(upkeep::backup_if_due(&app.services, day(0))).unwrap();
    assert!(first.is_some(), "none yet: one is due");
    let soon = block_on(upkeep::backup_if_due(
        &app.services,
        day(0) + chrono::Duration::hours(23),
    ))
    .unwrap();
    assert!(soon.is_none(), "the newest is less than every_hours old");
    for d in 1..=3 {
        assert!(block_on(upkeep::backup_if_due(&app.services, day(d)))
            .unwrap()
            .is_some());
    }
    let kept = adcab::db::backup::scheduled(&dir);
    assert_eq!(kept.len(), 2, "{kept:?}");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    for (path, private) in [
        (dir.clone(), 0o700),
        (kept[1].clone(), 0o700),
        (kept[1].join("adcab.db"), 0o600),
    ] {
        assert_eq!(mode(&path), private, "{}", path.display());
    }
    assert!(kept[1].ends_with(adcab::db::backup::name(
        adcab::db::backup::Kind::Scheduled,
        &adcab::db::backup::stamp(day(3))
    )));
}

#[test]
fn a_database_is_backed_up_before_it_is_migrated() {
    let app = spawn_app();
    let folder = app.dir.path().to_path_buf();
    // As a database written by the previous release: its newest migration not applied. The
    // restart migrates it, after a backup beside the database ([backup] dir is empty).
    let app = app.restart_after(|s| {
        s.db.write_blocking(|tx| {
            // Release 12's schema: the later migrations (13: rules, 14: Auto CPM, 15: alerts,
            // 16: marks in the campaign rows, 17: automation's ledger, 20: decline reasons,
            // 23: placements and dates, 25: a person's settings, 26: invitations, 28: the
            // campaigns' totals index, 29: the history's person and rule, 30: channel titles,
            // 31: the kept day's spend (its invitations column goes with 26's table), 32: an
            // agency's terms and the rates, 33: a schedule's zone name, 34: an event's one
            // campaign in its own row, moved back to `conversion_campaigns`, 35: agency money,
            // 37: client reports' agency profiles and share links, 38: the scheduled reports
            // sent, 39: an owner's reporting currency (its column goes with 37's
            // agency_profiles), 40: a cabinet's report language, 41: the
            // assistant of a history entry, 42: the fast checks' marks and position (its
            // rules column goes with 13's table), 43: proposals and the bot's state (the rules'
            // approval column goes with 13's table), 44: a rule's cabinets (columns of 13's
            // rules), 45: the kept status counts and the attention's
            // partial indexes, 46: the cabinets' daily rows (their triggers first), 47:
            // the conversions' index by time, 48: the stats rows' running sums (their
            // triggers first), 49: the conversions' daily rows (their triggers first), and 51:
            // the cabinets' last rolled-up days (its trigger first), 52: one campaign's
            // conversions by time (it rebuilt 47's index, which goes with 47), 53: the list
            // indexes' status (they are made again as 6 made them; its index by ad_id goes),
            // 54: the conversions' hourly rows (their triggers first), 55: the cabinets' hours'
            // opens (the days' triggers it made again go with 46's), 56: the weekly rows (their
            // triggers first; 65's columns and triggers go with them), 57: the campaigns' weekly
            // conversions (their triggers first), 60: the campaigns' conversion lines (its
            // triggers and view first), 61: the cabinets' copies' revision (its triggers first),
            // 64: the hourly rows' indexes by hour, 66: the cabinets' running sums and 67: their
            // local weeks of the zone shifts kept (their triggers first), 68: the campaigns'
            // figures in rows of their own (moved back into the campaign rows, with the indexes
            // over them as the migrations before it made them; 71's partial indexes of the
            // figures at zero go with its table), 69: the indexes of the home page's kinds
            // across cabinets, 70: the list's sort indexes across cabinets, 72: the numbers of
            // the campaigns' figures (with their table; the campaigns' own stay, a column of the
            // primary key that cannot be dropped, and 72 makes the table again from its rowids,
            // which they are); 27's column is in 15's alerts; 50 adds rows only; 58, 59 and 62
            // redefine 48's triggers, which 73 moves onto its view of the hourly rows (they go
            // with it); 74: the figures' generations (its table; the four indexes it dropped go
            // with 68's table); 75: the access generation (its triggers first); 63's indexes go
            // with their tables) undone.
            for table in [
                "users",
                "team_members",
                "cabinet_shares",
                "api_keys",
                "api_key_cabinets",
                "cabinets",
            ] {
                for write in ["insert", "update", "delete"] {
                    tx.execute_batch(&format!("DROP TRIGGER {table}_access_{write};"))?;
                }
            }
            tx.execute_batch(
                "DROP TABLE access_generation; DROP TABLE figure_generations;
                 DROP INDEX campaigns_across_by_date; DROP INDEX campaigns_across_by_ad_id;
                 DROP INDEX campaigns_across_by_title; DROP INDEX campaigns_across_by_status;
                 DROP INDEX campaigns_across_by_cpm;
                 DROP INDEX campaigns_declined; DROP INDEX campaigns_declined_across;
                 DROP INDEX campaigns_in_review_across; DROP INDEX campaigns_out_of_budget_across;
                 DROP TRIGGER campaign_counters_insert; DROP TRIGGER campaign_counters_delete;
                 DROP TRIGGER campaign_counters_status;
                 DROP INDEX campaigns_out_of_budget; ALTER TABLE campaigns DROP COLUMN no_budget;
                 ALTER TABLE campaigns ADD COLUMN budget_micros INTEGER NOT NULL DEFAULT 0;
                 ALTER TABLE campaigns ADD COLUMN spent_micros INTEGER NOT NULL DEFAULT 0;
                 ALTER TABLE campaigns ADD COLUMN views INTEGER NOT NULL DEFAULT 0;
                 ALTER TABLE campaigns ADD COLUMN opens INTEGER NOT NULL DEFAULT 0;
                 ALTER TABLE campaigns ADD COLUMN clicks INTEGER NOT NULL DEFAULT 0;
                 ALTER TABLE campaigns ADD COLUMN actions INTEGER NOT NULL DEFAULT 0;
                 ALTER TABLE campaigns ADD COLUMN day_spend_micros INTEGER NOT NULL DEFAULT 0;
                 ALTER TABLE campaigns ADD COLUMN mark_views INTEGER NOT NULL DEFAULT 0;
                 ALTER TABLE campaigns ADD COLUMN mark_opens INTEGER NOT NULL DEFAULT 0;
                 ALTER TABLE campaigns ADD COLUMN mark_clicks INTEGER NOT NULL DEFAULT 0;
                 ALTER TABLE campaigns ADD COLUMN mark_actions INTEGER NOT NULL DEFAULT 0;
                 ALTER TABLE campaigns ADD COLUMN mark_spent_micros INTEGER NOT NULL DEFAULT 0;
                 DROP TABLE campaign_counters;
                 CREATE INDEX campaigns_by_views ON campaigns(account_id, views, ad_id, status);
                 CREATE INDEX campaigns_by_clicks ON campaigns(account_id, clicks, ad_id, status);
                 CREATE INDEX campaigns_by_spent ON campaigns(account_id, spent_micros, ad_id,
                    status);
                 CREATE INDEX campaigns_by_budget ON campaigns(account_id, budget_micros, ad_id,
                    status);
                 CREATE INDEX campaigns_totals ON campaigns(account_id, status, budget_micros,
                    spent_micros, views, clicks, actions);
                 CREATE INDEX campaigns_short_of_budget ON campaigns(account_id, ad_id)
                    WHERE active = 1 AND budget_micros > 0 AND budget_micros < day_spend_micros;
                 CREATE INDEX campaigns_out_of_budget ON campaigns(account_id, status_changed_at,
                    ad_id) WHERE status = 'Stopped' AND active = 1 AND budget_micros = 0;",
            )?;
            tx.execute_batch(
                "DROP INDEX campaigns_by_date; DROP INDEX campaigns_by_title;
                 DROP INDEX campaigns_by_status; DROP INDEX campaigns_by_views;
                 DROP INDEX campaigns_by_clicks; DROP INDEX campaigns_by_spent;
                 DROP INDEX campaigns_by_budget; DROP INDEX campaigns_by_cpm;
                 DROP INDEX campaigns_by_ad_id;",
            )?;
            tx.execute_batch(include_str!("../../../sql/0006_list_indexes.sql"))?;
            tx.execute_batch(
                "DROP INDEX cabinet_hours_by_hour; DROP INDEX cabinet_conversion_hours_by_hour;
                 DROP TRIGGER campaigns_copies_rev_insert; DROP TRIGGER campaigns_copies_rev_delete;
                 DROP TRIGGER campaigns_copies_rev_update;
                 ALTER TABLE cabinets DROP COLUMN copies_rev;
                 DROP TRIGGER conversion_totals_lines_insert;
                 DROP TRIGGER conversion_totals_lines_update;
                 DROP TRIGGER conversion_totals_lines_delete;
                 DROP TRIGGER campaigns_conversion_lines; DROP VIEW campaign_conversion_lines;
                 ALTER TABLE campaigns DROP COLUMN conversion_lines;
                 DROP TRIGGER conversions_ad_week_insert; DROP TRIGGER conversions_ad_week_delete;
                 DROP TRIGGER conversions_ad_week_update; DROP TABLE campaign_conversion_weeks;
                 DROP TRIGGER cabinet_days_week_insert; DROP TRIGGER cabinet_days_week_delete;
                 DROP TRIGGER cabinet_days_week_update; DROP TRIGGER cabinet_days_week_move;
                 DROP TRIGGER conversion_days_week_insert;
                 DROP TRIGGER conversion_days_week_delete;
                 DROP TRIGGER conversion_days_week_update; DROP TRIGGER conversion_days_week_move;
                 DROP TABLE cabinet_weeks; DROP TABLE cabinet_conversion_weeks;
                 DROP TRIGGER cabinet_days_run_insert; DROP TRIGGER cabinet_days_run_delete;
                 DROP TRIGGER cabinet_days_run_update; DROP TRIGGER cabinet_days_run_move;
                 DROP TABLE cabinet_runs;
                 DROP TRIGGER cabinet_hours_zone_week_insert;
                 DROP TRIGGER cabinet_hours_zone_week_delete;
                 DROP TRIGGER cabinet_hours_zone_week_update;
                 DROP TRIGGER cabinet_hours_zone_week_move;
                 DROP TABLE cabinet_zone_weeks; DROP TABLE zone_shifts;
                 DROP TRIGGER conversions_hour_insert; DROP TRIGGER conversions_hour_delete;
                 DROP TRIGGER conversions_hour_update; DROP TABLE cabinet_conversion_hours;
                 DROP INDEX conversions_ad_received;
                 DROP TRIGGER daily_stats_last_day; DROP TABLE cabinet_rolled_days;
                 DROP TRIGGER conversions_day_insert; DROP TRIGGER conversions_day_delete;
                 DROP TRIGGER conversions_day_update; DROP TABLE cabinet_conversion_days;
                 DROP VIEW hourly_entries;
                 DROP TRIGGER daily_stats_run_insert; DROP TRIGGER daily_stats_run_update;
                 ALTER TABLE hourly_stats DROP COLUMN run_views;
                 ALTER TABLE hourly_stats DROP COLUMN run_opens;
                 ALTER TABLE hourly_stats DROP COLUMN run_clicks;
                 ALTER TABLE hourly_stats DROP COLUMN run_actions;
                 ALTER TABLE hourly_stats DROP COLUMN run_spent_micros;
                 ALTER TABLE daily_stats DROP COLUMN run_views;
                 ALTER TABLE daily_stats DROP COLUMN run_opens;
                 ALTER TABLE daily_stats DROP COLUMN run_clicks;
                 ALTER TABLE daily_stats DROP COLUMN run_actions;
                 ALTER TABLE daily_stats DROP COLUMN run_spent_micros;
                 DROP TRIGGER campaigns_count_insert; DROP TRIGGER campaigns_count_delete;
                 DROP TRIGGER campaigns_count_update; DROP TABLE cabinet_status_counts;
                 DROP INDEX campaigns_in_review; DROP INDEX campaigns_out_of_budget;
                 DROP TRIGGER cabinet_hours_day_insert; DROP TRIGGER cabinet_hours_day_delete;
                 DROP TRIGGER cabinet_hours_day_update; DROP TRIGGER cabinet_hours_day_move;
                 DROP TABLE cabinet_days; ALTER TABLE cabinet_hours DROP COLUMN opens;
                 DROP INDEX conversions_received;
                 DROP TABLE rules; DROP TABLE rule_log; DROP TABLE auto_cpm;
                 DROP TABLE auto_cpm_log; DROP TABLE alerts; DROP TABLE alert_sends;
                 DROP TABLE alert_marks; DROP INDEX status_events_declined;
                 DROP TABLE automation_moves; DROP TABLE alert_holds;
                 ALTER TABLE cabinets DROP COLUMN automation_daily_cap_micros;
                 ALTER TABLE cabinets DROP COLUMN monthly_topup_cap_micros;
                 ALTER TABLE cabinets DROP COLUMN fee_percent;
                 ALTER TABLE cabinets DROP COLUMN report_schedule;
                 ALTER TABLE cabinets DROP COLUMN report_language;
                 DROP TABLE rates;
                 DROP TABLE agency_profiles; DROP TABLE report_links;
                 DROP TABLE transfers; DROP TABLE sim_transfers; DROP TABLE sim_transactions;
                 ALTER TABLE cabinets DROP COLUMN is_main;
                 ALTER TABLE cabinets DROP COLUMN main_account_id;
                 DROP INDEX sim_accounts_open_key;
                 ALTER TABLE sim_accounts DROP COLUMN main_id;
                 ALTER TABLE sim_accounts DROP COLUMN open_key;
                 ALTER TABLE sim_accounts DROP COLUMN title;
                 ALTER TABLE cabinets DROP COLUMN telegram_chat;
                 ALTER TABLE users DROP COLUMN telegram_chat;
                 CREATE TABLE stat_marks (account_id INTEGER NOT NULL, ad_id INTEGER NOT NULL,
                    views INTEGER NOT NULL, opens INTEGER NOT NULL, clicks INTEGER NOT NULL,
                    actions INTEGER NOT NULL, spent_micros INTEGER NOT NULL,
                    PRIMARY KEY (account_id, ad_id)) WITHOUT ROWID;
                 ALTER TABLE campaigns DROP COLUMN mark_views;
                 ALTER TABLE campaigns DROP COLUMN mark_opens;
                 ALTER TABLE campaigns DROP COLUMN mark_clicks;
                 ALTER TABLE campaigns DROP COLUMN mark_actions;
                 ALTER TABLE campaigns DROP COLUMN mark_spent_micros;
                 ALTER TABLE campaigns DROP COLUMN local_rev;
                 ALTER TABLE campaigns DROP COLUMN decline_reason;
                 ALTER TABLE campaigns DROP COLUMN decline_description;
                 ALTER TABLE status_events DROP COLUMN decline_reason;
                 ALTER TABLE status_events DROP COLUMN decline_description;
                 ALTER TABLE campaigns DROP COLUMN placement;
                 ALTER TABLE campaigns DROP COLUMN starts_at;
                 ALTER TABLE campaigns DROP COLUMN ends_at;
                 ALTER TABLE users DROP COLUMN language;
                 ALTER TABLE users DROP COLUMN time_zone;
                 ALTER TABLE users DROP COLUMN attention_seen_at;
                 DROP TABLE invitations;
                 DROP INDEX campaigns_totals;
                 ALTER TABLE campaign_history DROP COLUMN user_id;
                 ALTER TABLE campaign_history DROP COLUMN rule_id;
                 ALTER TABLE campaign_history DROP COLUMN client;
                 DROP TABLE peer_titles;
                 DROP INDEX campaigns_short_of_budget;
                 ALTER TABLE campaigns DROP COLUMN day_spend_micros;
                 DROP INDEX campaigns_schedule_zone;
                 ALTER TABLE campaigns DROP COLUMN schedule_zone;
                 ALTER TABLE campaigns DROP COLUMN schedule_zone_refused;
                 DROP TABLE report_sends;
                 DROP TABLE fast_marks;
                 ALTER TABLE scheduler_state DROP COLUMN fast_mark;
                 INSERT INTO conversion_campaigns (conversion_id, account_id, ad_id)
                    SELECT id, account_id, ad_id FROM conversions WHERE ad_id IS NOT NULL;
                 DROP INDEX conversions_ad;
                 ALTER TABLE conversions DROP COLUMN ad_id;
                 DROP TABLE proposals; DROP TABLE proposal_messages;
                 DROP TABLE bot_state; DROP TABLE bot_confirms;
                 DELETE FROM schema_migrations WHERE version > 12;",
            )?;
            Ok::<_, adcab::store::StoreError>(())
        })
        .unwrap();
    });
    let taken: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("pre-migration-v12-")
        })
        .collect();
    assert_eq!(taken.len(), 1, "one backup before the migration");
    let found = schema::inspect(&taken[0].join("adcab.db")).unwrap();
    assert_eq!((found.schema, found.integrity.as_str()), (12, "ok"));
    let now = schema::inspect(&app.services.config.storage.path).unwrap();
    assert_eq!(now.schema, schema::version());
    let again = app.restart();
    let count = std::fs::read_dir(&folder)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("pre-migration"))
        .count();
    assert_eq!(count, 1, "nothing to migrate, no new backup");
    drop(again);
}
