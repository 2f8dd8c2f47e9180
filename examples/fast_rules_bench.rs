//! Benchmark of the fast checks (rules checked every 5 minutes) on the simulator: cabinets of
//! running campaigns, one 5-minute stop-loss rule each (spent over 24 hours at least a sum no
//! campaign reaches, and no actions -> pause), and 24 hours of 5-minute marks stored for every
//! campaign. It times `fast::run_mark` at the next mark (the simulator's counters of every
//! campaign at the mark, read and stored, then every cabinet's rule over its campaigns), the
//! clock moved 5 minutes before each run, and the rules alone again at the last mark.
//! Baseline, in the same run on the same database: plain SQLite reading each cabinet's marks
//! at t and t - 24 h for every campaign and making the comparison, the least any check must
//! read. Then the stop-loss reaction time on a small install of its own: campaigns spending
//! about 0.5 EUR a minute under stop-loss rules of different thresholds (with no conversions:
//! the simulator's campaigns make actions), the clock stepped minute by minute (the
//! scheduler's steps run after each), minutes from the minute the threshold was crossed to
//! the minute the campaign was paused.
//!
//! Run: `cargo run --release --example fast_rules_bench` (optional arguments: cabinets,
//! campaigns per cabinet; defaults 100, 1000).

use std::time::Instant;

use adcab::domain::access::Plan;
use adcab::domain::campaign::{Status, TargetType};
use adcab::domain::money::Money;
use adcab::domain::rule::{
    Action, Against, Condition, Every, Group, Metric, Op, RuleSpec, Scope, Threshold,
};
use adcab::jobs::automation::{self, fast};
use adcab::jobs::scheduler::{self, Step};
use adcab::ops::write_back;
use adcab::platform::{AdDraft, AdSpec};
use adcab::store::history::Source;
use adcab::store::{rules, StoreError};
use adcab::{clock, ops, Services};
use serde_json::json;

// The benchmarks' shared cabinets; the server start is not used here (the checks are called
// directly), nor are the percentiles.
#[allow(dead_code, unused_imports)]
mod common;
#[allow(dead_code)]
#[path = "common/measure.rs"]
mod measure;
#[path = "common/running.rs"]
mod running;

/// Timed runs of each measurement.
const RUNS: usize = 5;
const DAY_MARKS: i64 = 24 * 12;

fn open() -> (tempfile::TempDir, Services, i64) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = adcab::config::Config::default();
    config.storage.path = dir.path().join("bench.db");
    config.demo.bootstrap = false;
    let services = Services::open(config, adcab::db::Open::Create).expect("open");
    let user = ops::user_add(&services, "bench@example.com", Plan::Agency)
        .unwrap()
        .id;
    (dir, services, user)
}

/// A 5-minute stop-loss on `scope`: spent over 24 hours at least `spent` (EUR) and nothing of
/// `none` (actions, or conversions where the simulator's campaigns make actions).
fn stop_loss(scope: Scope, spent: i64, none: Metric) -> RuleSpec {
    let over_day = |metric, op, value: i64| Condition {
        metric,
        op,
        against: Against::Value(Threshold::Number(value.into())),
        window_hours: 24,
        currency: None,
    };
    RuleSpec {
        name: "Stop-loss".into(),
        scope,
        conditions: Group::flat(
            true,
            vec![
                over_day(Metric::Spent, Op::Ge, spent),
                over_day(none, Op::Eq, 0),
            ],
        ),
        flat: true,
        action: Action::Pause,
        cooldown_hours: 24,
        max_runs_per_day: 1,
        enabled: true,
        dry_run: false,
        cabinets: Vec::new(),
        max_total_per_day: None,
        approval: false,
        every: Every::FiveMinutes,
    }
}

fn sql(s: &Services, batch: &str) {
    s.db.write_blocking(|tx| Ok::<_, StoreError>(tx.execute_batch(batch)?))
        .expect("sql");
}

fn advance(s: &Services, seconds: i64) -> chrono::DateTime<chrono::Utc> {
    s.db.write_blocking(|tx| clock::advance(tx, seconds))
        .unwrap()
        .unwrap()
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numeric arguments"))
        .collect();
    let cabinets = args.first().copied().unwrap_or(100);
    let per_cabinet = args.get(1).copied().unwrap_or(1000);
    checks(cabinets, per_cabinet);
    reaction();
}

/// The cost of one 5-minute check at `cabinets` x `per_cabinet`, beside its baseline.
fn checks(cabinets: usize, per_cabinet: usize) {
    let (_dir, services, user) = open();
    let started = Instant::now();
    let accounts = common::euro_cabinets(&services, user, cabinets);
    running::fill(&services, &accounts, per_cabinet);
    sql(
        &services,
        "UPDATE sim_ads SET status = 'Active', review_requested_at = NULL;
         UPDATE campaigns SET status = 'Active';",
    );
    let now = services.db.read_blocking(clock::now).unwrap();
    let last = fast::mark_of(now);
    // 24 hours of marks for every campaign, oldest at nothing delivered.
    sql(
        &services,
        &format!(
            "WITH RECURSIVE m(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM m WHERE n < {DAY_MARKS})
             INSERT INTO fast_marks (account_id, ad_id, mark, views, opens, clicks, actions,
                spent_micros, budget_micros)
             SELECT c.account_id, c.ad_id, {last} - (({DAY_MARKS} - m.n) * 300), 0, 0, 0, 0, 0,
                100000000
             FROM m, campaigns c ORDER BY 1, 3, 2;"
        ),
    );
    services
        .db
        .write_blocking(|tx| {
            let at = clock::iso(now);
            for account in &accounts {
                rules::save(
                    tx,
                    None,
                    *account,
                    &stop_loss(Scope::Cabinet, 1_000_000, Metric::Actions),
                    &at,
                )?;
            }
            Ok::<_, StoreError>(())
        })
        .expect("rules");
    println!(
        "setup: {cabinets} cabinets x {per_cabinet} running campaigns, {} marks each (24 h), \
         one 5-minute stop-loss rule per cabinet, in {:.1} s",
        DAY_MARKS + 1,
        started.elapsed().as_secs_f64()
    );
    let mut marks = Vec::new();
    let mut timed: Vec<f64> = (0..RUNS)
        .map(|_| {
            let mark = fast::mark_of(advance(&services, 300));
            marks.push(mark);
            let t = Instant::now();
            fast::run_mark(&services, mark).expect("a fast check");
            t.elapsed().as_secs_f64()
        })
        .collect();
    let mark = *marks.last().unwrap();
    let at = chrono::DateTime::from_timestamp(mark, 0).unwrap();
    let mut rules_only: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            for account in &accounts {
                automation::run_rules(&services, *account, at, Every::FiveMinutes)
                    .expect("the rules");
            }
            t.elapsed().as_secs_f64()
        })
        .collect();
    let mut baseline: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            let held = services
                .db
                .read_blocking(|c| {
                    let mut stmt = c.prepare_cached(
                        "SELECT n.ad_id, n.spent_micros - COALESCE(o.spent_micros, 0),
                            n.actions - COALESCE(o.actions, 0)
                         FROM fast_marks n LEFT JOIN fast_marks o
                            ON o.account_id = n.account_id AND o.mark = ?3 AND o.ad_id = n.ad_id
                         WHERE n.account_id = ?1 AND n.mark = ?2",
                    )?;
                    let mut held = 0;
                    let mut read = 0;
                    for account in &accounts {
                        let rows = stmt.query_map(
                            rusqlite::params![account, mark, mark - DAY_MARKS * 300],
                            |r| Ok((r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)),
                        )?;
                        for row in rows {
                            let (spent, actions) = row?;
                            read += 1;
                            held += usize::from(spent >= 1_000_000_000_000 && actions == 0);
                        }
                    }
                    Ok::<_, StoreError>((read, held))
                })
                .expect("baseline");
            assert_eq!(
                held,
                (cabinets * per_cabinet, 0),
                "every campaign read, none held"
            );
            t.elapsed().as_secs_f64()
        })
        .collect();
    let logged: i64 = services
        .db
        .read_blocking(|c| {
            Ok::<_, StoreError>(c.query_row("SELECT COUNT(*) FROM rule_log", [], |r| r.get(0))?)
        })
        .unwrap();
    assert_eq!(logged, 0, "no condition held: evaluation only");
    println!(
        "one 5-minute check ({cabinets} rules over {} campaigns, the simulator's counters read \
         and stored), median of {RUNS}: {:.2} s",
        cabinets * per_cabinet,
        measure::median(&mut timed)
    );
    println!(
        "  of which the rules alone over the stored marks (the same mark again), median of \
         {RUNS}: {:.2} s",
        measure::median(&mut rules_only)
    );
    println!(
        "baseline, plain SQLite reading every campaign's marks at t and t - 24 h and comparing, \
         median of {RUNS}: {:.3} s",
        measure::median(&mut baseline)
    );
}

/// Minutes from a stop-loss threshold being crossed to the pause, on the simulator, the clock
/// stepped minute by minute.
fn reaction() {
    let (_dir, services, user) = open();
    let account = common::euro_cabinets(&services, user, 1)[0];
    let thresholds = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    let mut ads = Vec::new();
    for (i, threshold) in thresholds.iter().enumerate() {
        let spec = AdSpec::plain(
            &format!("Runaway {i}"),
            "Fresh news every morning",
            "https://t.me/alpha_chan",
            TargetType::Channels,
            json!({ "channels": ["@tech_daily"] }),
        );
        let draft = AdDraft::running(
            spec,
            Money::from_micros(20_000_000),
            Money::from_micros(500_000_000),
        );
        let ad = write_back::create_stored(&services, account, &draft, None, Source::Panel.into())
            .expect("stored")
            .expect("created")
            .ad_id;
        ads.push((ad, *threshold));
    }
    sql(
        &services,
        "UPDATE sim_ads SET status = 'Active', review_requested_at = NULL;
         UPDATE campaigns SET status = 'Active';",
    );
    services
        .db
        .write_blocking(|tx| {
            let at = clock::iso(clock::now(tx)?);
            for (ad, threshold) in &ads {
                let spec = stop_loss(Scope::Ads(vec![*ad]), *threshold, Metric::Conversions);
                rules::save(tx, None, account, &spec, &at)?;
            }
            Ok::<_, StoreError>(())
        })
        .expect("rules");
    let drain = || loop {
        match scheduler::step(&services).expect("a step") {
            Step::Idle => break,
            _ => continue,
        }
    };
    drain();
    let mut crossed: Vec<Option<i64>> = vec![None; ads.len()];
    let mut paused: Vec<Option<i64>> = vec![None; ads.len()];
    for minute in 1..=120 {
        let now = advance(&services, 60);
        drain();
        let lines = services.platform.report(account, now).expect("a report");
        for (i, (ad, threshold)) in ads.iter().enumerate() {
            let line = lines.iter().find(|l| l.ad_id == *ad).expect("its line");
            if crossed[i].is_none() && line.spent.micros() >= threshold * 1_000_000 {
                crossed[i] = Some(minute);
            }
            if paused[i].is_none() && (!line.active || line.status != Status::Active) {
                paused[i] = Some(minute);
            }
        }
        if paused.iter().all(Option::is_some) {
            break;
        }
    }
    let mut minutes: Vec<f64> = Vec::new();
    for (i, (_, threshold)) in ads.iter().enumerate() {
        let (Some(c), Some(p)) = (crossed[i], paused[i]) else {
            println!("stop-loss at {threshold} EUR: not paused within 2 hours");
            continue;
        };
        minutes.push((p - c) as f64);
    }
    let worst = minutes.iter().copied().fold(0.0, f64::max);
    println!(
        "stop-loss reaction on the simulator ({} campaigns, about 0.5 EUR a minute, clock \
         stepped by the minute): minutes from crossing to pause {:?}, median {:.0}, worst {:.0}",
        minutes.len(),
        minutes,
        measure::median(&mut minutes.clone()),
        worst
    );
}
