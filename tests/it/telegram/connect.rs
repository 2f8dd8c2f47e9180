//! Connecting: one cabinet per account a token opens (`--related` adds the managed ones), the
//! currency as its type, every existing ad imported page by page with its status, settings,
//! budget and counters; `platform check` changes nothing; a new token with `reconnect`.

use adcab::ops;
use serde_json::json;

use super::{connected, spawn_on, FakePromote, SeedAd};
use crate::helpers::{printed, said};

#[test]
fn connecting_imports_every_existing_ad_as_the_platform_shows_it() {
    let running = SeedAd {
        views: 2_000,
        cpm: "2.5".into(),
        budget: "30".into(),
        ..SeedAd::channel("Running", "@alpha_chan")
    };
    let paused = SeedAd {
        status: "on_hold".into(),
        ..SeedAd::channel("Paused", "@beta_chan")
    };
    let declined = SeedAd {
        status: "declined".into(),
        ..SeedAd::channel("Declined", "@gamma_chan")
    };
    let tg = connected(vec![running, paused, declined]);
    let list = tg.app.get_ok(
        &format!(
            "/campaigns?account_id={}&sortBy=title&sortOrder=asc",
            tg.cabinet
        ),
        &tg.key,
    )["data"]
        .clone();
    let rows = list.as_array().unwrap();
    assert_eq!(rows.len(), 3, "{list}");
    let by_title = |t: &str| rows.iter().find(|r| r["title"] == t).unwrap().clone();
    let run = by_title("Running");
    assert_eq!(run["status"], "Active");
    assert_eq!(run["views"], 2_000);
    assert_eq!(run["spent"], "5.000000", "2,000 views at 2.50 per 1,000");
    assert_eq!(run["budget"], "25.00");
    assert_eq!(run["cpm"], "2.50");
    assert_eq!(run["tme_path"], "alpha_chan");
    assert_eq!(by_title("Paused")["status"], "On Hold");
    assert_eq!(by_title("Declined")["status"], "Declined");
    let declined = tg.campaign(by_title("Declined")["ad_id"].as_i64().unwrap());
    assert_eq!(
        declined["decline_reason"], "Seeded as declined",
        "the platform's reason; its explanation only repeats it: {declined}"
    );
    let full = tg.campaign(run["ad_id"].as_i64().unwrap());
    assert_eq!(
        full["targeting"]["channels"],
        json!(["@alpha_chan"]),
        "{full}"
    );
    assert_eq!(full["active"], true);
    let info = tg.app.get_ok("/account/info", &tg.key)["data"][0].clone();
    assert_eq!(info["currency"], "EUR");
    assert_eq!(
        info["balance"], "950.00",
        "1000 less the 50 the three ads were given: {info}"
    );
}

#[test]
fn related_accounts_become_cabinets_of_their_currency_and_big_accounts_are_paged() {
    let fake = FakePromote::start();
    let main = fake.add_account("EUR", "Main", "500", true);
    let ton = fake.add_related(&main.account_id, "TON", "Ton client", "80");
    let stars = fake.add_related(&main.account_id, "XTR", "Stars client", "9000");
    for i in 0..230 {
        fake.seed_ad(
            &stars,
            SeedAd {
                cpm: "3".into(),
                budget: "600".into(),
                ..SeedAd::channel(&format!("Star {i}"), "@star_chan")
            },
        );
    }
    fake.seed_ad(&ton, SeedAd::channel("Ton ad", "@ton_chan"));
    let app = spawn_on(&fake);
    let user = app.user("agency");
    let check = printed(ops::platform_check(&app.services, &main.token).unwrap());
    assert_eq!(check["account"]["platform_id"], main.account_id.as_str());
    assert_eq!(check["account"]["type"], "euro");
    assert_eq!(check["related"], 2);
    let cabinets: i64 = app.scalar("SELECT COUNT(*) FROM cabinets", &[]);
    assert_eq!(cabinets, 0, "check changes nothing");

    let out = printed(ops::cabinet_connect(&app.services, user, &main.token, true).unwrap());
    let made = out["cabinets"].as_array().unwrap().clone();
    assert_eq!(made.len(), 3, "{out}");
    let of = |name: &str| made.iter().find(|c| c["name"] == name).unwrap().clone();
    assert_eq!(of("Main")["type"], "euro");
    assert_eq!(of("Ton client")["type"], "ton");
    assert_eq!(of("Stars client")["type"], "stars");
    assert_eq!(of("Stars client")["campaigns"], 230, "every page read");
    assert_eq!(of("Ton client")["campaigns"], 1);
    assert!(
        fake.call_count("getAdsList") >= 3,
        "230 ads take three pages"
    );
    let stars_id = of("Stars client")["id"].as_i64().unwrap();
    let key = app.key(user);
    let row =
        app.get_ok(&format!("/campaigns?account_id={stars_id}&limit=1"), &key)["data"][0].clone();
    assert_eq!(row["cpm"], "3", "STARS amounts are whole");
    assert_eq!(row["budget"], "600");

    let listed = printed(ops::cabinet_list(&app.services, Some(user)).unwrap());
    let listed = listed["cabinets"].as_array().unwrap().clone();
    assert_eq!(listed.len(), 3);
    let ton_row = listed.iter().find(|c| c["name"] == "Ton client").unwrap();
    assert_eq!(ton_row["platform_id"], ton.as_str(), "{ton_row}");
    assert_eq!(ton_row["type"], "ton");
    assert_eq!(ton_row["owner"], user);
    assert_eq!(ton_row["auth_expired"], false);

    let again = said(ops::cabinet_connect(&app.services, user, &main.token, true).unwrap_err());
    assert!(again.contains("already connected"), "{again}");
}

#[test]
fn a_revoked_token_expires_the_session_until_reconnect() {
    let tg = connected(vec![SeedAd::channel("Running", "@alpha_chan")]);
    let ad = tg.first_ad();
    tg.fake.revoke_token(&tg.account.token);
    let path = format!("/campaigns/{ad}/pause?account_id={}", tg.cabinet);
    tg.app
        .expect_err("POST", &path, Some(&tg.key), 409, "CABINET_AUTH_EXPIRED");
    tg.app
        .expect_err("POST", &path, Some(&tg.key), 409, "CABINET_AUTH_EXPIRED");
    assert_eq!(
        tg.campaign(ad)["status"],
        "Active",
        "reads serve the stored copy"
    );
    let wrong = tg.fake.add_account("EUR", "Someone else", "1", false);
    let refused = ops::cabinet_reconnect(&tg.app.services, tg.cabinet, &wrong.token);
    assert!(refused.is_err(), "a token of another account is refused");
    let fresh = tg.fake.new_token(tg.id());
    ops::cabinet_reconnect(&tg.app.services, tg.cabinet, &fresh).unwrap();
    let paused = tg.app.write_ok("POST", &path, &tg.key, None, 200);
    assert_eq!(paused["data"]["status"], "On Hold");
    assert_eq!(tg.fake.ad(tg.id(), ad).unwrap()["is_paused"], true);
}

#[test]
fn tokens_are_sealed_at_rest_and_never_stored_in_the_clear() {
    let tg = connected(vec![]);
    let stored: String = tg.app.scalar(
        "SELECT credential FROM cabinets WHERE id = ?1",
        &[tg.cabinet],
    );
    assert!(stored.starts_with("v1:"), "{stored}");
    assert!(!stored.contains(&tg.account.token));
    let file = tg.app.dir.path().join("secret.key");
    assert!(file.exists(), "the key file is created beside the database");
}
