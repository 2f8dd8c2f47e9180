//! The team and simulator pages: an agency owner adds, changes and removes members (and only
//! an agency owner has a team); the simulator's clock and reviews in a trial.

use super::{access, logged_in, with_login};
use crate::helpers::{spawn_app, Camp};

#[test]
fn an_agency_owner_adds_changes_and_removes_members_who_then_reach_the_cabinet_or_not() {
    let app = spawn_app();
    let agency = app.user("agency");
    let cabinet = app.cabinet(agency, "euro", "100");
    let member = app.user("pro");
    let member_email = with_login(&app, member);
    let owner = logged_in(&app, agency);
    let csrf = owner.get("/team").csrf();

    let not_an_email = owner.post(
        "/team/invite",
        &[
            ("csrf", &csrf),
            ("email", "nobody"),
            ("cabinet", &cabinet.to_string()),
            ("access", "viewer"),
        ],
    );
    assert_eq!(not_an_email.status, 422);
    assert!(not_an_email.body.contains(r#"data-param="email""#));

    let added = owner.post(
        "/team/invite",
        &[
            ("csrf", &csrf),
            ("email", &member_email),
            ("cabinet", &cabinet.to_string()),
            ("access", "viewer"),
        ],
    );
    assert_eq!(added.status, 200, "{}", added.body);
    assert_eq!(access(&app, member, cabinet).as_deref(), Some("viewer"));
    let m = logged_in(&app, member);
    assert!(m
        .get("/cabinets")
        .body
        .contains(&format!("account_id={cabinet}")));

    let path = format!("/team/{member}/access");
    let changed = owner.post(
        &path,
        &[
            ("csrf", &csrf),
            ("cabinet", &cabinet.to_string()),
            ("access", "manager"),
        ],
    );
    assert_eq!(changed.status, 303);
    assert_eq!(access(&app, member, cabinet).as_deref(), Some("manager"));
    let page = owner.get("/team").body;
    assert!(page.contains(&format!(r#"id="member-{member}""#)) && page.contains(&member_email));

    let removed = owner.post(&format!("/team/{member}/remove"), &[("csrf", &csrf)]);
    assert_eq!(removed.status, 303);
    assert_eq!(access(&app, member, cabinet), None);
    assert!(
        !m.get("/cabinets")
            .body
            .contains(&format!("account_id={cabinet}")),
        "at once"
    );
    let again = owner.post(&format!("/team/{member}/remove"), &[("csrf", &csrf)]);
    assert_eq!(again.status, 422, "no such place in the team");
}

#[test]
fn only_an_agency_owner_has_a_team_page() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let web = logged_in(&app, user);
    assert_eq!(web.get("/team").status, 403);
    let csrf = web.get("/campaigns").csrf();
    let other = app.user("pro");
    let refused = web.post(
        "/team/invite",
        &[
            ("csrf", &csrf),
            ("email", "x@example.com"),
            ("cabinet", &cabinet.to_string()),
            ("access", "viewer"),
        ],
    );
    assert_eq!(refused.status, 403);
    assert_eq!(access(&app, other, cabinet), None);
}

#[test]
fn the_simulator_page_moves_the_clock_and_decides_reviews_in_the_persons_cabinets() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let waiting = app.campaign(
        cabinet,
        Camp::channel("Waiting review", "https://t.me/alpha_chan"),
    );
    let (_, foreign, _) = app.manager();
    let theirs = app.campaign(
        foreign,
        Camp::channel("Not yours", "https://t.me/alpha_chan"),
    );
    let web = logged_in(&app, user);
    let page = web.get("/sim");
    assert!(page.body.contains("Waiting review") && !page.body.contains("Not yours"));
    let csrf = page.csrf();

    let before = app.now();
    assert_eq!(
        web.post("/sim/advance", &[("csrf", &csrf), ("seconds", "3600")])
            .status,
        303
    );
    assert_eq!((app.now() - before).num_seconds() / 60, 60, "an hour on");
    assert_eq!(
        web.post("/sim/advance", &[("csrf", &csrf), ("seconds", "12345")])
            .status,
        400
    );

    let refused = web.post(
        &format!("/sim/review/{foreign}/{theirs}"),
        &[("csrf", &csrf), ("decision", "approve")],
    );
    assert_eq!(refused.status, 404);
    let approved = web.post(
        &format!("/sim/review/{cabinet}/{waiting}"),
        &[("csrf", &csrf), ("decision", "approve")],
    );
    assert_eq!(approved.status, 303);
    let status: String = app.scalar(
        "SELECT status FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        &[cabinet, waiting],
    );
    assert_eq!(status, "Active");
    assert!(!web.get("/sim").body.contains("Waiting review"), "decided");
    app.settle();
}

#[test]
fn only_a_person_who_may_change_a_cabinet_moves_the_simulators_clock() {
    let app = spawn_app();
    let agency = app.user("agency");
    let cabinet = app.cabinet(agency, "euro", "100");
    let viewer = app.user("pro");
    adcab::ops::member_add(
        &app.services,
        agency,
        viewer,
        cabinet,
        adcab::ops::TeamAccess::Viewer,
    )
    .unwrap();
    let free = app.user("free");
    let alone = app.user("pro");
    let before = app.now();
    for (who, person) in [
        ("a viewer", viewer),
        ("a free user", free),
        ("no cabinet", alone),
    ] {
        let web = logged_in(&app, person);
        let page = web.get("/sim");
        assert!(
            !page.body.contains("/sim/advance"),
            "{who} is offered no clock buttons"
        );
        let moved = web.post(
            "/sim/advance",
            &[("csrf", &page.csrf()), ("seconds", "604800")],
        );
        assert_eq!(moved.status, 403, "{who}");
    }
    assert!(
        (app.now() - before).num_seconds() < 60,
        "the clock did not move"
    );
    let web = logged_in(&app, agency);
    let page = web.get("/sim");
    let moved = web.post(
        "/sim/advance",
        &[("csrf", &page.csrf()), ("seconds", "3600")],
    );
    assert_eq!(moved.status, 303, "the owner moves it");
    app.settle();
}

#[test]
fn the_team_downloads_a_line_per_member_and_shared_cabinet() {
    use adcab::ops::{self, TeamAccess};
    let app = spawn_app();
    let agency = app.user("agency");
    let first = app.cabinet(agency, "euro", "100");
    let second = app.cabinet(agency, "ton", "100");
    let member = app.user("pro");
    let member_email = with_login(&app, member);
    ops::member_add(&app.services, agency, member, first, TeamAccess::Manager).unwrap();
    ops::member_add(&app.services, agency, member, second, TeamAccess::Viewer).unwrap();
    let owner = logged_in(&app, agency);
    assert!(
        owner.get("/team").body.contains("/team?format=csv"),
        "the link"
    );

    let csv = owner.get("/team?format=csv");
    assert_eq!(csv.status, 200, "{}", csv.body);
    let mut lines: Vec<&str> = csv.body.lines().collect();
    assert_eq!(
        lines.remove(0),
        "user_id,email,account_id,access,has_password"
    );
    lines.sort_unstable();
    let mut expected = vec![
        format!("{member},{member_email},{first},manager,true"),
        format!("{member},{member_email},{second},viewer,true"),
    ];
    expected.sort_unstable();
    assert_eq!(lines, expected);
    assert_eq!(
        logged_in(&app, member).get("/team?format=csv").status,
        403,
        "only the agency's owner reads the team"
    );
}
