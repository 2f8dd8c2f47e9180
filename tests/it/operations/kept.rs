//! The figures kept as rows change (status counts, daily and weekly rows, conversions' daily and
//! weekly rows, the stats rows' running sums, the cabinets' last rolled-up days, conversion
//! totals, the campaigns' conversion lines) equal their recomputation after creates, reviews,
//! pauses, deletes, postbacks and hours of sync; a span's totals read through the daily rows
//! equal the hours' sums in any zone; migration 55 gives the cabinets' hours and days their
//! opens, migration 56 sums their days and conversions by week, migration 57 each campaign's
//! conversions by week, migration 65 each week's spend per day, migration 66 each cabinet's
//! running sums through each day; and `adcab check --deep` names a kept row that was changed
//! behind the triggers' back, exiting non-zero.

use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::{Duration, TimeZone, Utc};
use serde_json::{json, Value};

use crate::helpers::{spawn_app, Camp, TestApp};
use adcab::clock;
use adcab::domain::campaign::Status;
use adcab::ops;
use adcab::ops::reports::midnight;
use adcab::store::{campaigns, kept, kept_check, retention, zone_days};

/// A config file naming the app's database.
fn config_for(app: &TestApp) -> PathBuf {
    let path = app.dir.path().join("kept.toml");
    let db = app.services.config.storage.path.clone();
    std::fs::write(&path, format!("[storage]\npath = \"{}\"\n", db.display())).unwrap();
    path
}

/// `adcab check --deep`: its exit success and the JSON it printed.
fn check_deep(config: &Path) -> (bool, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_adcab"))
        .arg("--config")
        .arg(config)
        .args(["check", "--deep"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let value = serde_json::from_str(text.trim()).unwrap_or_else(|_| panic!("not JSON: {text}"));
    (out.status.success(), value)
}

/// Every kept figure compared in-process: the names of those that differ, with what differs.
fn differing(app: &TestApp) -> Vec<String> {
    app.services
        .db
        .read_blocking(kept_check::check)
        .unwrap()
        .into_iter()
        .filter(|f| !f.equal())
        .map(|f| format!("{}: {:?}", f.name, f.differences))
        .collect()
}

/// A cabinet whose campaigns went through each change of status, then `hours` hours of sync,
/// with conversions posted: (cabinet, key).
fn busy_cabinet(app: &TestApp, hours: i64) -> (i64, String) {
    let (_, cabinet, key) = app.manager_with_postbacks();
    app.align_hour();
    // Created (in review), approved and declined by review, paused, deleted.
    let _in_review = app.campaign(cabinet, Camp::channel("Waiting", "https://t.me/alpha_chan"));
    let running = app.funded(cabinet, 500_000_000);
    let declined = app.campaign(cabinet, Camp::channel("No", "https://t.me/alpha_chan"));
    ops::sim_review(&app.services, cabinet, declined, false, None).unwrap();
    let paused = app.active_campaign(cabinet);
    app.write_ok(
        "POST",
        &format!("/campaigns/{paused}/pause"),
        &key,
        None,
        200,
    );
    let gone = app.active_campaign(cabinet);
    app.write_ok("DELETE", &format!("/campaigns/{gone}"), &key, None, 200);
    // Spent out by the sync: its status changes there (10.00 lasts 5,000 views).
    let _short = app.held(cabinet, 10_000_000);
    let short = app.funded(cabinet, 10_000_000);
    let bot = app.campaign(
        cabinet,
        Camp::channel("Bot", "https://t.me/shop_bot?start=p1"),
    );
    for (txid, amount) in [("t1", "10"), ("t2", "2.5"), ("t1", "12")] {
        let body = json!({ "ref": "p1", "event": "purchase", "txid": txid, "amount": amount });
        let r = app.send("POST", "/postback", &key, Some(&body), &[]);
        assert_eq!(r.status, 200, "{}", r.body);
    }
    app.advance(hours * 3600);
    let stored = |ad| {
        app.services
            .db
            .read_blocking(move |c| campaigns::get(c, cabinet, ad))
            .unwrap()
            .unwrap()
    };
    assert!(stored(running).views > 0, "the sync delivered");
    let _ = (stored(short), bot);
    (cabinet, key)
}

#[test]
fn kept_figures_equal_their_recomputation_after_status_changes_postbacks_and_hours_of_sync() {
    let app = spawn_app();
    let (cabinet, _) = busy_cabinet(&app, 30);
    assert_eq!(differing(&app), Vec::<String>::new());
    let (kept_counts, counted) = app
        .services
        .db
        .read_blocking(move |c| {
            Ok::<_, adcab::store::StoreError>((
                kept::by_status(c, cabinet)?,
                c.prepare(
                    "SELECT status, COUNT(*) FROM campaigns WHERE account_id = ?1
                     AND status != 'Deleted' GROUP BY status ORDER BY status",
                )?
                .query_map([cabinet], |r| {
                    let status: String = r.get(0)?;
                    Ok((Status::parse(&status).expect("a stored status"), r.get(1)?))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?,
            ))
        })
        .unwrap();
    assert_eq!(kept_counts, counted, "the cabinets page's counts, in order");
    let statuses: Vec<String> = counted.iter().map(|(s, _)| format!("{s:?}")).collect();
    assert!(
        counted.len() >= 4,
        "in review, active, declined, on hold and stopped are all there: {statuses:?}"
    );
    // The conversions: none pruned, so every kept count is exactly the stored events'.
    let (kept_conversions, stored): (i64, i64) = app
        .services
        .db
        .read_blocking(move |c| {
            Ok::<_, adcab::store::StoreError>((
                c.query_row(
                    "SELECT COALESCE(SUM(count), 0) FROM conversion_totals WHERE account_id = ?1",
                    [cabinet],
                    |r| r.get(0),
                )?,
                c.query_row(
                    "SELECT COUNT(*) FROM conversions WHERE account_id = ?1",
                    [cabinet],
                    |r| r.get(0),
                )?,
            ))
        })
        .unwrap();
    assert_eq!(
        (kept_conversions, stored),
        (2, 2),
        "t1 sent twice is one event"
    );
}

#[test]
fn a_span_read_through_daily_rows_equals_its_hours_in_every_zone() {
    let app = spawn_app();
    let (cabinet, _) = busy_cabinet(&app, 60);
    let now = app.now();
    let start =
        Utc.from_utc_datetime(&now.date_naive().and_hms_opt(0, 0, 0).unwrap()) - Duration::days(3);
    // Local midnights of zones from UTC-12 to UTC+14, with half and quarter hours, for four
    // days (the periods and the days of the home page); and spans not on any midnight.
    let mut spans: Vec<Vec<String>> = [-720, -480, -210, 0, 60, 330, 345, 720, 840]
        .iter()
        .map(|offset| {
            (0..=4)
                .map(|d| clock::iso(start + Duration::days(d) - Duration::minutes(*offset)))
                .collect()
        })
        .collect();
    spans.push(vec![
        clock::iso(now - Duration::days(2)),
        clock::iso(now + Duration::hours(1)),
    ]);
    spans.push(vec![
        clock::iso(now - Duration::hours(24)),
        clock::iso(now + Duration::hours(1)),
    ]);
    for bounds in spans {
        let (kept_days, hours) = app
            .services
            .db
            .read_blocking({
                let bounds = bounds.clone();
                move |c| {
                    Ok::<_, adcab::store::StoreError>((
                        kept::days(c, cabinet, &kept::Spans::new(bounds.clone()))?,
                        kept::by_hours(c, cabinet, &bounds)?,
                    ))
                }
            })
            .unwrap();
        assert!(hours.iter().any(|t| t.views > 0), "{bounds:?}: delivery");
        assert_eq!(kept_days, hours, "{bounds:?}");
    }
}

#[test]
fn a_persons_zone_keeps_its_local_weeks_and_the_chart_reads_them_as_the_hours_give() {
    let app = spawn_app();
    let (cabinet, _) = busy_cabinet(&app, 60);
    let owner: i64 = app
        .services
        .db
        .read_blocking(move |c| {
            c.query_row(
                "SELECT owner_id FROM cabinets WHERE id = ?1",
                [cabinet],
                |r| r.get(0),
            )
            .map_err(adcab::store::StoreError::from)
        })
        .unwrap();
    let kept_shift = |app: &TestApp, shift: i64| {
        app.services
            .db
            .read_blocking(move |c| zone_days::kept(c, shift))
            .unwrap()
    };
    assert!(!kept_shift(&app, 1260), "no zone chosen yet");
    // The person picks Moscow's zone: its days (starting at 21:00 UTC) are kept, filled from
    // the hours synced so far.
    let settings = ops::people::Settings {
        language: None,
        time_zone: Some(chrono_tz::Europe::Moscow),
        telegram_chat: None,
    };
    ops::people::settings_save(&app.services, owner, settings).unwrap();
    assert!(kept_shift(&app, 1260));
    // The chart's spend per day over its local days equals the hours', through midnights
    // behind and ahead of the hours synced, before and after more hours are synced.
    let chart = |app: &TestApp| {
        let start = app.now().date_naive() - Duration::days(4);
        let bounds: Vec<String> = (0..=5)
            .map(|d| {
                clock::iso(midnight(
                    chrono_tz::Europe::Moscow,
                    start + Duration::days(d),
                ))
            })
            .collect();
        let (read, hours) = app
            .services
            .db
            .read_blocking(move |c| {
                let cabinets = kept::Cabinets::new(c, &[cabinet])?;
                let read = kept::spent_of(c, &cabinets, &kept::Spans::new(bounds.clone()))?;
                let hours: Vec<_> = kept::by_hours(c, cabinet, &bounds)?
                    .into_iter()
                    .map(|t| t.spent)
                    .collect();
                Ok::<_, adcab::store::StoreError>((read, hours))
            })
            .unwrap();
        assert!(
            hours.iter().filter(|s| s.micros() > 0).count() >= 2,
            "{hours:?}"
        );
        assert_eq!(read, vec![hours]);
    };
    chart(&app);
    app.advance(5 * 3600);
    chart(&app);
    // A zone written while the service was down is followed when it starts: New York's two
    // shifts kept, Moscow's removed.
    let app = app.restart_after(|s| {
        s.db.write_blocking(move |tx| {
            tx.execute(
                "UPDATE users SET time_zone = 'America/New_York' WHERE id = ?1",
                [owner],
            )
            .map_err(adcab::store::StoreError::from)
        })
        .unwrap();
    });
    assert!(kept_shift(&app, 240) && kept_shift(&app, 300));
    assert!(
        !kept_shift(&app, 1260),
        "no one's zone is Moscow's any more"
    );
    let (ok, answer) = check_deep(&config_for(&app));
    assert!(ok, "{answer}");
    let weeks = &answer["kept"]["cabinet_zone_weeks"];
    assert_eq!(weeks["equal"], true, "{answer}");
    assert!(weeks["rows"].as_i64().unwrap() > 0, "{answer}");
    // A day's spend changed behind the triggers is named by its week.
    app.sql(&format!(
        "UPDATE cabinet_zone_weeks SET spent_thu = spent_thu + 1
         WHERE shift = 300 AND account_id = {cabinet}
           AND week = (SELECT MAX(week) FROM cabinet_zone_weeks WHERE shift = 300)"
    ));
    let (ok, answer) = check_deep(&config_for(&app));
    assert!(!ok, "{answer}");
    let days = &answer["kept"]["cabinet_zone_weeks"];
    assert_eq!(days["differing"], 1, "{answer}");
    assert!(days["differences"][0]["key"]
        .as_str()
        .unwrap()
        .starts_with(&format!("shift 300, cabinet {cabinet}, ")));
}

#[test]
fn check_deep_names_a_kept_row_changed_behind_the_triggers_and_exits_non_zero() {
    let app = spawn_app();
    let (cabinet, _) = busy_cabinet(&app, 30);
    // The days before the last two hours' rolled up as retention rolls them, hours after left
    // (30 hours of sync hold a midnight between their first hour and the last two).
    let day = (app.now() - Duration::hours(2)).date_naive();
    let midnight = clock::iso(Utc.from_utc_datetime(&day.and_hms_opt(0, 0, 0).unwrap()));
    app.services
        .db
        .write_blocking(move |tx| {
            let ads: Vec<i64> = tx
                .prepare("SELECT DISTINCT ad_id FROM hourly_stats WHERE account_id = ?1")?
                .query_map([cabinet], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            for ad in ads {
                retention::roll_campaign(tx, cabinet, ad, &midnight)?;
            }
            // Moscow's local days kept too (schema 67), filled from these hours.
            zone_days::keep_shift(tx, 1260)?;
            Ok::<_, adcab::store::StoreError>(())
        })
        .unwrap();
    let config = config_for(&app);
    let (ok, answer) = check_deep(&config);
    assert!(ok, "{answer}");
    for name in [
        "cabinet_status_counts",
        "cabinet_days",
        "cabinet_weeks",
        "cabinet_weeks_spend_per_day",
        "cabinet_runs",
        "cabinet_zone_weeks",
        "cabinet_hours",
        "cabinet_conversion_days",
        "cabinet_conversion_hours",
        "campaign_conversion_weeks",
        "stat_runs",
        "cabinet_rolled_days",
        "conversion_totals",
        "campaign_conversion_lines",
    ] {
        assert_eq!(answer["kept"][name]["equal"], true, "{name}: {answer}");
        assert!(answer["kept"][name]["rows"].as_i64().unwrap() > 0, "{name}");
    }
    assert_eq!(
        answer["database"]["integrity"], "ok",
        "the usual shape kept"
    );

    app.sql(&format!(
        "UPDATE cabinet_status_counts SET count = count + 1
         WHERE account_id = {cabinet} AND status = 'Active'"
    ));
    let (ok, answer) = check_deep(&config);
    assert!(!ok, "a changed count fails the check: {answer}");
    let counts = &answer["kept"]["cabinet_status_counts"];
    assert_eq!(counts["equal"], false);
    assert_eq!(
        counts["differences"][0]["key"],
        format!("cabinet {cabinet}, Active")
    );
    assert_eq!(answer["kept"]["cabinet_days"]["equal"], true);
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains("cabinet_status_counts"));

    app.sql(&format!(
        "UPDATE cabinet_status_counts SET count = count - 1
         WHERE account_id = {cabinet} AND status = 'Active';
         UPDATE cabinet_days SET spent_micros = spent_micros + 1 WHERE account_id = {cabinet}"
    ));
    let (ok, answer) = check_deep(&config);
    assert!(!ok, "a changed day fails the check: {answer}");
    assert_eq!(answer["kept"]["cabinet_status_counts"]["equal"], true);
    assert_eq!(answer["kept"]["cabinet_days"]["equal"], false);
    assert!(answer["error"].as_str().unwrap().contains("cabinet_days"));

    app.sql(&format!(
        "UPDATE cabinet_days SET spent_micros = spent_micros - 1 WHERE account_id = {cabinet};
         UPDATE hourly_stats SET run_views = run_views + 1 WHERE account_id = {cabinet}"
    ));
    let (ok, answer) = check_deep(&config);
    assert!(!ok, "a changed run fails the check: {answer}");
    assert_eq!(answer["kept"]["cabinet_days"]["equal"], true);
    let runs = &answer["kept"]["stat_runs"];
    assert_eq!(runs["equal"], false);
    assert!(runs["differences"][0]["key"]
        .as_str()
        .unwrap()
        .starts_with(&format!("cabinet {cabinet}, campaign ")));

    app.sql(&format!(
        "UPDATE hourly_stats SET run_views = run_views - 1 WHERE account_id = {cabinet};
         UPDATE cabinet_rolled_days SET last_day = '2000-01-01' WHERE account_id = {cabinet}"
    ));
    let (ok, answer) = check_deep(&config);
    assert!(
        !ok,
        "a kept day before the latest rolled-up one fails the check: {answer}"
    );
    assert_eq!(answer["kept"]["stat_runs"]["equal"], true);
    let rolled = &answer["kept"]["cabinet_rolled_days"];
    assert_eq!(rolled["equal"], false);
    assert_eq!(
        rolled["differences"][0]["key"],
        format!("cabinet {cabinet}")
    );

    // Without --deep the check is what it was: the kept figures are not read.
    let out = Command::new(env!("CARGO_BIN_EXE_adcab"))
        .arg("--config")
        .arg(&config)
        .arg("check")
        .output()
        .unwrap();
    assert!(out.status.success());
    let plain: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(plain.get("kept").is_none());
}

#[test]
fn migration_55_gives_each_cabinet_hour_and_day_its_campaigns_opens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("adcab.db");
    let old = super::schema_before(&path, 55);
    // Two hours still hourly; a day rolled up with one cabinet hour at noon (as migration 50
    // made them), another with its hours at 22:00 and 23:00; as the sync wrote them, without
    // opens.
    old.execute_batch(
        "INSERT INTO hourly_stats (account_id, ad_id, hour, views, opens, clicks, actions,
            spent_micros) VALUES (7, 1, '2026-11-20T10:00:00Z', 10, 3, 1, 0, 100),
            (7, 2, '2026-11-20T10:00:00Z', 20, 4, 1, 0, 200),
            (7, 1, '2026-11-20T11:00:00Z', 5, 1, 0, 0, 50);
         INSERT INTO daily_stats (account_id, ad_id, day, views, opens, clicks, actions,
            spent_micros) VALUES (7, 1, '2026-11-18', 7, 2, 0, 0, 70),
            (7, 2, '2026-11-18', 8, 5, 0, 0, 80), (7, 1, '2026-11-19', 9, 6, 0, 0, 90);
         INSERT INTO cabinet_hours (account_id, hour, views, clicks, actions, spent_micros)
            VALUES (7, '2026-11-20T10:00:00Z', 30, 2, 0, 300),
            (7, '2026-11-20T11:00:00Z', 5, 0, 0, 50), (7, '2026-11-18T12:00:00Z', 15, 0, 0, 150),
            (7, '2026-11-19T22:00:00Z', 4, 0, 0, 40), (7, '2026-11-19T23:00:00Z', 5, 0, 0, 50);",
    )
    .unwrap();
    drop(old);
    drop(adcab::db::Db::open(&path, adcab::db::Open::Existing).expect("it migrates"));

    let conn = rusqlite::Connection::open(&path).unwrap();
    let opens = |sql: &str| -> Vec<(String, i64)> {
        conn.prepare(sql)
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    assert_eq!(
        opens("SELECT hour, opens FROM cabinet_hours ORDER BY hour"),
        [
            ("2026-11-18T12:00:00Z", 7),
            ("2026-11-19T22:00:00Z", 0),
            ("2026-11-19T23:00:00Z", 6),
            ("2026-11-20T10:00:00Z", 7),
            ("2026-11-20T11:00:00Z", 1),
        ]
        .map(|(h, n)| (h.to_string(), n))
    );
    assert_eq!(
        opens("SELECT day, opens FROM cabinet_days ORDER BY day"),
        [("2026-11-18", 7), ("2026-11-19", 6), ("2026-11-20", 8)].map(|(d, n)| (d.to_string(), n))
    );
    let differing: Vec<&str> = kept_check::check(&conn)
        .unwrap()
        .iter()
        .filter(|f| !f.equal())
        .map(|f| f.name)
        .collect();
    assert!(differing.is_empty(), "{differing:?}");
    // The days' triggers carry opens from now on.
    conn.execute(
        "UPDATE cabinet_hours SET opens = opens + 2 WHERE hour = '2026-11-20T11:00:00Z'",
        [],
    )
    .unwrap();
    assert_eq!(
        opens("SELECT day, opens FROM cabinet_days WHERE day = '2026-11-20'"),
        [("2026-11-20".to_string(), 10)]
    );
}

/// A database at the schema before `version` with `fixture` written, then migrated by opening
/// it: its folder (removed when dropped) and a connection to it.
fn migrated(version: i64, fixture: &str) -> (tempfile::TempDir, rusqlite::Connection) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("adcab.db");
    let old = super::schema_before(&path, version);
    old.execute_batch(fixture).unwrap();
    drop(old);
    drop(adcab::db::Db::open(&path, adcab::db::Open::Existing).expect("it migrates"));
    let conn = rusqlite::Connection::open(&path).unwrap();
    (dir, conn)
}

/// A row of a key, two texts and two numbers, as [`rows5`] reads them.
type Row5 = (i64, String, String, i64, i64);

/// The rows `sql` reads, five columns each.
fn rows5(conn: &rusqlite::Connection, sql: &str) -> Vec<Row5> {
    conn.prepare(sql)
        .unwrap()
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

fn row(key: i64, first: &str, second: &str, n: i64, m: i64) -> Row5 {
    (key, first.to_string(), second.to_string(), n, m)
}

#[test]
fn migration_56_sums_each_cabinets_days_and_conversions_by_week() {
    // Hours on a Sunday, the Monday after it and the Wednesday after that, and conversions on
    // the same days, as the release before left them: days kept, weeks not.
    let (_dir, conn) = migrated(
        56,
        "INSERT INTO cabinet_hours (account_id, hour, views, opens, clicks, actions,
            spent_micros) VALUES (7, '2026-11-29T10:00:00Z', 30, 3, 2, 0, 300),
            (7, '2026-11-30T00:00:00Z', 5, 1, 0, 0, 50), (7, '2026-12-02T23:00:00Z', 4, 2, 1, 1, 40),
            (8, '2026-11-30T12:00:00Z', 9, 0, 0, 0, 90);
         INSERT INTO conversions (holder_id, txid, event_type, amount_micros, currency,
            account_id, received_at, updated_at) VALUES
            (1, 'a', 'purchase', 2500000, 'USD', 7, '2026-11-29T23:59:59Z', 'x'),
            (1, 'b', 'purchase', 500000, 'USD', 7, '2026-11-30T00:00:00Z', 'x'),
            (1, 'c', 'lead', NULL, NULL, 7, '2026-12-02T12:00:00Z', 'x'),
            (1, 'd', 'purchase', 1000000, 'USD', 7, '2026-12-06T23:00:00Z', 'x');",
    );
    let rows = |sql: &str| rows5(&conn, sql);
    assert_eq!(
        rows(
            "SELECT account_id, week, CAST(days AS TEXT), views, spent_micros FROM cabinet_weeks
              ORDER BY account_id, week"
        ),
        [
            row(7, "2026-11-23", "1", 30, 300),
            row(7, "2026-11-30", "2", 9, 90),
            row(8, "2026-11-30", "1", 9, 90),
        ]
    );
    assert_eq!(
        rows(
            "SELECT account_id, week, event_type, count, amount_low FROM cabinet_conversion_weeks
              ORDER BY account_id, week, event_type"
        ),
        [
            row(7, "2026-11-23", "purchase", 1, 2_500_000),
            row(7, "2026-11-30", "lead", 1, 0),
            row(7, "2026-11-30", "purchase", 2, 1_500_000),
        ]
    );
    // (No campaign's stats rows were written: the cabinet's hours alone stand for them.)
    let weekly: Vec<(&str, i64, bool)> = kept_check::check(&conn)
        .unwrap()
        .iter()
        .filter(|f| ["cabinet_weeks", "cabinet_conversion_weeks"].contains(&f.name))
        .map(|f| (f.name, f.rows, f.equal()))
        .collect();
    assert_eq!(
        weekly,
        [
            ("cabinet_weeks", 3, true),
            ("cabinet_conversion_weeks", 3, true)
        ]
    );
    // The weeks' triggers follow the days from now on: a conversion removed empties its week's
    // row of that event, an hour removed takes its day out of its week.
    conn.execute_batch(
        "DELETE FROM conversions WHERE txid = 'c';
         DELETE FROM cabinet_hours WHERE hour = '2026-12-02T23:00:00Z';",
    )
    .unwrap();
    assert_eq!(
        rows(
            "SELECT account_id, week, event_type, count, amount_low FROM cabinet_conversion_weeks
              WHERE week = '2026-11-30' ORDER BY event_type"
        ),
        [row(7, "2026-11-30", "purchase", 2, 1_500_000)]
    );
    assert_eq!(
        rows(
            "SELECT account_id, week, CAST(days AS TEXT), views, spent_micros FROM cabinet_weeks
              WHERE account_id = 7 AND week = '2026-11-30'"
        ),
        [row(7, "2026-11-30", "1", 5, 50)]
    );
}

#[test]
fn migration_57_sums_each_campaigns_conversions_by_week_and_currency() {
    // Conversions of two campaigns on a Sunday, the Monday after it and the Sunday after that,
    // in two currencies and none, and one attributed to several campaigns (not kept here).
    let (_dir, conn) = migrated(
        57,
        "INSERT INTO conversions (holder_id, txid, event_type, amount_micros, currency,
            account_id, ad_id, received_at, updated_at) VALUES
            (1, 'a', 'purchase', 2500000, 'USD', 7, 1, '2026-11-29T23:59:59Z', 'x'),
            (1, 'b', 'purchase', 500000, 'USD', 7, 1, '2026-11-30T00:00:00Z', 'x'),
            (1, 'c', 'lead', NULL, NULL, 7, 1, '2026-12-02T12:00:00Z', 'x'),
            (1, 'd', 'purchase', 1000000, 'USD', 7, 1, '2026-12-06T23:00:00Z', 'x'),
            (1, 'e', 'purchase', 3000000, 'EUR', 7, 2, '2026-12-01T08:00:00Z', 'x'),
            (1, 'f', 'purchase', 9000000, 'EUR', 7, NULL, '2026-12-01T09:00:00Z', 'x');
         INSERT INTO conversion_campaigns (conversion_id, account_id, ad_id)
            SELECT id, 7, 2 FROM conversions WHERE txid = 'f';",
    );
    let rows = || {
        rows5(
            &conn,
            "SELECT ad_id, week, currency, count, amount_high * 1000000000 + amount_low
             FROM campaign_conversion_weeks WHERE account_id = 7 ORDER BY ad_id, week, currency",
        )
    };
    assert_eq!(
        rows(),
        [
            row(1, "2026-11-23", "USD", 1, 2_500_000),
            row(1, "2026-11-30", "", 1, 0),
            row(1, "2026-11-30", "USD", 2, 1_500_000),
            row(2, "2026-11-30", "EUR", 1, 3_000_000),
        ]
    );
    let weeks = || {
        kept_check::check(&conn)
            .unwrap()
            .into_iter()
            .find(|f| f.name == "campaign_conversion_weeks")
            .expect("compared")
    };
    assert_eq!((weeks().rows, weeks().equal()), (4, true));
    // The triggers follow the conversions from now on: one removed empties its row, one
    // attributed anew to another campaign moves, and a row changed behind them is named.
    conn.execute_batch(
        "DELETE FROM conversions WHERE txid = 'c';
         UPDATE conversions SET ad_id = 2 WHERE txid = 'a';",
    )
    .unwrap();
    assert_eq!(
        rows(),
        [
            row(1, "2026-11-30", "USD", 2, 1_500_000),
            row(2, "2026-11-23", "USD", 1, 2_500_000),
            row(2, "2026-11-30", "EUR", 1, 3_000_000),
        ]
    );
    conn.execute_batch("UPDATE campaign_conversion_weeks SET count = 5 WHERE ad_id = 2")
        .unwrap();
    let changed = weeks();
    assert_eq!(changed.differing, 2);
    assert_eq!(
        changed.differences[0].key,
        "cabinet 7, campaign 2, 2026-11-23, USD"
    );
}

#[test]
fn migration_65_keeps_each_weeks_spend_per_day_and_its_triggers_follow_the_days() {
    // Hours on a Sunday, the Monday after it and the Wednesday after that, as the release before
    // left them: weeks kept, their days' spend not.
    let (_dir, conn) = migrated(
        65,
        "INSERT INTO cabinet_hours (account_id, hour, views, opens, clicks, actions,
            spent_micros) VALUES (7, '2026-11-29T10:00:00Z', 30, 3, 2, 0, 300),
            (7, '2026-11-29T11:00:00Z', 1, 0, 0, 0, 7),
            (7, '2026-11-30T00:00:00Z', 5, 1, 0, 0, 50), (7, '2026-12-02T23:00:00Z', 4, 2, 1, 1, 40),
            (8, '2026-11-30T12:00:00Z', 9, 0, 0, 0, 90);",
    );
    let spent = |conn: &rusqlite::Connection| -> Vec<(i64, String, [i64; 7])> {
        conn.prepare(
            "SELECT account_id, week, spent_mon, spent_tue, spent_wed, spent_thu, spent_fri,
                spent_sat, spent_sun FROM cabinet_weeks ORDER BY account_id, week",
        )
        .unwrap()
        .query_map([], |r| {
            let mut days = [0; 7];
            for (d, day) in days.iter_mut().enumerate() {
                *day = r.get(2 + d)?;
            }
            Ok((r.get(0)?, r.get(1)?, days))
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
    };
    let week = |account: i64, monday: &str, days: [i64; 7]| (account, monday.to_string(), days);
    assert_eq!(
        spent(&conn),
        [
            week(7, "2026-11-23", [0, 0, 0, 0, 0, 0, 307]),
            week(7, "2026-11-30", [50, 0, 40, 0, 0, 0, 0]),
            week(8, "2026-11-30", [90, 0, 0, 0, 0, 0, 0]),
        ]
    );
    let equal = |conn: &rusqlite::Connection| {
        let figures = kept_check::check(conn).unwrap();
        let days = figures
            .iter()
            .find(|f| f.name == "cabinet_weeks_spend_per_day")
            .unwrap();
        assert!(days.rows > 0, "{days:?}");
        days.equal()
    };
    assert!(equal(&conn));
    // The triggers follow the days from now on: an hour added to a day, one rewritten in place,
    // one moved into the next week and another cabinet, and one removed.
    conn.execute_batch(
        "INSERT INTO cabinet_hours (account_id, hour, views, opens, clicks, actions,
            spent_micros) VALUES (7, '2026-12-03T01:00:00Z', 1, 0, 0, 0, 11);
         UPDATE cabinet_hours SET spent_micros = 60 WHERE hour = '2026-11-30T00:00:00Z';
         UPDATE cabinet_hours SET hour = '2026-12-07T10:00:00Z', account_id = 8
            WHERE hour = '2026-11-29T11:00:00Z';
         DELETE FROM cabinet_hours WHERE hour = '2026-12-02T23:00:00Z';",
    )
    .unwrap();
    assert_eq!(
        spent(&conn),
        [
            week(7, "2026-11-23", [0, 0, 0, 0, 0, 0, 300]),
            week(7, "2026-11-30", [60, 0, 0, 11, 0, 0, 0]),
            week(8, "2026-11-30", [90, 0, 0, 0, 0, 0, 0]),
            week(8, "2026-12-07", [7, 0, 0, 0, 0, 0, 0]),
        ]
    );
    assert!(equal(&conn));
    // A daily row moved by hand: to another day of its week, into another week, to another
    // cabinet.
    let week_of = |account: i64, monday: &str| {
        spent(&conn)
            .into_iter()
            .find(|w| w.0 == account && w.1 == monday)
            .map(|w| w.2)
    };
    conn.execute(
        "UPDATE cabinet_days SET day = '2026-12-04' WHERE account_id = 7 AND day = '2026-12-03'",
        [],
    )
    .unwrap();
    assert_eq!(week_of(7, "2026-11-30"), Some([60, 0, 0, 0, 11, 0, 0]));
    assert!(equal(&conn));
    conn.execute(
        "UPDATE cabinet_days SET day = '2026-12-08' WHERE account_id = 7 AND day = '2026-12-04'",
        [],
    )
    .unwrap();
    assert_eq!(week_of(7, "2026-11-30"), Some([60, 0, 0, 0, 0, 0, 0]));
    assert_eq!(week_of(7, "2026-12-07"), Some([0, 11, 0, 0, 0, 0, 0]));
    assert!(equal(&conn));
    conn.execute(
        "UPDATE cabinet_days SET account_id = 8 WHERE account_id = 7 AND day = '2026-12-08'",
        [],
    )
    .unwrap();
    assert_eq!(week_of(7, "2026-12-07"), None, "its only day left the week");
    assert_eq!(week_of(8, "2026-12-07"), Some([7, 11, 0, 0, 0, 0, 0]));
    assert!(equal(&conn));
    // A weekday's spend changed behind the triggers' back is a difference.
    conn.execute(
        "UPDATE cabinet_weeks SET spent_tue = spent_tue + 1 WHERE account_id = 8
            AND week = '2026-12-07'",
        [],
    )
    .unwrap();
    assert!(!equal(&conn));
}

#[test]
fn migration_66_keeps_each_cabinets_running_sums_and_its_triggers_follow_the_days() {
    // Hours of three days of cabinet 7 and one of cabinet 8, as the release before left them.
    let (_dir, conn) = migrated(
        66,
        "INSERT INTO cabinet_hours (account_id, hour, views, opens, clicks, actions,
            spent_micros) VALUES (7, '2026-11-29T10:00:00Z', 30, 3, 2, 0, 300),
            (7, '2026-11-29T11:00:00Z', 1, 0, 0, 0, 7),
            (7, '2026-11-30T00:00:00Z', 5, 1, 0, 0, 50), (7, '2026-12-02T23:00:00Z', 4, 2, 1, 1, 40),
            (8, '2026-11-30T12:00:00Z', 9, 0, 0, 0, 90);",
    );
    let runs = |conn: &rusqlite::Connection| {
        rows5(
            conn,
            "SELECT account_id, day, CAST(opens AS TEXT), views, spent_micros FROM cabinet_runs
             ORDER BY account_id, day",
        )
    };
    assert_eq!(
        runs(&conn),
        [
            row(7, "2026-11-29", "3", 31, 307),
            row(7, "2026-11-30", "4", 36, 357),
            row(7, "2026-12-02", "6", 40, 397),
            row(8, "2026-11-30", "0", 9, 90),
        ]
    );
    let equal = |conn: &rusqlite::Connection| {
        let figures = kept_check::check(conn).unwrap();
        let runs = figures.iter().find(|f| f.name == "cabinet_runs").unwrap();
        assert!(runs.rows > 0, "{runs:?}");
        runs.equal()
    };
    assert!(equal(&conn));
    // The triggers follow the days from now on: an hour of a new latest day, one of a new
    // earlier day, one added to a day (its row's upsert), one rewritten in place, one moved to
    // another cabinet and day, and the only hour of a day removed.
    conn.execute_batch(
        "INSERT INTO cabinet_hours (account_id, hour, views, opens, clicks, actions,
            spent_micros) VALUES (7, '2026-12-03T01:00:00Z', 1, 0, 0, 0, 11),
            (7, '2026-11-28T05:00:00Z', 2, 1, 0, 0, 20),
            (7, '2026-11-30T01:00:00Z', 3, 0, 0, 0, 30);
         UPDATE cabinet_hours SET spent_micros = 60 WHERE hour = '2026-11-30T00:00:00Z';
         UPDATE cabinet_hours SET hour = '2026-11-29T09:00:00Z', account_id = 8
            WHERE hour = '2026-11-29T11:00:00Z';
         DELETE FROM cabinet_hours WHERE hour = '2026-12-02T23:00:00Z';",
    )
    .unwrap();
    assert_eq!(
        runs(&conn),
        [
            row(7, "2026-11-28", "1", 2, 20),
            row(7, "2026-11-29", "4", 32, 320),
            row(7, "2026-11-30", "5", 40, 410),
            row(7, "2026-12-03", "5", 41, 421),
            row(8, "2026-11-29", "0", 1, 7),
            row(8, "2026-11-30", "0", 10, 97),
        ]
    );
    assert!(equal(&conn));
    // A daily row's hours alone changed: no run moves.
    conn.execute(
        "UPDATE cabinet_days SET hours = hours + 1 WHERE account_id = 7 AND day = '2026-11-30'",
        [],
    )
    .unwrap();
    assert_eq!(runs(&conn)[2], row(7, "2026-11-30", "5", 40, 410));
    // A daily row moved by hand: back before every other day with its figures changed, then
    // forward again, then to another cabinet.
    conn.execute(
        "UPDATE cabinet_days SET day = '2026-11-20', views = views + 100
         WHERE account_id = 7 AND day = '2026-11-29'",
        [],
    )
    .unwrap();
    assert_eq!(runs(&conn)[0], row(7, "2026-11-20", "3", 130, 300));
    assert!(equal(&conn));
    conn.execute(
        "UPDATE cabinet_days SET day = '2026-12-01', views = views - 100
         WHERE account_id = 7 AND day = '2026-11-20'",
        [],
    )
    .unwrap();
    assert!(equal(&conn));
    conn.execute(
        "UPDATE cabinet_days SET account_id = 8 WHERE account_id = 7 AND day = '2026-12-01'",
        [],
    )
    .unwrap();
    assert_eq!(
        runs(&conn),
        [
            row(7, "2026-11-28", "1", 2, 20),
            row(7, "2026-11-30", "2", 10, 110),
            row(7, "2026-12-03", "2", 11, 121),
            row(8, "2026-11-29", "0", 1, 7),
            row(8, "2026-11-30", "0", 10, 97),
            row(8, "2026-12-01", "3", 40, 397),
        ]
    );
    assert!(equal(&conn));
    // A run changed behind the triggers' back is a difference, as is one removed.
    conn.execute(
        "UPDATE cabinet_runs SET clicks = clicks + 1 WHERE account_id = 8 AND day = '2026-11-30'",
        [],
    )
    .unwrap();
    assert!(!equal(&conn));
    conn.execute_batch(
        "UPDATE cabinet_runs SET clicks = clicks - 1 WHERE account_id = 8 AND day = '2026-11-30';
         DELETE FROM cabinet_runs WHERE account_id = 7 AND day = '2026-11-28';",
    )
    .unwrap();
    assert!(!equal(&conn));
}
