//! The page shell in two languages: the navigation and `<html lang>` follow the person's
//! setting, else the browser's `Accept-Language`; error pages speak the same language and
//! never show internal text; status names come from the catalogue.

use super::logged_in;
use crate::helpers::{spawn_app, Browser, Camp};

const RUSSIAN: [(&str, &str); 1] = [("accept-language", "ru-RU,ru;q=0.9,en;q=0.5")];

#[test]
fn a_russian_browser_gets_the_russian_navigation() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    app.approved(
        cabinet,
        Camp::channel("Spring launch", "https://t.me/alpha_chan"),
    );
    let web = logged_in(&app, user);

    let ru = web.get_with("/cabinets", &RUSSIAN);
    assert_eq!(ru.status, 200);
    assert!(ru.body.contains(r#"<html lang="ru">"#), "{}", ru.body);
    for label in [
        ">Главная<",
        ">Кабинеты<",
        ">Кампании<",
        ">Настройки<",
        ">Меню<",
    ] {
        assert!(ru.body.contains(label), "{label} in {}", ru.body);
    }
    assert!(
        ru.body.contains("1 Активна"),
        "the status by name: {}",
        ru.body
    );
    assert!(!ru.body.contains(">Cabinets<"), "no English navigation");
    assert!(
        ru.body.find(r#"href="/""#) < ru.body.find(r#"href="/cabinets""#),
        "Home comes first"
    );

    let en = web.get("/cabinets");
    assert!(en.body.contains(r#"<html lang="en">"#));
    assert!(en.body.contains(">Home<") && en.body.contains(">Cabinets<"));
    assert!(en.body.contains("1 Active"));

    let login = Browser::new(&app).get_with("/login", &RUSSIAN);
    assert!(login.body.contains(r#"<html lang="ru">"#));
    assert!(login.body.contains(">Войти<"), "{}", login.body);
}

#[test]
fn a_person_who_chose_english_reads_english_in_a_russian_browser() {
    let app = spawn_app();
    let (user, _, _) = app.manager();
    app.sql(&format!(
        "UPDATE users SET language = 'en' WHERE id = {user}"
    ));
    let web = logged_in(&app, user);

    let page = web.get_with("/keys", &RUSSIAN);
    assert_eq!(page.status, 200);
    assert!(page.body.contains(r#"<html lang="en">"#), "{}", page.body);
    assert!(page.body.contains(">API &amp; Webhooks<"));
    assert!(!page.body.contains("Кабинеты"), "{}", page.body);

    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {user}"
    ));
    let page = web.get("/keys");
    assert!(
        page.body.contains(r#"<html lang="ru">"#),
        "the setting wins over an English browser"
    );
    assert!(page.body.contains(">API и вебхуки<"), "{}", page.body);
}

#[test]
fn the_russian_error_page_shows_no_internal_text() {
    let app = spawn_app();
    let (user, _, _) = app.manager();
    let web = logged_in(&app, user);
    let key: i64 = app.scalar(
        "SELECT id FROM api_keys WHERE user_id = ?1 ORDER BY id LIMIT 1",
        &[user],
    );

    let missing = web.get_with("/no/such/page", &RUSSIAN);
    assert_eq!(missing.status, 404);
    assert!(missing.body.contains(r#"<html lang="ru">"#));
    assert!(
        missing.body.contains("Такой страницы нет"),
        "{}",
        missing.body
    );

    app.sql("DROP TABLE webhook_deliveries");
    let broken = web.get_with(&format!("/keys/{key}"), &RUSSIAN);
    assert_eq!(broken.status, 500, "{}", broken.body);
    assert!(broken.body.contains(r#"<html lang="ru">"#));
    assert!(
        broken.body.contains("Что-то пошло не так на нашей стороне"),
        "{}",
        broken.body
    );
    for internal in [
        "webhook_deliveries",
        "no such table",
        "SQLite",
        "Something went wrong",
    ] {
        assert!(
            !broken.body.contains(internal),
            "{internal} shown: {}",
            broken.body
        );
    }
}

#[test]
fn a_viewers_refusal_reads_in_russian() {
    let app = spawn_app();
    let agency = app.user("agency");
    let cabinet = app.cabinet(agency, "euro", "100");
    let member = app.user("pro");
    adcab::ops::member_add(
        &app.services,
        agency,
        member,
        cabinet,
        adcab::ops::TeamAccess::Viewer,
    )
    .unwrap();
    let waiting = app.campaign(
        cabinet,
        Camp::channel("Waiting review", "https://t.me/alpha_chan"),
    );
    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {member}"
    ));
    let web = logged_in(&app, member);
    let csrf = web.get("/cabinets").csrf();

    let refused = web.post(
        &format!("/sim/review/{cabinet}/{waiting}"),
        &[("csrf", &csrf), ("decision", "approve")],
    );
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(
        refused
            .body
            .contains("У вас доступ к этому кабинету только на просмотр."),
        "{}",
        refused.body
    );
    assert!(refused.body.contains("Нет доступа"), "{}", refused.body);
}
