//! Scenarios of full targeting, run on both platforms: a `users` campaign with cities (by
//! name and by id), device, intersect_topics, exclude_channels and political_channels, read
//! back and carried by a copy and a recreate; a `channels` campaign leaving channels out; what the platform
//! received; the refusals with their exact `param`; and the cities look-up.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{json, Value};

use super::World;
use crate::helpers::campaign_body;

on_both!(
    a_users_campaign_takes_full_targeting_and_a_copy_carries_it,
    a_recreate_carries_full_targeting,
    a_channels_campaign_leaves_out_the_channels_it_excludes,
    targeting_out_of_bounds_is_refused_with_its_param,
    cities_are_looked_up_in_one_country,
);

/// The full `users` targeting the scenarios send: Berlin by name, Munich by id.
fn full_users() -> Value {
    json!({
        "target_type": "users", "channels": null, "countries": ["DE"],
        "cities": ["Berlin", 302], "device": "ios", "topics": [1],
        "intersect_topics": true, "exclude_channels": ["@spam_news"],
        "political_channels": "exclude"
    })
}

impl World {
    /// `POST /v1/campaigns` with the scenario campaign and `extra`, whatever the answer.
    fn try_create(&self, extra: Value) -> crate::helpers::Resp {
        static SENT: AtomicUsize = AtomicUsize::new(0);
        let key = format!(
            "scenario-targeting-{}",
            SENT.fetch_add(1, Ordering::Relaxed)
        );
        let headers = [("Idempotency-Key", key.as_str())];
        let body = campaign_body(self.cabinet, extra);
        self.app
            .send("POST", "/campaigns", &self.key, Some(&body), &headers)
    }

    /// The target the fake platform holds for `ad`; `None` on the simulator.
    fn platform_target(&self, ad: i64) -> Option<Value> {
        let (fake, account) = self.fake.as_ref()?;
        Some(fake.ad(&account.account_id, ad).unwrap()["target"].clone())
    }
}

fn a_users_campaign_takes_full_targeting_and_a_copy_carries_it(w: World) {
    let ad = w.create(full_users());
    let t = w.campaign(ad)["targeting"].clone();
    assert_eq!(t["countries"], json!(["DE"]), "{t}");
    assert_eq!(
        t["cities"],
        json!([301, 302]),
        "names read back as ids: {t}"
    );
    assert_eq!(t["device"], "ios");
    assert_eq!(t["intersect_topics"], true);
    assert_eq!(t["exclude_channels"], json!(["@spam_news"]));
    assert_eq!(t["political_channels"], "exclude");
    if let Some(target) = w.platform_target(ad) {
        let ids: Vec<i64> = target["locations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["location_id"].as_i64().unwrap())
            .collect();
        assert_eq!(ids, vec![301, 302], "{target}");
        assert_eq!(target["device"], "ios");
        assert_eq!(target["intersect_topics"], true);
        assert_eq!(target["exclude_political_channels"], true);
        assert_eq!(target["political_channels_only"], false);
        assert_eq!(target["exclude_channels"][0]["username"], "spam_news");
    }
    let body = json!({ "account_id": w.cabinet, "copies": 1 });
    let queued = w.app.write_ok(
        "POST",
        &format!("/campaigns/{ad}/copy"),
        &w.key,
        Some(&body),
        202,
    );
    let done = w.task(queued);
    assert_eq!(done["status"], "completed", "{done}");
    let copy = done["ad_ids"][0].as_i64().unwrap();
    assert_eq!(w.campaign(copy)["targeting"], t, "the copy carries it");
    if let Some(target) = w.platform_target(copy) {
        assert_eq!(target["device"], "ios", "{target}");
        assert_eq!(target["locations"].as_array().unwrap().len(), 2);
    }
}

fn a_recreate_carries_full_targeting(w: World) {
    let old = w.create(full_users());
    let before = w.campaign(old)["targeting"].clone();
    w.advance(11 * 60, 0);
    w.decline(old);
    let body = json!({ "account_id": w.cabinet, "text": "An honest text" });
    let headers = [("Idempotency-Key", "scenario-targeting-recreate")];
    let r = w.app.send(
        "POST",
        &format!("/campaigns/{old}/recreate"),
        &w.key,
        Some(&body),
        &headers,
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let done = w.task(r.body);
    assert_eq!(done["succeeded"], 1, "{done}");
    let new = done["ad_ids"][0].as_i64().unwrap();
    assert_eq!(
        w.campaign(new)["targeting"],
        before,
        "the new one carries it"
    );
    if let Some(target) = w.platform_target(new) {
        assert_eq!(target["political_channels_only"], false, "{target}");
        assert_eq!(target["exclude_political_channels"], true);
        assert_eq!(target["locations"].as_array().unwrap().len(), 2);
    }
}

fn a_channels_campaign_leaves_out_the_channels_it_excludes(w: World) {
    let ad = w.create(json!({ "exclude_channels": ["@spam_news"] }));
    let t = w.campaign(ad)["targeting"].clone();
    assert_eq!(t["exclude_channels"], json!(["@spam_news"]), "{t}");
    if let Some(target) = w.platform_target(ad) {
        assert_eq!(target["exclude_channels"][0]["username"], "spam_news");
    }
}

fn targeting_out_of_bounds_is_refused_with_its_param(w: World) {
    let refused = |extra: Value, param: &str| {
        let mut body = full_users();
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        let r = w.try_create(body);
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(r.body["param"], param, "{}", r.body);
    };
    let many: Vec<i64> = (0..21).collect();
    refused(json!({ "cities": many }), "cities");
    refused(json!({ "countries": ["DE", "FR"] }), "countries");
    refused(json!({ "countries": [] }), "countries");
    refused(json!({ "cities": ["Berlin", ""] }), "cities[1]");
    refused(json!({ "device": "tablet" }), "device");
    refused(
        json!({ "political_channels": "some" }),
        "political_channels",
    );
    refused(json!({ "intersect_topics": "yes" }), "intersect_topics");
    let r = w.try_create(json!({ "add_similar_channels": true }));
    match &w.fake {
        Some(_) => {
            r.assert_error(400, "VALIDATION_ERROR");
            assert_eq!(r.body["param"], "add_similar_channels", "{}", r.body);
        }
        None => assert_eq!(r.status, 202, "the simulator adds similar channels"),
    }
    // A city of another country than the one listed: the platform finds none of it there.
    let queued = w.try_create(json!({
        "target_type": "users", "channels": null, "countries": ["DE"], "cities": ["Berlin", 501]
    }));
    assert_eq!(queued.status, 202, "{}", queued.body);
    let done = w.task(queued.body);
    assert_eq!(
        (done["succeeded"].clone(), done["failed"].clone()),
        (json!(0), json!(1))
    );
    let error = done["errors"][0]["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("501 is not a city of DE"), "{done}");
}

fn cities_are_looked_up_in_one_country(w: World) {
    let found = w.app.get_ok("/targeting/cities?country=de&q=ber", &w.key)["data"].clone();
    assert_eq!(
        found,
        json!([{ "id": 301, "name": "Berlin", "country": "DE" }])
    );
    let none = w.app.get_ok("/targeting/cities?country=FR&q=ber", &w.key)["data"].clone();
    assert_eq!(none, json!([]));
    let r = w.app.send(
        "GET",
        "/targeting/cities?country=XX&q=ber",
        &w.key,
        None,
        &[],
    );
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["param"], "country");
    let r = w
        .app
        .send("GET", "/targeting/cities?country=DE", &w.key, None, &[]);
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["param"], "q");
}
