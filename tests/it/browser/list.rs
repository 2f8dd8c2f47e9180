//! The campaigns list in a real browser: the CSV its own link downloads holds the API's
//! figures for every campaign, a row's budget opens into its form in place and a refusal of
//! it shows in that row, and on a phone (390 × 844) the list is cards no wider than the
//! screen, in English and in Russian.

use serde_json::Value;

use super::webdriver::Chrome;
use super::{root, screenshot, signed_in};
use crate::helpers::{spawn_app, Camp, TestApp};

/// Whether the page is wider than the viewport: `(page width, viewport width)`.
fn widths(chrome: &Chrome) -> (i64, i64) {
    let sizes = chrome.run("return [document.documentElement.scrollWidth, window.innerWidth];");
    let size = |i: usize| sizes[i].as_i64().unwrap_or_else(|| panic!("{sizes}"));
    (size(0), size(1))
}

fn delivered(app: &TestApp, account: i64, ad: i64, views: i64, clicks: i64, spent: i64) {
    app.sql(&format!(
        "UPDATE campaign_counters SET views = {views}, opens = {clicks}, clicks = {clicks},
            actions = 1, spent_micros = {spent}
         WHERE account_id = {account} AND ad_id = {ad}"
    ));
}

#[test]
fn the_list_downloads_its_csv_with_the_apis_figures_and_fits_a_phone_as_cards() {
    let app = spawn_app();
    let (user, euro, key) = app.manager();
    let ton = app.cabinet(user, "ton", "100");
    let first = app.approved(
        euro,
        Camp::channel(
            "A rather long campaign title for the winter sale of warm socks",
            "https://t.me/alpha_chan",
        ),
    );
    let second = app.approved(euro, Camp::channel("Spring", "https://t.me/alpha_chan"));
    let third = app.approved(ton, Camp::channel("Gamma", "https://t.me/alpha_chan"));
    delivered(&app, euro, first, 123_456, 1_234, 246_912_345);
    delivered(&app, euro, second, 900, 9, 1_800_000);
    delivered(&app, ton, third, 50, 0, 100_000);
    let chrome = Chrome::start();
    signed_in(&chrome, &app, user);
    chrome.goto(&format!("{}/campaigns", root(&app)));

    chrome.wait_for("the campaigns list", |c| {
        c.try_find("table.campaign-list").map(|_| ())
    });
    let rows = chrome.find_all("table.campaign-list tbody tr");
    assert_eq!(rows.len(), 3, "at {}:\n{}", chrome.url(), chrome.source());
    let totals: Vec<String> = chrome
        .find_all("table.campaign-list tfoot tr")
        .iter()
        .map(|r| r.text())
        .collect();
    assert_eq!(totals.len(), 2, "a line per currency: {totals:?}");

    // The CSV the page links to, fetched by the browser with its session.
    let csv = chrome.run(
        "return fetch(document.querySelector(\"a[href*='format=csv']\").href)\
         .then(r => r.text());",
    );
    let csv = csv.as_str().unwrap_or_else(|| panic!("{csv}")).to_string();
    let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let api = app.get_ok("/campaigns", &key)["data"].clone();
    let api = api.as_array().unwrap();
    assert_eq!(lines.len() - 1, api.len(), "{csv}");
    for (line, object) in lines[1..].iter().zip(api) {
        let cells: Vec<&str> = line.split(',').collect();
        let cell = |name: &str| cells[header.iter().position(|h| *h == name).unwrap()];
        let number = |v: &str| v.parse::<rust_decimal::Decimal>().unwrap();
        assert_eq!(cell("ad_id"), object["ad_id"].to_string(), "{line}");
        assert_eq!(cell("views"), object["views"].to_string(), "{line}");
        assert_eq!(cell("clicks"), object["clicks"].to_string(), "{line}");
        for name in ["spent", "budget", "cpm", "ctr"] {
            let api: &Value = &object[name];
            assert_eq!(
                number(cell(name)),
                number(api.as_str().unwrap()),
                "{name}: {line}"
            );
        }
    }

    // The budget opens into its form in place.
    let budget = format!("#c-{euro}-{second} details.inline summary");
    chrome.find(&budget).click();
    let amount = format!("#c-{euro}-{second} form[action$='/budget'] input[name=amount]");
    assert!(chrome.find(&amount).is_displayed());
    screenshot(&chrome, "campaigns_list");

    // Withdrawing more than it holds is refused in that row, the list staying as it was (a
    // mark left on another row survives: only the refused row was swapped).
    chrome.run(&format!(
        "document.querySelector('#c-{euro}-{first}').dataset.kept = 'yes';"
    ));
    chrome.find(&amount).send_keys("50");
    chrome
        .find(&format!(
            "#c-{euro}-{second} form[action$='/budget'] button[value=withdraw]"
        ))
        .click();
    let refused = chrome.wait_for("the refusal in the row", |c| {
        c.try_find(&format!("#c-{euro}-{second} p.error[data-param=amount]"))
    });
    assert!(!refused.text().is_empty());
    assert_eq!(
        chrome.url(),
        format!("{}/campaigns", root(&app)),
        "no new page"
    );
    assert_eq!(chrome.find_all("table.campaign-list tbody tr").len(), 3);
    assert_eq!(chrome.find_all("p.error").len(), 1, "in that row only");
    assert_eq!(
        chrome.run(&format!(
            "return document.querySelector('#c-{euro}-{first}').dataset.kept ?? '';"
        )),
        "yes",
        "the other rows were left in place"
    );

    // A phone: cards, no sideways scroll, in both languages.
    chrome.set_viewport(390, 844);
    for lang in ["en", "ru"] {
        app.sql(&format!(
            "UPDATE users SET language = '{lang}' WHERE id = {user}"
        ));
        chrome.goto(&format!("{}/campaigns", root(&app)));
        assert_eq!(
            chrome.find("html").attribute("lang"),
            Some(lang.to_string())
        );
        let (page, viewport) = widths(&chrome);
        assert!(
            page <= viewport,
            "the list in {lang} is {page} px wide in a {viewport} px viewport"
        );
        let head = chrome.run(
            "return getComputedStyle(document.querySelector('table.campaign-list thead')).display;",
        );
        assert_eq!(head, "none", "the headings give way to each card's labels");
        let card = chrome.find(&format!("#c-{euro}-{first}"));
        let (width, _) = card.size();
        assert!(
            width > 0.0 && width <= viewport as f64,
            "a card {width} px wide"
        );
        screenshot(&chrome, &format!("campaigns_list_phone_{lang}"));
    }
    chrome.quit().expect("the session ends");
}
