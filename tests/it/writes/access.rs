//! Owns who may write: the key, the access and the cabinet, team viewers and lapsed owners,
//! and the write budget apart from reads.

use crate::helpers::{in_one_rate_window, spawn_app, spawn_app_with};
use adcab::ops::{self, CabinetChange, NewKey, Subscription, TeamAccess};

#[test]
fn writes_check_the_key_the_access_and_the_cabinet() {
    let app = spawn_app();
    let (user, cabinet, read_only) = app.owner_with_cabinet("pro");
    let ad = app.active_campaign(cabinet);
    let pause = format!("/campaigns/{ad}/pause");
    app.write_err("POST", &pause, &read_only, None, 403, "READ_ONLY_KEY");
    let partner = app.key_with(NewKey {
        user,
        manage: true,
        partner: true,
        ..NewKey::default()
    });
    app.write_err("POST", &pause, &partner, None, 403, "WRITE_NOT_ALLOWED");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    ops::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            auth_expired: Some(true),
            ..Default::default()
        },
    )
    .unwrap();
    app.write_err("POST", &pause, &key, None, 409, "CABINET_AUTH_EXPIRED");
    ops::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            auth_expired: Some(false),
            locked: Some(true),
            ..Default::default()
        },
    )
    .unwrap();
    app.write_err("POST", &pause, &key, None, 409, "CABINET_LOCKED");
    ops::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            locked: Some(false),
            ..Default::default()
        },
    )
    .unwrap();
    ops::user_set(&app.services, user, None, Some(Subscription::Expired), None).unwrap();
    let err = app.write_err("POST", &pause, &key, None, 403, "FEATURE_NOT_AVAILABLE");
    assert_eq!(err["feature"], "manage_campaigns");
    ops::user_set(&app.services, user, None, Some(Subscription::Active), None).unwrap();
    let second = app.cabinet(user, "euro", "10");
    app.write_err("POST", &pause, &key, None, 400, "ACCOUNT_ID_REQUIRED");
    app.write_err(
        "POST",
        &format!("{pause}?account_id=42"),
        &key,
        None,
        404,
        "ACCOUNT_NOT_FOUND",
    );
    app.write_err(
        "POST",
        &format!("/campaigns/{ad}/pause?account_id={second}"),
        &key,
        None,
        404,
        "CAMPAIGN_NOT_FOUND",
    );
    ops::cabinet_set(
        &app.services,
        second,
        &CabinetChange {
            active: Some(false),
            ..Default::default()
        },
    )
    .unwrap();
    app.write_err(
        "POST",
        &format!("/campaigns/1/pause?account_id={second}"),
        &key,
        None,
        403,
        "ACCOUNT_INACTIVE",
    );
    app.write_ok("POST", &pause, &key, None, 200);
}

#[test]
fn viewers_and_lapsed_owners_cannot_write_through_a_team_key() {
    let app = spawn_app();
    let agency = app.user("agency");
    let cabinet = app.cabinet(agency, "euro", "100");
    let ad = app.active_campaign(cabinet);
    let member = app.user("pro");
    ops::member_add(&app.services, agency, member, cabinet, TeamAccess::Viewer).unwrap();
    let key = app.key_with(NewKey {
        user: member,
        manage: true,
        ..NewKey::default()
    });
    let pause = format!("/campaigns/{ad}/pause");
    app.write_err("POST", &pause, &key, None, 403, "VIEW_ONLY_ACCESS");
    ops::member_add(&app.services, agency, member, cabinet, TeamAccess::Manager).unwrap();
    ops::user_set(
        &app.services,
        agency,
        None,
        Some(Subscription::Expired),
        None,
    )
    .unwrap();
    app.write_err("POST", &pause, &key, None, 403, "SUBSCRIPTION_REQUIRED");
    ops::user_set(
        &app.services,
        agency,
        None,
        Some(Subscription::Active),
        None,
    )
    .unwrap();
    app.write_ok("POST", &pause, &key, None, 200);
}

#[test]
fn writes_have_their_own_budget_apart_from_reads() {
    let app = spawn_app_with(|c| {
        c.limits.writes_per_minute = 2;
        c.limits.reads_per_minute = 100;
    });
    let (_, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let path = format!("/campaigns/{ad}/pause");
    let answers = in_one_rate_window(|| {
        (0..3)
            .map(|_| app.send("POST", &path, &key, None, &[]))
            .collect()
    });
    assert_eq!(answers[0].header("x-ratelimit-limit"), Some("2"));
    let statuses: Vec<u16> = answers.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 200, 429]);
    let read = app.get(&format!("/campaigns/{ad}"), &key);
    assert_eq!(
        (read.status, read.header("x-ratelimit-limit")),
        (200, Some("100"))
    );
}
