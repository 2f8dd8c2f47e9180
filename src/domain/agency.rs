//! Owns an agency's terms with a client cabinet as values: how often its report is sent, the
//! agency's fee on its spend, and the currency codes that exchange rates are kept between.

use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Serialize};

/// How often a cabinet's client report is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportSchedule {
    Weekly,
    Monthly,
}

impl ReportSchedule {
    pub fn parse(text: &str) -> Option<ReportSchedule> {
        match text {
            "weekly" => Some(ReportSchedule::Weekly),
            "monthly" => Some(ReportSchedule::Monthly),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ReportSchedule::Weekly => "weekly",
            ReportSchedule::Monthly => "monthly",
        }
    }
}

/// The agency's fee on a cabinet's spend, in percent: 0 to 100 with at most 2 decimals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeePercent(Decimal);

impl FeePercent {
    pub fn parse(text: &str) -> Option<FeePercent> {
        let d: Decimal = text.trim().parse().ok()?;
        let fits = d >= Decimal::ZERO && d <= Decimal::ONE_HUNDRED && d.scale() <= 2;
        fits.then(|| FeePercent(d.normalize()))
    }

    pub fn percent(self) -> Decimal {
        self.0
    }

    /// The fee on `spend`, rounded to `dp` decimals (half away from zero).
    pub fn of(self, spend: Decimal, dp: u32) -> Decimal {
        (spend * self.0 / Decimal::ONE_HUNDRED)
            .round_dp_with_strategy(dp, RoundingStrategy::MidpointAwayFromZero)
    }
}

impl std::fmt::Display for FeePercent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A currency code as rates are kept: 3 to 5 capital letters (`EUR`, `USD`, `TON`, `STARS`),
/// held in place (a list page's returns copy one per campaign), zeros after a shorter code so
/// that codes order as their texts do.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CurrencyCode([u8; 5]);

impl TryFrom<String> for CurrencyCode {
    type Error = String;

    fn try_from(text: String) -> Result<CurrencyCode, String> {
        CurrencyCode::parse(&text)
            .ok_or_else(|| format!("{text:?} is not a currency code such as EUR, USD, TON"))
    }
}

impl std::str::FromStr for CurrencyCode {
    type Err = String;

    fn from_str(text: &str) -> Result<CurrencyCode, String> {
        CurrencyCode::try_from(text.to_string())
    }
}

impl From<CurrencyCode> for String {
    fn from(c: CurrencyCode) -> String {
        c.as_str().to_string()
    }
}

impl std::fmt::Debug for CurrencyCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("CurrencyCode").field(&self.as_str()).finish()
    }
}

impl CurrencyCode {
    pub fn parse(text: &str) -> Option<CurrencyCode> {
        let t = text.trim().as_bytes();
        if !(3..=5).contains(&t.len()) || !t.iter().all(u8::is_ascii_alphabetic) {
            return None;
        }
        let mut letters = [0; 5];
        for (to, from) in letters.iter_mut().zip(t) {
            *to = from.to_ascii_uppercase();
        }
        Some(CurrencyCode(letters))
    }

    pub fn as_str(&self) -> &str {
        let len = self.0.iter().position(|b| *b == 0).unwrap_or(self.0.len());
        std::str::from_utf8(&self.0[..len]).expect("a code is capital letters")
    }
}

impl std::fmt::Display for CurrencyCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fee_is_a_percent_of_at_most_two_decimals() {
        assert_eq!(FeePercent::parse("12.5").unwrap().to_string(), "12.5");
        assert!(FeePercent::parse("100.01").is_none());
        assert!(FeePercent::parse("-1").is_none());
        assert!(FeePercent::parse("1.234").is_none());
        let fee = FeePercent::parse("10").unwrap();
        assert_eq!(fee.of(Decimal::new(12345, 2), 2), Decimal::new(1235, 2));
    }

    #[test]
    fn currency_codes_are_capital_letters() {
        assert_eq!(CurrencyCode::parse("usd").unwrap().as_str(), "USD");
        assert_eq!(CurrencyCode::parse("STARS").unwrap().as_str(), "STARS");
        assert!(CurrencyCode::parse("EU").is_none());
        assert!(CurrencyCode::parse("E1R").is_none());
        assert!(CurrencyCode::parse("EURODO").is_none());
        assert!(CurrencyCode::parse("ÉUR").is_none());
        let code = |c| CurrencyCode::parse(c).unwrap();
        assert_eq!(code(" ton ").to_string(), "TON");
        assert_eq!(format!("{:?}", code("ton")), r#"CurrencyCode("TON")"#);
        let mut codes = [code("USDT"), code("USD"), code("STARS"), code("EUR")];
        codes.sort();
        assert_eq!(
            codes.map(|c| c.to_string()),
            ["EUR", "STARS", "USD", "USDT"]
        );
    }

    #[test]
    fn report_schedules_read_back() {
        for s in [ReportSchedule::Weekly, ReportSchedule::Monthly] {
            assert_eq!(ReportSchedule::parse(s.as_str()), Some(s));
        }
        assert_eq!(ReportSchedule::parse("daily"), None);
    }
}
