//! How the benchmarks repeat a measurement and sum it up: a number of runs
//! bounded by a time budget, the median and percentiles. Included by path where used
//! (`#[path = "common/measure.rs"]`).

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
