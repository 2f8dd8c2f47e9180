//! Scenarios of the HTTP API written once and run on both platforms: the built-in simulator
//! and the Telegram Ads connector against the fake Telegram Ads API. Each scenario is a
//! function of a `World` (a server, a Manage key, one euro cabinet with 1000 on it, and the
//! platform's own controls: review, delivery, the clock); `on_both!` makes a test of it for
//! each platform.

use adcab::domain::access::Plan;
use adcab::ops::{self, NewKey};
use adcab::platform::PlatformKind;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};
use crate::telegram::{advance_service, spawn_on, FakeAccount, FakePromote};

/// A server with one euro cabinet holding 1000, on one platform.
struct World {
    app: TestApp,
    key: String,
    cabinet: i64,
    /// The fake platform and the cabinet's account on it, when on the connector.
    fake: Option<(FakePromote, FakeAccount)>,
}

impl World {
    fn sim() -> World {
        let app = spawn_app();
        let (_, cabinet, key) = app.manager();
        World {
            app,
            key,
            cabinet,
            fake: None,
        }
    }

    fn telegram() -> World {
        let fake = FakePromote::start();
        let account = fake.add_account("EUR", "Scenario EUR", "1000", false);
        let app = spawn_on(&fake);
        assert_eq!(app.services.config.platform.kind, PlatformKind::Telegram);
        let user = ops::user_add(&app.services, "scenario@example.com", Plan::Pro)
            .unwrap()
            .id;
        let cabinet = ops::cabinet_connect(&app.services, user, &account.token, false)
            .unwrap()
            .cabinets[0]
            .id;
        let key = app.key_with(NewKey {
            user,
            manage: true,
            ..NewKey::default()
        });
        World {
            app,
            key,
            cabinet,
            fake: Some((fake, account)),
        }
    }

    /// The platform's review approves the ad; the copy is re-read.
    fn approve(&self, ad: i64) {
        match &self.fake {
            None => {
                ops::sim_review(&self.app.services, self.cabinet, ad, true, None).unwrap();
            }
            Some((fake, account)) => {
                fake.approve(&account.account_id, ad);
                adcab::ops::write_back::reread(&self.app.services, self.cabinet, ad)
                    .unwrap()
                    .unwrap();
            }
        }
    }

    /// The platform's review declines the ad for misleading claims, with its longer
    /// explanation; the copy is re-read.
    fn decline(&self, ad: i64) {
        match &self.fake {
            None => {
                let reason = Some("Misleading claims");
                ops::sim_review(&self.app.services, self.cabinet, ad, false, reason).unwrap();
            }
            Some((fake, account)) => {
                let html = "<p>The ad promises <b>income</b> it cannot guarantee.</p>";
                fake.decline_explained(&account.account_id, ad, "Misleading claims", html);
                adcab::ops::write_back::reread(&self.app.services, self.cabinet, ad)
                    .unwrap()
                    .unwrap();
            }
        }
    }

    /// Moves the platform's time and the service clock; the scheduler catches up. On the
    /// connector, each running ad gets `views` impressions first (the simulator delivers by
    /// itself as time passes).
    fn advance(&self, seconds: i64, views: i64) {
        match &self.fake {
            None => self.app.advance(seconds),
            Some((fake, account)) => {
                for ad in self.ads() {
                    fake.deliver(&account.account_id, ad, views);
                }
                fake.advance(seconds);
                advance_service(&self.app.services, seconds);
                self.app.settle();
            }
        }
    }

    fn ads(&self) -> Vec<i64> {
        let list = self.app.get_ok(
            &format!("/campaigns?account_id={}", self.cabinet),
            &self.key,
        );
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["ad_id"].as_i64().unwrap())
            .collect()
    }

    fn create(&self, extra: Value) -> i64 {
        self.app.create_through_api(&self.key, self.cabinet, extra)
    }

    fn task(&self, queued: Value) -> Value {
        self.app.finish_task(&queued, &self.key)
    }

    fn campaign(&self, ad: i64) -> Value {
        self.app.get_ok(
            &format!("/campaigns/{ad}?account_id={}", self.cabinet),
            &self.key,
        )["data"]
            .clone()
    }

    fn post(&self, path: &str) -> Value {
        let sep = if path.contains('?') { '&' } else { '?' };
        self.app.write_ok(
            "POST",
            &format!("{path}{sep}account_id={}", self.cabinet),
            &self.key,
            None,
            200,
        )
    }

    /// `PATCH /v1/campaigns/{ad}` with `body`, whatever the answer.
    fn patch(&self, ad: i64, body: &Value) -> crate::helpers::Resp {
        self.app.send(
            "PATCH",
            &format!("/campaigns/{ad}"),
            &self.key,
            Some(body),
            &[],
        )
    }

    /// An approved campaign (bid 5, budget 50) that delivered up to two minutes past the
    /// next whole hour, which the scheduler has synced.
    fn delivered(&self) -> i64 {
        let ad = self.create(json!({ "cpm": "5", "budget": "50" }));
        self.approve(ad);
        let into_hour = self.app.now().timestamp().rem_euclid(3600);
        self.advance(3600 - into_hour + 120, 400);
        ad
    }

    fn balance(&self) -> String {
        self.app.get_ok("/account/info", &self.key)["data"][0]["balance"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

macro_rules! on_both {
    ($($scenario:ident),* $(,)?) => {
        $(
            mod $scenario {
                #[test]
                fn on_the_simulator() {
                    super::$scenario(super::World::sim());
                }

                #[test]
                fn on_the_telegram_connector() {
                    super::$scenario(super::World::telegram());
                }
            }
        )*
    };
}

on_both!(
    a_new_campaign_is_in_review_until_approved_then_active,
    pause_and_resume_switch_the_campaign_and_a_repeat_is_already_set,
    a_budget_top_up_moves_money_once_per_key,
    an_edit_of_the_text_sends_the_campaign_back_to_review,
    a_paused_campaign_is_deleted_and_a_second_delete_is_not_found,
    a_copy_makes_new_campaigns_in_review,
    bulk_pause_reaches_every_campaign,
    bad_input_is_refused_before_the_platform_is_asked,
    a_delivered_hour_shows_in_the_stats,
    a_schedule_is_set_and_removed,
    a_withdrawal_after_ten_quiet_minutes_returns_the_money,
    bulk_set_cpm_changes_every_bid,
    an_upload_is_usable_on_a_new_campaign,
    the_history_of_a_delivered_campaign_has_its_views,
    sync_now_counts_every_campaign_and_changes_nothing_twice,
    the_list_filters_by_link_and_type,
    the_day_total_adds_up_the_cabinet,
    a_declined_campaign_shows_why_until_an_edit_sends_it_back_to_review,
);

fn a_new_campaign_is_in_review_until_approved_then_active(w: World) {
    let ad = w.create(json!({}));
    let c = w.campaign(ad);
    assert_eq!(c["status"], "In Review", "{c}");
    assert_eq!(c["budget"], "20.00");
    assert_eq!(c["cpm"], "2.50");
    w.approve(ad);
    assert_eq!(w.campaign(ad)["status"], "Active");
    assert_eq!(w.balance(), "980.00");
}

fn pause_and_resume_switch_the_campaign_and_a_repeat_is_already_set(w: World) {
    let ad = w.create(json!({}));
    w.approve(ad);
    let paused = w.post(&format!("/campaigns/{ad}/pause"));
    assert_eq!(paused["data"]["status"], "On Hold");
    assert_eq!(paused["data"]["active"], false);
    let again = w.post(&format!("/campaigns/{ad}/pause"));
    assert_eq!(again["meta"]["already_set"], true, "{again}");
    let resumed = w.post(&format!("/campaigns/{ad}/resume"));
    assert_eq!(resumed["data"]["status"], "Active");
    assert_eq!(resumed["data"]["active"], true);
}

fn a_budget_top_up_moves_money_once_per_key(w: World) {
    let ad = w.create(json!({}));
    let body = json!({ "account_id": w.cabinet, "action": "add", "amount": "7.50" });
    let path = format!("/campaigns/{ad}/budget");
    let headers = [("Idempotency-Key", "scenario-top-up-1")];
    let first = w.app.send("POST", &path, &w.key, Some(&body), &headers);
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.body["data"]["budget"], "27.50");
    let again = w.app.send("POST", &path, &w.key, Some(&body), &headers);
    assert_eq!(again.body, first.body, "the same answer again");
    assert_eq!(w.campaign(ad)["budget"], "27.50");
    assert_eq!(w.balance(), "972.50", "moved once");
}

fn an_edit_of_the_text_sends_the_campaign_back_to_review(w: World) {
    let ad = w.create(json!({}));
    w.approve(ad);
    let body = json!({ "account_id": w.cabinet, "text": "A new text" });
    let edited = w.patch(ad, &body);
    assert_eq!(edited.status, 200, "{}", edited.body);
    assert_eq!(edited.body["data"]["status"], "In Review");
    assert_eq!(edited.body["data"]["text"], "A new text");
}

fn a_paused_campaign_is_deleted_and_a_second_delete_is_not_found(w: World) {
    let ad = w.create(json!({}));
    w.approve(ad);
    w.post(&format!("/campaigns/{ad}/pause"));
    // The real platform deletes only after 10 minutes without delivery.
    w.advance(11 * 60, 0);
    let path = format!("/campaigns/{ad}?account_id={}", w.cabinet);
    let deleted = w.app.call_with_key("DELETE", &path, &w.key);
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    assert_eq!(deleted.body["data"]["deleted"], true);
    w.app
        .call_with_key("DELETE", &path, &w.key)
        .assert_error(404, "CAMPAIGN_NOT_FOUND");
    assert_eq!(w.balance(), "1000.00", "its budget came back");
}

fn a_copy_makes_new_campaigns_in_review(w: World) {
    let ad = w.create(json!({ "title": "Original" }));
    let body = json!({ "account_id": w.cabinet, "copies": 2, "title": "Copy" });
    let queued = w.app.write_ok(
        "POST",
        &format!("/campaigns/{ad}/copy"),
        &w.key,
        Some(&body),
        202,
    );
    let done = w.task(queued);
    assert_eq!(done["status"], "completed", "{done}");
    let copies: Vec<i64> = serde_json::from_value(done["ad_ids"].clone()).unwrap();
    assert_eq!(copies.len(), 2);
    for copy in copies {
        let c = w.campaign(copy);
        assert_eq!(c["title"], "Copy");
        assert_eq!(c["status"], "In Review");
        assert_eq!(
            c["targeting"],
            w.campaign(ad)["targeting"],
            "targeting kept"
        );
    }
}

fn bulk_pause_reaches_every_campaign(w: World) {
    let ads: Vec<i64> = (0..2).map(|_| w.create(json!({}))).collect();
    for ad in &ads {
        w.approve(*ad);
    }
    let body = json!({ "account_id": w.cabinet, "action": "pause", "ad_ids": ads });
    let done = w.task(
        w.app
            .write_ok("POST", "/campaigns/bulk", &w.key, Some(&body), 202),
    );
    assert_eq!(done["succeeded"], 2, "{done}");
    for ad in &ads {
        assert_eq!(w.campaign(*ad)["status"], "On Hold");
    }
}

fn bad_input_is_refused_before_the_platform_is_asked(w: World) {
    let ad = w.create(json!({}));
    let before = w.campaign(ad);
    let body = json!({ "account_id": w.cabinet, "cpm": "0" });
    let r = w.patch(ad, &body);
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["param"], "cpm");
    let body = json!({ "account_id": w.cabinet, "title": "x", "colour": "red" });
    let r = w.patch(ad, &body);
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(w.campaign(ad)["title"], before["title"], "nothing changed");
    if let Some((fake, account)) = &w.fake {
        assert_eq!(
            fake.ad(&account.account_id, ad).unwrap()["title"],
            "Scenario"
        );
    }
}

fn a_delivered_hour_shows_in_the_stats(w: World) {
    let ad = w.delivered();
    let stats = w.app.get_ok("/stats?period=all", &w.key);
    let line = &stats["data"][w.cabinet.to_string()][ad.to_string()];
    let views = line["views"].as_i64().unwrap_or(0);
    assert!(views > 0, "{stats}");
    let spent = line["spent"].as_f64().unwrap_or(0.0);
    assert!(spent > 0.0, "{stats}");
    let lifetime = w.campaign(ad)["views"].as_i64().unwrap();
    assert!(
        views <= lifetime,
        "closed hours hold no more than the lifetime count"
    );
}

fn a_schedule_is_set_and_removed(w: World) {
    let ad = w.create(json!({}));
    w.approve(ad);
    let schedule = json!({ "days": { "mon": [9, 10], "fri": [18] }, "timezone": "+02:00" });
    let body = json!({ "account_id": w.cabinet, "schedule": schedule });
    let set = w.patch(ad, &body);
    assert_eq!(set.status, 200, "{}", set.body);
    let shown = &w.campaign(ad)["schedule"];
    assert_eq!(shown["days"]["mon"], json!([9, 10]), "{shown}");
    assert_eq!(shown["days"]["fri"], json!([18]));
    assert_eq!(shown["timezone"], "+02:00");
    let body = json!({ "account_id": w.cabinet, "schedule": null });
    let cleared = w.patch(ad, &body);
    assert_eq!(cleared.status, 200, "{}", cleared.body);
    assert_eq!(w.campaign(ad)["schedule"], Value::Null);
}

fn a_withdrawal_after_ten_quiet_minutes_returns_the_money(w: World) {
    let ad = w.create(json!({}));
    w.approve(ad);
    w.post(&format!("/campaigns/{ad}/pause"));
    w.advance(11 * 60, 0);
    let body = json!({ "account_id": w.cabinet, "action": "withdraw", "amount": "5" });
    let headers = [("Idempotency-Key", "scenario-withdraw-1")];
    let r = w.app.send(
        "POST",
        &format!("/campaigns/{ad}/budget"),
        &w.key,
        Some(&body),
        &headers,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["data"]["budget"], "15.00");
    assert_eq!(w.balance(), "985.00");
}

fn bulk_set_cpm_changes_every_bid(w: World) {
    let ads: Vec<i64> = (0..2).map(|_| w.create(json!({}))).collect();
    let body =
        json!({ "account_id": w.cabinet, "action": "set_cpm", "cpm": "3.10", "ad_ids": ads });
    let done = w.task(
        w.app
            .write_ok("POST", "/campaigns/bulk", &w.key, Some(&body), 202),
    );
    assert_eq!(done["succeeded"], 2, "{done}");
    for ad in &ads {
        assert_eq!(w.campaign(*ad)["cpm"], "3.10");
    }
}

fn an_upload_is_usable_on_a_new_campaign(w: World) {
    use crate::media::{multipart, upload, PNG};
    let (ct, body) = multipart("file", "banner.png", PNG);
    let query = format!("?account_id={}", w.cabinet);
    let r = upload(&w.app, &w.key, &query, &ct, &body);
    assert_eq!(r.status, 200, "{}", r.body);
    let token = r.body["data"]["media"].as_str().unwrap().to_string();
    let ad = w.create(json!({ "media": token }));
    let c = w.campaign(ad);
    assert_eq!(c["has_media"], true, "{c}");
}

fn the_history_of_a_delivered_campaign_has_its_views(w: World) {
    let ad = w.delivered();
    let h = w.app.get_ok(
        &format!(
            "/campaigns/{ad}/history?account_id={}&period=24h",
            w.cabinet
        ),
        &w.key,
    );
    assert!(h["data"]["views"].as_i64().unwrap_or(0) > 0, "{h}");
    assert_eq!(h["meta"]["adId"], ad);
}

fn sync_now_counts_every_campaign_and_changes_nothing_twice(w: World) {
    for _ in 0..2 {
        w.create(json!({}));
    }
    let first = ops::cabinet_sync(&w.app.services, w.cabinet).unwrap();
    assert_eq!(first.campaigns, 2);
    let second = ops::cabinet_sync(&w.app.services, w.cabinet).unwrap();
    assert_eq!((second.campaigns, second.changed), (2, 0));
}

fn the_list_filters_by_link_and_type(w: World) {
    let channel = w.create(json!({}));
    let bot = w.create(json!({
        "promote_url": "https://t.me/shop_helper_bot?start=spring", "target_type": "bots",
        "bots": ["@shop_helper_bot"], "channels": null
    }));
    let q = |query: &str| -> Vec<i64> {
        let list = w.app.get_ok(
            &format!("/campaigns?account_id={}&{query}", w.cabinet),
            &w.key,
        );
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["ad_id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(q("type=bot"), vec![bot]);
    assert_eq!(q("type=channel"), vec![channel]);
    assert_eq!(q("bot_username=alpha_chan"), vec![channel]);
    assert_eq!(q("bot_username=SHOP_HELPER_BOT"), vec![bot]);
}

fn the_day_total_adds_up_the_cabinet(w: World) {
    let ad = w.delivered();
    let total = w.app.get_ok("/stats/total?period=1d", &w.key);
    let stats = w.app.get_ok("/stats?period=1d", &w.key);
    let line = &stats["data"][w.cabinet.to_string()][ad.to_string()];
    let cabinet = &total["data"][w.cabinet.to_string()];
    assert!(line["views"].as_i64().unwrap_or(0) > 0, "{stats}");
    assert_eq!(cabinet["views"], line["views"], "{total}");
}

fn a_declined_campaign_shows_why_until_an_edit_sends_it_back_to_review(w: World) {
    let ad = w.create(json!({}));
    assert_eq!(w.campaign(ad)["decline_reason"], Value::Null, "in review");
    w.decline(ad);
    let c = w.campaign(ad);
    assert_eq!(c["status"], "Declined", "{c}");
    let reason = c["decline_reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("Misleading claims — The ad promises "),
        "the reason, then its explanation as plain text: {c}"
    );
    assert!(!reason.contains('<'), "no markup: {reason}");
    let body = json!({ "account_id": w.cabinet, "text": "An honest text" });
    let edited = w.patch(ad, &body);
    assert_eq!(edited.status, 200, "{}", edited.body);
    assert_eq!(edited.body["data"]["status"], "In Review");
    assert_eq!(edited.body["data"]["decline_reason"], Value::Null);
    assert_eq!(w.campaign(ad)["decline_reason"], Value::Null, "cleared");
}

/// A campaign's Auto CPM decisions, oldest first.
fn auto_cpm_decisions(w: &World, ad: i64) -> Vec<adcab::store::auto_cpm::Decided> {
    let account = w.cabinet;
    w.app
        .services
        .db
        .read_blocking(|c| adcab::store::auto_cpm::log(c, account, ad))
        .unwrap()
}

/// `n` hours on, the scheduler syncing (and running automation) after each; on the connector
/// each running ad gets 200 views first.
fn hours(w: &World, n: i64) {
    w.advance(n * 3600, 200);
}

/// Telegram sends a funded ad back to review when its bid is edited: Auto CPM never edits a bid
/// in review, waits for a day of delivery after the review before the next edit, and logs the
/// time each edit spent in review. The simulator reviews no bid edit: its cooldown stays 6 hours.
#[test]
fn auto_cpm_waits_out_each_bid_edits_review_and_a_day_of_delivery_on_the_connector() {
    let w = World::telegram();
    let ad = w.delivered();
    let pace = json!({"account_id": w.cabinet, "auto_cpm": {"enabled": true, "goal": "pace",
        "target": "1000", "min_cpm": "1", "max_cpm": "40"}});
    assert_eq!(w.patch(ad, &pace).status, 200);
    let edits = || {
        auto_cpm_decisions(&w, ad)
            .into_iter()
            .filter(|d| d.to.is_some())
            .collect::<Vec<_>>()
    };
    hours(&w, 23);
    assert!(edits().is_empty(), "no edit before a day of delivery");
    hours(&w, 2);
    assert_eq!(
        edits().len(),
        1,
        "a day of far too little spend raises the bid"
    );
    assert_eq!(
        w.campaign(ad)["status"],
        "In Review",
        "the edit is under review"
    );
    hours(&w, 10);
    assert_eq!(edits().len(), 1, "no edit while in review");
    w.approve(ad);
    hours(&w, 1);
    let minutes = edits()[0]
        .review_minutes
        .expect("the review's length is logged");
    assert!((540..=660).contains(&minutes), "about ten hours: {minutes}");
    let owner: i64 = w
        .app
        .scalar("SELECT owner_id FROM cabinets WHERE id = ?1", &[w.cabinet]);
    let page = crate::web::logged_in(&w.app, owner)
        .get(&format!("/campaigns/{}/{ad}", w.cabinet))
        .body;
    let shown = format!("{:.1} h in review", minutes as f64 / 60.0);
    assert!(page.contains(&shown), "the Auto CPM card shows {shown}");
    hours(&w, 22);
    assert_eq!(edits().len(), 1, "a day of delivery after the review first");
    hours(&w, 2);
    assert_eq!(edits().len(), 2, "then the next edit");
}

#[test]
fn auto_cpm_keeps_its_six_hour_cooldown_where_bid_edits_are_not_reviewed() {
    let w = World::sim();
    let ad = w.delivered();
    let pace = json!({"account_id": w.cabinet, "auto_cpm": {"enabled": true, "goal": "pace",
        "target": "1000", "min_cpm": "1", "max_cpm": "40"}});
    assert_eq!(w.patch(ad, &pace).status, 200);
    hours(&w, 7);
    let decided = auto_cpm_decisions(&w, ad);
    assert!(decided.iter().any(|d| d.to.is_some()), "{decided:?}");
    assert!(decided.iter().all(|d| d.review_minutes.is_none()));
    assert_eq!(w.campaign(ad)["status"], "Active", "no review");
}

on_both!(a_bid_rule_is_warned_of_review_where_bid_edits_are_reviewed);

fn a_bid_rule_is_warned_of_review_where_bid_edits_are_reviewed(w: World) {
    let ad = w.delivered();
    let body = json!({
        "name": "Cheaper",
        "account_id": w.cabinet,
        "scope": {"ad_ids": [ad]},
        "conditions": [{"metric": "views", "op": ">", "value": 0, "window_hours": 1}],
        "action": {"type": "set_cpm", "cpm": "4"},
        "cooldown_hours": 24,
        "max_runs_per_day": 1,
    });
    let rule = w.app.write_ok("POST", "/rules", &w.key, Some(&body), 200)["data"].clone();
    let path = format!("/rules/{}/preview", rule["id"]);
    let preview = w.app.write_ok("POST", &path, &w.key, None, 200)["data"].clone();
    let reviews = w.fake.is_some();
    let acting = preview["evaluations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["outcome"] == "would_act")
        .cloned()
        .unwrap_or_else(|| panic!("the rule would act: {preview}"));
    if reviews {
        let warning = preview["review_warning"].as_str().unwrap_or_default();
        assert!(
            warning.contains("back to the platform's review"),
            "{preview}"
        );
        assert_eq!(acting["warning"], preview["review_warning"]);
    } else {
        assert_eq!(preview["review_warning"], Value::Null);
        assert_eq!(acting["warning"], Value::Null);
    }
    hours(&w, 1);
    let log = w.app.get_ok(&format!("/rules/{}/log", rule["id"]), &w.key)["data"].clone();
    let acted = log
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["outcome"] == "acted")
        .cloned()
        .unwrap_or_else(|| panic!("the rule acted: {log}"));
    assert_eq!(acted["warning"].is_string(), reviews, "{acted}");
}

mod dates;
mod recreate;
mod rule_actions;
mod targeting;
