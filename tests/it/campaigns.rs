//! `GET /v1/campaigns` (filters, cursor and offset pages) and `GET /v1/campaigns/{ad_id}` (the
//! full object, ambiguity across cabinets, the five-minute freshness rule).

use std::collections::HashSet;

use crate::helpers::{printed, spawn_app, Camp, TestApp};
use adcab::ops;
use adcab::platform::sim::Fault;
use serde_json::Value;

fn ids(body: &Value) -> Vec<i64> {
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["ad_id"].as_i64().unwrap())
        .collect()
}

/// One cabinet with a bot, a mini-app, two channels (one a post), and three websites.
fn catalogue(app: &TestApp) -> (i64, String) {
    let (_, cabinet, key) = app.owner_with_cabinet("pro");
    for (title, url, site) in [
        (
            "Shop bot spring",
            "https://t.me/ShopHelperBot?start=spring",
            false,
        ),
        ("Game app", "https://t.me/gamezone/play?startapp=x", false),
        ("News channel", "https://t.me/dailynews", false),
        ("News post", "https://t.me/dailynews/42", false),
        (
            "Shoe store",
            "https://www.shoes.example.com/sale?subid=1",
            true,
        ),
        ("Shoe blog", "https://blog.shoes.example.com/", true),
        ("Other site", "http://other.example.org:8080/x", true),
    ] {
        let camp = if site {
            Camp::site(title, url)
        } else {
            Camp::channel(title, url)
        };
        app.campaign(cabinet, camp);
    }
    (cabinet, key)
}

#[test]
fn list_returns_reduced_objects_with_the_spec_types() {
    let app = spawn_app();
    let (cabinet, key) = catalogue(&app);
    let body = app.get_ok("/campaigns", &key);
    let first = &body["data"][0];
    for field in [
        "ad_id",
        "account_id",
        "title",
        "text",
        "status",
        "tme_path",
        "promote_url",
        "views",
        "opens",
        "clicks",
        "actions",
        "spent",
        "budget",
        "cpm",
        "cpc",
        "cpa",
        "ctr",
        "cvr",
        "date",
        "group_id",
        "status_changed_at",
    ] {
        assert!(first.get(field).is_some(), "missing {field}");
    }
    for absent in ["schedule", "targets", "targeting", "button", "media_type"] {
        assert!(
            first.get(absent).is_none(),
            "reduced object carries {absent}"
        );
    }
    assert_eq!(first["account_id"], cabinet);
    assert!(first["views"].is_number() && first["clicks"].is_number());
    assert_eq!(
        first["spent"], "0.000000",
        "spent is a decimal string with six decimals"
    );
    assert_eq!(first["cpm"], "2.00");
    assert_eq!(first["budget"], "10.00");
    assert!(
        first["date"].as_str().unwrap().parse::<i64>().is_ok(),
        "date is unix seconds in a string"
    );
    assert_eq!(body["meta"]["limit"], 100);
    assert_eq!(body["meta"]["hasMore"], false);
}

#[test]
fn bot_username_matches_exactly_and_case_insensitively() {
    let app = spawn_app();
    let (_, key) = catalogue(&app);
    let body = app.get_ok("/campaigns?bot_username=@shophelperBOT", &key);
    assert_eq!(body["data"].as_array().unwrap().len(), 1);
    assert_eq!(body["data"][0]["title"], "Shop bot spring");
    let news = app.get_ok("/campaigns?bot_username=dailynews", &key);
    assert_eq!(
        news["data"].as_array().unwrap().len(),
        2,
        "channel and its post"
    );
    let prefix = app.get_ok("/campaigns?bot_username=dailynew", &key);
    assert!(
        prefix["data"].as_array().unwrap().is_empty(),
        "no prefix matches"
    );
    let unknown = app.get_ok("/campaigns?bot_username=nobody_here", &key);
    assert!(unknown["data"].as_array().unwrap().is_empty());
}

#[test]
fn promote_domain_ignores_scheme_www_path_and_port_and_supports_suffix() {
    let app = spawn_app();
    let (_, key) = catalogue(&app);
    let titles = |path: &str| -> HashSet<String> {
        app.get_ok(path, &key)["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["title"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        titles("/campaigns?promote_domain=SHOES.example.com"),
        HashSet::from(["Shoe store".to_string()])
    );
    assert_eq!(
        titles("/campaigns?promote_domain=https%3A%2F%2Fwww.shoes.example.com%3A443%2Fany%3Fq%3D1"),
        HashSet::from(["Shoe store".to_string()])
    );
    assert_eq!(
        titles("/campaigns?promote_domain=shoes.example.com&promote_domain_mode=suffix"),
        HashSet::from(["Shoe store".to_string(), "Shoe blog".to_string()])
    );
    assert_eq!(
        titles("/campaigns?promote_domain=other.example.org"),
        HashSet::from(["Other site".to_string()])
    );
    assert!(
        titles("/campaigns?promote_domain=example.com").is_empty(),
        "exact is exact"
    );
    app.get_err(
        "/campaigns?promote_domain=x.com&promote_domain_mode=fuzzy",
        &key,
        400,
        "VALIDATION_ERROR",
    );
}

#[test]
fn type_filter_splits_bots_channels_and_sites() {
    let app = spawn_app();
    let (_, key) = catalogue(&app);
    let count = |t: &str| {
        app.get_ok(&format!("/campaigns?type={t}"), &key)["data"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(count("bot"), 2, "bot and mini-app");
    assert_eq!(count("channel"), 2, "channel and post");
    assert_eq!(count("site"), 3);
    let err = app.get_err("/campaigns?type=app", &key, 400, "VALIDATION_ERROR");
    assert_eq!(err["param"], "type");
}

#[test]
fn title_and_status_filters_combine_with_and() {
    let app = spawn_app();
    let (cabinet, key) = catalogue(&app);
    app.sql(&format!("UPDATE campaigns SET status = 'Active' WHERE account_id = {cabinet} AND title LIKE 'Shoe%'"));
    let shoe = app.get_ok("/campaigns?title=shoe", &key);
    assert_eq!(
        shoe["data"].as_array().unwrap().len(),
        2,
        "title contains, any case"
    );
    let active = app.get_ok("/campaigns?status=Active", &key);
    assert_eq!(active["data"].as_array().unwrap().len(), 2);
    let both = app.get_ok("/campaigns?status=Active,In%20Review&title=blog", &key);
    assert_eq!(both["data"].as_array().unwrap().len(), 1);
    let none = app.get_ok("/campaigns?status=Declined&title=shoe", &key);
    assert!(none["data"].as_array().unwrap().is_empty());
    let err = app.get_err("/campaigns?status=Running", &key, 400, "VALIDATION_ERROR");
    assert_eq!(err["param"], "status");
}

#[test]
fn deleted_campaigns_are_hidden_unless_asked_for() {
    let app = spawn_app();
    let (cabinet, key) = catalogue(&app);
    app.sql(&format!(
        "UPDATE campaigns SET status = 'Deleted' WHERE account_id = {cabinet} AND ad_id = 1"
    ));
    let default = ids(&app.get_ok("/campaigns", &key));
    assert_eq!(default.len(), 6);
    assert!(!default.contains(&1));
    assert_eq!(ids(&app.get_ok("/campaigns?status=Deleted", &key)), vec![1]);
    let one = app.get_ok(&format!("/campaigns/1?account_id={cabinet}"), &key);
    assert_eq!(
        one["data"]["status"], "Deleted",
        "the single read still returns it"
    );
}

/// Campaigns `first..=last` of `cabinet`, written straight into the store, each with the views
/// the SQL expression `views` gives for its number `i`.
fn bulk(app: &TestApp, cabinet: i64, first: i64, last: i64, views: &str) {
    app.sql(&format!(
        "WITH RECURSIVE n(i) AS (SELECT {first} UNION ALL SELECT i + 1 FROM n WHERE i < {last})
         INSERT INTO campaigns (account_id, ad_id, title, text, status, active, promote_url, link_kind, tme_path,
            tme_username, target_type, targeting, cpm_micros, views_per_user, created_at,
            synced_at, status_changed_at)
         SELECT {cabinet}, i, 'bulk ' || i, 't', 'Active', 1, 'https://t.me/seed_chan', 'channel', 'seed_chan',
            'seed_chan', 'channels', '{{}}', 1000000, 1, 1000 + i, '2026-01-01T00:00:00Z',
            '2026-01-01T00:00:00Z' FROM n;
         UPDATE campaign_counters SET views = (SELECT {views} FROM (SELECT ad_id AS i))
         WHERE account_id = {cabinet} AND ad_id BETWEEN {first} AND {last}"
    ));
}

#[test]
fn cursor_pages_cover_everything_once_across_cabinets() {
    let app = spawn_app();
    let user = app.user("pro");
    let a = app.cabinet(user, "euro", "1000");
    let b = app.cabinet(user, "ton", "1000");
    for _ in 0..4 {
        app.campaign(a, Camp::channel("A", "https://t.me/alpha_chan"));
        app.campaign(b, Camp::channel("B", "https://t.me/alpha_chan"));
    }
    let key = app.key(user);
    let mut seen = Vec::new();
    let mut cursor = String::new();
    let mut pages = 0;
    loop {
        let body = app.get_ok(
            &format!("/campaigns?type=channel&limit=3&cursor={cursor}"),
            &key,
        );
        pages += 1;
        for c in body["data"].as_array().unwrap() {
            seen.push((
                c["account_id"].as_i64().unwrap(),
                c["ad_id"].as_i64().unwrap(),
            ));
        }
        assert_eq!(body["meta"]["limit"], 3);
        match body["meta"]["next_cursor"].as_str() {
            Some(next) => {
                assert_eq!(body["meta"]["hasMore"], true);
                cursor = next.to_string();
            }
            None => {
                assert_eq!(body["meta"]["hasMore"], false);
                break;
            }
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(seen.len(), 8);
    assert_eq!(
        seen.iter().collect::<HashSet<_>>().len(),
        8,
        "no campaign twice"
    );
    app.get_err(
        "/campaigns?cursor=not-a-cursor",
        &key,
        400,
        "VALIDATION_ERROR",
    );
    let err = app.get_err(
        "/campaigns?type=site&offset=5",
        &key,
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "offset");
}

#[test]
fn offset_pages_sort_and_stop_at_five_hundred_per_cabinet() {
    let app = spawn_app();
    let (_, cabinet, key) = app.owner_with_cabinet("pro");
    app.campaign(cabinet, Camp::channel("seed", "https://t.me/seed_chan"));
    bulk(&app, cabinet, 2, 520, "i * 10");
    let page = app.get_ok(
        "/campaigns?limit=5&offset=0&sortBy=views&sortOrder=desc",
        &key,
    );
    assert_eq!(ids(&page), vec![520, 519, 518, 517, 516]);
    assert_eq!(page["meta"]["hasMore"], true);
    assert!(page["meta"]["next_cursor"].is_null());
    let asc = app.get_ok("/campaigns?limit=2&sortBy=ad_id&sortOrder=asc", &key);
    assert_eq!(ids(&asc), vec![1, 2]);
    let deep = app.get_ok("/campaigns?limit=500&offset=490", &key);
    assert_eq!(
        deep["data"].as_array().unwrap().len(),
        10,
        "only the first 500 of a cabinet are reachable"
    );
    assert_eq!(deep["meta"]["hasMore"], false);
    let err = app.get_err("/campaigns?offset=501", &key, 400, "VALIDATION_ERROR");
    assert_eq!(err["param"], "offset");
    app.get_err("/campaigns?sortBy=colour", &key, 400, "VALIDATION_ERROR");
    app.get_err("/campaigns?sortOrder=up", &key, 400, "VALIDATION_ERROR");
}

/// A long page (250 rows, their conversions summed in chunks of 100) answers every row once,
/// in its order, each with its own conversions, and says when more follow.
#[test]
fn a_long_page_keeps_its_order_and_each_row_its_conversions() {
    let app = spawn_app();
    let (_, cabinet, key) = app.owner_with_cabinet("pro");
    // Views 37 * i mod 251 (distinct, 251 being prime) interleave the ad ids; ad i has i
    // leads when 3 divides i, and i / 5 purchases worth i USD in all when 5 does.
    bulk(&app, cabinet, 1, 250, "37 * i % 251");
    app.sql(&format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 250)
         INSERT INTO conversion_totals (account_id, ad_id, event_type, currency, count, amount_high, amount_low)
         SELECT {cabinet}, i, 'lead', '', i, NULL, NULL FROM n WHERE i % 3 = 0
         UNION ALL
         SELECT {cabinet}, i, 'purchase', 'USD', i / 5, 0, i * 1000000 FROM n WHERE i % 5 = 0;"
    ));
    let mut expected: Vec<i64> = (1..=250).collect();
    expected.sort_by_key(|i| std::cmp::Reverse(37 * i % 251));
    let page = app.get_ok("/campaigns?limit=250&sortBy=views&sortOrder=desc", &key);
    assert_eq!(ids(&page), expected);
    assert_eq!(page["meta"]["hasMore"], false);
    for c in page["data"].as_array().unwrap() {
        let i = c["ad_id"].as_i64().unwrap();
        let leads = if i % 3 == 0 { i } else { 0 };
        assert_eq!(c["conversions"]["lead"], leads, "ad {i}");
        let (purchases, usd) = match i % 5 {
            0 => (i / 5, Value::from(format!("{i}.00"))),
            _ => (0, Value::Null),
        };
        assert_eq!(c["conversions"]["purchase"], purchases, "ad {i}");
        assert_eq!(c["revenue"]["USD"], usd, "ad {i}");
    }
    let short = app.get_ok("/campaigns?limit=249&sortBy=views&sortOrder=desc", &key);
    assert_eq!(ids(&short), expected[..249]);
    assert_eq!(short["meta"]["hasMore"], true);
    let first = app.get_ok("/campaigns?limit=230&cursor=", &key);
    assert_eq!(ids(&first), (21..=250).rev().collect::<Vec<i64>>());
    let cursor = first["meta"]["next_cursor"].as_str().unwrap();
    let rest = app.get_ok(&format!("/campaigns?limit=230&cursor={cursor}"), &key);
    assert_eq!(ids(&rest), (1..=20).rev().collect::<Vec<i64>>());
    assert_eq!(rest["meta"]["hasMore"], false);
}

/// A list sorted by a figure (each cabinet's order kept in memory between pages) follows every
/// change the writer commits: figures moved, a status moved (by the trigger on the copy), a
/// campaign made and one removed, in one cabinet of two, while the other's order stays.
#[test]
fn a_list_sorted_by_a_figure_follows_every_committed_change() {
    let app = spawn_app();
    let (user, a, key) = app.owner_with_cabinet("pro");
    let b = app.cabinet(user, "euro", "1000");
    bulk(&app, a, 1, 5, "i * 10");
    bulk(&app, b, 101, 103, "i");
    let by_views = |order: &str| {
        let page = app.get_ok(
            &format!("/campaigns?limit=50&sortBy=views&sortOrder={order}"),
            &key,
        );
        ids(&page)
    };
    assert_eq!(by_views("desc"), [103, 102, 101, 5, 4, 3, 2, 1]);
    app.sql(&format!(
        "UPDATE campaign_counters SET views = 1000 WHERE account_id = {a} AND ad_id = 1"
    ));
    assert_eq!(by_views("desc"), [1, 103, 102, 101, 5, 4, 3, 2]);
    app.sql(&format!(
        "UPDATE campaigns SET status = 'Deleted' WHERE account_id = {a} AND ad_id = 5"
    ));
    assert_eq!(by_views("asc"), [2, 3, 4, 101, 102, 103, 1]);
    bulk(&app, a, 6, 6, "500");
    app.sql(&format!(
        "DELETE FROM campaigns WHERE account_id = {b} AND ad_id = 102"
    ));
    assert_eq!(by_views("desc"), [1, 6, 103, 101, 4, 3, 2]);
    let one = app.get_ok(
        &format!("/campaigns?account_id={a}&limit=2&offset=1&sortBy=views&sortOrder=desc"),
        &key,
    );
    assert_eq!(ids(&one), [6, 4]);
}

#[test]
fn limit_must_be_from_one_to_five_hundred() {
    let app = spawn_app();
    let (_, _, key) = app.owner_with_cabinet("pro");
    for bad in ["0", "501", "ten", "-1"] {
        let err = app.get_err(
            &format!("/campaigns?limit={bad}"),
            &key,
            400,
            "VALIDATION_ERROR",
        );
        assert_eq!(err["param"], "limit");
    }
    assert_eq!(
        app.get_ok("/campaigns?limit=500", &key)["meta"]["limit"],
        500
    );
}

#[test]
fn the_single_read_returns_the_full_object() {
    let app = spawn_app();
    let (_, cabinet, key) = app.owner_with_cabinet("pro");
    let group = printed(ops::group_add(&app.services, cabinet, "G", None).unwrap())["id"]
        .as_i64()
        .unwrap();
    let ad = app.campaign(
        cabinet,
        Camp {
            group: Some(group),
            targeting: serde_json::json!({ "channels": ["@Tech_Daily", "missing_one", "@news_room"] }),
            ..Camp::channel("Full", "https://t.me/alpha_bot?start=ref1")
        },
    );
    let c = &app.get_ok(&format!("/campaigns/{ad}"), &key)["data"];
    assert_eq!(c["ad_id"], ad);
    assert_eq!(c["account_id"], cabinet);
    assert_eq!(c["status"], "In Review");
    assert_eq!(c["active"], true);
    assert_eq!(c["target_type"], "channels");
    assert_eq!(
        c["targets"],
        serde_json::json!(["tech_daily", "news_room"]),
        "unresolvable targets are skipped"
    );
    assert_eq!(c["tme_path"], "alpha_bot");
    assert!(c["promote_url"].is_null(), "platform links are in tme_path");
    assert_eq!(c["cpm"], "2.00");
    assert_eq!(c["budget"], "10.00");
    assert_eq!(c["spent"], "0.000000");
    assert!(c["daily_budget"].is_null());
    assert_eq!(c["views_per_user"], 1);
    assert!(c["schedule"].is_null());
    assert_eq!(c["has_media"], false);
    assert_eq!(c["group_id"], group);
    assert_eq!(c["auto_cpm_enabled"], false);
    for ratio in ["ctr", "cvr"] {
        assert_eq!(c[ratio], "0.00");
    }
    for cost in ["cpc", "cpa"] {
        assert_eq!(c[cost], "0.000000");
    }
    assert!(c["synced_at"].as_str().unwrap().ends_with('Z'));
    assert!(c["status_changed_at"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn an_ad_id_in_several_cabinets_needs_account_id() {
    let app = spawn_app();
    let user = app.user("pro");
    let a = app.cabinet(user, "euro", "100");
    let b = app.cabinet(user, "euro", "100");
    let key = app.key(user);
    let ad_a = app.campaign(a, Camp::channel("in A", "https://t.me/alpha_chan"));
    let ad_b = app.campaign(b, Camp::channel("in B", "https://t.me/alpha_chan"));
    assert_eq!(ad_a, ad_b, "ad ids are numbered per cabinet");
    let err = app.get_err(
        &format!("/campaigns/{ad_a}"),
        &key,
        400,
        "ACCOUNT_ID_REQUIRED",
    );
    assert_eq!(err["param"], "account_id");
    let in_b = app.get_ok(&format!("/campaigns/{ad_a}?accountId={b}"), &key);
    assert_eq!(in_b["data"]["title"], "in B");
    app.get_err("/campaigns/99", &key, 404, "CAMPAIGN_NOT_FOUND");
    app.get_err(
        &format!("/campaigns/99?account_id={a}"),
        &key,
        404,
        "CAMPAIGN_NOT_FOUND",
    );
    let bad = app.get_err("/campaigns/abc", &key, 400, "VALIDATION_ERROR");
    assert_eq!(bad["param"], "ad_id");
}

#[test]
fn a_copy_older_than_five_minutes_is_reread_from_the_platform() {
    let app = spawn_app();
    let (_, cabinet, key) = app.owner_with_cabinet("pro");
    let ad = app.campaign(cabinet, Camp::channel("Fresh", "https://t.me/alpha_chan"));
    let first = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    // The platform approves the ad; the stored copy does not know yet.
    app.sql(&format!("UPDATE sim_ads SET status = 'Active', views = 1000, clicks = 25 WHERE account_id = {cabinet}"));
    let young = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    assert_eq!(
        young["status"], "In Review",
        "a copy younger than five minutes is served as is"
    );
    app.advance_to_a_minute(301);
    let fresh = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    assert_eq!(fresh["status"], "Active");
    // The platform's own answer in the same minute: the simulator works its ads' delivery
    // out up to the minute it is asked in.
    let live = &app.services.platform.get_ads(cabinet, &[ad]).unwrap()[0];
    let (views, clicks, spent) = (live.views, live.clicks, live.spent.micros());
    assert!(views > 1000, "five minutes of delivery while Active");
    assert_eq!(
        (fresh["views"].as_i64(), fresh["clicks"].as_i64()),
        (Some(views), Some(clicks)),
        "the copy is the platform's"
    );
    assert_eq!(
        fresh["spent"],
        format!("{}.{:06}", spent / 1_000_000, spent % 1_000_000)
    );
    assert!(fresh["synced_at"].as_str().unwrap() > first["synced_at"].as_str().unwrap());
    assert!(
        fresh["status_changed_at"].as_str().unwrap()
            >= first["status_changed_at"].as_str().unwrap()
    );
}

#[test]
fn when_the_platform_does_not_answer_the_stored_copy_is_served() {
    let app = spawn_app();
    let (_, cabinet, key) = app.owner_with_cabinet("pro");
    // The ten minutes moved below stay inside one hour: no hourly sync refreshes the copy.
    app.align_hour();
    let ad = app.campaign(cabinet, Camp::channel("Stale", "https://t.me/alpha_chan"));
    let before = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    app.sql(&format!(
        "UPDATE sim_ads SET status = 'Active' WHERE account_id = {cabinet}"
    ));
    ops::sim_advance(&app.services, 600).unwrap();
    for fault in [Fault::Timeout, Fault::Refuse] {
        ops::sim_fail(&app.services, cabinet, fault, 1).unwrap();
        let stale = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
        assert_eq!(
            stale["status"], "In Review",
            "{fault:?}: stored copy served"
        );
        assert_eq!(
            stale["synced_at"], before["synced_at"],
            "{fault:?}: synced_at shows its age"
        );
    }
    let after = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    assert_eq!(
        after["status"], "Active",
        "faults were used up; the next read refreshes"
    );
}

#[test]
fn reads_of_a_deactivated_cabinet_are_account_inactive() {
    let app = spawn_app();
    let user = app.user("pro");
    let a = app.cabinet(user, "euro", "1");
    let b = app.cabinet(user, "euro", "1");
    let key = app.key(user);
    ops::cabinet_set(
        &app.services,
        a,
        &ops::CabinetChange {
            active: Some(false),
            ..Default::default()
        },
    )
    .unwrap();
    app.get_err(
        &format!("/campaigns?account_id={a}"),
        &key,
        403,
        "ACCOUNT_INACTIVE",
    );
    app.get_ok(&format!("/campaigns?account_id={b}"), &key);
}
