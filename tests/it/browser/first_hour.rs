//! The panel part of the README's first hour, followed literally in a real browser: the
//! trial's server started as its `sh trial-background` block says, in a fresh folder; the
//! login it prints; then the README's steps "To create a campaign in the panel", clicked and
//! typed as written, until the campaign is in the list.

use std::process::Stdio;
use std::time::Duration;

use super::screenshot;
use super::webdriver::Chrome;
use crate::helpers::poll;
use crate::readme::{bash, free_port, on_ports, tagged, Group};

/// The panel's login as `serve` prints it on a fresh folder: (URL, email, password), from
/// "Web panel: http://ADDR/login as EMAIL with password PASSWORD (shown once; ...)".
fn printed_login(log: &str) -> Option<(String, String, String)> {
    let line = log.lines().find(|l| l.starts_with("Web panel: "))?;
    let mut words = line.split_whitespace().skip(2);
    let url = words.next()?.to_string();
    let email = words.nth(1)?.to_string();
    let password = words.nth(2)?.to_string();
    Some((url, email, password))
}

#[test]
fn a_newcomer_creates_a_campaign_in_the_panel_by_the_readme() {
    follow_the_readme(None);
}

#[test]
fn a_newcomer_creates_a_campaign_in_the_panel_by_the_readme_on_a_phone() {
    follow_the_readme(Some((390, 844)));
}

/// Opens a section of the navigation by its name, through **Menu** on a phone.
fn open_section(chrome: &Chrome, phone: bool, name: &str) {
    if phone {
        chrome.find("nav.side summary").click();
    }
    chrome.link(name).click();
}

/// The README's panel steps, in a browser window of `viewport` (the default desktop one
/// when none).
fn follow_the_readme(viewport: Option<(i64, i64)>) {
    let phone = viewport.is_some();
    let shot = |name: &str| format!("{name}-{}", if phone { "phone" } else { "desktop" });
    let readme = include_str!("../../../README.md");
    assert!(
        readme.contains("To create a campaign in the panel"),
        "the README's panel steps"
    );
    let serve = &tagged(readme, "sh trial-background")[0];
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let log_path = dir.path().join("serve.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let child = bash(dir.path(), &on_ports(serve, port, free_port()))
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    let _server = Group(vec![child]);
    let login = poll(Duration::from_secs(30), || {
        printed_login(&std::fs::read_to_string(&log_path).unwrap_or_default())
    });
    let (url, email, password) = login.unwrap_or_else(|| {
        panic!(
            "serve printed no panel login:\n{}",
            std::fs::read_to_string(&log_path).unwrap_or_default()
        )
    });
    let root = format!("http://127.0.0.1:{port}");
    assert_eq!(url, format!("{root}/login"));

    // "Open http://127.0.0.1:8080/ and sign in with the printed email and password."
    let chrome = Chrome::start();
    if let Some((width, height)) = viewport {
        chrome.set_viewport(width, height);
    }
    chrome.goto(&format!("{root}/"));
    chrome.wait_for("the login form", |c| {
        c.try_find("input[name=password]").map(drop)
    });
    chrome.find("input[name=email]").send_keys(&email);
    chrome.find("input[name=password]").send_keys(&password);
    chrome.find("form button[type=submit]").click();
    chrome.wait_for("the home page", |c| {
        (c.url() == format!("{root}/")).then_some(())
    });

    // 1. Campaigns (under Menu on a phone), then New campaign.
    open_section(&chrome, phone, "Campaigns");
    chrome.wait_for("the campaign list", |c| {
        c.url().ends_with("/campaigns").then_some(())
    });
    chrome.link("New campaign").click();
    chrome.wait_for("the form", |c| {
        c.url().ends_with("/campaigns/new").then_some(())
    });
    // 2. The cabinet kept; title, text and link.
    chrome.find("input[name=title]").send_keys("Spring sale");
    chrome
        .find("textarea[name=text]")
        .send_keys("Light jackets, 20% off.");
    chrome
        .find("input[name=promote_url]")
        .send_keys("https://shop.example.com/jackets");
    // 3. To people; Germany found by its filter; German.
    let option = |select: &str, label: &str| {
        chrome
            .find_all(&format!("select[name={select}] option"))
            .into_iter()
            .find(|o| o.text() == label)
            .unwrap_or_else(|| panic!("no option `{label}` in {select}"))
    };
    option("target_type", "To people (by country, language, interests)").click();
    chrome
        .find("input[data-filter=countries]")
        .send_keys("germ");
    option("countries", "Germany (DE)").click();
    option("languages", "German").click();
    // 4. The bid and the budget; Create.
    chrome.find("input[name=cpm]").send_keys("2.50");
    chrome.find("input[name=budget]").send_keys("20");
    screenshot(&chrome, &shot("first-hour-form"));
    chrome
        .find("#new-campaign button.primary[type=submit]")
        .click();
    // 5. The Tasks page; then Campaigns lists it, in review.
    chrome.wait_for("the tasks page", |c| {
        c.url().ends_with("/tasks").then_some(())
    });
    let listed = poll(Duration::from_secs(20), || {
        open_section(&chrome, phone, "Campaigns");
        let row = chrome
            .find_all("table tr")
            .into_iter()
            .map(|r| r.text())
            .find(|t| t.contains("Spring sale"))?;
        row.contains("In Review").then_some(row)
    });
    screenshot(&chrome, &shot("first-hour-list"));
    let listed = listed.unwrap_or_else(|| {
        panic!(
            "Spring sale is not in the list, in review:\n{}",
            chrome.source()
        )
    });
    assert!(listed.contains("Spring sale"), "{listed}");
    chrome.quit().expect("the session ends");
}
