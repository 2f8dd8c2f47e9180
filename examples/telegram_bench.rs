//! Benchmark of the Telegram Ads connector against the fake Telegram Ads API (the test tree's
//! `promote_fake`, served in this process on port 0), within the platform's pacing: the fake
//! refuses a token's calls past `limit` per second with a flood wait, the connector paces
//! itself at `pace` per second per token.
//!
//! - connecting one account with 1,000 existing ads (the import pages through them);
//! - hourly syncs of `cabinets` accounts of `ads` delivering ads each: the time from the hour
//!   closing until the scheduler is done, and the platform calls that hour cost, by method;
//!   the median of the measured hours. Baseline, same run: the pace floor, the time the busiest token's calls take at
//!   `pace` with the sync's parallel cabinets, and whether any flood wait was met;
//! - the same hours' work on the database: the CPU time of its writer thread from the clock
//!   moving six minutes into the next hour until the sync is done and every cabinet's digest of
//!   the hour closed arrived at a local webhook receiver (`hourly::settle`; the fake platform's
//!   own work runs on its threads, as Telegram's
//!   does elsewhere), beside `sync_bench`'s baseline on the same database: one plain SQLite
//!   transaction updating the counters of every campaign's wide row (`hourly::wide_copy`, the
//!   campaigns as they were stored before their figures moved out; the bound: the hourly
//!   sync within 3x of it), measured right after each hour (so that both meet the machine and
//!   the log alike; its counters are taken back before the next hour), the median of the
//!   hours' ratios.
//!
//! Run: `cargo run --release --example telegram_bench` (optional arguments: cabinets, ads per
//! cabinet, the fake's limit and the connector's pace in calls per second per token, measured
//! hours; defaults 100, 1000, 200, 150, 3).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use adcab::config::Config;
use adcab::domain::access::Plan;
use adcab::ops::NewKey;
use adcab::platform::PlatformKind;
use adcab::{clock, ops, Services};

// The benchmarks' shared start-up; the simulator's cabinet helper is not used here.
#[allow(dead_code)]
mod common;
use common::Server;
// The narrow rows' reference baseline is `sync_bench`'s alone.
#[allow(dead_code)]
#[path = "common/hourly.rs"]
mod hourly;
#[allow(dead_code)]
#[path = "common/measure.rs"]
mod measure;

#[path = "../tests/support/fake_server.rs"]
mod fake_server;
#[path = "../tests/support/promote_fake/mod.rs"]
mod promote_fake;
use promote_fake::{FakeOptions, FakePromote, SeedAd};

/// Cabinets the connector's hourly sync reads at once (its `PARALLEL_SYNCS`).
const PARALLEL: usize = 8;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numeric arguments"))
        .collect();
    let cabinets = args.first().copied().unwrap_or(100);
    let ads = args.get(1).copied().unwrap_or(1000);
    let limit = args.get(2).copied().unwrap_or(200) as u32;
    let pace = args.get(3).copied().unwrap_or(150) as u32;
    let hours = args.get(4).copied().unwrap_or(3).max(1);

    let fake = FakePromote::start_with(FakeOptions {
        calls_per_second: Some(limit),
        ..FakeOptions::default()
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = Config::default();
    config.storage.path = dir.path().join("bench.db");
    config.demo.bootstrap = false;
    config.platform.kind = PlatformKind::Telegram;
    config.telegram.api_url = fake.url.clone();
    config.telegram.calls_per_second = pace;
    config.webhooks.allow_private_targets = true;
    let services = Services::open(config, adcab::db::Open::Create).expect("open");
    let user = ops::user_add(&services, "bench@example.com", Plan::Agency)
        .unwrap()
        .id;
    let (hook, received) = hourly::receiver();
    ops::key_create(
        &services,
        &NewKey {
            user,
            webhook_url: Some(hook),
            ..NewKey::default()
        },
    )
    .unwrap();

    let started = Instant::now();
    let accounts: Vec<_> = (0..cabinets)
        .map(|c| {
            let account = fake.add_account("EUR", &format!("Client {c}"), "1000000", false);
            for i in 0..ads {
                let seed = SeedAd {
                    cpm: "2".into(),
                    budget: "100".into(),
                    ..SeedAd::channel(&format!("Ad {c}/{i}"), "@bench_chan")
                };
                fake.seed_ad(&account.account_id, seed);
            }
            account
        })
        .collect();
    println!(
        "fake platform: {cabinets} accounts x {ads} ads seeded in {:.1} s; limit {limit} calls/s per token, connector pace {pace}",
        started.elapsed().as_secs_f64()
    );

    fake.reset_calls();
    let first = Instant::now();
    let made = ops::cabinet_connect(&services, user, &accounts[0].token, false).unwrap();
    let connect_s = first.elapsed().as_secs_f64();
    let connect_calls = fake.calls().len();
    println!(
        "connect one account with {} ads: {connect_s:.2} s, {connect_calls} platform calls (pace floor {:.2} s)",
        made.cabinets[0].campaigns,
        connect_calls as f64 / f64::from(pace)
    );
    let rest = Instant::now();
    for account in &accounts[1..] {
        ops::cabinet_connect(&services, user, &account.token, false).unwrap();
    }
    println!(
        "connect the other {} accounts: {:.1} s",
        cabinets - 1,
        rest.elapsed().as_secs_f64()
    );

    let server = Server::start(services.clone());
    println!("server at {}", server.base);
    // Cabinets are numbered in connect order, which is the order of `accounts`.
    let first_cabinet = count(&services, "SELECT MIN(id) FROM cabinets");
    let ad_ids = listed_ads(&services);
    hourly::wide_copy(&services);
    let writer = hourly::writer_thread();
    let mut runs = Vec::with_capacity(hours);
    let mut hour_cpu = Vec::with_capacity(hours);
    let mut base_cpu = Vec::with_capacity(hours);
    let mut ratios = Vec::with_capacity(hours);
    for h in 0..hours {
        for (cabinet, ad) in &ad_ids {
            let account = &accounts[(cabinet - first_cabinet) as usize];
            fake.deliver(&account.account_id, *ad, 100);
        }
        fake.reset_calls();
        // Each step ends six minutes into the service clock's next hour: it closes one hour and
        // its digests (due five minutes past) are sent within it. The clock runs on with the
        // wall clock, so the step is worked out from it each time.
        let now = services.db.read_blocking(clock::now).unwrap();
        let step = 3600 - now.timestamp().rem_euclid(3600) + 6 * 60;
        fake.advance(step);
        let digests = received.load(Ordering::SeqCst) + cabinets;
        let cpu = hourly::cpu_seconds(&writer);
        let synced = Instant::now();
        services
            .db
            .write_blocking(|tx| clock::advance(tx, step))
            .unwrap()
            .unwrap();
        hourly::settle(&services, &received, digests);
        let sync_s = synced.elapsed().as_secs_f64();
        let cpu = hourly::cpu_seconds(&writer) - cpu;
        let calls = fake.calls();
        let mut by_method: BTreeMap<String, usize> = BTreeMap::new();
        for call in &calls {
            *by_method.entry(call.method.clone()).or_default() += 1;
        }
        // The baseline right after the hour, on the database as the hour left it and on the
        // machine as busy as it was; its counters taken back, untimed, before the next hour.
        // At least one clock tick, so that a ratio is always written.
        let base = hourly::plain_update_between_hours(&services, hourly::Rows::Wide, &writer)
            .1
            .max(0.01);
        println!(
            "hour {}: {sync_s:.1} s (the writer's CPU {cpu:.2} s; the baseline's right after it \
             {base:.2} s, {:.1}x), {} platform calls ({by_method:?})",
            h + 1,
            cpu / base,
            calls.len()
        );
        runs.push((sync_s, calls.len()));
        hour_cpu.push(cpu);
        base_cpu.push(base);
        ratios.push(cpu / base);
    }
    drop(server);
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (median, calls) = runs[runs.len() / 2];
    let per_token = calls.div_ceil(cabinets);
    let floor = per_token as f64 / f64::from(pace) * cabinets.div_ceil(PARALLEL) as f64;
    println!(
        "hourly sync of {cabinets} x {ads} delivering ads, median of {hours}: {median:.1} s; {calls} platform calls an hour"
    );
    println!(
        "baseline, pace floor for {per_token} calls per token at {pace}/s, {PARALLEL} cabinets at once: {floor:.1} s",
    );
    let recorded = count(
        &services,
        "SELECT COALESCE(SUM(views), 0) FROM hourly_stats",
    );
    println!(
        "views recorded in hourly stats: {recorded} (delivered: {})",
        ad_ids.len() * 100 * hours
    );
    let spread = |v: &[f64]| {
        let (low, high) = v
            .iter()
            .fold((f64::MAX, 0.0_f64), |(l, h), x| (l.min(*x), h.max(*x)));
        format!("{low:.2}-{high:.2} s")
    };
    let (hours_spread, base_spread) = (spread(&hour_cpu), spread(&base_cpu));
    let (hour_cpu, base_cpu, ratio) = (
        measure::median(&mut hour_cpu),
        measure::median(&mut base_cpu),
        measure::median(&mut ratios),
    );
    println!(
        "the writer thread's CPU in the hour, median of {hours}: {hour_cpu:.2} s ({hours_spread}); \
         baseline, one plain SQLite transaction updating {} rows, measured right after each hour, \
         median: {base_cpu:.2} s ({base_spread}); each hour against its baseline, median: {ratio:.1}x \
         (the issue's bound: 3x)",
        ad_ids.len(),
    );
}

/// Every (cabinet, ad_id) the service holds.
fn listed_ads(s: &Services) -> Vec<(i64, i64)> {
    s.db.read_blocking(|c| {
        let mut stmt = c.prepare("SELECT account_id, ad_id FROM campaigns ORDER BY account_id")?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<(i64, i64)>>>()?;
        Ok::<_, adcab::store::StoreError>(rows)
    })
    .unwrap()
}

fn count(s: &Services, sql: &str) -> i64 {
    let sql = sql.to_string();
    s.db.read_blocking(move |c| {
        Ok::<_, adcab::store::StoreError>(c.query_row(&sql, [], |r| r.get(0))?)
    })
    .unwrap()
}
