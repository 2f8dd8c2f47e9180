//! Benchmark of retention (`[retention]` at the defaults of `config.example.toml`) over a year
//! of a 10,000-campaign install: 10 cabinets of 1,000 running campaigns made in the simulator,
//! every campaign delivering every hour (24 `hourly_stats` rows a day each, the worst case),
//! and a trickle of the other kinds retention prunes: per campaign and day one conversion
//! (attributed to it) and one idempotency record (a campaign object as its stored answer), for
//! one campaign in five a status event; per cabinet and day 24 hourly digests and one status
//! change logged in `webhook_deliveries` with their bodies as sent (one receiving key).
//!
//! - the year: each day's rows are written with plain SQL on a connection of the benchmark's
//!   (`synchronous=OFF`; the hourly sync is not what is measured), then the service clock
//!   moves a day and one retention pass runs, as the hourly upkeep would have by then, without
//!   the service pace's pauses ([`YEAR_PACE`]; nothing else waits for the writer). Every 30
//!   days: the database's size, row counts and that day's pass;
//! - the size: the database file and its WAL against a bound stated from the policy: the
//!   rows each kind keeps at most times the bytes a row took (pages in use added / rows
//!   written, measured in this run before anything of that kind was pruned; daily rows in a
//!   scratch database), with [`HEADROOM`] for pages churn leaves part-empty, and
//!   the WAL the service lets grow (its `wal_autocheckpoint` pages, plus
//!   [`WAL_TRANSACTION`]). Checked after the year and again after the measured days below; the
//!   exit status is 1 past either. Beside it, the same year without retention;
//! - the API: the real server in this process after the year, two keep-alive clients
//!   cycling through one cabinet's campaign list (`limit=100`), `account/info`, a `PATCH` of a
//!   campaign's CPM and that cabinet's first campaign's history from the sixth day on (daily
//!   and hourly rows; its totals must not change while a pass rolls them). A baseline of a few
//!   thousand requests with no pass running, then the requests made while a pass rolls a full
//!   day (the clock moved a day, that day's rows written first), [`ROUNDS`] times; medians of
//!   the rounds.
//!
//! A day is written as the hourly sync writes it, hour by hour and cabinet by cabinet, and its
//! trickle one transaction per kind. While the days are written the service's own loop
//! checkpoints the write-ahead log every second in the background, as `serve` does, and the
//! benchmark checkpoints it between simulated hours and after a pass, as that loop would have
//! in the time between them; the next commit then starts the log over.
//!
//! Run: `cargo run --release --example retention_bench` (optional arguments: campaigns and
//! days, defaults 10000 and 365; `--quick` for 1000 campaigns over 60 days with fewer
//! requests). A default run takes about an hour on a 2-core machine. `--keep DIR` copies the
//! database into `DIR` after the year (its log emptied into it first); `--from DIR` measures the
//! API over a year kept so, without writing one (a few minutes), to compare code over the same
//! year.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use adcab::api::campaign_object::Full;
use adcab::config::{Config, RetentionConfig};
use adcab::domain::access::Plan;
use adcab::domain::money::CabinetType;
use adcab::ops::{self, write_back, NewKey};
use adcab::store::history::Source;
use adcab::{clock, jobs::retention, Services};
use chrono::NaiveDate;
use rusqlite::{params, Connection};
use serde_json::{json, Value};

mod common;
#[allow(dead_code)]
#[path = "common/running.rs"]
mod running;
use common::{mix, Server};

/// Cabinets the campaigns are spread over.
const CABINETS: usize = 10;
/// One status event a day for every this many campaigns.
const EVENT_EVERY: usize = 5;
/// Hourly digests logged per cabinet and day (one receiving key).
const DIGESTS: usize = 24;
/// Allowance over the rows' measured bytes for pages churn leaves part-empty (SQLite merges a
/// b-tree page only once it is less than a third full) and free pages not yet reused.
const HEADROOM: f64 = 1.5;
/// Allowance for the WAL beyond the pages after which a commit checkpoints it: the commit
/// that crossed them.
const WAL_TRANSACTION: u64 = 16 << 20;
/// Days of daily rows written into the scratch database that measures a daily row.
const DAILY_SAMPLE_DAYS: usize = 30;
/// Baseline / during-a-pass pairs.
const ROUNDS: usize = 3;
/// Clients requesting at once.
const CLIENTS: usize = 2;
/// Campaigns on a list page.
const PAGE: usize = 100;
/// The pace of the year's passes: nothing else waits for the writer then, so no pauses. The
/// measured passes run at the service's pace.
const YEAR_PACE: retention::Pace = retention::Pace {
    campaigns: 200,
    rows: 5000,
    breather: Duration::ZERO,
    spread: Duration::ZERO,
    rest: 0,
};

/// What retention keeps, each with its own bytes per row.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Hourly,
    Daily,
    Conversions,
    Deliveries,
    Events,
    Idempotency,
}

const KINDS: [Kind; 6] = [
    Kind::Hourly,
    Kind::Daily,
    Kind::Conversions,
    Kind::Deliveries,
    Kind::Events,
    Kind::Idempotency,
];

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Hourly => "hourly_stats",
            Kind::Daily => "daily_stats",
            Kind::Conversions => "conversions (+ attribution)",
            Kind::Deliveries => "webhook_deliveries",
            Kind::Events => "status_events",
            Kind::Idempotency => "idempotency_keys",
        }
    }

    /// Days the policy keeps rows of this kind (`None`: forever). Daily rows are kept forever.
    fn kept_days(self, p: &RetentionConfig) -> Option<usize> {
        let days = match self {
            Kind::Hourly => p.hourly_stats_days,
            Kind::Daily => 0,
            Kind::Conversions => p.conversions_days,
            Kind::Deliveries => p.deliveries_days,
            Kind::Events => p.events_days,
            Kind::Idempotency => p.idempotency_days,
        };
        (days > 0).then_some(days as usize)
    }
}

struct Args {
    campaigns: usize,
    days: usize,
    /// Requests per client in a baseline measurement.
    requests: usize,
    /// A folder to keep the database in after the year.
    keep: Option<PathBuf>,
    /// A folder of a year kept before: the year is not written again.
    from: Option<PathBuf>,
}

const USAGE: &str = "arguments: [campaigns] [days] [--quick] [--keep DIR | --from DIR]";

fn parse_args() -> Args {
    let mut quick = false;
    let (mut keep, mut from) = (None, None);
    let mut numbers = Vec::new();
    let mut given = std::env::args().skip(1);
    while let Some(a) = given.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--keep" => keep = Some(PathBuf::from(given.next().expect(USAGE))),
            "--from" => from = Some(PathBuf::from(given.next().expect(USAGE))),
            _ => numbers.push(a.parse::<usize>().expect(USAGE)),
        }
    }
    let (campaigns, days, requests) = if quick {
        (1000, 60, 300)
    } else {
        (10_000, 365, 2000)
    };
    Args {
        campaigns: numbers.first().copied().unwrap_or(campaigns).max(1),
        days: numbers.get(1).copied().unwrap_or(days).max(2),
        requests,
        keep,
        from,
    }
}

fn main() -> ExitCode {
    let run = Instant::now();
    let args = parse_args();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = Config::default();
    config.storage.path = dir.path().join("retention.db");
    config.demo.bootstrap = false;
    config.sim.auto_review_seconds = 0;
    config.limits.reads_per_minute = 1_000_000_000;
    config.limits.writes_per_minute = 1_000_000_000;
    if let Some(from) = &args.from {
        return resume(from, config, &args, run);
    }
    let policy = config.retention.clone();
    let path = config.storage.path.clone();
    let services = Services::open(config, adcab::db::Open::Create).expect("open");
    let rt = runtime();

    let started = Instant::now();
    let install = setup(&services, args.campaigns);
    let first_day = align_clock(&services);
    println!(
        "setup: {} cabinets, {} campaigns in {:.1} s; policy: hourly_stats {} days, deliveries {}, events {}, idempotency {}, conversions {}",
        install.accounts.len(),
        install.ads.len(),
        started.elapsed().as_secs_f64(),
        policy.hourly_stats_days,
        policy.deliveries_days,
        policy.events_days,
        policy.idempotency_days,
        policy.conversions_days,
    );

    let mut seeder = Seeder::new(&path, &services, &install);
    let mut model = Model {
        policy: &policy,
        install: &install,
        start_used: seeder.used_bytes(),
        wal: seeder.wal_allowance(),
        rows: [0; KINDS.len()],
        bytes: [0; KINDS.len()],
    };
    let (stop_checkpoints, stopped) = tokio::sync::watch::channel(false);
    let checkpoints = rt.spawn(adcab::db::checkpoints(services.db.clone(), stopped));
    let mut passes = Vec::new();
    let (mut writing, year) = (0.0, Instant::now());
    for d in 0..args.days {
        let took = Instant::now();
        let added = seeder.day(first_day + chrono::Days::new(d as u64));
        writing += took.elapsed().as_secs_f64();
        for kind in KINDS {
            // Rows written before the first pass that could prune their kind: nothing was
            // removed from that table yet, so the pages they added are theirs alone.
            if kind.kept_days(&policy).is_none_or(|kept| d + 1 < kept) {
                model.rows[kind as usize] += added.rows[kind as usize];
                model.bytes[kind as usize] += added.bytes[kind as usize];
            }
        }
        advance_day(&services);
        let took = Instant::now();
        let pruned = rt
            .block_on(retention::pass_paced(&services, YEAR_PACE))
            .expect("pass");
        let took = took.elapsed().as_secs_f64();
        seeder.quiet();
        passes.push((pruned.hourly_stats, took));
        if (d + 1) % 30 == 0 || d + 1 == args.days {
            let (hourly, daily) = seeder.counts();
            println!(
                "day {:>3}: {}, hourly_stats {hourly}, daily_stats {daily}; pass {took:.2} s ({} hourly rows rolled); {:.0} s so far",
                d + 1,
                seeder.size(),
                pruned.hourly_stats,
                year.elapsed().as_secs_f64()
            );
        }
    }
    stop_checkpoints.send(true).unwrap();
    rt.block_on(checkpoints).unwrap();
    let sample_rows = install.ads.len() * DAILY_SAMPLE_DAYS;
    model.rows[Kind::Daily as usize] = sample_rows as u64;
    model.bytes[Kind::Daily as usize] =
        (daily_row_bytes(&install.ads, seeder.page_size()) * sample_rows as f64) as i64;
    let year_size = seeder.size();
    let (hourly_rows, daily_rows) = seeder.counts();
    let year_ok = model.report_year(args.days, &year_size, hourly_rows, daily_rows);
    let mut rolling: Vec<f64> = passes
        .iter()
        .filter(|(rolled, _)| *rolled > 0)
        .map(|(_, took)| *took)
        .collect();
    println!(
        "passes rolling a day ({} of them, {} hourly rows each): median {:.2} s, max {:.2} s",
        rolling.len(),
        passes.iter().map(|p| p.0).max().unwrap_or(0),
        percentile(&mut rolling, 0.5),
        percentile(&mut rolling, 1.0)
    );
    println!(
        "the year took {:.0} s: {writing:.0} s writing the days, {:.0} s in passes; pages by table (dbstat): {}",
        year.elapsed().as_secs_f64(),
        passes.iter().map(|p| p.1).sum::<f64>(),
        seeder.dbstat()
    );

    if let Some(keep) = &args.keep {
        seeder.keep(keep, first_day);
    }
    let api = measure_api(
        &rt,
        &services,
        &mut seeder,
        &install,
        first_day,
        args.days,
        args.requests,
    );
    let final_size = seeder.size();
    let final_days = args.days + ROUNDS;
    println!("\n== summary ==");
    println!(
        "after the year ({} days): {:.1} MB, bound {:.1} MB: {}",
        args.days,
        year_size.total_mb(),
        model.bound(args.days) as f64 / MB,
        verdict(year_ok)
    );
    let final_ok = final_size.file + final_size.wal <= model.bound(final_days);
    println!(
        "after the {ROUNDS} measured days too ({final_days} days, the server having served through {ROUNDS} passes): {}; bound {:.1} MB: {}",
        final_size,
        model.bound(final_days) as f64 / MB,
        verdict(final_ok)
    );
    println!("{api}");
    println!("total run: {:.0} s", run.elapsed().as_secs_f64());
    // Returned, not `process::exit`: that would skip removing the database's directory.
    if !year_ok || !final_ok || !api.clean() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The runtime the passes run on, as `serve`'s upkeep would: one worker.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime")
}

/// The database a year left, in a folder of `--keep`.
const KEPT_DB: &str = "retention.db";
/// The year's first day and its days, in a folder of `--keep`.
const KEPT_YEAR: &str = "year.txt";

/// Measures the API over a year an earlier run kept (`--keep`) instead of writing one: a copy
/// of its database, the same install with a key of its own. Sizes are the earlier run's to
/// report.
fn resume(from: &Path, config: Config, args: &Args, run: Instant) -> ExitCode {
    let year = std::fs::read_to_string(from.join(KEPT_YEAR)).expect("the kept year");
    let (first, days) = year.trim().split_once(' ').expect("first day and days");
    let first_day: NaiveDate = first.parse().expect("the first day");
    let days: usize = days.parse().expect("days");
    let path = config.storage.path.clone();
    std::fs::copy(from.join(KEPT_DB), &path).expect("a copy of the kept database");
    let services = Services::open(config, adcab::db::Open::Existing).expect("open");
    let rt = runtime();
    let install = Install::stored(&services);
    println!(
        "resumed: {days} days from {first_day} of {} campaigns in {} cabinets, kept in {}",
        install.ads.len(),
        install.accounts.len(),
        from.display()
    );
    let mut seeder = Seeder::new(&path, &services, &install);
    seeder.days = days as i64;
    let api = measure_api(
        &rt,
        &services,
        &mut seeder,
        &install,
        first_day,
        days,
        args.requests,
    );
    println!("\n== summary ==\n{api}");
    println!("total run: {:.0} s", run.elapsed().as_secs_f64());
    if !api.clean() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "within the bound"
    } else {
        "EXCEEDS THE BOUND"
    }
}

const MB: f64 = 1024.0 * 1024.0;

/// The install: its owner, key, cabinets and campaigns.
struct Install {
    user: i64,
    key_id: i64,
    key: String,
    accounts: Vec<i64>,
    /// Every campaign as `(account_id, ad_id)`, in that order.
    ads: Vec<(i64, i64)>,
}

/// An agency owner with one key that manages every cabinet, and `campaigns` running campaigns
/// spread over [`CABINETS`] euro cabinets, made through the simulator as the panel makes them.
fn setup(s: &Services, campaigns: usize) -> Install {
    let user = ops::user_add(s, "retention@example.com", Plan::Agency)
        .unwrap()
        .id;
    let accounts = common::euro_cabinets(s, user, CABINETS.min(campaigns));
    for i in 0..campaigns {
        let account = accounts[i % accounts.len()];
        write_back::create_stored(s, account, &running::draft(i), None, Source::Panel.into())
            .expect("stored")
            .expect("created");
    }
    let install = Install::of(s, user, accounts);
    assert_eq!(install.ads.len(), campaigns, "every campaign stored");
    install
}

/// Every stored campaign as `(account_id, ad_id)`, in that order.
fn stored_ads(s: &Services) -> Vec<(i64, i64)> {
    s.db.read_blocking(|c| {
        c.prepare("SELECT account_id, ad_id FROM campaigns ORDER BY account_id, ad_id")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<(i64, i64)>>>()
            .map_err(adcab::store::StoreError::from)
    })
    .unwrap()
}

impl Install {
    /// The install of `user` over `accounts`: a new key of theirs that manages every cabinet,
    /// and the stored campaigns.
    fn of(s: &Services, user: i64, accounts: Vec<i64>) -> Install {
        let key = ops::key_create(
            s,
            &NewKey {
                user,
                manage: true,
                ..NewKey::default()
            },
        )
        .unwrap();
        Install {
            user,
            key_id: key.id,
            key: key.key,
            accounts,
            ads: stored_ads(s),
        }
    }

    /// The install of a kept year: its one owner, with their cabinets.
    fn stored(s: &Services) -> Install {
        let user =
            s.db.read_blocking(|c| {
                c.query_row("SELECT id FROM users ORDER BY id LIMIT 1", [], |r| r.get(0))
                    .map_err(adcab::store::StoreError::from)
            })
            .unwrap();
        let accounts = s.db.read_blocking(adcab::store::cabinets::all_ids).unwrap();
        Install::of(s, user, accounts)
    }
}

/// Moves the service clock to five past the next UTC midnight; that day is the first one
/// simulated.
fn align_clock(s: &Services) -> NaiveDate {
    let now = s.db.read_blocking(clock::now).unwrap();
    let day = now.date_naive() + chrono::Days::new(1);
    let target = day.and_hms_opt(0, 5, 0).unwrap().and_utc();
    ops::sim_advance(s, (target - now).num_seconds().max(1)).unwrap();
    day
}

/// Moves the service clock a day. The scheduler is told every hour up to the one in progress
/// is done, as the hourly sync whose rows this benchmark writes itself would have left it.
fn advance_day(s: &Services) {
    s.db.write_blocking(|tx| {
        let now = clock::advance(tx, 24 * 3600)?.expect("within a hundred years");
        let hour = clock::iso(clock::hour_start(now));
        adcab::store::scheduler::set(tx, &hour, &hour)
    })
    .unwrap();
}

/// One campaign's gain in one hour, as [`common::gain_of`] draws them.
fn gain(ad: i64, day: i64, hour: i64) -> [i64; 5] {
    common::gain_of(mix((ad as u64) << 24 ^ (day as u64) << 5 ^ hour as u64))
}

/// The time `second` seconds into `date`, as the service writes times.
fn at(date: NaiveDate, second: usize) -> String {
    format!(
        "{date}T{:02}:{:02}:{:02}Z",
        second / 3600 % 24,
        second / 60 % 60,
        second % 60
    )
}

/// Rows a day added, and the bytes (pages in use) they took, per kind.
#[derive(Default)]
struct Added {
    rows: [u64; KINDS.len()],
    bytes: [i64; KINDS.len()],
}

/// The database file, its WAL, and what SQLite counts in it.
struct Size {
    file: u64,
    wal: u64,
    pages: u64,
    free: u64,
}

impl Size {
    fn total_mb(&self) -> f64 {
        (self.file + self.wal) as f64 / MB
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "file {:.1} MB + WAL {:.1} MB = {:.1} MB (page_count*page_size {:.1} MB, freelist {:.1} MB)",
            self.file as f64 / MB,
            self.wal as f64 / MB,
            self.total_mb(),
            self.pages as f64 / MB,
            self.free as f64 / MB
        )
    }
}

/// Writes the simulated days with plain SQL on a connection of its own.
struct Seeder<'a> {
    conn: Connection,
    /// The service's database, whose checkpoint runs between simulated hours.
    db: adcab::db::Db,
    /// Each cabinet and its campaigns.
    cabinets: Vec<(i64, Vec<i64>)>,
    path: std::path::PathBuf,
    install: &'a Install,
    /// Each cabinet's hourly digest body, as the webhook sender logs it.
    digests: Vec<String>,
    /// An idempotency record's stored answer: a campaign object in the envelope.
    answer: String,
    /// Days written so far.
    days: i64,
}

impl<'a> Seeder<'a> {
    fn new(path: &Path, services: &Services, install: &'a Install) -> Seeder<'a> {
        let conn = adcab::db::open_connection(path).expect("a connection");
        conn.pragma_update(None, "synchronous", "OFF").unwrap();
        conn.pragma_update(None, "cache_size", -262_144).unwrap();
        let (account, ad) = install.ads[0];
        let row = services
            .db
            .read_blocking(|c| adcab::store::campaigns::get(c, account, ad))
            .unwrap()
            .expect("a campaign");
        let answer = json!({
            "body": {
                "success": true,
                "data": Full::of(&row, CabinetType::Euro),
                "request_id": uuid::Uuid::new_v4().to_string(),
            },
            "headers": [],
        })
        .to_string();
        let cabinets = install
            .accounts
            .iter()
            .map(|account| {
                let ads = install.ads.iter().filter(|(a, _)| a == account);
                (*account, ads.map(|(_, ad)| *ad).collect())
            })
            .collect();
        Seeder {
            conn,
            db: services.db.clone(),
            cabinets,
            path: path.to_path_buf(),
            install,
            digests: Vec::new(),
            answer,
            days: 0,
        }
    }

    fn page_size(&self) -> i64 {
        self.conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .unwrap()
    }

    /// Bytes of the pages in use (every page less the free ones).
    fn used_bytes(&self) -> i64 {
        let pages: i64 = self
            .conn
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .unwrap();
        let free: i64 = self
            .conn
            .query_row("PRAGMA freelist_count", [], |r| r.get(0))
            .unwrap();
        (pages - free) * self.page_size()
    }

    /// The WAL the service's connections let grow before a commit checkpoints it (their
    /// `wal_autocheckpoint`, which this connection was opened with), and [`WAL_TRANSACTION`].
    fn wal_allowance(&self) -> u64 {
        let pages: i64 = self
            .conn
            .query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0))
            .unwrap();
        (pages * self.page_size()) as u64 + WAL_TRANSACTION
    }

    fn size(&self) -> Size {
        let len = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        let pragma = |name: &str| -> u64 {
            self.conn
                .query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0))
                .unwrap() as u64
        };
        let page = pragma("page_size");
        Size {
            file: len(&self.path),
            wal: len(Path::new(&wal)),
            pages: pragma("page_count") * page,
            free: pragma("freelist_count") * page,
        }
    }

    fn counts(&self) -> (i64, i64) {
        let count = |table: &str| -> i64 {
            self.conn
                .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
                .unwrap()
        };
        (count("hourly_stats"), count("daily_stats"))
    }

    /// Each table's and index's pages, largest first, from `dbstat`.
    fn dbstat(&self) -> String {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY SUM(pgsize) DESC LIMIT 9",
            )
            .unwrap();
        let rows = stmt
            .query_map([], |r| {
                Ok(format!(
                    "{} {:.1} MB",
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)? as f64 / MB
                ))
            })
            .unwrap()
            .collect::<rusqlite::Result<Vec<_>>>()
            .unwrap();
        rows.join(", ")
    }

    /// What the service's background checkpoint does in the time between two simulated
    /// hours: the write-ahead log copied into the database, so the next commit starts it over.
    fn quiet(&self) {
        self.db.checkpoint().unwrap();
    }

    /// Copies the database into `dir` with the year's first day and days, for `--from`: the
    /// write-ahead log emptied into it first.
    fn keep(&self, dir: &Path, first_day: NaiveDate) {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        std::fs::create_dir_all(dir).expect("the folder to keep the year in");
        std::fs::copy(&self.path, dir.join(KEPT_DB)).expect("a copy of the database");
        std::fs::write(dir.join(KEPT_YEAR), format!("{first_day} {}\n", self.days))
            .expect("the year's days");
        println!("kept the year in {}", dir.display());
    }

    /// Runs `f` in one transaction and returns what it returned and the bytes of pages in use
    /// it added.
    fn measured(&mut self, f: impl FnOnce(&rusqlite::Transaction) -> u64) -> (u64, i64) {
        let before = self.used_bytes();
        let tx = self.conn.transaction().unwrap();
        let rows = f(&tx);
        tx.commit().unwrap();
        (rows, self.used_bytes() - before)
    }

    /// Writes one day of every kind; returns what each kind added.
    fn day(&mut self, date: NaiveDate) -> Added {
        let day = self.days;
        self.days += 1;
        let mut added = Added::default();
        let mut record = |kind: Kind, (rows, bytes): (u64, i64)| {
            added.rows[kind as usize] += rows;
            added.bytes[kind as usize] += bytes;
        };
        let install = self.install;
        for h in 0..24 {
            for (account, ads) in &self.cabinets.clone() {
                record(
                    Kind::Hourly,
                    self.measured(|tx| hourly(tx, *account, ads, date, day, h)),
                );
            }
            self.quiet();
        }
        if self.digests.is_empty() {
            let hour = date.and_hms_opt(0, 0, 0).unwrap().and_utc();
            self.digests = install
                .accounts
                .iter()
                .map(|a| {
                    adcab::webhooks::events::digest(&self.conn, *a, hour)
                        .unwrap()
                        .expect("a digest of an hour with stats")
                        .to_string()
                })
                .collect();
        }
        let (user, key_id) = (install.user, install.key_id);
        let answer = self.answer.clone();
        record(
            Kind::Conversions,
            self.measured(|tx| conversions(tx, user, &install.ads, date, day)),
        );
        self.quiet();
        let events = self.measured(|tx| events(tx, &install.ads, date, day));
        record(Kind::Events, events);
        self.quiet();
        let digests = std::mem::take(&mut self.digests);
        record(
            Kind::Deliveries,
            self.measured(|tx| deliveries(tx, key_id, install, &digests, date, day)),
        );
        self.digests = digests;
        self.quiet();
        record(
            Kind::Idempotency,
            self.measured(|tx| idempotency(tx, user, &answer, install.ads.len(), date, day)),
        );
        self.quiet();
        added
    }
}

/// Every campaign's hour `h` of `date` in one cabinet, as the hourly sync writes them.
fn hourly(
    tx: &rusqlite::Transaction,
    account: i64,
    ads: &[i64],
    date: NaiveDate,
    day: i64,
    h: i64,
) -> u64 {
    let mut stmt = tx
        .prepare_cached(
            "INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .unwrap();
    let hour = format!("{date}T{h:02}:00:00Z");
    for ad in ads {
        let g = gain(*ad, day, h);
        stmt.execute(params![account, ad, hour, g[0], g[1], g[2], g[3], g[4]])
            .unwrap();
    }
    ads.len() as u64
}

/// One purchase postback per campaign, spread over the day, attributed to it.
fn conversions(
    tx: &rusqlite::Transaction,
    holder: i64,
    ads: &[(i64, i64)],
    date: NaiveDate,
    day: i64,
) -> u64 {
    let mut insert = tx
        .prepare_cached(
            "INSERT INTO conversions (holder_id, txid, event_type, ref, invite_link,
                amount_micros, currency, status, account_id, received_at, updated_at)
             VALUES (?1, ?2, 'purchase', ?3, NULL, ?4, 'EUR', NULL, ?5, ?6, ?6)",
        )
        .unwrap();
    let mut attribute = tx
        .prepare_cached(
            "INSERT INTO conversion_campaigns (conversion_id, account_id, ad_id) VALUES (?1, ?2, ?3)",
        )
        .unwrap();
    for (i, (account, ad)) in ads.iter().enumerate() {
        let h = mix((day as u64) << 32 ^ i as u64);
        let txid = format!("{:016x}-{:08x}", h, h >> 32);
        let amount = 1_000_000 + (h % 50_000_000) as i64;
        let received = at(date, i * 86_400 / ads.len());
        insert
            .execute(params![
                holder,
                txid,
                format!("ad{ad}"),
                amount,
                account,
                received
            ])
            .unwrap();
        attribute
            .execute(params![tx.last_insert_rowid(), account, ad])
            .unwrap();
    }
    ads.len() as u64
}

/// A status change (sent) for one campaign in [`EVENT_EVERY`], spread over the day.
fn events(tx: &rusqlite::Transaction, ads: &[(i64, i64)], date: NaiveDate, day: i64) -> u64 {
    let mut stmt = tx
        .prepare_cached(
            "INSERT INTO status_events (account_id, ad_id, tme_path, old_status, new_status, source, at, sent)
             VALUES (?1, ?2, NULL, ?3, ?4, 'sync', ?5, 1)",
        )
        .unwrap();
    let mut rows = 0;
    for (i, (account, ad)) in ads.iter().enumerate() {
        if !(i + day as usize).is_multiple_of(EVENT_EVERY) {
            continue;
        }
        let (old, new) = if day % 2 == 0 {
            ("Active", "On Hold")
        } else {
            ("On Hold", "Active")
        };
        stmt.execute(params![
            account,
            ad,
            old,
            new,
            at(date, i * 86_400 / ads.len())
        ])
        .unwrap();
        rows += 1;
    }
    rows
}

/// Per cabinet, [`DIGESTS`] hourly digests at five past each hour, then at the end of the day
/// one status change listing that day's changes of the cabinet; every one delivered at once.
fn deliveries(
    tx: &rusqlite::Transaction,
    key_id: i64,
    install: &Install,
    digests: &[String],
    date: NaiveDate,
    day: i64,
) -> u64 {
    let mut stmt = tx
        .prepare_cached(
            "INSERT INTO webhook_deliveries (key_id, event, delivery_id, attempts, status, duration_ms, error, created_at, payload)
             VALUES (?1, ?2, ?3, 1, 200, ?4, NULL, ?5, ?6)",
        )
        .unwrap();
    let mut rows = 0;
    let mut log = |event: &str, at: String, payload: &str| {
        let id = uuid::Uuid::new_v4().to_string();
        let took = 20 + (mix(rows) % 200) as i64;
        stmt.execute(params![key_id, event, id, took, at, payload])
            .unwrap();
        rows += 1;
    };
    for h in 0..DIGESTS {
        for digest in digests {
            log("hourly_digest", at(date, h * 3600 + 300), digest);
        }
    }
    for account in &install.accounts {
        let changes: Vec<Value> = install
            .ads
            .iter()
            .enumerate()
            .filter(|(i, (a, _))| a == account && (i + day as usize).is_multiple_of(EVENT_EVERY))
            .map(|(_, (_, ad))| {
                json!({ "ad_id": ad, "tme_path": null, "old_status": "Active", "new_status": "On Hold" })
            })
            .collect();
        let payload =
            json!({ "event": "status_change", "account_id": account, "changes": changes });
        log("status_change", at(date, 86_340), &payload.to_string());
    }
    rows
}

/// One finished idempotency record per campaign (a budget move's answer), spread over the day.
fn idempotency(
    tx: &rusqlite::Transaction,
    holder: i64,
    answer: &str,
    count: usize,
    date: NaiveDate,
    day: i64,
) -> u64 {
    let mut stmt = tx
        .prepare_cached(
            "INSERT INTO idempotency_keys (holder_id, key, fingerprint, state, status, response, created_at)
             VALUES (?1, ?2, ?3, 'done', 200, ?4, ?5)",
        )
        .unwrap();
    for i in 0..count {
        let h = mix((day as u64) << 40 ^ i as u64 ^ 0x5eed);
        let key = uuid::Uuid::from_u64_pair(h, mix(h)).to_string();
        let fingerprint = format!(
            "{:016x}{:016x}{:016x}{:016x}",
            mix(h ^ 1),
            mix(h ^ 2),
            mix(h ^ 3),
            mix(h ^ 4)
        );
        stmt.execute(params![
            holder,
            key,
            fingerprint,
            answer,
            at(date, i * 86_400 / count)
        ])
        .unwrap();
    }
    count as u64
}

/// Bytes a daily row takes: [`DAILY_SAMPLE_DAYS`] days of every campaign's daily row written
/// into a scratch database with the service's schema, day after day and per cabinet, as the
/// pass writes them.
fn daily_row_bytes(ads: &[(i64, i64)], page_size: i64) -> f64 {
    let mut conn = Connection::open_in_memory().unwrap();
    conn.pragma_update(None, "page_size", page_size).unwrap();
    adcab::db::schema::migrate(&mut conn).unwrap();
    let used = |c: &Connection| -> i64 {
        let pages: i64 = c.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
        let free: i64 = c
            .query_row("PRAGMA freelist_count", [], |r| r.get(0))
            .unwrap();
        (pages - free) * page_size
    };
    let before = used(&conn);
    let tx = conn.transaction().unwrap();
    {
        let mut stmt = tx
            .prepare(
                "INSERT INTO daily_stats (account_id, ad_id, day, views, opens, clicks, actions, spent_micros)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .unwrap();
        let first = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
        for d in 0..DAILY_SAMPLE_DAYS {
            let date = (first + chrono::Days::new(d as u64)).to_string();
            for (account, ad) in ads {
                let mut sum = [0i64; 5];
                for h in 0..24 {
                    for (s, g) in sum.iter_mut().zip(gain(*ad, d as i64, h)) {
                        *s += g;
                    }
                }
                stmt.execute(params![
                    account, ad, date, sum[0], sum[1], sum[2], sum[3], sum[4]
                ])
                .unwrap();
            }
        }
    }
    tx.commit().unwrap();
    (used(&conn) - before) as f64 / (ads.len() * DAILY_SAMPLE_DAYS) as f64
}

/// The policy's rows of each kind and the bytes a row took: the bound, and the year without
/// retention.
struct Model<'a> {
    policy: &'a RetentionConfig,
    install: &'a Install,
    /// Bytes of pages in use before the first day (users, cabinets, campaigns, the simulator).
    start_used: i64,
    /// Bytes the WAL may take: the service's `wal_autocheckpoint` pages and
    /// [`WAL_TRANSACTION`].
    wal: u64,
    /// Rows of each kind written while nothing of their kind had been pruned, and the bytes
    /// of pages in use they added.
    rows: [u64; KINDS.len()],
    bytes: [i64; KINDS.len()],
}

impl Model<'_> {
    fn per_row(&self, kind: Kind) -> f64 {
        let i = kind as usize;
        if self.rows[i] == 0 {
            0.0
        } else {
            self.bytes[i] as f64 / self.rows[i] as f64
        }
    }

    /// Rows of `kind` a day adds (daily rows: a day rolled).
    fn per_day(&self, kind: Kind) -> u64 {
        let campaigns = self.install.ads.len() as u64;
        match kind {
            Kind::Hourly => campaigns * 24,
            Kind::Daily | Kind::Conversions | Kind::Idempotency => campaigns,
            Kind::Deliveries => self.install.accounts.len() as u64 * (DIGESTS as u64 + 1),
            Kind::Events => campaigns.div_ceil(EVENT_EVERY as u64),
        }
    }

    /// The most rows of `kind` kept at once after `days`: a day more than the policy's days
    /// (the day in progress, or the day the next pass prunes); daily rows for every day
    /// rolled.
    fn kept_rows(&self, kind: Kind, days: usize) -> u64 {
        let kept = match kind {
            Kind::Daily => days.saturating_sub(self.policy.hourly_stats_days as usize),
            _ => kind
                .kept_days(self.policy)
                .map_or(days, |k| days.min(k + 1)),
        };
        self.per_day(kind) * kept as u64
    }

    /// Bytes of every row the policy keeps after `days`.
    fn kept_bytes(&self, days: usize) -> f64 {
        KINDS
            .iter()
            .map(|k| self.kept_rows(*k, days) as f64 * self.per_row(*k))
            .sum()
    }

    /// The stated bound after `days`: what was there before, the rows the policy keeps with
    /// [`HEADROOM`], and the WAL.
    fn bound(&self, days: usize) -> u64 {
        (self.start_used as f64 + self.kept_bytes(days) * HEADROOM) as u64 + self.wal
    }

    /// Prints the year against the bound and against no retention; whether it is within.
    fn report_year(&self, days: usize, size: &Size, hourly: i64, daily: i64) -> bool {
        let campaigns = self.install.ads.len() as u64;
        let hourly_days = self.policy.hourly_stats_days as u64;
        println!("\n== {campaigns} campaigns, {days} days ==");
        println!(
            "bytes per row (pages in use added / rows written, before anything of the kind was pruned):"
        );
        for kind in KINDS {
            let rows = self.kept_rows(kind, days);
            println!(
                "  {:<28} {:>8.1} B/row ({} rows measured); kept at most {rows} rows = {:.1} MB",
                kind.name(),
                self.per_row(kind),
                self.rows[kind as usize],
                rows as f64 * self.per_row(kind) / MB
            );
        }
        println!("final database: {size}");
        println!(
            "hourly_stats rows: {hourly} (expected campaigns x 24 x hourly_stats_days = {}; at most {} with the day in progress)",
            campaigns * 24 * hourly_days.min(days as u64),
            self.kept_rows(Kind::Hourly, days)
        );
        println!(
            "daily_stats rows: {daily} (expected campaigns x days rolled = {})",
            self.kept_rows(Kind::Daily, days)
        );
        let (bound, total) = (self.bound(days), size.file + size.wal);
        println!(
            "stated bound: {:.1} MB before the first day + {HEADROOM} x {:.1} MB of rows the policy keeps + {:.0} MB of WAL = {:.1} MB; final {:.1} MB = {:.0}% of it: {}",
            self.start_used as f64 / MB,
            self.kept_bytes(days) / MB,
            self.wal as f64 / MB,
            bound as f64 / MB,
            total as f64 / MB,
            100.0 * total as f64 / bound as f64,
            verdict(total <= bound)
        );
        println!(
            "pages in use: {:.1} MB, {:.2} x the kept rows' measured bytes",
            (size.pages - size.free) as f64 / MB,
            ((size.pages - size.free) as f64 - self.start_used as f64) / self.kept_bytes(days)
        );
        let hourly_all = campaigns * 24 * days as u64;
        let without = self.start_used as f64
            + KINDS
                .iter()
                .filter(|k| **k != Kind::Daily)
                .map(|k| (self.per_day(*k) * days as u64) as f64 * self.per_row(*k))
                .sum::<f64>();
        println!(
            "without retention: hourly_stats alone {hourly_all} rows x {:.1} B = {:.1} MB; the whole database {:.1} MB, {:.1}x this one",
            self.per_row(Kind::Hourly),
            hourly_all as f64 * self.per_row(Kind::Hourly) / MB,
            without / MB,
            without / total as f64
        );
        total <= bound
    }
}

/// The requests of the latency measurement, in the order each client cycles through them.
const REQUESTS: [&str; 4] = ["list", "account/info", "PATCH", "history"];
/// The history, whose totals are checked.
const HISTORY: usize = 3;

/// What one client asks for.
struct Client {
    list: String,
    info: String,
    patch: String,
    history: String,
    key: String,
}

/// One request's latency (ms) and whether it answered as expected.
struct Timed {
    request: usize,
    ms: f64,
    ok: bool,
}

/// Requests until `count` are made or, with no count, until `stop` turns true. `history` is
/// the history's expected `data`, unchecked when null.
fn client(plan: &Client, count: Option<usize>, stop: &AtomicBool, history: &Value) -> Vec<Timed> {
    let agent = ureq::agent();
    let mut done = Vec::new();
    let mut cpm = 0;
    while count.map_or(!stop.load(Ordering::SeqCst), |n| done.len() < n) {
        let request = done.len() % REQUESTS.len();
        let sent = Instant::now();
        let answer = match request {
            0 => agent.get(&plan.list).set("X-API-Key", &plan.key).call(),
            1 => agent.get(&plan.info).set("X-API-Key", &plan.key).call(),
            2 => {
                cpm += 1;
                agent
                    .request("PATCH", &plan.patch)
                    .set("X-API-Key", &plan.key)
                    .set("Content-Type", "application/json")
                    .send_string(&json!({ "cpm": format!("2.{}", 1 + cpm % 2) }).to_string())
            }
            _ => agent.get(&plan.history).set("X-API-Key", &plan.key).call(),
        };
        let (ok, body) = match answer {
            Ok(r) => (r.status() == 200, r.into_string().unwrap_or_default()),
            Err(ureq::Error::Status(code, r)) => {
                let text = r.into_string().unwrap_or_default();
                eprintln!("{} answered {code}: {text}", REQUESTS[request]);
                (false, String::new())
            }
            Err(e) => {
                eprintln!("{}: {e}", REQUESTS[request]);
                (false, String::new())
            }
        };
        let ms = sent.elapsed().as_secs_f64() * 1000.0;
        // The history's span ends with a day long past: rolling its hours into days must not
        // change its totals.
        let ok = ok
            && (request != HISTORY
                || history.is_null()
                || serde_json::from_str::<Value>(&body).is_ok_and(|v| v["data"] == *history));
        if !ok && request == HISTORY {
            eprintln!("history answered other totals than before: {body}");
        }
        done.push(Timed { request, ms, ok });
    }
    done
}

/// The clients at once, each making `count` requests or requesting until `stop` turns true.
fn clients(
    plans: &[Client],
    count: Option<usize>,
    stop: &AtomicBool,
    histories: &[Value],
) -> Vec<Timed> {
    std::thread::scope(|scope| {
        let running: Vec<_> = plans
            .iter()
            .zip(histories)
            .map(|(plan, history)| scope.spawn(move || client(plan, count, stop, history)))
            .collect();
        running
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect()
    })
}

/// Latencies of one measurement: over every request, and the p99 of each.
struct Latency {
    count: usize,
    failed: usize,
    p50: f64,
    p99: f64,
    max: f64,
    each: [f64; REQUESTS.len()],
}

impl Latency {
    fn of(timed: &[Timed]) -> Latency {
        let mut all: Vec<f64> = timed.iter().map(|t| t.ms).collect();
        let mut each = [0.0; REQUESTS.len()];
        for (i, p99) in each.iter_mut().enumerate() {
            let mut of: Vec<f64> = timed
                .iter()
                .filter(|t| t.request == i)
                .map(|t| t.ms)
                .collect();
            *p99 = percentile(&mut of, 0.99);
        }
        Latency {
            count: timed.len(),
            failed: timed.iter().filter(|t| !t.ok).count(),
            p50: percentile(&mut all, 0.5),
            p99: percentile(&mut all, 0.99),
            max: percentile(&mut all, 1.0),
            each,
        }
    }
}

impl std::fmt::Display for Latency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} requests ({} failed): p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms; p99 of each:",
            self.count, self.failed, self.p50, self.p99, self.max
        )?;
        for (name, p99) in REQUESTS.iter().zip(self.each) {
            write!(f, " {name} {p99:.1}")?;
        }
        Ok(())
    }
}

/// The latency measurements: a baseline and a measurement during a pass, each round.
struct Api {
    rounds: Vec<(Latency, Latency)>,
}

impl Api {
    fn clean(&self) -> bool {
        self.rounds
            .iter()
            .all(|(b, d)| b.failed == 0 && d.failed == 0)
    }

    fn median(&self, pick: impl Fn(&(Latency, Latency)) -> f64) -> f64 {
        let mut v: Vec<f64> = self.rounds.iter().map(pick).collect();
        percentile(&mut v, 0.5)
    }
}

impl std::fmt::Display for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.rounds.len();
        writeln!(
            f,
            "API ({CLIENTS} clients), medians of {n} rounds: baseline p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms",
            self.median(|r| r.0.p50),
            self.median(|r| r.0.p99),
            self.median(|r| r.0.max),
        )?;
        writeln!(
            f,
            "API ({CLIENTS} clients), medians of {n} rounds: during a pass p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms",
            self.median(|r| r.1.p50),
            self.median(|r| r.1.p99),
            self.median(|r| r.1.max),
        )?;
        writeln!(
            f,
            "p99 during / p99 baseline: median {:.2} (rounds: {})",
            self.median(|r| r.1.p99 / r.0.p99),
            self.rounds
                .iter()
                .map(|r| format!("{:.2}", r.1.p99 / r.0.p99))
                .collect::<Vec<_>>()
                .join(", "),
        )?;
        write!(f, "p99 of each, baseline -> during (medians):")?;
        for (i, name) in REQUESTS.iter().enumerate() {
            write!(
                f,
                " {name} {:.1} -> {:.1} ms;",
                self.median(|r| r.0.each[i]),
                self.median(|r| r.1.each[i])
            )?;
        }
        write!(
            f,
            "\nfailed requests or changed history totals: {}",
            self.rounds
                .iter()
                .map(|r| r.0.failed + r.1.failed)
                .sum::<usize>()
        )
    }
}

/// Starts the server on the install after `days` from `first_day` and measures the API's
/// latency without a pass (`requests` per client), then during a pass with a day to roll,
/// [`ROUNDS`] times.
fn measure_api(
    rt: &tokio::runtime::Runtime,
    services: &Services,
    seeder: &mut Seeder,
    install: &Install,
    first_day: NaiveDate,
    days: usize,
    requests: usize,
) -> Api {
    println!("\n== API latency without and during a pass ==");
    let started = Instant::now();
    let server = Server::start(services.clone());
    // The history's span: from the sixth day to the day before the last one, so it covers
    // daily rows, hourly rows and the days the measured passes roll.
    let last = first_day + chrono::Days::new(days as u64 - 2);
    let from = first_day + chrono::Days::new(5.min(days as u64 - 2));
    let plans: Vec<Client> = (0..CLIENTS)
        .map(|c| {
            let account = install.accounts[c % install.accounts.len()];
            let ads: Vec<i64> = install
                .ads
                .iter()
                .filter(|(a, _)| *a == account)
                .map(|(_, ad)| *ad)
                .collect();
            let base = &server.base;
            let patched = ads[(c / install.accounts.len() + 1) % ads.len()];
            Client {
                list: format!("{base}/campaigns?limit={PAGE}&account_id={account}"),
                info: format!("{base}/account/info"),
                patch: format!("{base}/campaigns/{patched}?account_id={account}"),
                history: format!(
                    "{base}/campaigns/{}/history?account_id={account}&period=custom&startDate={from}&endDate={last}",
                    ads[0]
                ),
                key: install.key.clone(),
            }
        })
        .collect();
    let stop = AtomicBool::new(false);
    let warm = clients(&plans, Some(100), &stop, &vec![Value::Null; CLIENTS]);
    assert!(
        warm.iter().all(|t| t.ok),
        "every warm-up request answered 200"
    );
    let histories: Vec<Value> = plans
        .iter()
        .map(|p| {
            let body = ureq::get(&p.history)
                .set("X-API-Key", &p.key)
                .call()
                .expect("history")
                .into_string()
                .unwrap();
            serde_json::from_str::<Value>(&body).unwrap()["data"].clone()
        })
        .collect();
    println!(
        "server at {}; campaign history {from} to {last}: {}",
        server.base, histories[0]
    );
    common::after_upkeep_first_pass(started);

    let mut rounds = Vec::new();
    for round in 1..=ROUNDS {
        let baseline = Latency::of(&clients(&plans, Some(requests), &stop, &histories));
        println!("round {round} baseline: {baseline}");
        let date = first_day + chrono::Days::new((days + round - 1) as u64);
        let written = Instant::now();
        seeder.day(date);
        advance_day(services);
        let written = written.elapsed().as_secs_f64();
        stop.store(false, Ordering::SeqCst);
        let (pruned, took, during) = std::thread::scope(|scope| {
            let running = scope.spawn(|| clients(&plans, None, &stop, &histories));
            let started = Instant::now();
            let pruned = rt.block_on(retention::pass(services)).expect("pass");
            let took = started.elapsed().as_secs_f64();
            stop.store(true, Ordering::SeqCst);
            (pruned, took, running.join().unwrap())
        });
        let during = Latency::of(&during);
        println!(
            "round {round} during a pass: {during}\n  the pass: {took:.2} s, {} hourly rows rolled, {} deliveries, {} events, {} idempotency records removed ({date} written in {written:.1} s before it); then {}",
            pruned.hourly_stats,
            pruned.webhook_deliveries,
            pruned.status_events,
            pruned.idempotency_records,
            seeder.size()
        );
        rounds.push((baseline, during));
    }
    drop(server);
    Api { rounds }
}

fn percentile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let rank = (v.len() as f64 * q).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}
