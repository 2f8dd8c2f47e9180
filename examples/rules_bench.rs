//! Benchmark of automation's run after an hourly sync: cabinets of running campaigns with a
//! stored history of hourly stats, and rules whose conditions read that history over a
//! window. It times `automation::run_hour` (every cabinet's rules, Auto CPM, the built-in
//! alerts) on the same closed hour several times. The rules' conditions hold on no campaign,
//! so what is timed is reading and evaluating, not acting. Baseline, in the same run on the
//! same database: plain SQLite summing each cabinet's hours of that window per campaign, the
//! least any evaluation must read.
//!
//! Run: `cargo run --release --example rules_bench` (optional arguments: cabinets, campaigns
//! per cabinet, rules per cabinet, window hours, tree; defaults 100, 1000, 5, 24, 0). With
//! `tree` 1 each rule is a tree that also compares CPA and spend with the previous period
//! (twice the window of stats is stored, and read).

use std::time::Instant;

use adcab::domain::access::Plan;
use adcab::domain::campaign::Status;
use adcab::domain::rule::{
    Action, Against, CompareTo, Condition, Every, Group, Metric, Node, Op, RuleSpec, Scope,
    Threshold,
};
use adcab::store::{rules, StoreError};
use adcab::{clock, jobs::automation, ops, Services};
use rust_decimal::Decimal;

// The benchmarks' shared cabinets; the server start is not used here (automation is called
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

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numeric arguments"))
        .collect();
    let cabinets = args.first().copied().unwrap_or(100) as usize;
    let per_cabinet = args.get(1).copied().unwrap_or(1000) as usize;
    let rules_each = args.get(2).copied().unwrap_or(5) as usize;
    let window = args.get(3).copied().unwrap_or(24);
    let tree = args.get(4).copied().unwrap_or(0) == 1;
    // A tree's comparisons read the period before the window too.
    let stored = if tree { 2 * window } else { window };

    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = adcab::config::Config::default();
    config.storage.path = dir.path().join("bench.db");
    config.demo.bootstrap = false;
    let services = Services::open(config, adcab::db::Open::Create).expect("open");
    let started = Instant::now();
    let user = ops::user_add(&services, "bench@example.com", Plan::Agency)
        .unwrap()
        .id;
    let accounts = common::euro_cabinets(&services, user, cabinets);
    running::fill(&services, &accounts, per_cabinet);
    let now = services.db.read_blocking(clock::now).unwrap();
    let hour = clock::hour_start(now) - chrono::Duration::hours(1);
    let first = clock::iso(hour - chrono::Duration::hours(i64::from(stored) - 1));
    let stats = format!(
        "WITH RECURSIVE h(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM h WHERE n + 1 < {stored})
         INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros)
         SELECT c.account_id, c.ad_id,
                strftime('%Y-%m-%dT%H:00:00Z', '{first}', '+' || h.n || ' hours'),
                400, 200, 8, 2, 800000
         FROM campaigns c, h;
         UPDATE campaigns SET status = 'Active';"
    );
    services
        .db
        .write_blocking(|tx| Ok::<_, StoreError>(tx.execute_batch(&stats)?))
        .expect("hourly stats");
    let cpa_over = || Condition {
        metric: Metric::Cpa,
        op: Op::Gt,
        against: Against::Value(Threshold::Number(1000.into())),
        window_hours: window,
        currency: None,
    };
    let active = || Condition {
        metric: Metric::Status,
        op: Op::Eq,
        against: Against::Value(Threshold::Status(Status::Active)),
        window_hours: 1,
        currency: None,
    };
    let previous = |metric: Metric, factor: Decimal| Condition {
        metric,
        op: Op::Gt,
        against: Against::Compare(CompareTo {
            metric,
            window_hours: window,
            offset_hours: window,
            factor,
        }),
        window_hours: window,
        currency: None,
    };
    let conditions = if tree {
        Group {
            all: true,
            nodes: vec![
                Node::Condition(active()),
                Node::Group(Group {
                    all: false,
                    nodes: vec![
                        Node::Condition(cpa_over()),
                        Node::Condition(previous(Metric::Cpa, "1.3".parse().unwrap())),
                        Node::Condition(previous(Metric::Spent, Decimal::TWO)),
                    ],
                }),
            ],
        }
    } else {
        Group::flat(true, vec![cpa_over(), active()])
    };
    let rule = |n: usize| RuleSpec {
        name: format!("Rule {n}"),
        scope: Scope::Cabinet,
        flat: !tree,
        conditions: conditions.clone(),
        action: Action::Pause,
        cooldown_hours: 24,
        max_runs_per_day: 1,
        enabled: true,
        dry_run: false,
        cabinets: Vec::new(),
        max_total_per_day: None,
        approval: false,
        every: Every::Hour,
    };
    services
        .db
        .write_blocking(|tx| {
            let at = clock::iso(now);
            for account in &accounts {
                for n in 0..rules_each {
                    rules::save(tx, None, *account, &rule(n), &at)?;
                }
            }
            Ok::<_, StoreError>(())
        })
        .expect("rules");
    println!(
        "setup: {cabinets} cabinets x {per_cabinet} campaigns, {stored} hours of stats each, \
         {rules_each} {} rules per cabinet, in {:.1} s",
        if tree { "tree" } else { "flat" },
        started.elapsed().as_secs_f64()
    );

    let mut timed: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            automation::run_hour(&services, hour);
            t.elapsed().as_secs_f64()
        })
        .collect();
    let (from, to) = (first, clock::iso(hour + chrono::Duration::hours(1)));
    let mut baseline: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            let rows = services
                .db
                .read_blocking(|c| {
                    let mut read = 0;
                    let mut stmt = c.prepare(
                        "SELECT ad_id, SUM(views), SUM(clicks), SUM(actions), SUM(spent_micros)
                         FROM hourly_stats WHERE account_id = ?1 AND hour >= ?2 AND hour < ?3
                         GROUP BY ad_id",
                    )?;
                    for account in &accounts {
                        read += stmt
                            .query_map(rusqlite::params![account, from, to], |r| {
                                r.get::<_, i64>(0)
                            })?
                            .count();
                    }
                    Ok::<_, StoreError>(read)
                })
                .expect("baseline");
            assert_eq!(
                rows,
                cabinets * per_cabinet,
                "every campaign has its window"
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
        "automation after one hour ({} rules over {} campaigns), median of {RUNS}: {:.2} s",
        cabinets * rules_each,
        cabinets * per_cabinet,
        measure::median(&mut timed)
    );
    println!(
        "baseline, plain SQLite summing each campaign's {stored} hours, median of {RUNS}: {:.2} s",
        measure::median(&mut baseline)
    );
}
