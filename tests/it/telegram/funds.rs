//! Agency money through the connector against the fake: a client (related) account opened
//! under the main account, a transfer in that settles later, a replay with the same key that
//! moves once, `out` refused to a non-owner, the monthly cap, `NOT_ENOUGH_BUDGET` (at once, and
//! on a transfer that fails later), the signed `cabinet_funds` event and the transactions in
//! cursor pages.

use serde_json::{json, Value};

use super::{advance_service, spawn_on, FakePromote, Fault};
use crate::helpers::{printed, wait_for, Receiver, Resp, TestApp};
use adcab::ops::{self, NewKey, TeamAccess};

struct Agency {
    app: TestApp,
    fake: FakePromote,
    main_platform: String,
    user: i64,
    main: i64,
    client: i64,
    key: String,
    secret: String,
    hook: Receiver,
}

fn open_body() -> Value {
    json!({"title": "Client Ltd", "full_name": "Ann Lee", "email": "ann@example.com",
        "phone_number": "+44 20 7946 0000", "country": "GB", "city": "London"})
}

/// A main EUR account holding 1000 on the fake, connected as the agency owner's main cabinet,
/// a Manage key with a webhook, and one client cabinet opened through the API.
fn agency() -> Agency {
    let fake = FakePromote::start();
    let main_account = fake.add_account("EUR", "Agency main", "1000", true);
    let app = spawn_on(&fake);
    let user = app.user("agency");
    let connected =
        printed(ops::cabinet_connect(&app.services, user, &main_account.token, false).unwrap());
    let main = connected["cabinets"][0]["id"].as_i64().unwrap();
    ops::cabinet_set(
        &app.services,
        main,
        &ops::CabinetChange {
            main_account: Some(true),
            ..Default::default()
        },
    )
    .unwrap();
    let hook = Receiver::start(200);
    let (_, key, secret) = app.hook_key(user, &hook.url);
    let opened = app.write_ok("POST", "/cabinets", &key, Some(&open_body()), 200);
    let client = opened["data"]["id"].as_i64().unwrap();
    Agency {
        app,
        fake,
        main_platform: main_account.account_id,
        user,
        main,
        client,
        key,
        secret,
        hook,
    }
}

impl Agency {
    fn funds(&self, key: &str, amount: &str, direction: &str, idem: &str) -> Resp {
        self.app.send(
            "POST",
            &format!("/cabinets/{}/funds", self.client),
            key,
            Some(&json!({"amount": amount, "direction": direction})),
            &[("Idempotency-Key", idem)],
        )
    }

    fn moved(&self, amount: &str, direction: &str) -> Value {
        let r = self.funds(
            &self.key,
            amount,
            direction,
            &uuid::Uuid::new_v4().to_string(),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        r.body["data"].clone()
    }

    /// The client's account id on the platform.
    fn related(&self) -> String {
        self.app.scalar(
            "SELECT platform_id FROM cabinets WHERE id = ?1",
            &[self.client],
        )
    }

    fn advance(&self, seconds: i64) {
        self.fake.advance(seconds);
        advance_service(&self.app.services, seconds);
        self.app.settle();
    }

    fn events(&self, at_least: usize) -> Vec<Value> {
        wait_for(
            std::time::Duration::from_secs(10),
            "cabinet_funds events",
            || {
                let got: Vec<Value> = self
                    .hook
                    .received()
                    .iter()
                    .filter(|r| r.event() == "cabinet_funds")
                    .map(|r| r.verified(&self.secret))
                    .collect();
                (got.len() >= at_least).then_some(got)
            },
        )
    }
}

#[test]
fn a_client_account_opens_on_the_platform_once_per_key() {
    let a = agency();
    let related = a.related();
    assert_ne!(related, a.main_platform);
    assert_eq!(a.fake.call_count("createAccount"), 1);
    let again = |idem: &str| {
        a.app.send(
            "POST",
            &format!("/cabinets?account_id={}", a.main),
            &a.key,
            Some(&open_body()),
            &[("Idempotency-Key", idem)],
        )
    };
    let first = again("open-twice-0001");
    let second = again("open-twice-0001");
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.body["data"]["id"], second.body["data"]["id"]);
    assert_eq!(first.body["data"]["currency"], "EUR");
    assert_eq!(a.fake.call_count("createAccount"), 2);
    // The platform's own replay: the same key sent again opens no second account.
    let cabinet = ops::funds::create_related(
        &a.app.services,
        &ops::funds::NewRelated {
            main: a.main,
            title: "Operator's client".into(),
            full_name: "Bo Li".into(),
            email: "bo@example.com".into(),
            phone: "+1 555 0100".into(),
            country: "US".into(),
            city: "Austin".into(),
            legal_name: Some("Bo Li LLC".into()),
        },
    )
    .unwrap();
    let repeat = ops::funds::create_related(
        &a.app.services,
        &ops::funds::NewRelated {
            main: a.main,
            title: "Operator's client".into(),
            full_name: "Bo Li".into(),
            email: "bo@example.com".into(),
            phone: "+1 555 0100".into(),
            country: "US".into(),
            city: "Austin".into(),
            legal_name: Some("Bo Li LLC".into()),
        },
    )
    .unwrap();
    assert_eq!(cabinet.id, repeat.id);
    let replayed = a
        .fake
        .calls()
        .iter()
        .filter(|c| c.method == "createAccount" && c.replayed)
        .count();
    assert_eq!(replayed, 1, "the repeat was the platform's replay");
}

#[test]
fn a_transfer_in_that_settles_later_sends_its_signed_event() {
    let a = agency();
    let now = a.moved("100", "in");
    assert_eq!(now["status"], "completed");
    assert_eq!(now["main_balance"], "900.00");
    assert_eq!(now["balance"], "100.00");
    a.fake.delay_transfers(300);
    let later = a.moved("250.12345", "in");
    assert_eq!(later["status"], "in_progress", "{later}");
    assert_eq!(later["amount"], "250.12345");
    assert_eq!(a.fake.balance(&a.related()), "100");
    a.advance(60);
    assert_eq!(a.events(1).len(), 1, "only the settled transfer so far");
    a.advance(300);
    let events = a.events(2);
    let settled = events
        .iter()
        .find(|e| e["transfer_id"] == later["transfer_id"])
        .unwrap();
    assert_eq!(settled["status"], "completed");
    assert_eq!(settled["balance"], "350.12345");
    assert_eq!(settled["main_balance"], "649.87655");
    assert_eq!(a.fake.balance(&a.related()), "350.12345");
    assert!(a.fake.call_count("getTransactionStatus") >= 1);
}

#[test]
fn a_transfer_replayed_with_the_same_key_moves_once() {
    let a = agency();
    let first = a.funds(&a.key, "30", "in", "replay-key-0001");
    assert_eq!(first.status, 200, "{}", first.body);
    let cabinet = a
        .app
        .services
        .db
        .read_blocking(|c| adcab::store::cabinets::get(c, a.client))
        .unwrap()
        .unwrap();
    // A retry of the same request past the HTTP layer (as after a crash) sends the same key.
    a.app.sql(&format!(
        "DELETE FROM transfers WHERE account_id = {}",
        a.client
    ));
    let actor = ops::Actor::operator(cabinet);
    let mv = adcab::domain::funds::FundsMove {
        amount: adcab::domain::money::Money::from_micros(30_000_000),
        direction: adcab::domain::funds::Direction::In,
    };
    let token = format!("{}:replay-key-0001", a.user);
    let again = ops::funds::move_funds(&a.app.services, &actor, mv, &token).unwrap();
    assert_eq!(again.balance.micros(), 30_000_000);
    assert_eq!(a.fake.balance(&a.related()), "30", "the money moved once");
    assert_eq!(a.fake.balance(&a.main_platform), "970");
    let calls: Vec<_> = a
        .fake
        .calls()
        .into_iter()
        .filter(|c| c.method == "increaseAccountBudget")
        .collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].idempotency_key, calls[1].idempotency_key);
    assert!(calls[1].replayed);
}

#[test]
fn out_is_refused_to_a_member_and_the_cap_to_everyone() {
    let a = agency();
    ops::cabinet_set(
        &a.app.services,
        a.client,
        &ops::CabinetChange {
            monthly_topup_cap: Some("100".into()),
            ..Default::default()
        },
    )
    .unwrap();
    a.moved("80", "in");
    a.funds(&a.key, "30", "in", "cap-key-000001")
        .assert_error(409, "MONTHLY_TOPUP_CAP");
    let member = a.app.user("free");
    ops::member_add(
        &a.app.services,
        a.user,
        member,
        a.client,
        TeamAccess::Manager,
    )
    .unwrap();
    let member_key = a.app.key_with(NewKey {
        user: member,
        manage: true,
        ..NewKey::default()
    });
    a.funds(&member_key, "10", "out", "member-out-0001")
        .assert_error(403, "OWNER_ONLY");
    assert_eq!(a.moved("10", "out")["balance"], "70.00");
    assert_eq!(a.fake.call_count("decreaseAccountBudget"), 1);
}

#[test]
fn not_enough_budget_at_once_and_on_a_transfer_that_fails_later() {
    let a = agency();
    a.fake.fail_next(
        Fault::ApiError("NOT_ENOUGH_BUDGET".into()),
        Some("increaseAccountBudget"),
        1,
    );
    a.funds(&a.key, "10", "in", "short-now-0001")
        .assert_error(400, "INSUFFICIENT_BALANCE");
    let failed: String = a.app.scalar(
        "SELECT status FROM transfers WHERE account_id = ?1",
        &[a.client],
    );
    assert_eq!(failed, "failed");
    // Two transfers in progress that the main account cannot both pay: the second fails.
    a.fake.delay_transfers(120);
    assert_eq!(a.moved("600", "in")["status"], "in_progress");
    assert_eq!(a.moved("500", "in")["status"], "in_progress");
    a.advance(180);
    let events = a.events(2);
    let statuses: Vec<(&str, &Value)> = events
        .iter()
        .map(|e| (e["status"].as_str().unwrap(), &e["error"]))
        .collect();
    assert!(
        statuses.contains(&("completed", &Value::Null)),
        "{statuses:?}"
    );
    assert!(
        statuses.contains(&("failed", &json!("NOT_ENOUGH_BUDGET"))),
        "{statuses:?}"
    );
    assert_eq!(a.fake.balance(&a.related()), "600");
}

#[test]
fn the_transactions_come_in_cursor_pages() {
    let a = agency();
    for amount in ["1", "2", "3"] {
        a.moved(amount, "in");
    }
    a.moved("1.5", "out");
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..10 {
        let path = match &cursor {
            Some(c) => format!("/cabinets/{}/transactions?limit=3&cursor={c}", a.client),
            None => format!("/cabinets/{}/transactions?limit=3", a.client),
        };
        let page = a.app.get_ok(&path, &a.key);
        assert_eq!(page["meta"]["total"], 4);
        for t in page["data"].as_array().unwrap() {
            assert_eq!(t["peer"]["type"], "main_account");
            seen.push(t["amount"].as_str().unwrap().to_string());
        }
        cursor = page["meta"]["next_cursor"].as_str().map(str::to_string);
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(seen, ["-1.50", "3.00", "2.00", "1.00"], "newest first");
    let main = a
        .app
        .get_ok(&format!("/cabinets/{}/transactions", a.main), &a.key);
    assert_eq!(main["data"][0]["peer"]["type"], "related_account");
    assert_eq!(main["data"][0]["peer"]["title"], "Client Ltd");
    assert_eq!(main["data"][0]["amount"], "1.50");
}

#[test]
fn a_token_connected_with_its_related_accounts_marks_the_main_and_its_clients() {
    let fake = FakePromote::start();
    let main = fake.add_account("EUR", "Agency main", "500", true);
    let related = fake.add_related(&main.account_id, "EUR", "Existing client", "0");
    let app = spawn_on(&fake);
    let user = app.user("agency");
    let connected = printed(ops::cabinet_connect(&app.services, user, &main.token, true).unwrap());
    let ids: Vec<i64> = connected["cabinets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    let is_main: i64 = app.scalar("SELECT is_main FROM cabinets WHERE id = ?1", &[ids[0]]);
    assert_eq!(is_main, 1);
    let client: i64 = app.scalar(
        "SELECT id FROM cabinets WHERE main_account_id = ?1",
        &[ids[0]],
    );
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    let moved = app.write_ok(
        "POST",
        &format!("/cabinets/{client}/funds"),
        &key,
        Some(&json!({"amount": "12", "direction": "in"})),
        200,
    );
    assert_eq!(moved["data"]["balance"], "12.00");
    assert_eq!(fake.balance(&related), "12");
}
