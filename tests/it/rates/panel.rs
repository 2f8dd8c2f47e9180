//! The panel's totals across cabinets of different currencies, converted into the reporting
//! currency at the kept rates from the fake rates server, with each rate and its date beside
//! the figure: a day without a rate uses the newest of the week before and says its date; a
//! currency with no rate stays native with a note; a rate set by hand is used at once; a
//! campaign's page and its row in the list show its ROAS and profit with the rates.

use std::time::Duration;

use adcab::ops;
use serde_json::json;

use super::rates_fake::FakeRates;
use super::{app_with_rates, kept};
use crate::helpers::{wait_for, Camp, TestApp};
use crate::web::logged_in;

fn spend_today(app: &TestApp, account: i64, micros: i64) {
    let hour = app.now().date_naive();
    app.sql(&format!(
        "INSERT INTO cabinet_hours (account_id, hour, views, clicks, actions, spent_micros)
         VALUES ({account}, '{hour}T00:00:00Z', 1000, 10, 0, {micros})"
    ));
}

/// The text of the page's part from `marker` to the end of its element's row or section.
fn part<'p>(page: &'p str, marker: &str, end: &str) -> &'p str {
    let rest = page
        .split(marker)
        .nth(1)
        .unwrap_or_else(|| panic!("{marker} on the page"));
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

#[test]
fn totals_across_currencies_are_converted_with_each_rate_and_its_date_or_left_native() {
    let fake = FakeRates::start();
    let today = chrono::Utc::now().date_naive();
    let yesterday = today - chrono::Duration::days(1);
    // Today has no ECB rate yet: yesterday's is the newest.
    fake.publish_ecb(&yesterday.to_string(), &[("USD", "1.25")]);
    fake.publish_ton(&[("EUR", "4")]);
    let app = app_with_rates(&fake);
    wait_for(Duration::from_secs(10), "the start's fetch", || {
        (kept(&app).len() == 3).then_some(())
    });
    let (user, euro, key) = app.manager_with_postbacks();
    let ton = app.cabinet(user, "ton", "1000");
    let stars = app.cabinet(user, "stars", "100000");
    spend_today(&app, euro, 10_000_000);
    spend_today(&app, ton, 5_000_000);
    spend_today(&app, stars, 1_000_000_000);
    let ad = app.campaign(
        euro,
        Camp::site("Shop", "https://shop.example.com/?subid=s-1"),
    );
    app.sql(&format!(
        "UPDATE campaign_counters SET spent_micros = 10000000 WHERE ad_id = {ad}"
    ));
    for (txid, amount, cur) in [("a", "25", "USD"), ("b", "5", "GBP")] {
        let body = json!({ "clickid": "s-1", "goal": "sale", "order_id": txid, "payout": amount, "cur": cur });
        let r = app.send("POST", "/postback", &key, Some(&body), &[]);
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let b = logged_in(&app, user);
    let day = |d: chrono::NaiveDate| d.format("%-d %b").to_string();

    let page = b.get("/?period=today").body;
    let row = part(&page, &format!(r#"data-account="{euro}""#), "</tr>");
    assert!(
        row.contains("25.00\u{a0}USD"),
        "revenue stays native: {row}"
    );
    let roas = part(row, r#"data-figure="roas""#, "</td>");
    assert!(
        roas.contains("GBP: no rate known"),
        "no ROAS, a note: {roas}"
    );
    assert!(!roas.contains("2.00"), "never guessed: {roas}");

    let across = part(&page, r#"<section class="home-across""#, "</section>");
    assert!(across.contains("All clients in EUR"), "{across}");
    let spend = part(across, r#"data-figure="spend""#, "</div>");
    assert!(
        spend.contains("40.40\u{a0}EUR"),
        "10 EUR + 5 TON at 4 + 1000 STARS at 0.0104: {spend}"
    );
    assert!(
        spend.contains(&format!("at 1 TON = 4 EUR, {}", day(today))),
        "{spend}"
    );
    assert!(
        spend.contains(&format!("at 1 STARS = 0.0104 EUR, {}", day(yesterday))),
        "across USD, dated by yesterday's ECB rate: {spend}"
    );
    let revenue = part(across, r#"data-figure="revenue""#, "</div>");
    assert!(revenue.contains("20.00\u{a0}EUR"), "{revenue}");
    assert!(
        revenue.contains(&format!("at 1 USD = 0.8 EUR, {}", day(yesterday))),
        "{revenue}"
    );
    assert!(revenue.contains("GBP: no rate known"), "{revenue}");
    let profit = part(across, r#"data-figure="profit""#, "</div>");
    assert!(
        profit.contains("–"),
        "no profit with a revenue unconverted: {profit}"
    );

    let code = |c: &str| c.parse().unwrap();
    ops::rate_set(
        &app.services,
        &code("EUR"),
        &code("GBP"),
        "0.5".parse().unwrap(),
        None,
    )
    .unwrap();
    let page = b.get("/?period=today").body;
    let row = part(&page, &format!(r#"data-account="{euro}""#), "</tr>");
    let roas = part(row, r#"data-figure="roas""#, "</td>");
    assert!(
        roas.contains("3.00"),
        "(20 + 10) EUR against 10 EUR: {roas}"
    );
    let profit = part(row, r#"data-figure="profit""#, "</td>");
    assert!(profit.contains("20.00\u{a0}EUR"), "{profit}");
    let across = part(&page, r#"<section class="home-across""#, "</section>");
    let profit = part(across, r#"data-figure="profit""#, "</div>");
    assert!(
        profit.contains("-10.40\u{a0}EUR"),
        "30 EUR against 40.40 EUR: {profit}"
    );
    let roas = part(across, r#"data-figure="roas""#, "</div>");
    assert!(roas.contains("0.74"), "{roas}");

    let campaign = b.get(&format!("/campaigns/{euro}/{ad}")).body;
    let roas = part(&campaign, r#"data-figure="roas""#, "</dd>");
    assert!(roas.contains("3.00"), "the campaign's page: {roas}");
    let profit = part(&campaign, r#"data-figure="profit""#, "</dd>");
    assert!(profit.contains("20.00 EUR"), "{profit}");
    assert!(
        profit.contains(&format!("at 1 USD = 0.8 EUR, {}", day(yesterday))),
        "{profit}"
    );

    let list = b.get(&format!("/campaigns?account_id={euro}")).body;
    let returns = part(&list, r#"data-figure="returns""#, "</div>");
    assert!(returns.contains("ROAS 3.00"), "the list's row: {returns}");
    assert!(returns.contains("20.00\u{a0}EUR"), "{returns}");

    let csv = b.get("/?period=today&format=csv").body;
    let header = csv.lines().next().unwrap();
    assert!(header.ends_with(",roas,profit"), "{header}");
}

#[test]
fn the_cabinets_page_sums_balances_in_the_reporting_currency_naming_each_rate() {
    let fake = FakeRates::start();
    fake.publish_ton(&[("EUR", "4")]);
    let app = app_with_rates(&fake);
    wait_for(Duration::from_secs(10), "the start's fetch", || {
        (kept(&app).len() == 2).then_some(())
    });
    let (user, _, _) = app.manager();
    app.cabinet(user, "ton", "1000");
    app.cabinet(user, "stars", "100000");
    let b = logged_in(&app, user);
    let page = b.get("/cabinets").body;
    let foot = part(&page, "<tfoot>", "</tfoot>");
    assert!(foot.contains("All cabinets in EUR"), "{foot}");
    let balance = part(foot, r#"data-figure="balance""#, "</td>");
    assert!(
        balance.contains("5,000.00\u{a0}EUR"),
        "1000 EUR + 1000 TON at 4, Stars left out: {balance}"
    );
    let notes = part(&page, r#"data-figure="rates""#, "</ul>");
    let today = app.now().date_naive().format("%-d %b").to_string();
    assert!(
        notes.contains(&format!("at 1 TON = 4 EUR, {today}")),
        "{notes}"
    );
    assert!(notes.contains("STARS: no rate known"), "{notes}");
}
