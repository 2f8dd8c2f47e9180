//! Agency money on the simulator: client cabinets opened under the main account, money moved
//! in and out (once per key), a large transfer that settles later on the service clock with
//! its signed `cabinet_funds` event, the owner-only `out`, the monthly cap, a source without
//! the money, and the transactions in cursor pages.

use serde_json::{json, Value};

use crate::helpers::{spawn_app, Receiver, TestApp};
use adcab::ops::{self, NewKey, TeamAccess};

/// An agency owner whose euro cabinet (1000) is the main account, with a Manage key that sends
/// webhooks to `hook`, and one client cabinet opened through the API.
struct Agency {
    app: TestApp,
    user: i64,
    main: i64,
    client: i64,
    key: String,
    secret: String,
}

fn open_body() -> Value {
    json!({"title": "Client Ltd", "full_name": "Ann Lee", "email": "ann@example.com",
        "phone_number": "+44 20 7946 0000", "country": "GB", "city": "London"})
}

fn agency(hook: &Receiver) -> Agency {
    let app = spawn_app();
    let user = app.user("agency");
    let main = app.cabinet(user, "euro", "1000");
    ops::cabinet_set(
        &app.services,
        main,
        &ops::CabinetChange {
            main_account: Some(true),
            ..Default::default()
        },
    )
    .unwrap();
    let (_, key, secret) = app.hook_key(user, &hook.url);
    let opened = app.write_ok("POST", "/cabinets", &key, Some(&open_body()), 200);
    let client = opened["data"]["id"].as_i64().unwrap();
    Agency {
        app,
        user,
        main,
        client,
        key,
        secret,
    }
}

impl Agency {
    fn funds(&self, key: &str, amount: &str, direction: &str, idem: &str) -> crate::helpers::Resp {
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
}

#[test]
fn a_client_cabinet_opens_under_the_main_account_once_per_key() {
    let hook = Receiver::start(200);
    let a = agency(&hook);
    let info = a.app.get_ok("/account/info", &a.key);
    let ids: Vec<i64> = info["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    assert!(ids.contains(&a.client) && ids.contains(&a.main), "{ids:?}");
    let again = |idem: &str| {
        a.app.send(
            "POST",
            "/cabinets",
            &a.key,
            Some(&open_body()),
            &[("Idempotency-Key", idem)],
        )
    };
    let first = again("open-client-twice-1");
    let second = again("open-client-twice-1");
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.body["data"]["id"], second.body["data"]["id"]);
    assert_ne!(first.body["data"]["id"].as_i64(), Some(a.client));
    // Without an Idempotency-Key, nothing is opened.
    a.app
        .send("POST", "/cabinets", &a.key, Some(&open_body()), &[])
        .assert_error(400, "IDEMPOTENCY_KEY_REQUIRED");
    // A Pro owner has no client cabinets.
    let pro = a.app.user("pro");
    a.app.cabinet(pro, "euro", "10");
    let pro_key = a.app.key_with(NewKey {
        user: pro,
        manage: true,
        ..NewKey::default()
    });
    a.app.write_err(
        "POST",
        "/cabinets",
        &pro_key,
        Some(&open_body()),
        409,
        "NOT_A_MAIN_ACCOUNT",
    );
    // A field left out is named.
    let mut body = open_body();
    body.as_object_mut().unwrap().remove("city");
    let e = a.app.write_err(
        "POST",
        "/cabinets",
        &a.key,
        Some(&body),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(e["param"], "city");
}

#[test]
fn money_moves_in_at_once_and_a_large_transfer_settles_later_with_its_signed_event() {
    let hook = Receiver::start(200);
    let a = agency(&hook);
    let small = a.moved("10.5", "in");
    assert_eq!(small["status"], "completed");
    assert_eq!(small["amount"], "10.50");
    assert_eq!(small["main_balance"], "989.50");
    assert_eq!(small["balance"], "10.50");
    let large = a.moved("150", "in");
    assert_eq!(large["status"], "in_progress", "{large}");
    assert_eq!(
        large["main_balance"], "839.50",
        "the money left the main account"
    );
    assert_eq!(large["balance"], "10.50", "and has not arrived yet");
    a.app.advance(180);
    let events: Vec<Value> = crate::helpers::wait_for(
        std::time::Duration::from_secs(10),
        "two cabinet_funds events",
        || {
            let got: Vec<Value> = hook
                .received()
                .iter()
                .filter(|r| r.event() == "cabinet_funds")
                .map(|r| r.verified(&a.secret))
                .collect();
            (got.len() >= 2).then_some(got)
        },
    );
    let settled = events
        .iter()
        .find(|e| e["transfer_id"] == large["transfer_id"])
        .expect("the large transfer's event");
    assert_eq!(settled["status"], "completed");
    assert_eq!(settled["balance"], "160.50");
    assert_eq!(settled["amount"], "150.00");
    assert_eq!(settled["account_id"], a.client);
    assert_eq!(settled["main_account_id"], a.main);
    let balance: i64 = a.app.scalar(
        "SELECT balance_micros FROM cabinets WHERE id = ?1",
        &[a.client],
    );
    assert_eq!(balance, 160_500_000);
    let history: i64 = a.app.scalar(
        "SELECT COUNT(*) FROM campaign_history
         WHERE account_id = ?1 AND ad_id = 0 AND action LIKE 'funds_%'",
        &[a.client],
    );
    assert_eq!(history, 3, "moved, pending, then settled");
}

#[test]
fn a_transfer_replayed_with_the_same_key_moves_once() {
    let hook = Receiver::start(200);
    let a = agency(&hook);
    let first = a.funds(&a.key, "20", "in", "same-key-0001");
    let second = a.funds(&a.key, "20", "in", "same-key-0001");
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(
        first.body["data"]["transfer_id"],
        second.body["data"]["transfer_id"]
    );
    // Past the HTTP layer's memory too: the operation's own key moves nothing again.
    let cabinet = a
        .app
        .services
        .db
        .read_blocking(|c| adcab::store::cabinets::get(c, a.client));
    let actor = adcab::ops::Actor::operator(cabinet.unwrap().unwrap());
    let mv = adcab::domain::funds::FundsMove {
        amount: adcab::domain::money::Money::from_micros(20_000_000),
        direction: adcab::domain::funds::Direction::In,
    };
    let token = format!("{}:same-key-0001", a.user);
    let third = ops::funds::move_funds(&a.app.services, &actor, mv, &token).unwrap();
    assert_eq!(json!(third.transfer.id), first.body["data"]["transfer_id"]);
    let moved: i64 = a.app.scalar("SELECT COUNT(*) FROM transfers", &[]);
    assert_eq!(moved, 1);
    let main = a.app.services.platform.balance(a.main).unwrap();
    assert_eq!(main.micros(), 980_000_000, "the money moved once");
}

#[test]
fn only_the_owner_moves_money_out() {
    let hook = Receiver::start(200);
    let a = agency(&hook);
    a.moved("50", "in");
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
    let r = a.funds(&member_key, "5", "in", "member-in-0001");
    assert_eq!(
        r.status, 200,
        "a manager may top the cabinet up: {}",
        r.body
    );
    a.funds(&member_key, "5", "out", "member-out-001")
        .assert_error(403, "OWNER_ONLY");
    let out = a.moved("5", "out");
    assert_eq!(out["direction"], "out");
    assert_eq!(out["balance"], "50.00");
}

#[test]
fn the_monthly_cap_counts_completed_and_pending_transfers() {
    let hook = Receiver::start(200);
    let a = agency(&hook);
    ops::cabinet_set(
        &a.app.services,
        a.client,
        &ops::CabinetChange {
            monthly_topup_cap: Some("200".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(a.moved("150", "in")["status"], "in_progress");
    let refused = a.funds(&a.key, "60", "in", "cap-key-00001");
    refused.assert_error(409, "MONTHLY_TOPUP_CAP");
    assert!(
        refused.body["error"].as_str().unwrap().contains("50.00"),
        "{}",
        refused.body
    );
    assert_eq!(a.moved("50", "in")["status"], "completed");
    // Money out does not count against the cap.
    a.moved("10", "out");
    a.funds(&a.key, "1", "in", "cap-key-00002")
        .assert_error(409, "MONTHLY_TOPUP_CAP");
}

#[test]
fn money_the_source_does_not_have_is_refused() {
    let hook = Receiver::start(200);
    let a = agency(&hook);
    a.moved("5", "in");
    a.funds(&a.key, "6", "out", "short-key-0001")
        .assert_error(400, "INSUFFICIENT_BALANCE");
    a.funds(&a.key, "2000", "in", "short-key-0002")
        .assert_error(400, "INSUFFICIENT_BALANCE");
    let e = a.app.write_err(
        "POST",
        &format!("/cabinets/{}/funds", a.client),
        &a.key,
        Some(&json!({"amount": "1.000001", "direction": "in"})),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(e["param"], "amount");
    // The main account is not a client cabinet.
    a.app.write_err(
        "POST",
        &format!("/cabinets/{}/funds", a.main),
        &a.key,
        Some(&json!({"amount": "1", "direction": "in"})),
        409,
        "NOT_A_CLIENT_CABINET",
    );
}

#[test]
fn the_transactions_come_in_cursor_pages() {
    let hook = Receiver::start(200);
    let a = agency(&hook);
    for amount in ["1", "2", "3", "4", "5"] {
        a.moved(amount, "in");
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..10 {
        let path = match &cursor {
            Some(c) => format!("/cabinets/{}/transactions?limit=2&cursor={c}", a.client),
            None => format!("/cabinets/{}/transactions?limit=2", a.client),
        };
        let page = a.app.get_ok(&path, &a.key);
        assert_eq!(page["meta"]["total"], 5);
        for t in page["data"].as_array().unwrap() {
            assert_eq!(t["peer"]["type"], "main_account");
            seen.push(t["amount"].as_str().unwrap().to_string());
        }
        cursor = page["meta"]["next_cursor"].as_str().map(str::to_string);
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(
        seen,
        ["5.00", "4.00", "3.00", "2.00", "1.00"],
        "newest first"
    );
    let main = a
        .app
        .get_ok(&format!("/cabinets/{}/transactions", a.main), &a.key);
    let amounts: Vec<&str> = main["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["amount"].as_str().unwrap())
        .collect();
    assert_eq!(
        amounts,
        ["-5.00", "-4.00", "-3.00", "-2.00", "-1.00", "1000.00"]
    );
    a.app.get_err(
        &format!("/cabinets/{}/transactions?cursor=nonsense", a.client),
        &a.key,
        400,
        "VALIDATION_ERROR",
    );
}
