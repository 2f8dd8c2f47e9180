//! Owns the service's domain values, parsed once at the edge and trusted after: money and
//! currencies, cabinet and campaign enums, promote links, targeting, and the shape of what a
//! platform can do (`capabilities`), which the checks of a client's input read.

/// A value a client sent that does not read: `param` is where it sits in the request
/// (`schedule.days.mon`, `campaigns[2].cpm`), `message` the sentence for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub param: String,
    pub message: String,
}

impl ParseError {
    pub fn new(param: impl Into<String>, message: impl Into<String>) -> ParseError {
        ParseError {
            param: param.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.param, self.message)
    }
}

impl std::error::Error for ParseError {}

/// The choices `names` as a refusal lists them: `a`, `a or b`, `a, b or c` (empty for none).
pub fn either(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

pub mod access;
pub mod ad;
pub mod auto_cpm;
pub mod campaign;
pub mod capabilities;
pub mod conversion;
pub mod countries;
pub mod dates;
pub mod delivery;
pub mod fields;
pub mod id;
pub mod link;
pub mod media;
pub mod money;
pub mod network;
pub mod password;
pub mod query;
pub mod rule;
pub mod schedule;
pub mod stats;
pub mod targeting;
pub mod task;
pub mod time;
pub mod zone;
