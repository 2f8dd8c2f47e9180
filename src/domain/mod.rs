//! Owns the service's domain values, parsed once at the edge and trusted after: money and
//! currencies, cabinet and campaign enums, promote links, targeting, and the shape of what a
//! platform can do (`capabilities`), which the checks of a client's input read.

/// A value a client sent that does not read: `param` is where it sits in the request
/// (`schedule.days.mon`, `campaigns[2].cpm`), `message` the API's sentence for the client (in
/// English, exactly as the spec words it), `why` the same reason typed, for a face that words
/// it in the person's language (the panel). A reason not typed yet is [`Why::Other`]: such a
/// face shows `message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub param: String,
    pub message: String,
    pub why: Why,
}

/// Why a value does not read, as a face words it; `message` of the [`ParseError`] stays the
/// API's sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// Left out, empty or blank.
    Required,
    /// Not of the kind the field takes (a string, a list, true or false, an object, an id).
    Kind,
    /// Not a number in the amount grammar.
    NotANumber,
    /// More decimals than the currency keeps.
    Decimals { scale: u32 },
    /// Below zero.
    Negative,
    /// Zero where more than zero is needed.
    NotPositive,
    /// Over the largest amount (`max` units).
    TooLarge { max: i64 },
    /// A text of `min` to `max` characters.
    Length { min: usize, max: usize },
    /// A text over `max` characters (a keyword).
    TooLong { max: usize },
    /// An integer from `min` to `max`.
    Range { min: i64, max: i64 },
    /// Not one of these words.
    NotOneOf { allowed: Vec<String> },
    /// A list of at most `max` entries.
    TooMany { max: usize },
    /// A budget between 0 and the cabinet's minimum (`min` units of `currency`).
    BelowFloor { min: i64, currency: &'static str },
    /// Not a time as the API reads it (ISO 8601 UTC to the minute).
    Time,
    /// A time not in the future.
    Past,
    /// A time more than `days` days ahead.
    TooFar { days: i64 },
    /// An end not after its start, or a maximum under its minimum.
    Order,
    /// Not a channel or bot link, an @username or a site.
    Link,
    /// Not a public @username or short link.
    Username,
    /// Not a code or id of the platform's targeting lists.
    Unknown,
    /// Cities without exactly one country chosen.
    OneCountry,
    /// A field this kind of ad (or this command) does not take.
    NotHere,
    /// An hour not 0-23 (or a day of more hours than it has).
    Hours,
    /// A schedule without any hour.
    NoHours,
    /// A time zone adcab does not know, or one the ad's type does not take.
    Zone,
    /// Media on ads the platform shows without media.
    NoMedia,
    /// Not an email address.
    Email,
    /// Taken already (a group's name, a person's email).
    Taken,
    /// A password under `min` characters.
    PasswordShort { min: usize },
    /// A password over `max` bytes.
    PasswordLong { max: usize },
    /// Anything else: the face shows `message`.
    Other,
}

impl ParseError {
    /// A refusal whose reason is not typed ([`Why::Other`]).
    pub fn new(param: impl Into<String>, message: impl Into<String>) -> ParseError {
        ParseError {
            param: param.into(),
            message: message.into(),
            why: Why::Other,
        }
    }

    /// The same refusal, with its reason typed.
    pub fn because(self, why: Why) -> ParseError {
        ParseError { why, ..self }
    }

    /// `{name} is required.` of the field at `param` named `name`.
    pub fn required(param: impl Into<String>, name: &str) -> ParseError {
        ParseError::new(param, format!("{name} is required.")).because(Why::Required)
    }
}

/// How an amount's refusal reads typed.
impl From<&money::AmountError> for Why {
    fn from(e: &money::AmountError) -> Why {
        match e {
            money::AmountError::Malformed => Why::NotANumber,
            money::AmountError::TooManyDecimals(scale) => Why::Decimals { scale: *scale },
            money::AmountError::Negative => Why::Negative,
            money::AmountError::TooLarge => Why::TooLarge {
                max: money::MAX_UNITS,
            },
        }
    }
}

/// How a password's refusal reads typed.
impl From<password::PasswordError> for Why {
    fn from(e: password::PasswordError) -> Why {
        match e {
            password::PasswordError::TooShort => Why::PasswordShort {
                min: password::MIN_LEN,
            },
            password::PasswordError::TooLong => Why::PasswordLong {
                max: password::MAX_LEN,
            },
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.param, self.message)
    }
}

impl std::error::Error for ParseError {}

/// The words `names`, owned, as [`Why::NotOneOf`] lists them.
pub fn words(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_string()).collect()
}

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
pub mod agency;
pub mod auto_cpm;
pub mod campaign;
pub mod capabilities;
pub mod conversion;
pub mod countries;
pub mod dates;
pub mod delivery;
pub mod fields;
pub mod funds;
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
