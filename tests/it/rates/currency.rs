//! The owner's reporting currency (#30): chosen on /settings among the currencies adcab
//! converts, it is what the home page's and the cabinets page's totals across currencies are
//! converted into, for the owner and for the people of their team; a figure without a rate
//! stays native with its note; another owner, and a person who reaches cabinets of several
//! owners, keep the operator's default.

use std::time::Duration;

use adcab::config::RatesSource;
use adcab::ops::{self, TeamAccess};

use super::kept;
use super::rates_fake::FakeRates;
use crate::helpers::{spawn_app_with, wait_for, Browser, Page, TestApp};
use crate::web::logged_in;

/// A server fetching the ECB's rates and TON's from `fake`, with no Stars rate, once both
/// are kept: 1 EUR = 1.25 USD (and 0.8 GBP), 1 TON = 4 EUR, today.
fn app_with_rates() -> (FakeRates, TestApp) {
    let fake = FakeRates::start();
    let today = chrono::Utc::now().date_naive().to_string();
    fake.publish_ecb(&today, &[("USD", "1.25"), ("GBP", "0.8")]);
    fake.publish_ton(&[("EUR", "4")]);
    let (ecb, ton) = (fake.ecb_url(), fake.ton_url());
    let app = spawn_app_with(move |c| {
        c.rates.source = RatesSource::Ecb;
        c.rates.ecb_url = ecb;
        c.rates.ton_url = ton;
        c.rates.timeout_ms = 500;
    });
    wait_for(Duration::from_secs(10), "the start's fetch", || {
        (kept(&app).len() == 3).then_some(())
    });
    (fake, app)
}

fn spend_today(app: &TestApp, account: i64, micros: i64) {
    let hour = app.now().date_naive();
    app.sql(&format!(
        "INSERT INTO cabinet_hours (account_id, hour, views, clicks, actions, spent_micros)
         VALUES ({account}, '{hour}T00:00:00Z', 1000, 10, 0, {micros})"
    ));
}

/// The text of the page from `marker` to the next `end`.
fn part<'p>(page: &'p str, marker: &str, end: &str) -> &'p str {
    let rest = page
        .split(marker)
        .nth(1)
        .unwrap_or_else(|| panic!("{marker} on the page: {page}"));
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

/// The home page's heading of its totals across currencies, and the cabinets page's.
fn across(web: &Browser) -> (String, String) {
    let home = web.get("/?period=today").body;
    let home = part(&home, r#"<section class="home-across""#, "</h3>").to_string();
    let cabinets = web.get("/cabinets").body;
    let cabinets = part(&cabinets, "<tfoot>", "</tfoot>").to_string();
    (home, cabinets)
}

fn choose(web: &Browser, currency: &str) -> Page {
    let page = web.get("/settings");
    web.post(
        "/settings/currency",
        &[("csrf", &page.csrf()), ("reporting_currency", currency)],
    )
}

#[test]
fn the_owners_chosen_currency_converts_the_home_and_cabinets_totals_with_rates_or_a_note() {
    let (_fake, app) = app_with_rates();
    let owner = app.user("agency");
    let euro = app.cabinet(owner, "euro", "1000");
    let ton = app.cabinet(owner, "ton", "1000");
    let stars = app.cabinet(owner, "stars", "100000");
    spend_today(&app, euro, 10_000_000);
    spend_today(&app, ton, 5_000_000);
    spend_today(&app, stars, 1_000_000_000);
    let web = logged_in(&app, owner);
    let (home, cabinets) = across(&web);
    assert!(home.contains("All clients in EUR"), "the default: {home}");
    assert!(cabinets.contains("All cabinets in EUR"), "{cabinets}");

    let settings = web.get("/settings").body;
    let select = part(&settings, r#"name="reporting_currency""#, "</select>");
    for offered in [
        r#"<option value="" selected>The service's default (EUR)"#,
        r#"<option value="USD">USD"#,
        r#"<option value="TON">TON"#,
        r#"<option value="STARS">Telegram Stars (STARS)"#,
        r#"<option value="GBP">GBP"#,
    ] {
        assert!(select.contains(offered), "{offered} in {select}");
    }
    let saved = choose(&web, "usd");
    assert_eq!(saved.status, 303, "{}", saved.body);
    let settings = web.get("/settings?saved=currency").body;
    assert!(settings.contains("The reporting currency is saved."));
    let select = part(&settings, r#"name="reporting_currency""#, "</select>");
    assert!(
        select.contains(r#"<option value="USD" selected>"#),
        "{select}"
    );

    let today = app.now().date_naive().format("%-d %b").to_string();
    let page = web.get("/?period=today").body;
    let totals = part(&page, r#"<section class="home-across""#, "</section>");
    assert!(totals.contains("All clients in USD"), "{totals}");
    let spend = part(totals, r#"data-figure="spend""#, "</div>");
    assert!(
        spend.contains("37.50\u{a0}USD"),
        "10 EUR at 1.25 + 5 TON at 5, the Stars left out: {spend}"
    );
    assert!(
        spend.contains(&format!("at 1 EUR = 1.25 USD, {today}")),
        "{spend}"
    );
    assert!(
        spend.contains(&format!("at 1 TON = 5 USD, {today}")),
        "{spend}"
    );
    assert!(spend.contains("STARS: no rate known"), "{spend}");

    let page = web.get("/cabinets").body;
    let foot = part(&page, "<tfoot>", "</tfoot>");
    assert!(foot.contains("All cabinets in USD"), "{foot}");
    let balance = part(foot, r#"data-figure="balance""#, "</td>");
    assert!(
        balance.contains("6,250.00\u{a0}USD"),
        "1000 EUR at 1.25 + 1000 TON at 5: {balance}"
    );
    let notes = part(&page, r#"data-figure="rates""#, "</ul>");
    assert!(
        notes.contains(&format!("at 1 EUR = 1.25 USD, {today}")),
        "{notes}"
    );
    assert!(notes.contains("STARS: no rate known"), "{notes}");
    let start = page
        .find(&format!("href=\"/campaigns?account_id={stars}\""))
        .expect("the Stars cabinet's row");
    let row = &page[start..];
    let row = part(
        &row[..row.find("</tr>").unwrap()],
        r#"data-label="Balance""#,
        "</td>",
    );
    assert!(
        row.contains("STARS") && !row.contains("USD"),
        "the Stars balance stays native in its row: {row}"
    );

    let back = choose(&web, "");
    assert_eq!(back.status, 303, "{}", back.body);
    let (home, cabinets) = across(&web);
    assert!(
        home.contains("All clients in EUR"),
        "the default again: {home}"
    );
    assert!(cabinets.contains("All cabinets in EUR"), "{cabinets}");
}

#[test]
fn a_team_sees_its_owners_currency_while_another_owner_and_a_person_of_two_owners_see_the_default()
{
    let (_fake, app) = app_with_rates();
    let owner = app.user("agency");
    app.cabinet(owner, "euro", "1000");
    let ton = app.cabinet(owner, "ton", "1000");
    let other = app.user("agency");
    app.cabinet(other, "euro", "100");
    let other_ton = app.cabinet(other, "ton", "100");
    let member = app.user("pro");
    ops::member_add(&app.services, owner, member, ton, TeamAccess::Viewer).unwrap();
    let both = app.user("pro");
    ops::member_add(&app.services, owner, both, ton, TeamAccess::Viewer).unwrap();
    ops::member_add(&app.services, other, both, other_ton, TeamAccess::Viewer).unwrap();
    for (who, currency) in [(owner, "USD"), (other, "TON")] {
        let saved = choose(&logged_in(&app, who), currency);
        assert_eq!(saved.status, 303, "{}", saved.body);
    }

    let (home, cabinets) = across(&logged_in(&app, member));
    assert!(home.contains("All clients in USD"), "the owner's: {home}");
    assert!(cabinets.contains("All cabinets in USD"), "{cabinets}");
    assert!(
        cabinets.contains("5,000.00\u{a0}USD"),
        "1000 TON at 5 USD: {cabinets}"
    );
    let (_, cabinets) = across(&logged_in(&app, other));
    assert!(
        cabinets.contains("All cabinets in TON"),
        "its own choice, not the first owner's: {cabinets}"
    );
    let (home, cabinets) = across(&logged_in(&app, both));
    assert!(home.contains("All clients in EUR"), "two owners: {home}");
    assert!(cabinets.contains("All cabinets in EUR"), "{cabinets}");

    let refused = choose(&logged_in(&app, member), "USD");
    assert_eq!(refused.status, 404, "only an owner chooses");
}

#[test]
fn a_currency_adcab_does_not_convert_is_refused_beside_the_field() {
    let (_fake, app) = app_with_rates();
    let owner = app.user("agency");
    app.cabinet(owner, "euro", "1000");
    let web = logged_in(&app, owner);
    for bad in ["JPY", "euro!"] {
        let refused = choose(&web, bad);
        assert_eq!(refused.status, 422, "{bad}: {}", refused.body);
        let beside = part(&refused.body, r#"data-param="reporting_currency""#, "</p>");
        assert!(
            beside.contains("Choose a currency from the list."),
            "{beside}"
        );
    }
    let chosen: i64 = app
        .services
        .db
        .read_blocking(move |c| {
            Ok::<_, adcab::store::StoreError>(c.query_row(
                "SELECT COUNT(*) FROM agency_profiles
                 WHERE owner_id = ?1 AND reporting_currency IS NOT NULL",
                [owner],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert_eq!(chosen, 0, "nothing kept");
}
