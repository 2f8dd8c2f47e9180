//! Owns `ConfigError`: why a configuration cannot be used, each case rendered as the sentence
//! the operator reads, naming the file, the key and its line where there is one.

use std::path::PathBuf;

#[derive(Debug)]
pub enum ConfigError {
    /// The config file could not be read.
    Unreadable {
        file: PathBuf,
        source: std::io::Error,
    },
    /// What is wrong inside a config file, with the file named.
    InFile {
        file: PathBuf,
        error: Box<ConfigError>,
    },
    /// The compiled-in defaults do not read (a defect of the build, never of a file).
    BuiltIn(toml::de::Error),
    /// The text is not TOML.
    Syntax(toml::de::Error),
    /// A key no section has, as a dotted path, and the line of the text that sets it.
    UnknownKey { path: String, line: Option<usize> },
    /// An environment variable whose value does not read as TOML.
    Environment { name: String, value: String },
    /// A key whose value is wrong (its type, or a rule across values), and why.
    Value {
        path: String,
        line: Option<usize>,
        why: String,
    },
}

impl ConfigError {
    /// A wrong value of the dotted `path`, its line still to be found.
    pub(super) fn value(path: impl Into<String>, why: impl Into<String>) -> ConfigError {
        ConfigError::Value {
            path: path.into(),
            line: None,
            why: why.into(),
        }
    }
}

/// "line N: ", or nothing when the line is not known.
fn at(line: Option<usize>) -> String {
    line.map(|n| format!("line {n}: ")).unwrap_or_default()
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::Unreadable { file, source } => {
                write!(
                    f,
                    "cannot read the config file {}: {source}",
                    file.display()
                )
            }
            ConfigError::InFile { file, error } => {
                write!(f, "config file {}: {error}", file.display())
            }
            ConfigError::BuiltIn(e) => write!(f, "built-in config: {e}"),
            ConfigError::Syntax(e) => f.write_str(e.to_string().trim_end()),
            ConfigError::UnknownKey { path, line } => {
                write!(f, "{}unknown key `{path}`", at(*line))
            }
            ConfigError::Environment { name, value } => {
                write!(f, "{name}: {value:?} is not a TOML value")
            }
            ConfigError::Value { path, line, why } => write!(f, "{}`{path}`: {why}", at(*line)),
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Unreadable { source, .. } => Some(source),
            ConfigError::InFile { error, .. } => Some(error.as_ref()),
            ConfigError::BuiltIn(e) | ConfigError::Syntax(e) => Some(e),
            ConfigError::UnknownKey { .. }
            | ConfigError::Environment { .. }
            | ConfigError::Value { .. } => None,
        }
    }
}
