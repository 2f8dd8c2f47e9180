//! A client report in a real browser, on a phone-sized window in Russian: the page and its
//! chart fit the screen, a share link is made by clicking the form, and the link's page, opened
//! without a login, fits too and offers nothing to follow.

use super::webdriver::Chrome;
use super::{drawn_bars, root, screenshot, signed_in};
use crate::helpers::{spawn_app, Camp};

#[test]
fn a_report_and_its_share_link_read_on_a_phone_in_russian() {
    let app = spawn_app();
    let user = app.user("agency");
    let cabinet = app.cabinet(user, "euro", "1000");
    app.align_hour();
    app.approved(
        cabinet,
        Camp {
            budget_micros: 500_000_000,
            ..Camp::channel("Зимняя распродажа", "https://t.me/alpha_chan")
        },
    );
    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {user};
         UPDATE cabinets SET fee_percent = '15' WHERE id = {cabinet};"
    ));
    app.advance(30 * 3600);

    let chrome = Chrome::start();
    chrome.set_viewport(390, 844);
    signed_in(&chrome, &app, user);
    chrome.goto(&format!("{}/reports/{cabinet}", root(&app)));
    assert_eq!(chrome.find("h1").text().split(" · ").next(), Some("Отчёт"));
    assert!(drawn_bars(&chrome) > 0, "the daily chart has bars");
    assert!(
        chrome.find("[data-figure=client_spend]").is_displayed(),
        "the fee line"
    );
    let fits = |what: &str| {
        let found =
            chrome.script("return [document.documentElement.scrollWidth, window.innerWidth];");
        assert!(
            found[0].as_i64() <= found[1].as_i64(),
            "{what} is wider than the phone: {found}"
        );
    };
    fits("the report page");
    screenshot(&chrome, "phone-ru-report");

    chrome
        .find("select[name=span] option[value=last30]")
        .click();
    chrome.find("#share form button[type=submit]").click();
    let url = chrome.wait_for("the new share link", |c| {
        c.try_find("[data-share-url]").map(|e| e.text())
    });
    assert!(url.contains("/r/"), "{url}");
    let path = &url[url.find("/r/").unwrap()..];

    let client = Chrome::start();
    client.set_viewport(390, 844);
    client.goto(&format!("{}{path}", root(&app)));
    assert!(
        client.find_all("tr[data-ad]").len() == 1,
        "the report's campaign is shown"
    );
    assert!(client.find_all("a").is_empty(), "nothing to follow");
    assert!(client.find_all("form").is_empty(), "nothing to send");
    assert!(client.find_all("nav").is_empty(), "no navigation");
    let found = client.script("return [document.documentElement.scrollWidth, window.innerWidth];");
    assert!(
        found[0].as_i64() <= found[1].as_i64(),
        "the share link's page: {found}"
    );
    screenshot(&client, "phone-share-link");
    client.quit().unwrap();
    chrome.quit().unwrap();
}
