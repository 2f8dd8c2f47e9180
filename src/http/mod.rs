//! Owns what the two HTTP faces (the API and the web panel) share, so that neither reaches
//! into the other: the state they serve from, one answer's shape, query strings and forms,
//! reading a body in bounded size and time, which listener a request came on, and what a
//! request's life tells its log line and metrics.

mod body;
mod reply;
mod state;

pub use crate::domain::query::Query;
pub use body::{read_body, BodyError};
pub use reply::{EncodeError, Reply};
pub use state::AppState;

use crate::ratelimit::{Budget, RateInfo};

/// A new request id, as every answer carries it in `X-Request-Id`.
pub fn request_id() -> String {
    format!("req_{}", uuid::Uuid::new_v4().simple())
}

/// Which listener a request came in on: the main one, or `[metrics] listen`'s own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    Main,
    Metrics,
}

/// What the request's life found out that its log line and metrics tell: the route pattern
/// (never the raw path, which may carry ids and tokens), the key's id, the rate limit.
pub struct Seen {
    pub route: String,
    pub budget: Option<Budget>,
    pub key_id: Option<i64>,
    pub rate: Option<RateInfo>,
}

impl Default for Seen {
    fn default() -> Self {
        Seen {
            route: "unmatched".into(),
            budget: None,
            key_id: None,
            rate: None,
        }
    }
}
