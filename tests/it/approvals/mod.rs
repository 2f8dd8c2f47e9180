//! Ask first (#31): a rule with `approval` proposes instead of acting; the proposal reaches the
//! home page and the Telegram chats (the Bot API fake, read by long polling or a webhook) with
//! Approve / Reject buttons; a decision runs through the guards at that moment, once; the bot's
//! chat commands answer only people with Manager or owner access. Time moves through the
//! service clock.

use std::time::Duration;

use adcab::ops::{self, CabinetChange};
use serde_json::{json, Value};

use crate::alerts::bot_fake::{FakeBot, SentMessage};
use crate::helpers::{spawn_app_with, wait_for, TestApp};
use crate::web::logged_in;

mod bot;

const TOKEN: &str = "123456:ABC-approvals";
const HOUR: i64 = 3600;
const PERSON: i64 = 111;
const STRANGER: i64 = 999;
const CABINET_CHAT: i64 = -100_333;
const WAIT: Duration = Duration::from_secs(15);

fn app_with(bot: &FakeBot, adjust: impl FnOnce(&mut adcab::config::Config)) -> TestApp {
    let url = bot.url.clone();
    spawn_app_with(move |c| {
        c.notify.bot_api_url = url;
        c.notify.bot_token = TOKEN.into();
        adjust(c);
    })
}

/// An owner whose own chat is [`PERSON`], a euro cabinet linked to [`CABINET_CHAT`], a key,
/// the clock at two past an hour: (user, cabinet, key).
fn setup(app: &TestApp, bot: &FakeBot) -> (i64, i64, String) {
    for chat in [PERSON, STRANGER, CABINET_CHAT] {
        bot.add_chat(chat);
    }
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000");
    ops::user_set_chat(&app.services, user, &PERSON.to_string()).unwrap();
    let chat = CabinetChange {
        telegram_chat: Some(CABINET_CHAT.to_string()),
        ..CabinetChange::default()
    };
    ops::cabinet_set(&app.services, cabinet, &chat).unwrap();
    let key = app.key_with(ops::NewKey {
        user,
        manage: true,
        ..ops::NewKey::default()
    });
    app.align_hour();
    (user, cabinet, key)
}

/// A rule that asks first before doing `action` on `ads` (its condition always holds).
fn ask_rule(app: &TestApp, key: &str, cabinet: i64, ads: &[i64], action: Value) -> Value {
    let body = json!({
        "name": "Ask me",
        "account_id": cabinet,
        "scope": {"ad_ids": ads},
        "conditions": [{"metric": "views", "op": ">=", "value": 0, "window_hours": 1}],
        "action": action,
        "cooldown_hours": 0,
        "max_runs_per_day": 24,
        "approval": true,
    });
    let rule = app.write_ok("POST", "/rules", key, Some(&body), 200)["data"].clone();
    assert_eq!(rule["approval"], true);
    rule
}

fn messages(bot: &FakeBot, chat: i64, n: usize) -> Vec<SentMessage> {
    wait_for(WAIT, "the bot's messages", || {
        let got = bot.messages_to(chat);
        (got.len() >= n).then_some(got)
    })
}

/// The `n`th answer to a pressed button.
fn answered(bot: &FakeBot, n: usize) -> String {
    wait_for(WAIT, "the button's answer", || {
        let got = bot.answered();
        (got.len() >= n).then(|| got[n - 1].text.clone().unwrap_or_default())
    })
}

fn active(app: &TestApp, cabinet: i64, ad: i64) -> bool {
    app.scalar(
        "SELECT active FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        &[cabinet, ad],
    )
}

fn proposal(app: &TestApp, rule: &Value, ad: i64) -> (i64, String) {
    let id: i64 = app.scalar(
        "SELECT MAX(id) FROM proposals WHERE rule_id = ?1 AND ad_id = ?2",
        &[rule["id"].as_i64().unwrap(), ad],
    );
    let state: String = app.scalar("SELECT state FROM proposals WHERE id = ?1", &[id]);
    (id, state)
}

fn outcomes(app: &TestApp, key: &str, rule: &Value) -> Vec<String> {
    let path = format!("/rules/{}/log", rule["id"]);
    let log = app.get_ok(&path, key)["data"].as_array().unwrap().clone();
    let mut out: Vec<String> = log
        .iter()
        .map(|e| e["outcome"].as_str().unwrap().to_string())
        .collect();
    out.reverse();
    out
}

/// The proposal's message in `chat` and its Approve button's data.
fn button(bot: &FakeBot, chat: i64, which: usize) -> (i64, String) {
    let m = &messages(bot, chat, 1)[0];
    let keyboard = m.reply_markup.as_ref().expect("a keyboard");
    let data = keyboard["inline_keyboard"][0][which]["callback_data"]
        .as_str()
        .unwrap()
        .to_string();
    (m.message_id, data)
}

#[test]
fn a_proposal_appears_on_the_home_page_and_in_the_chats_with_buttons_and_nothing_is_done() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, |c| c.automation.proposal_expiry_minutes = 180);
    let (user, cabinet, key) = setup(&app, &bot);
    let ad = app.active_campaign(cabinet);
    let rule = ask_rule(&app, &key, cabinet, &[ad], json!({"type": "pause"}));
    app.advance(HOUR);

    assert!(active(&app, cabinet, ad), "a proposal changes nothing");
    assert_eq!(outcomes(&app, &key, &rule), ["proposed"]);
    let (id, state) = proposal(&app, &rule, ad);
    assert_eq!(state, "pending");
    for chat in [PERSON, CABINET_CHAT] {
        let sent = messages(&bot, chat, 1);
        assert!(
            sent[0]
                .text
                .contains("Rule “Ask me” proposes: pause the campaign"),
            "{}",
            sent[0].text
        );
        let keyboard = sent[0].reply_markup.clone().unwrap();
        assert_eq!(
            keyboard,
            json!({"inline_keyboard": [[
                {"text": "Approve", "callback_data": format!("p:{id}:a")},
                {"text": "Reject", "callback_data": format!("p:{id}:r")}
            ]]})
        );
    }
    // The next hour proposes nothing new while this one is pending.
    app.advance(HOUR);
    assert_eq!(outcomes(&app, &key, &rule), ["proposed"]);
    assert_eq!(bot.messages_to(PERSON).len(), 1);

    let browser = logged_in(&app, user);
    let home = browser.get("/");
    assert!(
        home.body.contains("Waiting for your approval"),
        "{}",
        home.body
    );
    assert!(home
        .body
        .contains(&format!("action=\"/proposals/{id}/approve\"")));
    assert!(home
        .body
        .contains(&format!("action=\"/proposals/{id}/reject\"")));
    let ru = browser.get_with("/", &[("accept-language", "ru")]);
    assert!(ru.body.contains("Ждут вашего одобрения"), "{}", ru.body);
    assert!(ru.body.contains("остановить кампанию"));
}

#[test]
fn a_callback_query_approves_it_the_campaign_pauses_and_a_second_approval_is_refused() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, |_| {});
    let (_, cabinet, key) = setup(&app, &bot);
    let ad = app.active_campaign(cabinet);
    let rule = ask_rule(&app, &key, cabinet, &[ad], json!({"type": "pause"}));
    app.advance(HOUR);
    let (message, approve) = button(&bot, PERSON, 0);
    bot.inject_callback(PERSON, PERSON, message, &approve);
    assert_eq!(answered(&bot, 1), "Approved: done.");
    assert!(!active(&app, cabinet, ad), "paused on approval");
    assert_eq!(proposal(&app, &rule, ad).1, "approved");
    assert_eq!(outcomes(&app, &key, &rule), ["proposed", "acted"]);
    let source: String = app.scalar(
        "SELECT source FROM campaign_history WHERE account_id = ?1 AND ad_id = ?2
            AND action = 'rule' ORDER BY id DESC LIMIT 1",
        &[cabinet, ad],
    );
    assert_eq!(source, "telegram", "the history names the way");
    // Both chats' messages are edited to say who decided what.
    let edits = wait_for(WAIT, "the edits", || {
        let e = bot.edits();
        (e.len() >= 2).then_some(e)
    });
    assert!(edits
        .iter()
        .all(|e| e.text.as_deref().unwrap().starts_with("Approved by ")));
    assert!(edits.iter().any(|e| e.chat_id == CABINET_CHAT));

    // The cabinet chat's button, pressed again, is refused.
    let (message, again) = button(&bot, CABINET_CHAT, 0);
    bot.inject_callback(CABINET_CHAT, PERSON, message, &again);
    assert_eq!(answered(&bot, 2), "This proposal is already approved.");
    assert_eq!(outcomes(&app, &key, &rule), ["proposed", "acted"]);
}

#[test]
fn reject_does_nothing_and_an_expired_proposal_does_nothing() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, |c| c.automation.proposal_expiry_minutes = 30);
    let (_, cabinet, key) = setup(&app, &bot);
    let first = app.active_campaign(cabinet);
    let second = app.active_campaign(cabinet);
    let rule = ask_rule(
        &app,
        &key,
        cabinet,
        &[first, second],
        json!({"type": "pause"}),
    );
    app.advance(HOUR);
    let sent = messages(&bot, PERSON, 2);
    let data = |m: &SentMessage, i: usize| {
        m.reply_markup.as_ref().unwrap()["inline_keyboard"][0][i]["callback_data"]
            .as_str()
            .unwrap()
            .to_string()
    };
    bot.inject_callback(PERSON, PERSON, sent[0].message_id, &data(&sent[0], 1));
    assert_eq!(answered(&bot, 1), "Rejected: nothing was done.");
    assert!(active(&app, cabinet, first));
    assert_eq!(proposal(&app, &rule, first).1, "rejected");

    app.advance(31 * 60);
    bot.inject_callback(PERSON, PERSON, sent[1].message_id, &data(&sent[1], 0));
    assert_eq!(answered(&bot, 2), "This proposal is already expired.");
    assert!(
        active(&app, cabinet, second),
        "an expired proposal does nothing"
    );
    assert_eq!(proposal(&app, &rule, second).1, "expired");
    let mut log = outcomes(&app, &key, &rule);
    log.sort();
    assert_eq!(log, ["expired", "proposed", "proposed", "rejected"]);
}

#[test]
fn the_guards_hold_at_approval_time() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, |_| {});
    let (user, cabinet, key) = setup(&app, &bot);
    let cap = CabinetChange {
        automation_daily_cap: Some("8".into()),
        ..CabinetChange::default()
    };
    ops::cabinet_set(&app.services, cabinet, &cap).unwrap();
    let (a, b) = (app.active_campaign(cabinet), app.active_campaign(cabinet));
    let add = json!({"type": "add_budget", "amount": "5", "max_per_day": "100"});
    let rule = ask_rule(&app, &key, cabinet, &[a, b], add);
    app.advance(HOUR);
    let (pa, pb) = (proposal(&app, &rule, a).0, proposal(&app, &rule, b).0);
    let decide = |id: i64| {
        ops::proposals::decide(
            &app.services,
            user,
            ops::proposals::Via::Api,
            id,
            ops::proposals::Choice::Approve,
        )
        .unwrap()
    };
    assert!(decide(pa).done, "5 of the cabinet's 8 a day");
    let held = decide(pb);
    assert!(!held.done);
    assert_eq!(
        held.sentence,
        "not done: the rule's guard holds (cabinet_daily_cap)"
    );
    assert_eq!(held.proposal.state, "failed");
    // Nothing would change any more: a pause proposal for a campaign paused by hand since.
    let pause = ask_rule(&app, &key, cabinet, &[a], json!({"type": "pause"}));
    app.advance(HOUR);
    let id = proposal(&app, &pause, a).0;
    app.write_ok("POST", &format!("/campaigns/{a}/pause"), &key, None, 200);
    let late = decide(id);
    assert!(!late.done);
    assert_eq!(late.sentence, "not done: nothing would change any more");
    let again = ops::proposals::decide(
        &app.services,
        user,
        ops::proposals::Via::Api,
        id,
        ops::proposals::Choice::Reject,
    );
    assert!(matches!(again, Err(ops::proposals::ProposalError::Decided(s)) if s == "failed"));
}

#[test]
fn the_panel_approves_with_its_form_and_a_second_decision_is_refused() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, |_| {});
    let (user, cabinet, key) = setup(&app, &bot);
    let ad = app.active_campaign(cabinet);
    let rule = ask_rule(&app, &key, cabinet, &[ad], json!({"type": "pause"}));
    app.advance(HOUR);
    let id = proposal(&app, &rule, ad).0;
    let browser = logged_in(&app, user);
    let csrf = browser.get("/").csrf();
    let done = browser.post(&format!("/proposals/{id}/approve"), &[("csrf", &csrf)]);
    assert_eq!(done.status, 303);
    assert!(!active(&app, cabinet, ad));
    let again = browser.post(&format!("/proposals/{id}/reject"), &[("csrf", &csrf)]);
    assert_eq!(again.status, 409);
    assert!(again.body.contains("This proposal is already approved."));
    let history: String = app.scalar(
        "SELECT source FROM campaign_history WHERE account_id = ?1 AND ad_id = ?2
            AND action = 'proposal'",
        &[cabinet, ad],
    );
    assert_eq!(history, "panel");
}

#[test]
fn the_api_lists_pending_proposals_and_decides_one_once() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, |_| {});
    let (user, cabinet, key) = setup(&app, &bot);
    let ad = app.active_campaign(cabinet);
    let rule = ask_rule(&app, &key, cabinet, &[ad], json!({"type": "pause"}));
    app.advance(HOUR);
    let list = app.get_ok(&format!("/proposals?account_id={cabinet}"), &key)["data"].clone();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 1);
    let id = list[0]["id"].as_i64().unwrap();
    assert_eq!(
        (&list[0]["rule_id"], &list[0]["ad_id"], &list[0]["state"]),
        (&rule["id"], &json!(ad), &json!("pending"))
    );
    assert_eq!(list[0]["change"], json!({"type": "pause"}));
    // A read key may list but not decide.
    let reader = app.key(user);
    let path = format!("/proposals/{id}/approve");
    app.write_err("POST", &path, &reader, None, 403, "READ_ONLY_KEY");
    let done = app.write_ok("POST", &path, &key, None, 200)["data"].clone();
    assert_eq!(
        (&done["state"], &done["decided_via"]),
        (&json!("approved"), &json!("api"))
    );
    assert!(!active(&app, cabinet, ad));
    let again = app.write_err(
        "POST",
        &format!("/proposals/{id}/reject"),
        &key,
        None,
        409,
        "PROPOSAL_DECIDED",
    );
    assert_eq!(again["state"], "approved");
    app.write_err(
        "POST",
        "/proposals/999999/approve",
        &key,
        None,
        404,
        "PROPOSAL_NOT_FOUND",
    );
    let empty = app.get_ok("/proposals", &key)["data"].clone();
    assert_eq!(empty, json!([]));
}

#[test]
fn only_managers_and_the_owner_get_proposals_and_a_viewer_is_refused() {
    const VIEWER: i64 = 222;
    const MANAGER: i64 = 333;
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, |_| {});
    for chat in [PERSON, VIEWER, MANAGER, CABINET_CHAT] {
        bot.add_chat(chat);
    }
    let agency = app.user("agency");
    let cabinet = app.cabinet(agency, "euro", "1000");
    ops::user_set_chat(&app.services, agency, &PERSON.to_string()).unwrap();
    let chat = CabinetChange {
        telegram_chat: Some(CABINET_CHAT.to_string()),
        ..CabinetChange::default()
    };
    ops::cabinet_set(&app.services, cabinet, &chat).unwrap();
    let (viewer, manager) = (app.user("pro"), app.user("pro"));
    ops::member_add(
        &app.services,
        agency,
        viewer,
        cabinet,
        ops::TeamAccess::Viewer,
    )
    .unwrap();
    ops::member_add(
        &app.services,
        agency,
        manager,
        cabinet,
        ops::TeamAccess::Manager,
    )
    .unwrap();
    ops::user_set_chat(&app.services, viewer, &VIEWER.to_string()).unwrap();
    ops::user_set_chat(&app.services, manager, &MANAGER.to_string()).unwrap();
    let key = app.key_with(ops::NewKey {
        user: agency,
        manage: true,
        ..ops::NewKey::default()
    });
    app.align_hour();
    let ad = app.active_campaign(cabinet);
    let rule = ask_rule(&app, &key, cabinet, &[ad], json!({"type": "pause"}));
    app.advance(HOUR);
    for chat in [PERSON, MANAGER, CABINET_CHAT] {
        messages(&bot, chat, 1);
    }
    assert!(bot.messages_to(VIEWER).is_empty(), "a viewer is not asked");

    // The viewer presses Approve in the cabinet's chat, and asks for a pause there.
    let (message, approve) = button(&bot, CABINET_CHAT, 0);
    bot.inject_callback(CABINET_CHAT, VIEWER, message, &approve);
    assert_eq!(
        answered(&bot, 1),
        "Only a person with Manager or owner access to the cabinet can do this."
    );
    bot.inject_message(CABINET_CHAT, VIEWER, &format!("/pause {ad}"));
    let refused = messages(&bot, CABINET_CHAT, 2);
    assert_eq!(
        refused[1].text,
        "Only a person with Manager or owner access to the cabinet can do this."
    );
    assert!(active(&app, cabinet, ad), "nothing ran for the viewer");
    assert_eq!(proposal(&app, &rule, ad).1, "pending");

    let (message, approve) = button(&bot, MANAGER, 0);
    bot.inject_callback(MANAGER, MANAGER, message, &approve);
    assert_eq!(answered(&bot, 2), "Approved: done.");
    assert!(!active(&app, cabinet, ad));
    let by: i64 = app.scalar(
        "SELECT decided_by FROM proposals WHERE rule_id = ?1",
        &[rule["id"].as_i64().unwrap()],
    );
    assert_eq!(by, manager);
}

#[test]
fn a_notify_rule_that_asks_first_sends_its_notice_and_proposes_nothing() {
    let bot = FakeBot::start(TOKEN);
    let app = app_with(&bot, |_| {});
    let (_, cabinet, key) = setup(&app, &bot);
    let ad = app.active_campaign(cabinet);
    let rule = ask_rule(
        &app,
        &key,
        cabinet,
        &[ad],
        json!({"type": "notify", "text": "Look"}),
    );
    app.advance(HOUR);
    let sent = messages(&bot, PERSON, 1);
    assert!(sent[0].text.starts_with("Look"), "{}", sent[0].text);
    assert!(sent[0].reply_markup.is_none());
    assert_eq!(outcomes(&app, &key, &rule), ["acted"]);
    let made: i64 = app.scalar("SELECT COUNT(*) FROM proposals", &[]);
    assert_eq!(made, 0);
}
