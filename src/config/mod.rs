//! Owns the service configuration: the compiled-in defaults (`config.example.toml`), the file
//! layered over them, and environment overrides (`layers`), read into the service's own
//! sections (`sections`) and the platform's (owned by `platform::config`). Unknown keys and
//! wrong values are refused here as a `ConfigError`, by file, key and line; relative paths in a
//! file are read from the file's folder.

mod edit;
mod error;
mod layers;
mod rates;
mod sections;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use self::edit::{edited, Setting};
pub use self::error::ConfigError;
use self::layers::{env_names, env_overlay, line_of, mask, merge, nearest, unknown_key};
pub use self::rates::{RatesConfig, RatesSource, StarsRate};
pub use self::sections::*;
use crate::platform::config::{PlatformConfig, Sections, SimConfig, TelegramConfig};

/// The fully commented default configuration, the same text as `config.example.toml`.
pub const DEFAULT_CONFIG: &str = include_str!("../../config.example.toml");

/// The variable that sets `storage.path`; a relative path in it is read from the working
/// directory, not from the config file's folder.
const STORAGE_PATH_ENV: &str = "ADCAB_STORAGE_PATH";

/// The `ADCAB_*` variables read outside the configuration's sections: the secret key, and the
/// commit a build records.
const OTHER_ENV: [&str; 2] = [crate::secret::KEY_ENV, "ADCAB_COMMIT"];

/// A warning for each `ADCAB_*` variable of this process's environment that adcab does not
/// read, naming the nearest one it does: a misspelt setting is otherwise ignored without a word.
pub fn env_warnings() -> Vec<String> {
    let names: Vec<String> = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .collect();
    unknown_env(names.iter().map(String::as_str))
}

/// [`env_warnings`] of the variable names `names`.
pub fn unknown_env<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let defaults: toml::Table = DEFAULT_CONFIG
        .parse()
        .expect("the compiled-in default configuration is valid");
    let mut known = env_names(&defaults);
    known.extend(OTHER_ENV.iter().map(|name| name.to_string()));
    let mut unknown: Vec<&str> = names
        .into_iter()
        .filter(|name| name.starts_with("ADCAB_") && !known.iter().any(|k| k == name))
        .collect();
    unknown.sort_unstable();
    unknown
        .into_iter()
        .map(|name| match nearest(name, &known) {
            Some(near) => format!("{name} is not a setting adcab reads (ignored); did you mean {near}?"),
            None => format!(
                "{name} is not a setting adcab reads (ignored); settings are ADCAB_<SECTION>_<KEY>, as `adcab config show` names them"
            ),
        })
        .collect()
}

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
    pub rates: RatesConfig,
    pub automation: AutomationConfig,
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
    pub fn load(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        let default_file = Path::new("adcab.toml");
        let (file, text) = match explicit {
            Some(path) => (
                Some(path),
                std::fs::read_to_string(path).map_err(|source| ConfigError::Unreadable {
                    file: path.to_path_buf(),
                    source,
                })?,
            ),
            None => match std::fs::read_to_string(default_file) {
                Ok(text) => (Some(default_file), text),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, String::new()),
                Err(source) => {
                    return Err(ConfigError::Unreadable {
                        file: PathBuf::from("./adcab.toml"),
                        source,
                    })
                }
            },
        };
        match file {
            Some(file) => Config::of_file(file, &text),
            None => Config::from_sources(&text, |name| std::env::var(name).ok()).map_err(|error| {
                ConfigError::InFile {
                    file: default_file.to_path_buf(),
                    error: Box::new(error),
                }
            }),
        }
    }

    /// The configuration `text` would give as the contents of `file` (a file still to be
    /// written, as `adcab setup` checks its edit): errors name `file`, a relative
    /// `storage.path` is read from its folder, and the environment applies last.
    pub fn of_file(file: &Path, text: &str) -> Result<Config, ConfigError> {
        let var = |name: &str| std::env::var(name).ok();
        let mut config = Config::from_sources(text, var).map_err(|error| ConfigError::InFile {
            file: file.to_path_buf(),
            error: Box::new(error),
        })?;
        config.resolve_paths(file, var(STORAGE_PATH_ENV).is_none());
        Ok(config)
    }

    /// Parses `text` layered over the compiled-in defaults. An error names the key and its
    /// line in `text`.
    pub fn from_toml_str(text: &str) -> Result<Config, ConfigError> {
        Config::from_sources(text, |_| None)
    }

    /// Parses `text` over the compiled-in defaults, then the environment over both: every key
    /// can be set as `ADCAB_<SECTION>_<KEY>` (`ADCAB_SERVER_LISTEN`,
    /// `ADCAB_TELEGRAM_TIMEOUT_MS`). A value is read as TOML (`true`, `8080`, `["a", "b"]`);
    /// for a text key it is the text as given.
    pub fn from_sources(
        text: &str,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let mut merged: toml::Table = DEFAULT_CONFIG.parse().map_err(ConfigError::BuiltIn)?;
        let overlay: toml::Table = text.parse().map_err(ConfigError::Syntax)?;
        if let Some(path) = unknown_key(&merged, &overlay, "") {
            return Err(located(ConfigError::UnknownKey { path, line: None }, text));
        }
        merge(&mut merged, overlay);
        let from_env = env_overlay(&merged, var)?;
        merge(&mut merged, from_env);
        let config: Config =
            serde_path_to_error::deserialize(toml::Value::Table(merged)).map_err(|e| {
                located(
                    ConfigError::value(e.path().to_string(), e.inner().message()),
                    text,
                )
            })?;
        config.check().map_err(|e| located(e, text))?;
        Ok(config)
    }

    /// Each platform's section, as the platform's factory reads them.
    pub fn platform_sections(&self) -> Sections<'_> {
        Sections {
            platform: &self.platform,
            sim: &self.sim,
            telegram: &self.telegram,
        }
    }

    /// Rules across values that types alone do not carry: the key that breaks one, and why.
    fn check(&self) -> Result<(), ConfigError> {
        let hourly = self.retention.hourly_stats_days;
        if hourly != 0 && hourly < MIN_HOURLY_DAYS {
            return Err(ConfigError::value(
                "retention.hourly_stats_days",
                format!(
                    "must be 0 (forever) or at least {MIN_HOURLY_DAYS}, so 30-day stats stay exact"
                ),
            ));
        }
        if !(-1..=23).contains(&self.notify.daily_digest_hour) {
            return Err(ConfigError::value(
                "notify.daily_digest_hour",
                "must be an hour from 0 to 23, or -1 for none",
            ));
        }
        if !(1..=10_080).contains(&self.automation.proposal_expiry_minutes) {
            return Err(ConfigError::value(
                "automation.proposal_expiry_minutes",
                "must be from 1 to 10080 (a week)",
            ));
        }
        let public = self.notify.public_url.as_str();
        if !(public.is_empty() || public.starts_with("https://") || public.starts_with("http://")) {
            return Err(ConfigError::value(
                "notify.public_url",
                "must be empty or an address starting with https://",
            ));
        }
        if self.notify.alerts_per_cabinet_hour == 0 {
            return Err(ConfigError::value(
                "notify.alerts_per_cabinet_hour",
                "must be at least 1",
            ));
        }
        let automation = self.retention.automation_days;
        if automation != 0 && automation < MIN_AUTOMATION_DAYS {
            return Err(ConfigError::value("retention.automation_days", format!(
                    "must be 0 (forever) or at least {MIN_AUTOMATION_DAYS}: the guards read a week back"
                ),
            ));
        }
        if !self.backup.dir.as_os_str().is_empty() && self.backup.every_hours == 0 {
            return Err(ConfigError::value(
                "backup.every_hours",
                "must be at least 1 when backup.dir is set",
            ));
        }
        let public = &self.panel.public_url;
        if !(public.is_empty() || public.starts_with("https://") || public.starts_with("http://")) {
            return Err(ConfigError::value(
                "panel.public_url",
                "must be empty or start with https:// (or http://)",
            ));
        }
        if self.panel.session_idle_minutes == 0 || self.panel.session_max_days == 0 {
            return Err(ConfigError::value(
                "panel.session_idle_minutes",
                "session_idle_minutes and session_max_days must be at least 1",
            ));
        }
        if self.rates.timeout_ms == 0 {
            return Err(ConfigError::value("rates.timeout_ms", "must be at least 1"));
        }
        for (key, url) in [
            ("rates.ecb_url", &self.rates.ecb_url),
            ("rates.ton_url", &self.rates.ton_url),
        ] {
            if !(url.is_empty() || url.starts_with("https://") || url.starts_with("http://")) {
                return Err(ConfigError::value(
                    key,
                    "must be empty or start with https:// (or http://)",
                ));
            }
        }
        if self.backup.keep == 0 {
            return Err(ConfigError::value("backup.keep", "must be at least 1"));
        }
        if !self.metrics.listen.is_empty()
            && self.metrics.listen.parse::<std::net::SocketAddr>().is_err()
        {
            return Err(ConfigError::value(
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

/// The error with the line of `text` that sets its key, for the errors that have a key.
fn located(e: ConfigError, text: &str) -> ConfigError {
    match e {
        ConfigError::UnknownKey { path, .. } => ConfigError::UnknownKey {
            line: line_of(text, &path),
            path,
        },
        ConfigError::Value { path, why, .. } => ConfigError::Value {
            line: line_of(text, &path),
            path,
            why,
        },
        unkeyed @ (ConfigError::Unreadable { .. }
        | ConfigError::InFile { .. }
        | ConfigError::BuiltIn(_)
        | ConfigError::Syntax(_)
        | ConfigError::Environment { .. }) => unkeyed,
    }
}
