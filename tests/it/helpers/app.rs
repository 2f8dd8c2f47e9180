//! Owns the test server's life: `spawn_app` starts it on port 0 over a temporary database
//! with the test configuration, restarts stand for a crash or a new process, and the waits
//! follow the service clock and the background work the test cannot drive.

use std::time::Duration;

use super::wait_for;
use adcab::config::Config;
use adcab::jobs::worker::Step;
use adcab::ops;
use adcab::store::StoreError;
use adcab::{clock, Services};
use tempfile::TempDir;

#[path = "../../support/server.rs"]
mod server;
use server::Server;

pub struct TestApp {
    pub base: String,
    pub services: Services,
    pub dir: TempDir,
    server: Option<Server>,
}

/// The test configuration: a temporary database, private webhook targets allowed, no demo.
fn test_config(dir: &TempDir) -> Config {
    let mut config = Config::default();
    config.storage.path = dir.path().join("adcab.db");
    config.webhooks.allow_private_targets = true;
    config.demo.bootstrap = false;
    // Reviews are decided by the tests (`sim review`) unless a test turns auto review on.
    config.sim.auto_review_seconds = 0;
    // Rates are fetched only where a test points them at the fake rates server.
    config.rates.source = adcab::config::RatesSource::Manual;
    config
}

pub fn spawn_app() -> TestApp {
    spawn_app_with(|_| {})
}

pub fn spawn_app_with(adjust: impl FnOnce(&mut Config)) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = test_config(&dir);
    adjust(&mut config);
    start(dir, config)
}

impl TestApp {
    /// Stops this server and starts a new process's worth of services over the same database,
    /// as after a crash or a restart.
    pub fn restart(self) -> TestApp {
        self.restart_with(|_| {})
    }

    /// Restarts with the configuration changed by `adjust`.
    pub fn restart_with(mut self, adjust: impl FnOnce(&mut Config)) -> TestApp {
        self.stop();
        let mut config = (*self.services.config).clone();
        adjust(&mut config);
        let dir = std::mem::replace(&mut self.dir, tempfile::tempdir().expect("temp dir"));
        start(dir, config)
    }

    /// Stops this server, runs `offline` against its database (as the panel would while the
    /// service is down), and starts it again.
    pub fn restart_after(mut self, offline: impl FnOnce(&Services)) -> TestApp {
        self.stop();
        offline(&self.services);
        self.restart()
    }

    /// Moves the service clock to two minutes past the next whole hour and waits until the
    /// scheduler is done with everything due, so a test starts at a known minute.
    pub fn align_hour(&self) {
        let into_hour = self.now().timestamp().rem_euclid(3600);
        ops::sim_advance(&self.services, 3600 - into_hour + 120).unwrap();
        self.settle();
    }

    /// Advances the service clock by at least `seconds`, to one second past a whole minute
    /// (without waiting for the scheduler), so that the calls right after it fall in one minute
    /// of the simulator's delivery, which accrues minute by minute.
    pub fn advance_to_a_minute(&self, seconds: i64) {
        let into = (self.now().timestamp() + seconds).rem_euclid(60);
        ops::sim_advance(&self.services, seconds + (61 - into).rem_euclid(60)).unwrap();
    }

    /// Advances the service clock and waits for the scheduler and the webhook sender to catch up.
    pub fn advance(&self, seconds: i64) {
        ops::sim_advance(&self.services, seconds).unwrap();
        self.settle();
    }

    /// Waits (real time, polling) until every hour closed by the service clock is synced,
    /// every digest due is queued, and no webhook waits to be sent.
    pub fn settle(&self) {
        wait_for(Duration::from_secs(30), "the scheduler to catch up", || {
            let idle = self
                .services
                .db
                .read_blocking(adcab::jobs::scheduler::idle)
                .unwrap();
            idle.then_some(())
        });
    }

    /// Drives the task worker from the test: `worker::run_one` until it reports `Empty`, when
    /// every queued task has completed, failed or paused, or waits behind a paused one. The
    /// server's own worker runs beside it; steps take turns, so none runs an item twice.
    pub fn run_tasks(&self) {
        for _ in 0..10_000 {
            if adcab::jobs::worker::run_one(&self.services).unwrap() == Step::Empty {
                return;
            }
        }
        panic!("the task worker never ran out of work");
    }

    /// The service clock's time.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.services.db.read_blocking(clock::now).unwrap()
    }

    /// Runs SQL on the test database, for setting up states no endpoint creates yet.
    pub fn sql(&self, sql: &str) {
        let sql = sql.to_string();
        self.services
            .db
            .write_blocking(move |tx| Ok::<_, StoreError>(tx.execute_batch(&sql)?))
            .expect("sql");
    }

    /// Stops the server and drops its services, keeping the folder, for what runs against
    /// the files with no server (a restore).
    pub fn into_dir(mut self) -> TempDir {
        self.stop();
        std::mem::replace(&mut self.dir, tempfile::tempdir().expect("temp dir"))
    }

    fn stop(&mut self) {
        drop(self.server.take());
    }
}

fn start(dir: TempDir, config: Config) -> TestApp {
    let services = Services::open(config, adcab::db::Open::Create).expect("services open");
    let server = Server::start(services.clone());
    TestApp {
        base: server.base.clone(),
        services,
        dir,
        server: Some(server),
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.stop();
    }
}
