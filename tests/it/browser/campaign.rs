//! One campaign's page in a real browser: each button of its action bar clicked as a person
//! would (the switch off and on, add and withdraw budget, the bid in place, copy, recreate,
//! delete after its question), each change seen in the stored copy.

use super::webdriver::Chrome;
use super::{root, screenshot, signed_in, status};
use crate::helpers::{spawn_app, Camp, TestApp};

/// What the campaign was given: its budget left plus what it spent (it delivers while the
/// test runs, as the service clock moves).
const ALLOCATED: &str = "budget_micros + spent_micros";

fn micros(app: &TestApp, column: &str, ad: i64) -> i64 {
    app.scalar(
        &format!(
            "SELECT {column} FROM campaigns JOIN campaign_counters USING (account_id, ad_id)
             WHERE ad_id = ?1"
        ),
        &[ad],
    )
}

/// Waits until `column` of campaign `ad` reads `want`.
fn stored(chrome: &Chrome, app: &TestApp, column: &str, ad: i64, want: i64) {
    chrome.wait_for(&format!("{column} = {want}"), |_| {
        (micros(app, column, ad) == want).then_some(())
    });
}

/// Waits until `n` tasks were queued.
fn queued(chrome: &Chrome, app: &TestApp, n: i64) {
    chrome.wait_for(&format!("{n} tasks queued"), |_| {
        (app.scalar::<i64>("SELECT COUNT(*) FROM tasks", &[]) >= n).then_some(())
    });
}

#[test]
fn each_button_of_a_campaign_page_acts_on_it() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let declined = app.campaign(cabinet, Camp::channel("Loud", "https://t.me/alpha_chan"));
    adcab::ops::sim_review(
        &app.services,
        cabinet,
        declined,
        false,
        Some("Text formatting"),
    )
    .unwrap();
    app.sql(&format!(
        r#"UPDATE campaigns SET schedule = '{{"days":{{"mon":[9,10,11],"tue":[],"wed":[],"thu":[],"fri":[18],"sat":[],"sun":[]}},"timezone":"+01:00"}}' WHERE ad_id = {ad}"#
    ));
    let chrome = Chrome::start();
    signed_in(&chrome, &app, user);
    let page = format!("{}/campaigns/{cabinet}/{ad}", root(&app));
    chrome.goto(&page);
    let on = chrome.find_all("table.week-grid:not(.pick) td.on");
    assert_eq!(on.len(), 4, "the schedule's hours on the grid");
    assert!(on.iter().all(|td| td.size().0 > 0.0), "drawn");
    screenshot(&chrome, "campaign_actions");

    chrome.find("button.switch").click();
    stored(&chrome, &app, "active", ad, 0);
    chrome.goto(&page);
    assert_eq!(
        chrome
            .find("button.switch")
            .attribute("aria-checked")
            .as_deref(),
        Some("false"),
        "the switch shows off"
    );
    chrome.find("button.switch").click();
    stored(&chrome, &app, "active", ad, 1);
    chrome.goto(&page);

    chrome.find("#act-budget > summary").click();
    chrome.find("#budget input[name=amount]").send_keys("5");
    chrome.find("#budget button[value=add]").click();
    stored(&chrome, &app, ALLOCATED, ad, 15_000_000);
    chrome.goto(&page);
    chrome.find("#act-budget > summary").click();
    chrome.find("#budget input[name=amount]").send_keys("3");
    chrome.find("#budget button[value=withdraw]").click();
    stored(&chrome, &app, ALLOCATED, ad, 12_000_000);
    chrome.goto(&page);
    chrome.find("#act-budget > summary").click();
    chrome.find("#budget input[name=amount]").send_keys("500");
    chrome.find("#budget button[value=withdraw]").click();
    let refused = chrome.wait_for("the refusal beside the amount", |c| {
        c.try_find("#budget p.error[data-param=amount]")
    });
    assert!(refused.is_displayed(), "the open form shows it");
    assert_eq!(micros(&app, ALLOCATED, ad), 12_000_000);
    screenshot(&chrome, "campaign_refused");

    let cpm = chrome.find("form#cpm input[name=cpm]");
    cpm.clear();
    cpm.send_keys("2.50");
    chrome.find("form#cpm button[type=submit]").click();
    stored(&chrome, &app, "cpm_micros", ad, 2_500_000);

    chrome.goto(&page);
    chrome.find("#act-copy > summary").click();
    chrome
        .find("#copy input[name=title]")
        .send_keys("Copy from the browser");
    chrome.find("#copy button[type=submit]").click();
    queued(&chrome, &app, 1);
    app.run_tasks();
    let copies: i64 = app.scalar(
        "SELECT COUNT(*) FROM campaigns WHERE title = 'Copy from the browser'",
        &[],
    );
    assert_eq!(copies, 1, "the copy was made");

    chrome.goto(&format!("{}/campaigns/{cabinet}/{declined}", root(&app)));
    chrome.find("form#recreate button[type=submit]").click();
    queued(&chrome, &app, 2);
    app.run_tasks();
    assert_eq!(status(&app, cabinet, declined), "Deleted");

    chrome.goto(&page);
    let ask = chrome.find("#act-delete > summary");
    ask.click();
    assert!(chrome.find("#delete").text().contains("Delete?"));
    chrome.find("#delete button.danger").click();
    chrome.wait_for("the cabinet's campaigns after the delete", |c| {
        c.url()
            .ends_with(&format!("/campaigns?account_id={cabinet}"))
            .then_some(())
    });
    let left: i64 = app.scalar(
        "SELECT COUNT(*) FROM campaigns WHERE ad_id = ?1 AND status != 'Deleted'",
        &[ad],
    );
    assert_eq!(left, 0, "deleted");
    chrome.quit().expect("the session ends");
}
