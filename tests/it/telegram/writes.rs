//! Writes through the connector: a create reaches the platform and reads `In Review` until
//! approved there; pause and resume are the platform's pause switch; budget moves carry an
//! idempotency key derived from adcab's own operation, so a repeat moves money once; the
//! platform's 10-minute rule comes back as `PLATFORM_REJECTED` with what to do.

use serde_json::json;

use super::connected;

#[test]
fn a_created_campaign_is_in_review_on_the_platform_and_active_once_approved() {
    let tg = connected(vec![]);
    let ad = tg.create(json!({ "daily_budget": "4", "views_per_user": 2 }));
    let on_platform = tg
        .fake
        .ad(tg.id(), ad)
        .expect("the ad exists on the platform");
    assert_eq!(on_platform["status"], "in_review");
    assert_eq!(on_platform["cpm"].to_string(), "2.5");
    assert_eq!(on_platform["remaining_budget"].to_string(), "20");
    assert_eq!(on_platform["impression_frequency"], 2);
    assert_eq!(on_platform["daily_budget_limit"].to_string(), "4");
    let stored = tg.campaign(ad);
    assert_eq!(stored["status"], "In Review");
    assert_eq!(stored["budget"], "20.00");
    let create = tg
        .fake
        .calls()
        .into_iter()
        .find(|c| c.method == "createAd")
        .unwrap();
    assert!(
        create.idempotency_key.is_some(),
        "a create carries an idempotency key"
    );
    tg.fake.approve(tg.id(), ad);
    tg.advance(6 * 60);
    assert_eq!(
        tg.campaign(ad)["status"],
        "Active",
        "re-read once the copy is older than 5 minutes"
    );
}

#[test]
fn pause_and_resume_flip_the_platform_switch() {
    let tg = connected(vec![]);
    let ad = tg.create(json!({}));
    tg.fake.approve(tg.id(), ad);
    let base = format!("/campaigns/{ad}");
    let q = format!("?account_id={}", tg.cabinet);
    let paused = tg
        .app
        .write_ok("POST", &format!("{base}/pause{q}"), &tg.key, None, 200);
    assert_eq!(paused["data"]["status"], "On Hold");
    assert_eq!(paused["data"]["active"], false);
    assert_eq!(tg.fake.ad(tg.id(), ad).unwrap()["is_paused"], true);
    let again = tg
        .app
        .write_ok("POST", &format!("{base}/pause{q}"), &tg.key, None, 200);
    assert_eq!(again["meta"]["already_set"], true, "{again}");
    let resumed = tg
        .app
        .write_ok("POST", &format!("{base}/resume{q}"), &tg.key, None, 200);
    assert_eq!(resumed["data"]["status"], "Active");
}

#[test]
fn a_budget_call_repeated_with_its_key_moves_money_once() {
    let tg = connected(vec![]);
    let ad = tg.create(json!({}));
    let moves = tg.fake.money_moves(tg.id());
    let body = json!({ "account_id": tg.cabinet, "action": "add", "amount": "7.50" });
    let path = format!("/campaigns/{ad}/budget");
    let first = tg.app.send(
        "POST",
        &path,
        &tg.key,
        Some(&body),
        &[("Idempotency-Key", "add-once-0001")],
    );
    assert_eq!(first.status, 200, "{}", first.body);
    let second = tg.app.send(
        "POST",
        &path,
        &tg.key,
        Some(&body),
        &[("Idempotency-Key", "add-once-0001")],
    );
    assert_eq!(second.status, 200);
    assert_eq!(first.body["data"]["budget"], "27.50");
    assert_eq!(tg.fake.money_moves(tg.id()), moves + 1);
    assert_eq!(tg.fake.balance(tg.id()), "972.5");
    let keyed: Vec<_> = tg
        .fake
        .calls()
        .into_iter()
        .filter(|c| c.method == "increaseAdBudget")
        .collect();
    assert_eq!(keyed.len(), 1);
    assert!(keyed[0].idempotency_key.is_some());
}

#[test]
fn withdrawing_and_deleting_wait_for_the_platforms_ten_minutes_without_delivery() {
    let tg = connected(vec![]);
    let ad = tg.create(json!({}));
    tg.fake.approve(tg.id(), ad);
    let withdraw = json!({ "account_id": tg.cabinet, "action": "withdraw", "amount": "5" });
    let path = format!("/campaigns/{ad}/budget");
    let refused = tg.app.send(
        "POST",
        &path,
        &tg.key,
        Some(&withdraw),
        &[("Idempotency-Key", "withdraw-0001")],
    );
    refused.assert_error(400, "PLATFORM_REJECTED");
    let why = refused.body["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(why.contains("10 minutes"), "{}", refused.body);
    let delete = format!("/campaigns/{ad}?account_id={}", tg.cabinet);
    let refused = tg.app.call_with_key("DELETE", &delete, &tg.key);
    refused.assert_error(400, "PLATFORM_REJECTED");
    assert_eq!(
        tg.fake.ad(tg.id(), ad).unwrap()["is_paused"],
        true,
        "a delete pauses the ad so that it can be deleted later"
    );
    tg.advance(11 * 60);
    let deleted = tg.app.call_with_key("DELETE", &delete, &tg.key);
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    assert_eq!(deleted.body["data"]["deleted"], true);
    assert!(tg.fake.ad(tg.id(), ad).is_none(), "gone from the platform");
    assert_eq!(tg.fake.balance(tg.id()), "1000", "its budget came back");
}
