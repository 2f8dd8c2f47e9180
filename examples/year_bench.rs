//! Benchmark of reads at a year's scale: every request timed on day 1 and on day 365 of the
//! same install, in the same run. The fixture (`common/year.rs`) makes the install (10
//! cabinets x 1,000 running campaigns by default, in the simulator), copies it twice, and
//! writes into one copy its first day and into the other its year, directly in bulk, as
//! retention leaves them, with the same code: the day-1 twin has the history a day of running
//! leaves (a 30-day read there covers that day), the day-365 twin a year's. Two real servers
//! run in this process, one on each.
//!
//! - each request, on one keep-alive connection per twin, the twins taking turns: median and
//!   p95 in ms, the ratio of the medians day 365 / day 1, and the verdict (at most
//!   1.5x). API (key of the agency owner): `GET /v1/campaigns?limit=500` over every cabinet
//!   and one cabinet's (`account_id`), by date and by `views`; one campaign; its history over
//!   24h, 7d, 30d and the year; `GET /v1/stats` of one cabinet over 1d, 7d, 30d and `all`;
//!   `GET /v1/stats/total` (1d, 30d); `GET /v1/conversions` of one cabinet. Panel (logged in
//!   over HTTP): `/`, `/?period=30d`, `/cabinets`, `/campaigns`, one campaign's page over 30d,
//!   one cabinet's report over the last 30 days and its PDF. Every answer must be 200 (a
//!   history may be 404 on day 1: no stats there);
//! - beside each list, plain SQLite over a copy of the same database (with an index by views,
//!   which the service keeps in memory) returning the same rows (every
//!   column; one cursor per cabinet in the list's order, merged a row at a time, as
//!   `panel_bench` reads them; read between the list's requests, so that both meet the
//!   machine alike), checked to be the rows the API answered, with the issue's
//!   verdict (the API at most 2x); and, for reference only, the same rows with their
//!   conversion totals, which the API answers beside each campaign (each row's count checked
//!   against the answer's); `/` and `/cabinets` against the 10 ms;
//! - retention: with the server running on the year, two clients cycle through a cabinet's
//!   list, one campaign, its 7-day history, its conversions and `account/info` (not the
//!   totals above, whose own time would hide the pass's), once the server's own first pass (a
//!   tick after it starts) is over; one more day of hours written (and the log copied into
//!   the database), the clock moved a day and a pass at the service's pace while they run
//!   (it rolls a day of hours and removes a day of conversions, `year::CONVERSIONS_DAYS`),
//!   then the clock moved six minutes and, once the log is copied into the database, a
//!   baseline without a pass as long as the pass took (the worst of more requests is worse
//!   by chance alone, so both windows are the same length, and in both the campaign's first
//!   read re-reads it from the platform, its stored copy older than five minutes); the worst
//!   request of each, [`ROUNDS`] times, medians of the rounds, with the verdict (at
//!   most 2x), and each window's 99th percentile beside it for reference.
//!
//! The run ends with a table of every figure beside its baseline and exits 1 when one misses
//! (named). Run: `cargo run --release --example year_bench` (optional arguments: cabinets,
//! campaigns per cabinet, requests per measurement; defaults 10, 1000, 100), or `-- --quick`
//! (1 x 1,000, 30 requests). `--pages` times only `/` and `/cabinets` (for `100 1000
//! --pages`: their bound is over 100 cabinets; a year of 100,000 campaigns takes about ten
//! times the default's set-up and disk). `--only=TEXT` times only
//! the requests whose label holds `TEXT` (`--only="API list"`: the four lists and their
//! baselines), and the retention rounds only when the label of their figure does
//! (`--only="retention"`). `--zone=NAME` gives the owner an IANA time zone
//! (`Europe/Moscow`): the home page's periods and the report's days are then that zone's.
//! `--ahead=DAYS` sets the install's clock that many days ahead of today's, so that the twins'
//! days fall on other weekdays (the report's whole UTC weeks depend on them). The
//! fixture lives in a temporary directory that the run removes at its end (also when a figure
//! misses): a run killed before it leaves about 2.5 GB (at the default size) in the system's
//! temp directory (`.tmp*`).

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use adcab::clock;
use adcab::jobs::retention;
use rusqlite::Connection;

mod common;
#[path = "common/login.rs"]
mod login;
#[path = "common/measure.rs"]
mod measure;
#[path = "common/running.rs"]
mod running;
#[path = "common/year.rs"]
mod year;
use common::Server;
use measure::{median, percentile, runs};

/// The bounds: day 365 against day 1, the API against plain SQLite, a retention pass.
const AGE_BOUND: f64 = 1.5;
const PLAIN_BOUND: f64 = 2.0;
const PASS_BOUND: f64 = 2.0;
/// `/` and `/cabinets`, median in ms.
const PAGE_MS: f64 = 10.0;
/// A measurement stops before its `n` runs once it took this long and made [`MIN_RUNS`].
const BUDGET: Duration = Duration::from_secs(15);
const MIN_RUNS: usize = 10;
const WARM_UP: usize = 3;
/// The label of the retention rounds' figure.
const PASSES: &str = "worst request during a retention pass / without";
/// Retention rounds.
const ROUNDS: usize = 3;
/// Seconds the clock moves between a pass and the baseline after it: past the five minutes
/// after which a campaign's read re-reads it, within the hour (no sync is due).
const STALE_AFTER_PASS: i64 = 6 * 60;

/// One twin's server and how to ask it.
struct Side {
    _server: Server,
    /// When its server started: its own upkeep runs a retention pass a tick later.
    started: Instant,
    api: String,
    root: String,
    cookie: String,
    agent: ureq::Agent,
    /// The twin's service clock: a request's dates count back from it.
    now: chrono::DateTime<chrono::Utc>,
}

impl Side {
    fn start(services: &adcab::Services) -> Side {
        let server = Server::start(services.clone());
        let started = Instant::now();
        let api = server.base.clone();
        let root = api.strip_suffix("/api/v1").expect("the API under /api/v1");
        let agent = ureq::AgentBuilder::new().redirects(0).build();
        let cookie = login::login(&agent, root, year::EMAIL, year::PASSWORD);
        Side {
            api: api.clone(),
            root: root.to_string(),
            cookie,
            agent,
            now: services.db.read_blocking(clock::now).unwrap(),
            _server: server,
            started,
        }
    }

    /// `path` with each `{ago:N}` the UTC date N days before this twin's clock.
    fn dated(&self, path: &str) -> String {
        let mut out = String::new();
        let mut rest = path;
        while let Some(at) = rest.find("{ago:") {
            let end = at + rest[at..].find('}').expect("a closed {ago:N}");
            let days: i64 = rest[at + 5..end].parse().expect("{ago:N} counts days");
            out.push_str(&rest[..at]);
            let date = self.now - chrono::Duration::days(days);
            out.push_str(&date.format("%Y-%m-%d").to_string());
            rest = &rest[end + 1..];
        }
        out + rest
    }

    /// One GET of a request: ms until the whole answer arrived, the status and the body.
    fn get(&self, req: &Request, key: &str) -> (f64, u16, Vec<u8>) {
        let sent = Instant::now();
        let path = self.dated(&req.path);
        let call = match req.panel {
            false => self
                .agent
                .get(&format!("{}{path}", self.api))
                .set("X-API-Key", key),
            true => self
                .agent
                .get(&format!("{}{path}", self.root))
                .set("Cookie", &self.cookie),
        };
        let (status, body) = match call.call() {
            Ok(r) => (r.status(), bytes(r)),
            Err(ureq::Error::Status(code, r)) => (code, bytes(r)),
            Err(e) => panic!("GET {}: {e}", req.path),
        };
        (sent.elapsed().as_secs_f64() * 1000.0, status, body)
    }
}

/// An answer's body, as bytes: a PDF is not text, and JSON is parsed from bytes. ureq's
/// `into_string` decodes a body leniently (`String::from_utf8_lossy`, then a copy): in a
/// profile of the four lists, that decoding was two fifths of the client's CPU time, timed as
/// if it were the server's answer.
fn bytes(response: ureq::Response) -> Vec<u8> {
    let mut body = Vec::new();
    std::io::Read::read_to_end(&mut response.into_reader(), &mut body).expect("the body");
    body
}

/// A request measured on both days.
struct Request {
    label: String,
    path: String,
    panel: bool,
    /// A history: 404 is an answer on a day without stats.
    may_be_empty: bool,
    /// A list: the cabinets, column and page of its plain SQLite baseline.
    plain: Option<(Vec<i64>, &'static str, usize)>,
}

fn api(label: &str, path: String) -> Request {
    Request {
        label: label.into(),
        path,
        panel: false,
        may_be_empty: label.contains("history"),
        plain: None,
    }
}

fn panel(label: &str, path: String) -> Request {
    Request {
        panel: true,
        ..api(label, path)
    }
}

/// A figure of the summary: what, its value and baseline, their ratio's bound, whether it held.
struct Line {
    what: String,
    value: String,
    baseline: String,
    verdict: String,
    ok: bool,
}

fn main() -> ExitCode {
    let run = Instant::now();
    let (mut quick, mut pages) = (false, false);
    let (mut only, mut zone): (Option<String>, Option<String>) = (None, None);
    let mut ahead = 0;
    let mut numbers = Vec::new();
    for arg in std::env::args().skip(1) {
        if arg == "--quick" {
            quick = true;
        } else if arg == "--pages" {
            pages = true;
        } else if let Some(text) = arg.strip_prefix("--only=") {
            only = Some(text.to_string());
        } else if let Some(name) = arg.strip_prefix("--zone=") {
            zone = Some(name.to_string());
        } else if let Some(days) = arg.strip_prefix("--ahead=") {
            ahead = days
                .parse()
                .ok()
                .filter(|d| (0..=366).contains(d))
                .expect("--ahead=DAYS counts 0 to 366 days");
        } else {
            numbers.push(arg.parse::<usize>().expect(
                "numeric arguments, --quick, --pages, --only=TEXT, --zone=NAME or --ahead=DAYS",
            ));
        }
    }
    let cabinets = numbers
        .first()
        .copied()
        .unwrap_or(if quick { 1 } else { 10 });
    let per_cabinet = numbers.get(1).copied().unwrap_or(1000);
    let n = numbers
        .get(2)
        .copied()
        .unwrap_or(if quick { 30 } else { 100 });

    let twins = year::make(cabinets, per_cabinet, ahead);
    // The owner's days (the home page's periods, the report's days) in another zone than UTC.
    // Saved as the settings page saves it, which keeps the zone's local days (schema 67), filled
    // from the twin's hours in that write: its time printed.
    if let Some(zone) = &zone {
        let zone: chrono_tz::Tz = zone.parse().expect("an IANA time zone");
        for (name, s) in [("day 1", &twins.day1), ("day 365", &twins.year)] {
            let started = Instant::now();
            let settings = adcab::ops::people::Settings {
                language: None,
                time_zone: Some(zone),
                telegram_chat: None,
            };
            adcab::ops::people::settings_save(s, twins.user, settings).expect("the owner's zone");
            println!(
                "{name}: the owner's zone {zone} saved, its local days filled, in {:.2} s",
                started.elapsed().as_secs_f64()
            );
        }
    }
    let sides = [Side::start(&twins.day1), Side::start(&twins.year)];
    println!(
        "servers: day 1 at {}, day 365 at {}; set-up took {:.0} s",
        sides[0].root,
        sides[1].root,
        run.elapsed().as_secs_f64()
    );
    let cabinet = twins.accounts[twins.accounts.len() / 2];
    let (_, ad) = *twins
        .ads
        .iter()
        .find(|(a, _)| *a == cabinet)
        .expect("a campaign");
    let all = twins.accounts.clone();
    let mut requests = vec![
        Request {
            plain: Some((all.clone(), "created_at", 500)),
            ..api("API list, every cabinet", "/campaigns?limit=500".into())
        },
        Request {
            plain: Some((all.clone(), "views", 500)),
            ..api(
                "API list, every cabinet, by views",
                "/campaigns?limit=500&sortBy=views".into(),
            )
        },
        Request {
            plain: Some((vec![cabinet], "created_at", 500)),
            ..api(
                "API list, one cabinet",
                format!("/campaigns?limit=500&account_id={cabinet}"),
            )
        },
        Request {
            plain: Some((vec![cabinet], "views", 500)),
            ..api(
                "API list, one cabinet, by views",
                format!("/campaigns?limit=500&account_id={cabinet}&sortBy=views"),
            )
        },
        api(
            "API one campaign",
            format!("/campaigns/{ad}?account_id={cabinet}"),
        ),
        api(
            "API history 24h",
            format!("/campaigns/{ad}/history?account_id={cabinet}&period=24h"),
        ),
        api(
            "API history 7d",
            format!("/campaigns/{ad}/history?account_id={cabinet}&period=7d"),
        ),
        api(
            "API history 30d",
            format!("/campaigns/{ad}/history?account_id={cabinet}&period=30d"),
        ),
        api(
            "API history, the year",
            format!(
                "/campaigns/{ad}/history?account_id={cabinet}&period=custom&startDate={{ago:{}}}&endDate={{ago:0}}",
                year::DAYS
            ),
        ),
        api(
            "API stats 1d, one cabinet",
            format!("/stats?account_id={cabinet}&period=1d"),
        ),
        api(
            "API stats 7d, one cabinet",
            format!("/stats?account_id={cabinet}&period=7d"),
        ),
        api(
            "API stats 30d, one cabinet",
            format!("/stats?account_id={cabinet}&period=30d"),
        ),
        api(
            "API stats all, one cabinet",
            format!("/stats?account_id={cabinet}&period=all"),
        ),
        api("API stats/total 1d", "/stats/total".into()),
        api("API stats/total 30d", "/stats/total?period=30d".into()),
        api(
            "API conversions, one cabinet",
            format!("/conversions?account_id={cabinet}"),
        ),
        panel("panel /", "/".into()),
        panel("panel /?period=30d", "/?period=30d".into()),
        panel("panel /cabinets", "/cabinets".into()),
        panel("panel /campaigns", "/campaigns".into()),
        panel(
            "panel campaign 30d",
            format!("/campaigns/{cabinet}/{ad}?period=30d"),
        ),
        panel(
            "panel report, 30 days",
            format!("/reports/{cabinet}?from={{ago:29}}&to={{ago:0}}"),
        ),
        panel(
            "panel report PDF, 30 days",
            format!("/reports/{cabinet}?from={{ago:29}}&to={{ago:0}}&format=pdf"),
        ),
    ];

    if pages {
        requests.retain(|r| r.path == "/" || r.path == "/cabinets");
    }
    if let Some(text) = &only {
        requests.retain(|r| r.label.contains(text.as_str()));
    }
    let conns = [&twins.day1, &twins.year].map(|s| plain_copy(&s.config.storage.path));
    println!(
        "\n== day 1 against day 365: up to {n} requests each after {WARM_UP} untimed, the twins taking turns; ms =="
    );
    let mut summary = Vec::new();
    for req in &requests {
        summary.extend(compare(&sides, &conns, req, &twins.key, n));
    }
    let passes = only
        .as_ref()
        .is_none_or(|text| PASSES.contains(text.as_str()));
    if !pages && passes {
        summary.extend(during_passes(&twins, &sides[1], cabinet, ad));
    }

    println!("\n== summary ==");
    println!(
        "{:<58} {:>20} {:>34}  verdict",
        "figure", "value", "baseline"
    );
    let mut missed = Vec::new();
    for line in &summary {
        println!(
            "{:<58} {:>20} {:>34}  {}",
            line.what, line.value, line.baseline, line.verdict
        );
        if !line.ok {
            missed.push(line.what.clone());
        }
    }
    drop(sides);
    println!("total run: {:.0} s", run.elapsed().as_secs_f64());
    if !missed.is_empty() {
        println!(
            "{} of {} figures miss: {}",
            missed.len(),
            summary.len(),
            missed.join("; ")
        );
        // Returned, not `process::exit`: that would skip removing the fixture's directory.
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// A copy of a twin's database beside it for the lists' plain baselines
/// ([`common::copy_by_views`]), checked to read its index by views.
fn plain_copy(path: &std::path::Path) -> Connection {
    let service = adcab::db::open_connection(path).expect("a connection");
    let conn = common::copy_by_views(&service, &path.with_extension("plain.db"));
    let plan: Vec<String> = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {}", plain_sql("views", 500)))
        .expect("a plan")
        .query_map([1], |r| r.get(3))
        .expect("its steps")
        .collect::<Result<_, _>>()
        .expect("its steps");
    // Ties on views come sorted by `ad_id` a group at a time ("RIGHT PART OF ORDER BY"), as
    // they did through the service's index; never every row of a cabinet.
    assert!(
        plan.iter().any(|step| step.contains(common::BY_VIEWS))
            && !plan
                .iter()
                .any(|step| step.contains("TEMP B-TREE FOR ORDER BY")),
        "the baseline by views sorts: {plan:?}"
    );
    conn
}

/// Times `req` on both twins, taking turns; its lines of the summary.
fn compare(
    sides: &[Side; 2],
    conns: &[Connection; 2],
    req: &Request,
    key: &str,
    n: usize,
) -> Vec<Line> {
    let check = |day: usize, (ms, status, body): (f64, u16, Vec<u8>)| {
        let fine = status == 200 || (req.may_be_empty && status == 404);
        assert!(
            fine,
            "GET {} on day {}: {status} {}",
            req.path,
            [1, 365][day],
            String::from_utf8_lossy(&body)
        );
        (ms, body)
    };
    let mut last = [Vec::new(), Vec::new()];
    for _ in 0..WARM_UP {
        for (d, side) in sides.iter().enumerate() {
            last[d] = check(d, side.get(req, key)).1;
        }
    }
    let mut took = [Vec::new(), Vec::new()];
    // A list's plain SQLite baseline is read between its requests, so that both meet the
    // machine alike.
    let mut plain: [(Vec<f64>, Vec<PlainRow>); 2] = Default::default();
    let _ = runs(n, BUDGET, MIN_RUNS, |i| {
        // Alternate which twin goes first, so neither always follows the other.
        for k in 0..2 {
            let d = (i + k) % 2;
            let (ms, body) = check(d, sides[d].get(req, key));
            took[d].push(ms);
            last[d] = body;
        }
        if let Some((accounts, column, limit)) = &req.plain {
            for k in 0..2 {
                let d = (i + k) % 2;
                if let Some((ms, rows)) = plain_once(&conns[d], accounts, column, *limit, false) {
                    plain[d].0.push(ms);
                    plain[d].1 = rows;
                }
            }
        }
    });
    let p = |v: &mut Vec<f64>| (median(v), percentile(v, 0.95));
    let (m1, p1) = p(&mut took[0]);
    let (m365, p365) = p(&mut took[1]);
    let ratio = m365 / m1;
    println!(
        "{} ({} requests, {:.0} KB on day 1, {:.0} KB on day 365): day 1 median {m1:.2}, p95 {p1:.2}; day 365 median {m365:.2}, p95 {p365:.2}; {ratio:.2}x",
        req.label,
        took[1].len(),
        last[0].len() as f64 / 1024.0,
        last[1].len() as f64 / 1024.0
    );
    let mut lines = vec![Line {
        what: format!("{}: day 365 / day 1", req.label),
        value: format!("{m365:.2} ms"),
        baseline: format!("day 1 {m1:.2} ms"),
        verdict: verdict(ratio, AGE_BOUND),
        ok: ratio <= AGE_BOUND,
    }];
    if req.path == "/" || req.path == "/cabinets" {
        lines.push(Line {
            what: format!("{}: day 365 median", req.label),
            value: format!("{m365:.2} ms"),
            baseline: format!("bound {PAGE_MS:.0} ms"),
            verdict: if m365 <= PAGE_MS {
                "within".into()
            } else {
                "OVER".into()
            },
            ok: m365 <= PAGE_MS,
        });
    }
    if let Some((accounts, column, limit)) = &req.plain {
        for (d, conn) in conns.iter().enumerate() {
            let (times, rows) = &mut plain[d];
            if times.is_empty() {
                println!("  plain SQLite baseline unavailable: campaigns has no {column}");
                continue;
            }
            let (plain, rows) = (median(times), std::mem::take(rows));
            let answered = api_rows(&last[d]);
            let same = if rows == answered {
                "same rows"
            } else {
                "ROWS DIFFER"
            };
            let m = [m1, m365][d];
            println!(
                "  day {}: plain SQLite, the same {} rows: median {plain:.2} ms ({same}); the API {:.2}x",
                [1, 365][d],
                rows.len(),
                m / plain
            );
            if let Some((converted, rows)) = plain_list(conn, accounts, column, *limit, n, true) {
                let same = if rows == answered {
                    "same rows and conversions"
                } else {
                    "ROWS OR CONVERSIONS DIFFER"
                };
                println!(
                    "  day {}: plain SQLite, the same rows and their conversions (reference only): median {converted:.2} ms ({same}); the API {:.2}x",
                    [1, 365][d],
                    m / converted
                );
            }
            if d == 1 {
                lines.push(Line {
                    what: format!("{}: API / plain SQLite, day 365", req.label),
                    value: format!("{m:.2} ms"),
                    baseline: format!("plain {plain:.2} ms ({same})"),
                    verdict: verdict(m / plain, PLAIN_BOUND),
                    ok: m / plain <= PLAIN_BOUND && same == "same rows",
                });
            }
        }
    }
    lines
}

fn verdict(ratio: f64, bound: f64) -> String {
    let word = if ratio <= bound { "within" } else { "OVER" };
    format!("{ratio:.2}x, {word} {bound}x")
}

/// The `(account_id, ad_id)` of a list answer's campaigns, in order, each with the number of
/// its conversions (all event types).
fn api_rows(body: &[u8]) -> Vec<PlainRow> {
    let answer: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    answer["data"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|c| PlainRow {
                    key: (
                        c["account_id"].as_i64().unwrap_or(0),
                        c["ad_id"].as_i64().unwrap_or(0),
                    ),
                    conversions: c["conversions"]
                        .as_object()
                        .map(|counts| counts.values().filter_map(|n| n.as_i64()).sum()),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A list row as compared: `(account_id, ad_id)`, and its number of conversions when read.
#[derive(Debug)]
struct PlainRow {
    key: (i64, i64),
    conversions: Option<i64>,
}

/// Rows are the same when their keys are, and their conversions where both sides read them.
impl PartialEq for PlainRow {
    fn eq(&self, other: &PlainRow) -> bool {
        self.key == other.key
            && match (self.conversions, other.conversions) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }
}

/// One cabinet's first `limit` campaigns by `column` descending, every column.
fn plain_sql(column: &str, limit: usize) -> String {
    format!(
        "SELECT {column}, ad_id, account_id, *
         FROM campaigns JOIN campaign_counters USING (account_id, ad_id)
         WHERE account_id = ?1 AND status <> 'Deleted'
         ORDER BY {column} DESC, ad_id DESC LIMIT {limit}"
    )
}

/// Median (ms) of up to `n` of [`plain_once`]'s reads, and the rows read; `None` when the
/// table has no such column.
fn plain_list(
    conn: &Connection,
    accounts: &[i64],
    column: &str,
    limit: usize,
    n: usize,
    conversions: bool,
) -> Option<(f64, Vec<PlainRow>)> {
    let mut rows = None;
    let took = runs(n, BUDGET, MIN_RUNS, |_| {
        let (ms, read) = plain_once(conn, accounts, column, limit, conversions)?;
        rows = Some(read);
        Some(ms)
    });
    let mut took: Vec<f64> = took.into_iter().collect::<Option<_>>()?;
    Some((median(&mut took), rows?))
}

/// One read (ms) of the first `limit` campaigns of `accounts` by `column` descending (ties by
/// `ad_id`, then cabinet), every column: one cursor per cabinet in that order, merged a row at
/// a time, so SQLite reads `limit` rows and one more per cabinet. With `conversions`, each
/// row's conversion totals too (every column of its `conversion_totals` rows, one probe of
/// their key a row), the figures a list answers beside each campaign. The read's time (ms)
/// and the rows read; `None` when the table has no such column.
fn plain_once(
    conn: &Connection,
    accounts: &[i64],
    column: &str,
    limit: usize,
    conversions: bool,
) -> Option<(f64, Vec<PlainRow>)> {
    let sql = plain_sql(column, limit);
    conn.prepare(&sql).ok()?;
    conn.set_prepared_statement_cache_capacity(16);
    let started = Instant::now();
    let mut statements: Vec<_> = accounts
        .iter()
        .map(|_| conn.prepare(&sql).unwrap())
        .collect();
    let columns = statements[0].column_count();
    let mut cursors: Vec<_> = statements
        .iter_mut()
        .zip(accounts)
        .map(|(s, a)| s.query([a]).unwrap())
        .collect();
    let mut step = |c: usize| -> Option<((i64, i64, i64), usize)> {
        let row = cursors[c].next().unwrap()?;
        let values: Vec<rusqlite::types::Value> =
            (0..columns).map(|i| row.get(i).unwrap()).collect();
        let int = |v: &rusqlite::types::Value| match v {
            rusqlite::types::Value::Integer(i) => *i,
            other => panic!("{column}: {other:?}"),
        };
        Some(((int(&values[0]), int(&values[1]), int(&values[2])), c))
    };
    let mut heads: std::collections::BinaryHeap<((i64, i64, i64), usize)> =
        (0..accounts.len()).filter_map(&mut step).collect();
    let mut read = Vec::with_capacity(limit);
    while read.len() < limit {
        let Some((key, c)) = heads.pop() else { break };
        heads.extend(step(c));
        read.push(PlainRow {
            key: (key.2, key.1),
            conversions: None,
        });
    }
    if conversions {
        let mut totals = conn
            .prepare_cached(
                "SELECT count, event_type, currency, amount_high, amount_low
                     FROM conversion_totals WHERE account_id = ?1 AND ad_id = ?2",
            )
            .unwrap();
        for row in &mut read {
            let mut lines = totals.query([row.key.0, row.key.1]).unwrap();
            let mut count = 0;
            while let Some(line) = lines.next().unwrap() {
                let values: Vec<rusqlite::types::Value> =
                    (0..5).map(|i| line.get(i).unwrap()).collect();
                if let rusqlite::types::Value::Integer(n) = values[0] {
                    count += n;
                }
            }
            row.conversions = Some(count);
        }
    }
    Some((started.elapsed().as_secs_f64() * 1000.0, read))
}

/// The worst request of two clients cycling through a cabinet's reads while a pass rolls one
/// more day, and then without a pass for as long, [`ROUNDS`] times; the summary's lines.
fn during_passes(twins: &year::Twins, side: &Side, cabinet: i64, ad: i64) -> Vec<Line> {
    println!("\n== the worst request during and without a retention pass (day 365, 2 clients) ==");
    common::after_upkeep_first_pass(side.started);
    let paths = [
        format!("/campaigns?limit=100&account_id={cabinet}"),
        format!("/campaigns/{ad}?account_id={cabinet}"),
        format!("/campaigns/{ad}/history?account_id={cabinet}&period=7d"),
        format!("/conversions?account_id={cabinet}"),
        "/account/info".to_string(),
    ];
    let reqs: Vec<Request> = paths.iter().map(|p| api("during", p.clone())).collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let mut writer = year::beside(
        &twins.year_path,
        twins.user,
        twins.key_id,
        &twins.accounts,
        &twins.ads,
    );
    let stop = AtomicBool::new(false);
    // What both clients saw while `during` ran.
    let clients = |during: &mut dyn FnMut()| -> Window {
        stop.store(false, Ordering::SeqCst);
        std::thread::scope(|scope| {
            let running: Vec<_> = (0..2)
                .map(|c| {
                    let (reqs, stop) = (&reqs, &stop);
                    let agent = ureq::agent();
                    scope.spawn(move || {
                        let mut seen = Window::default();
                        let mut i = c;
                        while !stop.load(Ordering::SeqCst) {
                            let req = &reqs[i % reqs.len()];
                            let sent = Instant::now();
                            let answer = agent
                                .get(&format!("{}{}", side.api, req.path))
                                .set("X-API-Key", &twins.key)
                                .call();
                            let ms = sent.elapsed().as_secs_f64() * 1000.0;
                            let answer = answer.unwrap_or_else(|e| panic!("GET {}: {e}", req.path));
                            let _ = answer.into_string();
                            seen.add(ms, &req.path);
                            i += 1;
                        }
                        seen
                    })
                })
                .collect();
            during();
            stop.store(true, Ordering::SeqCst);
            running
                .into_iter()
                .map(|r| r.join().unwrap())
                .fold(Window::default(), Window::join)
        })
    };
    let (mut without, mut with) = (Vec::new(), Vec::new());
    let (mut without_p99, mut with_p99) = (Vec::new(), Vec::new());
    for round in 1..=ROUNDS {
        let started = Instant::now();
        let now = twins.year.db.read_blocking(clock::now).unwrap();
        let rows = writer.day_of_hours(clock::hour_start(now));
        twins
            .year
            .db
            .write_blocking(|tx| {
                let now = clock::advance(tx, 24 * 3600)?.expect("within a hundred years");
                year::quiet(tx, now)
            })
            .unwrap();
        let written = started.elapsed().as_secs_f64();
        // The day of hours written above copied into the database before the pass, as the
        // pass's own log is before the baseline: each window meets only what it measures.
        let copied = settle(&twins.year.db);
        let mut pass = None;
        let mut seen = clients(&mut || {
            let started = Instant::now();
            let pruned = rt.block_on(retention::pass(&twins.year)).expect("a pass");
            pass = Some((pruned, started.elapsed()));
        });
        let (pruned, took) = pass.expect("the pass ran");
        println!(
            "round {round}: during a pass ({:.1} s, {} hourly rows rolled, {} conversions, {} deliveries and {} events removed; {rows} hourly rows written in {written:.1} s before it, the log copied in {copied:.1} s): {}",
            took.as_secs_f64(), pruned.hourly_stats, pruned.conversions, pruned.webhook_deliveries, pruned.status_events, seen.line()
        );
        with.push(seen.worst);
        with_p99.push(seen.p99());
        // The campaign's stored copy made as stale as the pass met it, so that the baseline's
        // first read of it also re-reads it from the platform (`FRESHNESS` in the API).
        twins
            .year
            .db
            .write_blocking(|tx| {
                let now = clock::advance(tx, STALE_AFTER_PASS)?.expect("within a hundred years");
                year::quiet(tx, now)
            })
            .unwrap();
        let copied = settle(&twins.year.db);
        let mut seen = clients(&mut || std::thread::sleep(took));
        println!(
            "round {round}: without a pass ({:.1} s, after the log was copied in {copied:.1} s): {}",
            took.as_secs_f64(),
            seen.line()
        );
        without.push(seen.worst);
        without_p99.push(seen.p99());
    }
    let (w, d) = (median(&mut without), median(&mut with));
    let (w99, d99) = (median(&mut without_p99), median(&mut with_p99));
    vec![
        Line {
            what: PASSES.into(),
            value: format!("{d:.1} ms"),
            baseline: format!("without {w:.1} ms"),
            verdict: verdict(d / w, PASS_BOUND),
            ok: d / w <= PASS_BOUND,
        },
        Line {
            what: "p99 during a retention pass / without (reference)".into(),
            value: format!("{d99:.1} ms"),
            baseline: format!("without {w99:.1} ms"),
            verdict: format!("{:.2}x", d99 / w99),
            ok: true,
        },
    ]
}

/// Every request's time in one window of the retention rounds, and the slowest's path.
#[derive(Default)]
struct Window {
    ms: Vec<f64>,
    worst: f64,
    worst_path: String,
}

impl Window {
    fn add(&mut self, ms: f64, path: &str) {
        if ms > self.worst {
            (self.worst, self.worst_path) = (ms, path.to_string());
        }
        self.ms.push(ms);
    }

    fn join(mut self, other: Window) -> Window {
        if other.worst > self.worst {
            (self.worst, self.worst_path) = (other.worst, other.worst_path);
        }
        self.ms.extend(other.ms);
        self
    }

    fn p99(&mut self) -> f64 {
        percentile(&mut self.ms, 0.99)
    }

    fn line(&mut self) -> String {
        let p99 = self.p99();
        format!(
            "{} requests, p99 {p99:.1} ms, worst {:.1} ms ({})",
            self.ms.len(),
            self.worst,
            self.worst_path
        )
    }
}

/// Waits until the log a pass wrote is copied into the database (the service's own thread
/// copies it every second), so that the baseline after a pass does not meet its tail; how
/// long that took, in seconds.
fn settle(db: &adcab::db::Db) -> f64 {
    let started = Instant::now();
    loop {
        let (log, copied) = db.checkpoint().expect("a checkpoint");
        if copied >= log || started.elapsed() > Duration::from_secs(60) {
            return started.elapsed().as_secs_f64();
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}
