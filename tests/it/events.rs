//! Webhook events over the service clock: `status_change` right away for API changes and
//! once per cabinet per sync (a decline with the platform's reason), `hourly_digest` at five
//! past the hour (top 200, totals, numbers and decimal strings), reach (only keys whose holder
//! sees the cabinet), and an outbox that survives a restart.

use crate::helpers::{spawn_app, Camp, Received, Receiver, TestApp};
use adcab::clock;
use adcab::ops::{self, NewKey};
use adcab::store::StoreError;
use adcab::webhooks::events;
use chrono::Duration;
use serde_json::{json, Value};

fn of_kind(rx: &Receiver, event: &str) -> Vec<Received> {
    rx.received()
        .into_iter()
        .filter(|r| r.event() == event)
        .collect()
}

/// A campaign that spends its 0.50 (250 views at 2.00) well within an hour, approved.
fn short_runner(app: &TestApp, account: i64) -> i64 {
    app.funded(account, 500_000)
}

#[test]
fn an_api_pause_sends_a_signed_status_change_right_away() {
    let app = spawn_app();
    let rx = Receiver::start(200);
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000");
    let (_, key, secret) = app.hook_key(user, &rx.url);
    app.align_hour();
    let ad = app.active_campaign(cabinet);
    app.settle();
    let review = of_kind(&rx, "status_change");
    assert_eq!(review.len(), 1, "the review outcome");
    assert_eq!(
        review[0].verified(&secret)["changes"],
        json!([{ "ad_id": ad, "tme_path": "alpha_chan", "old_status": "In Review", "new_status": "Active", "decline_reason": null }])
    );

    app.write_ok("POST", &format!("/campaigns/{ad}/pause"), &key, None, 200);
    app.settle();
    let got = of_kind(&rx, "status_change");
    assert_eq!(got.len(), 2, "one more, without waiting for a sync");
    let body = got[1].verified(&secret);
    assert_eq!(body["event"], "status_change");
    assert_eq!(body["account_id"], cabinet);
    assert_eq!(
        body["changes"],
        json!([{ "ad_id": ad, "tme_path": "alpha_chan", "old_status": "Active", "new_status": "On Hold", "decline_reason": null }])
    );
    let delivered = body["delivered_at"].as_str().unwrap();
    assert_eq!(
        delivered.len(),
        "2026-01-01T00:00:00.000Z".len(),
        "milliseconds"
    );
    assert!(uuid::Uuid::parse_str(&got[1].headers["x-service-delivery"]).is_ok());
    assert_ne!(
        got[0].headers["x-service-delivery"],
        got[1].headers["x-service-delivery"]
    );
}

#[test]
fn a_decline_sends_the_platforms_reason_in_its_status_change() {
    let app = spawn_app();
    let rx = Receiver::start(200);
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000");
    let (_, key, secret) = app.hook_key(user, &rx.url);
    let ad = app.campaign(cabinet, Camp::channel("Spring", "https://t.me/alpha_chan"));
    ops::sim_review(&app.services, cabinet, ad, false, None).unwrap();
    app.settle();
    let shown = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"]["decline_reason"].clone();
    let reason = shown.as_str().unwrap_or_default();
    assert!(
        reason.contains(" — "),
        "one of the simulator's reasons, with its explanation: {shown}"
    );
    let got = of_kind(&rx, "status_change");
    assert_eq!(got.len(), 1, "the review outcome");
    assert_eq!(
        got[0].verified(&secret)["changes"],
        json!([{ "ad_id": ad, "tme_path": "alpha_chan", "old_status": "In Review",
                 "new_status": "Declined", "decline_reason": reason }])
    );
}

#[test]
fn a_sync_sends_one_status_change_per_cabinet_then_the_digest_at_five_past() {
    let app = spawn_app();
    let rx = Receiver::start(200);
    let user = app.user("agency");
    let busy = app.cabinet(user, "euro", "1000");
    let idle = app.cabinet(user, "euro", "1000");
    let (_, _, secret) = app.hook_key(user, &rx.url);
    app.align_hour();
    let hour = clock::hour_start(app.now());
    let ads = [short_runner(&app, busy), short_runner(&app, busy)];
    app.settle();
    let before = of_kind(&rx, "status_change").len();

    app.advance(3600);
    let changes = of_kind(&rx, "status_change");
    assert_eq!(changes.len(), before + 1, "one POST for the cabinet's sync");
    let body = changes[before].verified(&secret);
    assert_eq!(body["account_id"], busy);
    let mut stopped: Vec<i64> = body["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert_eq!(
                (c["old_status"].as_str(), c["new_status"].as_str()),
                (Some("Active"), Some("Stopped"))
            );
            c["ad_id"].as_i64().unwrap()
        })
        .collect();
    stopped.sort();
    assert_eq!(stopped, ads.to_vec(), "both exhausted budgets in one event");
    assert!(
        of_kind(&rx, "hourly_digest").is_empty(),
        "digests wait for five past"
    );

    app.advance(5 * 60);
    let digests = of_kind(&rx, "hourly_digest");
    assert_eq!(digests.len(), 1, "none for the idle cabinet {idle}");
    let digest = digests[0].verified(&secret);
    assert_eq!(digest["account_id"], busy);
    assert_eq!(
        digest["period"],
        json!({ "start": clock::iso(hour), "end": clock::iso(hour + Duration::hours(1)) })
    );
    assert_eq!(
        digest["totals"]["views"], 500,
        "two budgets of 0.50 at 2.00 per 1000 views"
    );
    assert_eq!(digest["totals"]["spent"], json!(1.0));
    assert!(digest.get("truncated").is_none());
    let lines = digest["campaigns"].as_array().unwrap();
    assert_eq!(lines.len(), 2);
    for line in lines {
        assert_eq!(line["spent"], json!(0.5), "a number");
        assert_eq!(line["views"], 250);
        assert_eq!(line["cpm"], "2.00", "a decimal string");
        assert_eq!(line["budget"], "0.00");
        assert_eq!(line["status"], "Stopped");
        assert_eq!(line["tme_path"], "alpha_chan");
        assert_eq!(line["title"], "Funded");
        assert!(line["clicks"].is_number() && line["actions"].is_number());
    }

    app.advance(3600);
    assert_eq!(
        of_kind(&rx, "hourly_digest").len(),
        1,
        "nothing happened in the next hour: no digest"
    );
}

#[test]
fn only_keys_whose_holder_sees_the_cabinet_receive_its_events() {
    let app = spawn_app();
    let (own, other, scoped) = (
        Receiver::start(200),
        Receiver::start(200),
        Receiver::start(200),
    );
    let owner = app.user("pro");
    let cabinet = app.cabinet(owner, "euro", "1000");
    let second = app.cabinet(owner, "euro", "1000");
    let (_, key, _) = app.hook_key(owner, &own.url);
    ops::key_create(
        &app.services,
        &NewKey {
            user: owner,
            cabinets: Some(vec![second]),
            webhook_url: Some(scoped.url.clone()),
            ..NewKey::default()
        },
    )
    .unwrap();
    let stranger = app.user("pro");
    app.cabinet(stranger, "euro", "1000");
    app.hook_key(stranger, &other.url);
    let ad = app.active_campaign(cabinet);
    let pause = format!("/campaigns/{ad}/pause?account_id={cabinet}");
    app.write_ok("POST", &pause, &key, None, 200);
    app.settle();
    let changes: usize = of_kind(&own, "status_change")
        .iter()
        .map(|r| {
            serde_json::from_slice::<Value>(&r.body).unwrap()["changes"]
                .as_array()
                .unwrap()
                .len()
        })
        .sum();
    assert_eq!(changes, 2, "review and pause");
    assert!(other.received().is_empty(), "another person's key");
    assert!(
        scoped.received().is_empty(),
        "a key scoped to another cabinet"
    );
}

#[test]
fn events_waiting_at_a_restart_are_all_delivered() {
    let app = spawn_app();
    let rx = Receiver::start(200);
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000");
    let (_, _, secret) = app.hook_key(user, &rx.url);
    let ad = app.active_campaign(cabinet);
    app.settle();
    let before = rx.received().len();
    let mut queued = String::new();
    let app = app.restart_after(|s| {
        s.platform
            .switch_ad(cabinet, ad, false, Default::default())
            .unwrap();
        adcab::ops::write_back::reread(s, cabinet, ad)
            .unwrap()
            .unwrap();
        queued =
            s.db.write_blocking(|tx| {
                events::queue_status_changes(tx)?;
                Ok::<_, StoreError>(tx.query_row(
                    "SELECT delivery_id FROM webhook_outbox",
                    [],
                    |r| r.get(0),
                )?)
            })
            .unwrap();
        s.platform
            .switch_ad(cabinet, ad, true, Default::default())
            .unwrap();
        adcab::ops::write_back::reread(s, cabinet, ad)
            .unwrap()
            .unwrap();
    });
    app.settle();
    let got = rx.received();
    assert_eq!(
        got.len(),
        before + 2,
        "the queued event and the recorded one"
    );
    assert_eq!(
        got[before].headers["x-service-delivery"], queued,
        "sent with its id"
    );
    let statuses: Vec<Value> = got[before..]
        .iter()
        .map(|r| r.verified(&secret)["changes"][0]["new_status"].clone())
        .collect();
    assert_eq!(statuses, [json!("On Hold"), json!("Active")], "in order");
}

#[test]
fn a_digest_lists_the_top_200_by_spend_and_totals_cover_all() {
    let app = spawn_app();
    let (_, cabinet, _) = app.manager();
    let hour = clock::parse_iso("2026-05-01T10:00:00Z").unwrap();
    app.sql(&format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 205)
         INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros)
         SELECT {cabinet}, i, '2026-05-01T10:00:00Z', 10, 5, 2, 1, i * 1000 FROM n"
    ));
    let digest = app
        .services
        .db
        .read_blocking(|c| events::digest(c, cabinet, hour))
        .unwrap()
        .unwrap();
    let lines = digest["campaigns"].as_array().unwrap();
    assert_eq!(lines.len(), 200);
    assert_eq!(lines[0]["ad_id"], 205, "largest spend first");
    assert_eq!(lines[199]["ad_id"], 6);
    assert_eq!(digest["truncated"]["omitted"], 5);
    assert_eq!(digest["totals"]["views"], 2050, "over all 205");
    assert_eq!(
        digest["totals"]["spent"],
        json!(21.115),
        "sum of 1..=205 thousandths"
    );
    let quiet = clock::parse_iso("2026-05-01T11:00:00Z").unwrap();
    let none = app
        .services
        .db
        .read_blocking(|c| events::digest(c, cabinet, quiet))
        .unwrap();
    assert!(none.is_none(), "an idle hour has no digest");
}
