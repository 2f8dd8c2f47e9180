//! Test harness: `spawn_app` (server on port 0, temporary database), a typed HTTP client whose
//! calls state the status they expect, fixtures built through the panel, and an in-process
//! webhook receiver that records headers and raw bodies.

use adcab::store::StoreError;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener as StdListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use adcab::config::Config;
use adcab::domain::access::Plan;
use adcab::domain::campaign::TargetType;
use adcab::domain::money::CabinetType;
use adcab::domain::money::Money;
use adcab::panel::{self, NewCabinet, NewKey};
use adcab::platform::{AdDraft, AdSpec};
use adcab::store::history::Source;
use adcab::{clock, sync, Services};
use serde_json::{json, Value};
use tempfile::TempDir;

#[path = "../support/server.rs"]
mod server;
use server::Server;

pub struct TestApp {
    pub base: String,
    pub services: Services,
    pub dir: TempDir,
    server: Option<Server>,
}

pub struct Resp {
    pub status: u16,
    pub headers: HashMap<String, String>,
    pub body: Value,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// Checks the answer is the spec's failure envelope with `status` and `code`.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_error_envelope(self.status, &self.headers, &self.body, status, code);
    }
}

/// Checks an answer (`got`, `headers`, `body`) is the spec's failure envelope: `status`,
/// `success: false`, `code`, a sentence in `error`, the `request_id` of the `X-Request-Id`
/// header, sent as JSON.
#[track_caller]
fn assert_error_envelope(
    got: u16,
    headers: &HashMap<String, String>,
    body: &Value,
    status: u16,
    code: &str,
) {
    assert_eq!(got, status, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{body}"
    );
    assert_eq!(
        body["request_id"].as_str(),
        headers.get("x-request-id").map(String::as_str),
        "{body}"
    );
    assert_eq!(
        headers.get("content-type").map(String::as_str),
        Some("application/json"),
        "{body}"
    );
}

/// The test configuration: a temporary database, private webhook targets allowed, no demo.
pub fn test_config(dir: &TempDir) -> Config {
    let mut config = Config::default();
    config.storage.path = dir.path().join("adcab.db");
    config.webhooks.allow_private_targets = true;
    config.demo.bootstrap = false;
    // Reviews are decided by the tests (`sim review`) unless a test turns auto review on.
    config.sim.auto_review_seconds = 0;
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
        panel::sim_advance(&self.services, 3600 - into_hour + 120).unwrap();
        self.settle();
    }

    /// Advances the service clock and waits for the scheduler and the webhook sender to catch up.
    pub fn advance(&self, seconds: i64) {
        panel::sim_advance(&self.services, seconds).unwrap();
        self.settle();
    }

    /// Waits (real time, polling) until every hour closed by the service clock is synced,
    /// every digest due is queued, and no webhook waits to be sent.
    pub fn settle(&self) {
        wait_for(Duration::from_secs(30), "the scheduler to catch up", || {
            let idle = self
                .services
                .db
                .read_blocking(adcab::scheduler::idle)
                .unwrap();
            idle.then_some(())
        });
    }

    /// Waits (real time, polling) until the server's task worker has nothing runnable left,
    /// which is when `worker::run_one` reports `Empty`: every queued task has completed,
    /// failed or paused, or waits behind a paused one. The test cannot call `run_one` itself:
    /// the server's own worker runs beside it, and two workers take the same item.
    pub fn wait_for_tasks(&self) {
        wait_for(
            Duration::from_secs(20),
            "the task worker to be idle",
            || {
                let next = self
                    .services
                    .db
                    .read_blocking(adcab::store::tasks::next_runnable)
                    .unwrap();
                next.is_none().then_some(())
            },
        );
    }

    /// A key of `user` sending webhooks to `url`: (key id, key, webhook secret).
    pub fn hook_key(&self, user: i64, url: &str) -> (i64, String, String) {
        let created = panel::key_create(
            &self.services,
            &NewKey {
                user,
                manage: true,
                webhook_url: Some(url.to_string()),
                ..NewKey::default()
            },
        )
        .unwrap();
        (created.id, created.key, created.webhook_secret)
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

impl Resp {
    /// The answer a ureq call got, whatever its status; panics, naming `what` was sent, when
    /// none came.
    pub fn from_ureq(result: Result<ureq::Response, ureq::Error>, what: &str) -> Resp {
        let r = match result {
            Ok(r) | Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{what}: {e}"),
        };
        let status = r.status();
        let headers = r
            .headers_names()
            .into_iter()
            .map(|n| {
                let v = r.header(&n).unwrap_or_default().to_string();
                (n.to_ascii_lowercase(), v)
            })
            .collect();
        let text = r.into_string().expect("body");
        let body =
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("body is not JSON: {text}"));
        Resp {
            status,
            headers,
            body,
        }
    }
}

/// Polls `probe` every 20 ms until it gives a value and returns it, or `None` once `within`
/// has passed: the one loop for waiting on what a test cannot drive itself (the server's
/// background work, another process, a connection, the wall clock).
pub fn poll<T>(within: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(found) = probe() {
            return Some(found);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// [`poll`] that fails the test, naming `what` it waited for, when `within` passes first.
#[track_caller]
pub fn wait_for<T>(within: Duration, what: &str, probe: impl FnMut() -> Option<T>) -> T {
    match poll(within, probe) {
        Some(found) => found,
        None => panic!("waited {within:?} for {what}"),
    }
}

/// Runs `batch` until all its answers fall in one rate-limit window (the same
/// `X-RateLimit-Reset`), retrying when a minute boundary falls between them; returns them.
pub fn in_one_rate_window(mut batch: impl FnMut() -> Vec<Resp>) -> Vec<Resp> {
    wait_for(
        Duration::from_secs(180),
        "requests inside one rate-limit window",
        || {
            let answers = batch();
            let same = answers
                .windows(2)
                .all(|w| w[0].header("x-ratelimit-reset") == w[1].header("x-ratelimit-reset"));
            same.then_some(answers)
        },
    )
}

/// A panel answer as the JSON object its command prints.
pub fn printed<T: serde::Serialize>(answer: T) -> Value {
    serde_json::to_value(answer).expect("panel answers serialize")
}

/// An answer read off a raw TCP connection.
#[derive(Debug)]
pub struct RawResp {
    pub status: u16,
    pub headers: HashMap<String, String>,
    pub body: String,
}

impl RawResp {
    /// The body as JSON; panics (naming it) when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|_| panic!("answer {} is not JSON: {:?}", self.status, self.body))
    }

    /// Checks the answer is the spec's failure envelope with `status` and `code`.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_error_envelope(self.status, &self.headers, &self.json(), status, code);
    }
}

/// Reads an answer's status line and headers from `reader`.
fn read_status_and_headers(
    reader: &mut impl BufRead,
) -> std::io::Result<(u16, HashMap<String, String>)> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status line: {line:?}")))?;
    Ok((status, read_headers(reader)?))
}

/// Reads header lines up to the blank line (or the end), names lowercased.
fn read_headers(reader: &mut impl BufRead) -> std::io::Result<HashMap<String, String>> {
    let mut headers = HashMap::new();
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    Ok(headers)
}

/// Reads an answer's status line and headers only (a HEAD answer has no body).
pub fn read_head(stream: &mut std::net::TcpStream) -> std::io::Result<RawResp> {
    let (status, headers) = read_status_and_headers(&mut BufReader::new(stream))?;
    Ok(RawResp {
        status,
        headers,
        body: String::new(),
    })
}

/// Reads one HTTP/1.1 answer from `stream` (by `Content-Length`, else to the end).
pub fn read_answer(stream: &mut std::net::TcpStream) -> std::io::Result<RawResp> {
    let mut reader = BufReader::new(stream);
    let (status, headers) = read_status_and_headers(&mut reader)?;
    let mut body = Vec::new();
    match headers.get("content-length").and_then(|v| v.parse().ok()) {
        Some(len) => {
            body.resize(len, 0);
            reader.read_exact(&mut body)?;
        }
        None => {
            reader.read_to_end(&mut body)?;
        }
    }
    Ok(RawResp {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

impl TestApp {
    /// The server's address, `127.0.0.1:PORT`.
    pub fn addr(&self) -> String {
        self.base
            .trim_start_matches("http://")
            .trim_end_matches("/api/v1")
            .to_string()
    }

    /// Sends `bytes` as they are on a new connection and reads one answer (within 10 s).
    pub fn raw(&self, bytes: &[u8]) -> RawResp {
        let mut stream = std::net::TcpStream::connect(self.addr()).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream.write_all(bytes).expect("send");
        read_answer(&mut stream).expect("an answer")
    }

    pub fn call(&self, method: &str, path: &str, key: Option<&str>) -> Resp {
        self.request(method, path, key, None, &[])
    }

    /// A call with a key and no body.
    pub fn call_with_key(&self, method: &str, path: &str, key: &str) -> Resp {
        self.request(method, path, Some(key), None, &[])
    }

    /// A call with a JSON body (or none) and extra headers.
    pub fn send(
        &self,
        method: &str,
        path: &str,
        key: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Resp {
        self.request(method, path, Some(key), body, headers)
    }

    fn request(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Resp {
        let mut req = ureq::request(method, &format!("{}{path}", self.base));
        if let Some(key) = key {
            req = req.set("X-API-Key", key);
        }
        for (name, value) in headers {
            req = req.set(name, value);
        }
        let result = match body {
            Some(b) => req
                .set("Content-Type", "application/json")
                .send_string(&b.to_string()),
            None => req.call(),
        };
        Resp::from_ureq(result, &format!("{method} {path}"))
    }

    /// A write that must answer `status` with a success envelope; returns the body.
    pub fn write_ok(
        &self,
        method: &str,
        path: &str,
        key: &str,
        body: Option<&Value>,
        status: u16,
    ) -> Value {
        let idem = uuid::Uuid::new_v4().to_string();
        let r = self.send(method, path, key, body, &[("Idempotency-Key", &idem)]);
        assert_eq!(r.status, status, "{method} {path}: {}", r.body);
        assert_eq!(r.body["success"], true);
        r.body
    }

    /// A write that must fail with `status` and `code`, in the spec's envelope; returns the
    /// body.
    #[track_caller]
    pub fn write_err(
        &self,
        method: &str,
        path: &str,
        key: &str,
        body: Option<&Value>,
        status: u16,
        code: &str,
    ) -> Value {
        let idem = uuid::Uuid::new_v4().to_string();
        let r = self.send(method, path, key, body, &[("Idempotency-Key", &idem)]);
        r.assert_error(status, code);
        r.body
    }

    /// An owner with one euro cabinet (balance 1000) and a manage key: (user, cabinet, key).
    pub fn manager(&self) -> (i64, i64, String) {
        let user = self.user("pro");
        let cabinet = self.cabinet(user, "euro", "1000");
        let key = self.key_with(NewKey {
            user,
            manage: true,
            ..NewKey::default()
        });
        (user, cabinet, key)
    }

    /// A campaign approved by review: `Active` with its budget.
    pub fn active_campaign(&self, account: i64) -> i64 {
        self.approved(account, Camp::channel("Running", "https://t.me/alpha_chan"))
    }

    /// Creates the campaign and approves it in review.
    pub fn approved(&self, account: i64, c: Camp) -> i64 {
        let ad = self.campaign(account, c);
        panel::sim_review(&self.services, account, ad, true, None).unwrap();
        ad
    }

    /// An approved channel campaign with `budget_micros` on it.
    pub fn funded(&self, account: i64, budget_micros: i64) -> i64 {
        self.approved(
            account,
            Camp {
                budget_micros,
                ..Camp::channel("Funded", "https://t.me/alpha_chan")
            },
        )
    }

    /// The service clock's time.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.services.db.read_blocking(clock::now).unwrap()
    }

    pub fn get(&self, path: &str, key: &str) -> Resp {
        self.call("GET", path, Some(key))
    }

    /// GET that must answer 200 with a success envelope; returns the body.
    pub fn get_ok(&self, path: &str, key: &str) -> Value {
        let r = self.get(path, key);
        assert_eq!(r.status, 200, "GET {path}: {}", r.body);
        assert_eq!(r.body["success"], true);
        r.body
    }

    /// A call that must fail with `status` and `code`, in the spec's envelope; returns the body.
    #[track_caller]
    pub fn expect_err(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        status: u16,
        code: &str,
    ) -> Value {
        let r = self.call(method, path, key);
        r.assert_error(status, code);
        r.body
    }

    #[track_caller]
    pub fn get_err(&self, path: &str, key: &str, status: u16, code: &str) -> Value {
        self.expect_err("GET", path, Some(key), status, code)
    }

    /// Runs SQL on the test database, for setting up states no endpoint creates yet.
    pub fn sql(&self, sql: &str) {
        let sql = sql.to_string();
        self.services
            .db
            .write_blocking(move |tx| Ok::<_, StoreError>(tx.execute_batch(&sql)?))
            .expect("sql");
    }

    // Fixtures, through the panel.

    pub fn user(&self, plan: &str) -> i64 {
        let email = format!("{}@example.com", uuid::Uuid::new_v4().simple());
        printed(panel::user_add(&self.services, &email, Plan::parse(plan).unwrap()).unwrap())["id"]
            .as_i64()
            .unwrap()
    }

    pub fn cabinet(&self, owner: i64, kind: &str, balance: &str) -> i64 {
        printed(
            panel::cabinet_add(
                &self.services,
                &NewCabinet {
                    owner,
                    name: format!("{kind} cabinet"),
                    kind: CabinetType::parse(kind).unwrap(),
                    balance: Some(balance.into()),
                    min_budget: None,
                    ad_button: false,
                    crypto_filters: false,
                },
            )
            .unwrap(),
        )["id"]
            .as_i64()
            .unwrap()
    }

    pub fn key(&self, user: i64) -> String {
        self.key_with(NewKey {
            user,
            ..NewKey::default()
        })
    }

    pub fn key_with(&self, k: NewKey) -> String {
        printed(panel::key_create(&self.services, &k).unwrap())["key"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// An owner on `plan` with one euro cabinet and a read key: (user, cabinet, key).
    pub fn owner_with_cabinet(&self, plan: &str) -> (i64, i64, String) {
        let user = self.user(plan);
        let cabinet = self.cabinet(user, "euro", "1000");
        let key = self.key(user);
        (user, cabinet, key)
    }

    /// Creates a campaign on the platform and stores its copy; returns its ad_id.
    pub fn campaign(&self, account: i64, c: Camp) -> i64 {
        let spec = AdSpec::plain(c.title, "Ad text", c.url, c.target_type, c.targeting);
        let draft = AdDraft::running(
            spec,
            Money::from_micros(c.cpm_micros),
            Money::from_micros(c.budget_micros),
        );
        sync::create_stored(&self.services, account, &draft, c.group, Source::Panel)
            .expect("stored")
            .expect("created on the platform")
            .ad_id
    }
}

/// A campaign fixture; `Camp::channel("t")` and friends fill the rest.
pub struct Camp {
    pub title: &'static str,
    pub url: &'static str,
    pub target_type: TargetType,
    pub targeting: Value,
    pub cpm_micros: i64,
    pub budget_micros: i64,
    pub group: Option<i64>,
}

impl Camp {
    pub fn channel(title: &'static str, url: &'static str) -> Camp {
        Camp {
            title,
            url,
            target_type: TargetType::Channels,
            targeting: json!({ "channels": ["@tech_daily"] }),
            cpm_micros: 2_000_000,
            budget_micros: 10_000_000,
            group: None,
        }
    }

    pub fn site(title: &'static str, url: &'static str) -> Camp {
        Camp {
            target_type: TargetType::Users,
            targeting: json!({ "countries": ["DE"] }),
            ..Camp::channel(title, url)
        }
    }
}

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
}

impl Received {
    /// The body as JSON, after checking the signature over the exact bytes with `secret`.
    pub fn verified(&self, secret: &str) -> Value {
        let ts: u64 = self.headers["x-service-timestamp"].parse().unwrap();
        assert_eq!(
            self.headers["x-service-signature"],
            adcab::webhooks::sign::signature(secret, ts, &self.body),
            "signed over the exact body"
        );
        serde_json::from_slice(&self.body).unwrap()
    }

    pub fn event(&self) -> &str {
        &self.headers["x-service-event"]
    }
}

/// An in-process webhook receiver answering every request with `status`.
pub struct Receiver {
    pub url: String,
    pub got: Arc<Mutex<Vec<Received>>>,
}

impl Receiver {
    pub fn start(status: u16) -> Receiver {
        let listener = StdListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let got = Arc::new(Mutex::new(Vec::new()));
        let record = got.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                reader.read_line(&mut request_line).unwrap();
                let headers = read_headers(&mut reader).unwrap();
                let len: usize = headers
                    .get("content-length")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                let mut body = vec![0; len];
                reader.read_exact(&mut body).unwrap();
                record.lock().unwrap().push(Received { headers, body });
                let answer = format!(
                    "HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        Receiver { url, got }
    }

    pub fn received(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }
}
