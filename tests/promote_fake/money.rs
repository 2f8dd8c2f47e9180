//! Money: the 10-minute rule, related accounts and transfers, the money invariant.

use crate::promote_fake::{FakeOptions, FakePromote};
use crate::*;
use serde_json::json;

#[test]
fn ten_minute_rule_and_budget_not_empty() {
    let f = FakePromote::start();
    let a = f.add_account("EUR", "Q", "100", false);
    let fresh = ok(&f, &a.token, "createAd", chan_ad("Fresh", "0"))["ad_id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        fails(&f, &a.token, "deleteAd", json!({"ad_id": fresh})),
        "AD_RECENTLY_ACTIVE",
        "counts from created_date"
    );
    let id = running_ad(&f, &a, "10");
    f.deliver(&a.account_id, id, 1000);
    let dec = json!({"ad_id": id, "amount": 1});
    assert_eq!(
        fails(&f, &a.token, "decreaseAdBudget", dec.clone()),
        "AD_RECENTLY_ACTIVE"
    );
    let paused = ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": id, "is_paused": true}),
    );
    assert_eq!(
        (paused["status"].as_str(), paused["is_paused"].as_bool()),
        (Some("on_hold"), Some(true))
    );
    f.advance(599);
    assert_eq!(
        fails(&f, &a.token, "decreaseAdBudget", dec.clone()),
        "AD_RECENTLY_ACTIVE"
    );
    f.advance(1);
    assert_eq!(
        ok(&f, &a.token, "deleteAd", json!({"ad_id": fresh})),
        json!(true)
    );
    assert_eq!(
        fails(&f, &a.token, "deleteAd", json!({"ad_id": id})),
        "AD_BUDGET_NOT_EMPTY"
    );
    let left = ok(&f, &a.token, "decreaseAdBudget", dec);
    assert_eq!(left["remaining_budget"].to_string(), "6.54"); // 10 - 2.46 - 1
    let too_much = json!({"ad_id": id, "amount": 7});
    assert_eq!(
        fails(&f, &a.token, "decreaseAdBudget", too_much),
        "NOT_ENOUGH_BUDGET"
    );
    ok(
        &f,
        &a.token,
        "decreaseAdBudget",
        json!({"ad_id": id, "amount": 6.54}),
    );
    assert_eq!(
        ok(&f, &a.token, "deleteAd", json!({"ad_id": id})),
        json!(true)
    );
    assert!(f.ad(&a.account_id, id).is_none());
    assert_eq!(
        fails(&f, &a.token, "editAd", json!({"ad_id": id, "title": "x"})),
        "AD_ID_INVALID"
    );
    let month = chrono::DateTime::from_timestamp(f.now(), 0).unwrap();
    let report = ok(
        &f,
        &a.token,
        "getAccountReport",
        json!({"year": chrono::Datelike::year(&month), "month": chrono::Datelike::month(&month)}),
    );
    let line = report
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["ad_id"] == json!(id))
        .unwrap()
        .clone();
    assert_eq!(
        (line["ad_is_deleted"].as_bool(), line["views"].as_i64()),
        (Some(true), Some(1000))
    );
    assert_eq!(f.balance(&a.account_id), "97.54");

    // With refunds on, a quiet ad with money left is deleted and refunded.
    let g = FakePromote::start_with(FakeOptions {
        delete_with_budget_refunds: true,
        ..FakeOptions::default()
    });
    let b = g.add_account("TON", "R", "20", false);
    let bid = ok(&g, &b.token, "createAd", chan_ad("Refund", "5"))["ad_id"]
        .as_i64()
        .unwrap();
    g.advance(600);
    assert_eq!(
        ok(&g, &b.token, "deleteAd", json!({"ad_id": bid})),
        json!(true)
    );
    assert_eq!(g.balance(&b.account_id), "20");
}

#[test]
fn related_accounts_scope_and_transfers() {
    let f = FakePromote::start();
    let main = f.add_account("EUR", "Agency", "100", true);
    let rel = f.add_related(&main.account_id, "EUR", "Client", "0");
    let plain = f.add_account("EUR", "Plain", "10", false);
    let list = ok(&f, &main.token, "getRelatedAccountsList", json!({}));
    assert_eq!(
        (
            list["total_count"].as_i64(),
            list["accounts"][0]["account_id"].as_str()
        ),
        (Some(1), Some(rel.as_str()))
    );
    for m in [
        "getRelatedAccountsList",
        "getTransactionStatus",
        "createAccount",
    ] {
        assert_eq!(
            fails(&f, &plain.token, m, json!({})),
            "MAIN_ACCOUNT_REQUIRED"
        );
    }
    assert_eq!(
        fails(&f, &plain.token, "getAdsList", json!({"account_id": rel})),
        "ACCOUNT_ID_INVALID"
    );

    let tx = ok(
        &f,
        &main.token,
        "increaseAccountBudget",
        json!({"account_id": rel, "amount": 30.123456}),
    );
    assert_eq!(
        (tx["status"].as_str(), tx["amount"].to_string()),
        (Some("completed"), "30.12346".into())
    );
    let status = ok(
        &f,
        &main.token,
        "getTransactionStatus",
        json!({"transaction_id": tx["transaction_id"]}),
    );
    assert_eq!(
        status["related_account"]["remaining_budget"].to_string(),
        "30.12346"
    );
    let over = json!({"account_id": rel, "amount": 31});
    assert_eq!(
        fails(&f, &main.token, "decreaseAccountBudget", over),
        "NOT_ENOUGH_BUDGET"
    );
    let back = ok(
        &f,
        &main.token,
        "decreaseAccountBudget",
        json!({"account_id": rel, "amount": 0.12346}),
    );
    assert_eq!(back["amount"].to_string(), "-0.12346");
    assert_eq!(
        fails(
            &f,
            &main.token,
            "increaseAccountBudget",
            json!({"account_id": plain.account_id, "amount": 1})
        ),
        "ACCOUNT_ID_INVALID"
    );

    // The main's token acts on the related account through account_id.
    let mut p = chan_ad("For client", "20");
    p["account_id"] = json!(rel);
    let ad = ok(&f, &main.token, "createAd", p)["ad_id"]
        .as_i64()
        .unwrap();
    assert!(f.ad(&rel, ad).is_some() && f.ad(&main.account_id, ad).is_none());
    assert_eq!(
        ok(&f, &main.token, "getAdsList", json!({}))["total_count"],
        json!(0)
    );
    assert_eq!(
        ok(&f, &main.token, "getAdsList", json!({"account_id": rel}))["total_count"],
        json!(1)
    );
    let accts = ok(
        &f,
        &main.token,
        "getAccountsById",
        json!({"account_ids": [rel, plain.account_id, main.account_id]}),
    );
    assert_eq!(accts.as_array().unwrap().len(), 2, "foreign ids omitted");
    assert_eq!(
        (
            accts[0]["remaining_budget"].to_string(),
            accts[0]["ads_budget"].to_string()
        ),
        ("10".into(), "20".into())
    );
    let created = call_key(
        &f,
        &main.token,
        Some("acct-1"),
        "createAccount",
        json!({
            "title": "New", "full_name": "N N", "email": "n@example.com", "phone_number": "+1", "country": "US", "city": "NYC"
        }),
    );
    assert_eq!(created.result()["title"], "New");
    assert_eq!(
        ok(
            &f,
            &main.token,
            "getRelatedAccountsList",
            json!({"offset": 1, "limit": 5})
        )["accounts"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        (f.money_moves(&main.account_id), f.money_moves(&rel)),
        (2, 3)
    );
    let txs = ok(
        &f,
        &main.token,
        "getAccountTransactionsList",
        json!({"account_id": rel}),
    );
    assert_eq!(txs["transactions"][0]["peer"]["type"], "ad");
    assert_eq!(txs["transactions"][2]["peer"]["type"], "main_account");
}

#[test]
fn money_invariant_holds_through_every_flow() {
    let f = FakePromote::start();
    let a = f.add_account("TON", "M", "200", false);
    let acct = |f: &FakePromote| ok(f, &a.token, "getCurrentAccount", json!({}));
    let before = total(&acct(&f));
    assert_eq!(before.to_string(), "200");
    let id = running_ad(&f, &a, "50");
    let other = ok(&f, &a.token, "createAd", chan_ad("Idle", "0"))["ad_id"]
        .as_i64()
        .unwrap();
    let topped = ok(
        &f,
        &a.token,
        "increaseAdBudget",
        json!({"ad_id": other, "amount": 12.345}),
    );
    assert_eq!(
        topped["remaining_budget"].to_string(),
        "12.35",
        "ad budgets round to 2 decimals"
    );
    for _ in 0..5 {
        f.deliver(&a.account_id, id, 3333);
        f.advance(300);
        assert_eq!(total(&acct(&f)), before);
    }
    ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": id, "is_paused": true}),
    );
    f.advance(600);
    // Sending exactly the remaining budget (5 decimals after delivery) withdraws all of it.
    let left = f.ad(&a.account_id, id).unwrap()["remaining_budget"].clone();
    assert_eq!(left.to_string(), "9.0041"); // 50 - 5 * 3333 * 0.00246
    let out = ok(
        &f,
        &a.token,
        "decreaseAdBudget",
        json!({"ad_id": id, "amount": left}),
    );
    assert_eq!(out["remaining_budget"].to_string(), "0");
    // A remainder below 0.01 cannot be withdrawn; it does not block deleting and is refunded.
    ok(&f, &a.token, "submitAdForReview", json!({"ad_id": other}));
    f.approve(&a.account_id, other);
    f.deliver(&a.account_id, other, 2);
    ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": other, "is_paused": true}),
    );
    f.advance(600);
    let part = json!({"ad_id": other, "amount": 12.34});
    assert_eq!(
        ok(&f, &a.token, "decreaseAdBudget", part)["remaining_budget"].to_string(),
        "0.00508"
    );
    ok(&f, &a.token, "deleteAd", json!({"ad_id": other}));
    ok(&f, &a.token, "deleteAd", json!({"ad_id": id}));
    let now = acct(&f);
    assert_eq!(
        (total(&now), f.total_money(&a.account_id)),
        (before, "200".into())
    );
    assert_eq!(now["ads_budget"].to_string(), "0");
    assert_eq!(now["spent_budget"].to_string(), "41.00082");
}
