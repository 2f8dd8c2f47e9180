//! Tests of reading the configuration: defaults, layering, refusals by key and line, the
//! packaged production file, masking and the environment.

use super::layers::mask;
use super::*;
use crate::platform::PlatformKind;

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
    assert_eq!(
        err.to_string(),
        "line 2: unknown key `limits.reads_per_hour`"
    );
    let err = Config::from_toml_str("# x\n[nonsense]\n").unwrap_err();
    assert_eq!(err.to_string(), "line 2: unknown key `nonsense`");
}

#[test]
fn wrong_values_and_bad_syntax_name_the_line() {
    let err = Config::from_toml_str(
        "[server]\nlisten = \"x\"\n\n[limits]\nreads_per_minute = \"many\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("line 5: `limits.reads_per_minute`: invalid type"),
        "{err}"
    );
    let err = Config::from_toml_str("[server]\nlisten = \n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 2"), "{err}");
}

#[test]
fn automation_values_outside_their_range_are_refused_by_key() {
    let err = Config::from_toml_str("[notify]\ndaily_digest_hour = 24\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("notify.daily_digest_hour"), "{err}");
    let err = Config::from_toml_str("[retention]\nautomation_days = 3\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("retention.automation_days"), "{err}");
    let ok = Config::from_toml_str(
        "[notify]\ndaily_digest_hour = 0\n[retention]\nautomation_days = 0\n",
    );
    let ok = ok.unwrap();
    assert_eq!(
        (ok.notify.daily_digest_hour, ok.retention.automation_days),
        (0, 0)
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
    let err = Config::load(Some(&missing)).unwrap_err().to_string();
    assert!(
        err.contains("cannot read the config file") && err.contains("nope.toml"),
        "{err}"
    );
}

#[test]
fn the_packaged_production_config_is_valid_and_safe() {
    let text = include_str!("../../packaging/adcab.toml");
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
    let unit = include_str!("../../packaging/adcab.service");
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
    let e = Config::from_sources("", bad).unwrap_err().to_string();
    assert!(e.contains("ADCAB_LIMITS_READS_PER_MINUTE"), "{e}");
    let wrong = |name: &str| (name == "ADCAB_LIMITS_READS_PER_MINUTE").then(|| "\"x\"".into());
    let e = Config::from_sources("", wrong).unwrap_err().to_string();
    assert!(e.contains("limits.reads_per_minute"), "{e}");
}

#[test]
fn the_platforms_sections_are_read_and_refused_like_the_others() {
    let err = Config::from_toml_str("[sim]\nseed = \"x\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("line 2: `sim.seed`: invalid type"), "{err}");
    let err = Config::from_toml_str("[telegram]\ncalls = 1\n")
        .unwrap_err()
        .to_string();
    assert_eq!(err, "line 2: unknown key `telegram.calls`");
    let c = Config::from_toml_str(
        "[platform]\nkind = \"telegram\"\n[telegram]\ncalls_per_second = 9\n",
    )
    .unwrap();
    let sections = c.platform_sections();
    assert_eq!(
        (sections.platform.kind, sections.telegram.calls_per_second),
        (PlatformKind::Telegram, 9)
    );
    assert_eq!(sections.sim.seed, 1);
}

#[test]
fn a_misspelt_environment_variable_is_named_with_the_nearest_setting() {
    let warnings = super::unknown_env([
        "ADCAB_SERVER_LISSEN",
        "ADCAB_SERVER_LISTEN",
        "ADCAB_SECRET_KEY",
        "ADCAB_TELEGRAM_TIMOUT_MS",
        "ADCAB_SOMETHING_ELSE_ENTIRELY",
        "PATH",
    ]);
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("ADCAB_SERVER_LISSEN ")
                && w.ends_with("did you mean ADCAB_SERVER_LISTEN?")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("did you mean ADCAB_TELEGRAM_TIMEOUT_MS?")),
        "{warnings:?}"
    );
    let far = warnings
        .iter()
        .find(|w| w.starts_with("ADCAB_SOMETHING_ELSE_ENTIRELY"))
        .unwrap();
    assert!(!far.contains("did you mean"), "{far}");
}

#[test]
fn rates_default_to_euro_and_the_ecb_and_refuse_bad_values_by_key() {
    let c = Config::default();
    assert_eq!(c.rates.reporting_currency.as_str(), "EUR");
    assert_eq!(c.rates.source, RatesSource::Ecb);
    assert!(c.rates.ecb_url.ends_with("eurofxref-daily.xml"));
    assert_eq!(c.rates.stars_rate, StarsRate(None));
    let c = Config::from_sources("[rates]\nstars_rate = \"0.013 USD\"\n", |name| {
        (name == "ADCAB_RATES_REPORTING_CURRENCY").then(|| "usd".to_string())
    })
    .unwrap();
    assert_eq!(c.rates.reporting_currency.as_str(), "USD");
    assert_eq!(String::from(c.rates.stars_rate), "0.013 USD");
    for (text, key) in [
        (
            "[rates]\nreporting_currency = \"euro!\"\n",
            "rates.reporting_currency",
        ),
        ("[rates]\nsource = \"fed\"\n", "rates.source"),
        ("[rates]\nstars_rate = \"cheap\"\n", "rates.stars_rate"),
        ("[rates]\nton_url = \"ftp://x\"\n", "rates.ton_url"),
    ] {
        let err = Config::from_toml_str(text).unwrap_err().to_string();
        assert!(err.contains(key), "{text}: {err}");
    }
}
