//! Owns driving a real headless Chromium for the browser tests: chromedriver started on a free
//! port, one WebDriver session over a fresh profile, and the few commands the tests use, each
//! HTTP call with a deadline; the session ends and chromedriver is killed on drop.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use tempfile::TempDir;

use crate::helpers::poll;

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";
/// WebDriver's key for an element reference in its answers.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";
/// The deadline of one WebDriver call; a new session (Chromium starting) gets more.
const CALL: Duration = Duration::from_secs(30);
const NEW_SESSION: Duration = Duration::from_secs(60);
/// The viewport every page is seen through (and shot, unless the page is taller).
const VIEWPORT: (i64, i64) = (1400, 900);

/// A headless Chromium in one WebDriver session.
pub struct Chrome {
    driver: Child,
    agent: ureq::Agent,
    /// `http://127.0.0.1:PORT/session/ID`, while the session lasts.
    session: Option<String>,
    profile: TempDir,
}

/// An element of the current page.
pub struct Element<'a> {
    chrome: &'a Chrome,
    id: String,
}

impl Chrome {
    /// Starts chromedriver and a browser session; fails the test, naming the packages, when
    /// chromedriver or Chromium is not installed.
    pub fn start() -> Chrome {
        for program in [CHROMEDRIVER, CHROMIUM] {
            assert!(
                Path::new(program).exists(),
                "{program} is missing: the browser tests need Debian's `chromium` and \
                 `chromium-driver` packages (.ci/run installs them)"
            );
        }
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(Duration::from_secs(5))
            .timeout(CALL)
            .build();
        // A port picked now may be taken before chromedriver binds it: try a few.
        let mut failures = Vec::new();
        for _ in 0..3 {
            let (driver, root) = match launch(&agent) {
                Ok(started) => started,
                Err(why) => {
                    failures.push(why);
                    continue;
                }
            };
            let profile = tempfile::tempdir().expect("a profile directory");
            let mut chrome = Chrome {
                driver,
                agent,
                session: None,
                profile,
            };
            let id = chrome.new_session(&root);
            chrome.session = Some(format!("{root}/session/{id}"));
            chrome.set_viewport(VIEWPORT.0, VIEWPORT.1);
            return chrome;
        }
        panic!("chromedriver did not start: {failures:?}");
    }

    fn new_session(&self, root: &str) -> String {
        let profile = self.profile.path().display();
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "timeouts": {"implicit": 0, "pageLoad": 20_000, "script": 10_000},
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-quic", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--window-size=1400,900",
                    format!("--user-data-dir={profile}"),
                ],
            },
        }}});
        let answer = self
            .agent
            .post(&format!("{root}/session"))
            .timeout(NEW_SESSION)
            .set("content-type", "application/json")
            .send_string(&capabilities.to_string());
        let value = unwrap_answer(answer).unwrap_or_else(|e| panic!("no browser session: {e}"));
        value["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session id in {value}"))
            .to_string()
    }

    /// One WebDriver command on the session: its `value`, or WebDriver's error as text.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let session = self.session.as_ref().expect("the session has ended");
        let request = self.agent.request(method, &format!("{session}{path}"));
        unwrap_answer(match body {
            Some(body) => request
                .set("content-type", "application/json")
                .send_string(&body.to_string()),
            None => request.call(),
        })
    }

    #[track_caller]
    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.call(method, path, body)
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"))
    }

    /// Opens `url` and waits for the page to load.
    pub fn goto(&self, url: &str) {
        self.command("POST", "/url", Some(json!({ "url": url })));
    }

    pub fn url(&self) -> String {
        string(self.command("GET", "/url", None))
    }

    pub fn source(&self) -> String {
        string(self.command("GET", "/source", None))
    }

    /// The first element matching the CSS `selector`, if the page has one.
    #[track_caller]
    pub fn try_find(&self, selector: &str) -> Option<Element<'_>> {
        let by = json!({"using": "css selector", "value": selector});
        match self.call("POST", "/element", Some(by)) {
            Ok(v) => Some(self.element(v)),
            Err(e) if e.contains("\"no such element\"") => None,
            Err(e) => panic!("WebDriver find `{selector}`: {e}"),
        }
    }

    /// The first element matching the CSS `selector`; fails the test, with the page, if none.
    #[track_caller]
    pub fn find(&self, selector: &str) -> Element<'_> {
        self.try_find(selector)
            .unwrap_or_else(|| panic!("no `{selector}` on {}:\n{}", self.url(), self.source()))
    }

    /// Every element matching the CSS `selector`.
    pub fn find_all(&self, selector: &str) -> Vec<Element<'_>> {
        let by = json!({"using": "css selector", "value": selector});
        self.elements(self.command("POST", "/elements", Some(by)))
    }

    /// The link whose whole visible text is `text`.
    #[track_caller]
    pub fn link(&self, text: &str) -> Element<'_> {
        let by = json!({"using": "link text", "value": text});
        match self.call("POST", "/element", Some(by)) {
            Ok(v) => self.element(v),
            Err(e) => panic!("no link `{text}` on {}: {e}", self.url()),
        }
    }

    /// Polls `probe` against the page until it gives a value, for up to 10 seconds.
    #[track_caller]
    pub fn wait_for<'a, T>(
        &'a self,
        what: &str,
        mut probe: impl FnMut(&'a Chrome) -> Option<T>,
    ) -> T {
        match poll(Duration::from_secs(10), || probe(self)) {
            Some(found) => found,
            None => panic!(
                "waited 10 s for {what}; at {}:\n{}",
                self.url(),
                self.source()
            ),
        }
    }

    /// Saves the whole page as a PNG at `path` and returns its bytes: a page taller than the
    /// viewport is shot with the viewport grown to it (by up to 4,000 pixels), then shrunk back.
    pub fn screenshot(&self, path: &Path) -> Vec<u8> {
        let (width, height, page) = self.viewport();
        let taller = page > height;
        if taller {
            self.set_viewport(width, page.min(height + 4_000));
        }
        let png = decode_base64(&string(self.command("GET", "/screenshot", None)));
        if taller {
            self.set_viewport(width, height);
        }
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).unwrap();
        }
        std::fs::write(path, &png).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        png
    }

    /// Runs `script` (a function body) in the page and returns what it returns; a returned
    /// promise is awaited.
    pub fn run(&self, script: &str) -> Value {
        let body = json!({ "script": script, "args": [] });
        self.command("POST", "/execute/sync", Some(body))
    }

    /// The viewport's width and height and the page's height, in CSS pixels.
    fn viewport(&self) -> (i64, i64, i64) {
        let script = json!({
            "script": "return [window.innerWidth, window.innerHeight, \
                       document.documentElement.scrollHeight];",
            "args": [],
        });
        let sizes = self.command("POST", "/execute/sync", Some(script));
        let size = |i: usize| {
            sizes[i]
                .as_i64()
                .unwrap_or_else(|| panic!("sizes: {sizes}"))
        };
        (size(0), size(1), size(2))
    }

    /// Runs `script` (a function body; `return` gives its value) in the page.
    pub fn script(&self, script: &str) -> Value {
        let body = json!({ "script": script, "args": [] });
        self.command("POST", "/execute/sync", Some(body))
    }

    /// Sizes the window so that its viewport is `width` by `height`: what the window adds
    /// around the viewport differs in headless Chromium between the start and a resize.
    pub fn set_viewport(&self, width: i64, height: i64) {
        let window = self.command("GET", "/window/rect", None);
        let (now_width, now_height, _) = self.viewport();
        let outer = |key: &str| window[key].as_i64().unwrap_or_else(|| panic!("{window}"));
        let rect = json!({
            "width": outer("width") + width - now_width,
            "height": outer("height") + height - now_height,
        });
        self.command("POST", "/window/rect", Some(rect));
    }

    /// Ends the session, which closes the browser.
    pub fn quit(mut self) -> Result<(), String> {
        let ended = self.call("DELETE", "", None).map(drop);
        self.session = None;
        ended
    }

    fn element(&self, value: Value) -> Element<'_> {
        let id = value[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("not an element: {value}"));
        Element {
            chrome: self,
            id: id.to_string(),
        }
    }

    fn elements(&self, value: Value) -> Vec<Element<'_>> {
        match value {
            Value::Array(found) => found.into_iter().map(|v| self.element(v)).collect(),
            other => panic!("not a list of elements: {other}"),
        }
    }
}

impl Drop for Chrome {
    fn drop(&mut self) {
        // Chromium outlives a killed chromedriver: end the session first.
        if self.session.is_some() {
            let _ = self.call("DELETE", "", None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl<'a> Element<'a> {
    fn path(&self, rest: &str) -> String {
        format!("/element/{}{rest}", self.id)
    }

    #[track_caller]
    pub fn click(&self) {
        self.chrome
            .command("POST", &self.path("/click"), Some(json!({})));
    }

    /// Types `text` into the element.
    #[track_caller]
    pub fn send_keys(&self, text: &str) {
        self.chrome
            .command("POST", &self.path("/value"), Some(json!({ "text": text })));
    }

    /// Empties a text input.
    #[track_caller]
    pub fn clear(&self) {
        self.chrome
            .command("POST", &self.path("/clear"), Some(json!({})));
    }

    /// Whether a checkbox, radio button or option is ticked or chosen.
    #[track_caller]
    pub fn is_selected(&self) -> bool {
        let value = self.chrome.command("GET", &self.path("/selected"), None);
        value
            .as_bool()
            .unwrap_or_else(|| panic!("not a boolean: {value}"))
    }

    /// Whether the element is shown on the page (WebDriver's visibility rules).
    #[track_caller]
    pub fn is_displayed(&self) -> bool {
        let value = self.chrome.command("GET", &self.path("/displayed"), None);
        value
            .as_bool()
            .unwrap_or_else(|| panic!("not a boolean: {value}"))
    }

    /// The element's rendered text.
    #[track_caller]
    pub fn text(&self) -> String {
        string(self.chrome.command("GET", &self.path("/text"), None))
    }

    /// The element's attribute or property `name` (an input's `value` is what it holds now).
    #[track_caller]
    pub fn attribute(&self, name: &str) -> Option<String> {
        let value = self
            .chrome
            .command("GET", &self.path(&format!("/attribute/{name}")), None);
        value.as_str().map(str::to_string)
    }

    /// The element's markup as the browser parsed it.
    #[track_caller]
    pub fn html(&self) -> String {
        string(
            self.chrome
                .command("GET", &self.path("/property/outerHTML"), None),
        )
    }

    /// The element's rendered width and height in CSS pixels (zero when it is not drawn).
    #[track_caller]
    pub fn size(&self) -> (f64, f64) {
        let rect = self.chrome.command("GET", &self.path("/rect"), None);
        let side = |key: &str| rect[key].as_f64().unwrap_or_else(|| panic!("{rect}"));
        (side("width"), side("height"))
    }

    /// Every descendant matching the CSS `selector`.
    #[track_caller]
    pub fn find_all(&self, selector: &str) -> Vec<Element<'a>> {
        let by = json!({"using": "css selector", "value": selector});
        let found = self
            .chrome
            .command("POST", &self.path("/elements"), Some(by));
        self.chrome.elements(found)
    }
}

/// Starts chromedriver on a free port and waits until it answers `/status` as ready.
fn launch(agent: &ureq::Agent) -> Result<(Child, String), String> {
    let port = {
        let probe = TcpListener::bind("127.0.0.1:0").expect("a free port");
        probe.local_addr().unwrap().port()
    };
    let mut driver = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{CHROMEDRIVER}: {e}"))?;
    let root = format!("http://127.0.0.1:{port}");
    let ready = poll(Duration::from_secs(10), || {
        if let Ok(Some(status)) = driver.try_wait() {
            return Some(Err(format!("chromedriver on port {port} exited: {status}")));
        }
        let status = agent
            .get(&format!("{root}/status"))
            .timeout(Duration::from_secs(2))
            .call();
        let ready = unwrap_answer(status).ok()?["ready"].as_bool()?;
        ready.then_some(Ok(()))
    });
    match ready {
        Some(Ok(())) => Ok((driver, root)),
        Some(Err(why)) => Err(why),
        None => {
            let _ = driver.kill();
            let _ = driver.wait();
            Err(format!("chromedriver on port {port} not ready within 10 s"))
        }
    }
}

/// WebDriver's answer: its `value`, or its error and message (or the transport's) as text.
fn unwrap_answer(answer: Result<ureq::Response, ureq::Error>) -> Result<Value, String> {
    let (failed, response) = match answer {
        Ok(r) => (false, r),
        Err(ureq::Error::Status(_, r)) => (true, r),
        Err(e) => return Err(e.to_string()),
    };
    let status = response.status();
    let text = response
        .into_string()
        .map_err(|e| format!("{status}, unread: {e}"))?;
    let body: Value =
        serde_json::from_str(&text).map_err(|e| format!("{status} without JSON: {e}: {text}"))?;
    let value = body.get("value").cloned().unwrap_or(Value::Null);
    if failed {
        return Err(format!("{status} {} {}", value["error"], value["message"]));
    }
    Ok(value)
}

#[track_caller]
fn string(value: Value) -> String {
    match value {
        Value::String(s) => s,
        other => panic!("not a string: {other}"),
    }
}

/// Standard base64 (RFC 4648, `=` padding, whitespace ignored), as WebDriver's screenshots.
fn decode_base64(text: &str) -> Vec<u8> {
    let sextet = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {:?}", c as char),
    };
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3);
    let (mut bits, mut held) = (0u32, 0u32);
    for c in text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
    {
        bits = bits << 6 | u32::from(sextet(c));
        held += 6;
        if held >= 8 {
            held -= 8;
            bytes.push((bits >> held) as u8);
            bits &= (1 << held) - 1;
        }
    }
    bytes
}

#[test]
fn base64_decodes_the_rfc_4648_vectors() {
    let vectors = [
        ("", ""),
        ("Zg==", "f"),
        ("Zm8=", "fo"),
        ("Zm9v", "foo"),
        ("Zm9vYg==", "foob"),
        ("Zm9vYmE=", "fooba"),
        ("Zm9vYmFy", "foobar"),
    ];
    for (encoded, plain) in vectors {
        assert_eq!(decode_base64(encoded), plain.as_bytes(), "{encoded}");
    }
    assert_eq!(decode_base64("//79"), [0xff, 0xfe, 0xfd]);
}
