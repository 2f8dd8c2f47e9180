//! The API & Webhooks page: a new key shown once and working with the API, its scope, the
//! webhook URL checked as the operator's command checks it, the Test button, a new secret,
//! revoking, the delivery log, the tracker URL, and who sees which keys.

use adcab::ops::{self, TeamAccess};

use super::logged_in;
use crate::helpers::{spawn_app, Receiver};

/// The text of the first `code.secret` starting with `prefix` on the page.
fn secret(body: &str, prefix: &str) -> String {
    let at = body
        .find(&format!(r#"<code class="secret">{prefix}"#))
        .unwrap_or_else(|| panic!("no {prefix} secret on the page: {body}"));
    let rest = &body[at + r#"<code class="secret">"#.len()..];
    rest[..rest.find('<').unwrap()].to_string()
}

#[test]
fn a_new_key_is_shown_once_and_reaches_only_its_scope() {
    let app = spawn_app();
    let user = app.user("pro");
    let first = app.cabinet(user, "euro", "100");
    let second = app.cabinet(user, "ton", "100");
    let web = logged_in(&app, user);
    let csrf = web.get("/keys").csrf();

    let made = web.post(
        "/keys",
        &[
            ("csrf", &csrf),
            ("manage", "1"),
            ("scope", "chosen"),
            ("cabinet", &second.to_string()),
        ],
    );
    assert_eq!(made.status, 200, "{}", made.body);
    assert_eq!(made.header("cache-control"), Some("no-store"));
    let key = secret(&made.body, "adcab_");
    assert!(made.body.contains(r#"<code class="secret">whsec_"#));
    let info = app.get_ok("/account/info", &key);
    let ids: Vec<i64> = info["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![second], "the ticked cabinet only, not {first}");
    let later = web.get("/keys").body;
    assert!(!later.contains(&key), "shown once");
    assert!(later.contains("Manage") && later.contains(&second.to_string()));

    let all = web.post("/keys", &[("csrf", &csrf), ("scope", "all")]);
    let read_only = secret(&all.body, "adcab_");
    assert_eq!(
        app.get_ok("/account/info", &read_only)["data"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn a_refused_key_names_its_field_and_makes_nothing() {
    let app = spawn_app();
    let user = app.user("pro");
    app.cabinet(user, "euro", "100");
    let web = logged_in(&app, user);
    let csrf = web.get("/keys").csrf();
    let bad = web.post(
        "/keys",
        &[
            ("csrf", &csrf),
            ("scope", "all"),
            ("webhook_url", "ftp://example.com/x"),
        ],
    );
    assert_eq!(bad.status, 422);
    assert!(
        bad.body.contains(r#"data-param="webhook-url""#),
        "{}",
        bad.body
    );
    let none = web.post("/keys", &[("csrf", &csrf), ("scope", "chosen")]);
    assert_eq!(none.status, 422);
    assert!(none.body.contains(r#"data-param="cabinets""#));
    let free = app.user("free");
    let refused = logged_in(&app, free);
    let denied = refused.post(
        "/keys",
        &[("csrf", &refused.get("/keys").csrf()), ("scope", "all")],
    );
    assert_eq!(denied.status, 422);
    assert!(denied.body.contains("Pro and Agency plans"));
    let keys: i64 = app.scalar("SELECT COUNT(*) FROM api_keys", &[]);
    assert_eq!(keys, 0);
}

#[test]
fn a_keys_webhook_is_set_tested_resecreted_logged_and_the_key_revoked() {
    let app = spawn_app();
    let (user, _, key) = app.manager();
    let id: i64 = app.scalar("SELECT MAX(id) FROM api_keys", &[]);
    let receiver = Receiver::start(200);
    let web = logged_in(&app, user);
    let csrf = web.get(&format!("/keys/{id}")).csrf();

    let set = web.post(
        &format!("/keys/{id}/webhook"),
        &[("csrf", &csrf), ("webhook_url", &receiver.url)],
    );
    assert_eq!(set.status, 303);
    let tested = web.post(&format!("/keys/{id}/test"), &[("csrf", &csrf)]);
    assert!(tested.body.contains("answered 200"), "{}", tested.body);
    assert_eq!(receiver.received().len(), 1);
    assert_eq!(receiver.received()[0].event(), "ping");
    let page = web.get(&format!("/keys/{id}")).body;
    assert!(page.contains(">ping</td>"), "the delivery log: {page}");

    let rotated = web.post(&format!("/keys/{id}/secret"), &[("csrf", &csrf)]);
    let new_secret = secret(&rotated.body, "whsec_");
    web.post(&format!("/keys/{id}/test"), &[("csrf", &csrf)]);
    receiver.received()[1].verified(&new_secret);

    let revoked = web.post(&format!("/keys/{id}/revoke"), &[("csrf", &csrf)]);
    assert_eq!(revoked.status, 303);
    app.call("GET", "/account/info", Some(&key))
        .assert_error(401, "API_KEY_INVALID");
    assert_eq!(
        web.get(&format!("/keys/{id}")).status,
        404,
        "a revoked key has no page"
    );
}

#[test]
fn an_agency_owner_sees_the_teams_keys_but_opens_only_their_own() {
    let app = spawn_app();
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "euro", "100");
    let member = app.user("pro");
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Manager).unwrap();
    app.key(member);
    let theirs: i64 = app.scalar("SELECT MAX(id) FROM api_keys", &[]);
    app.key(agency);
    let own: i64 = app.scalar("SELECT MAX(id) FROM api_keys", &[]);

    let owner = logged_in(&app, agency);
    let list = owner.get("/keys").body;
    assert!(
        list.contains(&format!(r#"id="key-{theirs}""#))
            && list.contains(&format!(r#"id="key-{own}""#))
    );
    assert_eq!(
        owner.get(&format!("/keys/{theirs}")).status,
        404,
        "not theirs to change"
    );
    let m = logged_in(&app, member);
    let seen = m.get("/keys").body;
    assert!(seen.contains(&format!(r#"id="key-{theirs}""#)));
    assert!(
        !seen.contains(&format!(r#"id="key-{own}""#)),
        "a member does not see the agency's keys"
    );
    let refused = m.post(
        &format!("/keys/{own}/revoke"),
        &[("csrf", &m.get("/keys").csrf())],
    );
    assert_eq!(refused.status, 404);
}

#[test]
fn a_new_tracker_url_is_shown_once_and_the_old_one_stops() {
    let app = spawn_app();
    let (user, _, _) = app.manager();
    let web = logged_in(&app, user);
    let csrf = web.get("/keys").csrf();
    let first = web.post("/tracker/rotate", &[("csrf", &csrf)]);
    let old = secret(&first.body, "/api/v1/ingest/trk_");
    let second = web.post("/tracker/rotate", &[("csrf", &csrf)]);
    let new = secret(&second.body, "/api/v1/ingest/trk_");
    assert_ne!(old, new);
    assert!(!web.get("/keys").body.contains(&new), "shown once");
    let root = web.root.clone();
    let gone = ureq::get(&format!("{root}{old}?event=lead&txid=1")).call();
    assert!(
        matches!(gone, Err(ureq::Error::Status(401 | 403, _))),
        "{gone:?}"
    );
}

#[test]
fn the_keys_download_with_their_permissions_and_webhook_but_never_a_secret() {
    let app = spawn_app();
    let user = app.user("pro");
    app.cabinet(user, "euro", "100");
    let rx = Receiver::start(200);
    let (id, key, secret) = app.hook_key(user, &rx.url);
    let web = logged_in(&app, user);
    assert!(
        web.get("/keys").body.contains("/keys?format=csv"),
        "the link"
    );

    let csv = web.get("/keys?format=csv");
    assert_eq!(csv.status, 200, "{}", csv.body);
    let lines: Vec<&str> = csv.body.lines().collect();
    assert_eq!(
        lines[0],
        "id,owner,manage,postbacks,partner,account_ids,webhook_url,last_used_at"
    );
    assert_eq!(lines.len(), 2, "{lines:?}");
    let email = app
        .services
        .db
        .read_blocking(move |c| adcab::store::users::get(c, user))
        .unwrap()
        .unwrap()
        .email;
    assert_eq!(
        lines[1],
        format!("{id},{email},true,false,false,all,{},", rx.url)
    );
    assert!(
        !csv.body.contains(&secret) && !csv.body.contains(&key),
        "no secret in a download"
    );
}
