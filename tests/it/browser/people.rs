//! People in a real browser: an agency owner invites a new person from the Team page, the
//! person opens the one-time link, sets a password and lands signed in; then switches the
//! panel to Russian on their settings page.

use super::webdriver::Chrome;
use super::{root, screenshot, signed_in};
use crate::helpers::spawn_app;

#[test]
fn an_invited_person_accepts_the_invitation_lands_signed_in_and_switches_to_russian() {
    let app = spawn_app();
    let agency = app.user("agency");
    let cabinet = app.cabinet(agency, "euro", "100");
    let chrome = Chrome::start();
    signed_in(&chrome, &app, agency);

    chrome.goto(&format!("{}/team", root(&app)));
    chrome
        .find("input[name=email]")
        .send_keys("new.person@example.com");
    assert!(
        chrome
            .find(&format!("input[name=cabinet][value='{cabinet}']"))
            .is_selected(),
        "the one cabinet is ticked"
    );
    chrome
        .find("form[action='/team/invite'] button[type=submit]")
        .click();
    let shown = chrome.wait_for("the invitation's link", |c| c.try_find("#invite-link"));
    let link = shown.attribute("value").expect("the link's text");
    assert!(link.starts_with("/invite/"), "{link}");
    screenshot(&chrome, "team-invited");

    chrome.goto(&format!("{}{link}", root(&app)));
    assert!(chrome
        .find("main")
        .text()
        .contains("new.person@example.com"));
    screenshot(&chrome, "invite");
    chrome
        .find("input[name=password]")
        .send_keys("my own passphrase");
    chrome
        .find("input[name=password_again]")
        .send_keys("my own passphrase");
    chrome.find("form button[type=submit]").click();
    chrome.wait_for("a signed-in page after the link", |c| {
        let url = c.url();
        let landed = url == format!("{}/", root(&app));
        (landed && c.try_find("nav .who").is_some()).then_some(())
    });
    assert!(chrome
        .find("nav .who")
        .text()
        .contains("new.person@example.com"));

    chrome.goto(&format!("{}/settings", root(&app)));
    chrome
        .find("select[name=language] option[value=ru]")
        .click();
    chrome
        .find("select[name=time_zone] option[value='Europe/Moscow']")
        .click();
    chrome.find("form#profile button[type=submit]").click();
    // Read in one script: an element found before the new page loads would be stale by the
    // time its text is asked for.
    chrome.wait_for("the settings page in Russian", |c| {
        let h1 = c.script("return document.querySelector('h1')?.textContent ?? '';");
        h1.as_str()?.contains("Настройки").then_some(())
    });
    screenshot(&chrome, "settings-ru");
    let zone: Option<String> = app.scalar(
        "SELECT time_zone FROM users WHERE email = 'new.person@example.com' AND ?1 = ?1",
        &[0],
    );
    assert_eq!(zone.as_deref(), Some("Europe/Moscow"));
    chrome.quit().expect("the session ends");
}
