//! The monthly statement (`GET /v1/cabinets/{account_id}/statement`, the panel's
//! `/reports/{account_id}/statement`): on the simulator (its ledger walked back: opening +
//! lines = closing = the cabinet's balance, the fee line, a month not begun refused, a cabinet
//! not reached refused), against the Telegram Ads fake (the ledger across pages, a difference
//! with the account report, a failing account report) and as the panel's page in both
//! languages and as CSV.

mod fake;
mod no_ledger;
mod panel;
mod sim;

use adcab::domain::time::Month;
use rust_decimal::Decimal;
use serde_json::Value;

/// The month the service clock is in.
pub fn month_of(now: chrono::DateTime<chrono::Utc>) -> Month {
    now.format("%Y-%m").to_string().parse().unwrap()
}

/// Seconds from `now` to an hour past the next month's start.
pub fn to_next_month(now: chrono::DateTime<chrono::Utc>) -> i64 {
    (month_of(now).end() - now).num_seconds() + 3600
}

pub fn dec(v: &Value) -> Decimal {
    v.as_str()
        .unwrap_or_else(|| panic!("a decimal string: {v}"))
        .parse()
        .unwrap()
}

/// Checks that opening + every line = closing and that the totals per kind sum the lines.
pub fn balances(st: &Value) {
    let lines = st["lines"].as_array().unwrap();
    let moved: Decimal = lines.iter().map(|l| dec(&l["amount"])).sum();
    assert_eq!(
        dec(&st["opening_balance"]) + moved,
        dec(&st["closing_balance"]),
        "opening + lines = closing: {st}"
    );
    let totals: Decimal = st["totals"].as_object().unwrap().values().map(dec).sum();
    assert_eq!(totals, moved, "the totals per kind sum the lines");
}
