//! Owns how each language writes a number: English groups thousands with commas and uses a
//! decimal point (`1,234.56`); Russian groups with a no-break space and uses a decimal comma
//! (`1 234,56`).

use rust_decimal::{Decimal, RoundingStrategy};

use super::Lang;

impl Lang {
    fn group(self) -> &'static str {
        match self {
            Lang::En => ",",
            Lang::Ru => "\u{a0}",
        }
    }

    fn point(self) -> char {
        match self {
            Lang::En => '.',
            Lang::Ru => ',',
        }
    }

    /// A whole number with its thousands grouped.
    pub fn count(self, n: i64) -> String {
        grouped(&n.to_string(), self.group(), self.point())
    }

    /// A decimal as written (its scale kept), grouped, with the language's decimal mark.
    pub fn decimal(self, d: Decimal) -> String {
        grouped(&d.to_string(), self.group(), self.point())
    }

    /// A decimal to exactly `dp` places (half away from zero), as [`Lang::decimal`] writes it.
    pub fn fixed(self, d: Decimal, dp: u32) -> String {
        let mut d = d.round_dp_with_strategy(dp, RoundingStrategy::MidpointAwayFromZero);
        d.rescale(dp);
        self.decimal(d)
    }
}

/// `-1234567.5` as `-1{group}234{group}567{point}5`: digits before the point are grouped by
/// three.
pub fn grouped(plain: &str, group: &str, point: char) -> String {
    let (sign, unsigned) = match plain.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", plain),
    };
    let (whole, fraction) = match unsigned.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (unsigned, None),
    };
    let mut out = String::with_capacity(plain.len() + whole.len() / 3 * group.len() + 1);
    out.push_str(sign);
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            out.push_str(group);
        }
        out.push(c);
    }
    if let Some(f) = fraction {
        out.push(point);
        out.push_str(f);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_groups_and_marks_its_own_way() {
        assert_eq!(Lang::En.count(0), "0");
        assert_eq!(Lang::En.count(-1234567), "-1,234,567");
        assert_eq!(Lang::Ru.count(1234567), "1\u{a0}234\u{a0}567");
        let d: Decimal = "12345.50".parse().unwrap();
        assert_eq!(Lang::En.decimal(d), "12,345.50");
        assert_eq!(Lang::Ru.decimal(d), "12\u{a0}345,50");
        assert_eq!(Lang::Ru.decimal("-0.5".parse().unwrap()), "-0,5");
    }
}
