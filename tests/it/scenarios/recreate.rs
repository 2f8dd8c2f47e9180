//! Scenarios of the recreate of a declined campaign, on both platforms: the new campaign keeps
//! the old settings with the fields sent in place, the old one is deleted once the new one
//! exists, both histories name the other; the refusals; bulk `recreate`; and, on the
//! connector, an item whose platform answers are lost makes one campaign and deletes once.

use serde_json::{json, Value};

use super::World;
use crate::telegram::Fault;

on_both!(
    a_declined_campaign_is_recreated_with_a_new_text_and_the_old_one_deleted,
    recreate_is_refused_without_a_key_or_for_a_campaign_not_declined,
    bulk_recreate_makes_each_declined_campaign_again,
);

impl World {
    /// A campaign in review with a bid, budget, schedule and group of its own, declined after
    /// eleven minutes of review (the real platform deletes an ad only once it has been quiet
    /// for ten; the fake counts them from its creation).
    fn declined(&self, title: &str) -> i64 {
        let ad = self.create(json!({
            "title": title, "cpm": "3", "budget": "30", "new_group_name": "Spring",
            "schedule": { "days": { "mon": [9, 10] }, "timezone": "+02:00" }
        }));
        self.advance(11 * 60, 0);
        self.decline(ad);
        assert_eq!(self.campaign(ad)["status"], "Declined");
        ad
    }

    /// `POST /v1/campaigns/{ad}/recreate` with `body` (the cabinet added) and `headers`.
    fn recreate(&self, ad: i64, body: Value, headers: &[(&str, &str)]) -> crate::helpers::Resp {
        let mut body = body;
        body["account_id"] = json!(self.cabinet);
        self.app.send(
            "POST",
            &format!("/campaigns/{ad}/recreate"),
            &self.key,
            Some(&body),
            headers,
        )
    }

    /// The actions of a campaign's history with their details.
    fn history(&self, ad: i64) -> Vec<(String, Value)> {
        let account = self.cabinet;
        self.app
            .services
            .db
            .read_blocking(move |c| adcab::store::history::list(c, account, ad))
            .unwrap()
            .into_iter()
            .map(|e| (e.action, e.details.unwrap_or(Value::Null)))
            .collect()
    }

    /// The details of the one `action` entry in the campaign's history.
    fn entry(&self, ad: i64, action: &str) -> Value {
        let found: Vec<Value> = self
            .history(ad)
            .into_iter()
            .filter(|(a, _)| a == action)
            .map(|(_, d)| d)
            .collect();
        assert_eq!(found.len(), 1, "one {action} on {ad}: {found:?}");
        found[0].clone()
    }

    /// The task's new campaigns.
    fn made(done: &Value) -> Vec<i64> {
        serde_json::from_value(done["ad_ids"].clone()).unwrap()
    }
}

fn a_declined_campaign_is_recreated_with_a_new_text_and_the_old_one_deleted(w: World) {
    let old = w.declined("Original");
    let before = w.campaign(old);
    assert_eq!(w.balance(), "970.00");
    let key = [("Idempotency-Key", "scenario-recreate-1")];
    let body = json!({ "text": "An honest text" });
    let first = w.recreate(old, body.clone(), &key);
    assert_eq!(first.status, 202, "{}", first.body);
    assert_eq!(first.body["data"]["type"], "recreate");
    let again = w.recreate(old, body, &key);
    assert_eq!(again.status, 202, "{}", again.body);
    assert_eq!(
        again.body["data"]["id"], first.body["data"]["id"],
        "the same task"
    );
    let done = w.task(first.body.clone());
    assert_eq!(done["status"], "completed", "{done}");
    let made = World::made(&done);
    assert_eq!(made.len(), 1, "{done}");
    let new = made[0];
    assert_ne!(new, old);
    let c = w.campaign(new);
    assert_eq!(c["status"], "In Review", "{c}");
    assert_eq!(c["text"], "An honest text");
    for field in [
        "title",
        "promote_url",
        "cpm",
        "budget",
        "target_type",
        "targeting",
    ] {
        assert_eq!(c[field], before[field], "{field} kept");
    }
    assert_eq!(c["schedule"], before["schedule"], "schedule kept");
    assert_eq!(c["group_id"], before["group_id"], "group kept");
    assert!(c["group_id"].is_i64(), "{c}");
    assert_eq!(w.campaign(old)["status"], "Deleted");
    assert_eq!(
        w.balance(),
        "970.00",
        "the old budget came back, the new one took it"
    );
    assert_eq!(w.entry(new, "recreated_from")["ad_id"], old);
    assert_eq!(w.entry(old, "recreated_as")["ad_id"], new);
    if let Some((fake, account)) = &w.fake {
        let ad = fake.ad(&account.account_id, new).unwrap();
        assert_eq!(ad["text"], "An honest text", "{ad}");
    }
}

fn recreate_is_refused_without_a_key_or_for_a_campaign_not_declined(w: World) {
    let old = w.declined("Original");
    w.recreate(old, json!({}), &[])
        .assert_error(400, "IDEMPOTENCY_KEY_REQUIRED");
    let in_review = w.create(json!({}));
    let r = w.recreate(
        in_review,
        json!({}),
        &[("Idempotency-Key", "scenario-recreate-2")],
    );
    r.assert_error(409, "CAMPAIGN_NOT_DECLINED");
    let r = w.recreate(
        old,
        json!({ "cpm": "0" }),
        &[("Idempotency-Key", "scenario-recreate-3")],
    );
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["param"], "cpm");
    assert_eq!(w.campaign(old)["status"], "Declined", "nothing happened");
    assert_eq!(w.ads().len(), 2, "nothing made");
}

fn bulk_recreate_makes_each_declined_campaign_again(w: World) {
    let declined = [w.declined("First"), w.declined("Second")];
    let in_review = w.create(json!({}));
    let mut ad_ids = declined.to_vec();
    ad_ids.push(in_review);
    let body = json!({ "account_id": w.cabinet, "action": "recreate", "ad_ids": ad_ids });
    let queued = w
        .app
        .write_ok("POST", "/campaigns/bulk", &w.key, Some(&body), 202);
    assert_eq!(queued["data"]["type"], "recreate");
    let done = w.task(queued);
    assert_eq!(
        (done["succeeded"].clone(), done["failed"].clone()),
        (json!(2), json!(1)),
        "{done}"
    );
    let refused = &done["errors"][0];
    assert_eq!(refused["ad_id"], in_review, "{done}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap_or_default()
            .starts_with("CAMPAIGN_NOT_DECLINED"),
        "{done}"
    );
    let made = World::made(&done);
    assert_eq!(made.len(), 2, "{done}");
    for (old, new) in declined.iter().zip(&made) {
        let c = w.campaign(*new);
        assert_eq!(c["title"], w.campaign(*old)["title"], "{c}");
        assert_eq!(c["status"], "In Review");
        assert_eq!(w.campaign(*old)["status"], "Deleted");
        assert_eq!(w.entry(*new, "recreated_from")["ad_id"], *old);
        assert_eq!(w.entry(*old, "recreated_as")["ad_id"], *new);
    }
    assert_eq!(w.campaign(in_review)["status"], "In Review", "left alone");
}

/// The platform made the new campaign but its answer was lost: the item runs again, gets the
/// same campaign back by its client reference, and deletes the old one; one new budget taken,
/// the old one's returned once.
#[test]
fn a_recreate_whose_create_answer_is_lost_makes_one_campaign() {
    let w = World::telegram();
    let old = w.declined("Original");
    let (fake, account) = w.fake.as_ref().unwrap();
    fake.fail_next(Fault::Drop, Some("createAd"), 1);
    let done = w.task(w.app.write_ok(
        "POST",
        &format!("/campaigns/{old}/recreate"),
        &w.key,
        Some(&json!({ "account_id": w.cabinet })),
        202,
    ));
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["succeeded"], 1, "{done}");
    assert_eq!(
        fake.call_count("createAd"),
        3,
        "the original, the lost one, its repeat"
    );
    let made = World::made(&done);
    assert_eq!(made.len(), 1, "{done}");
    assert_eq!(
        fake.balance(&account.account_id),
        "970",
        "one new budget, one returned"
    );
    assert!(
        fake.ad(&account.account_id, old).is_none(),
        "deleted on the platform"
    );
    assert_eq!(w.entry(made[0], "recreated_from")["ad_id"], old);
}

/// The new campaign is stored, the platform deletes the old one but that answer is lost, and a
/// sync marks the old one deleted before the item runs again: the repeat finds its first step
/// done (it does not ask for the old one to be declined again, nor make another campaign) and
/// ends the item with both links.
#[test]
fn a_recreate_resumed_after_its_delete_answer_was_lost_finishes_with_both_links() {
    let w = World::telegram();
    let old = w.declined("Original");
    let (fake, account) = w.fake.as_ref().unwrap();
    fake.fail_next(Fault::Drop, Some("deleteAd"), 1);
    let queued = w.app.write_ok(
        "POST",
        &format!("/campaigns/{old}/recreate"),
        &w.key,
        Some(&json!({ "account_id": w.cabinet })),
        202,
    );
    adcab::jobs::worker::run_one(&w.app.services).unwrap();
    assert!(
        fake.ad(&account.account_id, old).is_none(),
        "deleted, unanswered"
    );
    adcab::ops::cabinet_sync(&w.app.services, w.cabinet).unwrap();
    assert_eq!(w.campaign(old)["status"], "Deleted", "the sync saw it gone");
    let done = w.task(queued);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        (done["succeeded"].clone(), done["failed"].clone()),
        (json!(1), json!(0)),
        "{done}"
    );
    let made = World::made(&done);
    assert_eq!(made.len(), 1, "{done}");
    assert_eq!(
        fake.call_count("createAd"),
        2,
        "the original and the new one, once"
    );
    assert_eq!(fake.balance(&account.account_id), "970");
    assert_eq!(w.entry(made[0], "recreated_from")["ad_id"], old);
    assert_eq!(w.entry(old, "recreated_as")["ad_id"], made[0]);
}

/// The platform refuses to delete an ad that was created less than ten minutes ago: the new
/// campaign stays and is named in the task's error, the declined one stays declined, and its
/// history says it was recreated without being deleted.
#[test]
fn a_refused_delete_keeps_the_new_campaign_and_says_so() {
    let w = World::telegram();
    let old = w.create(json!({ "title": "Original" }));
    w.decline(old);
    let done = w.task(w.app.write_ok(
        "POST",
        &format!("/campaigns/{old}/recreate"),
        &w.key,
        Some(&json!({ "account_id": w.cabinet })),
        202,
    ));
    assert_eq!(done["failed"], 1, "{done}");
    let error = &done["errors"][0];
    let new = error["ad_id"].as_i64().unwrap();
    assert_ne!(new, old);
    let sentence = error["error"].as_str().unwrap_or_default();
    assert!(
        sentence.starts_with(&format!("The new campaign {new} was made")),
        "{done}"
    );
    assert_eq!(w.campaign(new)["status"], "In Review");
    assert_eq!(w.campaign(old)["status"], "Declined");
    let link = w.entry(old, "recreated_as");
    assert_eq!(
        (link["ad_id"].as_i64(), link["deleted"].clone()),
        (Some(new), json!(false))
    );
    assert_eq!(w.entry(new, "recreated_from")["ad_id"], old);
}

/// On a platform that shows media only on channels and users ads, a recreate naming media for
/// a bots ad is refused by its field, and a channels ad with media recreated as a bots ad
/// leaves its media behind.
#[test]
fn media_follows_the_platform_s_media_targets_on_the_connector() {
    use crate::media::{multipart, upload, PNG};
    let w = World::telegram();
    let (ct, body) = multipart("file", "banner.png", PNG);
    let r = upload(
        &w.app,
        &w.key,
        &format!("?account_id={}", w.cabinet),
        &ct,
        &body,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let token = r.body["data"]["media"].as_str().unwrap().to_string();
    let old = w.create(json!({ "media": token }));
    w.advance(11 * 60, 0);
    w.decline(old);
    assert_eq!(w.campaign(old)["has_media"], true);
    let bots = json!({
        "promote_url": "https://t.me/shop_helper_bot?start=spring",
        "target_type": "bots", "bots": ["@shop_helper_bot"]
    });
    let mut with_media = bots.clone();
    with_media["media"] = json!(token);
    let r = w.recreate(
        old,
        with_media,
        &[("Idempotency-Key", "scenario-recreate-4")],
    );
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["param"], "media");
    let done = w.task(w.app.write_ok(
        "POST",
        &format!("/campaigns/{old}/recreate"),
        &w.key,
        Some(&{
            let mut b = bots;
            b["account_id"] = json!(w.cabinet);
            b
        }),
        202,
    ));
    assert_eq!(done["succeeded"], 1, "{done}");
    let c = w.campaign(World::made(&done)[0]);
    assert_eq!(
        (c["target_type"].clone(), c["has_media"].clone()),
        (json!("bots"), json!(false)),
        "{c}"
    );
}
