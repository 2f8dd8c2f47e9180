//! `GET /v1/groups`: all reachable cabinets, or one.

use crate::helpers::{printed, said, spawn_app};
use adcab::ops;

#[test]
fn groups_cover_every_cabinet_or_the_one_named() {
    let app = spawn_app();
    let user = app.user("pro");
    let a = app.cabinet(user, "euro", "1");
    let b = app.cabinet(user, "ton", "1");
    let key = app.key(user);
    let ga = printed(ops::group_add(&app.services, a, "Spring", Some("#FF0000")).unwrap())["id"]
        .as_i64()
        .unwrap();
    ops::group_add(&app.services, b, "Autumn", None).unwrap();
    let all = app.get_ok("/groups", &key)["data"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(all.len(), 2);
    let one = app.get_ok(&format!("/groups?account_id={a}"), &key)["data"].clone();
    assert_eq!(
        one,
        serde_json::json!([{ "id": ga, "account_id": a, "name": "Spring", "color": "#FF0000" }])
    );
    let alias = app.get_ok(&format!("/groups?accountId={a}"), &key)["data"].clone();
    assert_eq!(alias, one, "accountId is an alias");
}

#[test]
fn groups_of_an_unreachable_cabinet_are_account_not_found() {
    let app = spawn_app();
    let (_, _, key) = app.owner_with_cabinet("pro");
    let (_, other, _) = app.owner_with_cabinet("pro");
    app.get_err(
        &format!("/groups?account_id={other}"),
        &key,
        404,
        "ACCOUNT_NOT_FOUND",
    );
}

#[test]
fn a_second_group_with_the_same_name_is_refused_in_the_panel() {
    let app = spawn_app();
    let (_, cabinet, _) = app.owner_with_cabinet("pro");
    ops::group_add(&app.services, cabinet, "Same", None).unwrap();
    let err = said(ops::group_add(&app.services, cabinet, "Same", None).unwrap_err());
    assert!(err.contains("already has a group"), "{err}");
    assert!(ops::group_add(&app.services, cabinet, "Bad", Some("red")).is_err());
}
