//! Self-tests of the fake's update side (`tests/support/bot_fake/updates.rs`): keyboards on
//! sent messages, `getUpdates` with offsets and long polls, callback answers, edits, and the
//! webhook with its secret token.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::bot_fake::FakeBot;
use super::{
    agent, assert_error, bot_with_chat, fake_server, post_json, read, send_json, send_url, TOKEN,
};

fn call(bot: &FakeBot, method: &str, body: Value) -> (u16, Value) {
    let url = format!("{}/bot{TOKEN}/{method}", bot.url);
    read(post_json(&agent(), &url, &body))
}

fn keyboard() -> Value {
    json!({"inline_keyboard": [[
        {"text": "Approve", "callback_data": "p:1:a"},
        {"text": "Reject", "callback_data": "p:1:r"}
    ]]})
}

#[test]
fn reply_markup_is_recorded_on_a_sent_message_and_a_bad_keyboard_refused() {
    let bot = bot_with_chat(42);
    let (status, body) = send_json(
        &bot,
        json!({"chat_id": 42, "text": "Approve?", "reply_markup": keyboard()}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["reply_markup"], keyboard());
    let sent = &bot.messages()[0];
    assert_eq!(sent.reply_markup, Some(keyboard()));
    assert_eq!(sent.message_id, 1);
    // As a form field the keyboard is a JSON string.
    let form = [
        ("chat_id", "42"),
        ("text", "form"),
        (
            "reply_markup",
            r#"{"inline_keyboard":[[{"text":"Go","callback_data":"x"}]]}"#,
        ),
    ];
    let answer = read(
        agent()
            .post(&send_url(&bot, TOKEN))
            .send_form(&form)
            .map_err(Box::new),
    );
    assert_eq!(answer.0, 200, "{}", answer.1);
    let too_long = "d".repeat(65);
    let bad = json!({"inline_keyboard": [[{"text": "x", "callback_data": too_long}]]});
    let refused = send_json(
        &bot,
        json!({"chat_id": 42, "text": "x", "reply_markup": bad}),
    );
    assert_error(refused, 400, "Bad Request: BUTTON_DATA_INVALID");
    assert_eq!(bot.messages().len(), 2);
}

#[test]
fn get_updates_answers_injected_updates_until_an_offset_confirms_them() {
    let bot = bot_with_chat(42);
    let first = bot.inject_message(42, 42, "/status");
    let query = bot.inject_callback(42, 42, 7, "p:1:a");
    let (status, body) = call(&bot, "getUpdates", json!({}));
    assert_eq!(status, 200, "{body}");
    let list = body["result"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["update_id"], first);
    assert_eq!(list[0]["message"]["text"], "/status");
    assert_eq!(list[0]["message"]["from"]["id"], 42);
    assert_eq!(list[0]["message"]["entities"][0]["type"], "bot_command");
    assert_eq!(list[1]["callback_query"]["id"], query.as_str());
    assert_eq!(list[1]["callback_query"]["data"], "p:1:a");
    assert_eq!(list[1]["callback_query"]["message"]["message_id"], 7);
    // Unconfirmed updates come again; an offset past the first confirms it.
    let (_, again) = call(&bot, "getUpdates", json!({"offset": first + 1, "limit": 5}));
    assert_eq!(again["result"].as_array().unwrap().len(), 1);
    assert_eq!(bot.unconfirmed(), 1);
    let (_, none) = call(
        &bot,
        "getUpdates",
        json!({"offset": first + 2, "timeout": 0}),
    );
    assert_eq!(none["result"], json!([]));
    assert_eq!(bot.unconfirmed(), 0);
    assert_eq!(bot.polls(), 3);
}

#[test]
fn a_long_poll_waits_for_an_update_and_returns_empty_at_its_timeout() {
    let bot = bot_with_chat(42);
    let started = Instant::now();
    let (_, empty) = call(&bot, "getUpdates", json!({"timeout": 1}));
    assert_eq!(empty["result"], json!([]));
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "{:?}",
        started.elapsed()
    );
    let url = format!("{}/bot{TOKEN}/getUpdates", bot.url);
    let poll = std::thread::spawn(move || read(post_json(&agent(), &url, &json!({"timeout": 5}))));
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    bot.inject_message(42, 42, "hello");
    let (status, got) = poll.join().unwrap();
    assert_eq!(status, 200);
    assert_eq!(got["result"][0]["message"]["text"], "hello");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "answered as the update came"
    );
}

#[test]
fn answer_callback_query_takes_an_open_query_once() {
    let bot = bot_with_chat(42);
    let id = bot.inject_callback(42, 42, 1, "p:9:r");
    let (status, body) = call(
        &bot,
        "answerCallbackQuery",
        json!({"callback_query_id": id, "text": "Rejected", "show_alert": true}),
    );
    assert_eq!((status, &body["result"]), (200, &json!(true)), "{body}");
    assert_eq!(bot.answered()[0].text.as_deref(), Some("Rejected"));
    assert!(bot.answered()[0].show_alert);
    let again = call(
        &bot,
        "answerCallbackQuery",
        json!({"callback_query_id": id}),
    );
    assert_error(
        again,
        400,
        "Bad Request: query is too old and response timeout expired or query ID is invalid",
    );
}

#[test]
fn edits_change_a_sent_message_and_refuse_an_unknown_or_unchanged_one() {
    let bot = bot_with_chat(42);
    send_json(
        &bot,
        json!({"chat_id": 42, "text": "Approve?", "reply_markup": keyboard()}),
    );
    let (status, body) = call(
        &bot,
        "editMessageText",
        json!({"chat_id": 42, "message_id": 1, "text": "Approved by Ann"}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["text"], "Approved by Ann");
    let edit = &bot.edits()[0];
    assert_eq!(
        (edit.text.as_deref(), &edit.reply_markup),
        (Some("Approved by Ann"), &None)
    );
    let same = call(
        &bot,
        "editMessageText",
        json!({"chat_id": 42, "message_id": 1, "text": "Approved by Ann"}),
    );
    assert_eq!(same.0, 400);
    assert!(same.1["description"]
        .as_str()
        .unwrap()
        .contains("message is not modified"));
    let markup = call(
        &bot,
        "editMessageReplyMarkup",
        json!({"chat_id": 42, "message_id": 1, "reply_markup": keyboard()}),
    );
    assert_eq!(markup.0, 200, "{}", markup.1);
    let unknown = call(
        &bot,
        "editMessageText",
        json!({"chat_id": 42, "message_id": 99, "text": "x"}),
    );
    assert_error(unknown, 400, "Bad Request: message to edit not found");
    assert_eq!(bot.edits().len(), 2);
}

#[test]
fn a_webhook_gets_injected_updates_with_its_secret_token_and_get_updates_conflicts() {
    let bot = bot_with_chat(42);
    let received = std::sync::Arc::new(parking_lot::Mutex::new(
        Vec::<(Option<String>, Value)>::new(),
    ));
    let hook = fake_server::FakeServer::start({
        let received = received.clone();
        move |req: hyper::Request<hyper::body::Incoming>| {
            let received = received.clone();
            async move {
                use http_body_util::BodyExt;
                let secret = req
                    .headers()
                    .get("x-telegram-bot-api-secret-token")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string);
                let body = req
                    .into_body()
                    .collect()
                    .await
                    .map(|b| b.to_bytes())
                    .unwrap_or_default();
                let update: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                received.lock().push((secret, update));
                Ok::<_, std::convert::Infallible>(fake_server::respond(
                    200,
                    "text/plain",
                    String::new(),
                ))
            }
        }
    });
    let refused = call(
        &bot,
        "setWebhook",
        json!({"url": hook.url, "secret_token": "bad token!"}),
    );
    assert_error(
        refused,
        400,
        "Bad Request: secret token contains unallowed characters",
    );
    let (status, _) = call(
        &bot,
        "setWebhook",
        json!({"url": hook.url, "secret_token": "s3cret_-x"}),
    );
    assert_eq!(status, 200);
    assert_eq!(
        bot.webhook().unwrap().secret_token.as_deref(),
        Some("s3cret_-x")
    );
    let conflict = call(&bot, "getUpdates", json!({}));
    assert_eq!(conflict.0, 409);
    bot.inject_message(42, 42, "/pauseall");
    let deadline = Instant::now() + Duration::from_secs(10);
    while received.lock().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let got = received.lock().clone();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0.as_deref(), Some("s3cret_-x"));
    assert_eq!(got[0].1["message"]["text"], "/pauseall");
    assert_eq!(
        bot.unconfirmed(),
        0,
        "a delivered update is not kept for getUpdates"
    );
    let (status, _) = call(&bot, "deleteWebhook", json!({}));
    assert_eq!(status, 200);
    assert!(bot.webhook().is_none());
    assert_eq!(call(&bot, "getUpdates", json!({})).0, 200);
}
