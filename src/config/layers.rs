//! Owns how the configuration's layers combine, as TOML tables: the file's keys over the
//! defaults (a key the defaults lack is unknown), the environment's over both, the line a key
//! is set on, and masking secrets for display.

use super::error::ConfigError;

/// The keys of `defaults` set in the environment, as a table to merge over the file's.
pub(super) fn env_overlay(
    defaults: &toml::Table,
    var: impl Fn(&str) -> Option<String>,
) -> Result<toml::Table, ConfigError> {
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
                    .ok_or_else(|| ConfigError::Environment {
                        name: name.clone(),
                        value: raw.clone(),
                    })?,
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
pub(super) fn unknown_key(
    defaults: &toml::Table,
    overlay: &toml::Table,
    prefix: &str,
) -> Option<String> {
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

/// The line (from 1) of `text` that sets the dotted `path` (a `[section]` header or a
/// `key =` under it), when it can be found.
pub(super) fn line_of(text: &str, path: &str) -> Option<usize> {
    let (section, key) = path.split_once('.').unwrap_or((path, ""));
    let mut current = String::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = header.trim().to_string();
            if key.is_empty() && current == section {
                return Some(n + 1);
            }
            continue;
        }
        let name = line.split('=').next().unwrap_or("").trim();
        if !key.is_empty() && current == section && name == key {
            return Some(n + 1);
        }
    }
    None
}

/// Overlays `top` on `base`, table by table, so a file names only the keys it changes.
pub(super) fn merge(base: &mut toml::Table, top: toml::Table) {
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

/// Masks every text value whose key names a secret (token, secret, password).
pub(super) fn mask(value: &mut serde_json::Value, key: &str) {
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

/// The environment variable that sets each key of `defaults`: `ADCAB_<SECTION>_<KEY>`.
pub(super) fn env_names(defaults: &toml::Table) -> Vec<String> {
    let mut names = Vec::new();
    for (section, keys) in defaults {
        let Some(keys) = keys.as_table() else {
            continue;
        };
        for key in keys.keys() {
            names.push(format!(
                "ADCAB_{}_{}",
                section.to_ascii_uppercase(),
                key.to_ascii_uppercase()
            ));
        }
    }
    names
}

/// The name of `known` nearest to `name` by edit distance, when it is near enough to be a slip
/// of the keyboard (at most 3 edits, and fewer than a third of the name).
pub(super) fn nearest<'k>(name: &str, known: &'k [String]) -> Option<&'k str> {
    let limit = 3.min(name.len() / 3);
    known
        .iter()
        .map(|k| (edit_distance(name, k), k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.as_str())
}

/// Levenshtein distance: the fewest single-character insertions, deletions and substitutions
/// that turn `a` into `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == *cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}
