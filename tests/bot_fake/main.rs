//! Self-tests of the Telegram Bot API fake (tests/support/bot_fake): they call it over HTTP
//! with ureq, as the service's notifier would, and check it answers like the real Bot API.

#[path = "../support/fake_server.rs"]
mod fake_server;

#[path = "../support/bot_fake/mod.rs"]
mod bot_fake;

use std::time::{Duration, Instant};

mod updates;

use bot_fake::{BotFault, FakeBot};
use serde_json::{json, Value};

const TOKEN: &str = "123456:ABC-test_token";

/// Status and body of an answer, 4xx/5xx included; panics on a transport failure.
fn read(sent: Result<ureq::Response, Box<ureq::Error>>) -> (u16, Value) {
    let resp = match sent.map_err(|e| *e) {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("transport failure: {e}"),
    };
    let status = resp.status();
    let text = resp.into_string().expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn send_url(bot: &FakeBot, token: &str) -> String {
    format!("{}/bot{token}/sendMessage", bot.url)
}

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(10))
        .build()
}

/// A JSON POST (this crate's ureq has no `json` feature).
fn post_json(
    agent: &ureq::Agent,
    url: &str,
    body: &Value,
) -> Result<ureq::Response, Box<ureq::Error>> {
    let req = agent.post(url).set("Content-Type", "application/json");
    req.send_string(&body.to_string()).map_err(Box::new)
}

fn send_json(bot: &FakeBot, body: Value) -> (u16, Value) {
    read(post_json(&agent(), &send_url(bot, TOKEN), &body))
}

fn bot_with_chat(chat_id: i64) -> FakeBot {
    let bot = FakeBot::start(TOKEN);
    bot.add_chat(chat_id);
    bot
}

fn assert_error(answer: (u16, Value), code: u16, description: &str) {
    assert_eq!(answer.0, code, "status of {}", answer.1);
    let expected = json!({"ok": false, "error_code": code, "description": description});
    assert_eq!(answer.1, expected);
}

#[test]
fn json_and_form_bodies_are_both_accepted_and_recorded() {
    let bot = bot_with_chat(42);
    let (status, body) = send_json(
        &bot,
        json!({"chat_id": 42, "text": "from json", "parse_mode": "HTML"}),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["ok"], json!(true));
    assert_eq!(body["result"]["chat"], json!({"id": 42, "type": "private"}));
    assert_eq!(body["result"]["text"], "from json");
    assert!(body["result"]["date"].as_u64().expect("date") > 1_600_000_000);

    let form = [
        ("chat_id", "42"),
        ("text", "from form & co"),
        ("disable_notification", "true"),
    ];
    let (status, body) = read(
        agent()
            .post(&send_url(&bot, TOKEN))
            .send_form(&form)
            .map_err(Box::new),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["text"], "from form & co");

    let sent = bot.messages();
    assert_eq!(sent.len(), 2);
    assert_eq!((sent[0].chat_id, sent[0].text.as_str()), (42, "from json"));
    assert_eq!(sent[0].parse_mode.as_deref(), Some("HTML"));
    assert!(!sent[0].disable_notification);
    assert_eq!(
        (sent[1].text.as_str(), sent[1].parse_mode.as_deref()),
        ("from form & co", None)
    );
    assert!(sent[1].disable_notification);
    assert!(sent[0].at <= sent[1].at);
}

#[test]
fn get_with_query_parameters_and_string_chat_ids_are_accepted() {
    let bot = bot_with_chat(-1001234567890);
    let req = agent()
        .get(&send_url(&bot, TOKEN))
        .query("chat_id", "-1001234567890")
        .query("text", "hello via GET");
    let (status, body) = read(req.call().map_err(Box::new));
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["result"]["chat"],
        json!({"id": -1001234567890_i64, "type": "supergroup"})
    );
    let (status, _) = send_json(
        &bot,
        json!({"chat_id": "-1001234567890", "text": "string id"}),
    );
    assert_eq!(status, 200);
    let texts: Vec<_> = bot
        .messages_to(-1001234567890)
        .into_iter()
        .map(|m| m.text)
        .collect();
    assert_eq!(texts, ["hello via GET", "string id"]);
}

#[test]
fn message_ids_increase_per_chat() {
    let bot = bot_with_chat(1);
    bot.add_chat(2);
    let id = |chat: i64| {
        send_json(&bot, json!({"chat_id": chat, "text": "x"})).1["result"]["message_id"].clone()
    };
    assert_eq!(
        [id(1), id(1), id(2), id(1), id(2)],
        [json!(1), json!(2), json!(1), json!(3), json!(2)]
    );
    assert_eq!(bot.messages_to(1).len(), 3);
    assert_eq!(bot.messages_to(2).len(), 2);
}

#[test]
fn bad_token_gets_401_and_unknown_method_404() {
    let bot = bot_with_chat(1);
    let body = json!({"chat_id": 1, "text": "x"});
    let wrong = read(post_json(&agent(), &send_url(&bot, "123456:wrong"), &body));
    assert_error(wrong, 401, "Unauthorized");
    let method = read(post_json(
        &agent(),
        &format!("{}/bot{TOKEN}/sendMessages", bot.url),
        &body,
    ));
    assert_error(method, 404, "Not Found");
    assert!(bot.messages().is_empty());
    assert_eq!(bot.calls(), 2, "rejected calls are counted");
}

#[test]
fn unknown_chat_gets_400_chat_not_found() {
    let bot = bot_with_chat(1);
    assert_error(
        send_json(&bot, json!({"chat_id": 2, "text": "x"})),
        400,
        "Bad Request: chat not found",
    );
    assert_error(
        send_json(&bot, json!({"chat_id": "@nobody", "text": "x"})),
        400,
        "Bad Request: chat not found",
    );
    assert!(bot.messages().is_empty());
}

#[test]
fn blocked_chat_gets_403_with_the_exact_description() {
    let bot = bot_with_chat(7);
    assert_eq!(
        send_json(&bot, json!({"chat_id": 7, "text": "before"})).0,
        200
    );
    bot.block(7);
    let answer = send_json(&bot, json!({"chat_id": 7, "text": "after"}));
    assert_error(answer, 403, "Forbidden: bot was blocked by the user");
    assert_eq!(bot.messages_to(7).len(), 1);
}

#[test]
fn missing_chat_id_or_text_gets_400() {
    let bot = bot_with_chat(1);
    assert_error(
        send_json(&bot, json!({"text": "x"})),
        400,
        "Bad Request: chat_id is empty",
    );
    assert_error(
        send_json(&bot, json!({"chat_id": 1})),
        400,
        "Bad Request: message text is empty",
    );
    assert_error(
        send_json(&bot, json!({"chat_id": 1, "text": "  "})),
        400,
        "Bad Request: message text is empty",
    );
    assert!(bot.messages().is_empty());
}

#[test]
fn text_too_long_gets_400_and_4096_chars_pass() {
    let bot = bot_with_chat(1);
    let long = "é".repeat(4097);
    assert_error(
        send_json(&bot, json!({"chat_id": 1, "text": long})),
        400,
        "Bad Request: message is too long",
    );
    let (status, _) = send_json(&bot, json!({"chat_id": 1, "text": "é".repeat(4096)}));
    assert_eq!(status, 200, "4096 chars (8192 bytes) fit");
    assert_eq!(bot.messages().len(), 1);
}

#[test]
fn flood_fault_gives_429_with_retry_after_then_recovers() {
    let bot = bot_with_chat(1);
    bot.fail_next(2, BotFault::Flood { retry_after: 17 });
    for _ in 0..2 {
        let (status, body) = send_json(&bot, json!({"chat_id": 1, "text": "x"}));
        assert_eq!(status, 429);
        let expected = json!({
            "ok": false,
            "error_code": 429,
            "description": "Too Many Requests: retry after 17",
            "parameters": {"retry_after": 17},
        });
        assert_eq!(body, expected);
    }
    assert!(bot.messages().is_empty());
    assert_eq!(send_json(&bot, json!({"chat_id": 1, "text": "x"})).0, 200);
    assert_eq!((bot.messages().len(), bot.calls()), (1, 3));
}

#[test]
fn server_faults_give_500_json_and_502_html() {
    let bot = bot_with_chat(1);
    bot.fail_next(1, BotFault::ServerError);
    bot.fail_next(1, BotFault::BadGateway);
    let body = json!({"chat_id": 1, "text": "x"});
    assert_error(send_json(&bot, body.clone()), 500, "Internal Server Error");
    let (status, page) = send_json(&bot, body.clone());
    assert_eq!(status, 502);
    assert!(
        page.as_str().is_some_and(|p| p.contains("502 Bad Gateway")),
        "{page}"
    );
    assert_eq!(send_json(&bot, body).0, 200);
    assert_eq!(bot.messages().len(), 1);
}

#[test]
fn hang_makes_a_client_with_a_300ms_timeout_time_out() {
    let bot = bot_with_chat(1);
    bot.fail_next(1, BotFault::Hang);
    let client = ureq::AgentBuilder::new()
        .timeout(Duration::from_millis(300))
        .build();
    let started = Instant::now();
    let sent = post_json(
        &client,
        &send_url(&bot, TOKEN),
        &json!({"chat_id": 1, "text": "x"}),
    );
    let waited = started.elapsed();
    match sent.map_err(|e| *e) {
        Err(ureq::Error::Transport(t)) => assert_eq!(t.kind(), ureq::ErrorKind::Io, "{t}"),
        other => panic!("expected a timeout, got {:?}", other.map(|r| r.status())),
    }
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
    assert!(bot.messages().is_empty());
    assert_eq!(
        send_json(&bot, json!({"chat_id": 1, "text": "x"})).0,
        200,
        "recovers"
    );
}

#[test]
fn delay_fault_answers_normally_after_the_delay() {
    let bot = bot_with_chat(1);
    bot.fail_next(1, BotFault::Delay(Duration::from_millis(400)));
    let started = Instant::now();
    assert_eq!(
        send_json(&bot, json!({"chat_id": 1, "text": "late"})).0,
        200
    );
    assert!(started.elapsed() >= Duration::from_millis(400));
    assert_eq!(bot.messages()[0].text, "late");
}

#[tokio::test]
async fn wait_for_messages_returns_once_enough_arrived() {
    let bot = bot_with_chat(5);
    let url = send_url(&bot, TOKEN);
    let sender = std::thread::spawn(move || {
        for i in 0..3 {
            std::thread::sleep(Duration::from_millis(50));
            read(post_json(
                &agent(),
                &url,
                &json!({"chat_id": 5, "text": format!("m{i}")}),
            ));
        }
    });
    let got = bot.wait_for_messages(3, Duration::from_secs(5)).await;
    let texts: Vec<_> = got.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["m0", "m1", "m2"]);
    sender.join().expect("sender");
}

#[tokio::test]
#[should_panic(expected = "waited 100ms for 1 message(s), got 0")]
async fn wait_for_messages_panics_on_timeout() {
    let bot = bot_with_chat(5);
    bot.wait_for_messages(1, Duration::from_millis(100)).await;
}

#[test]
fn server_stops_when_dropped() {
    let bot = bot_with_chat(1);
    let url = send_url(&bot, TOKEN);
    drop(bot);
    let sent = post_json(&agent(), &url, &json!({"chat_id": 1, "text": "x"}));
    assert!(
        matches!(sent.map_err(|e| *e), Err(ureq::Error::Transport(_))),
        "still answering after drop"
    );
}

/// The service's `sendDocument` against the fake: the file arrives byte for byte with its name,
/// type and caption; a blocked or unknown chat is undeliverable; a 500 is tried again later.
#[test]
fn send_document_uploads_the_file_and_reads_refusals_like_send_message() {
    use adcab::jobs::notify::{send_document, Document};
    use adcab::store::alerts::Outcome;

    let bot = bot_with_chat(-1005);
    bot.block(-1006);
    let config = adcab::config::NotifyConfig {
        bot_api_url: bot.url.clone(),
        bot_token: TOKEN.into(),
        ..adcab::config::Config::default().notify
    };
    // Every byte value, CR LF and a would-be boundary line included.
    let mut bytes: Vec<u8> = (0..=255u8).collect();
    bytes.extend_from_slice(b"\r\n--adcab-x\r\n%PDF-1.7");
    let doc = |chat_id| Document {
        chat_id,
        filename: "report-2026-11-16.pdf",
        content_type: "application/pdf",
        caption: "Кабинет: отчёт за неделю",
        bytes: &bytes,
    };
    assert_eq!(send_document(&config, &doc(-1005), 0), Outcome::Sent);
    let got = bot.documents();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].chat_id, -1005);
    assert_eq!(got[0].filename, "report-2026-11-16.pdf");
    assert_eq!(got[0].content_type.as_deref(), Some("application/pdf"));
    assert_eq!(got[0].caption, "Кабинет: отчёт за неделю");
    assert_eq!(got[0].bytes, bytes);

    for chat in [-1006, -1007] {
        let outcome = send_document(&config, &doc(chat), 0);
        assert!(matches!(outcome, Outcome::Undeliverable(_)), "{outcome:?}");
    }
    bot.fail_next(1, BotFault::ServerError);
    let outcome = send_document(&config, &doc(-1005), 0);
    assert!(matches!(outcome, Outcome::Retry { .. }), "{outcome:?}");
    assert_eq!(bot.documents().len(), 1);
}
