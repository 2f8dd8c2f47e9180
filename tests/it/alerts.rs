//! Alerts against a fake Telegram Bot API (`tests/support/bot_fake`): a rule's notice reaches
//! the person's and the cabinet's chats and the key's webhook as a signed `alert`; a chat that
//! blocked the bot is logged undeliverable and switched off; the built-in alerts (declined,
//! budget low, balance low, session expired, webhooks failing) are told once per condition, a
//! decline with the platform's reason.

#[path = "../support/bot_fake/mod.rs"]
pub mod bot_fake;

use std::time::Duration;

use crate::helpers::{spawn_app_with, wait_for, Receiver, TestApp};
use adcab::ops::{self, CabinetChange};
use adcab::store::alerts::{self, Recorded};
use bot_fake::{FakeBot, SentMessage};
use serde_json::{json, Value};

const HOUR: i64 = 3600;
const TOKEN: &str = "123456:test-token";
const PERSON: i64 = 111;
const CABINET_CHAT: i64 = -100_222;

/// The service with its alerts going to `bot`.
fn app_with(bot: &FakeBot, budget_below_percent: u32) -> TestApp {
    let url = bot.url.clone();
    spawn_app_with(move |c| {
        c.notify.bot_api_url = url;
        c.notify.bot_token = TOKEN.into();
        c.notify.budget_below_percent = budget_below_percent;
    })
}

/// A person with a chat, a euro cabinet with its own chat, a manage key whose webhooks go to
/// `rx`, the clock at two past an hour: (user, cabinet, key, secret).
fn setup(app: &TestApp, bot: &FakeBot, rx: &Receiver) -> (i64, i64, String, String) {
    bot.add_chat(PERSON);
    bot.add_chat(CABINET_CHAT);
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000");
    ops::user_set_chat(&app.services, user, &PERSON.to_string()).unwrap();
    let chat = CabinetChange {
        telegram_chat: Some(CABINET_CHAT.to_string()),
        ..CabinetChange::default()
    };
    ops::cabinet_set(&app.services, cabinet, &chat).unwrap();
    let (_, key, secret) = app.hook_key(user, &rx.url);
    app.align_hour();
    (user, cabinet, key, secret)
}

fn notify_rule(app: &TestApp, key: &str, cabinet: i64, text: &str) {
    let body = json!({
        "name": "Watch",
        "account_id": cabinet,
        "conditions": [{"metric": "views", "op": ">=", "value": 0, "window_hours": 1}],
        "action": {"type": "notify", "text": text},
        "cooldown_hours": 0,
        "max_runs_per_day": 24,
    });
    app.write_ok("POST", "/rules", key, Some(&body), 200);
}

fn messages(bot: &FakeBot, chat: i64, n: usize) -> Vec<SentMessage> {
    wait_for(Duration::from_secs(10), "the alert messages", || {
        let got = bot.messages_to(chat);
        (got.len() >= n).then_some(got)
    })
}

fn recent(app: &TestApp) -> Vec<Recorded> {
    app.services
        .db
        .read_blocking(|c| alerts::recent(c, 100))
        .unwrap()
}

/// The sends of the newest alert once none is pending: the sender records each send after
/// the Bot API answered it, so the record may trail the message the fake got.
fn settled_sends(app: &TestApp) -> Vec<(i64, String, Option<String>)> {
    wait_for(Duration::from_secs(10), "the sends to be recorded", || {
        let sends = recent(app)[0].sends.clone();
        sends
            .iter()
            .all(|(_, state, _)| state != "pending")
            .then_some(sends)
    })
}

fn user_chat(app: &TestApp, user: i64) -> Option<i64> {
    app.services
        .db
        .read_blocking(|c| alerts::user_chat(c, user))
        .unwrap()
}

#[test]
fn a_notify_rule_reaches_the_person_and_cabinet_chats_and_the_webhook() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, 10);
    let rx = Receiver::start(200);
    let (_, cabinet, key, secret) = setup(&app, &bot, &rx);
    let ad = app.active_campaign(cabinet);
    notify_rule(&app, &key, cabinet, "Look at this");
    app.advance(HOUR);

    let to_person = messages(&bot, PERSON, 1);
    let to_cabinet = messages(&bot, CABINET_CHAT, 1);
    assert_eq!(to_person.len(), 1, "one alert, one message per chat");
    assert_eq!(to_person[0].text, to_cabinet[0].text);
    assert_eq!(
        to_person[0].text,
        format!("Look at this (rule “Watch”, campaign {ad})")
    );
    let hooks: Vec<Value> = rx
        .received()
        .iter()
        .filter(|r| r.event() == "alert")
        .map(|r| r.verified(&secret))
        .collect();
    assert_eq!(hooks.len(), 1);
    assert_eq!(hooks[0]["kind"], "rule");
    assert_eq!(
        (hooks[0]["account_id"].clone(), hooks[0]["ad_id"].clone()),
        (json!(cabinet), json!(ad))
    );
    assert_eq!(hooks[0]["text"], to_person[0].text.as_str());
    assert_eq!(
        hooks[0]["at"],
        adcab::clock::iso(adcab::clock::hour_start(app.now()))
    );
    let sent = settled_sends(&app);
    assert!(sent.iter().all(|(_, state, _)| state == "sent"), "{sent:?}");
}

#[test]
fn a_chat_that_blocked_the_bot_is_logged_undeliverable_and_switched_off() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, 10);
    let rx = Receiver::start(200);
    let (user, cabinet, key, _) = setup(&app, &bot, &rx);
    app.active_campaign(cabinet);
    bot.block(PERSON);
    notify_rule(&app, &key, cabinet, "Blocked?");
    app.advance(HOUR);

    messages(&bot, CABINET_CHAT, 1);
    let sends = settled_sends(&app);
    let to_person = sends.iter().find(|(chat, _, _)| *chat == PERSON).unwrap();
    assert_eq!(to_person.1, "undeliverable");
    assert_eq!(
        to_person.2.as_deref(),
        Some("Forbidden: bot was blocked by the user")
    );
    assert_eq!(
        user_chat(&app, user),
        None,
        "the person's link is switched off"
    );
    assert!(bot.messages_to(PERSON).is_empty());

    let calls = bot.calls();
    app.advance(HOUR);
    messages(&bot, CABINET_CHAT, 2);
    let latest = &recent(&app)[0].sends;
    assert_eq!(
        latest.len(),
        1,
        "only the cabinet's chat is written to now: {latest:?}"
    );
    assert_eq!(bot.calls(), calls + 1);
}

#[test]
fn built_in_alerts_are_told_once_per_condition() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, 99);
    let failing = Receiver::start(500);
    let (user, cabinet, key, _) = setup(&app, &bot, &failing);
    let running = app.active_campaign(cabinet);
    let also_running = app.active_campaign(cabinet);
    let declined = app.campaign(
        cabinet,
        crate::helpers::Camp::channel("Casino", "https://t.me/alpha_chan"),
    );
    ops::sim_review(&app.services, cabinet, declined, false, Some("no")).unwrap();
    for _ in 0..2 {
        app.write_ok(
            "POST",
            &format!("/campaigns/{running}/pause"),
            &key,
            None,
            200,
        );
        app.write_ok(
            "POST",
            &format!("/campaigns/{running}/resume"),
            &key,
            None,
            200,
        );
    }
    app.advance(HOUR);
    let expired = CabinetChange {
        auth_expired: Some(true),
        balance: Some("0.01".into()),
        ..CabinetChange::default()
    };
    ops::cabinet_set(&app.services, cabinet, &expired).unwrap();
    app.advance(HOUR);
    app.advance(HOUR);

    let kinds = |app: &TestApp| {
        let mut k: Vec<String> = recent(app).into_iter().map(|a| a.kind).collect();
        k.sort();
        k
    };
    assert_eq!(
        kinds(&app),
        vec![
            "balance_low",
            "budget_low",
            "campaign_declined",
            "session_expired",
            "webhook_failing"
        ],
        "each once over three hours"
    );
    let all = recent(&app);
    let declined_alert = all.iter().find(|a| a.kind == "campaign_declined").unwrap();
    assert_eq!(declined_alert.ad_id, Some(declined));
    assert!(
        declined_alert.text.contains("“Casino”"),
        "{}",
        declined_alert.text
    );
    let low = all.iter().find(|a| a.kind == "budget_low").unwrap();
    assert_eq!(low.ad_id, None, "two campaigns of one cabinet: one alert");
    assert!(
        low.text
            .starts_with("2 campaigns of Cabinet “euro cabinet” are running low on budget: ")
            && low.text.contains(&format!("{running} “Running”"))
            && low.text.contains(&format!("{also_running} “Running”")),
        "{}",
        low.text
    );
    let hook = all.iter().find(|a| a.kind == "webhook_failing").unwrap();
    assert_eq!(hook.account_id, None, "about a key, not a cabinet");
    assert_eq!(
        hook.sends.iter().map(|s| s.0).collect::<Vec<_>>(),
        vec![PERSON]
    );
    messages(&bot, PERSON, 5);
    assert_eq!(user_chat(&app, user), Some(PERSON));

    let back = CabinetChange {
        auth_expired: Some(false),
        ..CabinetChange::default()
    };
    ops::cabinet_set(&app.services, cabinet, &back).unwrap();
    app.advance(HOUR);
    ops::cabinet_set(&app.services, cabinet, &expired).unwrap();
    app.advance(HOUR);
    let expired_count = recent(&app)
        .iter()
        .filter(|a| a.kind == "session_expired")
        .count();
    assert_eq!(
        expired_count, 2,
        "told again after it cleared and came back"
    );
}

#[test]
fn a_daily_digest_tells_each_person_their_day_once() {
    let bot = FakeBot::start(TOKEN);
    let url = bot.url.clone();
    let app = spawn_app_with(move |c| {
        c.notify.bot_api_url = url;
        c.notify.bot_token = TOKEN.into();
        c.notify.daily_digest_hour = 0;
    });
    let rx = Receiver::start(200);
    let (_, cabinet, _, _) = setup(&app, &bot, &rx);
    app.active_campaign(cabinet);
    // The set-up moves the clock too, past a midnight when the test runs late in the day: the
    // digests counted are those of the 24 hours moved here.
    let before: Vec<String> = recent(&app)
        .into_iter()
        .filter(|a| a.kind == "daily_digest")
        .map(|a| a.at)
        .collect();
    app.advance(24 * HOUR);

    let digests: Vec<Recorded> = recent(&app)
        .into_iter()
        .filter(|a| a.kind == "daily_digest" && !before.contains(&a.at))
        .collect();
    assert_eq!(digests.len(), 1, "one a day");
    assert!(digests[0].at.ends_with("T00:00:00Z"), "{}", digests[0].at);
    assert_eq!(
        digests[0].sends.iter().map(|s| s.0).collect::<Vec<_>>(),
        vec![PERSON],
        "the person's chat only"
    );
    let text = &digests[0].text;
    assert!(text.starts_with("Your last 24 hours, to "), "{text}");
    assert!(
        text.contains("\neuro cabinet: ") && text.contains(" EUR spent, "),
        "{text}"
    );
    // Other alerts of the set-up may reach the person first: wait for the digest's own text.
    wait_for(Duration::from_secs(10), "the digest's message", || {
        bot.messages_to(PERSON)
            .iter()
            .any(|m| &m.text == text)
            .then_some(())
    });
    assert!(
        rx.received()
            .iter()
            .all(|r| !String::from_utf8_lossy(&r.body).contains("daily_digest")),
        "no webhook: a digest is no cabinet's event"
    );
}

#[test]
fn the_declined_alert_says_the_platforms_reason() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, 0);
    let rx = Receiver::start(200);
    let (_, cabinet, _, _) = setup(&app, &bot, &rx);
    let camp = |title| {
        app.campaign(
            cabinet,
            crate::helpers::Camp::channel(title, "https://t.me/alpha_chan"),
        )
    };
    let declined = |ad, reason| {
        ops::sim_review(&app.services, cabinet, ad, false, Some(reason)).unwrap();
    };
    let newest_declined = |app: &TestApp| {
        recent(app)
            .into_iter()
            .find(|a| a.kind == "campaign_declined")
            .unwrap()
    };
    let alone = camp("Alone");
    declined(alone, "Text formatting");
    app.advance(HOUR);
    let one = newest_declined(&app);
    assert_eq!(one.ad_id, Some(alone));
    assert_eq!(
        one.text,
        format!(
            "Campaign {alone} “Alone” (Cabinet “euro cabinet”) was declined by the platform's \
             review: Text formatting — The ad text uses capital letters, emoji or punctuation to \
             draw attention. Write it in ordinary sentence case."
        ),
        "the reason and its explanation"
    );

    let (first, second) = (camp("First"), camp("Second"));
    declined(first, "Too loud");
    declined(second, "Misleading claims");
    app.advance(HOUR);
    let several = newest_declined(&app);
    assert_eq!(
        several.ad_id, None,
        "two campaigns of one cabinet: one alert"
    );
    assert_eq!(
        several.text,
        format!(
            "2 campaigns of Cabinet “euro cabinet” were declined by the platform's review: \
             {first} “First” (Too loud), {second} “Second” (Misleading claims)."
        ),
        "each campaign with its short reason"
    );
}

#[test]
fn a_person_who_reads_russian_gets_alerts_in_russian_and_the_webhook_stays_english() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, 10);
    let rx = Receiver::start(200);
    let (user, cabinet, key, secret) = setup(&app, &bot, &rx);
    app.services
        .db
        .write_blocking(move |tx| {
            tx.execute("UPDATE users SET language = 'ru' WHERE id = ?1", [user])?;
            Ok::<_, adcab::store::StoreError>(())
        })
        .unwrap();
    let ad = app.active_campaign(cabinet);
    notify_rule(&app, &key, cabinet, "Смотрите");
    app.advance(HOUR);

    let russian = format!("Смотрите (правило «Watch», кампания {ad})");
    assert_eq!(messages(&bot, PERSON, 1)[0].text, russian);
    assert_eq!(
        messages(&bot, CABINET_CHAT, 1)[0].text,
        russian,
        "a cabinet's chat reads its owner's language"
    );
    let hook = rx
        .received()
        .iter()
        .find(|r| r.event() == "alert")
        .map(|r| r.verified(&secret))
        .expect("the alert event");
    assert_eq!(
        hook["text"],
        format!("Смотрите (rule “Watch”, campaign {ad})"),
        "the webhook speaks the API's language"
    );
}
