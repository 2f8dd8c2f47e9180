//! The web panel in a real browser: headless Chromium, driven through WebDriver, logs in,
//! reads the pages and follows their links; each test saves screenshots to docs/screenshots/.

mod webdriver;

use std::path::PathBuf;

use crate::helpers::{spawn_app, Camp, TestApp};
use crate::web::{with_login, PASSWORD};
use webdriver::Chrome;

/// The panel's root URL: the API's base without `/api/v1`.
fn root(app: &TestApp) -> String {
    app.base.trim_end_matches("/api/v1").to_string()
}

/// Saves the page as `docs/screenshots/{name}.png` and checks that a PNG was written.
fn screenshot(chrome: &Chrome, name: &str) {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "docs", "screenshots", name]
        .iter()
        .collect();
    let png = chrome.screenshot(&path.with_extension("png"));
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 1_000,
        "a PNG of {name}"
    );
}

/// The bars of the page's chart that the browser draws: each must be in the DOM and have a
/// rendered size, or the test fails showing the chart's markup.
fn drawn_bars(chrome: &Chrome) -> usize {
    let bars = chrome.find("svg.chart").find_all("rect");
    for bar in &bars {
        let (width, height) = bar.size();
        assert!(
            width > 0.0 && height > 0.0,
            "a bar in the chart's markup is not drawn ({width}×{height}): {}",
            chrome.find("svg.chart").html()
        );
    }
    bars.len()
}

/// Opens the login form, signs in as `email` with `password` by typing and clicking.
fn sign_in(chrome: &Chrome, app: &TestApp, email: &str, password: &str) {
    chrome.goto(&format!("{}/login", root(app)));
    chrome.find("input[name=email]").send_keys(email);
    chrome.find("input[name=password]").send_keys(password);
    chrome.find("form button[type=submit]").click();
}

#[test]
fn a_person_logs_in_and_reads_the_campaigns_in_a_real_browser() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    app.approved(
        cabinet,
        Camp::channel("Spring launch", "https://t.me/alpha_chan"),
    );
    app.campaign(
        cabinet,
        Camp::channel("Summer teaser", "https://t.me/alpha_chan"),
    );
    let email = with_login(&app, user);
    let chrome = Chrome::start();

    chrome.goto(&format!("{}/campaigns", root(&app)));
    chrome.wait_for("the login form instead of the campaigns", |c| {
        c.url().ends_with("/login").then_some(())
    });
    assert_eq!(
        chrome.find("input[name=password]").attribute("type"),
        Some("password".into())
    );
    screenshot(&chrome, "login");

    sign_in(&chrome, &app, &email, PASSWORD);
    chrome.wait_for("the campaigns page after signing in", |c| {
        c.url().ends_with("/campaigns").then_some(())
    });
    let rows: Vec<String> = chrome
        .find_all("table tbody tr")
        .iter()
        .map(|row| row.text())
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(
        rows.iter()
            .any(|r| r.contains("Spring launch") && r.contains("Active")),
        "{rows:?}"
    );
    assert!(rows.iter().any(|r| r.contains("Summer teaser")), "{rows:?}");
    screenshot(&chrome, "campaigns");

    chrome.goto(&format!("{}/cabinets", root(&app)));
    let rows: Vec<String> = chrome
        .find_all("table tbody tr")
        .iter()
        .map(|row| row.text())
        .collect();
    assert!(
        rows.len() == 1
            && rows[0].contains(&format!("{cabinet} · EUR"))
            && rows[0].contains("1 Active"),
        "the one cabinet with its active campaign: {rows:?}"
    );
    assert!(
        chrome
            .source()
            .contains(&format!("/campaigns?account_id={cabinet}")),
        "the cabinet links to its campaigns"
    );
    screenshot(&chrome, "cabinets");
    chrome.quit().expect("the session ends");
}

#[test]
fn a_campaign_page_draws_its_chart_and_history() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    app.align_hour();
    let ad = app.funded(cabinet, 500_000_000);
    app.advance(3 * 3600);
    let email = with_login(&app, user);
    let chrome = Chrome::start();
    sign_in(&chrome, &app, &email, PASSWORD);
    chrome.wait_for("the campaigns page after signing in", |c| {
        c.url().ends_with("/campaigns").then_some(())
    });

    chrome.goto(&format!("{}/campaigns/{cabinet}/{ad}", root(&app)));
    let bars = drawn_bars(&chrome);
    assert!(bars >= 3, "a bar for each delivered hour: {bars} drawn");
    let history: Vec<String> = chrome
        .find_all("table tbody tr")
        .iter()
        .map(|row| row.text())
        .collect();
    assert!(
        history
            .iter()
            .any(|r| r.contains("panel") && r.contains("create")),
        "the history has the creation and its source: {history:?}"
    );

    chrome.link("7 days").click();
    chrome.wait_for("the 7 days period", |c| {
        c.url().contains("period=7d").then_some(())
    });
    assert_eq!(
        chrome.link("7 days").attribute("aria-current"),
        Some("true".into()),
        "the tab shows as the current one"
    );
    assert_eq!(drawn_bars(&chrome), bars, "the same hours over 7 days");
    screenshot(&chrome, "campaign");
    chrome.quit().expect("the session ends");
}

#[test]
fn a_wrong_password_is_shown_next_to_the_form() {
    let app = spawn_app();
    let (user, _, _) = app.manager();
    let email = with_login(&app, user);
    let chrome = Chrome::start();

    sign_in(&chrome, &app, &email, "not the password at all");
    let error = chrome.wait_for("the form's error", |c| c.try_find("p.error"));
    assert_eq!(error.text(), "Wrong email or password.");
    assert!(chrome.url().ends_with("/login"), "{}", chrome.url());
    assert_eq!(
        chrome.find("input[name=email]").attribute("value"),
        Some(email),
        "the email is kept"
    );
    chrome.quit().expect("the session ends");
}
