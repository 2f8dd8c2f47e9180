//! Owns the catalogue's files and their bundles: which Fluent file each section has in each
//! language, parsing them once, formatting a message, and the checks that both languages
//! carry the same keys and that every key the code names exists.

use std::sync::OnceLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource};

use super::Lang;

/// One section's file in each language: `locales/en/NAME.ftl` and `locales/ru/NAME.ftl`.
struct File {
    name: &'static str,
    en: &'static str,
    ru: &'static str,
}

macro_rules! files {
    ($($name:literal),* $(,)?) => {
        &[$(File {
            name: $name,
            en: include_str!(concat!("../../locales/en/", $name, ".ftl")),
            ru: include_str!(concat!("../../locales/ru/", $name, ".ftl")),
        }),*]
    };
}

/// Every file of the catalogue. A new section adds its line here and its two files.
const FILES: &[File] = files![
    "alerts",
    "autocpm",
    "bot",
    "cabinets",
    "campaign",
    "campaigns",
    "common",
    "currency",
    "error",
    "funds",
    "home",
    "keys",
    "login",
    "nav",
    "new",
    "people",
    "proposals",
    "reports",
    "rules",
    "scheduled",
    "sim",
    "statement",
    "status",
    "tasks",
    "templates",
    "week"
];

fn source(file: &File, lang: Lang) -> &'static str {
    match lang {
        Lang::En => file.en,
        Lang::Ru => file.ru,
    }
}

fn bundles() -> &'static [FluentBundle<FluentResource>; 2] {
    static BUNDLES: OnceLock<[FluentBundle<FluentResource>; 2]> = OnceLock::new();
    BUNDLES.get_or_init(|| Lang::ALL.map(build))
}

/// A language's bundle of every file. The files are checked by the tests below, so a file
/// that does not parse or repeats a key cannot ship; what parsed is kept either way.
fn build(lang: Lang) -> FluentBundle<FluentResource> {
    let id = lang
        .code()
        .parse()
        .unwrap_or_else(|_| unic_langid::LanguageIdentifier::default());
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    // Pages are HTML: no Unicode isolation marks around arguments.
    bundle.set_use_isolating(false);
    for file in FILES {
        let resource = FluentResource::try_new(source(file, lang).to_string()).unwrap_or_else(
            |(partial, errors)| {
                tracing::error!(
                    file = file.name,
                    lang = lang.code(),
                    ?errors,
                    "catalogue file"
                );
                partial
            },
        );
        bundle.add_resource_overriding(resource);
    }
    bundle
}

/// The message `key` in `lang`. A key the catalogue lacks is a bug: it stops a debug build
/// (so a test that renders the page fails) and reads as the key itself in a release one.
pub(super) fn format(lang: Lang, key: &str, args: Option<&FluentArgs>) -> String {
    let bundle = &bundles()[lang as usize];
    let Some(pattern) = bundle.get_message(key).and_then(|m| m.value()) else {
        debug_assert!(
            false,
            "the catalogue has no message {key} in {}",
            lang.code()
        );
        tracing::warn!(
            key,
            lang = lang.code(),
            "message missing from the catalogue"
        );
        return key.to_string();
    };
    let mut errors = Vec::new();
    let text = bundle.format_pattern(pattern, args, &mut errors);
    debug_assert!(
        errors.is_empty(),
        "message {key} in {} failed: {errors:?}",
        lang.code()
    );
    text.into_owned()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use fluent_syntax::ast::{Entry, Resource};
    use fluent_syntax::parser;

    use super::*;

    fn keys(text: &str, what: &str) -> BTreeSet<String> {
        let resource: Resource<&str> =
            parser::parse(text).unwrap_or_else(|(_, errors)| panic!("{what}: {errors:?}"));
        let mut keys = BTreeSet::new();
        for entry in resource.body {
            match entry {
                Entry::Message(m) => {
                    assert!(m.value.is_some(), "{what}: {} has no value", m.id.name);
                    assert!(
                        keys.insert(m.id.name.to_string()),
                        "{what}: {} twice",
                        m.id.name
                    );
                }
                Entry::Term(t) => {
                    keys.insert(format!("-{}", t.id.name));
                }
                Entry::Junk { content } => panic!("{what}: cannot parse {content:?}"),
                _ => {}
            }
        }
        keys
    }

    /// Every key of every file, checked to be the same in both languages and in one file only.
    fn all_keys() -> BTreeSet<String> {
        let mut all = BTreeSet::new();
        for file in FILES {
            let en = keys(file.en, &format!("en/{}.ftl", file.name));
            let ru = keys(file.ru, &format!("ru/{}.ftl", file.name));
            let only_en: Vec<_> = en.difference(&ru).collect();
            let only_ru: Vec<_> = ru.difference(&en).collect();
            assert!(
                only_en.is_empty() && only_ru.is_empty(),
                "{}.ftl: missing in ru {only_en:?}, missing in en {only_ru:?}",
                file.name
            );
            for key in en {
                assert!(all.insert(key.clone()), "{key} is in two files");
            }
        }
        all
    }

    #[test]
    fn both_languages_carry_the_same_keys() {
        assert!(!all_keys().is_empty());
    }

    /// Every key named in the code as `.t("key")` or `.ta("key", …)` exists in the catalogue.
    #[test]
    fn every_key_the_code_names_exists() {
        let all = all_keys();
        let mut missing = Vec::new();
        let mut named = 0;
        visit(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("src").as_path(),
            &mut |path, text| {
                if path.ends_with(file!().rsplit('/').next().unwrap_or_default()) {
                    return; // this file names the calls, not keys
                }
                for call in [".t(\"", ".ta(\""] {
                    for (at, _) in text.match_indices(call) {
                        let rest = &text[at + call.len()..];
                        let Some(end) = rest.find('"') else { continue };
                        named += 1;
                        let key = &rest[..end];
                        if !all.contains(key) {
                            missing.push(format!("{}: {key}", path.display()));
                        }
                    }
                }
            },
        );
        assert!(named > 0, "no key found in the code");
        assert!(
            missing.is_empty(),
            "keys missing from the catalogue: {missing:#?}"
        );
    }

    fn visit(dir: &Path, f: &mut impl FnMut(&Path, &str)) {
        for entry in std::fs::read_dir(dir).expect("src is readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                visit(&path, f);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("a source file is readable");
                f(&path, &text);
            }
        }
    }
}
