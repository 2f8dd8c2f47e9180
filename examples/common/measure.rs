//! How the benchmarks repeat a measurement and sum it up: a number of runs
//! bounded by a time budget, the median and percentiles, and the CPU time of threads. Included
//! by path where used (`#[path = "common/measure.rs"]`).

use std::time::{Duration, Instant};

/// Runs `f` (given the run's number) `n` times, or fewer once `budget` is spent and `min_runs`
/// are made; what each run returned.
pub fn runs<T>(
    n: usize,
    budget: Duration,
    min_runs: usize,
    mut f: impl FnMut(usize) -> T,
) -> Vec<T> {
    let started = Instant::now();
    let mut done = Vec::new();
    while done.len() < n && (done.len() < min_runs || started.elapsed() < budget) {
        let run = f(done.len());
        done.push(run);
    }
    done
}

pub fn median(v: &mut [f64]) -> f64 {
    percentile(v, 0.5)
}

pub fn percentile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 * q) as usize).min(v.len() - 1)]
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

/// The CPU time so far, in seconds, of each of this process's threads (by id) whose name
/// starts with one of `names` (`adcab-reader`, `tokio-rt-worker`: the in-process servers).
pub fn threads_cpu(names: &[&str]) -> std::collections::BTreeMap<String, f64> {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .filter_map(Result::ok)
        .filter(|task| {
            std::fs::read_to_string(task.path().join("comm"))
                .is_ok_and(|c| names.iter().any(|n| c.starts_with(n)))
        })
        .map(|task| {
            let id = task.file_name().to_string_lossy().into_owned();
            (id, cpu_seconds(&task.path()))
        })
        .collect()
}

/// The CPU time the threads `before` counted (and any such thread started since) spent since
/// it was read, in seconds; a thread gone since is left out rather than taken off.
pub fn threads_cpu_since(before: &std::collections::BTreeMap<String, f64>, names: &[&str]) -> f64 {
    threads_cpu(names)
        .iter()
        .map(|(id, now)| now - before.get(id).copied().unwrap_or(0.0))
        .sum()
}
