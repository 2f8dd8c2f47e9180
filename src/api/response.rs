//! Owns the API's failure envelope as an answer: its status, its body and the headers an
//! error carries (`Retry-After`, `Allow`).

use bytes::Bytes;

use super::error::ApiError;
use crate::http::Reply;

/// The answer for `e`, carrying `request_id`.
pub fn error(e: &ApiError, request_id: &str) -> Reply {
    let mut headers: Vec<(String, String)> = Vec::new();
    match e {
        ApiError::RateLimited { retry_after } => {
            headers.push(("retry-after".into(), retry_after.to_string()))
        }
        ApiError::QueueFull { .. }
        | ApiError::IdempotencyUnavailable
        | ApiError::PlatformUnavailable { .. }
        | ApiError::Busy => headers.push(("retry-after".into(), "2".into())),
        ApiError::StorageFull => headers.push(("retry-after".into(), "60".into())),
        ApiError::MethodNotAllowed { allow } => headers.push(("allow".into(), allow.clone())),
        _ => {}
    }
    Reply {
        status: e.status(),
        body: Bytes::from(e.body(request_id).to_string()),
        headers,
    }
}
