//! Owns reading a request body whole: at most a given size, within a given time.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper::body::Incoming;

/// Why a body was not read.
#[derive(Debug)]
pub enum BodyError {
    /// It is larger than the limit.
    TooLarge,
    /// It did not arrive within the deadline.
    Timeout,
    /// It could not be read (a broken chunk); the text says how.
    Unreadable(String),
}

/// Reads a whole body of at most `limit` bytes within `deadline`.
pub async fn read_body(
    body: Incoming,
    limit: usize,
    deadline: Duration,
) -> Result<Bytes, BodyError> {
    match tokio::time::timeout(deadline, Limited::new(body, limit).collect()).await {
        Err(_) => Err(BodyError::Timeout),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(BodyError::TooLarge),
        Ok(Err(e)) => Err(BodyError::Unreadable(format!(
            "the body could not be read ({e})"
        ))),
    }
}
