//! Owns the awkward values the generators put where they do not belong: edge numbers,
//! near-miss strings, words of the API out of place, junk text.

use super::world::{Rng, World};
use serde_json::{json, Value};

/// JSON numbers at the edges: signs, exponents, past `i64`, past `f64`, more decimals
/// than money has.
pub(super) const ODD_NUMBERS: [&str; 20] = [
    "0",
    "-0",
    "1",
    "-1",
    "2.5",
    "4",
    "1e5",
    "1E400",
    "1e-400",
    "-1e400",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "9223372036854775807999",
    "9223372036854.775807",
    "0.0000001",
    "123456789012345678901234567890.5",
    "18446744073709551616",
    "500",
    "100000000000000",
];

/// Strings that look like amounts or ids but are not, or only nearly.
pub(super) const ODD_STRINGS: [&str; 24] = [
    "1e5",
    "1_0",
    " 5",
    "+5",
    "é€",
    "-0",
    "9223372036854.775807",
    "9223372036854775807999",
    "",
    "0",
    "1.0000001",
    "5 ",
    "0x10",
    "1,5",
    "١٢",
    "NaN",
    "Infinity",
    "-1",
    "2.50",
    "500",
    "0.000001",
    "10.",
    ".5",
    "1e-7",
];

/// Words valid somewhere in the API, to put where they are not.
const ENUM_WORDS: [&str; 24] = [
    "channels",
    "bots",
    "search",
    "users",
    "add",
    "withdraw",
    "withdraw_all",
    "pause",
    "resume",
    "set_cpm",
    "set_schedule",
    "delete",
    "viewer",
    "+05:45",
    "UTC+3",
    "-12:00",
    "lead",
    "purchase",
    "#ff0000",
    "subscribe",
    "mon",
    "https://t.me/alpha_chan",
    "@tech_daily",
    "https://shop.example.com/x",
];

/// Characters for junk text: separators, quotes, escapes, controls, non-ASCII.
const TEXT_CHARS: [char; 34] = [
    'a', 'Z', '0', '9', ' ', '-', '_', '.', '%', '&', '=', '+', '/', '?', '#', '"', '\'', '\\',
    'é', '€', '😀', '\u{0}', '\u{7f}', '\u{202e}', '<', '>', ';', ',', ':', '@', '*', '\n', '\t',
    '\u{fffd}',
];

/// A short random text over awkward characters.
pub(super) fn junk_text(rng: &mut Rng, max: usize) -> String {
    let n = rng.below(max + 1);
    (0..n).map(|_| rng.pick(&TEXT_CHARS)).collect()
}

/// A JSON value chosen to break the field it lands in.
pub(super) fn odd_value(rng: &mut Rng, w: &World, depth: usize) -> Value {
    match rng.below(11) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 | 3 => serde_json::from_str(rng.pick(&ODD_NUMBERS)).expect("a JSON number"),
        4 | 5 => json!(rng.pick(&ODD_STRINGS)),
        6 => json!(junk_text(rng, 40)),
        7 if depth < 3 => Value::Array(
            (0..rng.below(4))
                .map(|_| odd_value(rng, w, depth + 1))
                .collect(),
        ),
        8 if depth < 3 => json!({ "x": odd_value(rng, w, depth + 1) }),
        9 => json!(rng.pick(&ENUM_WORDS)),
        _ => json!(rng.pick(&[
            w.accounts[0],
            w.accounts[1],
            w.ads[0],
            w.ads[2],
            w.group,
            w.task
        ])),
    }
}
