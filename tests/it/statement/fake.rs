//! The statement through the connector against the Telegram Ads fake: the ledger
//! (`getAccountTransactionsList`) walked back across pages, the month reconciled with
//! `getAccountReport` and a difference shown, and a failing account report shown as "could not
//! be reconciled" without sinking the statement.

use serde_json::{json, Value};

use super::{balances, dec, month_of, to_next_month};
use crate::telegram::{connected, Fault, SeedAd, Tg};

/// The seeded ad delivering 400 views in a whole hour of a month begun after the account
/// was made, with `top_ups` outside top-ups of 1 EUR before: (the connected fake, the ad,
/// the month).
fn a_month(top_ups: usize) -> (Tg, i64, String) {
    let tg = connected(vec![SeedAd::channel("Running", "@alpha_chan")]);
    let ad = tg.first_ad();
    tg.advance(to_next_month(tg.app.now()));
    let month = month_of(tg.app.now()).to_string();
    for i in 0..top_ups {
        tg.fake.top_up(tg.id(), "1", &format!("invoice {i}"));
    }
    let into_hour = tg.fake.now().rem_euclid(3600);
    tg.advance(3600 - into_hour + 600);
    tg.fake.deliver(tg.id(), ad, 400);
    tg.advance(3600);
    (tg, ad, month)
}

fn statement(tg: &Tg, month: &str) -> Value {
    tg.app.get_ok(
        &format!("/cabinets/{}/statement?month={month}", tg.cabinet),
        &tg.key,
    )["data"]
        .clone()
}

#[test]
fn the_ledger_is_read_across_pages_and_the_account_reports_difference_is_shown() {
    let (tg, ad, month) = a_month(150);
    let clean = statement(&tg, &month);
    assert_eq!(
        clean["reconciliation"],
        json!({ "status": "compared", "differences": [] }),
        "what the hourly sync stored is what the platform counts"
    );
    tg.app
        .services
        .db
        .write_blocking(|tx| {
            tx.execute(
                "UPDATE hourly_entries SET views = views - 30 WHERE account_id = ?1 AND ad_id = ?2",
                [tg.cabinet, ad],
            )?;
            Ok::<_, adcab::store::StoreError>(())
        })
        .unwrap();

    tg.fake.reset_calls();
    let st = statement(&tg, &month);
    assert!(
        tg.fake.call_count("getAccountTransactionsList") >= 2,
        "150 items of 100 a page"
    );
    let lines = st["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 150, "every top-up of the month, none before");
    assert!(lines.iter().all(|l| l["kind"] == "top_up"));
    assert_eq!(lines[0]["peer"]["comment"], "invoice 0", "oldest first");
    assert_eq!(st["totals"]["top_up"], "150.00");
    balances(&st);
    let platform: rust_decimal::Decimal = tg.fake.balance(tg.id()).parse().unwrap();
    assert_eq!(dec(&st["closing_balance"]), platform);
    assert_eq!(
        dec(&st["opening_balance"]),
        platform - rust_decimal::Decimal::from(150)
    );
    assert_eq!(st["campaigns"][0]["ad_id"], ad);
    assert_eq!(st["campaigns"][0]["title"], "Running");
    assert_eq!(st["reconciliation"]["status"], "compared");
    assert_eq!(
        st["reconciliation"]["differences"],
        json!([{ "ad_id": ad, "title": "Running", "field": "views", "adcab": 370, "platform": 400 }])
    );
}

#[test]
fn a_failing_account_report_leaves_the_statement_not_reconciled() {
    let (tg, _ad, month) = a_month(2);
    tg.fake.fail_next(
        Fault::ApiError("INTERNAL_ERROR".into()),
        Some("getAccountReport"),
        20,
    );
    let st = statement(&tg, &month);
    assert_eq!(
        st["reconciliation"],
        json!({ "status": "failed", "differences": [] })
    );
    assert_eq!(
        st["lines"].as_array().unwrap().len(),
        2,
        "the rest is there"
    );
    balances(&st);
    tg.fake.clear_faults();
}

#[test]
fn a_ledger_too_long_to_walk_back_is_refused_plainly() {
    let tg = connected(vec![]);
    // One more than 100 pages of 100, all after last month: its start is never reached.
    for i in 0..10_001 {
        tg.fake.top_up(tg.id(), "0.01", &format!("invoice {i}"));
    }
    let last = month_of(tg.app.now() - chrono::Duration::days(32)).to_string();
    let e = tg.app.get_err(
        &format!("/cabinets/{}/statement?month={last}", tg.cabinet),
        &tg.key,
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(e["param"], "month");
    assert!(e["error"].as_str().unwrap().contains("10000"), "{e}");
    assert_eq!(tg.fake.call_count("getAccountTransactionsList"), 100);
}
