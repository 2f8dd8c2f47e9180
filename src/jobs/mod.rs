//! Owns the work that runs beside the faces in `serve`, each a loop of its own: the task
//! worker, the hourly clockwork (`scheduler`: the hourly sync of every cabinet in
//! `hourly_sync`, automation, digests), the Telegram alert sender, the day's exchange rates (`rates`), the upkeep (retention,
//! scheduled backups) and the service manager's watchdog. A job reaches the platform and the
//! store through the same operations the faces use; it never serves a request.

pub mod automation;
pub mod hourly_sync;
pub mod notify;
pub mod rates;
pub mod retention;
pub mod scheduler;
pub mod systemd;
pub mod upkeep;
pub mod worker;
