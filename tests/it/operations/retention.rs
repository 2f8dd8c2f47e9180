//! Retention: hourly stats older than the policy roll into daily rows with every stats period
//! and history span unchanged; old conversions leave their campaign totals whole; old
//! deliveries, status events and idempotency records go, batch after batch until none is left;
//! nothing newer is touched.

use chrono::Duration;
use serde_json::{json, Value};

use super::block_on;
use crate::helpers::{printed, spawn_app_with, Camp, Receiver, TestApp};
use adcab::{clock, jobs::retention, ops};

fn app() -> TestApp {
    spawn_app_with(|c| {
        c.retention.hourly_stats_days = 31;
        c.retention.conversions_days = 1;
        c.retention.deliveries_days = 1;
        c.retention.events_days = 1;
        c.retention.idempotency_days = 1;
    })
}

/// A person's cabinet with a bot campaign (ref `r1`) and a key that manages it and sends
/// postbacks, after one purchase per `(txid, amount, currency)`: (user, cabinet, key, ad).
fn purchased(app: &TestApp, purchases: &[(&str, &str, &str)]) -> (i64, i64, String, i64) {
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000");
    let key = app.key_with(adcab::ops::NewKey {
        user,
        manage: true,
        postbacks: true,
        ..Default::default()
    });
    let ad = app.campaign(
        cabinet,
        Camp::channel("Bot", "https://t.me/shop_bot?start=r1"),
    );
    for &(txid, amount, currency) in purchases {
        let r = app.send(
            "POST",
            "/postback",
            &key,
            Some(&json!({ "ref": "r1", "event": "purchase", "txid": txid, "amount": amount, "cur": currency })),
            &[],
        );
        assert_eq!(r.status, 200, "{}", r.body);
    }
    (user, cabinet, key, ad)
}

/// Every stats read a client can make of the campaign.
fn reads(app: &TestApp, key: &str, ad: i64, old_days: (&str, &str)) -> Vec<Value> {
    let mut all: Vec<Value> = ["1d", "7d", "30d", "all"]
        .iter()
        .map(|p| app.get_ok(&format!("/stats?period={p}"), key)["data"].clone())
        .collect();
    for period in ["24h", "7d", "30d"] {
        all.push(
            app.get_ok(&format!("/campaigns/{ad}/history?period={period}"), key)["data"].clone(),
        );
    }
    let (from, to) = old_days;
    all.push(
        app.get_ok(
            &format!("/campaigns/{ad}/history?period=custom&startDate={from}&endDate={to}"),
            key,
        )["data"]
            .clone(),
    );
    all
}

#[test]
fn a_roll_up_keeps_every_period_and_history_span_exact() {
    let app = app();
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    let ad = app.funded(cabinet, 500_000_000);
    app.advance(30 * 3600);
    // Forty days of older hours, as a long-lived install holds them.
    let now = app.now();
    let hours: Vec<(String, i64)> = (24 * 33..24 * 40)
        .map(|h| {
            (
                clock::iso(clock::hour_start(now - Duration::hours(h))),
                100 + h,
            )
        })
        .collect();
    let rows: Vec<String> = hours
        .iter()
        .map(|(hour, views)| {
            format!(
                "({cabinet}, {ad}, '{hour}', {views}, 1, 2, 1, {})",
                views * 30
            )
        })
        .collect();
    app.sql(&format!(
        "INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros) VALUES {}",
        rows.join(",")
    ));
    let day = |d: i64| (now - Duration::days(d)).format("%Y-%m-%d").to_string();
    let old_days = (day(38), day(34));
    let before = reads(&app, &key, ad, (&old_days.0, &old_days.1));

    let done = block_on(retention::pass(&app.services)).unwrap();
    assert!(done.hourly_stats >= 24 * 6, "{done:?}");
    let cutoff = retention::Cutoffs::at(&app.services.config.retention, app.now())
        .hourly_stats
        .unwrap();
    let left: i64 = app.scalar(
        &format!("SELECT COUNT(*) FROM hourly_stats WHERE hour < '{cutoff}'"),
        &[],
    );
    assert_eq!(left, 0, "no hourly row older than the cutoff is left");
    let days: i64 = app.scalar("SELECT COUNT(*) FROM daily_stats", &[]);
    assert!(days >= 6, "{days} daily rows");
    assert_eq!(reads(&app, &key, ad, (&old_days.0, &old_days.1)), before);
    let (from, to) = (
        format!("{}T00:00:00Z", old_days.0),
        format!("{}T23:59:59Z", old_days.1),
    );
    let expected: i64 = hours
        .iter()
        .filter(|(hour, _)| *hour >= from && *hour <= to)
        .map(|(_, views)| views)
        .sum();
    assert_eq!(before[7]["views"], expected, "the old span read whole days");

    let again = block_on(retention::pass(&app.services)).unwrap();
    assert_eq!(
        again,
        retention::Pruned::default(),
        "a second pass finds nothing"
    );
}

#[test]
fn old_conversions_deliveries_events_and_idempotency_records_go_and_totals_stay() {
    let app = app();
    let (user, cabinet, key, ad) = purchased(&app, &[("a", "10", "eur"), ("b", "2.50", "eur")]);
    let hook = Receiver::start(200);
    let (hook_id, _, _) = app.hook_key(user, &hook.url);
    printed(ops::key_ping(&app.services, ops::By::Operator, hook_id).unwrap());
    let funded = app.funded(cabinet, 10_000_000);
    let budget = app.send(
        "POST",
        &format!("/campaigns/{funded}/budget"),
        &key,
        Some(&json!({ "action": "add", "amount": "1.00" })),
        &[("Idempotency-Key", "retention-1")],
    );
    assert_eq!(budget.status, 200, "{}", budget.body);
    let campaign = |app: &TestApp| app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    let before = campaign(&app);
    assert_eq!(before["conversions"]["purchase"], 2);

    let nothing = block_on(retention::pass(&app.services)).unwrap();
    assert_eq!(
        nothing.conversions + nothing.webhook_deliveries,
        0,
        "nothing is old yet"
    );
    app.advance(2 * 86_400);
    let recent = app.send(
        "POST",
        "/postback",
        &key,
        Some(&json!({ "ref": "r1", "event": "lead", "txid": "c" })),
        &[],
    );
    assert_eq!(recent.status, 200);
    let done = block_on(retention::pass(&app.services)).unwrap();
    assert_eq!(done.conversions, 2, "{done:?}");
    assert!(done.webhook_deliveries >= 1, "{done:?}");
    assert!(done.idempotency_records >= 1, "{done:?}");
    let after = campaign(&app);
    assert_eq!(
        after["conversions"]["purchase"],
        before["conversions"]["purchase"]
    );
    assert_eq!(after["revenue"], before["revenue"]);
    assert_eq!(after["conversions"]["lead"], 1, "the recent one is kept");
    let listed = app.get_ok("/conversions", &key)["data"].clone();
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    let log = printed(ops::webhook_log(&app.services, hook_id, Some(1000)).unwrap());
    let cutoff = clock::iso(app.now() - Duration::days(1));
    for d in log["deliveries"].as_array().unwrap() {
        assert_ne!(d["event"], "ping", "the two-day-old ping is gone: {d}");
        assert!(
            d["at"].as_str().unwrap() >= cutoff.as_str(),
            "only recent ones stay: {d}"
        );
    }
}

#[test]
fn an_upgrade_adds_the_kept_conversions_to_the_totals_retention_left() {
    let app = app();
    let (_, owned, sender, ad) = purchased(&app, &[("a", "10", "usd"), ("b", "2.25", "usd")]);
    let read = |app: &TestApp| {
        let c = app.get_ok(&format!("/campaigns/{ad}"), &sender)["data"].clone();
        (c["conversions"].clone(), c["revenue"].clone())
    };
    assert_eq!(
        read(&app),
        (
            json!({ "lead": 0, "conversion": 0, "purchase": 2 }),
            json!({ "USD": "12.25" })
        )
    );
    // As the previous release left it: totals hold only what retention removed (one purchase
    // of 100 USD and a lead), the kept events are counted nowhere yet, and each event's
    // campaign is a row of `conversion_campaigns` (as before migration 34).
    let app = app.restart_after(|s| {
        s.db.write_blocking(|tx| {
            tx.execute_batch(
                "INSERT INTO conversion_campaigns (conversion_id, account_id, ad_id)
                    SELECT id, account_id, ad_id FROM conversions WHERE ad_id IS NOT NULL;
                 UPDATE conversions SET ad_id = NULL;",
            )?;
            tx.execute("DELETE FROM conversion_totals WHERE ad_id = ?1", [ad])?;
            tx.execute(
                "INSERT INTO conversion_totals VALUES (?1, ?2, 'purchase', 'USD', 1, 0, 100000000),
                    (?1, ?2, 'lead', '', 1, NULL, NULL)",
                [owned, ad],
            )?;
            tx.execute_batch("DELETE FROM schema_migrations WHERE version = 12;")?;
            Ok::<_, adcab::store::StoreError>(())
        })
        .unwrap();
    });
    assert_eq!(
        read(&app),
        (
            json!({ "lead": 1, "conversion": 0, "purchase": 3 }),
            json!({ "USD": "112.25" })
        ),
        "what retention kept plus the events still stored"
    );
}

#[test]
fn automation_records_older_than_the_policy_go_and_newer_ones_stay() {
    let app = spawn_app_with(|c| c.retention.automation_days = 8);
    let (_, cabinet, key) = app.manager();
    app.align_hour();
    app.active_campaign(cabinet);
    let rule = json!({
        "name": "Every hour", "account_id": cabinet,
        "conditions": [{"metric": "views", "op": ">=", "value": 0, "window_hours": 1}],
        "action": {"type": "notify", "text": "tick"}, "cooldown_hours": 0, "max_runs_per_day": 24,
    });
    let id = app.write_ok("POST", "/rules", &key, Some(&rule), 200)["data"]["id"].clone();
    app.advance(10 * 86_400);
    let count = |app: &TestApp, table: &str| -> i64 {
        let sql = format!("SELECT COUNT(*) FROM {table}");
        app.services
            .db
            .read_blocking(move |c| {
                Ok::<_, adcab::store::StoreError>(c.query_row(&sql, [], |r| r.get(0))?)
            })
            .unwrap()
    };
    let (log_before, alerts_before) = (count(&app, "rule_log"), count(&app, "alerts"));
    assert!(
        log_before >= 240,
        "an entry every hour for ten days: {log_before}"
    );
    let done = block_on(retention::pass(&app.services)).unwrap();
    assert!(done.automation > 0, "{done:?}");
    let cutoff = clock::iso(app.now() - Duration::days(8));
    let oldest: String = app
        .services
        .db
        .read_blocking(|c| {
            Ok::<_, adcab::store::StoreError>(c.query_row(
                "SELECT MIN(at) FROM rule_log",
                [],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert!(oldest >= cutoff, "{oldest} is older than {cutoff}");
    let kept = count(&app, "rule_log");
    assert!(
        (8 * 24 - 2..=8 * 24 + 1).contains(&kept),
        "eight days of hourly entries: {kept}"
    );
    assert!(count(&app, "alerts") < alerts_before);
    let listed = app.get_ok(&format!("/rules/{id}/log?limit=500"), &key)["data"].clone();
    assert_eq!(listed.as_array().unwrap().len() as i64, kept);
}

#[test]
fn old_conversions_go_batch_after_batch_until_none_is_left() {
    let app = app();
    let txids: Vec<String> = (0..20).map(|n| format!("t{n}")).collect();
    let purchases: Vec<(&str, &str, &str)> =
        txids.iter().map(|t| (t.as_str(), "1", "eur")).collect();
    let (_, _, key, ad) = purchased(&app, &purchases);
    let campaign = |app: &TestApp| app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    let before = campaign(&app);
    assert_eq!(before["conversions"]["purchase"], 20);
    app.advance(2 * 86_400);
    // Four rows a batch: twenty old conversions fill five batches, and a sixth finds none.
    let pace = retention::Pace {
        campaigns: 5,
        rows: 4,
        breather: std::time::Duration::ZERO,
        spread: std::time::Duration::ZERO,
        rest: 0,
    };
    let done = block_on(retention::pass_paced(&app.services, pace)).unwrap();
    assert_eq!(done.conversions, 20, "{done:?}");
    let listed = app.get_ok("/conversions", &key)["data"].clone();
    assert_eq!(listed.as_array().unwrap().len(), 0, "{listed}");
    let after = campaign(&app);
    assert_eq!(after["conversions"], before["conversions"]);
    assert_eq!(after["revenue"], before["revenue"]);
}
