//! What the benchmarks of the hourly sync share: the database writer thread's CPU time, the
//! plain SQLite baselines on the same database, and a local webhook receiver counting digests.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use adcab::jobs::scheduler;
use adcab::Services;

/// The table a baseline updates: the campaigns' wide rows as they were before their figures
/// moved out of them (migration 68), or the narrow rows of figures they are now.
#[derive(Debug, Clone, Copy)]
pub enum Rows {
    /// `plain_campaigns`, made by [`wide_copy`]: every campaign's copy with its figures in one
    /// row, indexed as `campaigns` was over the updated columns. The measure.
    Wide,
    /// `campaign_counters`, the layout the service writes now.
    Narrow,
}

impl Rows {
    fn table(self) -> &'static str {
        match self {
            Rows::Wide => "plain_campaigns",
            Rows::Narrow => "campaign_counters",
        }
    }
}

/// Makes `plain_campaigns`: each campaign's row as `campaigns` held it before migration 68
/// (its copy and its figures together, without the numbers of migration 72:
/// [`crate::common::plain_campaigns_select`]), keyed and indexed as it was over the columns the
/// baseline updates (the sorts by views and by spend, the list's totals), so that the baseline
/// measures the same work as it did before the figures moved.
pub fn wide_copy(s: &Services) {
    s.db.write_blocking(|tx| {
        let select = crate::common::plain_campaigns_select(tx, "campaigns");
        tx.execute_batch(&format!(
            "CREATE TABLE plain_campaigns AS {select};
             CREATE UNIQUE INDEX plain_key ON plain_campaigns(account_id, ad_id);
             CREATE INDEX plain_by_views ON plain_campaigns(account_id, views, ad_id, status);
             CREATE INDEX plain_by_spent ON plain_campaigns(account_id, spent_micros, ad_id,
                status);
             CREATE INDEX plain_totals ON plain_campaigns(account_id, status, budget_micros,
                spent_micros, views, clicks, actions);"
        ))?;
        Ok::<_, adcab::store::StoreError>(())
    })
    .unwrap();
}

/// One transaction that updates the counters of every campaign row of `rows` by primary key;
/// with `hour` (`n` hours after 2100-01-01, after every hour the sync stores, as each hour the
/// sync writes is its campaigns' latest, and a table), also one hourly row per campaign for it,
/// in the same transaction, inserted into that table: `hourly_entries`, whose triggers work out
/// each row's running sums as for any row written without its run, or `hourly_stats` itself,
/// the rows alone.
pub fn plain_update(s: &Services, rows: Rows, hour: Option<(usize, &str)>) -> f64 {
    let into = hour.map_or("hourly_stats", |(_, table)| table);
    let hour = hour.map(|(n, _)| format!("2100-01-{:02}T{:02}:00:00Z", 1 + n / 24, n % 24));
    let table = rows.table();
    let started = Instant::now();
    s.db.write_blocking(|tx| {
        let ids: Vec<(i64, i64)> = tx
            .prepare(&format!("SELECT account_id, ad_id FROM {table}"))?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut update = tx.prepare(&format!(
            "UPDATE {table} SET views = views + 1, spent_micros = spent_micros + 2000
             WHERE account_id = ?1 AND ad_id = ?2"
        ))?;
        let mut insert = tx.prepare(&format!(
            "INSERT INTO {into}
                (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros)
             VALUES (?1, ?2, ?3, 1, 0, 0, 0, 2000)"
        ))?;
        for (account, ad) in ids {
            update.execute([account, ad])?;
            if let Some(hour) = &hour {
                insert.execute(rusqlite::params![account, ad, hour])?;
            }
        }
        Ok::<_, adcab::store::StoreError>(())
    })
    .unwrap();
    started.elapsed().as_secs_f64()
}

/// [`plain_update`] of `rows` (without `hour`) between two hours of a sync, on the database as
/// the hour left it: its seconds and the CPU seconds of the writer thread (`writer`) over it.
/// Then, untimed, its counters are taken back, so that the rows hold what they held, and the
/// log is checkpointed, so that the next hour does not copy its pages.
pub fn plain_update_between_hours(
    s: &Services,
    rows: Rows,
    writer: &std::path::Path,
) -> (f64, f64) {
    let cpu = cpu_seconds(writer);
    let took = plain_update(s, rows, None);
    let cpu = cpu_seconds(writer) - cpu;
    s.db.write_blocking(|tx| {
        tx.execute(
            &format!(
                "UPDATE {} SET views = views - 1, spent_micros = spent_micros - 2000",
                rows.table()
            ),
            [],
        )?;
        Ok::<_, adcab::store::StoreError>(())
    })
    .unwrap();
    s.db.checkpoint().unwrap();
    (took, cpu)
}

/// The `/proc` folder of the database's writer thread, which every write of the hour and of
/// the baseline runs on.
pub fn writer_thread() -> std::path::PathBuf {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .filter_map(Result::ok)
        .map(|task| task.path())
        .find(|task| {
            std::fs::read_to_string(task.join("comm")).is_ok_and(|c| c.trim() == "adcab-writer")
        })
        .expect("the writer thread")
}

/// A thread's user and system CPU time so far, in seconds (`/proc/.../stat`, in clock ticks of
/// 1/100 s).
pub fn cpu_seconds(task: &std::path::Path) -> f64 {
    let stat = std::fs::read_to_string(task.join("stat")).expect("thread stat");
    // The fields after the command's closing parenthesis; utime and stime are its 12th and 13th.
    let fields: Vec<&str> = stat[stat.rfind(')').expect("stat") + 2..]
        .split(' ')
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}

/// A local webhook receiver answering 200; counts the digests it got.
pub fn receiver() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let digests = Arc::new(AtomicUsize::new(0));
    let counter = digests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut line, mut len, mut digest) = (String::new(), 0, false);
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line.trim() != "" {
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
                digest |= lower.starts_with("x-service-event: hourly_digest");
                line.clear();
            }
            let mut body = vec![0; len];
            let _ = reader.read_exact(&mut body);
            if digest {
                counter.fetch_add(1, Ordering::SeqCst);
            }
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }
    });
    (url, digests)
}

/// Waits until the scheduler is done with every hour that closed and `digests` digests in all
/// have reached `received`; should fewer come (a cabinet with nothing to digest), it goes on a
/// minute after the scheduler was done, and says so. Asking the scheduler whether it is done
/// ([`scheduler::idle`], six reads) takes a reader and some of the cores the hour measured
/// shares (asked every 5 ms, 1.4% of the perf samples of two hours and their baselines), so
/// it is asked only once the cheaper signs are in: the digests counted at the receiver, then
/// the clock's closed hours all synced ([`scheduler::lag_seconds`], two reads, every 2 ms);
/// from then on every millisecond or so, until the scheduler is done (the automation after a
/// sync). Until the digests are in, it is asked every [`ASK_EVERY`], for the case in which
/// some never come.
pub fn settle(s: &Services, received: &AtomicUsize, digests: usize) {
    let mut done_since: Option<Instant> = None;
    let mut asked: Option<Instant> = None;
    loop {
        let arrived = received.load(Ordering::SeqCst);
        if arrived < digests && asked.is_some_and(|at| at.elapsed() < ASK_EVERY) {
            std::thread::sleep(Duration::from_millis(1));
            continue;
        }
        if arrived >= digests && s.db.read_blocking(scheduler::lag_seconds).unwrap() > 0 {
            std::thread::sleep(Duration::from_millis(2));
            continue;
        }
        asked = Some(Instant::now());
        let done = s.db.read_blocking(scheduler::idle).unwrap();
        if done && arrived >= digests {
            return;
        }
        if !done {
            done_since = None;
        } else if done_since.get_or_insert_with(Instant::now).elapsed() > Duration::from_secs(60) {
            println!("  ({arrived} of {digests} digests arrived; went on a minute after the sync)");
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// How often [`settle`] asks the scheduler whether it is done while digests are still to come.
const ASK_EVERY: Duration = Duration::from_millis(100);
