//! Exchange rates against the fake rates server (`tests/support/rates_fake`): fetched at start
//! and kept per day, a failed or slow fetch tried again and holding nothing up, a rate set by
//! hand winning over a fetch, and `admin rates set/list`; the panel's converted totals are in
//! `panel.rs`.

#[path = "../../support/rates_fake/mod.rs"]
pub mod rates_fake;

mod api;
mod currency;
mod panel;

use std::time::Duration;

use adcab::config::{RatesSource, StarsRate};
use adcab::jobs::rates::{pass_if_due, pass_now, FetchError};
use adcab::ops;
use rates_fake::{FakeRates, RatesFault};

use crate::helpers::{spawn_app_with, wait_for, TestApp};

/// A server fetching from `fake`: the ECB's rates, TON's and a fixed Stars rate.
pub fn app_with_rates(fake: &FakeRates) -> TestApp {
    let (ecb, ton) = (fake.ecb_url(), fake.ton_url());
    spawn_app_with(move |c| {
        c.rates.source = RatesSource::Ecb;
        c.rates.ecb_url = ecb;
        c.rates.ton_url = ton;
        c.rates.stars_rate = StarsRate::try_from("0.013 USD".to_string()).unwrap();
        c.rates.timeout_ms = 500;
    })
}

/// The kept rates as `FROM TO DATE RATE SOURCE` lines, sorted.
pub fn kept(app: &TestApp) -> Vec<String> {
    let mut lines: Vec<String> = ops::rate_list(&app.services)
        .unwrap()
        .rates
        .into_iter()
        .map(|r| format!("{} {} {} {} {}", r.from, r.to, r.date, r.rate, r.source))
        .collect();
    lines.sort();
    lines
}

fn day_of(app: &TestApp, days: i64) -> String {
    (app.now() + chrono::Duration::days(days))
        .date_naive()
        .to_string()
}

#[test]
fn rates_are_fetched_at_start_and_kept_per_day() {
    let fake = FakeRates::start();
    let today = chrono::Utc::now().date_naive();
    let yesterday = (today - chrono::Duration::days(1)).to_string();
    fake.publish_ecb(&yesterday, &[("USD", "1.0512"), ("JPY", "158.61")]);
    fake.publish_ton(&[("EUR", "4.7"), ("USD", "5.1")]);
    let app = app_with_rates(&fake);
    let today = day_of(&app, 0);
    let first = wait_for(Duration::from_secs(10), "the start's fetch", || {
        let k = kept(&app);
        (k.len() == 5).then_some(k)
    });
    assert_eq!(
        first,
        [
            format!("EUR JPY {yesterday} 158.61 ecb"),
            format!("EUR USD {yesterday} 1.0512 ecb"),
            format!("STARS USD {today} 0.013 fixed"),
            format!("TON EUR {today} 4.7 url"),
            format!("TON USD {today} 5.1 url"),
        ],
        "the ECB's under the day it dates them, TON's and the fixed Stars rate under today"
    );
    let done = pass_if_due(&app.services).unwrap();
    assert_eq!(done.kept, 0, "nothing is due again the same day");

    // Published before the clock moves: the move wakes the rates loop, whose own pass may
    // come before this test's.
    fake.publish_ecb(&today, &[("USD", "1.0600")]);
    fake.publish_ton(&[("EUR", "4.9")]);
    app.advance(24 * 3600);
    let tomorrow = day_of(&app, 0);
    let done = pass_if_due(&app.services).unwrap();
    assert!(done.failed.is_empty(), "{:?}", done.failed);
    let k = kept(&app);
    assert!(
        k.contains(&format!("EUR USD {yesterday} 1.0512 ecb")),
        "{k:?}"
    );
    assert!(k.contains(&format!("EUR USD {today} 1.06 ecb")), "{k:?}");
    assert!(
        k.contains(&format!("TON EUR {today} 4.7 url")),
        "the earlier day keeps its rate: {k:?}"
    );
    assert!(k.contains(&format!("TON EUR {tomorrow} 4.9 url")), "{k:?}");
    assert!(
        k.contains(&format!("STARS USD {tomorrow} 0.013 fixed")),
        "{k:?}"
    );
}

#[test]
fn a_failed_or_slow_fetch_is_reported_blocks_nothing_and_is_tried_again() {
    let fake = FakeRates::start();
    let today = chrono::Utc::now().date_naive().to_string();
    fake.publish_ecb(&today, &[("USD", "1.05")]);
    fake.publish_ton(&[("EUR", "4.7")]);
    // The start's fetch meets errors on both sources; the server serves anyway.
    fake.fail_next(2, RatesFault::Error);
    let app = app_with_rates(&fake);
    wait_for(Duration::from_secs(10), "the start's fetch", || {
        (fake.calls().len() >= 2).then_some(())
    });
    let root = app.base.trim_end_matches("/api/v1");
    let answer = ureq::get(&format!("{root}/healthz")).call();
    assert!(answer.is_ok(), "the API answers while rates fail");
    assert!(
        kept(&app).iter().all(|k| k.contains(" fixed")),
        "nothing fetched was kept: {:?}",
        kept(&app)
    );

    fake.fail_next(1, RatesFault::Slow(Duration::from_secs(2)));
    fake.fail_next(1, RatesFault::Garbage);
    let started = std::time::Instant::now();
    let pass = pass_now(&app.services);
    assert!(
        started.elapsed() < Duration::from_millis(1900),
        "the deadline holds"
    );
    let failed: Vec<(&str, bool)> = pass
        .failed
        .iter()
        .map(|(source, e)| {
            let kind = match e {
                FetchError::Transport(_) => true,
                FetchError::Malformed(_) => false,
                other => panic!("{source}: {other}"),
            };
            (*source, kind)
        })
        .collect();
    assert_eq!(failed, [("ecb", true), ("url", false)]);

    let pass = pass_if_due(&app.services).unwrap();
    assert!(pass.failed.is_empty(), "{:?}", pass.failed);
    let k = kept(&app);
    assert!(k.contains(&format!("EUR USD {today} 1.05 ecb")), "{k:?}");
    assert!(k.iter().any(|k| k.starts_with("TON EUR ")), "{k:?}");
}

#[test]
fn a_rate_set_by_hand_replaces_a_fetched_one_and_outlives_the_next_fetch() {
    let fake = FakeRates::start();
    let app = app_with_rates(&fake);
    let today = day_of(&app, 0);
    fake.publish_ecb(&today, &[("USD", "1.05")]);
    assert!(pass_now(&app.services)
        .failed
        .iter()
        .all(|(s, _)| *s == "url"));
    let code = |c: &str| c.parse().unwrap();
    let set = ops::rate_set(
        &app.services,
        &code("EUR"),
        &code("USD"),
        "1.10".parse().unwrap(),
        None,
    )
    .unwrap();
    assert_eq!(
        (set.date.as_str(), set.source.as_str()),
        (today.as_str(), "manual")
    );
    pass_now(&app.services);
    let k = kept(&app);
    assert!(k.contains(&format!("EUR USD {today} 1.1 manual")), "{k:?}");
    assert!(
        !k.iter()
            .any(|k| k.starts_with("EUR USD") && k.ends_with("ecb")),
        "{k:?}"
    );
    let same = ops::rate_set(
        &app.services,
        &code("EUR"),
        &code("EUR"),
        "1".parse().unwrap(),
        None,
    );
    assert!(same.is_err(), "a rate is between two currencies");
    let zero = ops::rate_set(
        &app.services,
        &code("EUR"),
        &code("USD"),
        "0".parse().unwrap(),
        None,
    );
    assert!(zero.is_err(), "a rate is positive");
}
