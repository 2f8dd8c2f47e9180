//! Acting from the panel: bulk actions on selected campaigns go through the API's task
//! machinery (and its checks), show on the tasks page, and can be cancelled and resumed there;
//! a campaign's edit and Auto CPM forms go through the API's own edit.

use adcab::ops::{self, TeamAccess};
use adcab::store::history;

use super::logged_in;
use crate::helpers::{spawn_app, spawn_app_with, TestApp};

fn status(app: &TestApp, account: i64, ad: i64) -> String {
    app.scalar(
        "SELECT status FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        &[account, ad],
    )
}

#[test]
fn selected_campaigns_of_two_cabinets_are_paused_by_one_task_each_with_panel_as_source() {
    let app = spawn_app();
    let (user, first, _) = app.manager();
    let second = app.cabinet(user, "ton", "100");
    let (a, b) = (app.active_campaign(first), app.active_campaign(first));
    let c = app.active_campaign(second);
    let untouched = app.active_campaign(first);
    let web = logged_in(&app, user);
    let csrf = web.get("/campaigns").csrf();

    let sent = web.post(
        "/campaigns/bulk",
        &[
            ("csrf", &csrf),
            ("action", "pause"),
            ("value", ""),
            ("ad", &format!("{first}:{a}")),
            ("ad", &format!("{first}:{b}")),
            ("ad", &format!("{second}:{c}")),
        ],
    );
    assert_eq!(sent.status, 303, "{}", sent.body);
    assert_eq!(sent.location.as_deref(), Some("/tasks"));
    let queued: i64 = app.scalar(
        "SELECT COUNT(*) FROM tasks WHERE owner_id = ?1 AND source = 'panel'",
        &[user],
    );
    assert_eq!(queued, 2, "one task per cabinet");
    app.run_tasks();
    for (account, ad) in [(first, a), (first, b), (second, c)] {
        assert_eq!(
            status(&app, account, ad),
            "On Hold",
            "switched off by the client"
        );
    }
    assert_eq!(status(&app, first, untouched), "Active");
    let entries = app
        .services
        .db
        .read_blocking(move |conn| history::list(conn, first, a))
        .unwrap();
    let last = entries.last().unwrap();
    assert_eq!(
        (last.source.as_str(), last.action.as_str()),
        ("panel", "bulk_pause")
    );

    let tasks = web.get("/tasks").body;
    assert_eq!(tasks.matches("completed").count(), 2, "{tasks}");
    assert!(
        tasks.contains("2/2") && tasks.contains("1/1"),
        "progress of each"
    );
}

#[test]
fn a_declined_campaign_is_recreated_from_the_bulk_form_with_panel_as_source() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let old = app.create_through_api(&key, cabinet, serde_json::json!({}));
    ops::sim_review(
        &app.services,
        cabinet,
        old,
        false,
        Some("Misleading claims"),
    )
    .unwrap();
    assert_eq!(status(&app, cabinet, old), "Declined");
    let web = logged_in(&app, user);
    let page = web.get("/campaigns");
    assert!(
        page.body.contains("value=\"recreate\""),
        "offered in the form"
    );
    let sent = web.post(
        "/campaigns/bulk",
        &[
            ("csrf", &page.csrf()),
            ("action", "recreate"),
            ("value", ""),
            ("ad", &format!("{cabinet}:{old}")),
        ],
    );
    assert_eq!(sent.status, 303, "{}", sent.body);
    app.run_tasks();
    assert_eq!(status(&app, cabinet, old), "Deleted");
    let new: i64 = app.scalar(
        "SELECT ad_id FROM campaigns WHERE account_id = ?1 AND ad_id != ?2",
        &[cabinet, old],
    );
    assert_eq!(status(&app, cabinet, new), "In Review");
    let entries = app
        .services
        .db
        .read_blocking(move |conn| history::list(conn, cabinet, old))
        .unwrap();
    let last = entries.last().unwrap();
    assert_eq!(
        (last.source.as_str(), last.action.as_str()),
        ("panel", "recreated_as")
    );
}

#[test]
fn a_bad_amount_or_an_empty_selection_is_named_next_to_the_actions_and_nothing_is_queued() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let csrf = web.get("/campaigns").csrf();
    let selected = format!("{cabinet}:{ad}");

    let bad = web.post(
        "/campaigns/bulk",
        &[
            ("csrf", &csrf),
            ("action", "add_budget"),
            ("value", "ten"),
            ("ad", &selected),
        ],
    );
    assert_eq!(bad.status, 422);
    assert!(bad.body.contains(r#"data-param="amount""#), "{}", bad.body);
    let precise = web.post(
        "/campaigns/bulk",
        &[
            ("csrf", &csrf),
            ("action", "set_cpm"),
            ("value", "1.234"),
            ("ad", &selected),
        ],
    );
    assert_eq!(precise.status, 422, "EUR bids have two decimals");
    assert!(precise.body.contains(r#"data-param="cpm""#));
    let none = web.post("/campaigns/bulk", &[("csrf", &csrf), ("action", "pause")]);
    assert_eq!(none.status, 422);
    assert!(none.body.contains("Select at least one campaign."));
    let gone = web.post(
        "/campaigns/bulk",
        &[
            ("csrf", &csrf),
            ("action", "pause"),
            ("ad", &format!("{cabinet}:999")),
        ],
    );
    assert_eq!(gone.status, 422);
    assert!(
        gone.body.contains("not live campaigns"),
        "the API's UNKNOWN_AD_IDS sentence"
    );
    let queued: i64 = app.scalar("SELECT COUNT(*) FROM tasks", &[]);
    assert_eq!(queued, 0);
    assert_eq!(status(&app, cabinet, ad), "Active");
}

#[test]
fn a_viewer_cannot_act_or_edit_and_sees_no_selectable_boxes() {
    let app = spawn_app();
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "euro", "100");
    let ad = app.active_campaign(shared);
    let member = app.user("pro");
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Viewer).unwrap();
    let web = logged_in(&app, member);
    let list = web.get("/campaigns");
    assert!(
        list.body
            .contains(&format!(r#"value="{shared}:{ad}" disabled"#)),
        "{}",
        list.body
    );
    let refused = web.post(
        "/campaigns/bulk",
        &[
            ("csrf", &list.csrf()),
            ("action", "pause"),
            ("ad", &format!("{shared}:{ad}")),
        ],
    );
    assert_eq!(refused.status, 422);
    assert!(refused
        .body
        .contains("You have Viewer access to this cabinet."));
    assert_eq!(status(&app, shared, ad), "Active");
    let page = web.get(&format!("/campaigns/{shared}/{ad}"));
    assert!(
        !page.body.contains(r#"<form id="edit""#),
        "no edit form for a viewer"
    );
    let edit = web.post(
        &format!("/campaigns/{shared}/{ad}/edit"),
        &[("csrf", &list.csrf()), ("cpm", "3.00")],
    );
    assert_eq!(edit.status, 403);

    ops::member_add(&app.services, agency, member, shared, TeamAccess::Manager).unwrap();
    let allowed = web.post(
        "/campaigns/bulk",
        &[
            ("csrf", &list.csrf()),
            ("action", "pause"),
            ("ad", &format!("{shared}:{ad}")),
        ],
    );
    assert_eq!(allowed.status, 303, "a manager may");
}

#[test]
fn a_task_is_resumed_or_cancelled_only_by_its_owner_from_the_tasks_page() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let csrf = web.get("/campaigns").csrf();
    // More than the cabinet's balance of 1000: the task pauses until money arrives.
    let sent = web.post(
        "/campaigns/bulk",
        &[
            ("csrf", &csrf),
            ("action", "add_budget"),
            ("value", "5000"),
            ("ad", &format!("{cabinet}:{ad}")),
        ],
    );
    assert_eq!(sent.status, 303, "{}", sent.body);
    app.run_tasks();
    let task: i64 = app.scalar("SELECT MAX(id) FROM tasks", &[]);
    let state =
        |app: &TestApp| app.scalar::<String>("SELECT status FROM tasks WHERE id = ?1", &[task]);
    assert_eq!(state(&app), "paused");
    let page = web.get("/tasks").body;
    assert!(
        page.contains(&format!(r#"action="/tasks/{task}/resume""#)),
        "{page}"
    );
    assert!(page.contains(&format!(r#"action="/tasks/{task}/cancel""#)));

    let (other, _, _) = app.manager();
    let stranger = logged_in(&app, other);
    let theirs = stranger.get("/tasks");
    assert!(
        !theirs.body.contains(&format!("task-{task}")),
        "not listed for another person"
    );
    for act in ["cancel", "resume"] {
        let refused = stranger.post(&format!("/tasks/{task}/{act}"), &[("csrf", &theirs.csrf())]);
        assert_eq!(refused.status, 404, "{act}");
    }
    assert_eq!(state(&app), "paused");

    let resumed = web.post(&format!("/tasks/{task}/resume"), &[("csrf", &csrf)]);
    assert_eq!(resumed.status, 303);
    assert_ne!(state(&app), "cancelled");
    let cancelled = web.post(&format!("/tasks/{task}/cancel"), &[("csrf", &csrf)]);
    assert_eq!(cancelled.status, 303);
    assert_eq!(state(&app), "cancelled");
    let again = web.post(&format!("/tasks/{task}/cancel"), &[("csrf", &csrf)]);
    assert_eq!(again.status, 409, "a finished task");
    assert!(again.body.contains("already cancelled"));
}

#[test]
fn an_edit_sends_only_the_changed_fields_through_the_api_and_names_a_refused_one() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let page = web.get(&format!("/campaigns/{cabinet}/{ad}"));
    assert!(page.body.contains(r#"<form id="edit""#), "{}", page.body);
    let csrf = page.csrf();
    let path = format!("/campaigns/{cabinet}/{ad}/edit");
    let title: String = app.scalar("SELECT title FROM campaigns WHERE ad_id = ?1", &[ad]);

    let precise = web.post(
        &path,
        &[("csrf", &csrf), ("title", &title), ("cpm", "1.234")],
    );
    assert_eq!(precise.status, 422);
    assert!(
        precise.body.contains(r#"data-param="cpm""#),
        "{}",
        precise.body
    );
    assert!(
        precise.body.contains(r#"value="1.234""#),
        "what was sent stays in the field"
    );
    let unchanged = web.post(
        &path,
        &[("csrf", &csrf), ("title", &title), ("cpm", "2.00")],
    );
    assert_eq!(unchanged.status, 422);
    assert!(unchanged.body.contains("Change at least one field."));

    let saved = web.post(
        &path,
        &[("csrf", &csrf), ("title", &title), ("cpm", "3.50")],
    );
    assert_eq!(saved.status, 303, "{}", saved.body);
    let cpm: i64 = app.scalar("SELECT cpm_micros FROM campaigns WHERE ad_id = ?1", &[ad]);
    assert_eq!(cpm, 3_500_000);
    assert_eq!(
        status(&app, cabinet, ad),
        "Active",
        "a bid alone does not go back to review"
    );
    let entries = app
        .services
        .db
        .read_blocking(move |conn| history::list(conn, cabinet, ad))
        .unwrap();
    let last = entries.last().unwrap();
    assert_eq!(
        (last.source.as_str(), last.action.as_str()),
        ("panel", "edit")
    );
    assert_eq!(
        last.details.as_ref().unwrap()["cpm"],
        "3.50",
        "only the changed field"
    );
    assert!(last.details.as_ref().unwrap().get("title").is_none());
}

#[test]
fn the_edit_form_switches_off_caps_and_names_each_refused_field() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let csrf = web.get(&format!("/campaigns/{cabinet}/{ad}")).csrf();
    let path = format!("/campaigns/{cabinet}/{ad}/edit");

    let views = web.post(&path, &[("csrf", &csrf), ("views_per_user", "7")]);
    assert_eq!(views.status, 422);
    assert!(
        views.body.contains(r#"data-param="views_per_user""#),
        "{}",
        views.body
    );
    let schedule = web.post(
        &path,
        &[
            ("csrf", &csrf),
            ("schedule.grid", "1"),
            ("schedule.days.mon", "25"),
        ],
    );
    assert_eq!(schedule.status, 422);
    assert!(
        schedule
            .body
            .contains(r#"data-param="schedule.days.mon">Hours run from 0 to 23."#),
        "{}",
        schedule.body
    );

    let off = web.post(&path, &[("csrf", &csrf), ("active", "off")]);
    assert_eq!(off.status, 303, "{}", off.body);
    assert_eq!(status(&app, cabinet, ad), "On Hold", "switched off");
    let capped = web.post(
        &path,
        &[
            ("csrf", &csrf),
            ("daily_budget", "5.00"),
            ("views_per_user", "2"),
        ],
    );
    assert_eq!(capped.status, 303, "{}", capped.body);
    let cap: i64 = app.scalar(
        "SELECT daily_budget_micros FROM campaigns WHERE ad_id = ?1",
        &[ad],
    );
    let per_user: i64 = app.scalar(
        "SELECT views_per_user FROM campaigns WHERE ad_id = ?1",
        &[ad],
    );
    assert_eq!((cap, per_user), (5_000_000, 2));

    let uncapped = web.post(&path, &[("csrf", &csrf), ("daily_budget", "")]);
    assert_eq!(uncapped.status, 303);
    let cap: Option<i64> = app.scalar(
        "SELECT daily_budget_micros FROM campaigns WHERE ad_id = ?1",
        &[ad],
    );
    assert_eq!(cap, None, "empty removes the cap");
}

#[test]
fn auto_cpm_is_set_from_the_campaign_page_and_its_decisions_are_listed() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    app.align_hour();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let page = web.get(&format!("/campaigns/{cabinet}/{ad}"));
    assert!(page.body.contains("Not set up."), "{}", page.body);
    let csrf = page.csrf();
    let path = format!("/campaigns/{cabinet}/{ad}/auto-cpm");
    let post = |min: &str| {
        let fields = [
            ("csrf", csrf.as_str()),
            ("enabled", "on"),
            ("goal", "pace"),
            ("cpa_from", "actions"),
            ("target", "50"),
            ("min_cpm", min),
            ("max_cpm", "4"),
        ];
        web.post(&path, &fields)
    };
    let refused = post("5");
    assert_eq!(refused.status, 422);
    assert!(
        refused.body.contains(r#"data-param="auto_cpm.max_cpm""#),
        "the API's refusal, beside the Auto CPM form: {}",
        refused.body
    );
    assert_eq!(post("1").status, 303);
    let shown = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
    assert_eq!(shown["auto_cpm_enabled"], true);
    assert_eq!(shown["auto_cpm"]["goal"], "pace");
    assert_eq!(shown["auto_cpm"]["target"], "50.00");

    app.advance(7 * 3600);
    let page = web.get(&format!("/campaigns/{cabinet}/{ad}"));
    assert!(page.body.contains("spend of"), "the settings in words");
    assert!(
        page.body.contains("raised"),
        "a decision with its move: {}",
        page.body
    );
    let entries = app
        .services
        .db
        .read_blocking(move |conn| history::list(conn, cabinet, ad))
        .unwrap();
    let sources: Vec<(&str, &str)> = entries
        .iter()
        .map(|e| (e.source.as_str(), e.action.as_str()))
        .collect();
    assert!(sources.contains(&("panel", "edit")), "{sources:?}");
    assert!(sources.contains(&("automation", "auto_cpm")), "{sources:?}");
}

#[test]
fn changes_from_the_panel_count_against_a_write_budget_the_size_of_a_keys() {
    let app = spawn_app_with(|c| c.limits.writes_per_minute = 5);
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let csrf = web.get("/campaigns").csrf();
    let selected = format!("{cabinet}:{ad}");
    // Budgets are per minute of real time: start well inside one.
    crate::helpers::well_inside_a_minute();
    let answers: Vec<crate::helpers::Page> = (0..8)
        .map(|_| {
            web.post(
                "/campaigns/bulk",
                &[
                    ("csrf", &csrf),
                    ("action", "pause"),
                    ("value", ""),
                    ("ad", &selected),
                ],
            )
        })
        .collect();
    let statuses: Vec<u16> = answers.iter().map(|p| p.status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 303).count(),
        5,
        "{statuses:?}"
    );
    let limited: Vec<&crate::helpers::Page> = answers.iter().filter(|p| p.status == 429).collect();
    assert_eq!(limited.len(), 3, "{statuses:?}");
    assert!(limited[0].header("retry-after").is_some());
    assert!(limited[0].body.contains("faster than adcab takes them"));
    let queued: i64 = app.scalar(
        "SELECT COUNT(*) FROM tasks WHERE owner_id = ?1 AND source = 'panel'",
        &[user],
    );
    assert_eq!(queued, 5, "a refused change queues nothing");
    let out = web.post("/logout", &[("csrf", &csrf)]);
    assert_eq!(out.status, 303, "signing out is never refused");
}
