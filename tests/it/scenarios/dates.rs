//! Scenarios of placements and start and end dates, run on both platforms: the placement a
//! create takes (the target type's own, one chosen where allowed, a pair refused before the
//! platform is asked), dates set, changed and removed, refused with their exact `param`,
//! delivery only between them, and a pause that keeps them in adcab while the platform
//! clears its own, sent again by a resume (alone or in a bulk action).

use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{json, Value};

use super::World;
use crate::helpers::campaign_body;

on_both!(
    a_placement_follows_the_target_type_or_is_chosen_where_the_platform_allows_it,
    dates_are_set_on_create_changed_and_removed_by_patch,
    dates_out_of_bounds_are_refused_with_their_param,
    a_campaign_delivers_only_between_its_start_and_its_end,
    a_pause_keeps_the_dates_and_a_resume_sends_them_again,
    a_campaign_made_switched_off_holds_its_dates_until_resumed,
);

/// `unix` as the API shows a date.
fn iso(unix: i64) -> String {
    chrono::DateTime::from_timestamp(unix, 0)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

impl World {
    /// The service time `minutes` ahead, on a whole minute.
    fn minutes_ahead(&self, minutes: i64) -> i64 {
        (self.app.now().timestamp().div_euclid(60) + minutes) * 60
    }

    /// The platform's own dates for `ad` on the fake (`activate_date`, `deactivate_date`);
    /// `None` on the simulator, whose dates are read through the API.
    fn platform_dates(&self, ad: i64) -> Option<(Value, Value)> {
        let (fake, account) = self.fake.as_ref()?;
        let a = fake.ad(&account.account_id, ad).unwrap();
        Some((a["activate_date"].clone(), a["deactivate_date"].clone()))
    }

    /// `POST /v1/campaigns` with the scenario campaign and `extra`, whatever the answer.
    fn create_raw(&self, extra: Value) -> crate::helpers::Resp {
        self.create_body(&campaign_body(self.cabinet, extra))
    }

    /// `POST /v1/campaigns` with `body` under a fresh Idempotency-Key, whatever the answer.
    fn create_body(&self, body: &Value) -> crate::helpers::Resp {
        static SENT: AtomicUsize = AtomicUsize::new(0);
        let key = format!("scenario-dates-{}", SENT.fetch_add(1, Ordering::Relaxed));
        let headers = [("Idempotency-Key", key.as_str())];
        self.app
            .send("POST", "/campaigns", &self.key, Some(body), &headers)
    }

    fn create_calls(&self) -> usize {
        self.fake
            .as_ref()
            .map_or(0, |(fake, _)| fake.call_count("createAd"))
    }
}

fn a_placement_follows_the_target_type_or_is_chosen_where_the_platform_allows_it(w: World) {
    let channels = w.create(json!({}));
    assert_eq!(w.campaign(channels)["placement"], "channel_post");
    let users = json!({
        "target_type": "users", "channels": null, "countries": ["DE"],
        "placement": "video_banner"
    });
    let users = w.create(users);
    assert_eq!(w.campaign(users)["placement"], "video_banner");
    if let Some((fake, account)) = &w.fake {
        assert_eq!(
            fake.ad(&account.account_id, users).unwrap()["placement"],
            "video_banner",
            "the platform was asked for it"
        );
    }
    let before = w.create_calls();
    let refused = w.create_raw(json!({ "placement": "video_banner" }));
    refused.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(refused.body["param"], "placement", "{}", refused.body);
    let unknown = w.create_raw(json!({ "placement": "story" }));
    unknown.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(unknown.body["param"], "placement");
    assert_eq!(
        w.create_calls(),
        before,
        "refused before the platform was asked"
    );
}

fn dates_are_set_on_create_changed_and_removed_by_patch(w: World) {
    let start = w.minutes_ahead(120);
    let end = start + 86_400;
    let ad = w.create(json!({ "starts_at": iso(start) }));
    let c = w.campaign(ad);
    assert_eq!(
        (&c["starts_at"], &c["ends_at"]),
        (&json!(iso(start)), &Value::Null)
    );
    w.approve(ad);
    assert_eq!(
        w.campaign(ad)["status"],
        "On Hold",
        "it waits for its start"
    );
    let body = json!({ "account_id": w.cabinet, "ends_at": iso(end) });
    let set = w.patch(ad, &body);
    assert_eq!(set.status, 200, "{}", set.body);
    assert_eq!(set.body["data"]["starts_at"], iso(start));
    assert_eq!(set.body["data"]["ends_at"], iso(end));
    if let Some(dates) = w.platform_dates(ad) {
        assert_eq!(dates, (json!(start), json!(end)));
    }
    let body = json!({ "account_id": w.cabinet, "starts_at": null });
    let cleared = w.patch(ad, &body);
    assert_eq!(cleared.status, 200, "{}", cleared.body);
    let c = w.campaign(ad);
    assert_eq!(
        (&c["starts_at"], &c["ends_at"]),
        (&Value::Null, &json!(iso(end)))
    );
    assert_eq!(c["status"], "Active", "without a start it runs");
    if let Some(dates) = w.platform_dates(ad) {
        assert_eq!(dates, (Value::Null, json!(end)), "only the start removed");
    }
    let body = json!({ "account_id": w.cabinet, "ends_at": null });
    assert_eq!(w.patch(ad, &body).status, 200);
    let c = w.campaign(ad);
    assert_eq!(
        (&c["starts_at"], &c["ends_at"]),
        (&Value::Null, &Value::Null)
    );
    if let Some(dates) = w.platform_dates(ad) {
        assert_eq!(dates, (Value::Null, Value::Null));
    }
}

fn dates_out_of_bounds_are_refused_with_their_param(w: World) {
    let before = w.create_calls();
    let past = iso(w.minutes_ahead(-5));
    let far = iso(w.minutes_ahead(366 * 24 * 60));
    let start = w.minutes_ahead(120);
    for (extra, param) in [
        (json!({ "starts_at": past }), "starts_at"),
        (json!({ "ends_at": far }), "ends_at"),
        (json!({ "starts_at": "2030-01-01T10:00:30Z" }), "starts_at"),
        (json!({ "starts_at": "tomorrow" }), "starts_at"),
        (
            json!({ "starts_at": iso(start), "ends_at": iso(start - 60) }),
            "ends_at",
        ),
    ] {
        let r = w.create_raw(extra.clone());
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(r.body["param"], param, "{extra}: {}", r.body);
    }
    let many = json!({
        "account_id": w.cabinet,
        "campaigns": [
            campaign_body(w.cabinet, json!({ "account_id": null })),
            campaign_body(w.cabinet, json!({ "account_id": null, "ends_at": past })),
        ]
    });
    let r = w.create_body(&many);
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["param"], "campaigns[1].ends_at", "{}", r.body);
    assert_eq!(w.create_calls(), before, "nothing reached the platform");
    let ad = w.create(json!({ "ends_at": iso(start + 3600) }));
    let body = json!({ "account_id": w.cabinet, "starts_at": iso(start + 7200) });
    let r = w.patch(ad, &body);
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        r.body["param"], "starts_at",
        "a start after the kept end: {}",
        r.body
    );
    let body = json!({ "account_id": w.cabinet, "ends_at": past });
    let r = w.patch(ad, &body);
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["param"], "ends_at");
    assert_eq!(
        w.campaign(ad)["ends_at"],
        iso(start + 3600),
        "nothing changed"
    );
}

fn a_campaign_delivers_only_between_its_start_and_its_end(w: World) {
    let start = w.minutes_ahead(90);
    let end = start + 3 * 3600;
    let dates = json!({ "cpm": "5", "budget": "50", "starts_at": iso(start), "ends_at": iso(end) });
    let ad = w.create(dates);
    w.approve(ad);
    w.advance(3600, 400);
    let waiting = w.campaign(ad);
    assert_eq!(waiting["status"], "On Hold", "{waiting}");
    assert_eq!(waiting["views"], 0, "nothing before the start");
    w.advance(3600, 400);
    w.advance(3600, 400);
    let running = w.campaign(ad);
    assert_eq!(running["status"], "Active", "{running}");
    assert!(running["views"].as_i64().unwrap() > 0, "{running}");
    w.advance(3 * 3600, 400);
    let ended = w.campaign(ad);
    assert_eq!(ended["status"], "Stopped", "{ended}");
    w.advance(3600, 400);
    let after = w.campaign(ad);
    assert_eq!(after["views"], ended["views"], "nothing after the end");
    assert_eq!(after["spent"], ended["spent"]);
}

fn a_pause_keeps_the_dates_and_a_resume_sends_them_again(w: World) {
    let start = w.minutes_ahead(120);
    let end = start + 86_400;
    let ad = w.create(json!({ "starts_at": iso(start), "ends_at": iso(end) }));
    w.approve(ad);
    let shown = |c: &Value| (c["starts_at"].clone(), c["ends_at"].clone());
    let kept = (json!(iso(start)), json!(iso(end)));
    let on_platform = (json!(start), json!(end));
    if let Some(dates) = w.platform_dates(ad) {
        assert_eq!(dates, on_platform);
    }
    let paused = w.post(&format!("/campaigns/{ad}/pause"));
    assert_eq!(paused["data"]["active"], false, "{paused}");
    assert_eq!(shown(&paused["data"]), kept, "adcab keeps them");
    if let Some(dates) = w.platform_dates(ad) {
        assert_eq!(
            dates,
            (Value::Null, Value::Null),
            "the platform cleared its own"
        );
    }
    let resumed = w.post(&format!("/campaigns/{ad}/resume"));
    assert_eq!(resumed["data"]["active"], true, "{resumed}");
    assert_eq!(
        resumed["data"]["status"], "On Hold",
        "waiting for its start again"
    );
    assert_eq!(shown(&resumed["data"]), kept);
    if let Some(dates) = w.platform_dates(ad) {
        assert_eq!(dates, on_platform, "sent again with the resume");
    }
    for action in ["pause", "resume"] {
        let body = json!({ "account_id": w.cabinet, "action": action, "ad_ids": [ad] });
        let queued = w
            .app
            .write_ok("POST", "/campaigns/bulk", &w.key, Some(&body), 202);
        assert_eq!(w.task(queued)["succeeded"], 1);
        assert_eq!(shown(&w.campaign(ad)), kept, "after a bulk {action}");
    }
    if let Some(dates) = w.platform_dates(ad) {
        assert_eq!(dates, on_platform, "a bulk resume sends them again too");
    }
    assert_eq!(w.campaign(ad)["active"], true);
}

fn a_campaign_made_switched_off_holds_its_dates_until_resumed(w: World) {
    let start = w.minutes_ahead(120);
    let end = start + 3600;
    let body = json!({ "active": false, "starts_at": iso(start), "ends_at": iso(end) });
    let ad = w.create(body);
    w.approve(ad);
    let held = w.campaign(ad);
    assert_eq!(
        (held["active"].as_bool(), held["status"].as_str()),
        (Some(false), Some("On Hold"))
    );
    assert_eq!(held["starts_at"], iso(start), "{held}");
    if let Some(dates) = w.platform_dates(ad) {
        assert_eq!(
            dates,
            (Value::Null, Value::Null),
            "a date would have started it"
        );
    }
    let resumed = w.post(&format!("/campaigns/{ad}/resume"));
    assert_eq!(resumed["data"]["active"], true, "{resumed}");
    assert_eq!(resumed["data"]["ends_at"], iso(end));
    if let Some(dates) = w.platform_dates(ad) {
        assert_eq!(dates, (json!(start), json!(end)), "sent with the resume");
    }
    // Past the end, and past the next hour the sync reports.
    w.advance(4 * 3600, 0);
    assert_eq!(
        w.campaign(ad)["status"],
        "Stopped",
        "it ended at its end date"
    );
}
