//! One campaign's page acted on where it is seen: each button of its action bar goes through
//! the operation the API's call makes and returns to `back`; a refusal is shown beside its
//! field in the person's language; a viewer sees no buttons and is refused when posting; the
//! history reads as sentences; the hourly stats download as CSV.

use adcab::ops::{self, TeamAccess};
use adcab::store::{groups, history};

use super::logged_in;
use crate::helpers::{spawn_app, Camp, TestApp};

fn one(app: &TestApp, sql: &str, ad: i64) -> i64 {
    app.scalar(sql, &[ad])
}

fn status(app: &TestApp, ad: i64) -> String {
    app.scalar("SELECT status FROM campaigns WHERE ad_id = ?1", &[ad])
}

fn page_of(cabinet: i64, ad: i64) -> String {
    format!("/campaigns/{cabinet}/{ad}")
}

#[test]
fn the_switch_pauses_and_resumes_and_returns_to_the_page_that_sent_it() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let page = web.get(&page_of(cabinet, ad));
    assert!(
        page.body
            .contains(&format!(r#"action="/campaigns/{cabinet}/{ad}/pause""#))
            && page.body.contains(r#"role="switch" aria-checked="true""#),
        "an on switch that pauses: {}",
        page.body
    );
    let csrf = page.csrf();

    let paused = web.post(
        &format!("{}/pause", page_of(cabinet, ad)),
        &[("csrf", &csrf), ("back", "/campaigns?status=Active")],
    );
    assert_eq!(paused.status, 303, "{}", paused.body);
    assert_eq!(paused.header("location"), Some("/campaigns?status=Active"));
    assert_eq!(
        one(&app, "SELECT active FROM campaigns WHERE ad_id = ?1", ad),
        0
    );
    let off = web.get(&page_of(cabinet, ad)).body;
    assert!(
        off.contains(&format!(r#"action="/campaigns/{cabinet}/{ad}/resume""#))
            && off.contains(r#"aria-checked="false""#),
        "now an off switch that resumes"
    );

    let resumed = web.post(
        &format!("{}/resume", page_of(cabinet, ad)),
        &[("csrf", &csrf), ("back", "https://evil.example/")],
    );
    assert_eq!(resumed.status, 303);
    assert_eq!(
        resumed.header("location"),
        Some(page_of(cabinet, ad).as_str()),
        "another site is not a place to return to"
    );
    assert_eq!(
        one(&app, "SELECT active FROM campaigns WHERE ad_id = ?1", ad),
        1
    );
    let entries = app
        .services
        .db
        .read_blocking(move |c| history::list(c, cabinet, ad))
        .unwrap();
    let actions: Vec<(&str, &str)> = entries
        .iter()
        .map(|e| (e.source.as_str(), e.action.as_str()))
        .collect();
    assert!(
        actions.ends_with(&[("panel", "pause"), ("panel", "resume")]),
        "{actions:?}"
    );
}

#[test]
fn budget_is_added_and_withdrawn_and_too_much_is_refused_beside_the_amount() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let csrf = web.get(&page_of(cabinet, ad)).csrf();
    let path = format!("{}/budget", page_of(cabinet, ad));
    // What the campaign was given: its budget left plus what it spent while the test runs.
    let budget = || {
        one(
            &app,
            "SELECT budget_micros + spent_micros FROM campaign_counters WHERE ad_id = ?1",
            ad,
        )
    };
    assert_eq!(budget(), 10_000_000);

    let added = web.post(
        &path,
        &[("csrf", &csrf), ("amount", "5.00"), ("direction", "add")],
    );
    assert_eq!(added.status, 303, "{}", added.body);
    assert_eq!(budget(), 15_000_000);
    let withdrawn = web.post(
        &path,
        &[("csrf", &csrf), ("amount", "3"), ("direction", "withdraw")],
    );
    assert_eq!(withdrawn.status, 303, "{}", withdrawn.body);
    assert_eq!(budget(), 12_000_000);

    let too_much = web.post(
        &path,
        &[
            ("csrf", &csrf),
            ("amount", "500"),
            ("direction", "withdraw"),
        ],
    );
    assert_eq!(too_much.status, 422);
    let form = &too_much.body[too_much.body.find(r#"<form id="budget""#).unwrap()..];
    let form = &form[..form.find("</form>").unwrap()];
    assert!(
        form.contains(r#"data-param="amount">The campaign has less budget than this amount."#)
            && form.contains(r#"value="500""#),
        "the refusal and what was sent, in the budget form: {form}"
    );
    assert_eq!(budget(), 12_000_000, "nothing moved");

    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {user}"
    ));
    let in_russian = web.post(
        &path,
        &[
            ("csrf", &csrf),
            ("amount", "500"),
            ("direction", "withdraw"),
        ],
    );
    assert!(
        in_russian
            .body
            .contains(r#"data-param="amount">В бюджете кампании меньше этой суммы."#),
        "{}",
        in_russian.body
    );
}

#[test]
fn the_bid_is_set_in_place_and_one_under_the_minimum_is_refused_beside_it() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let page = web.get(&page_of(cabinet, ad));
    assert!(
        page.body.contains(r#"<form class="inline" id="cpm""#),
        "{}",
        page.body
    );
    let csrf = page.csrf();
    let path = format!("{}/cpm", page_of(cabinet, ad));

    let set = web.post(&path, &[("csrf", &csrf), ("cpm", "2.50")]);
    assert_eq!(set.status, 303, "{}", set.body);
    assert_eq!(
        one(
            &app,
            "SELECT cpm_micros FROM campaigns WHERE ad_id = ?1",
            ad
        ),
        2_500_000
    );

    let low = web.post(&path, &[("csrf", &csrf), ("cpm", "0.10")]);
    assert_eq!(low.status, 422);
    let form = &low.body[low.body.find(r#"id="cpm""#).unwrap()..];
    let form = &form[..form.find("</form>").unwrap()];
    assert!(
        form.contains(r#"data-param="cpm">The bid is below the platform's minimum of 1.00"#)
            && form.contains(r#"value="0.10""#),
        "the refusal beside the bid: {form}"
    );
    assert_eq!(
        one(
            &app,
            "SELECT cpm_micros FROM campaigns WHERE ad_id = ?1",
            ad
        ),
        2_500_000
    );
    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {user}"
    ));
    let ru = web.post(&path, &[("csrf", &csrf), ("cpm", "0.10")]);
    assert!(
        ru.body
            .contains(r#"data-param="cpm">Ставка ниже минимальной ставки платформы: 1,00"#),
        "{}",
        ru.body
    );
}

#[test]
fn history_reads_as_sentences_with_the_bid_before_and_after_and_the_actor() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let csrf = web.get(&page_of(cabinet, ad)).csrf();
    let set = web.post(
        &format!("{}/cpm", page_of(cabinet, ad)),
        &[("csrf", &csrf), ("cpm", "2.50")],
    );
    assert_eq!(set.status, 303);
    // What an automation rule's change stores (`jobs::automation`), read back on the page.
    let details = serde_json::json!({
        "rule": 7, "name": "Scale winners",
        "change": { "type": "cpm", "from": "2.50", "to": "3.00" }
    });
    app.services
        .db
        .write_blocking(move |tx| {
            history::record(
                tx,
                cabinet,
                ad,
                "2026-01-01T00:00:00Z",
                history::Source::Automation.into(),
                "rule",
                &details,
            )
        })
        .unwrap();

    let page = web.get(&page_of(cabinet, ad)).body;
    let email: String = app.scalar("SELECT email FROM users WHERE id = ?1", &[user]);
    assert!(
        page.contains(&format!(
            "Bid changed from 2.00 to 2.50 EUR by {email} (panel)"
        )),
        "{page}"
    );
    assert!(page.contains("Bid changed from 2.50 to 3.00 EUR by automation, rule Scale winners"));
    assert!(page.contains("Campaign created: “Running” in the panel"));
    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {user}"
    ));
    let ru = web.get(&page_of(cabinet, ad)).body;
    assert!(
        ru.contains(
            "Ставка CPM изменена с 2.50 до 3.00 EUR — автоматизацией, правило «Scale winners»"
        ),
        "{ru}"
    );
}

#[test]
fn a_copy_with_changes_is_queued_into_a_group_and_made_by_the_worker() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let group = app
        .services
        .db
        .write_blocking(move |tx| groups::insert(tx, cabinet, "Spring", "#4A90D9"))
        .unwrap();
    let web = logged_in(&app, user);
    let page = web.get(&page_of(cabinet, ad));
    assert!(page
        .body
        .contains(&format!(r#"<option value="{group}">Spring</option>"#)));
    let sent = web.post(
        &format!("{}/copy", page_of(cabinet, ad)),
        &[
            ("csrf", &page.csrf()),
            ("title", "Running copy"),
            ("cpm", "3.00"),
            ("budget", ""),
            ("group_id", &group.to_string()),
        ],
    );
    assert_eq!(sent.status, 303, "{}", sent.body);
    app.run_tasks();
    let copy: i64 = app.scalar(
        "SELECT ad_id FROM campaigns WHERE title = 'Running copy'",
        &[],
    );
    assert_ne!(copy, ad);
    assert_eq!(
        one(
            &app,
            "SELECT cpm_micros FROM campaigns WHERE ad_id = ?1",
            copy
        ),
        3_000_000
    );
    assert_eq!(
        one(
            &app,
            "SELECT group_id FROM campaigns WHERE ad_id = ?1",
            copy
        ),
        group
    );

    let bad = web.post(
        &format!("{}/copy", page_of(cabinet, ad)),
        &[("csrf", &page.csrf()), ("cpm", "1.234")],
    );
    assert_eq!(bad.status, 422);
    let form = &bad.body[bad.body.find(r#"<form id="copy""#).unwrap()..];
    assert!(
        form[..form.find("</form>").unwrap()].contains(r#"data-param="cpm""#),
        "beside the copy's bid"
    );
}

#[test]
fn recreate_is_offered_for_a_declined_campaign_only_and_queues_its_remake() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let running = app.active_campaign(cabinet);
    let old = app.campaign(cabinet, Camp::channel("Loud", "https://t.me/alpha_chan"));
    ops::sim_review(&app.services, cabinet, old, false, Some("Text formatting")).unwrap();
    let web = logged_in(&app, user);
    assert!(!web
        .get(&page_of(cabinet, running))
        .body
        .contains(r#"id="recreate""#));
    let page = web.get(&page_of(cabinet, old));
    assert!(page.body.contains(r#"id="recreate""#));
    let csrf = page.csrf();

    let refused = web.post(
        &format!("{}/recreate", page_of(cabinet, running)),
        &[("csrf", &csrf)],
    );
    assert_eq!(refused.status, 422);
    assert!(refused
        .body
        .contains("Only a declined campaign can be recreated."));

    let sent = web.post(
        &format!("{}/recreate", page_of(cabinet, old)),
        &[("csrf", &csrf), ("back", "/campaigns")],
    );
    assert_eq!(sent.status, 303, "{}", sent.body);
    assert_eq!(sent.header("location"), Some("/campaigns"));
    app.run_tasks();
    assert_eq!(status(&app, old), "Deleted");
    let made: i64 = app.scalar(
        "SELECT COUNT(*) FROM campaigns WHERE title = 'Loud' AND status = 'In Review'",
        &[],
    );
    assert_eq!(made, 1);
}

#[test]
fn delete_asks_first_and_deletes_only_with_the_confirmation() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let page = web.get(&page_of(cabinet, ad));
    assert!(
        page.body.contains("<strong>Delete?</strong>")
            && page.body.contains(r#"name="confirm" value="yes""#),
        "the question and its confirmation"
    );
    let path = format!("{}/delete", page_of(cabinet, ad));

    let unconfirmed = web.post(&path, &[("csrf", &page.csrf())]);
    assert_eq!(unconfirmed.status, 422);
    assert!(unconfirmed
        .body
        .contains(r#"data-param="confirm">Confirm the deletion"#));
    assert_eq!(status(&app, ad), "Active");

    let deleted = web.post(
        &path,
        &[
            ("csrf", &page.csrf()),
            ("confirm", "yes"),
            ("back", &page_of(cabinet, ad)),
        ],
    );
    assert_eq!(deleted.status, 303, "{}", deleted.body);
    assert_eq!(
        deleted.header("location"),
        Some(format!("/campaigns?account_id={cabinet}").as_str()),
        "a deleted campaign's page has nothing to return to"
    );
    let left: i64 = app.scalar(
        "SELECT COUNT(*) FROM campaigns WHERE ad_id = ?1 AND status != 'Deleted'",
        &[ad],
    );
    assert_eq!(left, 0);
}

#[test]
fn a_viewer_sees_no_action_buttons_and_is_refused_each_action() {
    let app = spawn_app();
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "euro", "100");
    let ad = app.active_campaign(shared);
    let member = app.user("pro");
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Viewer).unwrap();
    let web = logged_in(&app, member);
    let page = web.get(&page_of(shared, ad));
    assert_eq!(page.status, 200);
    for action in ["pause", "budget", "cpm", "copy", "delete"] {
        assert!(
            !page
                .body
                .contains(&format!(r#"action="/campaigns/{shared}/{ad}/{action}""#)),
            "no {action} button for a viewer"
        );
    }
    assert!(!page.body.contains(r#"role="toolbar""#));
    let csrf = page.csrf();
    let fields: [(&str, Vec<(&str, &str)>); 7] = [
        ("pause", vec![]),
        ("resume", vec![]),
        ("budget", vec![("amount", "1"), ("direction", "add")]),
        ("cpm", vec![("cpm", "3.00")]),
        ("copy", vec![]),
        ("recreate", vec![]),
        ("delete", vec![("confirm", "yes")]),
    ];
    for (action, extra) in fields {
        let mut sent = vec![("csrf", csrf.as_str())];
        sent.extend(extra);
        let refused = web.post(&format!("{}/{action}", page_of(shared, ad)), &sent);
        assert_eq!(refused.status, 403, "{action}: {}", refused.body);
    }
    assert_eq!(status(&app, ad), "Active");
    let tasks: i64 = app.scalar("SELECT COUNT(*) FROM tasks", &[]);
    assert_eq!(tasks, 0);
}

#[test]
fn the_hourly_stats_download_as_csv_for_the_charts_period() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    app.align_hour();
    let ad = app.funded(cabinet, 500_000_000);
    app.advance(3 * 3600);
    let web = logged_in(&app, user);
    let csv = web.get(&format!("{}?period=7d&format=csv", page_of(cabinet, ad)));
    assert_eq!(csv.status, 200, "{}", csv.body);
    assert!(csv.header("content-type").unwrap().starts_with("text/csv"));
    let mut lines = csv.body.lines();
    assert_eq!(
        lines.next(),
        Some("hour,views,clicks,actions,spent,conversions")
    );
    let rows: Vec<&str> = lines.collect();
    assert!(rows.len() >= 3, "a row per delivered hour: {rows:?}");
    let views: i64 = rows
        .iter()
        .map(|r| r.split(',').nth(1).unwrap().parse::<i64>().unwrap())
        .sum();
    assert_eq!(
        views,
        one(
            &app,
            "SELECT SUM(views) FROM hourly_stats WHERE ad_id = ?1",
            ad
        ),
        "the hours add up to the campaign's stored hourly views"
    );
    assert!(
        web.get(&page_of(cabinet, ad))
            .body
            .contains(&format!("/campaigns/{cabinet}/{ad}?format=csv")),
        "the page links its download"
    );
    let xlsx = web.get(&format!("{}?format=xlsx", page_of(cabinet, ad)));
    assert_eq!(xlsx.status, 200);
    assert!(xlsx
        .header("content-type")
        .unwrap()
        .contains("spreadsheetml"));
    assert!(xlsx
        .header("content-disposition")
        .unwrap()
        .contains(&format!("campaign-{cabinet}-{ad}-24h.xlsx")));
    assert_eq!(
        web.get(&format!("{}?format=pdf", page_of(cabinet, ad)))
            .status,
        400,
        "an unknown format is refused"
    );
}

#[test]
fn the_page_reads_in_russian_for_a_person_who_chose_it() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.approved(
        cabinet,
        Camp {
            targeting: serde_json::json!({ "countries": ["DE", "FR"], "languages": ["en"] }),
            ..Camp::site("Shop", "https://shop.example.com/")
        },
    );
    let web = logged_in(&app, user);
    let english = web.get(&page_of(cabinet, ad)).body;
    assert!(
        english.contains("🇩🇪 DE Germany") && english.contains("🇫🇷 FR France"),
        "countries as flag, code and name: {english}"
    );
    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {user}"
    ));
    let page = web.get(&page_of(cabinet, ad));
    assert_eq!(page.status, 200);
    for russian in [
        "Бюджет",
        "Расход",
        "Показы",
        "Клики",
        "Переходы",
        "Ставка CPM",
        "Настройки",
        "История",
        "Пополнить",
        "Вывести",
        "Копировать",
        "Удалить?",
        "Кампания создана: «Shop» — в панели",
        "🇩🇪 DE",
    ] {
        assert!(page.body.contains(russian), "{russian} in {}", page.body);
    }
    for english in ["Delivery", "Settings", "History", "Withdraw", "Set bid"] {
        assert!(!page.body.contains(english), "{english} left in English");
    }
}

#[test]
fn the_schedule_is_ticked_on_the_week_grid_with_a_zone_by_name_and_shown_as_the_grid() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let page = web.get(&page_of(cabinet, ad));
    assert!(
        page.body.contains(r#"name="schedule.days.mon" value="9""#),
        "the grid's boxes in the edit form"
    );
    assert!(page.body.contains("Runs around the clock."));
    let saved = web.post(
        &format!("{}/edit", page_of(cabinet, ad)),
        &[
            ("csrf", &page.csrf()),
            ("schedule.grid", "1"),
            ("schedule.days.mon", "9"),
            ("schedule.days.mon", "10"),
            ("schedule.days.sat", "22"),
            ("schedule.timezone", "UTC"),
        ],
    );
    assert_eq!(saved.status, 303, "{}", saved.body);
    let stored: String = app.scalar("SELECT schedule FROM campaigns WHERE ad_id = ?1", &[ad]);
    let stored: serde_json::Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(stored["days"]["mon"], serde_json::json!([9, 10]));
    assert_eq!(stored["days"]["sat"], serde_json::json!([22]));
    assert_eq!(stored["timezone"], "+00:00");
    let shown = web.get(&page_of(cabinet, ad)).body;
    let grid = &shown[shown.find(r#"<table class="week-grid""#).unwrap()..];
    assert_eq!(
        grid[..grid.find("</table>").unwrap()]
            .matches(r#"class="on""#)
            .count(),
        3,
        "three hours on in the read-only grid"
    );
    assert!(
        shown.contains(r#"name="schedule.days.mon" value="9" checked"#),
        "and ticked in the form"
    );
    let entries = app
        .services
        .db
        .read_blocking(move |c| history::list(c, cabinet, ad))
        .unwrap();
    assert!(entries.last().unwrap().details.as_ref().unwrap()["schedule"].is_object());
}
