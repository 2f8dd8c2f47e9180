//! The home page: what needs attention (declined with the platform's reason, in review over a
//! day, stopped for budget, a cabinet's balance for a day or less, the "new" mark until the
//! person has looked), and the totals per cabinet for a period, equal to the API's stats, with
//! the change against the period before and as CSV; a viewer gets no action buttons.

use adcab::ops::{self, TeamAccess};
use chrono::Duration;
use serde_json::Value;

use super::logged_in;
use crate::helpers::{spawn_app, Browser, Camp, TestApp};

/// The part of the page between `<h3 data-kind="KIND"` and the next heading.
fn section<'p>(page: &'p str, kind: &str) -> Option<&'p str> {
    let start = page.find(&format!("<h3 data-kind=\"{kind}\""))?;
    let rest = &page[start + 4..];
    let end = rest
        .find("<h3")
        .or_else(|| rest.find("</section>"))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The CSV rows of the totals as maps from column to value.
fn csv_rows(b: &Browser, query: &str) -> Vec<std::collections::HashMap<String, String>> {
    let page = b.get(&format!("/?{query}&format=csv"));
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/csv")));
    let mut lines = page.body.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

fn hour_row(app: &TestApp, account: i64, hour: &str, views: i64, spent_micros: i64) {
    app.sql(&format!(
        "INSERT INTO cabinet_hours (account_id, hour, views, clicks, actions, spent_micros)
         VALUES ({account}, '{hour}', {views}, {}, 0, {spent_micros})",
        views / 10
    ));
}

#[test]
fn a_declined_campaign_shows_with_its_reason_and_a_recreate_button() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.campaign(
        cabinet,
        Camp::channel("Shouting one", "https://t.me/alpha_chan"),
    );
    ops::sim_review(&app.services, cabinet, ad, false, Some("Text formatting")).unwrap();
    let b = logged_in(&app, user);

    let page = b.get("/");
    assert_eq!(page.status, 200);
    let declined = section(&page.body, "home-declined").expect("a declined section");
    assert!(declined.contains("Shouting one"), "{declined}");
    assert!(
        declined.contains("Reason: Text formatting"),
        "the platform's reason: {declined}"
    );
    assert!(
        declined.contains(&format!(r#"action="/campaigns/{cabinet}/{ad}/recreate""#)),
        "a button to recreate it: {declined}"
    );
}

#[test]
fn an_ad_in_review_for_25_hours_shows_and_one_for_23_does_not() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    app.campaign(
        cabinet,
        Camp::channel("Slow review", "https://t.me/alpha_chan"),
    );
    app.advance(2 * 3600);
    app.campaign(
        cabinet,
        Camp::channel("Fresh review", "https://t.me/alpha_chan"),
    );
    app.advance(23 * 3600);
    let b = logged_in(&app, user);

    let page = b.get("/").body;
    let waiting = section(&page, "home-in-review").expect("an in-review section");
    assert!(waiting.contains("Slow review"), "25 hours: {waiting}");
    assert!(
        !page.contains("Fresh review"),
        "23 hours is not yet too long"
    );
}

#[test]
fn a_campaign_stopped_for_lack_of_budget_shows_with_an_add_budget_form() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    app.align_hour();
    let ad = app.funded(cabinet, 1_000_000);
    app.advance(2 * 3600);
    let status: String = app.scalar(
        "SELECT status FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        &[cabinet, ad],
    );
    assert_eq!(status, "Stopped", "1 EUR runs out within two hours");
    let b = logged_in(&app, user);

    let page = b.get("/").body;
    let stopped = section(&page, "home-out-of-budget").expect("a stopped section");
    assert!(stopped.contains("Funded"), "{stopped}");
    assert!(
        stopped.contains(&format!(r#"action="/campaigns/{cabinet}/{ad}/budget""#))
            && stopped.contains(r#"name="amount""#)
            && stopped.contains(r#"name="direction" value="add""#),
        "a form to add budget: {stopped}"
    );
}

#[test]
fn a_campaign_whose_budget_will_not_last_a_day_at_its_pace_shows_and_one_that_will_does_not() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let short = app.approved(
        cabinet,
        Camp::channel("Running short", "https://t.me/alpha_chan"),
    );
    let lasting = app.approved(cabinet, Camp::channel("Lasting", "https://t.me/alpha_chan"));
    // Both hold 10 EUR; one spent 12 EUR over its last 24 hours of stats, the other 9.
    for (ad, day) in [(short, 12_000_000), (lasting, 9_000_000)] {
        app.sql(&format!(
            "UPDATE campaign_counters SET day_spend_micros = {day}, budget_micros = 10000000
             WHERE account_id = {cabinet} AND ad_id = {ad}"
        ));
    }
    let b = logged_in(&app, user);

    let page = b.get("/").body;
    let soon = section(&page, "home-about-to-stop").expect("an about-to-stop section");
    assert!(soon.contains("Running short"), "{soon}");
    assert!(
        soon.contains("about 20 hours left"),
        "10 EUR at 12 EUR a day: {soon}"
    );
    assert!(
        soon.contains(&format!(r#"action="/campaigns/{cabinet}/{short}/budget""#))
            && soon.contains(r#"name="direction" value="add""#),
        "a form to add budget: {soon}"
    );
    assert!(
        soon.contains(&format!(r#"href="/campaigns/{cabinet}/{short}""#)),
        "a link to the campaign: {soon}"
    );
    assert!(
        !page.contains("Lasting"),
        "9 EUR a day against 10 EUR lasts a day"
    );
}

#[test]
fn the_kept_day_spend_follows_the_hourly_stats_the_sync_stores() {
    let app = spawn_app();
    let (_, cabinet, _) = app.manager();
    app.align_hour();
    let ad = app.funded(cabinet, 1_000_000_000);
    let kept = |app: &TestApp| -> (i64, i64) {
        let kept: i64 = app.scalar(
            "SELECT day_spend_micros FROM campaign_counters WHERE account_id = ?1 AND ad_id = ?2",
            &[cabinet, ad],
        );
        let summed: i64 = app.scalar(
            "SELECT COALESCE(SUM(spent_micros), 0) FROM hourly_stats
             WHERE account_id = ?1 AND ad_id = ?2",
            &[cabinet, ad],
        );
        (kept, summed)
    };
    assert_eq!(kept(&app).0, 0, "no stats yet");
    app.advance(2 * 3600);
    let (first, summed) = kept(&app);
    assert!(first > 0, "the sync kept what it stored");
    assert_eq!(first, summed, "the last day's hours, all of them");
    app.advance(3600);
    let (second, summed) = kept(&app);
    assert!(
        second > first,
        "the next hour's stats moved it: {first} then {second}"
    );
    assert_eq!(second, summed);
    app.advance(30 * 3600);
    let in_last_day: i64 = app.scalar(
        "SELECT COALESCE(SUM(spent_micros), 0) FROM hourly_stats
         WHERE account_id = ?1 AND ad_id = ?2 AND hour >= (
            SELECT strftime('%Y-%m-%dT%H:%M:%SZ', synced_through, '-24 hours')
            FROM cabinets WHERE id = ?1)",
        &[cabinet, ad],
    );
    let (later, summed) = kept(&app);
    assert_eq!(later, in_last_day, "only the last 24 hours count");
    assert!(
        later < summed,
        "the first hours slid out: {later} of {summed}"
    );
}

#[test]
fn a_cabinet_whose_balance_lasts_a_day_or_less_shows() {
    let app = spawn_app();
    let user = app.user("agency");
    let short = app.cabinet(user, "euro", "100");
    let plenty = app.cabinet(user, "euro", "100");
    let hour = adcab::clock::hour_start(app.now() - Duration::hours(2));
    let hour = adcab::clock::iso(hour);
    hour_row(&app, short, &hour, 50_000, 100_000_000);
    hour_row(&app, plenty, &hour, 500, 1_000_000);
    let b = logged_in(&app, user);

    let page = b.get("/").body;
    let low = section(&page, "home-low-balance").expect("a low balance section");
    assert!(
        low.contains(&format!(r#"data-account="{short}""#)),
        "100 EUR spent in a day, 100 EUR left: {low}"
    );
    assert!(
        !low.contains(&format!(r#"data-account="{plenty}""#)),
        "1 EUR a day against 100 EUR lasts: {low}"
    );
}

#[test]
fn totals_per_cabinet_equal_the_apis_stats_for_the_period_and_download_as_csv() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    app.align_hour();
    app.funded(cabinet, 500_000_000);
    app.advance(30 * 3600);
    let b = logged_in(&app, user);

    let api: Value = app.get_ok("/stats/total?period=7d", &key);
    let api = &api["data"][cabinet.to_string()];
    assert!(api["views"].as_i64().unwrap() > 0, "it delivered: {api}");
    let rows = csv_rows(&b, "period=7d");
    let row = rows
        .iter()
        .find(|r| r["account_id"] == cabinet.to_string())
        .expect("the cabinet's row");
    for figure in ["views", "clicks", "actions"] {
        assert_eq!(
            row[figure],
            api[figure].to_string(),
            "{figure} as the API counts it"
        );
    }
    let spent: f64 = row["spent"].parse().unwrap();
    assert!(
        (spent - api["spent"].as_f64().unwrap()).abs() < 0.005,
        "spend at the currency's scale: {spent} against {}",
        api["spent"]
    );
    assert_eq!(row["currency"], "EUR");
    let sum = rows
        .iter()
        .find(|r| r["account_id"].is_empty())
        .expect("a row per currency");
    assert_eq!(sum["views"], row["views"], "one cabinet: its sum");

    let page = b.get("/?period=7d").body;
    let views = api["views"].as_i64().unwrap();
    let cell = page
        .split(&format!(r#"data-account="{cabinet}""#))
        .nth(1)
        .expect("the cabinet's line");
    let grouped = adcab::i18n::Lang::En.count(views);
    assert!(
        cell.contains(&format!(r#"data-figure="views">{grouped}"#)),
        "the page shows the API's views ({grouped})"
    );
    assert!(
        page.contains("<svg class=\"chart\""),
        "the spend trend chart"
    );
}

#[test]
fn the_chart_shows_each_days_spend_in_the_persons_zone() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    app.sql(&format!(
        "UPDATE users SET time_zone = 'Europe/Moscow' WHERE id = {user}"
    ));
    // Moscow's days start at 21:00 UTC the day before: the first two hours below are one day
    // of Moscow's (3 EUR), lying in two UTC days; the third starts the next one (4 EUR), in
    // the UTC day of the second.
    let moscow = chrono_tz::Europe::Moscow;
    let today = app.now().with_timezone(&moscow).date_naive();
    let (first, second) = (today - Duration::days(3), today - Duration::days(2));
    let utc =
        |day: chrono::NaiveDate, hour: u32| format!("{}T{hour:02}:00:00Z", day - Duration::days(1));
    hour_row(&app, cabinet, &utc(first, 21), 100, 1_000_000);
    hour_row(&app, cabinet, &format!("{first}T20:00:00Z"), 100, 2_000_000);
    hour_row(&app, cabinet, &utc(second, 21), 100, 4_000_000);
    let b = logged_in(&app, user);
    let page = b.get("/?period=7d").body;
    let bars: Vec<(String, String)> = page
        .split("<title>")
        .skip(1)
        .filter_map(|t| {
            let t = &t[..t.find("</title>")?];
            let (label, rest) = t.split_once(" · ")?;
            Some((label.to_string(), rest.split_once(": ")?.1.to_string()))
        })
        .collect();
    let label = |d: chrono::NaiveDate| d.format("%-d %b").to_string();
    assert_eq!(bars.len(), 2, "a bar for each day with spend: {bars:?}");
    assert_eq!(bars[0].0, label(first), "{bars:?}");
    assert_eq!(bars[0].1, "3.00\u{a0}EUR", "{bars:?}");
    assert_eq!(bars[1].0, label(second), "{bars:?}");
    assert_eq!(bars[1].1, "4.00\u{a0}EUR", "{bars:?}");
}

#[test]
fn totals_show_the_change_against_the_period_before() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let today = app.now().date_naive();
    let yesterday = today - Duration::days(1);
    hour_row(
        &app,
        cabinet,
        &format!("{today}T00:00:00Z"),
        3_000,
        3_000_000,
    );
    hour_row(
        &app,
        cabinet,
        &format!("{yesterday}T05:00:00Z"),
        2_000,
        2_000_000,
    );
    let b = logged_in(&app, user);

    let page = b.get("/?period=today").body;
    let line = page
        .split(&format!(r#"data-account="{cabinet}""#))
        .nth(1)
        .unwrap();
    let spend = line.split("data-figure=\"spent\"").nth(1).unwrap();
    assert!(
        spend[..200].contains("+50.00%"),
        "3 EUR against 2 EUR: {}",
        &spend[..200]
    );
    let rows = csv_rows(&b, "period=today");
    let row = rows
        .iter()
        .find(|r| r["account_id"] == cabinet.to_string())
        .unwrap();
    assert_eq!(
        (row["spent"].as_str(), row["previous_spent"].as_str()),
        ("3.00", "2.00")
    );
    assert_eq!(row["from"], today.to_string());

    let yesterday_rows = csv_rows(&b, "period=yesterday");
    let row = yesterday_rows
        .iter()
        .find(|r| r["account_id"] == cabinet.to_string())
        .unwrap();
    assert_eq!(row["spent"], "2.00", "yesterday holds yesterday's hours");
    let bad = b.get("/?period=custom&from=2026-13-01&to=x").body;
    assert!(
        bad.contains(r#"data-param="from""#),
        "a refused custom period says so beside its dates"
    );
}

#[test]
fn the_new_mark_goes_after_viewing() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.campaign(
        cabinet,
        Camp::channel("Shouting one", "https://t.me/alpha_chan"),
    );
    ops::sim_review(&app.services, cabinet, ad, false, Some("Text formatting")).unwrap();
    let b = logged_in(&app, user);

    let first = b.get("/").body;
    let declined = section(&first, "home-declined").unwrap();
    assert!(
        declined.contains(r#"class="badge new""#),
        "new before the first look: {declined}"
    );
    app.advance(60);
    let second = b.get("/").body;
    let declined = section(&second, "home-declined").unwrap();
    assert!(declined.contains("Shouting one"), "still listed");
    assert!(
        !declined.contains(r#"class="badge new""#),
        "not new once seen: {declined}"
    );
}

#[test]
fn a_viewer_sees_what_needs_attention_but_no_action_buttons() {
    let app = spawn_app();
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "euro", "100");
    let member = app.user("pro");
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Viewer).unwrap();
    let ad = app.campaign(
        shared,
        Camp::channel("Shouting one", "https://t.me/alpha_chan"),
    );
    ops::sim_review(&app.services, shared, ad, false, Some("Text formatting")).unwrap();

    let owner = logged_in(&app, agency).get("/").body;
    assert!(owner.contains(&format!("/campaigns/{shared}/{ad}/recreate")));
    let viewer = logged_in(&app, member).get("/").body;
    let declined = section(&viewer, "home-declined").expect("the viewer sees it");
    assert!(declined.contains("Reason: Text formatting"));
    assert!(
        !viewer.contains("/recreate") && !viewer.contains("/budget\""),
        "no action buttons for a viewer: {declined}"
    );
}

#[test]
fn the_home_page_speaks_russian() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.campaign(
        cabinet,
        Camp::channel("Shouting one", "https://t.me/alpha_chan"),
    );
    ops::sim_review(&app.services, cabinet, ad, false, Some("Text formatting")).unwrap();
    let b = logged_in(&app, user);
    let page = b.get_with("/", &[("accept-language", "ru")]).body;
    assert!(page.contains("Требует внимания") && page.contains("Отклонено модерацией"));
    assert!(page.contains("Итоги по клиентам") && page.contains("Расход"));
}
