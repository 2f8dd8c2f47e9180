//! Owns the service's metrics, rendered for Prometheus as `GET /metrics` (every name starts
//! `adcab_`). Events are counted where they happen (requests with their route pattern and
//! status and latency, rate-limit refusals, webhook deliveries, ingested conversions); the
//! states (task queue, sync lag, webhook backlog, database size) are read from the database
//! when the metrics are scraped, so they are never stale.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use rusqlite::Connection;

use crate::clock;
use crate::store::StoreError;

// Every label value is chosen from a fixed set (`&'static str`) or a bounded number, never
// taken from a request as it came: a client cannot add series, so a scrape stays small
// whatever it sends.

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: &'static str,
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BudgetLabels {
    budget: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: &'static str,
}

/// The methods a `method` label names; any other becomes `other`.
const METHODS: [&str; 9] = [
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT",
];

/// A request method as a label: one of [`METHODS`], else `other`.
fn method_label(method: &str) -> &'static str {
    METHODS
        .iter()
        .find(|m| **m == method)
        .copied()
        .unwrap_or("other")
}

/// Latency buckets in seconds: 1 ms to about 16 s.
fn latency_histogram() -> Histogram {
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(
        0.001, 2.0, 15,
    ))
}

/// Every metric, registered once; cheap to update from any thread.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram, fn() -> Histogram>,
    rate_limited: Family<BudgetLabels, Counter>,
    deliveries: Family<OutcomeLabels, Counter>,
    ingested: Family<OutcomeLabels, Counter>,
    tasks_waiting: Gauge,
    oldest_task_age: Gauge,
    sync_lag: Gauge,
    outbox_backlog: Gauge,
    database_bytes: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("adcab");
        let m = Metrics {
            requests: Family::default(),
            latency: Family::new_with_constructor(latency_histogram),
            rate_limited: Family::default(),
            deliveries: Family::default(),
            ingested: Family::default(),
            tasks_waiting: Gauge::default(),
            oldest_task_age: Gauge::default(),
            sync_lag: Gauge::default(),
            outbox_backlog: Gauge::default(),
            database_bytes: Gauge::default(),
            registry: Registry::default(),
        };
        registry.register(
            "http_requests",
            "HTTP requests answered, by method, route pattern and status",
            m.requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time from a request's arrival to its answer, by method and route pattern",
            m.latency.clone(),
        );
        registry.register(
            "rate_limited",
            "Requests refused 429 by the per-key rate limits, by budget",
            m.rate_limited.clone(),
        );
        registry.register(
            "webhook_deliveries",
            "Webhook deliveries finished, by outcome (delivered or failed)",
            m.deliveries.clone(),
        );
        registry.register(
            "ingest_events",
            "Conversions received (postbacks and the tracker URL), by outcome",
            m.ingested.clone(),
        );
        registry.register(
            "tasks_waiting",
            "Background tasks pending or running",
            m.tasks_waiting.clone(),
        );
        registry.register(
            "task_oldest_age_seconds",
            "Age of the oldest pending or running task (service clock), 0 when none",
            m.oldest_task_age.clone(),
        );
        registry.register(
            "sync_lag_seconds",
            "How far the hourly sync is behind the last closed hour (service clock)",
            m.sync_lag.clone(),
        );
        registry.register(
            "webhook_outbox_backlog",
            "Webhook events waiting to be sent",
            m.outbox_backlog.clone(),
        );
        registry.register(
            "database_size_bytes",
            "Size of the SQLite database (pages in use and free)",
            m.database_bytes.clone(),
        );
        Metrics { registry, ..m }
    }

    /// Counts one answered request. `route` is a route pattern of the route tables (the
    /// API's, the panel's, the probes), never the raw path; a method outside the known ones
    /// counts as `other`. So the labels stay bounded whatever a client sends.
    pub fn request(&self, method: &str, route: &str, status: u16, seconds: f64) {
        let method = method_label(method);
        self.requests
            .get_or_create(&RequestLabels {
                method,
                route: route.to_string(),
                status,
            })
            .inc();
        self.latency
            .get_or_create(&RouteLabels {
                method,
                route: route.to_string(),
            })
            .observe(seconds);
    }

    pub fn rate_limited(&self, budget: &'static str) {
        self.rate_limited
            .get_or_create(&BudgetLabels { budget })
            .inc();
    }

    pub fn delivery(&self, delivered: bool) {
        let outcome = if delivered { "delivered" } else { "failed" };
        self.deliveries
            .get_or_create(&OutcomeLabels { outcome })
            .inc();
    }

    /// Counts `n` received conversions with one outcome (`recorded`, `refused`).
    pub fn ingested(&self, outcome: &'static str, n: u64) {
        self.ingested
            .get_or_create(&OutcomeLabels { outcome })
            .inc_by(n);
    }

    /// Reads the states from the database and renders everything in the text format, with
    /// `sync_lag` (seconds) as the scheduler reckons it.
    pub fn render(&self, conn: &Connection, sync_lag: i64) -> Result<String, StoreError> {
        let state = State::read(conn, sync_lag)?;
        self.tasks_waiting.set(state.tasks_waiting);
        self.oldest_task_age.set(state.oldest_task_age);
        self.sync_lag.set(state.sync_lag);
        self.outbox_backlog.set(state.outbox_backlog);
        self.database_bytes.set(state.database_bytes);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)
            .map_err(|e| StoreError::Failed(format!("cannot render the metrics: {e}")))?;
        Ok(text)
    }
}

/// The states the scrape reads.
struct State {
    tasks_waiting: i64,
    oldest_task_age: i64,
    sync_lag: i64,
    outbox_backlog: i64,
    database_bytes: i64,
}

impl State {
    fn read(conn: &Connection, sync_lag: i64) -> Result<State, StoreError> {
        let now = clock::now(conn)?;
        let (tasks_waiting, oldest): (i64, Option<String>) = conn.query_row(
            "SELECT COUNT(*), MIN(created_at) FROM tasks WHERE status IN ('pending', 'running')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let oldest_task_age = oldest
            .and_then(|t| clock::parse_iso(&t))
            .map_or(0, |t| (now - t).num_seconds().max(0));
        let outbox_backlog =
            conn.query_row("SELECT COUNT(*) FROM webhook_outbox", [], |r| r.get(0))?;
        let database_bytes = conn.query_row(
            "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
            [],
            |r| r.get(0),
        )?;
        Ok(State {
            tasks_waiting,
            oldest_task_age,
            sync_lag,
            outbox_backlog,
            database_bytes,
        })
    }
}
