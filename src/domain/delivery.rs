//! Owns what a webhook delivery came to: the answer's status, the attempts, the time taken
//! and the error, as the sender reports it and the delivery log keeps it.

/// How a delivery ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub status: Option<u16>,
    pub attempts: u32,
    pub duration_ms: u64,
    pub error: Option<String>,
}

impl Outcome {
    pub fn delivered(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}
