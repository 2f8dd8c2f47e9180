//! Owns the service configuration: the compiled-in defaults (`config.example.toml`), the file
//! layered over them, and environment overrides. Unknown keys are refused here, by name.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The fully commented default configuration, the same text as `config.example.toml`.
pub const DEFAULT_CONFIG: &str = include_str!("../config.example.toml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub server: ServerConfig,
    pub storage: StorageConfig,
    pub platform: PlatformConfig,
    pub sim: SimConfig,
    pub webhooks: WebhookConfig,
    pub limits: LimitsConfig,
    pub conversions: ConversionsConfig,
    pub demo: DemoConfig,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    pub listen: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageConfig {
    pub path: PathBuf,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformConfig {
    pub kind: PlatformKind,
    pub read_timeout_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlatformKind {
    Sim,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    pub auto_review_seconds: u64,
    pub decline_words: Vec<String>,
    pub seed: u64,
    pub latency_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookConfig {
    pub allow_private_targets: bool,
    pub contact_url: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    pub reads_per_minute: u32,
    pub writes_per_minute: u32,
    pub conversions_per_second: u32,
    pub conversions_burst: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConversionsConfig {
    /// Query parameters of a website link whose values are the campaign's refs.
    pub tracker_params: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemoConfig {
    pub bootstrap: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config::from_toml_str("").expect("the compiled-in default configuration is valid")
    }
}

impl Config {
    /// Loads the configuration: an explicit file must exist; without one, `./adcab.toml` is read
    /// when present, else the defaults stand. Environment overrides apply last.
    pub fn load(explicit: Option<&Path>) -> Result<Config, String> {
        let text = match explicit {
            Some(path) => std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read config file {}: {e}", path.display()))?,
            None => match std::fs::read_to_string("adcab.toml") {
                Ok(text) => text,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
                Err(e) => return Err(format!("cannot read ./adcab.toml: {e}")),
            },
        };
        let mut config = Config::from_toml_str(&text)?;
        config.apply_env(|name| std::env::var(name).ok());
        Ok(config)
    }

    /// Parses `text` layered over the compiled-in defaults.
    pub fn from_toml_str(text: &str) -> Result<Config, String> {
        let mut merged: toml::Table = DEFAULT_CONFIG
            .parse()
            .map_err(|e| format!("built-in config: {e}"))?;
        let overlay: toml::Table = text.parse().map_err(|e| format!("config: {e}"))?;
        merge(&mut merged, overlay);
        toml::Value::Table(merged)
            .try_into()
            .map_err(|e: toml::de::Error| format!("config: {}", e.message()))
    }

    fn apply_env(&mut self, var: impl Fn(&str) -> Option<String>) {
        if let Some(listen) = var("ADCAB_SERVER_LISTEN") {
            self.server.listen = listen;
        }
        if let Some(path) = var("ADCAB_STORAGE_PATH") {
            self.storage.path = PathBuf::from(path);
        }
    }
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
    fn unknown_keys_are_refused_by_name() {
        let err = Config::from_toml_str("[limits]\nreads_per_hour = 5\n").unwrap_err();
        assert!(err.contains("reads_per_hour"), "{err}");
        let err = Config::from_toml_str("[nonsense]\n").unwrap_err();
        assert!(err.contains("nonsense"), "{err}");
    }

    #[test]
    fn environment_overrides_the_file() {
        let mut c = Config::from_toml_str("[server]\nlisten = \"0.0.0.0:1\"\n").unwrap();
        c.apply_env(|name| (name == "ADCAB_SERVER_LISTEN").then(|| "127.0.0.1:9".to_string()));
        assert_eq!(c.server.listen, "127.0.0.1:9");
    }
}
