//! Owns running blocking work off the async runtime on tokio's blocking pool: a background
//! loop's step, whose panic comes back as [`Panicked`] so the loop can log it and go on, and a
//! request's work, whose panic carries on in the request as if the work had run inline.

/// A panic in blocking work of a background loop, with what it said.
#[derive(Debug)]
pub struct Panicked(pub String);

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Panicked {}

/// Runs blocking work of a background loop on tokio's blocking pool; `Err` carries what a
/// panic there said, so the loop can log it and go on.
pub async fn blocking<T, F>(f: F) -> Result<T, Panicked>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| match e.try_into_panic() {
            Ok(panic) => Panicked(panic_text(panic)),
            Err(e) => Panicked(e.to_string()),
        })
}

/// Runs blocking work of a request on tokio's blocking pool; a panic there carries on in the
/// request, as if the work had run inline (the request answers it `500`).
pub async fn in_request<T, F>(f: F) -> T
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(value) => value,
        Err(e) => match e.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(e) => panic!("blocking work was cancelled: {e}"),
        },
    }
}

/// The message a panic carried.
pub fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}
