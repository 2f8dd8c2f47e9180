//! Owns the work that runs beside the faces in `serve`, each a loop of its own: the task
//! worker, the hourly clockwork (`scheduler`: the hourly sync of every cabinet in
//! `hourly_sync`, automation, schedules following their zone's clocks in `zones`, digests),
//! the Telegram alert sender, the scheduled client reports (`reports`), the day's exchange
//! rates (`rates`), the upkeep (retention, scheduled backups) and the service manager's
//! watchdog. A job reaches the platform and the store through the same operations the faces
//! use; it never serves a request.

pub mod automation;
pub mod hourly_sync;
pub mod notify;
pub mod rates;
pub mod reports;
pub mod retention;
pub mod scheduler;
pub mod systemd;
pub mod upkeep;
pub mod worker;
pub mod zones;
