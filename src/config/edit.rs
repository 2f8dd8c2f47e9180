//! Owns changing keys of a config file in place, as `adcab setup` does: the operator's
//! comments, order and other keys stay as they were written.

use toml_edit::{value, DocumentMut, Item, Table};

/// One key's new value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Setting {
    Text(String),
    Flag(bool),
}

/// `text` (a config file, or "" for a new one) with each `(section, key)` set to its value;
/// a section missing from the file is added at its end. Fails only when `text` is not TOML.
pub fn edited(text: &str, keys: &[(&str, &str, Setting)]) -> Result<String, toml_edit::TomlError> {
    let mut doc: DocumentMut = text.parse()?;
    for (section, key, setting) in keys {
        let table = doc
            .entry(section)
            .or_insert_with(|| Item::Table(Table::new()));
        if !table.is_table() {
            *table = Item::Table(Table::new());
        }
        table[key] = match setting {
            Setting::Text(text) => value(text.as_str()),
            Setting::Flag(flag) => value(*flag),
        };
    }
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_changes_in_place_and_comments_stay() {
        let text = "# the operator's note\n[platform]\n# simulator for now\nkind = \"sim\"\n\n[server]\nlisten = \"127.0.0.1:8080\"\n";
        let out = edited(
            text,
            &[("platform", "kind", Setting::Text("telegram".into()))],
        )
        .unwrap();
        assert_eq!(
            out,
            "# the operator's note\n[platform]\n# simulator for now\nkind = \"telegram\"\n\n[server]\nlisten = \"127.0.0.1:8080\"\n"
        );
    }

    #[test]
    fn a_missing_section_is_added_and_a_new_file_starts_empty() {
        let out = edited(
            "",
            &[
                (
                    "panel",
                    "public_url",
                    Setting::Text("https://ads.example".into()),
                ),
                ("demo", "bootstrap", Setting::Flag(false)),
            ],
        )
        .unwrap();
        let parsed: toml::Table = out.parse().unwrap();
        assert_eq!(
            parsed["panel"]["public_url"].as_str(),
            Some("https://ads.example")
        );
        assert_eq!(parsed["demo"]["bootstrap"].as_bool(), Some(false));
    }

    #[test]
    fn text_that_is_not_toml_is_refused() {
        assert!(edited("[server\n", &[]).is_err());
    }
}
