//! Scheduled client reports against the fake Bot API (`tests/support/bot_fake`): a cabinet's
//! weekly report reaches its chat as a PDF once per period (across restarts, a failed send
//! retried when the fake recovers), the PDF reads back with the period's figures in the
//! owner's language, the `report` webhook event is signed and carries them, a monthly report
//! covers the calendar month, and `--report none` stops them. The report is the client
//! report: an owner east of UTC gets the hours of their own days, and the PDF sent is the one
//! the panel's `?format=pdf` gives for the same days.

use std::time::Duration;

use crate::alerts::bot_fake::{BotFault, FakeBot, SentDocument};
use crate::helpers::openapi;
use crate::helpers::{spawn_app_with, wait_for, Receiver, TestApp};
use adcab::jobs::reports::{self, Ticked};
use adcab::ops::{self, CabinetChange};
use adcab::store::report_sends::{self, Send};
use chrono::{Datelike, Timelike};
use serde_json::{json, Value};

const TOKEN: &str = "123456:test-token";
const CHAT: i64 = -100_333;
const DAY: i64 = 24 * 3600;
const AD: i64 = 4242;
const TITLE: &str = "Autumn sale";

fn app_with(bot: &FakeBot) -> TestApp {
    let url = bot.url.clone();
    spawn_app_with(move |c| {
        c.notify.bot_api_url = url;
        c.notify.bot_token = TOKEN.into();
    })
}

/// Moves the service clock to the next Monday, 00:30 UTC.
fn to_monday(app: &TestApp) {
    let now = app.now();
    let days = (7 - i64::from(now.weekday().num_days_from_monday())) % 7;
    let days = if days == 0 { 7 } else { days };
    let into_day = i64::from(now.num_seconds_from_midnight());
    ops::sim_advance(&app.services, days * DAY - into_day + 1800).unwrap();
    app.settle();
}

fn set(app: &TestApp, cabinet: i64, change: CabinetChange) {
    ops::cabinet_set(&app.services, cabinet, &change).unwrap();
}

fn schedule(app: &TestApp, cabinet: i64, report: &str) {
    let change = CabinetChange {
        report: Some(report.into()),
        ..CabinetChange::default()
    };
    set(app, cabinet, change);
}

/// An agency with a euro cabinet whose chat is `CHAT` and a manage key whose webhooks go to
/// `rx`; the clock on a Monday at 00:30: (user, cabinet, webhook secret). Its stats are
/// stored by the tests for a campaign the platform no longer has (`AD`, kept as deleted), so
/// no sync adds to them.
fn setup(app: &TestApp, bot: &FakeBot, rx: &Receiver) -> (i64, i64, String) {
    bot.add_chat(CHAT);
    let user = app.user("agency");
    let cabinet = app.cabinet(user, "euro", "1000");
    app.sql(&format!(
        "INSERT INTO campaigns (account_id, ad_id, title, text, status, active, promote_url,
            link_kind, target_type, targeting, cpm_micros, views_per_user, created_at,
            synced_at, status_changed_at)
         VALUES ({cabinet}, {AD}, '{TITLE}', 't', 'Deleted', 0, 'https://t.me/a', 'channel',
            'channels', '{{}}', 1, 1, 0, 't', 't');
         UPDATE campaign_counters SET budget_micros = 1
         WHERE account_id = {cabinet} AND ad_id = {AD}"
    ));
    let chat = CabinetChange {
        telegram_chat: Some(CHAT.to_string()),
        ..CabinetChange::default()
    };
    set(app, cabinet, chat);
    let (_, _, secret) = app.hook_key(user, &rx.url);
    to_monday(app);
    (user, cabinet, secret)
}

/// Stores an hour of stats for the campaign, `days_ago` days before the service clock's day,
/// at 10:00 UTC.
fn stats(app: &TestApp, cabinet: i64, days_ago: i64, views: i64, spent_micros: i64) {
    stats_at(app, cabinet, days_ago, 10, views, spent_micros);
}

/// Stores the hour starting at `hour`:00 UTC, `days_ago` days before the service clock's day.
fn stats_at(app: &TestApp, cabinet: i64, days_ago: i64, hour: u32, views: i64, spent_micros: i64) {
    let day = app.now().date_naive() - chrono::Days::new(days_ago as u64);
    let hour = format!("{day}T{hour:02}:00:00Z");
    app.sql(&format!(
        "INSERT OR REPLACE INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks,
            actions, spent_micros) VALUES ({cabinet}, {AD}, '{hour}', {views}, 0, 7, 2,
            {spent_micros});
         INSERT OR REPLACE INTO cabinet_hours (account_id, hour, views, clicks, actions, spent_micros)
            VALUES ({cabinet}, '{hour}', {views}, 7, 2, {spent_micros});"
    ));
}

fn documents(bot: &FakeBot, n: usize) -> Vec<SentDocument> {
    wait_for(Duration::from_secs(10), "the report documents", || {
        let got = bot.documents();
        (got.len() >= n).then_some(got)
    })
}

fn sends(app: &TestApp, cabinet: i64) -> Vec<Send> {
    app.services
        .db
        .read_blocking(|c| report_sends::of_cabinet(c, cabinet))
        .unwrap()
}

/// The sends once none is pending.
fn settled(app: &TestApp, cabinet: i64, n: usize) -> Vec<Send> {
    wait_for(
        Duration::from_secs(10),
        "the report sends to settle",
        || {
            let all = sends(app, cabinet);
            (all.len() >= n && all.iter().all(|s| s.state != "pending")).then_some(all)
        },
    )
}

/// The text of the PDF, all pages.
fn pdf_text(bytes: &[u8]) -> String {
    let doc = lopdf::Document::load_mem(bytes).expect("a PDF");
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    doc.extract_text(&pages).expect("its text")
}

fn report_events(rx: &Receiver, secret: &str, n: usize) -> Vec<Value> {
    wait_for(Duration::from_secs(10), "the report events", || {
        let got: Vec<Value> = rx
            .received()
            .iter()
            .filter(|r| r.event() == "report")
            .map(|r| r.verified(secret))
            .collect();
        (got.len() >= n).then_some(got)
    })
}

/// One look of the report job from the test, beside the server's own: whatever is due is
/// recorded and sent when it returns.
fn tick(app: &TestApp) -> Ticked {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(reports::tick(&app.services))
        .unwrap()
}

#[test]
fn a_weekly_report_reaches_the_chat_once_per_week_and_the_webhook_signed() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot);
    let rx = Receiver::start(200);
    let (_, cabinet, secret) = setup(&app, &bot, &rx);
    // Last week (Monday to Sunday): 1000 + 2500 views, 1.25 + 10 EUR; two weeks ago: 999.
    stats(&app, cabinet, 7, 1000, 1_250_000);
    stats(&app, cabinet, 1, 2500, 10_000_000);
    stats(&app, cabinet, 8, 999, 99_000_000);
    schedule(&app, cabinet, "weekly");

    let sent = documents(&bot, 1);
    let week = app.now().date_naive() - chrono::Days::new(7);
    assert_eq!(sent[0].chat_id, CHAT);
    assert_eq!(sent[0].filename, format!("report-{week}.pdf"));
    assert_eq!(sent[0].content_type.as_deref(), Some("application/pdf"));
    assert!(
        sent[0].caption.contains("euro cabinet"),
        "{}",
        sent[0].caption
    );
    let text = pdf_text(&sent[0].bytes);
    let wanted = [
        "euro cabinet",
        "11.25 EUR",
        "3,500",
        "Spend, EUR · By day",
        TITLE,
    ];
    for want in wanted {
        assert!(text.contains(want), "{want:?} missing from {text}");
    }
    assert!(!text.contains("999"), "two weeks ago is not in it: {text}");

    let events = report_events(&rx, &secret, 1);
    let e = &events[0];
    assert_eq!(e["account_id"], json!(cabinet));
    assert_eq!(e["schedule"], "weekly");
    assert_eq!(e["period"]["first_day"], week.to_string());
    assert_eq!(e["period"]["time_zone"], "UTC");
    assert_eq!(e["currency"], "EUR");
    assert_eq!(e["totals"]["views"], 3500);
    assert_eq!(e["totals"]["spent"].as_f64(), Some(11.25));
    assert_eq!(e["totals"]["clicks"], 14);
    assert_eq!(e["days"].as_array().unwrap().len(), 7);
    assert_eq!(e["campaigns"][0]["ad_id"], json!(AD));
    assert_eq!(e["campaigns"][0]["title"], TITLE);
    let schema = &openapi::document()["webhooks"]["report"]["post"]["requestBody"]["content"]
        ["application/json"]["schema"];
    let problems: Vec<String> = openapi::compile(schema)
        .unwrap()
        .iter_errors(e)
        .map(|p| p.to_string())
        .collect();
    assert!(problems.is_empty(), "{e}\n{problems:?}");

    // Once recorded as sent, a restart sends nothing again; two more Mondays send two more
    // weeks.
    assert_eq!(settled(&app, cabinet, 1)[0].state, "sent");
    let app = app.restart();
    assert_eq!(tick(&app), Ticked::default());
    assert_eq!(bot.documents().len(), 1);
    for n in [2, 3] {
        app.advance(7 * DAY);
        documents(&bot, n);
    }
    tick(&app);
    let sent = bot.documents();
    assert_eq!(sent.len(), 3, "once per week");
    let names: Vec<&str> = sent.iter().map(|d| d.filename.as_str()).collect();
    let mut unique = names.clone();
    unique.dedup();
    assert_eq!(unique, names, "three different weeks");
    assert_eq!(report_events(&rx, &secret, 3).len(), 3);
    let all = settled(&app, cabinet, 3);
    assert!(all.iter().all(|s| s.state == "sent"), "{all:?}");
}

#[test]
fn a_failed_send_is_tried_again_once_the_bot_api_recovers() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot);
    let rx = Receiver::start(200);
    let (_, cabinet, _) = setup(&app, &bot, &rx);
    bot.fail_next(1, BotFault::ServerError);
    schedule(&app, cabinet, "weekly");

    let first = wait_for(Duration::from_secs(10), "the failed attempt", || {
        let s = sends(&app, cabinet);
        s.first().filter(|s| s.attempts == 1).cloned()
    });
    assert_eq!(first.state, "pending");
    assert_eq!(first.detail.as_deref(), Some("the Bot API answered 500"));
    assert!(bot.documents().is_empty());
    // The pause after a first failure is five seconds of the service clock.
    app.advance(60);
    let sent = documents(&bot, 1);
    tick(&app);
    assert_eq!(bot.documents().len(), 1, "{sent:?}");
    let done = settled(&app, cabinet, 1);
    assert_eq!((done[0].state.as_str(), done[0].attempts), ("sent", 2));
}

#[test]
fn a_russian_owner_gets_a_russian_monthly_report_and_none_stops_them() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot);
    let rx = Receiver::start(200);
    let (user, cabinet, _) = setup(&app, &bot, &rx);
    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {user}"
    ));
    // A day of the previous calendar month.
    let today = app.now().date_naive();
    let last_month = today.with_day(1).unwrap() - chrono::Days::new(1);
    let ago = (today - last_month).num_days();
    stats(&app, cabinet, ago, 123_456, 7_500_000);
    schedule(&app, cabinet, "monthly");

    let sent = documents(&bot, 1);
    assert_eq!(
        sent[0].filename,
        format!("report-{}.pdf", last_month.format("%Y-%m"))
    );
    let text = pdf_text(&sent[0].bytes);
    for want in [
        "euro cabinet",
        "Расход",
        "Показы",
        "7,50 EUR",
        "123\u{a0}456",
    ] {
        assert!(text.contains(want), "{want:?} missing from {text}");
    }
    assert!(sent[0].caption.contains("отчёт за"), "{}", sent[0].caption);

    schedule(&app, cabinet, "none");
    app.advance(40 * DAY);
    tick(&app);
    assert_eq!(bot.documents().len(), 1, "no report after --report none");
    assert_eq!(sends(&app, cabinet).len(), 1);
}

#[test]
fn a_cabinets_report_language_outranks_its_owners_and_none_gives_it_back() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot);
    let rx = Receiver::start(200);
    let (user, cabinet, _) = setup(&app, &bot, &rx);
    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {user}"
    ));
    let bad = ops::cabinet_set(
        &app.services,
        cabinet,
        &CabinetChange {
            report_language: Some("de".into()),
            ..CabinetChange::default()
        },
    )
    .unwrap_err();
    assert!(format!("{bad:?}").contains("report-language"), "{bad:?}");
    let english = CabinetChange {
        report_language: Some("en".into()),
        ..CabinetChange::default()
    };
    set(&app, cabinet, english);
    stats(&app, cabinet, 3, 1_000, 2_500_000);
    schedule(&app, cabinet, "weekly");

    let sent = documents(&bot, 1);
    let text = pdf_text(&sent[0].bytes);
    assert!(text.contains("Spend, EUR · By day"), "{text}");
    assert!(!text.contains("Расход"), "{text}");
    assert_eq!(sends(&app, cabinet)[0].language.code(), "en");

    // `none`: the owner's language again, from the next period on.
    let owners = CabinetChange {
        report_language: Some("none".into()),
        ..CabinetChange::default()
    };
    set(&app, cabinet, owners);
    app.advance(7 * DAY);
    tick(&app);
    let sent = documents(&bot, 2);
    let text = pdf_text(&sent[1].bytes);
    assert!(text.contains("Расход"), "{text}");
}

#[test]
fn an_owner_east_of_utc_gets_the_hours_of_their_own_days() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot);
    let rx = Receiver::start(200);
    let (user, cabinet, secret) = setup(&app, &bot, &rx);
    app.sql(&format!(
        "UPDATE users SET time_zone = 'Europe/Moscow' WHERE id = {user}"
    ));
    // The Sunday before last, 23:00 to 24:00 UTC (a spend at 23:30): Monday 02:00 in
    // Moscow, the first hours of last week there.
    stats_at(&app, cabinet, 8, 23, 4000, 3_000_000);
    // Last Sunday at 10:00 UTC: Sunday in both.
    stats(&app, cabinet, 1, 1500, 1_500_000);
    // Last Sunday at 22:00 UTC: already this Monday in Moscow, not last week's.
    stats_at(&app, cabinet, 1, 22, 777, 7_000_000);
    schedule(&app, cabinet, "weekly");

    let sent = documents(&bot, 1);
    let week = app.now().date_naive() - chrono::Days::new(7);
    let e = &report_events(&rx, &secret, 1)[0];
    assert_eq!(e["period"]["time_zone"], "Europe/Moscow");
    assert_eq!(e["period"]["first_day"], week.to_string());
    let start = format!("{}T21:00:00Z", week - chrono::Days::new(1));
    assert_eq!(e["period"]["start"], start);
    assert_eq!(e["totals"]["views"], 5500, "{e}");
    assert_eq!(e["totals"]["spent"].as_f64(), Some(4.5));
    let days = e["days"].as_array().unwrap();
    assert_eq!(days.len(), 7);
    assert_eq!(days[0]["day"], week.to_string());
    assert_eq!(
        days[0]["views"], 4000,
        "23:30 UTC is the next day in Moscow"
    );
    assert_eq!(days[6]["views"], 1500);

    let text = pdf_text(&sent[0].bytes);
    for want in ["5,500", "4.50 EUR", "days in Europe/Moscow"] {
        assert!(text.contains(want), "{want:?} missing from {text}");
    }
    assert!(
        !text.contains("6,277"),
        "this week's hour is not in it: {text}"
    );
}

#[test]
fn the_pdf_sent_has_the_figures_of_the_panels_pdf_for_the_same_days() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot);
    let rx = Receiver::start(200);
    let (user, cabinet, _) = setup(&app, &bot, &rx);
    app.sql(&format!(
        "UPDATE users SET time_zone = 'Europe/Moscow' WHERE id = {user};
         UPDATE cabinets SET fee_percent = '10' WHERE id = {cabinet};"
    ));
    stats_at(&app, cabinet, 8, 23, 4000, 3_000_000);
    stats(&app, cabinet, 3, 2000, 4_000_000);
    // The week before, for the change against it.
    stats(&app, cabinet, 10, 1000, 2_000_000);
    schedule(&app, cabinet, "weekly");

    let sent = documents(&bot, 1);
    let first = app.now().date_naive() - chrono::Days::new(7);
    let last = first + chrono::Days::new(6);
    let web = crate::web::logged_in(&app, user);
    let panel = web.get(&format!(
        "/reports/{cabinet}?from={first}&to={last}&format=pdf"
    ));
    assert_eq!(panel.status, 200, "{}", panel.body);
    let panel = pdf_text(&panel.bytes);
    for want in ["6,000", "7.00 EUR", "0.70 EUR", "7.70 EUR", TITLE] {
        assert!(panel.contains(want), "{want:?} missing from {panel}");
    }
    assert_eq!(pdf_text(&sent[0].bytes), panel, "the same report");
}
