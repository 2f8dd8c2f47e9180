//! Owns the error of the operations: what each face turns into its own (the API's codes, the
//! panel's pages, the command line's sentences) through one exhaustive match, never showing a
//! store failure's text.

use crate::domain::{ParseError, Why};
use crate::ops::campaigns::Refusal;
use crate::ops::funds::FundsRefusal;
use crate::ops::media::MediaRefusal;
use crate::platform::sim::SimError;
use crate::platform::PlatformError;
use crate::store::StoreError;

/// Why an operation did not happen (or not all of it).
#[derive(Debug)]
pub enum OpsError {
    /// No live campaign of that id in the cabinet.
    NotFound,
    /// No rule of that id.
    RuleNotFound,
    /// A key or a task a person asked for that is not theirs (or not there, or a revoked
    /// key): answered as if there were none.
    NotYours(Owned),
    /// A field of the command is wrong (a flag of the command line, a field of a form or a
    /// body); the error names it.
    Invalid(ParseError),
    /// Refused before the platform was asked.
    Refused(Refusal),
    /// An upload the cabinet's platform does not take (its kind, or its size), refused before
    /// the platform was asked.
    Media(MediaRefusal),
    /// The platform took a top-up but the campaign's budget did not move.
    BudgetUnchanged,
    /// These ids are not live campaigns of the cabinet.
    UnknownAdIds(Vec<i64>),
    /// The cabinet already has `limit` create or copy tasks queued.
    QueueFull {
        limit: u32,
    },
    /// A move of money or a client cabinet refused before the platform was asked.
    Funds(FundsRefusal),
    /// The platform refused, or did not answer.
    Platform(PlatformError),
    Store(StoreError),
    /// Something failed inside the service (a file could not be kept); the detail is for the
    /// log only.
    Internal(String),
}

/// What a person may own and change through [`crate::ops::By`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owned {
    Key,
    Task,
}

impl OpsError {
    /// The field an input error names; no other error names one.
    pub fn param(&self) -> Option<&str> {
        if let OpsError::Invalid(e) = self {
            Some(&e.param)
        } else {
            None
        }
    }
}

/// An input error naming `param`, its reason not typed ([`Why::Other`]).
pub fn bad(param: &str, message: impl Into<String>) -> OpsError {
    OpsError::Invalid(ParseError::new(param, message))
}

/// An input error naming `param`, its reason typed `why`.
pub fn refused(param: &str, message: impl Into<String>, why: Why) -> OpsError {
    OpsError::Invalid(ParseError::new(param, message).because(why))
}

impl From<ParseError> for OpsError {
    fn from(e: ParseError) -> Self {
        OpsError::Invalid(e)
    }
}

impl From<PlatformError> for OpsError {
    fn from(e: PlatformError) -> Self {
        OpsError::Platform(e)
    }
}

impl From<StoreError> for OpsError {
    fn from(e: StoreError) -> Self {
        OpsError::Store(e)
    }
}

impl From<SimError> for OpsError {
    fn from(e: SimError) -> Self {
        match e {
            SimError::NoAccount(_) => bad("account", e.to_string()),
            SimError::NoAd { .. } | SimError::NotInReview { .. } => bad("ad", e.to_string()),
            SimError::Store(e) => OpsError::Store(e),
        }
    }
}
