//! Two twins of one install, written directly in bulk: its first day ("day 1") and its year
//! ("day 365"), the fixture of `year_bench`. Included by path where used
//! (`#[path = "common/year.rs"]`).
//!
//! The install is made the usual way: one agency owner with a panel password and an API key
//! that manages every cabinet, `cabinets` x `per_cabinet` campaigns of `running.rs` (the
//! simulator approves them a minute after creation), one real hourly sync of every cabinet.
//! Each twin is a copy of it (`VACUUM INTO`) whose service clock moves on by its days (1 or
//! 365), with the scheduler's marks set so nothing is due for the next hours (no catch-up of
//! 8,760 hours; no sync while measuring). Its days are then written with plain SQL on a
//! connection of the fixture's own (no journal, `synchronous=OFF`, one transaction per table,
//! rows in primary-key order, the tables' secondary indexes and the stats rows' run triggers
//! dropped first and made again after, the runs written with the rows), as retention leaves
//! them at the defaults of `[retention]` (but for conversions, see [`CONVERSIONS_DAYS`]), the
//! same code for both twins:
//!
//! - `hourly_stats` for every campaign and every hour newer than the hourly cutoff (35 days),
//!   `daily_stats` (each day's sum of the same gains) before it, `cabinet_hours` for every
//!   hour of the year; each campaign's counters (and its hourly sync's marks, and the
//!   simulator's copy) raised by what its hours and days add up to, its budget left 100.00
//!   above what it spent, so it keeps running;
//! - one purchase per campaign and day (at the same time of each day, the campaigns spread
//!   over the day, so the first day has one per campaign too), attributed in the conversion's
//!   own row (`ad_id`), as ingest stores it, with `conversion_totals` equal to their sums;
//! - status events (one campaign in five a day, sent) for 90 days, webhook deliveries (per
//!   cabinet 24 hourly digests and one status change a day) for 30, and each campaign's budget
//!   top-up in its history every 30 days (each no further back than the install). No rule
//!   exists, so no rule log.
//!
//! A pass of the real retention (no pauses) then settles each twin; in the year it rolls the
//! set-up's synced hour into its day and removes the first day's conversions, which says the
//! rest is as retention leaves it.
//!
//! Schema-bound writes (the columns of today's tables) are in [`Writer`]'s methods, one per
//! table: a change of those tables changes the matching method.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use adcab::config::Config;
use adcab::domain::access::Plan;
use adcab::domain::money::Money;
use adcab::domain::stats::Totals;
use adcab::jobs::{hourly_sync, retention};
use adcab::ops::{self, NewKey};
use adcab::{clock, Services};
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};
use serde_json::json;

use crate::common::{gain_of, mix};
use crate::running;

pub const EMAIL: &str = "year@example.com";
pub const PASSWORD: &str = "correct horse battery";
/// Days the clock moves on by.
pub const DAYS: i64 = 365;
/// Days conversions are kept (the default is 400): one less than the year, so the settling
/// pass removes the year's first day of them and every later pass the day the clock moved on
/// by, as retention does each day on an install more than 400 days old, through the triggers
/// that keep each campaign's and cabinet's conversions per week and day.
pub const CONVERSIONS_DAYS: u32 = DAYS as u32 - 1;
/// Hours ahead of the clock the scheduler's marks are set, so no sync runs while measuring.
const QUIET_HOURS: i64 = 1;
/// The pace of the settling pass: nothing waits for the writer then.
const NO_PAUSES: retention::Pace = retention::Pace {
    campaigns: 200,
    rows: 5000,
    breather: Duration::ZERO,
    spread: Duration::ZERO,
    rest: 0,
};

/// Both installs, open, with what the bench needs to address them.
pub struct Twins {
    /// Keeps the databases' folder until the twins are dropped.
    pub _dir: tempfile::TempDir,
    pub day1: Services,
    pub year: Services,
    pub year_path: PathBuf,
    pub key: String,
    pub key_id: i64,
    pub user: i64,
    pub accounts: Vec<i64>,
    /// Every campaign as `(account_id, ad_id)`, cabinet after cabinet.
    pub ads: Vec<(i64, i64)>,
}

/// The configuration of either twin at `path`: the panel on, reviews decided after a minute,
/// no request limits in the way of a benchmark.
pub fn config(path: &Path) -> Config {
    let mut config = Config::default();
    config.storage.path = path.to_path_buf();
    config.demo.bootstrap = false;
    config.panel.enabled = true;
    config.sim.auto_review_seconds = 60;
    config.retention.conversions_days = CONVERSIONS_DAYS;
    config.limits.reads_per_minute = 1_000_000_000;
    config.limits.writes_per_minute = 1_000_000_000;
    config
}

/// Makes the install, its clock `ahead` days ahead of today's (so the twins' days fall on
/// other weekdays), then its twins from copies of it: day 1 (its first day written) and day
/// 365 (its year); prints what each step took and the sizes.
pub fn make(cabinets: usize, per_cabinet: usize, ahead: i64) -> Twins {
    let dir = tempfile::tempdir().expect("temp dir");
    let install_path = dir.path().join("install.db");
    let started = Instant::now();
    let install = Services::open(config(&install_path), adcab::db::Open::Create).expect("open");
    install
        .db
        .write_blocking(|tx| clock::advance(tx, ahead * 24 * 3600))
        .unwrap()
        .expect("within a hundred years");
    let user = ops::user_add(&install, EMAIL, Plan::Agency).unwrap().id;
    ops::user_set(&install, user, None, None, Some(PASSWORD)).unwrap();
    let key = ops::key_create(
        &install,
        &NewKey {
            user,
            manage: true,
            ..NewKey::default()
        },
    )
    .unwrap();
    let accounts = crate::common::euro_cabinets(&install, user, cabinets);
    running::fill(&install, &accounts, per_cabinet);
    let synced = first_sync(&install, &accounts);
    let ads = stored_ads(&install);
    install.db.checkpoint().unwrap();
    drop(install);
    println!(
        "install: {cabinets} cabinets x {per_cabinet} campaigns made and synced in {:.1} s",
        started.elapsed().as_secs_f64(),
    );
    let twin = |name: &str, days: i64| {
        let started = Instant::now();
        let path = dir.path().join(name);
        let conn = adcab::db::open_connection(&install_path).expect("a connection");
        conn.execute("VACUUM INTO ?1", [path.to_str().expect("UTF-8")])
            .expect("the copy");
        drop(conn);
        let mut writer = Writer::open(&path, user, key.id, &accounts, &ads);
        let now = writer.move_clock(days);
        let cutoff = retention::Cutoffs::at(&config(&path).retention, now)
            .hourly_stats
            .and_then(|c| clock::parse_iso(&c))
            .expect("hourly stats kept for days");
        let first = synced + chrono::Duration::hours(1);
        let end = clock::hour_start(now);
        writer.year(first, end, cutoff, now);
        writer.close();
        let twin = Services::open(config(&path), adcab::db::Open::Existing).expect("open");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let settled = rt
            .block_on(retention::pass_paced(&twin, NO_PAUSES))
            .expect("the settling pass");
        twin.db.checkpoint().unwrap();
        println!(
            "{name}: {} to {} (clock {}) written in {:.1} s; the settling pass rolled {} hourly rows, removed {} conversions, {} deliveries, {} events; {:.1} MB (file and WAL)",
            clock::iso(first),
            clock::iso(end),
            clock::iso(now),
            started.elapsed().as_secs_f64(),
            settled.hourly_stats,
            settled.conversions,
            settled.webhook_deliveries,
            settled.status_events,
            size_mb(&path),
        );
        (twin, path)
    };
    let (day1, _) = twin("day1.db", 1);
    let (year, year_path) = twin("year.db", DAYS);
    Twins {
        _dir: dir,
        day1,
        year,
        year_path,
        key: key.key,
        key_id: key.id,
        user,
        accounts,
        ads,
    }
}

/// The database file and its WAL, in MB.
pub fn size_mb(path: &Path) -> f64 {
    let len = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let mut wal = path.to_path_buf().into_os_string();
    wal.push("-wal");
    (len(path) + len(Path::new(&wal))) as f64 / (1024.0 * 1024.0)
}

/// Moves the clock just past the next hour plus five minutes (the reviews are decided by then)
/// and syncs every cabinet's hour before it, as the hourly sync does; that hour's start.
fn first_sync(s: &Services, accounts: &[i64]) -> DateTime<Utc> {
    let now = s.db.read_blocking(clock::now).unwrap();
    let into_hour = now.timestamp().rem_euclid(3600);
    ops::sim_advance(s, 3600 - into_hour + 5 * 60).unwrap();
    let hour = clock::hour_start(now);
    for account in accounts {
        hourly_sync::sync_cabinet(s, *account, hour, false)
            .unwrap()
            .expect("synced");
    }
    hour
}

/// Leaves nothing due at `now`: the scheduler's next sync and digest [`QUIET_HOURS`] after the
/// hour in progress, every cabinet synced through it, every status event sent, the simulator's
/// delivery accrued up to it.
pub fn quiet(tx: &Connection, now: DateTime<Utc>) -> Result<(), adcab::store::StoreError> {
    let hour = clock::hour_start(now);
    let next = clock::iso(hour + chrono::Duration::hours(QUIET_HOURS));
    adcab::store::scheduler::set(tx, &next, &next)?;
    tx.execute(
        "UPDATE cabinets SET synced_through = ?1",
        [clock::iso(hour)],
    )?;
    tx.execute("UPDATE status_events SET sent = 1 WHERE sent = 0", [])?;
    tx.execute("UPDATE sim_ads SET accrued_until = ?1", [clock::iso(now)])?;
    Ok(())
}

/// Every stored campaign as `(account_id, ad_id)`, in that order.
pub fn stored_ads(s: &Services) -> Vec<(i64, i64)> {
    s.db.read_blocking(|c| {
        c.prepare("SELECT account_id, ad_id FROM campaigns ORDER BY account_id, ad_id")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<(i64, i64)>>>()
            .map_err(adcab::store::StoreError::from)
    })
    .unwrap()
}

/// One campaign's gain in the hour starting at `hour` (Unix seconds), as
/// [`crate::common::gain_of`] draws them.
pub fn gain(ad: i64, hour: i64) -> [i64; 5] {
    gain_of(mix((ad as u64) << 32 ^ (hour / 3600) as u64))
}

/// Writes the year into a copy of the install on a connection of its own.
pub struct Writer {
    conn: Connection,
    user: i64,
    key_id: i64,
    /// Each cabinet and its campaigns.
    cabinets: Vec<(i64, Vec<i64>)>,
}

/// Tables the year fills, whose secondary indexes are made again after their rows.
const FILLED: [&str; 8] = [
    "hourly_stats",
    "daily_stats",
    "cabinet_hours",
    "conversions",
    "conversion_totals",
    "status_events",
    "webhook_deliveries",
    "campaign_history",
];

/// A campaign's top-up in its history, every this many days.
const TOP_UP_EVERY: i64 = 30;

impl Writer {
    pub fn open(
        path: &Path,
        user: i64,
        key_id: i64,
        accounts: &[i64],
        ads: &[(i64, i64)],
    ) -> Writer {
        let conn = Connection::open(path).expect("the year's database");
        conn.pragma_update(None, "journal_mode", "OFF").unwrap();
        conn.pragma_update(None, "synchronous", "OFF").unwrap();
        conn.pragma_update(None, "cache_size", -262_144).unwrap();
        Writer::on(conn, user, key_id, accounts, ads)
    }

    /// A writer on `conn`, with each cabinet's campaigns gathered from `ads`.
    fn on(
        conn: Connection,
        user: i64,
        key_id: i64,
        accounts: &[i64],
        ads: &[(i64, i64)],
    ) -> Writer {
        let cabinets = accounts
            .iter()
            .map(|account| {
                let of = ads.iter().filter(|(a, _)| a == account);
                (*account, of.map(|(_, ad)| *ad).collect())
            })
            .collect();
        Writer {
            conn,
            user,
            key_id,
            cabinets,
        }
    }

    /// Moves the service clock on by `days` from the install's and leaves nothing due then
    /// ([`quiet`]); the clock's new time.
    pub fn move_clock(&mut self, days: i64) -> DateTime<Utc> {
        let tx = self.conn.unchecked_transaction().unwrap();
        let now = clock::advance(&tx, days * 24 * 3600)
            .unwrap()
            .expect("within a hundred years");
        quiet(&tx, now).unwrap();
        tx.commit().unwrap();
        now
    }

    /// Back to the service's journal, WAL.
    pub fn close(self) {
        self.conn
            .pragma_update(None, "journal_mode", "WAL")
            .unwrap();
    }

    /// Runs `f` in one transaction, printing what it wrote and how long that took.
    fn step(&mut self, what: &str, f: impl FnOnce(&rusqlite::Transaction, &Writer) -> u64) {
        let started = Instant::now();
        let tx = self.conn.unchecked_transaction().unwrap();
        let rows = f(&tx, self);
        tx.commit().unwrap();
        println!(
            "  {what}: {rows} rows in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }

    /// The `kind` of schema objects (`index`, `trigger`) made on `tables`, each as its name
    /// and the SQL that makes it (indexes SQLite made for a key, which have none, left out).
    fn schema(&self, kind: &str, tables: &[&str]) -> Vec<(String, String)> {
        let marks = tables
            .iter()
            .map(|t| format!("'{t}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT name, sql FROM sqlite_master WHERE type = ?1
                 AND sql IS NOT NULL AND tbl_name IN ({marks})"
            ))
            .unwrap();
        let found = stmt
            .query_map([kind], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<Vec<_>>>()
            .unwrap();
        found
    }

    /// Every kind of row for the hours from `first` to before `end`, hourly stats from
    /// `cutoff` on; `now` dates the kinds kept for some days.
    pub fn year(
        &mut self,
        first: DateTime<Utc>,
        end: DateTime<Utc>,
        cutoff: DateTime<Utc>,
        now: DateTime<Utc>,
    ) {
        let indexes = self.schema("index", &FILLED);
        // The stats rows' running sums are written with them: their triggers go while they
        // are, and come back with the indexes.
        let triggers = self.schema("trigger", &["hourly_stats", "daily_stats"]);
        for (kind, name) in indexes
            .iter()
            .map(|i| ("INDEX", &i.0))
            .chain(triggers.iter().map(|t| ("TRIGGER", &t.0)))
        {
            self.conn
                .execute_batch(&format!("DROP {kind} {name}"))
                .unwrap();
        }
        self.step(
            "hourly_stats, daily_stats, cabinet_hours, counters",
            |tx, w| w.stats(tx, first, end, cutoff),
        );
        self.step("conversions and their totals", |tx, w| {
            w.conversions(tx, first, now)
        });
        let back = |days| (now - chrono::Duration::days(days)).max(first);
        self.step("status events (90 days)", |tx, w| {
            w.events(tx, back(90), now)
        });
        self.step("webhook deliveries (30 days)", |tx, w| {
            w.deliveries(tx, back(30), now)
        });
        self.step("history (a top-up every 30 days)", |tx, w| {
            w.history(tx, first, now)
        });
        let started = Instant::now();
        for (_, sql) in indexes.iter().chain(&triggers) {
            self.conn.execute_batch(sql).unwrap();
        }
        // What `daily_stats_last_day` keeps as rows are written, for the rows written without it.
        self.conn
            .execute_batch(
                "INSERT INTO cabinet_rolled_days (account_id, last_day)
                 SELECT account_id, MAX(day) FROM daily_stats WHERE true GROUP BY account_id
                 ON CONFLICT (account_id) DO UPDATE SET last_day = excluded.last_day
                    WHERE excluded.last_day > last_day",
            )
            .unwrap();
        // No ANALYZE: the service never runs one, so its plans are those of an install's year.
        println!(
            "  {} indexes made again in {:.1} s",
            indexes.len(),
            started.elapsed().as_secs_f64()
        );
    }

    /// Hourly rows from `cutoff`, daily rows before it, every hour's cabinet total; the
    /// campaigns' counters (and marks, and the simulator's) raised by the sum.
    fn stats(
        &self,
        tx: &Connection,
        first: DateTime<Utc>,
        end: DateTime<Utc>,
        cutoff: DateTime<Utc>,
    ) -> u64 {
        let mut hourly = tx
            .prepare(
                "INSERT INTO hourly_stats (account_id, hour, ad_id, views, opens, clicks, actions, spent_micros,
                    run_views, run_opens, run_clicks, run_actions, run_spent_micros)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )
            .unwrap();
        let mut daily = tx
            .prepare(
                "INSERT INTO daily_stats (account_id, ad_id, day, views, opens, clicks, actions, spent_micros,
                    run_views, run_opens, run_clicks, run_actions, run_spent_micros)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )
            .unwrap();
        // Each campaign's runs go on from its last stored row (the set-up's synced hour).
        let mut before = std::collections::HashMap::new();
        {
            let mut last = tx
                .prepare(
                    "SELECT account_id, ad_id, MAX(hour), run_views, run_opens, run_clicks,
                        run_actions, run_spent_micros
                     FROM hourly_stats GROUP BY account_id, ad_id",
                )
                .unwrap();
            let mut rows = last.query([]).unwrap();
            while let Some(r) = rows.next().unwrap() {
                let run: [i64; 5] = std::array::from_fn(|k| r.get(3 + k).unwrap());
                before.insert(
                    (r.get::<_, i64>(0).unwrap(), r.get::<_, i64>(1).unwrap()),
                    run,
                );
            }
        }
        let mut cabinet = tx
            .prepare(
                "INSERT INTO cabinet_hours (account_id, hour, views, opens, clicks, actions,
                    spent_micros)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .unwrap();
        let mut counters = tx
            .prepare(
                "UPDATE campaign_counters SET views = views + ?3, opens = opens + ?4,
                    clicks = clicks + ?5, actions = actions + ?6, spent_micros = spent_micros + ?7
                 WHERE account_id = ?1 AND ad_id = ?2",
            )
            .unwrap();
        let (first, end, cutoff) = (first.timestamp(), end.timestamp(), cutoff.timestamp());
        let day_of = |t: i64| t.div_euclid(86_400);
        let first_day = day_of(first);
        let days = (day_of(end - 1) - first_day + 1) as usize;
        let mut rows = 0;
        for (account, ads) in &self.cabinets {
            // Per campaign and day, and per campaign: the sums of the gains.
            let mut days_of = vec![[0i64; 5]; ads.len() * days];
            let mut totals = vec![[0i64; 5]; ads.len()];
            let base: Vec<[i64; 5]> = ads
                .iter()
                .map(|ad| before.get(&(*account, *ad)).copied().unwrap_or_default())
                .collect();
            let mut hour = first;
            while hour < end {
                let mut sum = [0i64; 5];
                let iso = clock::iso(DateTime::from_timestamp(hour, 0).unwrap());
                let d = (day_of(hour) - first_day) as usize;
                for (i, ad) in ads.iter().enumerate() {
                    let g = gain(*ad, hour);
                    for k in 0..5 {
                        sum[k] += g[k];
                        totals[i][k] += g[k];
                        days_of[i * days + d][k] += g[k];
                    }
                    if hour >= cutoff {
                        let r: [i64; 5] = std::array::from_fn(|k| base[i][k] + totals[i][k]);
                        hourly
                            .execute(params![
                                account, iso, ad, g[0], g[1], g[2], g[3], g[4], r[0], r[1], r[2],
                                r[3], r[4]
                            ])
                            .unwrap();
                        rows += 1;
                    }
                }
                cabinet
                    .execute(params![
                        account, iso, sum[0], sum[1], sum[2], sum[3], sum[4]
                    ])
                    .unwrap();
                rows += 1;
                hour += 3600;
            }
            for (i, ad) in ads.iter().enumerate() {
                let mut r = base[i];
                for d in 0..days {
                    let day_start = (first_day + d as i64) * 86_400;
                    if day_start >= cutoff {
                        break;
                    }
                    let s = days_of[i * days + d];
                    for k in 0..5 {
                        r[k] += s[k];
                    }
                    let day = DateTime::from_timestamp(day_start, 0)
                        .unwrap()
                        .format("%Y-%m-%d")
                        .to_string();
                    daily
                        .execute(params![
                            account, ad, day, s[0], s[1], s[2], s[3], s[4], r[0], r[1], r[2], r[3],
                            r[4]
                        ])
                        .unwrap();
                    rows += 1;
                }
                let t = totals[i];
                counters
                    .execute(params![account, ad, t[0], t[1], t[2], t[3], t[4]])
                    .unwrap();
            }
        }
        // The hourly sync's marks and the simulator's copy follow the counters; each campaign
        // has 100.00 of budget left.
        tx.execute_batch(
            "UPDATE campaign_counters SET mark_views = views, mark_opens = opens,
                mark_clicks = clicks, mark_actions = actions, mark_spent_micros = spent_micros,
                budget_micros = spent_micros + 100000000;
             UPDATE sim_ads SET (views, opens, clicks, actions, spent_micros, budget_micros) =
                (SELECT c.views, c.opens, c.clicks, c.actions, c.spent_micros, c.budget_micros
                 FROM campaign_counters c
                 WHERE c.account_id = sim_ads.account_id AND c.ad_id = sim_ads.ad_id)
             WHERE EXISTS (SELECT 1 FROM campaign_counters c
                 WHERE c.account_id = sim_ads.account_id AND c.ad_id = sim_ads.ad_id);",
        )
        .unwrap();
        rows
    }

    /// One purchase per campaign and day from `first` to `now`, at the same time of each day
    /// (the campaigns spread over the day; none before `first` or after `now`), attributed in
    /// its row; the campaigns' running totals.
    fn conversions(&self, tx: &Connection, first: DateTime<Utc>, now: DateTime<Utc>) -> u64 {
        let mut insert = tx
            .prepare(
                "INSERT INTO conversions (holder_id, txid, event_type, ref, invite_link,
                    amount_micros, currency, status, account_id, ad_id, received_at, updated_at)
                 VALUES (?1, ?2, 'purchase', ?3, NULL, ?4, 'EUR', NULL, ?5, ?6, ?7, ?7)",
            )
            .unwrap();
        let ads: Vec<(i64, i64)> = self
            .cabinets
            .iter()
            .flat_map(|(a, ads)| ads.iter().map(move |ad| (*a, *ad)))
            .collect();
        let mut totals = vec![(0i64, 0i128); ads.len()];
        let (start, end) = (first.timestamp().div_euclid(86_400), now.timestamp());
        let mut rows = 0;
        let mut day = start;
        while day * 86_400 < end {
            for (i, (account, ad)) in ads.iter().enumerate() {
                let at = day * 86_400 + (i as i64 * 86_400) / ads.len() as i64;
                if at >= end {
                    break;
                }
                if at < first.timestamp() {
                    continue;
                }
                let h = mix((day as u64) << 32 ^ i as u64);
                let amount = 1_000_000 + (h % 50_000_000) as i64;
                let at = clock::iso(DateTime::from_timestamp(at, 0).unwrap());
                insert
                    .execute(params![
                        self.user,
                        format!("y{day}-{i:07}"),
                        format!("ad{ad}"),
                        amount,
                        account,
                        ad,
                        at
                    ])
                    .unwrap();
                totals[i].0 += 1;
                totals[i].1 += i128::from(amount);
                rows += 1;
            }
            day += 1;
        }
        let mut total = tx
            .prepare(
                "INSERT INTO conversion_totals (account_id, ad_id, event_type, currency, count, amount_high, amount_low)
                 VALUES (?1, ?2, 'purchase', 'EUR', ?3, ?4, ?5)",
            )
            .unwrap();
        let split = i128::from(adcab::store::conversions::SPLIT);
        for ((account, ad), (count, amount)) in ads.iter().zip(totals) {
            if count > 0 {
                let (high, low) = ((amount / split) as i64, (amount % split) as i64);
                total
                    .execute(params![account, ad, count, high, low])
                    .unwrap();
            }
        }
        rows
    }

    /// A sent status change for one campaign in five a day, from `from` to `now`.
    fn events(&self, tx: &Connection, from: DateTime<Utc>, now: DateTime<Utc>) -> u64 {
        let mut stmt = tx
            .prepare(
                "INSERT INTO status_events (account_id, ad_id, tme_path, old_status, new_status, source, at, sent)
                 VALUES (?1, ?2, NULL, ?3, ?4, 'sync', ?5, 1)",
            )
            .unwrap();
        let (mut rows, mut day) = (0, from.timestamp().div_euclid(86_400) + 1);
        let end = now.timestamp();
        while day * 86_400 < end {
            let (old, new) = if day % 2 == 0 {
                ("Active", "On Hold")
            } else {
                ("On Hold", "Active")
            };
            let mut n: i64 = 0;
            for (account, ads) in &self.cabinets {
                for ad in ads {
                    n += 1;
                    if (n + day) % 5 != 0 {
                        continue;
                    }
                    let at = day * 86_400 + (n * 86_400 / 100_000).min(86_399);
                    if at >= end {
                        continue;
                    }
                    let at = clock::iso(DateTime::from_timestamp(at, 0).unwrap());
                    stmt.execute(params![account, ad, old, new, at]).unwrap();
                    rows += 1;
                }
            }
            day += 1;
        }
        rows
    }

    /// Per cabinet and day from `from` to `now`: 24 hourly digests (their body as the webhook
    /// sender builds it for the cabinet's last hour) and one status change, each delivered.
    fn deliveries(&self, tx: &Connection, from: DateTime<Utc>, now: DateTime<Utc>) -> u64 {
        let last = clock::hour_start(now) - chrono::Duration::hours(1);
        let digests: Vec<String> = self
            .cabinets
            .iter()
            .map(|(account, _)| {
                adcab::webhooks::events::digest(tx, *account, last)
                    .unwrap()
                    .unwrap_or_else(|| json!({ "event": "hourly_digest" }))
                    .to_string()
            })
            .collect();
        let mut stmt = tx
            .prepare(
                "INSERT INTO webhook_deliveries (key_id, event, delivery_id, attempts, status, duration_ms, error, created_at, payload)
                 VALUES (?1, ?2, ?3, 1, 200, ?4, NULL, ?5, ?6)",
            )
            .unwrap();
        let (mut rows, mut hour) = (0u64, clock::hour_start(from).timestamp() + 3600);
        let end = now.timestamp();
        while hour + 300 < end {
            let at = clock::iso(DateTime::from_timestamp(hour + 300, 0).unwrap());
            for ((account, _), digest) in self.cabinets.iter().zip(&digests) {
                let id = uuid::Uuid::from_u64_pair(mix(rows), *account as u64).to_string();
                let took = 20 + (mix(rows) % 200) as i64;
                stmt.execute(params![self.key_id, "hourly_digest", id, took, at, digest])
                    .unwrap();
                rows += 1;
                if hour % 86_400 == 23 * 3600 {
                    let body =
                        json!({ "event": "status_change", "account_id": account, "changes": [] });
                    let id = uuid::Uuid::from_u64_pair(mix(rows), *account as u64).to_string();
                    stmt.execute(params![
                        self.key_id,
                        "status_change",
                        id,
                        took,
                        at,
                        body.to_string()
                    ])
                    .unwrap();
                    rows += 1;
                }
            }
            hour += 3600;
        }
        rows
    }

    /// Each campaign's budget top-up through the API every [`TOP_UP_EVERY`] days, as the
    /// budget move records it.
    fn history(&self, tx: &Connection, first: DateTime<Utc>, now: DateTime<Utc>) -> u64 {
        let mut stmt = tx
            .prepare(
                "INSERT INTO campaign_history (account_id, ad_id, at, source, action, details, user_id)
                 VALUES (?1, ?2, ?3, 'api', 'budget', ?4, ?5)",
            )
            .unwrap();
        let details = json!({ "action": "add", "amount": "100.00", "moved": "100.00" }).to_string();
        let (mut rows, mut day) = (0, first.timestamp().div_euclid(86_400) + 1);
        while day * 86_400 < now.timestamp() {
            for (account, ads) in &self.cabinets {
                for (i, ad) in ads.iter().enumerate() {
                    let at = day * 86_400 + 9 * 3600 + i as i64;
                    let at = clock::iso(DateTime::from_timestamp(at, 0).unwrap());
                    stmt.execute(params![account, ad, at, details, self.user])
                        .unwrap();
                    rows += 1;
                }
            }
            day += TOP_UP_EVERY;
        }
        rows
    }

    /// Every campaign's hours from `from` (24 of them, each row with its run), and their
    /// cabinets' totals, as the hourly sync writes them: a day for a retention pass to roll.
    /// The counters are left.
    pub fn day_of_hours(&mut self, from: DateTime<Utc>) -> u64 {
        let mut rows = 0;
        let tx = self.conn.unchecked_transaction().unwrap();
        {
            let mut cabinet = tx
                .prepare_cached(
                    "INSERT OR IGNORE INTO cabinet_hours (account_id, hour, views, opens, clicks,
                        actions, spent_micros)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )
                .unwrap();
            let mut gains = adcab::store::stats::Gains::new(&tx).unwrap();
            for (account, ads) in &self.cabinets {
                for h in 0..24 {
                    let hour = from.timestamp() + h * 3600;
                    let iso = clock::iso(DateTime::from_timestamp(hour, 0).unwrap());
                    let mut sum = [0i64; 5];
                    let mut runs = adcab::store::runs::for_hour(&tx, *account, &iso, ads).unwrap();
                    for ad in ads {
                        let g = gain(*ad, hour);
                        for k in 0..5 {
                            sum[k] += g[k];
                        }
                        let gain = Totals {
                            views: g[0],
                            opens: g[1],
                            clicks: g[2],
                            actions: g[3],
                            spent: Money::from_micros(g[4]),
                        };
                        gains.record(*account, *ad, &iso, &gain, &mut runs).unwrap();
                        rows += 1;
                    }
                    cabinet
                        .execute(params![
                            account, iso, sum[0], sum[1], sum[2], sum[3], sum[4]
                        ])
                        .unwrap();
                }
            }
        }
        tx.commit().unwrap();
        rows
    }
}

/// A connection for [`Writer::day_of_hours`] beside the running server: the service's own
/// settings (WAL), without waiting for the disk.
pub fn beside(path: &Path, user: i64, key_id: i64, accounts: &[i64], ads: &[(i64, i64)]) -> Writer {
    let conn = adcab::db::open_connection(path).expect("a connection");
    conn.pragma_update(None, "synchronous", "OFF").unwrap();
    Writer::on(conn, user, key_id, accounts, ads)
}
