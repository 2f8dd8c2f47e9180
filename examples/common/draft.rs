//! The campaigns the read and panel benchmarks fill their installs with: varied, repeatable
//! titles, bids and budgets, in a mix of statuses. Included by path where used
//! (`#[path = "common/draft.rs"]`), so the examples that need none carry none.

use adcab::domain::campaign::TargetType;
use adcab::domain::money::Money;
use adcab::jobs::hourly_sync;
use adcab::ops::write_back;
use adcab::platform::{AdDraft, AdSpec};
use adcab::store::history::Source;
use adcab::{clock, ops, Services};
use rusqlite::Connection;
use serde_json::json;

pub use crate::common::mix;

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

/// Moves the service clock just past an hour (so no hourly sync runs during the benchmark),
/// then fills each cabinet with `per_cabinet` campaigns of [`draft`]: of every ten, six approved
/// (those without budget then stop), one approved and paused on the platform, one declined and
/// two left in review. Reviews and pauses happen on the platform alone; then half an hour of
/// delivery, and those decisions, are synced into the copies as the hourly sync does, which
/// saves a re-read per campaign. Returns every campaign as `(account_id, ad_id)`, in creation
/// order, cabinet after cabinet.
pub fn populate(
    s: &Services,
    conn: &Connection,
    accounts: &[i64],
    per_cabinet: usize,
) -> Vec<(i64, i64)> {
    // Start just past an hour of the service clock, so no hourly sync runs during the bench.
    let into_hour = clock::now(conn).unwrap().timestamp().rem_euclid(3600);
    ops::sim_advance(s, 3600 - into_hour + 5).unwrap();
    let sim = s.sim.as_ref().expect("the simulator");
    let mut ads = Vec::with_capacity(accounts.len() * per_cabinet);
    for account in accounts {
        for _ in 0..per_cabinet {
            let n = ads.len();
            let ad = write_back::create_stored(s, *account, &draft(n), None, Source::Panel.into())
                .expect("stored")
                .expect("created")
                .ad_id;
            let review = |approve| sim.review(*account, ad, approve, Some("bench"));
            match n % 10 {
                0..=5 => {
                    review(true).expect("approve");
                }
                6 => {
                    review(true).expect("approve");
                    s.platform
                        .switch_ad(*account, ad, false, Default::default())
                        .expect("pause");
                }
                7 => {
                    review(false).expect("decline");
                }
                _ => {}
            }
            ads.push((*account, ad));
        }
    }
    ops::sim_advance(s, 30 * 60).unwrap();
    let hour = clock::hour_start(clock::now(conn).unwrap());
    for account in accounts {
        hourly_sync::sync_cabinet(s, *account, hour, false)
            .unwrap()
            .expect("synced");
    }
    ads
}
