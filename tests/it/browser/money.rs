//! Agency money in a real browser at a phone's width: the owner opens a client cabinet from
//! the cabinets page, tops it up through the confirmation step that shows both balances before
//! and after, and sees the transfer on the cabinet's money page; no page is wider than the
//! phone.

use super::webdriver::Chrome;
use super::{root, screenshot, signed_in};
use crate::helpers::spawn_app;

fn fits(chrome: &Chrome, page: &str) {
    let sizes = chrome.run("return [document.documentElement.scrollWidth, window.innerWidth];");
    let (wide, view) = (sizes[0].as_i64().unwrap(), sizes[1].as_i64().unwrap());
    assert!(wide <= view, "{page} is {wide}px wide on a {view}px phone");
}

#[test]
fn an_agency_opens_a_client_cabinet_and_tops_it_up_after_confirming_both_balances() {
    let app = spawn_app();
    let agency = app.user("agency");
    let main = app.cabinet(agency, "euro", "1000");
    app.sql(&format!(
        "UPDATE cabinets SET is_main = 1 WHERE id = {main}"
    ));
    let chrome = Chrome::start();
    chrome.set_viewport(390, 844);
    signed_in(&chrome, &app, agency);

    chrome.goto(&format!("{}/cabinets", root(&app)));
    chrome.find("#open-client summary").click();
    for (name, value) in [
        ("title", "Nordic Coffee"),
        ("full_name", "Anna Berg"),
        ("email", "anna@example.com"),
        ("phone_number", "+47 2000 0000"),
        ("country", "NO"),
        ("city", "Oslo"),
    ] {
        chrome
            .find(&format!("#open-client input[name={name}]"))
            .send_keys(value);
    }
    fits(&chrome, "/cabinets");
    chrome.find("#open-client button[type=submit]").click();
    chrome.wait_for("the money page", |c| c.try_find("#client-balance"));
    assert!(chrome.url().ends_with("/money"), "{}", chrome.url());
    assert!(chrome.find("h1").text().contains("Nordic Coffee"));
    fits(&chrome, "money");

    chrome.find("input[name=amount]").send_keys("25.5");
    chrome.find("form[action$='/money/confirm'] button").click();
    let table = chrome.wait_for("the confirmation", |c| c.try_find("#confirm"));
    let text = table.text();
    assert!(
        text.contains("1,000.00") || text.contains("1 000,00") || text.contains("1000.00"),
        "{text}"
    );
    assert!(text.contains("974.50"), "the main account after: {text}");
    assert!(text.contains("25.50"), "the client after: {text}");
    screenshot(&chrome, "money-confirm");
    fits(&chrome, "confirm");

    chrome.find("#confirm-move").click();
    chrome.wait_for("the transfer listed", |c| c.try_find("#transfers"));
    assert!(chrome.find("#client-balance").text().contains("25.50"));
    assert!(chrome.find("#transfers").text().contains("Completed"));
    screenshot(&chrome, "money");
    chrome.quit().unwrap();
}
