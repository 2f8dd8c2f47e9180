//! The fake's money (§8.2): currencies and their precisions, half-up rounding, and decimals
//! read from request text and written as exact JSON numbers.

use std::str::FromStr;

use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::Value;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cur {
    Eur,
    Ton,
    Xtr,
}

impl Cur {
    pub fn parse(code: &str) -> Option<Cur> {
        match code {
            "EUR" => Some(Cur::Eur),
            "TON" => Some(Cur::Ton),
            "XTR" => Some(Cur::Xtr),
            _ => None,
        }
    }
    pub fn code(self) -> &'static str {
        match self {
            Cur::Eur => "EUR",
            Cur::Ton => "TON",
            Cur::Xtr => "XTR",
        }
    }
    /// Decimals of `cpm`, `initial_budget`, `daily_budget_limit` and ad budget moves (§8.2, §16).
    pub fn budget_dp(self) -> u32 {
        match self {
            Cur::Xtr => 0,
            _ => 2,
        }
    }
    /// Decimals of account transfers and of spent amounts.
    pub fn transfer_dp(self) -> u32 {
        match self {
            Cur::Xtr => 3,
            _ => 5,
        }
    }
}

/// Rounds half-up (away from zero), the fake's reading of the API's rounding (§16).
pub fn round(d: Decimal, dp: u32) -> Decimal {
    d.round_dp_with_strategy(dp, RoundingStrategy::MidpointAwayFromZero)
}

/// A money value as a JSON number carrying the decimal's exact text (trailing zeros trimmed).
pub fn money(d: Decimal) -> Value {
    let d = if d.is_zero() {
        Decimal::ZERO
    } else {
        d.normalize()
    };
    Value::Number(serde_json::Number::from_str(&d.to_string()).expect("decimal text is a number"))
}

/// A decimal from request text: plain (`12.50`) or scientific (`1.25e1`).
pub fn parse_decimal(text: &str) -> Option<Decimal> {
    let t = text.trim();
    Decimal::from_str(t)
        .ok()
        .or_else(|| Decimal::from_scientific(t).ok())
}

/// Money in a test-control argument; a malformed one is a bug in the test.
pub fn dec_arg(text: &str) -> Decimal {
    parse_decimal(text).unwrap_or_else(|| panic!("fake promote: {text:?} is not a decimal"))
}
