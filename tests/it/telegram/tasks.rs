//! Tasks through the connector: a copy makes a new ad with the original's creative and
//! targeting; bulk actions reach every ad on the platform, refusals listed per item.

use serde_json::json;

use super::connected;

#[test]
fn a_copy_is_a_new_ad_with_the_originals_creative_and_targeting() {
    let tg = connected(vec![]);
    let ad = tg.create(json!({ "title": "Original", "channels": ["@tech_daily", "@news_daily"] }));
    let body = json!({ "account_id": tg.cabinet, "copies": 2, "title": "Copy" });
    let queued = tg.app.write_ok(
        "POST",
        &format!("/campaigns/{ad}/copy"),
        &tg.key,
        Some(&body),
        202,
    );
    let done = tg.finish_task(&queued);
    assert_eq!(done["status"], "completed", "{done}");
    let copies: Vec<i64> = serde_json::from_value(done["ad_ids"].clone()).unwrap();
    assert_eq!(copies.len(), 2);
    let original = tg.fake.ad(tg.id(), ad).unwrap();
    for copy in copies {
        let made = tg.fake.ad(tg.id(), copy).unwrap();
        assert_eq!(made["title"], "Copy");
        assert_eq!(made["text"], original["text"]);
        assert_eq!(
            made["target"]["channels"].as_array().unwrap().len(),
            2,
            "{made}"
        );
        assert_eq!(made["status"], "in_review");
    }
}

#[test]
fn bulk_actions_reach_every_ad_and_list_the_platforms_refusals() {
    let tg = connected(vec![]);
    let ads: Vec<i64> = (0..3).map(|_| tg.create(json!({}))).collect();
    for ad in &ads {
        tg.fake.approve(tg.id(), *ad);
    }
    let bulk = |body: serde_json::Value| {
        let queued = tg
            .app
            .write_ok("POST", "/campaigns/bulk", &tg.key, Some(&body), 202);
        tg.finish_task(&queued)
    };
    let done = bulk(
        json!({ "account_id": tg.cabinet, "action": "set_cpm", "cpm": "3.10", "ad_ids": ads }),
    );
    assert_eq!(done["succeeded"], 3, "{done}");
    for ad in &ads {
        assert_eq!(tg.fake.ad(tg.id(), *ad).unwrap()["cpm"].to_string(), "3.1");
    }
    let done =
        bulk(json!({ "account_id": tg.cabinet, "action": "withdraw_all_budget", "ad_ids": ads }));
    assert_eq!(
        done["failed"], 3,
        "ads that ran in the last 10 minutes keep their budget: {done}"
    );
    let error = done["errors"][0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("10 minutes"), "{done}");
    let done = bulk(json!({ "account_id": tg.cabinet, "action": "pause", "ad_ids": ads }));
    assert_eq!(done["succeeded"], 3, "{done}");
    tg.advance(11 * 60);
    let balance = tg.fake.balance(tg.id());
    let done = bulk(json!({ "account_id": tg.cabinet, "action": "delete", "ad_ids": ads }));
    assert_eq!(done["succeeded"], 3, "{done}");
    for ad in &ads {
        assert!(tg.fake.ad(tg.id(), *ad).is_none());
    }
    assert_ne!(tg.fake.balance(tg.id()), balance, "the budgets came back");
    assert_eq!(tg.fake.balance(tg.id()), "1000");
}
