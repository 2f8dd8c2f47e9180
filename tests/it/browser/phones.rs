//! Every page of the panel at a phone's width (390 × 844) and at a desktop's, in English and
//! in Russian: no page is wider than the viewport, the navigation is one bar with a menu that
//! opens without the script, and each page is shot at both widths in both languages.
//! A helper adding a page adds its path to [`PAGES`].

use super::webdriver::Chrome;
use super::{root, screenshot, signed_in};
use crate::helpers::{spawn_app, Camp, TestApp};

/// Every page of the panel a signed-in person opens, with the ids the fixture fills in:
/// `{account}` a cabinet, `{ad}` a delivering campaign, `{declined}` a declined one, `{key}` a
/// key with a delivery, `{rule}` a rule, `{client}` a client cabinet of the first.
const PAGES: &[&str] = &[
    "/",
    "/cabinets",
    "/cabinets/{client}/money",
    "/campaigns",
    "/campaigns?account_id={account}",
    "/campaigns/{account}/{ad}",
    "/campaigns/{account}/{declined}",
    "/campaigns/new",
    "/rules",
    "/rules/{rule}/log",
    "/rules/{rule}/edit",
    "/rules/templates",
    "/tasks",
    "/keys",
    "/keys/{key}",
    "/team",
    "/sim",
    "/settings",
    "/reports",
    "/reports/{account}",
];

/// A phone's viewport and a desktop's.
const PHONE: (i64, i64) = (390, 844);
const DESKTOP: (i64, i64) = (1400, 900);

/// The ids the pages' paths name.
struct Fixture {
    user: i64,
    ids: Vec<(&'static str, String)>,
}

/// An agency owner with a cabinet, a delivering and a declined campaign with a long reason,
/// a rule and a proposal of it, a finished bulk task, and a key with a webhook delivery.
fn fixture(app: &TestApp) -> Fixture {
    let user = app.user("agency");
    let account = app.cabinet(user, "euro", "1000");
    let key = app.key_with(adcab::ops::NewKey {
        user,
        manage: true,
        ..adcab::ops::NewKey::default()
    });
    app.align_hour();
    let ad = app.funded(account, 500_000_000);
    app.approved(
        account,
        Camp::channel(
            "A campaign with a rather long title that must wrap on a phone",
            "https://t.me/alpha_chan",
        ),
    );
    let declined = app.campaign(
        account,
        Camp::channel("Declined one", "https://t.me/alpha_chan"),
    );
    adcab::ops::sim_review(
        &app.services,
        account,
        declined,
        false,
        Some("The text uses formatting the platform does not allow in ads of this kind"),
    )
    .unwrap();
    app.advance(3 * 3600);
    let rule = app.write_ok(
        "POST",
        "/rules",
        &key,
        Some(&serde_json::json!({
            "name": "Stop expensive leads",
            "account_id": account,
            "conditions": [{"metric": "cpa", "op": ">", "value": "2.50", "window_hours": 24}],
            "action": {"type": "pause"}
        })),
        200,
    )["data"]["id"]
        .to_string();
    // A proposal of that rule waiting on the home page (as a rule that asks first stores it).
    let rule_id: i64 = rule.parse().unwrap();
    let ad_id: i64 = ad;
    app.services
        .db
        .write_blocking(move |tx| {
            let now = adcab::clock::now(tx)?;
            adcab::store::proposals::create(
                tx,
                &adcab::store::proposals::NewProposal {
                    rule_id,
                    account_id: account,
                    ad_id,
                    change: &serde_json::json!({"type": "cpm", "from": "2.00", "to": "1.70"}),
                    matched: &serde_json::json!({"cpa (24h)": "3.1234", "spent (24h)": "412.50",
                                                 "actions (24h)": "132"}),
                    created_at: &adcab::clock::iso(now),
                    expires_at: &adcab::clock::iso(now + chrono::Duration::days(30)),
                },
            )
        })
        .unwrap();
    let key_id: i64 = app.scalar(
        "SELECT id FROM api_keys WHERE user_id = ?1 ORDER BY id LIMIT 1",
        &[user],
    );
    app.sql(&format!(
        "INSERT INTO webhook_deliveries (key_id, event, delivery_id, attempts, status, \
         duration_ms, error, created_at) VALUES ({key_id}, 'status_change', \
         'dlv_0123456789abcdef0123456789abcdef', 2, 502, 1234, \
         'the endpoint answered 502 Bad Gateway twice; the delivery was given up', \
         '2026-11-23T04:30:00Z')"
    ));
    // The cabinet as an agency's main account, with a client cabinet it funded.
    app.sql(&format!(
        "UPDATE cabinets SET is_main = 1 WHERE id = {account}"
    ));
    let client = adcab::ops::funds::create_related(
        &app.services,
        &adcab::ops::funds::NewRelated {
            main: account,
            title: "Client with a long name: Nordic Coffee Roasters".into(),
            full_name: "Anna Berg".into(),
            email: "anna@example.com".into(),
            phone: "+47 2000 0000".into(),
            country: "NO".into(),
            city: "Oslo".into(),
            legal_name: None,
        },
    )
    .unwrap()
    .id;
    let cabinet = app
        .services
        .db
        .read_blocking(|c| adcab::store::cabinets::get(c, client))
        .unwrap()
        .unwrap();
    adcab::ops::funds::move_funds(
        &app.services,
        &adcab::ops::Actor::operator(cabinet),
        adcab::domain::funds::FundsMove {
            amount: adcab::domain::money::Money::from_micros(25_000_000),
            direction: adcab::domain::funds::Direction::In,
        },
        "phones",
    )
    .unwrap();
    Fixture {
        user,
        ids: vec![
            ("{client}", client.to_string()),
            ("{account}", account.to_string()),
            ("{ad}", ad.to_string()),
            ("{declined}", declined.to_string()),
            ("{key}", key_id.to_string()),
            ("{rule}", rule),
        ],
    }
}

impl Fixture {
    fn path(&self, page: &str) -> String {
        self.ids
            .iter()
            .fold(page.to_string(), |path, (name, id)| path.replace(name, id))
    }
}

/// A file name for a page's screenshot: `campaigns-account_id` for `/campaigns?account_id=…`.
fn shot_name(page: &str) -> String {
    let name: String = page
        .trim_start_matches('/')
        .split('=')
        .next()
        .unwrap_or_default()
        .replace(['{', '}'], "")
        .replace(['/', '?'], "-");
    if name.is_empty() {
        "home".into()
    } else {
        name
    }
}

/// The page's width beyond the viewport's, with the widest elements when it is wider.
fn overflow(chrome: &Chrome) -> (i64, i64, String) {
    let found = chrome.script(
        "const w = window.innerWidth, d = document.documentElement.scrollWidth;
         const wide = [...document.querySelectorAll('body *')]
           .filter(e => e.getBoundingClientRect().right > w + 1)
           .slice(0, 5)
           .map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '')
                + ' ' + Math.round(e.getBoundingClientRect().right));
         return [d, w, wide.join(', ')];",
    );
    (
        found[0].as_i64().unwrap_or(i64::MAX),
        found[1].as_i64().unwrap_or(0),
        found[2].as_str().unwrap_or("").to_string(),
    )
}

/// Opens every page at both widths; returns the pages wider than a phone.
fn every_page(chrome: &Chrome, app: &TestApp, fixture: &Fixture, lang: &str) -> Vec<String> {
    let mut too_wide = Vec::new();
    for page in PAGES {
        let url = format!("{}{}", root(app), fixture.path(page));
        chrome.set_viewport(PHONE.0, PHONE.1);
        chrome.goto(&url);
        let html_lang = chrome.script("return document.documentElement.lang;");
        assert_eq!(html_lang.as_str(), Some(lang), "<html lang> of {page}");
        let (width, viewport, wide) = overflow(chrome);
        if width > viewport {
            too_wide.push(format!(
                "{page} ({lang}): {width} px > {viewport} px: {wide}"
            ));
        }
        screenshot(chrome, &format!("phone-{lang}-{}", shot_name(page)));
        chrome.set_viewport(DESKTOP.0, DESKTOP.1);
        chrome.goto(&url);
        screenshot(chrome, &format!("wide-{lang}-{}", shot_name(page)));
    }
    too_wide
}

#[test]
fn every_page_fits_a_phone_in_both_languages() {
    let app = spawn_app();
    let fixture = fixture(&app);
    let chrome = Chrome::start();
    chrome.set_viewport(PHONE.0, PHONE.1);
    chrome.goto(&format!("{}/login", root(&app)));
    let (width, viewport, wide) = overflow(&chrome);
    assert!(
        width <= viewport,
        "the login page: {width} > {viewport}: {wide}"
    );
    screenshot(&chrome, "phone-en-login");
    signed_in(&chrome, &app, fixture.user);

    let mut too_wide = every_page(&chrome, &app, &fixture, "en");

    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {}",
        fixture.user
    ));
    too_wide.extend(every_page(&chrome, &app, &fixture, "ru"));
    assert!(
        too_wide.is_empty(),
        "pages wider than the viewport:\n{}",
        too_wide.join("\n")
    );
    chrome.quit().expect("the session ends");
}

#[test]
fn the_navigation_is_a_menu_bar_on_a_phone_and_a_column_on_a_desktop() {
    let app = spawn_app();
    let fixture = fixture(&app);
    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {}",
        fixture.user
    ));
    let chrome = Chrome::start();
    signed_in(&chrome, &app, fixture.user);
    let cabinets = "nav.side a[href='/cabinets']";

    chrome.set_viewport(PHONE.0, PHONE.1);
    chrome.goto(&format!("{}/cabinets", root(&app)));
    let menu = chrome.find("nav.side summary");
    assert!(menu.is_displayed());
    assert_eq!(menu.text(), "Меню", "the menu's label in Russian");
    assert!(
        !chrome.find(cabinets).is_displayed(),
        "the sections wait behind the menu"
    );
    let (_, bar) = chrome.find("nav.side").size();
    assert!(bar <= 64.0, "the bar is one row: {bar} px tall");
    let (_, tall) = menu.size();
    assert!(tall >= 44.0, "the menu button is touch-sized: {tall} px");
    menu.click();
    assert!(chrome.find(cabinets).is_displayed(), "the menu opens");
    assert_eq!(chrome.find(cabinets).text(), "Кабинеты");
    assert!(chrome.find("nav.side a[href='/settings']").is_displayed());
    screenshot(&chrome, "phone-ru-menu");
    let (width, viewport, wide) = overflow(&chrome);
    assert!(
        width <= viewport,
        "the open menu: {width} > {viewport}: {wide}"
    );

    chrome.set_viewport(DESKTOP.0, DESKTOP.1);
    chrome.goto(&format!("{}/cabinets", root(&app)));
    assert!(
        !chrome.find("nav.side summary").is_displayed(),
        "no menu button on a desktop"
    );
    assert!(chrome.find(cabinets).is_displayed(), "the sections show");
    assert_eq!(
        chrome.find("nav.side .links a").text(),
        "Главная",
        "Home comes first"
    );
    chrome.quit().expect("the session ends");
}
