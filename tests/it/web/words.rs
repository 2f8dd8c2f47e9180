//! The panel's words for what the lower layers refuse or report (#28): a field refused by
//! the create operation reads in the person's language beside its field while the API keeps
//! its English sentence; a task's outcome stored as a code reads in the person's language on
//! the tasks page and as the API's sentence in the API; the create form's hints follow the
//! cabinet chosen; and the form's city picker finds the platform's cities.

use adcab::ops::campaigns::bulk;
use adcab::ops::{self, Actor};
use adcab::store::cabinets;
use serde_json::json;

use super::logged_in;
use crate::helpers::spawn_app;

const RU: [(&str, &str); 1] = [("accept-language", "ru")];

#[test]
fn a_bad_cpm_is_refused_in_russian_beside_its_field_and_the_api_keeps_its_sentence() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let web = logged_in(&app, user);
    let csrf = web.get("/campaigns/new").csrf();
    let account = cabinet.to_string();
    let refused = web.post_with(
        "/campaigns/new",
        &[
            ("csrf", csrf.as_str()),
            ("account_id", &account),
            ("title", "Morning news"),
            ("text", "Fresh news every morning"),
            ("promote_url", "https://t.me/alpha_chan"),
            ("target_type", "channels"),
            ("channels", "@tech_daily"),
            ("cpm", "2,50"),
            ("budget", "20"),
        ],
        &RU,
    );
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(
        refused.body.contains(
            r#"<p class="error" role="alert" data-param="cpm">В поле «Ставка CPM» нужно число, например 2.50.</p>"#
        ),
        "{}",
        refused.body
    );
    assert!(!refused.body.contains("must be a decimal number"));
    let body = json!({
        "account_id": cabinet, "title": "Morning news", "text": "Fresh news every morning",
        "promote_url": "https://t.me/alpha_chan", "target_type": "channels",
        "channels": ["@tech_daily"], "cpm": "2,50", "budget": "20",
    });
    let err = app.write_err(
        "POST",
        "/campaigns",
        &key,
        Some(&body),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "cpm", "{err}");
    assert_eq!(
        err["error"],
        "cpm must be a decimal number: digits, optionally a point and more digits (no sign, spaces, exponent or separators).",
        "the API's sentence is unchanged"
    );
}

#[test]
fn a_task_stopped_by_an_expired_session_reads_in_russian_on_the_tasks_page_and_in_english_in_the_api(
) {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    // A pause queued for the owner, and the session expiring before the worker takes it (in
    // one write, so the server's own worker cannot run it first).
    let caps = app.services.platform.capabilities();
    app.services
        .db
        .write_blocking(move |tx| {
            let found = cabinets::get(tx, cabinet)?.expect("the cabinet");
            let body = json!({"action": "pause", "ad_ids": [ad]});
            let pause = bulk::read(&body, found.cabinet_type, caps)?;
            let queued = bulk::queue(tx, &Actor::automation(found), pause)?;
            cabinets::set_auth_expired(tx, cabinet, true)?;
            Ok::<_, ops::OpsError>(queued)
        })
        .unwrap();
    app.run_tasks();
    let task: i64 = app.scalar("SELECT MAX(id) FROM tasks", &[]);
    let stored: String = app.scalar("SELECT error FROM tasks WHERE id = ?1", &[task]);
    assert_eq!(stored, "adcab:session_expired", "stored as a code");
    let api = app.get_ok(&format!("/tasks/{task}"), &key);
    assert_eq!(api["data"]["status"], "failed", "{api}");
    assert_eq!(
        api["data"]["error"], "The cabinet's platform session expired; reconnect it in the panel.",
        "the API's sentence is unchanged"
    );
    let page = web.get_with("/tasks", &RU).body;
    assert!(
        page.contains("Сессия кабинета на платформе истекла; подключите его заново в панели."),
        "{page}"
    );
    assert!(
        !page.contains("adcab:session_expired"),
        "no code on the page"
    );
    let en = web.get("/tasks").body;
    assert!(
        en.contains("The cabinet's platform session expired; reconnect it in the panel."),
        "{en}"
    );
}

#[test]
fn the_create_forms_hints_follow_the_cabinet_chosen() {
    let app = spawn_app();
    let (user, euro, _) = app.manager();
    let ton = app.cabinet(user, "ton", "100");
    let web = logged_in(&app, user);
    let page = web.get("/campaigns/new").body;
    // Each cabinet's choice carries its hints for the page's script to swap.
    for (id, currency) in [(euro, "EUR"), (ton, "TON")] {
        let option = page
            .split("<option ")
            .find(|o| o.starts_with(&format!(r#"value="{id}""#)))
            .unwrap_or_else(|| panic!("no option for {id}: {page}"));
        assert!(
            option.contains(&format!(r#"data-currency="{currency}""#)),
            "{option}"
        );
        let help = option
            .split(r#"data-budget-help=""#)
            .nth(1)
            .and_then(|h| h.split('"').next())
            .unwrap_or_default();
        assert!(help.contains(currency), "{option}");
    }
    // The cabinet chosen in the address draws its own hints.
    let chosen = web.get(&format!("/campaigns/new?account_id={ton}")).body;
    assert!(
        chosen.contains(r#"<span class="currency">TON</span>"#),
        "{chosen}"
    );
    let help = |page: &str| {
        page.split(r#"id="budget-help">"#)
            .nth(1)
            .and_then(|h| h.split('<').next())
            .unwrap_or_default()
            .to_string()
    };
    assert!(help(&chosen).contains("TON"), "{}", help(&chosen));
    // Without the script: "Apply the cabinet" draws the form for it, keeping what was typed.
    let csrf = web.get("/campaigns/new").csrf();
    let ton_id = ton.to_string();
    let switched = web.post(
        "/campaigns/new",
        &[
            ("csrf", csrf.as_str()),
            ("account_id", &ton_id),
            ("title", "Kept title"),
            ("switch_cabinet", "1"),
        ],
    );
    assert_eq!(switched.status, 200, "{}", switched.body);
    assert!(switched.body.contains(r#"value="Kept title""#));
    assert!(help(&switched.body).contains("TON"), "{}", switched.body);
    let queued: i64 = app.scalar("SELECT COUNT(*) FROM tasks", &[]);
    assert_eq!(queued, 0, "switching queues nothing");
}

#[test]
fn the_city_picker_finds_a_city_of_the_country_chosen() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let web = logged_in(&app, user);
    let found = web.get(&format!(
        "/campaigns/new/cities?account_id={cabinet}&countries=DE&city=berl"
    ));
    assert_eq!(found.status, 200, "{}", found.body);
    assert!(found.body.contains("Berlin"), "{}", found.body);
    assert!(
        found.body.contains(r#"data-add="301" data-to="cities""#),
        "{}",
        found.body
    );
    let none = web.get_with(
        &format!("/campaigns/new/cities?account_id={cabinet}&countries=DE&city=zzzz"),
        &RU,
    );
    assert!(
        none.body.contains("Платформа не знает города"),
        "{}",
        none.body
    );
    let form = web.get("/campaigns/new").body;
    assert!(
        form.contains(r#"hx-get="/campaigns/new/cities""#),
        "the form has the picker"
    );
}
