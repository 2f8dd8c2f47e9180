//! Owns the service configuration: the compiled-in defaults (`config.example.toml`), the file
//! layered over them, and environment overrides. Unknown keys and wrong values are refused
//! here, by file, key and line; relative paths in a file are read from the file's folder.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The fully commented default configuration, the same text as `config.example.toml`.
pub const DEFAULT_CONFIG: &str = include_str!("../config.example.toml");

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub server: ServerConfig,
    pub storage: StorageConfig,
    pub platform: PlatformConfig,
    pub sim: SimConfig,
    pub telegram: TelegramConfig,
    pub webhooks: WebhookConfig,
    pub limits: LimitsConfig,
    pub conversions: ConversionsConfig,
    pub demo: DemoConfig,
    pub log: LogConfig,
    pub metrics: MetricsConfig,
    pub backup: BackupConfig,
    pub retention: RetentionConfig,
    pub panel: PanelConfig,
    pub notify: NotifyConfig,
}

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
pub struct PlatformConfig {
    pub kind: PlatformKind,
    pub read_timeout_ms: u64,
    /// Longest wait for any other platform call made for a request.
    pub call_timeout_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlatformKind {
    Sim,
    Telegram,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TelegramConfig {
    /// Base URL of the Telegram Ads API, without a trailing slash.
    pub api_url: String,
    pub timeout_ms: u64,
    /// Calls per second made with one token, at most.
    pub calls_per_second: u32,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    pub auto_review_seconds: u64,
    pub decline_words: Vec<String>,
    pub seed: u64,
    pub latency_ms: u64,
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
}

impl Default for Config {
    fn default() -> Self {
        Config::from_toml_str("").expect("the compiled-in default configuration is valid")
    }
}

impl Config {
    /// Loads the configuration: an explicit file must exist; without one, `./adcab.toml` is read
    /// when present, else the defaults stand. A relative `storage.path` in a file is read from
    /// the file's folder. Environment overrides apply last.
    pub fn load(explicit: Option<&Path>) -> Result<Config, String> {
        let default_file = Path::new("adcab.toml");
        let (file, text) = match explicit {
            Some(path) => (
                Some(path),
                std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read the config file {}: {e}", path.display()))?,
            ),
            None => match std::fs::read_to_string(default_file) {
                Ok(text) => (Some(default_file), text),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, String::new()),
                Err(e) => return Err(format!("cannot read the config file ./adcab.toml: {e}")),
            },
        };
        let var = |name: &str| std::env::var(name).ok();
        let mut config = Config::from_sources(&text, var).map_err(|e| {
            format!(
                "config file {}: {e}",
                file.unwrap_or(default_file).display()
            )
        })?;
        if let Some(file) = file {
            config.resolve_paths(file, var(STORAGE_PATH_ENV).is_none());
        }
        Ok(config)
    }

    /// Parses `text` layered over the compiled-in defaults. An error names the key and its
    /// line in `text`.
    pub fn from_toml_str(text: &str) -> Result<Config, String> {
        Config::from_sources(text, |_| None)
    }

    /// Parses `text` over the compiled-in defaults, then the environment over both: every key
    /// can be set as `ADCAB_<SECTION>_<KEY>` (`ADCAB_SERVER_LISTEN`,
    /// `ADCAB_TELEGRAM_TIMEOUT_MS`). A value is read as TOML (`true`, `8080`, `["a", "b"]`);
    /// for a text key it is the text as given.
    pub fn from_sources(
        text: &str,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, String> {
        let mut merged: toml::Table = DEFAULT_CONFIG
            .parse()
            .map_err(|e| format!("built-in config: {e}"))?;
        let overlay: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| format!("{}", e).trim_end().to_string())?;
        if let Some(path) = unknown_key(&merged, &overlay, "") {
            return Err(format!("{}unknown key `{path}`", at_line(text, &path)));
        }
        merge(&mut merged, overlay);
        let from_env = env_overlay(&merged, var)?;
        merge(&mut merged, from_env);
        let config: Config =
            serde_path_to_error::deserialize(toml::Value::Table(merged)).map_err(|e| {
                let path = e.path().to_string();
                format!("{}`{path}`: {}", at_line(text, &path), e.inner().message())
            })?;
        config
            .check()
            .map_err(|(path, why)| format!("{}`{path}`: {why}", at_line(text, path)))?;
        Ok(config)
    }

    /// Rules across values that types alone do not carry: the key that breaks one, and why.
    fn check(&self) -> Result<(), (&'static str, String)> {
        let hourly = self.retention.hourly_stats_days;
        if hourly != 0 && hourly < MIN_HOURLY_DAYS {
            return Err((
                "retention.hourly_stats_days",
                format!(
                    "must be 0 (forever) or at least {MIN_HOURLY_DAYS}, so 30-day stats stay exact"
                ),
            ));
        }
        if !(-1..=23).contains(&self.notify.daily_digest_hour) {
            return Err((
                "notify.daily_digest_hour",
                "must be an hour from 0 to 23, or -1 for none".into(),
            ));
        }
        if self.notify.alerts_per_cabinet_hour == 0 {
            return Err((
                "notify.alerts_per_cabinet_hour",
                "must be at least 1".into(),
            ));
        }
        let automation = self.retention.automation_days;
        if automation != 0 && automation < MIN_AUTOMATION_DAYS {
            return Err((
                "retention.automation_days",
                format!(
                    "must be 0 (forever) or at least {MIN_AUTOMATION_DAYS}: the guards read a week back"
                ),
            ));
        }
        if !self.backup.dir.as_os_str().is_empty() && self.backup.every_hours == 0 {
            return Err((
                "backup.every_hours",
                "must be at least 1 when backup.dir is set".into(),
            ));
        }
        let public = &self.panel.public_url;
        if !(public.is_empty() || public.starts_with("https://") || public.starts_with("http://")) {
            return Err((
                "panel.public_url",
                "must be empty or start with https:// (or http://)".into(),
            ));
        }
        if self.panel.session_idle_minutes == 0 || self.panel.session_max_days == 0 {
            return Err((
                "panel.session_idle_minutes",
                "session_idle_minutes and session_max_days must be at least 1".into(),
            ));
        }
        if self.backup.keep == 0 {
            return Err(("backup.keep", "must be at least 1".into()));
        }
        if !self.metrics.listen.is_empty()
            && self.metrics.listen.parse::<std::net::SocketAddr>().is_err()
        {
            return Err((
                "metrics.listen",
                format!(
                    "{:?} is not an address such as 127.0.0.1:9464",
                    self.metrics.listen
                ),
            ));
        }
        Ok(())
    }

    /// Reads a relative `storage.path` (unless it came from the environment) and `backup.dir`
    /// from the folder of the config file they came from.
    fn resolve_paths(&mut self, file: &Path, storage: bool) {
        let folder = file.parent().unwrap_or(Path::new(""));
        if storage && self.storage.path.is_relative() {
            self.storage.path = folder.join(&self.storage.path);
        }
        let backup = &mut self.backup.dir;
        if !backup.as_os_str().is_empty() && backup.is_relative() {
            *backup = folder.join(&*backup);
        }
    }
}

impl Config {
    /// Where backups go: `[backup] dir`, or the database's folder when it is empty.
    pub fn backup_folder(&self) -> PathBuf {
        if self.backup.dir.as_os_str().is_empty() {
            self.storage
                .path
                .parent()
                .unwrap_or(Path::new("."))
                .to_path_buf()
        } else {
            self.backup.dir.clone()
        }
    }

    /// The effective configuration as JSON, every value whose key names a secret (token,
    /// secret, password) masked.
    pub fn shown(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(self).expect("the configuration serializes");
        mask(&mut value, "");
        value
    }
}

fn mask(value: &mut serde_json::Value, key: &str) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                mask(v, k);
            }
        }
        serde_json::Value::String(text)
            if !text.is_empty()
                && ["token", "secret", "password"]
                    .iter()
                    .any(|s| key.contains(s)) =>
        {
            *text = "********".into();
        }
        _ => {}
    }
}

/// The fewest days hourly stats may stay hourly: the 30-day stats window plus its partial day.
pub const MIN_HOURLY_DAYS: u32 = 31;

/// The variable that sets `storage.path`; a relative path in it is read from the working
/// directory, not from the config file's folder.
const STORAGE_PATH_ENV: &str = "ADCAB_STORAGE_PATH";

/// The keys of `defaults` set in the environment, as a table to merge over the file's.
fn env_overlay(
    defaults: &toml::Table,
    var: impl Fn(&str) -> Option<String>,
) -> Result<toml::Table, String> {
    let mut overlay = toml::Table::new();
    for (section, keys) in defaults {
        let Some(keys) = keys.as_table() else {
            continue;
        };
        for (key, default) in keys {
            let name = format!(
                "ADCAB_{}_{}",
                section.to_ascii_uppercase(),
                key.to_ascii_uppercase()
            );
            let Some(raw) = var(&name) else { continue };
            let value = match default {
                toml::Value::String(_) => toml::Value::String(raw),
                _ => format!("v = {raw}")
                    .parse::<toml::Table>()
                    .ok()
                    .and_then(|mut t| t.remove("v"))
                    .ok_or_else(|| format!("{name}: {raw:?} is not a TOML value"))?,
            };
            overlay
                .entry(section.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
                .as_table_mut()
                .expect("a section is a table")
                .insert(key.clone(), value);
        }
    }
    Ok(overlay)
}

/// The first key of `overlay` (as a dotted path) that the defaults do not have: every known
/// key has a default, so anything else is unknown.
fn unknown_key(defaults: &toml::Table, overlay: &toml::Table, prefix: &str) -> Option<String> {
    overlay.iter().find_map(|(key, value)| {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match (defaults.get(key), value) {
            (None, _) => Some(path),
            (Some(toml::Value::Table(inner)), toml::Value::Table(top)) => {
                unknown_key(inner, top, &path)
            }
            _ => None,
        }
    })
}

/// "line N: " for the line of `text` that sets the dotted `path` (a `[section]` header or a
/// `key =` under it), or nothing when it cannot be found.
fn at_line(text: &str, path: &str) -> String {
    let (section, key) = path.split_once('.').unwrap_or((path, ""));
    let mut current = String::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = header.trim().to_string();
            if key.is_empty() && current == section {
                return format!("line {}: ", n + 1);
            }
            continue;
        }
        let name = line.split('=').next().unwrap_or("").trim();
        if !key.is_empty() && current == section && name == key {
            return format!("line {}: ", n + 1);
        }
    }
    String::new()
}

/// Overlays `top` on `base`, table by table, so a file names only the keys it changes.
fn merge(base: &mut toml::Table, top: toml::Table) {
    for (key, value) in top {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(inner)), toml::Value::Table(top_inner)) => {
                merge(inner, top_inner)
            }
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_operator_document() {
        let c = Config::default();
        assert_eq!(c.server.listen, "127.0.0.1:8080");
        assert_eq!(c.storage.path, PathBuf::from("adcab-data/adcab.db"));
        assert_eq!(c.platform.kind, PlatformKind::Sim);
        assert_eq!(c.sim.auto_review_seconds, 60);
        assert_eq!(c.sim.decline_words, vec!["casino".to_string()]);
        assert!(!c.webhooks.allow_private_targets);
        assert_eq!(c.limits.reads_per_minute, 60);
        assert_eq!(c.limits.writes_per_minute, 30);
        assert_eq!(c.limits.conversions_per_second, 20);
        assert_eq!(c.limits.conversions_burst, 1000);
        assert!(c.demo.bootstrap);
    }

    #[test]
    fn a_file_overrides_only_the_keys_it_names() {
        let c = Config::from_toml_str("[limits]\nreads_per_minute = 5\n").unwrap();
        assert_eq!(c.limits.reads_per_minute, 5);
        assert_eq!(c.limits.writes_per_minute, 30);
    }

    #[test]
    fn unknown_keys_are_refused_by_name_and_line() {
        let err = Config::from_toml_str("[limits]\nreads_per_hour = 5\n").unwrap_err();
        assert_eq!(err, "line 2: unknown key `limits.reads_per_hour`");
        let err = Config::from_toml_str("# x\n[nonsense]\n").unwrap_err();
        assert_eq!(err, "line 2: unknown key `nonsense`");
    }

    #[test]
    fn wrong_values_and_bad_syntax_name_the_line() {
        let err = Config::from_toml_str(
            "[server]\nlisten = \"x\"\n\n[limits]\nreads_per_minute = \"many\"\n",
        )
        .unwrap_err();
        assert!(
            err.starts_with("line 5: `limits.reads_per_minute`: invalid type"),
            "{err}"
        );
        let err = Config::from_toml_str("[server]\nlisten = \n").unwrap_err();
        assert!(err.contains("line 2"), "{err}");
    }

    #[test]
    fn automation_values_outside_their_range_are_refused_by_key() {
        let err = Config::from_toml_str("[notify]\ndaily_digest_hour = 24\n").unwrap_err();
        assert!(err.contains("notify.daily_digest_hour"), "{err}");
        let err = Config::from_toml_str("[retention]\nautomation_days = 3\n").unwrap_err();
        assert!(err.contains("retention.automation_days"), "{err}");
        let ok = Config::from_toml_str(
            "[notify]\ndaily_digest_hour = 0\n[retention]\nautomation_days = 0\n",
        );
        assert_eq!(
            ok.map(|c| (c.notify.daily_digest_hour, c.retention.automation_days)),
            Ok((0, 0))
        );
    }

    #[test]
    fn a_relative_storage_path_is_read_from_the_config_files_folder() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("adcab.toml");
        std::fs::write(&file, "[storage]\npath = \"data/a.db\"\n").unwrap();
        let c = Config::load(Some(&file)).unwrap();
        assert_eq!(c.storage.path, dir.path().join("data/a.db"));
        std::fs::write(&file, "[storage]\npath = \"/srv/a.db\"\n").unwrap();
        assert_eq!(
            Config::load(Some(&file)).unwrap().storage.path,
            PathBuf::from("/srv/a.db")
        );
        let missing = dir.path().join("nope.toml");
        let err = Config::load(Some(&missing)).unwrap_err();
        assert!(
            err.contains("cannot read the config file") && err.contains("nope.toml"),
            "{err}"
        );
    }

    #[test]
    fn the_packaged_production_config_is_valid_and_safe() {
        let text = include_str!("../packaging/adcab.toml");
        let c = Config::from_toml_str(text).unwrap();
        assert!(
            c.storage.path.starts_with("/var/lib/adcab"),
            "{:?}",
            c.storage.path
        );
        assert!(!c.demo.bootstrap);
        assert!(!c.webhooks.allow_private_targets);
        assert_eq!(c.log.format, LogFormat::Json, "journald takes JSON lines");
        assert!(
            c.metrics.listen.starts_with("127.0.0.1:"),
            "metrics stay local"
        );
        let unit = include_str!("../packaging/adcab.service");
        assert!(unit.contains("--config /etc/adcab/adcab.toml"));
        for line in [
            "LimitNOFILE=",
            "Type=notify",
            "WatchdogSec=",
            "ProtectProc=invisible",
            "ProcSubset=pid",
            "RemoveIPC=yes",
        ] {
            assert!(unit.contains(line), "the unit has {line}");
        }
    }

    #[test]
    fn shown_configuration_masks_secrets_and_keeps_the_rest() {
        let c = Config::default();
        let shown = c.shown();
        assert_eq!(shown["server"]["listen"], "127.0.0.1:8080");
        assert_eq!(shown["platform"]["kind"], "sim");
        let mut v = serde_json::json!({"notify": {"bot_token": "123:abc", "chat": "x"}});
        mask(&mut v, "");
        assert_eq!(v["notify"]["bot_token"], "********");
        assert_eq!(v["notify"]["chat"], "x");
    }

    #[test]
    fn environment_overrides_the_file() {
        let env = |name: &str| match name {
            "ADCAB_SERVER_LISTEN" => Some("127.0.0.1:9".to_string()),
            "ADCAB_TELEGRAM_TIMEOUT_MS" => Some("2500".to_string()),
            "ADCAB_DEMO_BOOTSTRAP" => Some("false".to_string()),
            "ADCAB_CONVERSIONS_TRACKER_PARAMS" => Some(r#"["sub1", "sub2"]"#.to_string()),
            _ => None,
        };
        let c = Config::from_sources("[server]\nlisten = \"0.0.0.0:1\"\n", env).unwrap();
        assert_eq!(c.server.listen, "127.0.0.1:9");
        assert_eq!(c.telegram.timeout_ms, 2500);
        assert!(!c.demo.bootstrap);
        assert_eq!(c.conversions.tracker_params, vec!["sub1", "sub2"]);
        let bad = |name: &str| (name == "ADCAB_LIMITS_READS_PER_MINUTE").then(|| "many".into());
        let e = Config::from_sources("", bad).unwrap_err();
        assert!(e.contains("ADCAB_LIMITS_READS_PER_MINUTE"), "{e}");
        let wrong = |name: &str| (name == "ADCAB_LIMITS_READS_PER_MINUTE").then(|| "\"x\"".into());
        let e = Config::from_sources("", wrong).unwrap_err();
        assert!(e.contains("limits.reads_per_minute"), "{e}");
    }
}
