//! The home page in a real browser: a campaign declined through the simulator's review shows
//! with the platform's reason under "Needs attention", and the spend chart draws its bars
//! with a value for each on hover and focus.

use super::webdriver::Chrome;
use super::{drawn_bars, root, screenshot, signed_in};
use crate::helpers::{spawn_app, Camp};

#[test]
fn a_campaign_declined_in_review_shows_on_the_home_page_with_its_reason() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    app.align_hour();
    app.funded(cabinet, 500_000_000);
    app.advance(3 * 3600);
    let ad = app.campaign(
        cabinet,
        Camp::channel("Winter shout", "https://t.me/alpha_chan"),
    );
    let chrome = Chrome::start();
    signed_in(&chrome, &app, user);

    chrome.goto(&format!("{}/sim", root(&app)));
    chrome
        .find(&format!("#review-{cabinet}-{ad} button[value=decline]"))
        .click();
    // The page was already /sim before the click: wait for the review itself, which gives
    // the campaign a reason.
    let reason: String = chrome.wait_for("the review's reason", |_| {
        let reason: String = app.scalar(
            "SELECT COALESCE(decline_reason, '') FROM campaigns
             WHERE account_id = ?1 AND ad_id = ?2",
            &[cabinet, ad],
        );
        (!reason.is_empty()).then_some(reason)
    });

    chrome.goto(&format!("{}/", root(&app)));
    let item = chrome.find(&format!(
        "ul.attention[data-kind='home-declined'] li[data-ad='{ad}']"
    ));
    let text = item.text();
    assert!(
        text.contains("Winter shout") && text.contains(&format!("Reason: {reason}")),
        "the declined campaign with its reason: {text}"
    );
    assert!(
        item.find_all("form[action$='/recreate'] button").len() == 1,
        "a recreate button: {}",
        item.html()
    );
    assert!(drawn_bars(&chrome) >= 1, "the spend chart draws today");
    let bar = &chrome.find("svg.chart").find_all("rect")[0];
    assert_eq!(bar.attribute("tabindex"), Some("0".into()), "focusable");
    assert!(
        bar.html().contains("EUR</title>"),
        "the bar's value as its title: {}",
        bar.html()
    );
    screenshot(&chrome, "home");
    chrome.quit().expect("the session ends");
}
