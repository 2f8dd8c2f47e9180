//! Owns `[telegram]`, the connector's section of the configuration: where the Telegram Ads
//! API is, the deadline of one call and the pace of calls per token.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TelegramConfig {
    /// Base URL of the Telegram Ads API, without a trailing slash.
    pub api_url: String,
    pub timeout_ms: u64,
    /// Calls per second made with one token, at most.
    pub calls_per_second: u32,
}
