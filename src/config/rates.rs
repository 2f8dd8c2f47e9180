//! Owns `[rates]`: the reporting currency totals across cabinets are shown in, and where
//! exchange rates come from (the ECB's daily reference rates or only rates set by hand, a URL
//! for TON, a fixed rate for Stars). The fetching itself is `jobs::rates`.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::domain::agency::CurrencyCode;

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RatesConfig {
    /// The currency totals across cabinets are shown in when their owner chose none.
    pub reporting_currency: CurrencyCode,
    /// Where fiat rates come from: the ECB's daily reference rates, or only `admin rates set`.
    pub source: RatesSource,
    /// The ECB's daily reference-rates XML.
    pub ecb_url: String,
    /// A JSON object of what one TON costs per currency (`{"EUR": 4.7, "USD": 5.1}`); empty:
    /// none fetched.
    pub ton_url: String,
    /// What one Star costs, fixed by the operator (`"0.013 USD"`); empty: none.
    pub stars_rate: StarsRate,
    /// Deadline of one fetch (connect, then the whole answer).
    pub timeout_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RatesSource {
    Ecb,
    Manual,
}

/// The operator's fixed price of one Star, as `"0.013 USD"`; `""` is none.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "String", into = "String")]
pub struct StarsRate(pub Option<(Decimal, CurrencyCode)>);

impl TryFrom<String> for StarsRate {
    type Error = String;

    fn try_from(text: String) -> Result<StarsRate, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(StarsRate(None));
        }
        let bad = || format!("{text:?} is not a price such as \"0.013 USD\" (or \"\" for none)");
        let (rate, code) = text.split_once(' ').ok_or_else(bad)?;
        let rate: Decimal = rate.trim().parse().map_err(|_| bad())?;
        let code = CurrencyCode::parse(code).ok_or_else(bad)?;
        if rate <= Decimal::ZERO || code.as_str() == "STARS" {
            return Err(bad());
        }
        Ok(StarsRate(Some((rate, code))))
    }
}

impl From<StarsRate> for String {
    fn from(s: StarsRate) -> String {
        match s.0 {
            Some((rate, code)) => format!("{rate} {code}"),
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stars_rate_is_a_price_and_a_code_or_nothing() {
        let read = |t: &str| StarsRate::try_from(t.to_string());
        assert_eq!(read("").unwrap(), StarsRate(None));
        let fixed = read("0.013 usd").unwrap();
        assert_eq!(String::from(fixed), "0.013 USD");
        for bad in ["0.013", "USD 0.013", "-1 USD", "0 EUR", "1 STARS", "1 U1D"] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }
}
