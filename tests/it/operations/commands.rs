//! Operator commands: `admin key list` for every person, and `admin webhook resend` of a
//! failed delivery under a new id, signed, with the body it had.

use crate::helpers::{printed, said, spawn_app, Receiver};
use adcab::ops::{self, KeyChange, WebhookUrl};

#[test]
fn key_list_without_a_person_lists_everyones_keys() {
    let app = spawn_app();
    let (a, _, _) = app.owner_with_cabinet("pro");
    let (b, _, _) = app.owner_with_cabinet("agency");
    let all = printed(ops::key_list(&app.services, None).unwrap());
    let owners: Vec<i64> = all["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["owner"].as_i64().unwrap())
        .collect();
    assert_eq!(owners, [a, b]);
    let one = printed(ops::key_list(&app.services, Some(b)).unwrap());
    assert_eq!(one["keys"].as_array().unwrap().len(), 1);
}

#[test]
fn a_failed_delivery_is_sent_again_with_its_body_and_a_new_id() {
    let app = spawn_app();
    let (user, _, _) = app.owner_with_cabinet("pro");
    let down = Receiver::start(503);
    let (id, _, secret) = app.hook_key(user, &down.url);
    let failed = printed(ops::key_ping(&app.services, ops::By::Operator, id).unwrap());
    assert_eq!(failed["status"], 503);
    let first = down.received()[0].verified(&secret);

    let up = Receiver::start(200);
    ops::key_set(
        &app.services,
        ops::By::Operator,
        id,
        &KeyChange {
            webhook_url: Some(WebhookUrl::Url(up.url.clone())),
            ..Default::default()
        },
    )
    .unwrap();
    let old = failed["delivery"].as_str().unwrap();
    let resent = printed(ops::webhook_resend(&app.services, old).unwrap());
    assert_eq!(resent["status"], 200);
    assert_ne!(resent["delivery"], failed["delivery"]);
    let got = up.received();
    assert_eq!(got.len(), 1);
    assert_eq!(
        got[0].headers["x-service-delivery"],
        resent["delivery"].as_str().unwrap()
    );
    let body = got[0].verified(&secret);
    assert_eq!(body["event"], first["event"]);
    assert_eq!(body["key_id"], first["key_id"]);

    let again = ops::webhook_resend(&app.services, resent["delivery"].as_str().unwrap());
    assert!(said(again.unwrap_err()).contains("was delivered"));
    let unknown = said(ops::webhook_resend(&app.services, "0000").unwrap_err());
    assert!(unknown.contains("no delivery 0000"));
}
