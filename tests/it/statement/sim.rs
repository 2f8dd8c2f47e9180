//! The statement on the simulator, whose ledger books every move of a free balance.

use serde_json::{json, Value};

use super::{balances, dec, month_of, to_next_month};
use crate::helpers::{spawn_app, Camp, TestApp};
use adcab::ops::{self, NewKey};

/// An agency owner with a euro main account (1000), a Manage key and one client cabinet
/// opened through the API: (app, main, client, key).
pub fn agency() -> (TestApp, i64, i64, String) {
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
    let key = app.key_with(NewKey {
        user,
        manage: true,
        ..NewKey::default()
    });
    let body = json!({"title": "Client Ltd", "full_name": "Ann Lee", "email": "ann@example.com",
        "phone_number": "+44 20 7946 0000", "country": "GB", "city": "London"});
    let opened = app.write_ok("POST", "/cabinets", &key, Some(&body), 200);
    let client = opened["data"]["id"].as_i64().unwrap();
    (app, main, client, key)
}

pub fn moved(app: &TestApp, key: &str, client: i64, amount: &str, direction: &str) {
    let r = app.send(
        "POST",
        &format!("/cabinets/{client}/funds"),
        key,
        Some(&json!({"amount": amount, "direction": direction})),
        &[("Idempotency-Key", &uuid::Uuid::new_v4().to_string())],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["data"]["status"], "completed", "{}", r.body);
}

/// Money in and out, a campaign made, spending and partly withdrawn, in one month: (the
/// month, the campaign).
pub fn a_busy_month(app: &TestApp, key: &str, client: i64) -> (String, i64) {
    app.advance(to_next_month(app.now()));
    let month = month_of(app.now()).to_string();
    moved(app, key, client, "60", "in");
    moved(app, key, client, "40.5", "in");
    let ad = app.approved(
        client,
        Camp {
            budget_micros: 30_000_000,
            ..Camp::channel("Spring launch", "https://t.me/alpha_chan")
        },
    );
    app.advance(3 * 3600);
    app.write_ok(
        "POST",
        &format!("/campaigns/{ad}/budget"),
        key,
        Some(&json!({ "account_id": client, "action": "withdraw", "amount": "2" })),
        200,
    );
    moved(app, key, client, "5", "out");
    app.advance(2 * 3600);
    (month, ad)
}

fn statement(app: &TestApp, key: &str, client: i64, month: &str) -> Value {
    app.get_ok(&format!("/cabinets/{client}/statement?month={month}"), key)["data"].clone()
}

fn kinds(st: &Value) -> Vec<(String, String)> {
    st["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["kind"].as_str().unwrap().to_string(),
                l["amount"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_months_moves_run_from_the_opening_to_the_closing_balance_which_is_the_cabinets() {
    let (app, _main, client, key) = agency();
    ops::cabinet_set(
        &app.services,
        client,
        &ops::CabinetChange {
            fee_percent: Some("10".into()),
            ..Default::default()
        },
    )
    .unwrap();
    let (month, ad) = a_busy_month(&app, &key, client);

    let st = statement(&app, &key, client, &month);
    assert_eq!(st["so_far"], true, "the month under way");
    assert_eq!(st["balances_known"], true);
    assert_eq!(st["opening_balance"], "0.00", "the cabinet opened empty");
    assert_eq!(
        kinds(&st),
        [
            ("transfer_in".into(), "60.00".into()),
            ("transfer_in".into(), "40.50".into()),
            ("to_campaign".into(), "-30.00".into()),
            ("from_campaign".into(), "2.00".into()),
            ("transfer_out".into(), "-5.00".into()),
        ]
    );
    assert_eq!(st["lines"][2]["peer"]["ad_id"], ad);
    assert_eq!(st["lines"][2]["peer"]["title"], "Spring launch");
    assert_eq!(st["lines"][0]["peer"]["type"], "main_account");
    balances(&st);
    assert_eq!(st["closing_balance"], "67.50");
    let platform = app.services.platform.balance(client).unwrap();
    assert_eq!(dec(&st["closing_balance"]), platform.to_decimal());
    let stored: i64 = app.scalar(
        "SELECT balance_micros FROM cabinets WHERE id = ?1",
        &[client],
    );
    assert_eq!(
        stored,
        platform.micros(),
        "the cabinet's balance as adcab keeps it"
    );
    assert_eq!(st["totals"]["transfer_in"], "100.50");
    assert_eq!(st["totals"]["top_up"], "0.00");

    // Spend per campaign is the stored hours'; the fee is a line of its own.
    let spent: i64 = app.scalar(
        "SELECT SUM(spent_micros) FROM hourly_stats WHERE account_id = ?1 AND ad_id = ?2",
        &[client, ad],
    );
    assert!(spent > 0, "the campaign spent");
    assert_eq!(st["campaigns"][0]["ad_id"], ad);
    assert_eq!(
        dec(&st["campaigns"][0]["spent"]),
        adcab::domain::money::Money::from_micros(spent).to_decimal()
    );
    let fee = &st["fee"];
    assert_eq!(fee["percent"], "10");
    assert_eq!(
        dec(&fee["client_spend"]),
        dec(&fee["platform_spend"]) + dec(&fee["fee"])
    );
    assert_eq!(
        dec(&fee["fee"]),
        (dec(&fee["platform_spend"]) / rust_decimal::Decimal::from(10)).round_dp(2)
    );
    assert_eq!(st["reconciliation"]["status"], "no_report");

    // Next month: the month before is whole, and its closing is the new month's opening.
    app.advance(to_next_month(app.now()));
    moved(&app, &key, client, "10", "in");
    let before = statement(&app, &key, client, &month);
    assert_eq!(before["so_far"], false);
    assert_eq!(before["closing_balance"], st["closing_balance"]);
    assert_eq!(before["lines"], st["lines"]);
    let now = month_of(app.now()).to_string();
    let this = statement(&app, &key, client, &now);
    assert_eq!(this["opening_balance"], st["closing_balance"]);
    assert_eq!(this["closing_balance"], "77.50");
    balances(&this);
    // Without a month, the last whole one.
    let default = app.get_ok(&format!("/cabinets/{client}/statement"), &key)["data"].clone();
    assert_eq!(default["month"], month.as_str());
}

#[test]
fn a_month_not_begun_and_a_cabinet_not_reached_are_refused() {
    let (app, main, client, key) = agency();
    let later = month_of(app.now() + chrono::Duration::days(40)).to_string();
    let e = app.get_err(
        &format!("/cabinets/{client}/statement?month={later}"),
        &key,
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(e["param"], "month", "{e}");
    let e = app.get_err(
        &format!("/cabinets/{client}/statement?month=2026-13"),
        &key,
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(e["param"], "month");
    // The main account has a statement too: its money out to the client is a transfer out.
    moved(&app, &key, client, "7", "in");
    let now = month_of(app.now()).to_string();
    let st = app.get_ok(&format!("/cabinets/{main}/statement?month={now}"), &key)["data"].clone();
    let last = st["lines"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (&last["kind"], &last["amount"]),
        (&json!("transfer_out"), &json!("-7.00"))
    );
    assert_eq!(last["peer"]["title"], "Client Ltd");
    balances(&st);

    let (_, _, other) = app.owner_with_cabinet("pro");
    app.get_err(
        &format!("/cabinets/{client}/statement?month={now}"),
        &other,
        404,
        "ACCOUNT_NOT_FOUND",
    );
}
