//! The campaign the sync, retention and automation benchmarks fill their installs with: one
//! shape, running, at a 2.00 bid with a budget of 100.00. Included by path where used
//! (`#[path = "common/running.rs"]`).

use adcab::domain::campaign::TargetType;
use adcab::domain::money::Money;
use adcab::ops::write_back;
use adcab::platform::{AdDraft, AdSpec};
use adcab::store::history::Source;
use adcab::Services;
use serde_json::json;

/// Campaign `i`, titled by its number.
pub fn draft(i: usize) -> AdDraft {
    let spec = AdSpec::plain(
        &format!("Campaign {i}"),
        "Fresh news every morning",
        "https://t.me/alpha_chan",
        TargetType::Channels,
        json!({ "channels": ["@tech_daily"] }),
    );
    AdDraft::running(
        spec,
        Money::from_micros(2_000_000),
        Money::from_micros(100_000_000),
    )
}

/// Gives each cabinet of `accounts` `per_cabinet` campaigns of [`draft`], numbered from 0.
pub fn fill(s: &Services, accounts: &[i64], per_cabinet: usize) {
    for account in accounts {
        for i in 0..per_cabinet {
            write_back::create_stored(s, *account, &draft(i), None, Source::Panel.into())
                .expect("stored")
                .expect("created");
        }
    }
}
