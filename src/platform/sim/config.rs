//! Owns `[sim]`, the simulator's section of the configuration: auto review, the words it
//! declines, the seed of its rates and the latency it plays.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    pub auto_review_seconds: u64,
    pub decline_words: Vec<String>,
    pub seed: u64,
    pub latency_ms: u64,
}
