//! `GET /v1/account/info`: the cabinet objects and who sees which.

use crate::helpers::spawn_app;
use adcab::ops::{self, CabinetChange, NewKey};
use serde_json::json;

#[test]
fn account_info_lists_each_reachable_cabinet_with_the_spec_fields() {
    let app = spawn_app();
    let user = app.user("pro");
    let euro = app.cabinet(user, "euro", "123.45");
    let stars = app.cabinet(user, "stars", "5000");
    let key = app.key(user);
    let body = app.get_ok("/account/info", &key);
    let data = body["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    let e = data.iter().find(|c| c["id"] == euro).unwrap();
    assert_eq!(e["cabinet_type"], "euro");
    assert_eq!(e["currency"], "EUR");
    assert_eq!(e["balance"], "123.45", "money is a decimal string");
    assert_eq!(e["access_level"], "owner");
    assert_eq!(e["is_active"], true);
    assert!(e["min_budget"].is_number());
    assert!(e["features"]["ad_button"].is_boolean());
    assert!(e["features"]["crypto_filters"].is_boolean());
    assert!(e["balance_updated_at"].as_str().unwrap().ends_with('Z'));
    assert!(
        e["id"].as_i64().unwrap() > i64::from(u32::MAX),
        "account ids are large integers"
    );
    let s = data.iter().find(|c| c["id"] == stars).unwrap();
    assert_eq!(
        (s["currency"].as_str(), s["balance"].as_str()),
        (Some("STARS"), Some("5000"))
    );
}

#[test]
fn partner_keys_see_balance_as_null() {
    let app = spawn_app();
    let user = app.user("pro");
    app.cabinet(user, "ton", "10");
    let key = app.key_with(NewKey {
        user,
        partner: true,
        ..NewKey::default()
    });
    let body = app.get_ok("/account/info", &key);
    assert!(body["data"][0]["balance"].is_null());
}

#[test]
fn a_deactivated_cabinet_disappears_from_the_list() {
    let app = spawn_app();
    let user = app.user("pro");
    let a = app.cabinet(user, "euro", "1");
    let b = app.cabinet(user, "euro", "1");
    let key = app.key(user);
    ops::cabinet_set(
        &app.services,
        b,
        &CabinetChange {
            active: Some(false),
            ..Default::default()
        },
    )
    .unwrap();
    let body = app.get_ok("/account/info", &key);
    let ids: Vec<i64> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![a]);
}

#[test]
fn a_balance_set_in_the_panel_shows_at_once() {
    let app = spawn_app();
    let (_, cabinet, key) = app.owner_with_cabinet("pro");
    ops::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            balance: Some("77.5".into()),
            ..Default::default()
        },
    )
    .unwrap();
    let body = app.get_ok("/account/info", &key);
    assert_eq!(body["data"][0]["balance"], "77.50");
}

#[test]
fn account_info_shows_the_simulators_limits_which_are_the_specs() {
    let app = spawn_app();
    let (_, _, key) = app.owner_with_cabinet("pro");
    let body = app.get_ok("/account/info", &key);
    let limits = &body["data"][0]["limits"];
    let ten_mb = 10 * 1024 * 1024;
    assert_eq!(
        (
            &limits["search_keywords"],
            &limits["search_keyword_length"],
            &limits["photo_bytes"],
            &limits["video_bytes"]
        ),
        (&json!(100), &json!(64), &json!(ten_mb), &json!(ten_mb)),
        "{body}"
    );
    assert_eq!(
        limits["media_types"],
        json!([
            "image/jpeg",
            "image/png",
            "image/gif",
            "image/webp",
            "video/mp4"
        ])
    );
    assert_eq!(
        limits["media_targets"],
        json!(["channels", "bots", "search", "users"])
    );
    assert_eq!(
        limits["placements"]["users"],
        json!(["channel_post", "video_banner"])
    );
}
