//! Owns reading an id (a cabinet's `account_id`, a campaign's `ad_id`, a task's, a rule's, a
//! group's): a positive integer of at most 63 bits, as the OpenAPI document's `Id` says. What
//! is not one is named by its field, and a number past the range says it is too large, the same
//! way in a path, a query string and a body.

use serde_json::Value;

use super::{ParseError, Why};

/// The largest id: ids are 64-bit signed integers from 1.
pub const MAX: i64 = i64::MAX;

/// Reads `text` as the id `name`.
pub fn parse(name: &str, text: &str) -> Result<i64, ParseError> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    match text.parse::<i64>() {
        Ok(n) if digits && n > 0 => Ok(n),
        Err(_) if digits && text.bytes().any(|b| b != b'0') => Err(too_large(name)),
        _ => Err(
            ParseError::new(name, format!("{name} must be a positive integer.")).because(Why::Kind),
        ),
    }
}

/// Reads a JSON value (a number; never a float or a string) as the id `name`.
pub fn from_json(name: &str, value: &Value) -> Result<i64, ParseError> {
    match value {
        Value::Number(n) => parse(name, &n.to_string()),
        _ => Err(
            ParseError::new(name, format!("{name} must be a positive integer.")).because(Why::Kind),
        ),
    }
}

fn too_large(name: &str) -> ParseError {
    ParseError::new(
        name,
        format!("{name} is too large: ids are positive integers up to {MAX}."),
    )
    .because(Why::Kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_positive_63_bit_integers_and_a_larger_one_says_so() {
        assert_eq!(parse("ad_id", "7"), Ok(7));
        assert_eq!(parse("ad_id", &MAX.to_string()), Ok(MAX));
        for bad in ["0", "000", "-3", "+3", "1.5", "1e3", "", " 7", "x"] {
            let e = parse("ad_id", bad).unwrap_err();
            assert_eq!(e.param, "ad_id", "{bad}");
            assert!(
                e.message.contains("positive integer"),
                "{bad}: {}",
                e.message
            );
        }
        for big in ["9223372036854775808", "99999999999999999999999999999"] {
            let e = parse("id", big).unwrap_err();
            assert!(e.message.contains("too large"), "{big}: {}", e.message);
        }
        let big: Value = serde_json::from_str("18446744073709551616").unwrap();
        assert!(from_json("group_id", &big)
            .unwrap_err()
            .message
            .contains("too large"));
        assert_eq!(from_json("group_id", &serde_json::json!(12)), Ok(12));
        assert!(from_json("group_id", &serde_json::json!(1.0)).is_err());
        assert!(from_json("group_id", &serde_json::json!("12")).is_err());
    }
}
