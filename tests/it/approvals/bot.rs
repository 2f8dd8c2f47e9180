//! The bot's side of ask first: chat commands refused without access, `/pauseall` only once
//! confirmed, updates through the webhook when `[notify] public_url` is set, and long polling's
//! offset kept across a restart.

use std::time::Duration;

use serde_json::json;

use super::{
    active, answered, app_with, messages, setup, CABINET_CHAT, PERSON, STRANGER, TOKEN, WAIT,
};
use crate::alerts::bot_fake::FakeBot;
use crate::helpers::wait_for;

#[test]
fn commands_are_refused_to_a_chat_without_access_and_pause_works_for_a_manager() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, |_| {});
    let (_, cabinet, _) = setup(&app, &bot);
    let ad = app.active_campaign(cabinet);
    // Someone adcab does not know, in the cabinet's chat.
    bot.inject_message(CABINET_CHAT, STRANGER, "/pause Running");
    let refused = messages(&bot, CABINET_CHAT, 1);
    assert!(
        refused[0]
            .text
            .starts_with("Your Telegram account is not linked"),
        "{}",
        refused[0].text
    );
    // The person, in a group no cabinet is linked to.
    bot.add_chat(-555);
    bot.inject_message(-555, PERSON, "/status");
    let unlinked = messages(&bot, -555, 1);
    assert!(unlinked[0]
        .text
        .starts_with("This chat is not linked to a cabinet"));
    assert!(active(&app, cabinet, ad), "nothing ran");

    bot.inject_message(CABINET_CHAT, PERSON, "/status");
    let status = messages(&bot, CABINET_CHAT, 2);
    assert!(
        status[1].text.starts_with("Today (UTC):"),
        "{}",
        status[1].text
    );
    bot.inject_message(CABINET_CHAT, PERSON, "/pause Running");
    let paused = messages(&bot, CABINET_CHAT, 3);
    assert_eq!(paused[2].text, format!("Paused: Running (#{ad})."));
    assert!(!active(&app, cabinet, ad));
    let source: String = app.scalar(
        "SELECT source FROM campaign_history WHERE account_id = ?1 AND ad_id = ?2
            AND action = 'pause'",
        &[cabinet, ad],
    );
    assert_eq!(source, "telegram");
}

#[test]
fn pauseall_pauses_only_once_confirmed() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, |_| {});
    let (_, cabinet, _) = setup(&app, &bot);
    let ads = [app.active_campaign(cabinet), app.active_campaign(cabinet)];
    bot.inject_message(PERSON, PERSON, "/pauseall");
    let ask = &messages(&bot, PERSON, 1)[0];
    assert!(
        ask.text.starts_with("Pause all 2 running campaigns?"),
        "{}",
        ask.text
    );
    assert!(
        ads.iter().all(|ad| active(&app, cabinet, *ad)),
        "asking pauses nothing"
    );
    let data = ask.reply_markup.as_ref().unwrap()["inline_keyboard"][0][0]["callback_data"]
        .as_str()
        .unwrap()
        .to_string();
    // A stranger's press does nothing.
    bot.inject_callback(PERSON, STRANGER, ask.message_id, &data);
    assert!(answered(&bot, 1).starts_with("Your Telegram account is not linked"));
    bot.inject_callback(PERSON, PERSON, ask.message_id, &data);
    assert_eq!(answered(&bot, 2), "Paused 2 of 2 running campaigns.");
    assert!(ads.iter().all(|ad| !active(&app, cabinet, *ad)));
    bot.inject_callback(PERSON, PERSON, ask.message_id, &data);
    assert_eq!(
        answered(&bot, 3),
        "This confirmation is no longer valid; send /pauseall again."
    );
}

#[test]
fn with_a_public_url_updates_come_through_the_webhook_and_its_secret_is_checked() {
    let bot = FakeBot::start(TOKEN);
    // The address a proxy would serve; the test then points the fake's webhook at the
    // service itself, with the path and secret token the service registered.
    let app = app_with(&bot, |c| c.notify.public_url = "https://ads.example".into());
    let hook = wait_for(WAIT, "the webhook to be set", || bot.webhook());
    let path = hook
        .url
        .strip_prefix("https://ads.example")
        .unwrap()
        .to_string();
    assert!(path.starts_with("/telegram/"), "{path}");
    let secret = hook.secret_token.clone().expect("a secret token");
    let root = app.base.trim_end_matches("/api/v1").to_string();
    let agent = ureq::AgentBuilder::new().build();
    let wrong = agent
        .post(&format!("{root}{path}"))
        .set("X-Telegram-Bot-Api-Secret-Token", "nope")
        .send_string("{}");
    assert!(matches!(wrong, Err(ureq::Error::Status(404, _))));
    let too_big = agent
        .post(&format!("{root}{path}"))
        .set("X-Telegram-Bot-Api-Secret-Token", &secret)
        .send_string(&"x".repeat(300 * 1024));
    // Refused unread past its bound: 413, or the connection closed before the rest was sent.
    match too_big {
        Err(ureq::Error::Status(status, _)) => assert_eq!(status, 413),
        Err(ureq::Error::Transport(_)) => {}
        Ok(r) => panic!("a 300 KB update was taken: {}", r.status()),
    }
    let to = format!("{root}{path}");
    let set = agent
        .post(&format!("{}/bot{TOKEN}/setWebhook", bot.url))
        .set("Content-Type", "application/json")
        .send_string(&json!({"url": to, "secret_token": secret}).to_string());
    assert!(set.is_ok());

    let (_, cabinet, _) = setup(&app, &bot);
    let ad = app.active_campaign(cabinet);
    bot.inject_message(CABINET_CHAT, PERSON, &format!("/pause {ad}"));
    let paused = messages(&bot, CABINET_CHAT, 1);
    assert_eq!(paused[0].text, format!("Paused: Running (#{ad})."));
    assert_eq!(bot.deliveries(), [200]);
    assert!(!active(&app, cabinet, ad));
}

#[test]
fn long_polling_keeps_its_offset_so_a_restart_answers_no_update_twice() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, |_| {});
    setup(&app, &bot);
    let first = bot.inject_message(PERSON, PERSON, "/status");
    messages(&bot, PERSON, 1);
    let kept = wait_for(WAIT, "the offset to be kept", || {
        let offset: Option<String> = app.scalar(
            "SELECT MAX(value) FROM bot_state WHERE name = 'update_offset'",
            &[],
        );
        offset.filter(|o| *o == (first + 1).to_string())
    });
    assert_eq!(kept, (first + 1).to_string());
    let polls = bot.polls();
    let app = app.restart();
    wait_for(WAIT, "a poll after the restart", || {
        (bot.polls() > polls && bot.unconfirmed() == 0).then_some(())
    });
    bot.inject_message(PERSON, PERSON, "/status");
    messages(&bot, PERSON, 2);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        bot.messages_to(PERSON).len(),
        2,
        "the first /status is not answered again"
    );
    drop(app);
}
