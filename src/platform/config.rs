//! Owns the platform's sections of the configuration: `[platform]` (which platform runs and
//! how long a call for a request may wait) and, through each platform's module, its own
//! section (`[sim]`, `[telegram]`); the configuration file holds them, the factory reads them.

use serde::{Deserialize, Serialize};

pub use super::sim::SimConfig;
pub use super::telegram::TelegramConfig;

/// `[platform]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformConfig {
    pub kind: PlatformKind,
    pub read_timeout_ms: u64,
    /// Longest wait for any other platform call made for a request.
    pub call_timeout_ms: u64,
}

/// Which platform the service talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlatformKind {
    Sim,
    Telegram,
}

/// Every platform's section, as the factory reads them.
#[derive(Debug, Clone, Copy)]
pub struct Sections<'a> {
    pub platform: &'a PlatformConfig,
    pub sim: &'a SimConfig,
    pub telegram: &'a TelegramConfig,
}
