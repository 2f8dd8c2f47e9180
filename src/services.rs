//! Owns `Services`, what the server, the panel, the command line and the background work
//! share: the configuration, the database, the configured platform, the metrics and the
//! admission of outbound calls people start.

use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::watch;

use crate::auth::Principals;
use crate::config::Config;
use crate::db::{Db, Open, OpenError};
use crate::metrics::Metrics;
use crate::outbound::Outbound;
use crate::platform::sim::Simulator;
use crate::platform::{self, Platform};
use crate::secret;

/// What the server, the panel and the background work share.
#[derive(Clone)]
pub struct Services {
    pub config: Arc<Config>,
    pub db: Db,
    pub platform: Arc<dyn Platform>,
    /// The simulator, when it is the configured platform (the `sim` commands need it).
    pub sim: Option<Arc<Simulator>>,
    /// Held through each task step (the task worker's `run_one`): a step picks the first item
    /// not yet done, so two at once would run the same item.
    pub task_step: Arc<Mutex<()>>,
    pub metrics: Arc<Metrics>,
    /// Told when this process moves the service clock (`sim advance` from the panel, the
    /// tests), so the scheduler catches up at once rather than at its next look at the clock.
    /// Every loop that looks at the clock holds its own receiver ([`watch::Sender::subscribe`]):
    /// one shared wake-up went to a single waiter, and the scheduler could miss a move.
    pub clock_moved: Arc<watch::Sender<()>>,
    /// The webhook Tests under way.
    pub outbound: Arc<Outbound>,
    /// The API keys' principals, kept by access generation for the faces that authenticate one.
    pub principals: Arc<Principals>,
}

impl Services {
    /// Opens the database (creating it only when `how` says so, applying migrations) and the
    /// configured platform. The error is the database's: the platform's construction cannot fail.
    pub fn open(config: Config, how: Open) -> Result<Services, OpenError> {
        let db = Db::open_upgrading(&config.storage.path, how, Some(&config.backup_folder()))?;
        let built = platform::build(
            config.platform_sections(),
            &db,
            secret::key_path(&config.storage.path),
        );
        Ok(Services {
            config: Arc::new(config),
            db,
            platform: built.platform,
            sim: built.sim,
            task_step: Arc::new(Mutex::new(())),
            metrics: Arc::new(Metrics::new()),
            clock_moved: Arc::new(watch::Sender::new(())),
            outbound: Arc::new(Outbound::default()),
            principals: Arc::new(Principals::default()),
        })
    }
}
