//! adcab: a self-hosted ad campaign management service. The library runs everything; `main`
//! only parses the command line. [`Services`] is what every part shares (config, database,
//! platform); [`run`] serves the HTTP API on a listener until a shutdown future resolves, with
//! the task worker, the sync/stats scheduler and the webhook sender running beside it.

pub mod api;
pub mod app;
pub mod auth;
pub mod bot;
pub mod cli;
pub mod clock;
pub mod config;
pub mod db;
pub mod domain;
pub mod http;
pub mod i18n;
pub mod jobs;
pub mod mcp;
pub mod metrics;
pub mod ops;
pub mod outbound;
pub mod panel;
pub mod pdf;
pub mod platform;
pub mod primitives;
pub mod ratelimit;
pub mod secret;
pub mod services;
pub mod store;
pub mod webhooks;

pub use app::serve::run;
pub use services::Services;

/// Every binary built on the library (the service, its benchmarks and tests) allocates through
/// mimalloc: a list page builds and frees tens of thousands of small strings, and glibc's
/// allocator spent a quarter of that page's time in `malloc`, `free` and their consolidation.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
