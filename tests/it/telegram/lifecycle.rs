//! A campaign's life as the platform leads it: review decided there reaches the client as a
//! `status_change` webhook after the sync (a decline with the platform's reason); an ad
//! deleted outside adcab reads `Deleted`; media go to the platform's upload methods and their
//! ids onto the ad; in this mode the simulator's commands and hand-made cabinets are refused.

use adcab::domain::money::CabinetType;
use adcab::ops::{self, NewCabinet};
use serde_json::{json, Value};

use super::{advance_service, connected, SeedAd};
use crate::helpers::{printed, said, Receiver};
use crate::media::{multipart, upload, PNG};

#[test]
fn review_decided_on_the_platform_is_a_status_change_webhook_after_the_sync() {
    let tg = connected(vec![]);
    let rx = Receiver::start(200);
    tg.app.hook_key(tg.user, &rx.url);
    let ad = tg.create(json!({}));
    tg.fake.approve(tg.id(), ad);
    tg.advance(3600);
    let events: Vec<Value> = rx
        .received()
        .iter()
        .filter(|r| r.event() == "status_change")
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(events.len(), 1, "{events:?}");
    let e = &events[0]["changes"][0];
    assert_eq!(e["ad_id"], ad, "{e}");
    assert_eq!(e["old_status"], "In Review", "{e}");
    assert_eq!(e["new_status"], "Active", "{e}");
    assert_eq!(e["decline_reason"], Value::Null, "not a decline: {e}");
}

#[test]
fn a_decline_on_the_platform_reaches_the_webhook_and_the_campaign_with_its_reason() {
    let tg = connected(vec![]);
    let rx = Receiver::start(200);
    tg.app.hook_key(tg.user, &rx.url);
    let ad = tg.create(json!({}));
    let html = "<p>Gambling is <b>not allowed</b>. See <a href=\"https://ads.telegram.org/guidelines\">the rules</a>.</p>";
    tg.fake
        .decline_explained(tg.id(), ad, "Prohibited product", html);
    tg.advance(3600);
    let shown = "Prohibited product — Gambling is not allowed. See the rules \
                 (https://ads.telegram.org/guidelines).";
    let c = tg.campaign(ad);
    assert_eq!(
        (c["status"].as_str(), c["decline_reason"].as_str()),
        (Some("Declined"), Some(shown)),
        "read by the hourly sync: {c}"
    );
    let events: Vec<Value> = rx
        .received()
        .iter()
        .filter(|r| r.event() == "status_change")
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(events.len(), 1, "{events:?}");
    let e = &events[0]["changes"][0];
    assert_eq!(
        (e["ad_id"].as_i64(), e["new_status"].as_str()),
        (Some(ad), Some("Declined")),
        "{e}"
    );
    assert_eq!(e["decline_reason"], shown, "{e}");
}

#[test]
fn an_ad_deleted_outside_adcab_reads_deleted_after_a_sync() {
    let gone = SeedAd {
        status: "on_hold".into(),
        budget: "0".into(),
        ..SeedAd::channel("Deleted elsewhere", "@alpha_chan")
    };
    let tg = connected(vec![gone, SeedAd::channel("Staying", "@beta_chan")]);
    let list = tg
        .app
        .get_ok(&format!("/campaigns?account_id={}", tg.cabinet), &tg.key);
    let ad = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["title"] == "Deleted elsewhere")
        .unwrap()["ad_id"]
        .as_i64()
        .unwrap();
    tg.fake.advance(11 * 60);
    advance_service(&tg.app.services, 11 * 60);
    let deleted = ureq::post(&format!("{}/deleteAd", tg.fake.url))
        .set("Authorization", &format!("Bearer {}", tg.account.token))
        .set("Content-Type", "application/json")
        .send_string(&json!({ "ad_id": ad }).to_string())
        .unwrap()
        .into_string()
        .unwrap();
    let deleted: Value = serde_json::from_str(&deleted).unwrap();
    assert_eq!(deleted["ok"], true, "{deleted}");
    let out = printed(ops::cabinet_sync(&tg.app.services, tg.cabinet).unwrap());
    assert_eq!(out["changed"], 1, "{out}");
    let shown = tg.app.get_ok(
        &format!("/campaigns?account_id={}&status=Deleted", tg.cabinet),
        &tg.key,
    );
    let rows = shown["data"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{shown}");
    assert_eq!(rows[0]["ad_id"], ad);
}

#[test]
fn media_go_to_the_platform_and_their_id_onto_the_ad() {
    let tg = connected(vec![]);
    let (ct, body) = multipart("file", "banner.png", PNG);
    let r = upload(
        &tg.app,
        &tg.key,
        &format!("?account_id={}", tg.cabinet),
        &ct,
        &body,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(tg.fake.call_count("uploadAdPhoto"), 1);
    let token = r.body["data"]["media"].as_str().unwrap().to_string();
    let ad = tg.create(json!({ "media": token }));
    let on_platform = tg.fake.ad(tg.id(), ad).unwrap();
    let photo = on_platform["photo"]["photo_id"]
        .as_str()
        .unwrap_or_default();
    assert!(!photo.is_empty(), "{on_platform}");
    let stored = tg.campaign(ad);
    assert_eq!(stored["has_media"], true, "{stored}");
    let gif = b"GIF89a-not-a-real-image";
    let (ct, body) = multipart("file", "anim.gif", gif);
    let refused = upload(
        &tg.app,
        &tg.key,
        &format!("?account_id={}", tg.cabinet),
        &ct,
        &body,
    );
    refused.assert_error(400, "UNSUPPORTED_MEDIA");
    assert_eq!(
        tg.fake.call_count("uploadAdPhoto"),
        1,
        "a GIF never reaches it"
    );
}

#[test]
fn the_simulators_commands_and_hand_made_cabinets_are_refused() {
    let tg = connected(vec![]);
    let advance = said(ops::sim_advance(&tg.app.services, 60).unwrap_err());
    assert!(advance.contains("simulator"), "{advance}");
    let added = ops::cabinet_add(
        &tg.app.services,
        &NewCabinet {
            owner: tg.user,
            name: "By hand".into(),
            kind: CabinetType::Euro,
            balance: None,
            min_budget: None,
            ad_button: false,
            crypto_filters: false,
        },
    )
    .unwrap_err();
    let added = said(added);
    assert!(added.contains("cabinet connect"), "{added}");
}
