//! Keys and access: key format and lookup, revocation, plans, scope, agency teams, and the
//! write-side checks (exercised through `auth::authenticate`, the function every request uses).

use std::sync::Arc;

use crate::helpers::{printed, said, spawn_app, TestApp};
use adcab::api::error::ApiError;
use adcab::auth::{self, AuthError, Principal};
use adcab::domain::access::Plan;
use adcab::ops::Scope;
use adcab::ops::Subscription;
use adcab::ops::TeamAccess;
use adcab::ops::{self, CabinetChange, KeyChange, NewKey};
use adcab::store::StoreError;

/// The key's principal as a request gets it: kept by the service's principals, or read.
fn principal(app: &TestApp, key: &str) -> Arc<Principal> {
    let key = key.to_string();
    let kept = &app.services.principals;
    app.services
        .db
        .read_blocking(move |c| auth::authenticate(c, kept, Some(&key)))
        .unwrap()
}

/// The first write check that fails for `key` acting on `cabinet`, if any.
fn write_check(app: &TestApp, key: &str, cabinet: i64) -> Result<(), ApiError> {
    let p = principal(app, key);
    p.check_access()?;
    p.check_write_key()?;
    let reach = p.single(Some(cabinet))?;
    Ok(auth::check_write_cabinet(reach)?)
}

#[test]
fn a_missing_key_is_api_key_missing() {
    let app = spawn_app();
    app.expect_err("GET", "/account/info", None, 401, "API_KEY_MISSING");
    app.expect_err("GET", "/account/info", Some(""), 401, "API_KEY_MISSING");
}

#[test]
fn a_wrong_or_malformed_key_is_api_key_invalid() {
    let app = spawn_app();
    let (_, _, key) = app.owner_with_cabinet("pro");
    app.get_err("/account/info", "short", 401, "API_KEY_INVALID");
    let mut wrong = key.clone();
    wrong.replace_range(53..54, if key.ends_with('0') { "1" } else { "0" });
    assert_eq!(wrong.len(), 54);
    app.get_err("/account/info", &wrong, 401, "API_KEY_INVALID");
    app.get_ok("/account/info", &key);
}

#[test]
fn only_the_sha256_of_a_key_is_stored() {
    let app = spawn_app();
    let (_, _, key) = app.owner_with_cabinet("pro");
    let stored: Vec<String> = app
        .services
        .db
        .read_blocking(|c| {
            let mut s = c.prepare("SELECT key_hash FROM api_keys")?;
            let rows = s
                .query_map([], |r| r.get(0))?
                .collect::<Result<Vec<String>, _>>()?;
            Ok::<_, StoreError>(rows)
        })
        .unwrap();
    assert_eq!(stored, vec![adcab::primitives::sha256_hex(&key)]);
    let db_bytes = std::fs::read(app.dir.path().join("adcab.db")).unwrap();
    let wal = std::fs::read(app.dir.path().join("adcab.db-wal")).unwrap_or_default();
    let needle = key.as_bytes();
    let contains = |hay: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    assert!(
        !contains(&db_bytes) && !contains(&wal),
        "the plain key never reaches the database file"
    );
}

#[test]
fn revocation_takes_effect_on_the_next_request() {
    let app = spawn_app();
    let (user, _, key) = app.owner_with_cabinet("pro");
    let second = app.key(user);
    app.get_ok("/account/info", &key);
    let id = printed(ops::key_list(&app.services, Some(user)).unwrap())["keys"][0]["id"]
        .as_i64()
        .unwrap();
    ops::key_revoke(&app.services, ops::By::Operator, id).unwrap();
    app.get_err("/account/info", &key, 401, "API_KEY_INVALID");
    app.get_ok("/account/info", &second);
}

#[test]
fn a_key_that_reaches_no_active_cabinet_is_no_accounts() {
    let app = spawn_app();
    let user = app.user("pro");
    let key = app.key(user);
    app.get_err("/account/info", &key, 401, "NO_ACCOUNTS");
    let cabinet = app.cabinet(user, "euro", "1");
    app.get_ok("/account/info", &key);
    ops::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            active: Some(false),
            ..Default::default()
        },
    )
    .unwrap();
    app.get_err("/account/info", &key, 401, "NO_ACCOUNTS");
}

#[test]
fn keys_need_pro_or_agency_and_a_plan_change_is_felt_at_once() {
    let app = spawn_app();
    let free = app.user("free");
    app.cabinet(free, "euro", "1");
    let err = ops::key_create(
        &app.services,
        &NewKey {
            user: free,
            ..NewKey::default()
        },
    )
    .unwrap_err();
    let err = said(err);
    assert!(err.contains("Pro and Agency"), "{err}");
    let (user, _, key) = app.owner_with_cabinet("pro");
    ops::user_set(&app.services, user, Some(Plan::Free), None, None).unwrap();
    app.get_err("/account/info", &key, 403, "FORBIDDEN");
    ops::user_set(&app.services, user, Some(Plan::Agency), None, None).unwrap();
    app.get_ok("/account/info", &key);
}

#[test]
fn a_person_holds_at_most_five_active_keys() {
    let app = spawn_app();
    let (user, _, _) = app.owner_with_cabinet("pro");
    for _ in 0..4 {
        app.key(user);
    }
    let err = ops::key_create(
        &app.services,
        &NewKey {
            user,
            ..NewKey::default()
        },
    )
    .unwrap_err();
    let err = said(err);
    assert!(err.contains("5 active keys"), "{err}");
    let id = printed(ops::key_list(&app.services, Some(user)).unwrap())["keys"][0]["id"]
        .as_i64()
        .unwrap();
    ops::key_revoke(&app.services, ops::By::Operator, id).unwrap();
    app.key(user);
}

#[test]
fn scope_narrows_the_cabinets_and_all_includes_later_ones() {
    let app = spawn_app();
    let user = app.user("pro");
    let a = app.cabinet(user, "euro", "1");
    let b = app.cabinet(user, "ton", "1");
    let one = app.key_with(NewKey {
        user,
        cabinets: Some(vec![a]),
        ..NewKey::default()
    });
    let all = app.key(user);
    let count = |key: &str| {
        app.get_ok("/account/info", key)["data"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(count(&one), 1);
    assert_eq!(count(&all), 2);
    app.get_err(
        &format!("/groups?account_id={b}"),
        &one,
        404,
        "ACCOUNT_NOT_FOUND",
    );
    app.cabinet(user, "stars", "1");
    assert_eq!(count(&all), 3, "All includes cabinets added later");
    assert_eq!(count(&one), 1);
    let id = principal(&app, &one).key.id;
    ops::key_set(
        &app.services,
        ops::By::Operator,
        id,
        &KeyChange {
            cabinets: Some(Scope::Cabinets(vec![a, b])),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(count(&one), 2, "Several");
    ops::key_set(
        &app.services,
        ops::By::Operator,
        id,
        &KeyChange {
            cabinets: Some(Scope::All),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(count(&one), 3);
    let other = app.user("pro");
    let foreign = app.cabinet(other, "euro", "1");
    let err = ops::key_create(
        &app.services,
        &NewKey {
            user,
            cabinets: Some(vec![foreign]),
            ..NewKey::default()
        },
    );
    assert!(
        err.is_err(),
        "a key cannot be scoped to a cabinet its holder cannot open"
    );
}

#[test]
fn team_members_reach_shared_cabinets_with_their_access_level() {
    let app = spawn_app();
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "euro", "10");
    let viewed = app.cabinet(agency, "ton", "10");
    app.cabinet(agency, "stars", "10");
    let member = app.user("free");
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Manager).unwrap();
    ops::member_add(&app.services, agency, member, viewed, TeamAccess::Viewer).unwrap();
    let key = app.key_with(NewKey {
        user: member,
        manage: true,
        ..NewKey::default()
    });
    let data = app.get_ok("/account/info", &key)["data"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(data.len(), 2, "only the shared cabinets");
    let level = |id: i64| data.iter().find(|c| c["id"] == id).unwrap()["access_level"].clone();
    assert_eq!(level(shared), "manager");
    assert_eq!(level(viewed), "viewer");
    assert_eq!(write_check(&app, &key, shared), Ok(()));
    assert_eq!(
        write_check(&app, &key, viewed),
        Err(ApiError::Auth(AuthError::ViewOnlyAccess))
    );
    // Lowered to viewer: the key follows at once.
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Viewer).unwrap();
    assert_eq!(
        write_check(&app, &key, shared),
        Err(ApiError::Auth(AuthError::ViewOnlyAccess))
    );
    // One cabinet unshared, then the member removed from the team.
    ops::member_remove(&app.services, agency, member, Some(viewed)).unwrap();
    assert_eq!(
        app.get_ok("/account/info", &key)["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    ops::member_remove(&app.services, agency, member, None).unwrap();
    app.get_err("/account/info", &key, 403, "FORBIDDEN");
}

#[test]
fn when_the_agency_plan_ends_the_members_keys_follow() {
    let app = spawn_app();
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "euro", "10");
    let member = app.user("pro");
    app.cabinet(member, "euro", "10");
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Manager).unwrap();
    let key = app.key(member);
    assert_eq!(
        app.get_ok("/account/info", &key)["data"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    ops::user_set(&app.services, agency, Some(Plan::Pro), None, None).unwrap();
    let data = app.get_ok("/account/info", &key)["data"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(data.len(), 1, "the shared cabinet is gone");
    assert_eq!(data[0]["access_level"], "owner");
}

#[test]
fn write_checks_refuse_read_only_partner_and_lapsed_keys() {
    let app = spawn_app();
    let (user, cabinet, read_only) = app.owner_with_cabinet("pro");
    assert_eq!(
        write_check(&app, &read_only, cabinet),
        Err(ApiError::Auth(AuthError::ReadOnlyKey))
    );
    let partner = app.key_with(NewKey {
        user,
        manage: true,
        partner: true,
        ..NewKey::default()
    });
    assert_eq!(
        write_check(&app, &partner, cabinet),
        Err(ApiError::Auth(AuthError::WriteNotAllowed))
    );
    let manager = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    assert_eq!(write_check(&app, &manager, cabinet), Ok(()));
    ops::user_set(&app.services, user, None, Some(Subscription::Expired), None).unwrap();
    assert_eq!(
        write_check(&app, &manager, cabinet),
        Err(ApiError::Auth(AuthError::FeatureNotAvailable {
            feature: "manage_campaigns"
        }))
    );
    app.get_ok("/account/info", &manager);
    ops::user_set(&app.services, user, None, Some(Subscription::Active), None).unwrap();
    ops::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            active: Some(false),
            ..Default::default()
        },
    )
    .unwrap();
    let second = app.cabinet(user, "euro", "1");
    assert_eq!(
        write_check(&app, &manager, cabinet),
        Err(ApiError::Auth(AuthError::AccountInactive))
    );
    assert_eq!(write_check(&app, &manager, second), Ok(()));
}

#[test]
fn writes_to_a_cabinet_whose_owner_lapsed_need_a_subscription() {
    let app = spawn_app();
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "euro", "10");
    let member = app.user("pro");
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Manager).unwrap();
    let key = app.key_with(NewKey {
        user: member,
        manage: true,
        ..NewKey::default()
    });
    assert_eq!(write_check(&app, &key, shared), Ok(()));
    ops::user_set(
        &app.services,
        agency,
        None,
        Some(Subscription::Expired),
        None,
    )
    .unwrap();
    assert_eq!(
        write_check(&app, &key, shared),
        Err(ApiError::Auth(AuthError::SubscriptionRequired))
    );
}

#[test]
fn a_call_on_one_cabinet_needs_account_id_when_the_key_reaches_several() {
    let app = spawn_app();
    let user = app.user("pro");
    let a = app.cabinet(user, "euro", "1");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    assert_eq!(principal(&app, &key).single(None).unwrap().cabinet.id, a);
    app.cabinet(user, "euro", "1");
    let err = ApiError::from(principal(&app, &key).single(None).unwrap_err());
    assert_eq!(err.code(), "ACCOUNT_ID_REQUIRED");
    assert_eq!(
        ApiError::from(principal(&app, &key).single(Some(999)).unwrap_err()),
        ApiError::Auth(AuthError::AccountNotFound)
    );
}

#[test]
fn an_agency_owner_lists_the_teams_keys() {
    let app = spawn_app();
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "euro", "10");
    let member = app.user("free");
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Viewer).unwrap();
    app.key(agency);
    app.key_with(NewKey {
        user: member,
        manage: true,
        ..NewKey::default()
    });
    let list = printed(ops::key_list(&app.services, Some(agency)).unwrap());
    let keys = list["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 2);
    let of_member = keys.iter().find(|k| k["owner"] == member).unwrap();
    assert_eq!(of_member["manage"], true);
    assert_eq!(of_member["cabinets"], 1);
    assert!(of_member.get("last_used_at").is_some());
    assert_eq!(
        printed(ops::key_list(&app.services, Some(member)).unwrap())["keys"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}
