//! The web panel in a real browser: headless Chromium, driven through WebDriver, logs in,
//! reads the pages and follows their links; each test saves screenshots of the pages into the
//! build's temporary folder, so a test run leaves the working tree as it found it.

mod campaign;
mod create;
mod first_hour;
mod home;
mod list;
mod logs;
mod money;
mod people;
mod phones;
mod reports;
mod rules;
mod webdriver;

use std::path::PathBuf;
use std::time::Duration;

use crate::helpers::{poll, spawn_app, Camp, TestApp};
use crate::web::{with_login, PASSWORD};
use webdriver::Chrome;

/// The panel's root URL: the API's base without `/api/v1`.
fn root(app: &TestApp) -> String {
    app.base.trim_end_matches("/api/v1").to_string()
}

/// Saves the page as `{name}.png` in the build's temporary folder (the committed screenshots
/// are written by `cargo run --example screenshots`, never by a test) and checks that a PNG was
/// written.
fn screenshot(chrome: &Chrome, name: &str) {
    let folder: PathBuf = [env!("CARGO_TARGET_TMPDIR"), "screenshots"]
        .iter()
        .collect();
    let path = folder.join(name);
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

/// Waits for the home page, where signing in lands.
fn landed_home(chrome: &Chrome, app: &TestApp) {
    let home = format!("{}/", root(app));
    chrome.wait_for("the home page after signing in", |c| {
        (c.url() == home).then_some(())
    });
}

/// Gives `user` the panel password, signs in as them and waits for the home page.
fn signed_in(chrome: &Chrome, app: &TestApp, user: i64) -> String {
    let email = with_login(app, user);
    sign_in(chrome, app, &email, PASSWORD);
    landed_home(chrome, app);
    email
}

/// Whether each element matching `selector` is ticked, in page order.
fn ticked(chrome: &Chrome, selector: &str) -> Vec<bool> {
    chrome
        .find_all(selector)
        .iter()
        .map(|b| b.is_selected())
        .collect()
}

fn status(app: &TestApp, account: i64, ad: i64) -> String {
    app.scalar(
        "SELECT status FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        &[account, ad],
    )
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
    landed_home(&chrome, &app);
    chrome.link("Campaigns").click();
    chrome.wait_for("the campaigns page", |c| {
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
    landed_home(&chrome, &app);

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

#[test]
fn a_bulk_pause_from_the_list_runs_as_a_task_in_the_browser() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ads = [app.active_campaign(cabinet), app.active_campaign(cabinet)];
    let chrome = Chrome::start();
    signed_in(&chrome, &app, user);
    chrome.goto(&format!("{}/campaigns", root(&app)));

    let rows = "input[name=ad][form=bulk]";
    assert_eq!(ticked(&chrome, rows), [false, false]);
    let all = chrome.find("input[data-select-all]");
    all.click();
    assert_eq!(
        ticked(&chrome, rows),
        [true, true],
        "the header ticks every row"
    );
    all.click();
    assert_eq!(ticked(&chrome, rows), [false, false], "and unticks them");
    for ad in ads {
        chrome
            .find(&format!("input[name=ad][value='{cabinet}:{ad}']"))
            .click();
    }
    assert_eq!(ticked(&chrome, rows), [true, true]);
    chrome
        .find("select[name=action] option[value=pause]")
        .click();
    assert!(chrome
        .find("select[name=action] option[value=pause]")
        .is_selected());
    chrome
        .find("form[action='/campaigns/bulk'] button[type=submit]")
        .click();
    chrome.wait_for("the tasks page after applying", |c| {
        c.url().ends_with("/tasks").then_some(())
    });

    app.run_tasks();
    let tasks = root(&app) + "/tasks";
    let done = poll(Duration::from_secs(10), || {
        chrome.goto(&tasks);
        let text = chrome.find("#tasks").text();
        text.contains("completed").then_some(text)
    })
    .unwrap_or_else(|| panic!("no completed task within 10 s:\n{}", chrome.source()));
    assert!(done.contains("2/2"), "both campaigns done: {done}");
    for ad in ads {
        assert_eq!(status(&app, cabinet, ad), "On Hold", "campaign {ad}");
    }
    screenshot(&chrome, "tasks");
    chrome.quit().expect("the session ends");
}

#[test]
fn a_new_key_is_shown_once_in_the_browser() {
    let app = spawn_app();
    let (user, _, _) = app.manager();
    let chrome = Chrome::start();
    signed_in(&chrome, &app, user);

    chrome.goto(&format!("{}/keys", root(&app)));
    chrome.find("input[name=manage]").click();
    assert!(chrome.find("input[name=manage]").is_selected());
    assert!(
        chrome.find("input[name=scope][value=all]").is_selected(),
        "all cabinets by default"
    );
    chrome
        .find("form[action='/keys'] button[type=submit]")
        .click();
    let secrets: Vec<String> = chrome.wait_for("the new key and its secret", |c| {
        let shown: Vec<String> = c.find_all("code.secret").iter().map(|e| e.text()).collect();
        (shown.len() == 2).then_some(shown)
    });
    let key = secrets
        .iter()
        .find(|s| s.starts_with("adcab_"))
        .unwrap_or_else(|| panic!("no key among {secrets:?}"))
        .clone();
    assert!(
        secrets.iter().any(|s| s.starts_with("whsec_")),
        "no webhook secret among {secrets:?}"
    );
    screenshot(&chrome, "keys");

    let info = ureq::get(&format!("{}/account/info", app.base))
        .set("X-API-Key", &key)
        .call()
        .unwrap_or_else(|e| panic!("the shown key is refused: {e}"));
    assert_eq!(info.status(), 200);
    let flags: i64 = app.scalar(
        "SELECT manage * 10 + scope_all FROM api_keys \
         WHERE user_id = ?1 ORDER BY id DESC LIMIT 1",
        &[user],
    );
    assert_eq!(flags, 11, "the new key manages campaigns in all cabinets");

    chrome.goto(&format!("{}/keys", root(&app)));
    assert!(
        chrome.try_find("code.secret").is_none(),
        "no secret shown again"
    );
    assert!(!chrome.source().contains(&key), "the key is shown once");
    chrome.quit().expect("the session ends");
}

#[test]
fn an_edit_with_a_bad_bid_shows_the_message_next_to_the_field() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let chrome = Chrome::start();
    signed_in(&chrome, &app, user);
    let page = format!("{}/campaigns/{cabinet}/{ad}", root(&app));
    chrome.goto(&page);
    let cpm_before: i64 = app.scalar(
        "SELECT cpm_micros FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        &[cabinet, ad],
    );

    for name in ["title", "text"] {
        chrome.find(&format!("form#edit [name={name}]"));
    }
    let cpm = chrome.find("form#edit input[name=cpm]");
    cpm.clear();
    cpm.send_keys("1.234");
    chrome.find("form#edit button[type=submit]").click();
    let error = chrome.wait_for("the bid's error next to the field", |c| {
        c.try_find("p.error[data-param=cpm]")
    });
    let message = error.text();
    assert!(message.contains("decimals"), "the API's message: {message}");
    assert!(
        chrome
            .find("form#edit")
            .html()
            .contains("data-param=\"cpm\""),
        "the message is in the form, next to the field"
    );
    let cpm_after: i64 = app.scalar(
        "SELECT cpm_micros FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        &[cabinet, ad],
    );
    assert_eq!(cpm_after, cpm_before, "nothing saved");
    screenshot(&chrome, "campaign_edit");

    let cpm = chrome.find("form#edit input[name=cpm]");
    cpm.clear();
    cpm.send_keys("3.50");
    chrome.find("form#edit button[type=submit]").click();
    chrome.wait_for("the new bid on the page", |c| {
        let saved = c.try_find("p.error[data-param=cpm]").is_none()
            && c.find("main").text().contains("3.50 EUR");
        saved.then_some(())
    });
    assert!(chrome.url().contains(&format!("/campaigns/{cabinet}/{ad}")));
    let saved: i64 = app.scalar(
        "SELECT cpm_micros FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        &[cabinet, ad],
    );
    assert_eq!(saved, 3_500_000, "the new bid is stored");
    chrome.quit().expect("the session ends");
}

#[test]
fn the_team_and_simulator_pages_render_in_the_browser() {
    let app = spawn_app();
    let agency = app.user("agency");
    let cabinet = app.cabinet(agency, "euro", "100");
    let member = app.user("pro");
    let member_email = with_login(&app, member);
    let waiting = app.campaign(
        cabinet,
        Camp::channel("Waiting review", "https://t.me/alpha_chan"),
    );
    let chrome = Chrome::start();
    signed_in(&chrome, &app, agency);

    chrome.goto(&format!("{}/team", root(&app)));
    assert!(chrome
        .find("div.empty")
        .text()
        .contains("No one in your team"));
    chrome.find("input[name=email]").send_keys(&member_email);
    chrome
        .find("form[action='/team/invite'] button[type=submit]")
        .click();
    let row = chrome.wait_for("the new member's row", |c| {
        c.try_find(&format!("tr#member-{member}"))
    });
    assert!(row.is_displayed());
    assert!(row.text().contains(&member_email), "{}", row.text());
    screenshot(&chrome, "team");

    chrome.goto(&format!("{}/sim", root(&app)));
    let review = format!("form[action='/sim/review/{cabinet}/{waiting}']");
    assert!(chrome.find("main").text().contains("Waiting review"));
    let approve = chrome.find(&format!("{review} button[value=approve]"));
    assert!(approve.is_displayed());
    assert_eq!(approve.text(), "Approve");
    screenshot(&chrome, "sim");
    approve.click();
    chrome.wait_for("the decided campaign to leave the list", |c| {
        c.try_find(&review).is_none().then_some(())
    });
    assert_eq!(status(&app, cabinet, waiting), "Active");
    app.settle();
    chrome.quit().expect("the session ends");
}

#[test]
fn the_rules_page_lists_a_rule_in_words_in_the_browser() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let body = serde_json::json!({
        "name": "Stop expensive leads",
        "account_id": cabinet,
        "conditions": [{"metric": "cpa", "op": ">", "value": "2.50", "window_hours": 24}],
        "action": {"type": "pause"}
    });
    let rule = app.write_ok("POST", "/rules", &key, Some(&body), 200)["data"].clone();
    let chrome = Chrome::start();
    signed_in(&chrome, &app, user);

    chrome.link("Rules").click();
    let row = chrome.wait_for("the rule's row", |c| {
        c.try_find(&format!("tr#rule-{}", rule["id"]))
    });
    let text = row.text();
    assert!(text.contains("CPA over 24 h > 2.50 EUR"), "{text}");
    assert!(text.contains("Pause the campaign"), "{text}");
    assert!(chrome
        .find("form#new-rule select[name=metric0]")
        .is_displayed());
    screenshot(&chrome, "rules");
    chrome.quit().expect("the session ends");
}
