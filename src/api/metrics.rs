//! Owns `GET /metrics`: the service's metrics in the Prometheus (OpenMetrics) text format,
//! without a key, on the main listener or on `[metrics] listen`'s own.

use super::error::ApiError;
use crate::http::{AppState, Reply};
use crate::jobs::scheduler;

/// The content type of the text the encoder writes.
const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

pub async fn answer(state: &AppState) -> Result<Reply, ApiError> {
    let metrics = state.services.metrics.clone();
    let text = state
        .services
        .db
        .read(move |c| metrics.render(c, scheduler::lag_seconds(c)?))
        .await?;
    Ok(Reply::raw(text, CONTENT_TYPE))
}
