//! Owns money: exact decimals (never floats), stored as integer micro-units, rendered as decimal
//! strings at the scale of the cabinet's currency; the one strict grammar every amount is read
//! with (bids, budgets, balances, postback amounts), the bound on any amount, and checked
//! arithmetic. Owns the spec's cabinet types and the currency each is shown in.

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Digits kept for every amount: spend is tracked to 6 decimals.
pub const MONEY_SCALE: u32 = 6;
/// The largest amount accepted or held anywhere: one billion units of a currency. Sums of a
/// few such amounts stay far inside `i64` micro-units.
pub const MAX_UNITS: i64 = 1_000_000_000;
pub const MICROS_PER_UNIT: i64 = 1_000_000;
pub const MAX_MICROS: i64 = MAX_UNITS * MICROS_PER_UNIT;

/// Why a text is not an acceptable amount; `Display` completes the sentence "<field> ...".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AmountError {
    /// Not digits with an optional point and fraction (`+5`, ` 5`, `1_0`, `1e5`, `1.`, `.5`).
    Malformed,
    TooManyDecimals(u32),
    Negative,
    TooLarge,
}

impl std::fmt::Display for AmountError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AmountError::Malformed => f.write_str(
                "must be a decimal number: digits, optionally a point and more digits (no sign, spaces, exponent or separators)",
            ),
            AmountError::TooManyDecimals(scale) => write!(f, "has more than {scale} decimals"),
            AmountError::Negative => f.write_str("must not be negative"),
            AmountError::TooLarge => write!(f, "must be at most {MAX_UNITS}"),
        }
    }
}

/// Reads an amount in the one grammar money enters by: ASCII digits, optionally a point and
/// at least one more digit, and (when `signed`) a leading `-`. Digits past `scale` decimals
/// must be zeros; the size is at most [`MAX_UNITS`]. Returns micro-units, exactly.
pub fn parse_amount(text: &str, scale: u32, signed: bool) -> Result<i64, AmountError> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, fraction) = match digits.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (digits, None),
    };
    let all_digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(whole) || fraction.is_some_and(|f| !all_digits(f)) {
        return Err(AmountError::Malformed);
    }
    let fraction = fraction.unwrap_or("");
    let kept = scale.min(MONEY_SCALE) as usize;
    if fraction.bytes().skip(kept).any(|b| b != b'0') {
        return Err(AmountError::TooManyDecimals(scale));
    }
    if negative && !signed {
        return Err(AmountError::Negative);
    }
    let whole = whole.trim_start_matches('0');
    if whole.len() > 10 {
        return Err(AmountError::TooLarge);
    }
    let units: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| AmountError::Malformed)?
    };
    let micros_text: String = fraction
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(MONEY_SCALE as usize)
        .map(char::from)
        .collect();
    let micros = units
        .checked_mul(MICROS_PER_UNIT)
        .and_then(|m| m.checked_add(micros_text.parse::<i64>().ok()?))
        .filter(|m| *m <= MAX_MICROS)
        .ok_or(AmountError::TooLarge)?;
    Ok(if negative { -micros } else { micros })
}

/// An amount in micro-units; serialised as that integer (task payloads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Money(i64);

impl Money {
    pub const ZERO: Money = Money(0);

    pub const fn from_micros(micros: i64) -> Money {
        Money(micros)
    }

    pub fn micros(self) -> i64 {
        self.0
    }

    pub fn to_decimal(self) -> Decimal {
        Decimal::new(self.0, MONEY_SCALE)
    }

    /// Reads a non-negative amount with at most `scale` decimals ([`parse_amount`]).
    pub fn parse(text: &str, scale: u32) -> Result<Money, AmountError> {
        parse_amount(text, scale, false).map(Money)
    }

    /// Whole units as money; `None` beyond [`MAX_UNITS`] or below zero.
    pub fn from_units(units: i64) -> Option<Money> {
        (0..=MAX_UNITS)
            .contains(&units)
            .then(|| Money(units * MICROS_PER_UNIT))
    }

    /// A decimal amount, truncated to micro-units; `None` past the range.
    pub fn from_decimal(d: Decimal) -> Option<Money> {
        d.checked_mul(Decimal::from(1_000_000))?
            .trunc()
            .to_i64()
            .map(Money)
    }

    /// `self + other`; `None` past [`MAX_MICROS`] (never wraps).
    pub fn checked_add(self, other: Money) -> Option<Money> {
        self.0
            .checked_add(other.0)
            .filter(|m| *m <= MAX_MICROS)
            .map(Money)
    }

    /// `self - other`; `None` below zero.
    pub fn checked_sub(self, other: Money) -> Option<Money> {
        self.0.checked_sub(other.0).filter(|m| *m >= 0).map(Money)
    }

    /// Renders at least `min_scale` decimals and at most six, trailing zeros beyond `min_scale` cut.
    pub fn render(self, min_scale: u32) -> String {
        decimal_text(self.0.into(), MONEY_SCALE, min_scale)
    }

    /// Renders exactly six decimals, as `spent` is shown.
    pub fn render6(self) -> String {
        decimal_text(self.0.into(), MONEY_SCALE, MONEY_SCALE)
    }
}

/// A cabinet's type as the spec names it on the wire (`euro`, `ton`, `stars`), with the currency
/// its money is shown in and the decimals it is written with. Which types a platform has, and
/// its facts about each (its code of the currency, the default budget floor, the lowest bids),
/// are the platform's capabilities. [`CabinetType::parse`] is the only check of a stored or
/// sent type: the `cabinets` table takes any text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
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

    /// [`CabinetType::currency`] as the code rates are kept under.
    pub fn currency_code(self) -> crate::domain::agency::CurrencyCode {
        crate::domain::agency::CurrencyCode::parse(self.currency())
            .expect("a cabinet's currency is a code")
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
    if let Some(q) = quotient(numerator, denominator, dp) {
        return Decimal::from_i128_with_scale(q, dp);
    }
    let mut r = if denominator.is_zero() {
        Decimal::ZERO
    } else {
        (numerator / denominator).round_dp(dp)
    };
    r.rescale(dp);
    r
}

/// [`ratio`] as its text (`"0.67"`), as [`fixed_text`] writes it: the exact quotient's digits
/// when [`quotient`] has it.
pub fn ratio_text(numerator: Decimal, denominator: Decimal, dp: u32) -> String {
    match quotient(numerator, denominator, dp) {
        Some(q) => decimal_text(q, dp, dp),
        None => fixed_text(ratio(numerator, denominator, dp), dp),
    }
}

/// Beyond this, a quotient read through `Decimal` (about 28 significant digits) could round
/// onto a midpoint that the exact one is not on; below it both round alike.
const EXACT_BELOW: i128 = 1_000_000_000_000_000_000_000_000;

/// [`ratio`]'s value in units of `10^-dp`, computed exactly in integers and rounded half to
/// even as `Decimal::round_dp` rounds: the same value, without a 96-bit division. `None`
/// (the caller divides as `Decimal`s) for a negative operand, for `dp` past 18, or when the
/// scaled numerator reaches [`EXACT_BELOW`].
fn quotient(numerator: Decimal, denominator: Decimal, dp: u32) -> Option<i128> {
    if numerator.is_sign_negative() || denominator.is_sign_negative() || dp > 18 {
        return None;
    }
    if denominator.is_zero() {
        return Some(0);
    }
    // numerator / denominator * 10^dp = (n * 10^(sd + dp)) / (d * 10^sn)
    let ten = |e: u32| 10_i128.checked_pow(e);
    let n = numerator
        .mantissa()
        .checked_mul(ten(denominator.scale() + dp)?)?;
    let d = denominator
        .mantissa()
        .checked_mul(ten(numerator.scale())?)?;
    if n >= EXACT_BELOW {
        return None;
    }
    // 128-bit division is slow; a list's ratios fit in 64 bits.
    let (q, r) = match (u64::try_from(n), u64::try_from(d)) {
        (Ok(n), Ok(d)) => (i128::from(n / d), i128::from(n % d)),
        _ => (n / d, n % d),
    };
    let up = match (2 * r).cmp(&d) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Equal => q % 2 == 1,
        std::cmp::Ordering::Less => false,
    };
    Some(q + i128::from(up))
}

/// `value * 10^-scale` written out: a `-` when negative, the whole part, then the decimals,
/// trailing zeros cut down to `min_scale` (and zeros added up to it), no point without any.
/// Written from the digits in one buffer: a list page writes thousands.
pub fn decimal_text(value: i128, scale: u32, min_scale: u32) -> String {
    let (scale, min) = (scale as usize, min_scale as usize);
    // The digits, least significant first, at least one more than the decimals; in 64 bits
    // once the value fits (128-bit division is the slow part).
    let mut digits = [0_u8; 80];
    let mut wide = value.unsigned_abs();
    let mut len = 0;
    while wide > u128::from(u64::MAX) {
        digits[len] = b'0' + u8::try_from(wide % 10).expect("a digit");
        wide /= 10;
        len += 1;
    }
    let mut rest = u64::try_from(wide).expect("fits after the loop");
    while (rest > 0 || len <= scale) && len < digits.len() {
        digits[len] = b'0' + u8::try_from(rest % 10).expect("a digit");
        rest /= 10;
        len += 1;
    }
    let cut = digits[..scale].iter().take_while(|d| **d == b'0').count();
    let kept = (scale - cut).max(min.min(scale));
    let mut text = Vec::with_capacity(len + min + 2);
    if value < 0 {
        text.push(b'-');
    }
    text.extend(digits[scale..len].iter().rev());
    if kept > 0 || min > 0 {
        text.push(b'.');
        text.extend(digits[scale - kept..scale].iter().rev());
        text.resize(text.len() + min.saturating_sub(kept), b'0');
    }
    String::from_utf8(text).expect("a sign, digits and a point")
}

/// A decimal written with exactly `dp` decimals (rounded half to even, as `round_dp`), as
/// `Decimal`'s own text would be after `rescale(dp)`.
pub fn fixed_text(d: Decimal, dp: u32) -> String {
    let mut d = d.round_dp(dp);
    d.rescale(dp);
    if d.is_zero() && d.is_sign_negative() {
        return d.to_string();
    }
    decimal_text(d.mantissa(), d.scale(), d.scale())
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
        assert_eq!(
            Money::parse("1.234", 2),
            Err(AmountError::TooManyDecimals(2))
        );
        assert!(Money::parse("1.5", 0).is_err());
        assert_eq!(Money::parse("-1", 2), Err(AmountError::Negative));
        assert_eq!(Money::parse("abc", 2), Err(AmountError::Malformed));
        assert_eq!(Money::parse("1.500", 2).unwrap().micros(), 1_500_000);
        assert_eq!(Money::parse("007", 0).unwrap().micros(), 7_000_000);
    }

    #[test]
    fn one_strict_grammar_for_every_amount() {
        for bad in [
            "1_0", "1e5", "1E5", "+5", " 5", "5 ", "1.", ".5", "", "-", "1.2.3", "0x10", "١٢",
            "1,5", "--1", "NaN", "inf",
        ] {
            assert_eq!(
                parse_amount(bad, 6, true),
                Err(AmountError::Malformed),
                "{bad:?}"
            );
        }
        assert_eq!(parse_amount("-0.000001", 6, true), Ok(-1));
        assert_eq!(parse_amount("12.5", 6, true), Ok(12_500_000));
        assert_eq!(
            parse_amount("9223372036854.775807", 6, true),
            Err(AmountError::TooLarge),
            "exactly read, then bounded"
        );
        assert_eq!(parse_amount("1000000000", 6, false), Ok(MAX_MICROS));
        assert_eq!(
            parse_amount("1000000000.000001", 6, false),
            Err(AmountError::TooLarge)
        );
        assert_eq!(
            parse_amount("-1000000000.5", 6, true),
            Err(AmountError::TooLarge)
        );
        assert_eq!(
            parse_amount(&"9".repeat(400), 6, false),
            Err(AmountError::TooLarge)
        );
        assert_eq!(
            parse_amount(&format!("0.{}", "0".repeat(300)), 2, false),
            Ok(0)
        );
    }

    #[test]
    fn arithmetic_is_checked_against_the_bound() {
        let max = Money::from_micros(MAX_MICROS);
        assert_eq!(max.checked_add(Money::from_micros(1)), None);
        assert_eq!(
            Money::from_micros(i64::MAX).checked_add(Money::from_micros(1)),
            None
        );
        assert_eq!(Money::ZERO.checked_sub(Money::from_micros(1)), None);
        assert_eq!(
            Money::from_micros(5).checked_sub(Money::from_micros(2)),
            Some(Money::from_micros(3))
        );
        assert_eq!(Money::from_units(MAX_UNITS), Some(max));
        assert_eq!(Money::from_units(MAX_UNITS + 1), None);
        assert_eq!(Money::from_units(i64::MAX), None);
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

    /// The integer paths write what `Decimal` writes: every amount's text at each scale, and
    /// every ratio, over a spread of values (round and midpoint ones among them).
    #[test]
    fn integer_texts_equal_decimal_texts() {
        let mut seed: u64 = 11;
        let mut next = move |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let mut values: Vec<i64> = vec![0, 1, 5, 10, 15, 25, 999_999, 1_000_000, MAX_MICROS];
        for _ in 0..4000 {
            let digits = 10_u64.pow(u32::try_from(next(13)).unwrap() + 1);
            values
                .push(i64::try_from(next(digits)).unwrap() * [1, 10, 500, 1000][next(4) as usize]);
        }
        for &micros in &values {
            let m = Money::from_micros(micros);
            for scale in [0, 2, 6, 8] {
                let mut d = m.to_decimal().normalize();
                if d.scale() < scale {
                    d.rescale(scale);
                }
                assert_eq!(m.render(scale), d.to_string(), "{micros} at {scale}");
            }
            assert_eq!(m.render6(), m.to_decimal().to_string());
            assert_eq!(
                Money::from_micros(-micros).render6(),
                Money::from_micros(-micros).to_decimal().to_string()
            );
        }
        for pair in values.windows(2) {
            for (numerator, denominator) in [
                (
                    Money::from_micros(pair[0]).to_decimal(),
                    Decimal::from(pair[1] % 100_000),
                ),
                (
                    Decimal::from(pair[0] % 1_000_000) * Decimal::from(100),
                    Decimal::from(pair[1] % 1_000_000),
                ),
                (
                    Decimal::from(pair[0]),
                    Decimal::from(pair[0] % 7 + 1) * Decimal::from(2),
                ),
            ] {
                for dp in [2, 4, 6] {
                    let slow = if denominator.is_zero() {
                        Decimal::new(0, dp)
                    } else {
                        let mut r = (numerator / denominator).round_dp(dp);
                        r.rescale(dp);
                        r
                    };
                    assert_eq!(ratio(numerator, denominator, dp), slow);
                    assert_eq!(
                        ratio_text(numerator, denominator, dp),
                        slow.to_string(),
                        "{numerator} / {denominator} at {dp}"
                    );
                }
            }
        }
        for &micros in &values {
            for dp in [2, 6] {
                for d in [
                    Decimal::new(micros, 6),
                    Decimal::new(-micros, 6),
                    Decimal::new(micros, 9),
                ] {
                    let mut slow = d.round_dp(dp);
                    slow.rescale(dp);
                    assert_eq!(fixed_text(d, dp), slow.to_string(), "{d} at {dp}");
                }
            }
        }
        let wide = Decimal::from_i128_with_scale(123_456_789_012_345_678_901_234_567, 6);
        assert_eq!(fixed_text(wide, 6), wide.to_string());
        assert_eq!(fixed_text(-wide, 2), (-wide).round_dp(2).to_string());
        assert_eq!(ratio_text(Decimal::from(5), Decimal::from(2), 0), "2");
        assert_eq!(ratio_text(Decimal::from(7), Decimal::from(2), 0), "4");
        assert_eq!(ratio_text(Decimal::new(-5, 1), Decimal::ONE, 2), "-0.50");
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
