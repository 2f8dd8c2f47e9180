//! Owns money: exact decimals (never floats), stored as integer micro-units, rendered as decimal
//! strings at the scale of the cabinet's currency. Owns cabinet types and their currencies.

use std::str::FromStr;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Digits kept for every amount: spend is tracked to 6 decimals.
pub const MONEY_SCALE: u32 = 6;

/// An amount in micro-units; serialised as that integer (task payloads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Money(i64);

impl Money {
    pub const ZERO: Money = Money(0);

    pub fn from_micros(micros: i64) -> Money {
        Money(micros)
    }

    pub fn micros(self) -> i64 {
        self.0
    }

    pub fn to_decimal(self) -> Decimal {
        Decimal::new(self.0, MONEY_SCALE)
    }

    /// Parses a non-negative decimal string with at most `scale` decimals.
    pub fn parse(text: &str, scale: u32) -> Result<Money, String> {
        let d = Decimal::from_str(text.trim()).map_err(|_| format!("'{text}' is not a decimal"))?;
        Money::from_decimal(d, scale)
    }

    /// Accepts `d` when it is non-negative, has at most `scale` decimals and fits the store.
    pub fn from_decimal(d: Decimal, scale: u32) -> Result<Money, String> {
        if d.is_sign_negative() && !d.is_zero() {
            return Err("must not be negative".into());
        }
        if d.normalize().scale() > scale {
            return Err(format!("has more than {scale} decimals"));
        }
        let micros = d
            .checked_mul(Decimal::from(1_000_000))
            .and_then(|m| i64::try_from(m.trunc()).ok())
            .ok_or_else(|| "is too large".to_string())?;
        Ok(Money(micros))
    }

    /// Renders at least `min_scale` decimals and at most six, trailing zeros beyond `min_scale` cut.
    pub fn render(self, min_scale: u32) -> String {
        let mut d = self.to_decimal().normalize();
        if d.scale() < min_scale {
            d.rescale(min_scale);
        }
        d.to_string()
    }

    /// Renders exactly six decimals, as `spent` is shown.
    pub fn render6(self) -> String {
        self.to_decimal().to_string()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CabinetType {
    Euro,
    Ton,
    Stars,
}

impl CabinetType {
    pub fn parse(s: &str) -> Option<CabinetType> {
        match s {
            "euro" => Some(CabinetType::Euro),
            "ton" => Some(CabinetType::Ton),
            "stars" => Some(CabinetType::Stars),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            CabinetType::Euro => "euro",
            CabinetType::Ton => "ton",
            CabinetType::Stars => "stars",
        }
    }

    pub fn currency(self) -> &'static str {
        match self {
            CabinetType::Euro => "EUR",
            CabinetType::Ton => "TON",
            CabinetType::Stars => "STARS",
        }
    }

    /// Decimals of bids and budgets in this currency: EUR and TON 2, STARS 0.
    pub fn scale(self) -> u32 {
        match self {
            CabinetType::Euro | CabinetType::Ton => 2,
            CabinetType::Stars => 0,
        }
    }

    /// Renders an amount of this cabinet's currency.
    pub fn render(self, money: Money) -> String {
        money.render(self.scale())
    }
}

/// `numerator / denominator` rounded to `dp` decimals, or zero when the denominator is zero.
pub fn ratio(numerator: Decimal, denominator: Decimal, dp: u32) -> Decimal {
    let mut r = if denominator.is_zero() {
        Decimal::ZERO
    } else {
        (numerator / denominator).round_dp(dp)
    };
    r.rescale(dp);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_exactly_without_floats() {
        let m = Money::parse("0.1", 2).unwrap();
        let n = Money::parse("0.2", 2).unwrap();
        assert_eq!(
            Money::from_micros(m.micros() + n.micros()).render(2),
            "0.30"
        );
        assert_eq!(Money::parse("12.345678", 6).unwrap().micros(), 12_345_678);
    }

    #[test]
    fn refuses_too_many_decimals_and_negatives() {
        assert!(Money::parse("1.234", 2).is_err());
        assert!(Money::parse("1.5", 0).is_err());
        assert!(Money::parse("-1", 2).is_err());
        assert!(Money::parse("abc", 2).is_err());
        assert_eq!(Money::parse("1.500", 2).unwrap().micros(), 1_500_000);
    }

    #[test]
    fn renders_at_currency_scale_and_spent_at_six() {
        let m = Money::from_micros(100_000_000);
        assert_eq!(CabinetType::Euro.render(m), "100.00");
        assert_eq!(CabinetType::Stars.render(m), "100");
        assert_eq!(
            CabinetType::Euro.render(Money::from_micros(99_876_544)),
            "99.876544"
        );
        assert_eq!(Money::from_micros(1_230_000).render6(), "1.230000");
    }

    #[test]
    fn ratio_is_zero_on_zero_denominator() {
        assert_eq!(
            ratio(Decimal::from(3), Decimal::ZERO, 2).to_string(),
            "0.00"
        );
        assert_eq!(
            ratio(Decimal::from(2), Decimal::from(3), 2).to_string(),
            "0.67"
        );
    }
}
