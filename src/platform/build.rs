//! Owns the one place a platform is made: the configured kind picks the implementation, which
//! reads its own section of the configuration. Adding a platform is a line here.

use std::path::PathBuf;
use std::sync::Arc;

use super::config::{PlatformKind, Sections};
use super::sim::Simulator;
use super::telegram::Telegram;
use super::Platform;
use crate::db::Db;

/// The platform the service talks to.
pub struct Built {
    pub platform: Arc<dyn Platform>,
    /// The simulator, when it is the configured platform (the `sim` commands need it).
    pub sim: Option<Arc<Simulator>>,
}

/// Makes the configured platform over `db`; `key_file` is where a connector's sealing key is
/// kept.
pub fn build(sections: Sections<'_>, db: &Db, key_file: PathBuf) -> Built {
    match sections.platform.kind {
        PlatformKind::Sim => {
            let sim = Arc::new(Simulator::new(db.clone(), sections.sim.clone()));
            Built {
                platform: sim.clone(),
                sim: Some(sim),
            }
        }
        PlatformKind::Telegram => Built {
            platform: Arc::new(Telegram::new(db.clone(), sections.telegram, key_file)),
            sim: None,
        },
    }
}
