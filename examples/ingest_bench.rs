//! Load generator and benchmark of durable conversion ingest over loopback: the real server
//! runs in this process (limits raised in its config), clients post with keep-alive
//! connections, and every accepted event is committed before its answer.
//!
//! - batch: 4 connections posting batches of 1,000 new events; events per second;
//! - single: 64 connections posting one event per request; requests per second, p50, p99;
//! - baseline, same run: one thread inserting rows into the same `conversions` table of a
//!   fresh database, 1,000 per transaction, with plain SQLite.
//!
//! Run: `cargo run --release --example ingest_bench` (optional arguments: seconds per
//! measurement, runs of each, and `batch` or `single` to measure only that one; defaults 5,
//! 3 and both). Figures are medians over the runs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use adcab::config::Config;
use adcab::domain::access::Plan;
use adcab::domain::campaign::TargetType;
use adcab::domain::money::Money;
use adcab::ops::{self, write_back, NewKey};
use adcab::platform::{AdDraft, AdSpec};
use adcab::store::history::Source;
use adcab::Services;
use serde_json::json;

mod common;
use common::Server;

const CAMPAIGNS: usize = 100;
const BATCH: usize = 1000;
const BATCH_CONNECTIONS: usize = 4;
const SINGLE_CONNECTIONS: usize = 64;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u64| {
        args.get(i)
            .map_or(default, |a| a.parse().expect("numeric arguments"))
    };
    let seconds = Duration::from_secs(number(0, 5));
    let runs = number(1, 3) as usize;
    let only = args.get(2).map(String::as_str);
    let measures = |what: &str| only.is_none_or(|o| o == what);

    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = Config::default();
    config.storage.path = dir.path().join("ingest.db");
    config.demo.bootstrap = false;
    config.limits.conversions_per_second = 100_000_000;
    config.limits.conversions_burst = 100_000_000;
    let services = Services::open(config, adcab::db::Open::Create).expect("open");
    let key = setup(&services);
    let server = Server::start(services);
    let url = format!("{}/postback", server.base);
    println!(
        "server at {}, {CAMPAIGNS} campaigns, {runs} runs of {seconds:?}",
        server.base
    );

    let mut raw: Vec<f64> = (0..runs).map(|run| raw_inserts(dir.path(), run)).collect();
    let mut batch: Vec<f64> = (0..runs)
        .filter(|_| measures("batch"))
        .map(|run| {
            let rate = batches(&url, &key, seconds, run);
            println!("batch run {}: {rate:.0} events/s", run + 1);
            rate
        })
        .collect();
    let mut singles: Vec<(f64, f64, f64)> = (0..runs)
        .filter(|_| measures("single"))
        .map(|run| {
            let (rate, p50, p99) = single_events(&url, &key, seconds, run);
            println!(
                "single run {}: {rate:.0} requests/s, p50 {p50:.2} ms, p99 {p99:.2} ms",
                run + 1
            );
            (rate, p50, p99)
        })
        .collect();
    drop(server);

    println!("--- medians of {runs} runs");
    println!(
        "raw SQLite inserts (1,000 per transaction, one thread): {:.0} rows/s",
        median(&mut raw)
    );
    if !batch.is_empty() {
        let events = median(&mut batch);
        println!(
            "batch postbacks ({BATCH} events, {BATCH_CONNECTIONS} connections): {events:.0} events/s = {:.0}% of raw inserts",
            100.0 * events / median(&mut raw)
        );
    }
    if singles.is_empty() {
        return;
    }
    let mut rates: Vec<f64> = singles.iter().map(|s| s.0).collect();
    let mut p50s: Vec<f64> = singles.iter().map(|s| s.1).collect();
    singles.sort_by(|a, b| a.2.total_cmp(&b.2));
    println!(
        "single postbacks ({SINGLE_CONNECTIONS} connections): {:.0} requests/s, p50 {:.2} ms, p99 {:.2} ms",
        median(&mut rates),
        median(&mut p50s),
        singles[singles.len() / 2].2
    );
}

/// A person, one cabinet with bot campaigns whose links carry refs `r0`..`r99`, and a key
/// that may send postbacks.
fn setup(services: &Services) -> String {
    let user = ops::user_add(services, "ingest@example.com", Plan::Pro)
        .unwrap()
        .id;
    let cabinet = common::euro_cabinets(services, user, 1)[0];
    for i in 0..CAMPAIGNS {
        let spec = AdSpec::plain(
            &format!("Bot {i}"),
            "Play now",
            &format!("https://t.me/bench_bot?start=r{i}"),
            TargetType::Bots,
            json!({ "bots": ["@bench_bot"] }),
        );
        let draft = AdDraft::running(
            spec,
            Money::from_micros(2_000_000),
            Money::from_micros(10_000_000),
        );
        write_back::create_stored(services, cabinet, &draft, None, Source::Panel.into())
            .expect("stored")
            .expect("created");
    }
    ops::key_create(
        services,
        &NewKey {
            user,
            postbacks: true,
            ..NewKey::default()
        },
    )
    .unwrap()
    .key
}

fn event(run: usize, client: usize, n: u64) -> serde_json::Value {
    json!({
        "ref": format!("r{}", n % CAMPAIGNS as u64),
        "event": "purchase",
        "txid": format!("{run}-{client}-{n}"),
        "amount": "12.50",
    })
}

/// Batches of new events from several connections; returns accepted events per second.
/// Bodies are built before the clock starts, so the clients' JSON work does not compete
/// with the server for the two cores.
fn batches(url: &str, key: &str, seconds: Duration, run: usize) -> f64 {
    let per_client = (seconds.as_secs() as usize * 60).max(20);
    let bodies: Vec<Vec<String>> = (0..BATCH_CONNECTIONS)
        .map(|client| {
            (0..per_client)
                .map(|b| {
                    let events: Vec<_> = (0..BATCH)
                        .map(|i| event(run, client, (b * BATCH + i) as u64))
                        .collect();
                    json!({ "events": events }).to_string()
                })
                .collect()
        })
        .collect();
    let accepted = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    std::thread::scope(|s| {
        for client_bodies in &bodies {
            let accepted = accepted.clone();
            s.spawn(move || {
                let agent = ureq::agent();
                for body in client_bodies {
                    if started.elapsed() >= seconds {
                        break;
                    }
                    let text = agent
                        .post(url)
                        .set("X-API-Key", key)
                        .set("Content-Type", "application/json")
                        .send_string(body)
                        .expect("batch accepted")
                        .into_string()
                        .expect("body");
                    accepted.fetch_add(count_accepted(&text), Ordering::Relaxed);
                }
            });
        }
    });
    accepted.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

/// The `accepted` count of a batch answer, read without parsing its 1,000 results.
fn count_accepted(answer: &str) -> u64 {
    let at = answer.find("\"accepted\":").expect("an accepted count") + "\"accepted\":".len();
    answer[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .expect("a number")
}

/// One event per request from many connections; returns requests per second and the p50 and
/// p99 latencies in milliseconds.
fn single_events(url: &str, key: &str, seconds: Duration, run: usize) -> (f64, f64, f64) {
    let started = Instant::now();
    let mut latencies: Vec<f64> = std::thread::scope(|s| {
        let clients: Vec<_> = (0..SINGLE_CONNECTIONS)
            .map(|client| {
                s.spawn(move || {
                    let agent = ureq::agent();
                    let mut took = Vec::new();
                    let mut n = 0;
                    while started.elapsed() < seconds {
                        let body = event(run + 100, client, n).to_string();
                        n += 1;
                        let sent = Instant::now();
                        let status = agent
                            .post(url)
                            .set("X-API-Key", key)
                            .set("Content-Type", "application/json")
                            .send_string(&body)
                            .map(|r| r.status())
                            .expect("event accepted");
                        assert_eq!(status, 200);
                        took.push(sent.elapsed().as_secs_f64() * 1000.0);
                    }
                    took
                })
            })
            .collect();
        clients
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect()
    });
    let rate = latencies.len() as f64 / started.elapsed().as_secs_f64();
    latencies.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    (rate, at(0.50), at(0.99))
}

/// Plain SQLite: 200,000 rows into `conversions` of a fresh database (same schema and
/// pragmas), 1,000 per transaction; returns rows per second.
fn raw_inserts(dir: &std::path::Path, run: usize) -> f64 {
    let db = adcab::db::Db::open(&dir.join(format!("raw-{run}.db")), adcab::db::Open::Create)
        .expect("raw db");
    let started = Instant::now();
    for chunk in 0..200 {
        db.write_blocking(|tx| {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO conversions (holder_id, txid, event_type, ref, amount_micros, currency,
                    account_id, received_at, updated_at)
                 VALUES (1, ?1, 'purchase', 'r1', 12500000, 'USD', 1, '2026-01-01T00:00:00Z',
                    '2026-01-01T00:00:00Z')",
            )?;
            for i in 0..1000 {
                stmt.execute([format!("{chunk}-{i}")])?;
            }
            Ok::<_, adcab::store::StoreError>(())
        })
        .expect("insert");
    }
    200_000.0 / started.elapsed().as_secs_f64()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}
