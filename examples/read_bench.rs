//! Benchmark of the read path at the scale the service is built for: one agency key (Manage
//! campaigns, scope All) reaching 100 cabinets of 1,000 campaigns each, in the simulator, with
//! varied titles, budgets and CPMs, statuses (approved, paused, declined, still in review) and
//! half an hour of delivery synced into the copies. The real server runs in this process.
//!
//! - one keep-alive client times `GET /v1/campaigns?limit=500` (the default sort, then every
//!   `sortBy` both ways), one cabinet's page, the first two cursor pages,
//!   `GET /v1/campaigns/{ad_id}` (stale copies re-read from the platform, then a fresh one)
//!   and `GET /v1/account/info`; then four clients read the default list at once. Every
//!   answer must be 200 with the expected number of rows;
//! - baseline, same run, plain SQLite on a copy of the database (`VACUUM INTO`): the same 500
//!   rows, every column, read through an index made on the copy to match the sort. Each
//!   request is preceded by one baseline read, so both are timed under the same load of this
//!   shared machine (a baseline timed alone, before the requests, ran on a quieter machine or
//!   a warmer cache than the requests beside it);
//! - the page by views right after a write that changed every cabinet's figures (each
//!   cabinet's order by views then built again, as after the hour);
//! - cold start: from opening the database (every campaign in it) to the first answer.
//!
//! Run: `cargo run --release --example read_bench` (optional arguments: cabinets, campaigns
//! per cabinet, requests per measurement; defaults 100, 1000, 200). Latencies are medians and
//! p95 in milliseconds, measured until the whole answer arrived.

use std::path::Path;
use std::time::{Duration, Instant};

use adcab::config::Config;
use adcab::domain::access::Plan;
use adcab::ops::{self, NewKey};
use adcab::Services;
use rusqlite::Connection;
use serde_json::Value;

mod common;
#[path = "common/draft.rs"]
mod draft;
#[path = "common/measure.rs"]
mod measure;
use common::Server;
use draft::populate;
use measure::{median, percentile, runs};

/// The largest page, asked for by every list request.
const PAGE: usize = 500;
/// Offset pagination reaches at most this many campaigns of each cabinet.
const PER_CABINET_DEPTH: usize = 500;
/// Clients reading at once in the concurrent measurement.
const CLIENTS: usize = 4;
/// A measurement stops before its `n` runs once it took this long and made [`MIN_RUNS`], so
/// the run stays within minutes when a request takes a second.
const BUDGET: Duration = Duration::from_secs(3);
const MIN_RUNS: usize = 5;
/// Each `sortBy` value and the column it orders by.
const SORTS: [(&str, &str); 9] = [
    ("date", "created_at"),
    ("ad_id", "ad_id"),
    ("title", "title"),
    ("status", "status"),
    ("views", "views"),
    ("clicks", "clicks"),
    ("spent", "spent_micros"),
    ("budget", "budget_micros"),
    ("cpm", "cpm_micros"),
];

fn main() {
    let run = Instant::now();
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numeric arguments"))
        .collect();
    let cabinets = args.first().copied().unwrap_or(100);
    let per_cabinet = args.get(1).copied().unwrap_or(1000);
    let n = args.get(2).copied().unwrap_or(200);

    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = Config::default();
    config.storage.path = dir.path().join("bench.db");
    config.demo.bootstrap = false;
    config.sim.auto_review_seconds = 0;
    config.limits.reads_per_minute = 1_000_000_000;
    config.limits.writes_per_minute = 1_000_000_000;
    let services = Services::open(config.clone(), adcab::db::Open::Create).expect("open");
    // The bench's own reads of the service's database, beside the service's connections.
    let conn = adcab::db::open_connection(&config.storage.path).expect("a connection");

    let started = Instant::now();
    let ws = setup(&services, &conn, cabinets, per_cabinet);
    println!(
        "setup: {cabinets} cabinets x {per_cabinet} campaigns in {:.1} s ({})",
        started.elapsed().as_secs_f64(),
        status_counts(&conn)
    );

    let cabinet = ws.accounts[cabinets / 2];
    let copy = dir.path().join("baseline.db");
    let plain = Baselines::prepare(&conn, &copy, cabinet);

    let started = Instant::now();
    let server = Server::start(services.clone());
    while !adcab::jobs::scheduler::idle(&conn).unwrap() {
        std::thread::sleep(Duration::from_millis(50));
    }
    println!(
        "server at {}, its scheduler idle (the status changes of setup queued) after {:.1} s",
        server.base,
        started.elapsed().as_secs_f64()
    );
    println!(
        "up to {n} requests per measurement (fewer past {BUDGET:?}, at least {MIN_RUNS}), one keep-alive client"
    );
    let agent = ureq::agent();
    let base = format!("{}/campaigns?limit={PAGE}", server.base);
    let total = cabinets * per_cabinet;
    let offset_rows = PAGE.min(cabinets * per_cabinet.min(PER_CABINET_DEPTH));

    let mut ratios = Vec::new();
    let mut beside = |label: &str, url: &str, query: &Query, rows: usize| {
        let (mut took, mut plain_took, answer, plain_rows) =
            timed_beside(&agent, url, &ws.key, n, rows, &plain, query);
        let ratio = report(label, &mut took, &mut plain_took, &plain_rows, &answer);
        ratios.push((label.to_string(), ratio));
    };
    beside("list, default sort", &base, &plain.sorts[0], offset_rows);
    for (i, (sort, _)) in SORTS.iter().enumerate() {
        for (j, order) in ["desc", "asc"].iter().enumerate() {
            let url = format!("{base}&sortBy={sort}&sortOrder={order}");
            let label = format!("list, sortBy={sort} {order}");
            beside(&label, &url, &plain.sorts[i * 2 + j], offset_rows);
        }
    }
    let url = format!("{base}&account_id={cabinet}");
    let one = PAGE.min(per_cabinet.min(PER_CABINET_DEPTH));
    beside("list, one cabinet", &url, &plain.cabinet, one);
    after_every_cabinet_changed(&services, &agent, &base, &ws.key, offset_rows);
    let worst = ratios
        .iter()
        .cloned()
        .fold((String::new(), 0.0), |w, r| if r.1 > w.1 { r } else { w });
    println!(
        "verdict: the slowest list against its baseline is {} at {:.2}x, {} the 2x bound",
        worst.0,
        worst.1,
        if worst.1 <= 2.0 { "within" } else { "past" }
    );

    parts(&conn, &ws, offset_rows);

    let url = format!("{base}&cursor=");
    let (mut took, first) = timed(&agent, &url, &ws.key, n, PAGE.min(total));
    report_alone("list, cursor page 1", &mut took);
    match first["meta"]["next_cursor"].as_str() {
        Some(next) => {
            let url = format!("{base}&cursor={next}");
            let rows = PAGE.min(total.saturating_sub(PAGE));
            let (mut took, _) = timed(&agent, &url, &ws.key, n, rows);
            report_alone("list, cursor page 2", &mut took);
        }
        None => println!("list, cursor page 2: none (every campaign fits on page 1)"),
    }

    single_reads(&conn, &agent, &server.base, &ws, n);

    let url = format!("{}/account/info", server.base);
    let (mut took, _) = timed(&agent, &url, &ws.key, n, cabinets);
    report_alone("account/info", &mut took);

    concurrent(&base, &ws.key, n, offset_rows);
    drop(agent);
    drop(server);
    drop((services, conn));

    let mut starts: Vec<f64> = (0..3)
        .map(|i| {
            let started = Instant::now();
            let services =
                Services::open(config.clone(), adcab::db::Open::Existing).expect("reopen");
            let server = Server::start(services);
            let took = started.elapsed().as_secs_f64() * 1000.0;
            println!("cold start {}: {took:.0} ms", i + 1);
            drop(server);
            took
        })
        .collect();
    println!(
        "cold start with {total} campaigns, open to first answer, median of 3: {:.0} ms",
        median(&mut starts)
    );
    println!("total run: {:.1} s", run.elapsed().as_secs_f64());
}

/// What the measurements read with.
struct Workspace {
    key: String,
    accounts: Vec<i64>,
    /// Every campaign as `(account_id, ad_id)`, in creation order.
    ads: Vec<(i64, i64)>,
}

/// The agency owner, its cabinets and their campaigns ([`populate`]), and one key reaching
/// them all.
fn setup(s: &Services, conn: &Connection, cabinets: usize, per_cabinet: usize) -> Workspace {
    let user = ops::user_add(s, "reads@example.com", Plan::Agency)
        .unwrap()
        .id;
    let key = ops::key_create(
        s,
        &NewKey {
            user,
            manage: true,
            ..NewKey::default()
        },
    )
    .unwrap()
    .key;
    let accounts = common::euro_cabinets(s, user, cabinets);
    let ads = populate(s, conn, &accounts, per_cabinet);
    Workspace { key, accounts, ads }
}

/// How many stored campaigns have each status.
fn status_counts(conn: &Connection) -> String {
    let mut stmt = conn
        .prepare("SELECT status, COUNT(*) FROM campaigns GROUP BY status ORDER BY status")
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok(format!(
                "{} {}",
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?
            ))
        })
        .unwrap();
    rows.collect::<rusqlite::Result<Vec<_>>>()
        .unwrap()
        .join(", ")
}

/// The plain SQLite reads the lists are measured beside, on a copy of the database.
struct Baselines {
    conn: Connection,
    /// Every sort, descending then ascending, in the order of [`SORTS`].
    sorts: Vec<Query>,
    cabinet: Query,
}

/// One plain query and its arguments.
struct Query {
    sql: String,
    args: Vec<i64>,
}

impl Baselines {
    /// Copies the database with `VACUUM INTO` and adds to the copy one index per sort matching
    /// the service's order (the sort column, then `ad_id` and `account_id`, all one way) and one
    /// for a cabinet's newest campaigns; each query must read through its index.
    fn prepare(service: &Connection, copy: &Path, cabinet: i64) -> Baselines {
        let target = copy.to_str().expect("a UTF-8 path");
        service.execute("VACUUM INTO ?1", [target]).expect("copy");
        let conn = adcab::db::open_connection(copy).expect("open the copy");
        // The copy's campaigns in one plain table, each row with its figures (the service keeps
        // them in `campaign_counters` since migration 68), so that the baselines read the same
        // rows from one table, keyed as the service's (without the numbers of migration 72,
        // which the service keeps to join its two tables).
        conn.execute_batch("ALTER TABLE campaigns RENAME TO campaign_copies")
            .expect("rename");
        let select = common::plain_campaigns_select(&conn, "campaign_copies");
        conn.execute_batch(&format!(
            "CREATE TABLE campaigns AS {select};
             CREATE UNIQUE INDEX bench_key ON campaigns(account_id, ad_id);"
        ))
        .expect("one table");
        let mut sorts = Vec::new();
        for (sort, column) in SORTS {
            for dir in ["DESC", "ASC"] {
                let index = format!("bench_{sort}_{dir}");
                conn.execute_batch(&format!(
                    "CREATE INDEX {index} ON campaigns({column} {dir}, ad_id {dir}, account_id {dir})"
                ))
                .expect("index");
                let sql = format!(
                    "SELECT * FROM campaigns WHERE status <> 'Deleted'
                     ORDER BY {column} {dir}, ad_id {dir}, account_id {dir} LIMIT {PAGE}"
                );
                let plan = query_plan(&conn, &sql, &[]);
                assert!(
                    plan.contains(&index) && !plan.contains("TEMP B-TREE"),
                    "{sql}: {plan}"
                );
                if sort == "date" && dir == "DESC" {
                    println!("baseline query: {sql}\n  plan: {plan}");
                }
                sorts.push(Query { sql, args: vec![] });
            }
        }
        conn.execute_batch(
            "CREATE INDEX bench_cabinet ON campaigns(account_id, created_at DESC, ad_id DESC)",
        )
        .expect("index");
        let sql = format!(
            "SELECT * FROM campaigns WHERE account_id = ?1 AND status <> 'Deleted'
             ORDER BY created_at DESC, ad_id DESC LIMIT {PAGE}"
        );
        let plan = query_plan(&conn, &sql, &[cabinet]);
        println!("baseline query: {sql}\n  plan: {plan}");
        let cabinet = Query {
            sql,
            args: vec![cabinet],
        };
        Baselines {
            conn,
            sorts,
            cabinet,
        }
    }
}

/// The `EXPLAIN QUERY PLAN` of `sql`, its steps joined on one line.
fn query_plan(conn: &Connection, sql: &str, args: &[i64]) -> String {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let steps = stmt
        .query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(3))
        .unwrap()
        .collect::<rusqlite::Result<Vec<_>>>()
        .unwrap();
    steps.join("; ")
}

/// One run of a plain query, preparing it and reading every column of every row: the
/// milliseconds it took and its rows as `(account_id, ad_id)`.
fn time_plain(conn: &Connection, query: &Query) -> (f64, Vec<(i64, i64)>) {
    let started = Instant::now();
    let mut stmt = conn.prepare(&query.sql).unwrap();
    let columns = stmt.column_count();
    let read: Vec<Vec<rusqlite::types::Value>> = stmt
        .query_map(rusqlite::params_from_iter(&query.args), |r| {
            (0..columns).map(|i| r.get(i)).collect()
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let took = started.elapsed().as_secs_f64() * 1000.0;
    (
        took,
        read.iter().map(|r| (int(&r[0]), int(&r[1]))).collect(),
    )
}

fn int(v: &rusqlite::types::Value) -> i64 {
    match v {
        rusqlite::types::Value::Integer(i) => *i,
        other => panic!("not an integer: {other:?}"),
    }
}

/// One GET: the milliseconds until the whole answer arrived, and the answer, which must be
/// 200 with `rows` campaigns (or cabinets; a single object counts as one).
fn get(agent: &ureq::Agent, url: &str, key: &str, rows: usize) -> (f64, Value) {
    let sent = Instant::now();
    let response = agent
        .get(url)
        .set("X-API-Key", key)
        .call()
        .unwrap_or_else(|e| panic!("GET {url}: {e}"));
    assert_eq!(response.status(), 200, "GET {url}");
    let mut body = Vec::new();
    std::io::Read::read_to_end(&mut response.into_reader(), &mut body).expect("body");
    let took = sent.elapsed().as_secs_f64() * 1000.0;
    let answer: Value = serde_json::from_slice(&body).expect("JSON");
    let got = match &answer["data"] {
        Value::Array(list) => list.len(),
        Value::Object(_) => 1,
        _ => 0,
    };
    assert_eq!(got, rows, "GET {url}: rows in data");
    (took, answer)
}

/// Up to `n` GETs of `url` one after another; their latencies and the last answer.
fn timed(agent: &ureq::Agent, url: &str, key: &str, n: usize, rows: usize) -> (Vec<f64>, Value) {
    let mut last = Value::Null;
    let took = runs(n, BUDGET, MIN_RUNS, |_| {
        let (took, answer) = get(agent, url, key, rows);
        last = answer;
        took
    });
    (took, last)
}

/// What [`timed_beside`] measured: the requests' latencies, the plain reads', the last answer
/// and the plain rows.
type Beside = (Vec<f64>, Vec<f64>, Value, Vec<(i64, i64)>);

/// Up to `n` rounds of one plain read of `query` then one GET of `url`.
fn timed_beside(
    agent: &ureq::Agent,
    url: &str,
    key: &str,
    n: usize,
    rows: usize,
    plain: &Baselines,
    query: &Query,
) -> Beside {
    let (mut last, mut plain_rows, mut plain_took) = (Value::Null, Vec::new(), Vec::new());
    let took = runs(n, BUDGET, MIN_RUNS, |_| {
        let (t, read) = time_plain(&plain.conn, query);
        plain_took.push(t);
        plain_rows = read;
        let (took, answer) = get(agent, url, key, rows);
        last = answer;
        took
    });
    (took, plain_took, last, plain_rows)
}

/// Prints a measurement next to its baseline (checking the baseline read the rows the
/// service answered with); returns the ratio of the medians.
fn report(
    label: &str,
    took: &mut [f64],
    plain: &mut [f64],
    plain_rows: &[(i64, i64)],
    answer: &Value,
) -> f64 {
    let (p50, p95, base) = (median(took), percentile(took, 0.95), median(plain));
    let rows: Vec<(i64, i64)> = answer["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["account_id"].as_i64().unwrap(),
                c["ad_id"].as_i64().unwrap(),
            )
        })
        .collect();
    let same = if rows == plain_rows {
        "same rows"
    } else {
        "ROWS DIFFER from the service's"
    };
    println!(
        "{label} ({} requests): median {p50:.2} ms = {:.2}x baseline ({base:.2} ms, {same}), p95 {p95:.2} ms",
        took.len(),
        p50 / base
    );
    p50 / base
}

/// The page by views right after a write that changed every cabinet's figures (as the hour
/// does), [`MIN_RUNS`] times: each cabinet's order by views is built again from its rows for
/// it, which the pages after it then read from memory.
fn after_every_cabinet_changed(
    services: &Services,
    agent: &ureq::Agent,
    base: &str,
    key: &str,
    rows: usize,
) {
    let url = format!("{base}&sortBy=views&sortOrder=desc");
    let mut took: Vec<f64> = (0..MIN_RUNS)
        .map(|_| {
            services
                .db
                .write_blocking(|tx| {
                    tx.execute("UPDATE campaign_counters SET views = views + 1", [])
                        .map_err(adcab::db::StoreError::from)
                })
                .expect("every cabinet's figures changed");
            get(agent, &url, key, rows).0
        })
        .collect();
    report_alone(
        "list, sortBy=views desc, first after every cabinet's figures changed",
        &mut took,
    );
}

/// Prints a measurement without a baseline.
fn report_alone(label: &str, took: &mut [f64]) {
    let (p50, p95) = (median(took), percentile(took, 0.95));
    println!(
        "{label} ({} requests): median {p50:.2} ms, p95 {p95:.2} ms",
        took.len()
    );
}

/// Where the default list's time goes, in this process on the bench's own connection: the
/// page's rows, their conversion totals, and the campaign objects encoded as the answer's
/// JSON; medians of 50 runs beside the plain read of the same rows.
fn parts(conn: &Connection, ws: &Workspace, rows: usize) {
    use adcab::api::campaign_object::{write_list, Reduced};
    use adcab::domain::money::CabinetType;
    use adcab::ops::returns;
    use adcab::store::campaigns::{self, ListFilter, Page, SortKey};
    let filter = ListFilter {
        accounts: ws.accounts.clone(),
        ..ListFilter::default()
    };
    let page = Page::Offset {
        offset: 0,
        limit: PAGE as i64,
        sort: SortKey::Date,
        descending: true,
    };
    let (mut read, mut encoded) = (Vec::new(), Vec::new());
    for _ in 0..50 {
        let started = Instant::now();
        let (found, _) = campaigns::list(conn, &Default::default(), &filter, &page).unwrap();
        read.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(found.len(), rows);
        let started = Instant::now();
        let day = adcab::clock::now(conn).unwrap().date_naive();
        let returns: Vec<_> = found
            .iter()
            .map(|row| returns::of_campaign(conn, row, CabinetType::Euro, day).unwrap())
            .collect();
        let mut bytes = Vec::new();
        write_list(
            &mut bytes,
            found.iter().zip(&returns).map(|(row, returns)| {
                Reduced::of(row, CabinetType::Euro).with_conversions(returns)
            }),
        );
        encoded.push(started.elapsed().as_secs_f64() * 1000.0);
        let written: Value = serde_json::from_slice(&bytes).expect("JSON");
        assert_eq!(written.as_array().map(Vec::len), Some(rows));
    }
    println!(
        "the default list in this process, medians of 50: rows with their conversions {:.2} ms, objects as JSON {:.2} ms",
        median(&mut read),
        median(&mut encoded)
    );
}

fn single_reads(conn: &Connection, agent: &ureq::Agent, base: &str, ws: &Workspace, n: usize) {
    let step = (ws.ads.len() / n.max(1)).max(1);
    let stale: Vec<(i64, i64)> = ws.ads.iter().step_by(step).take(n).copied().collect();
    let fresh = vec![stale[0]; n];
    for (label, ads) in [("stale copies", stale), ("fresh copy", fresh)] {
        let mut reread = 0;
        let mut took = runs(ads.len(), BUDGET, MIN_RUNS, |i| {
            let (account, ad) = ads[i];
            let before = synced_at(conn, account, ad);
            let url = format!("{base}/campaigns/{ad}?account_id={account}");
            let (took, answer) = get(agent, &url, &ws.key, 1);
            assert_eq!(answer["data"]["ad_id"].as_i64(), Some(ad));
            if answer["data"]["synced_at"].as_str() != Some(&before) {
                reread += 1;
            }
            took
        });
        let (p50, p95) = (median(&mut took), percentile(&mut took, 0.95));
        println!(
            "one campaign, {label} ({} requests, {reread} re-read from the platform): median {p50:.2} ms, p95 {p95:.2} ms",
            took.len()
        );
    }
}

fn synced_at(conn: &Connection, account: i64, ad: i64) -> String {
    conn.query_row(
        "SELECT synced_at FROM campaigns WHERE account_id = ?1 AND ad_id = ?2",
        [account, ad],
        |r| r.get(0),
    )
    .expect("stored")
}

/// [`CLIENTS`] clients, each on its own connection, sharing up to `n` reads of `url`:
/// requests per second, the median and p95 latency.
fn concurrent(url: &str, key: &str, n: usize, rows: usize) {
    let each = n.div_ceil(CLIENTS);
    let started = Instant::now();
    let mut took: Vec<f64> = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|_| scope.spawn(|| timed(&ureq::agent(), url, key, each, rows).0))
            .collect();
        clients
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect()
    });
    let rate = took.len() as f64 / started.elapsed().as_secs_f64();
    println!(
        "list, default sort, {CLIENTS} clients at once ({} requests): {rate:.1} requests/s, median {:.1} ms, p95 {:.1} ms",
        took.len(),
        median(&mut took),
        percentile(&mut took, 0.95)
    );
}
