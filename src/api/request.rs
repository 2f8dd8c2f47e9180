//! Owns the ids a request's path names, read as every id is.

use super::error::ApiError;
use crate::domain::id;

/// Parses a path segment (or a query value) holding an `ad_id`.
pub fn ad_id(segment: &str) -> Result<i64, ApiError> {
    Ok(id::parse("ad_id", segment)?)
}
