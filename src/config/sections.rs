//! Owns the service's own sections of the configuration (`[server]`, `[storage]`,
//! `[webhooks]`, `[limits]`, `[conversions]`, `[demo]`, `[log]`, `[metrics]`, `[backup]`,
//! `[retention]`, `[panel]`, `[notify]`, `[automation]`) as typed values; the platform's sections are the
//! platform's own (`platform::config`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    pub listen: String,
    /// Connections served at once; one more is answered 503 and closed.
    pub max_connections: usize,
    /// A request head must arrive within this time of the connection opening or of its
    /// previous answer, so idle and slow connections close.
    pub header_timeout_ms: u64,
    /// A request body must arrive whole within this time.
    pub body_timeout_ms: u64,
    /// An answer the client does not take within this time closes the connection.
    pub write_timeout_ms: u64,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StorageConfig {
    pub path: PathBuf,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookConfig {
    pub allow_private_targets: bool,
    pub contact_url: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    pub reads_per_minute: u32,
    pub writes_per_minute: u32,
    pub conversions_per_second: u32,
    pub conversions_burst: u32,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConversionsConfig {
    /// Query parameters of a website link whose values are the campaign's refs.
    pub tracker_params: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DemoConfig {
    pub bootstrap: bool,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    pub format: LogFormat,
    /// The lowest level written, or a full filter (`info,adcab=debug`); `RUST_LOG` wins.
    pub level: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// Where `GET /metrics` is served: empty for the main listener, else an address of its own.
    pub listen: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BackupConfig {
    /// Folder of scheduled backups and of the one taken before a migration; empty: no
    /// scheduled backups (the pre-migration one then goes beside the database).
    pub dir: PathBuf,
    pub every_hours: u32,
    /// Scheduled backups kept; older ones are removed.
    pub keep: u32,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RetentionConfig {
    /// Days hourly stats stay hourly before they roll into daily rows (0: forever; else at
    /// least 31, so 7d and 30d stats are always read from whole hours).
    pub hourly_stats_days: u32,
    /// Days webhook deliveries (and outbox events already delivered) are kept; 0: forever.
    pub deliveries_days: u32,
    /// Days campaign status events are kept; 0: forever.
    pub events_days: u32,
    /// Days idempotency records are kept (the spec keeps them at least 24 hours); 0: forever.
    pub idempotency_days: u32,
    /// Days recorded conversions are kept; 0: forever.
    pub conversions_days: u32,
    /// Days automation's records (rule logs, Auto CPM decisions, alerts) are kept; 0: forever,
    /// else at least [`MIN_AUTOMATION_DAYS`].
    pub automation_days: u32,
}

/// The fewest days hourly stats may stay hourly: the 30-day stats window plus its partial day.
pub const MIN_HOURLY_DAYS: u32 = 31;

/// The guards of rules and Auto CPM read a week of their records back.
pub const MIN_AUTOMATION_DAYS: u32 = 8;

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PanelConfig {
    pub enabled: bool,
    /// The origin people open the panel at, when a proxy serves it; empty: the request's Host.
    pub public_url: String,
    pub session_idle_minutes: u32,
    pub session_max_days: u32,
    /// Failed logins allowed in a window (15 minutes) per email and per client address.
    pub login_failures_per_account: u32,
    pub login_failures_per_address: u32,
    /// Proxies whose `X-Forwarded-For` names the client; the connection's address otherwise.
    pub trusted_proxies: Vec<crate::domain::network::Network>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NotifyConfig {
    /// Base URL of the Telegram Bot API, without a trailing slash.
    pub bot_api_url: String,
    /// The bot's token; empty: alerts reach webhooks only.
    pub bot_token: String,
    pub timeout_ms: u64,
    /// A running campaign's budget below this percent of all it was given raises an alert.
    pub budget_below_percent: u32,
    /// The UTC hour whose end brings each person's daily digest; -1: none.
    pub daily_digest_hour: i32,
    /// Alerts about one cabinet sent for one hour at most; the rest are counted in a note.
    pub alerts_per_cabinet_hour: u32,
    /// The service's public address for the bot's webhook; empty: long polling.
    pub public_url: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AutomationConfig {
    /// Minutes a rule's proposal waits for a decision before it expires (1 to 10080).
    pub proposal_expiry_minutes: u32,
}
