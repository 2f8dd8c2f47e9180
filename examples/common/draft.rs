//! Campaign drafts the read and panel benchmarks fill their installs with: varied, repeatable
//! titles, bids and budgets. Included by path where used (`#[path = "common/draft.rs"]`), so the
//! examples that need none carry none.

use adcab::domain::campaign::TargetType;
use adcab::domain::money::Money;
use adcab::platform::{AdDraft, AdSpec};
use serde_json::json;

/// Campaign `n`: a title from a few words, a CPM from 1.00 to 4.99 EUR and a budget from 5
/// to 500 EUR (none for one in thirteen).
pub fn draft(n: usize) -> AdDraft {
    const WORDS: [&str; 8] = [
        "Fresh", "Daily", "Crypto", "Weekend", "Smart", "Quiet", "Bold", "Local",
    ];
    const TOPICS: [&str; 8] = [
        "news", "deals", "games", "courses", "tips", "music", "jobs", "travel",
    ];
    let h = mix(n as u64);
    let title = format!(
        "{} {} {}",
        WORDS[(h % 8) as usize],
        TOPICS[(h >> 8) as usize % 8],
        (h >> 16) % 1000
    );
    let spec = AdSpec::plain(
        &title,
        "Fresh news every morning",
        "https://t.me/alpha_chan",
        TargetType::Channels,
        json!({ "channels": ["@tech_daily"] }),
    );
    let cpm = 1_000_000 + ((h >> 32) % 400) as i64 * 10_000;
    let budget = if n.is_multiple_of(13) {
        0
    } else {
        (5 + ((h >> 40) % 496) as i64) * 1_000_000
    };
    AdDraft::running(spec, Money::from_micros(cpm), Money::from_micros(budget))
}

/// SplitMix64, for varied but repeatable campaigns.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
