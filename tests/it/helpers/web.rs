//! Owns the web panel's test client: a cookie jar over plain HTTP that never follows
//! redirects (tests read the `303`s), form posts, the login, and the CSRF token read off a page.

use std::collections::BTreeMap;
use std::sync::Mutex;

use adcab::primitives::form_encode as encode;

use super::TestApp;

/// One answer of the panel.
#[derive(Debug)]
pub struct Page {
    pub status: u16,
    pub body: String,
    /// The body as sent (a download's bytes; `body` reads them as UTF-8, lossily).
    pub bytes: Vec<u8>,
    pub location: Option<String>,
    pub set_cookies: Vec<String>,
    pub headers: Vec<(String, String)>,
}

impl Page {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The value of the first hidden `csrf` field on the page.
    pub fn csrf(&self) -> String {
        let at = self
            .body
            .find(r#"name="csrf" value=""#)
            .unwrap_or_else(|| panic!("no csrf field on the page: {}", self.body));
        let rest = &self.body[at + r#"name="csrf" value=""#.len()..];
        rest[..rest.find('"').unwrap()].to_string()
    }
}

/// A browser: the panel's root URL and the cookies it was given.
pub struct Browser {
    pub root: String,
    agent: ureq::Agent,
    jar: Mutex<BTreeMap<String, String>>,
}

impl Browser {
    pub fn new(app: &TestApp) -> Browser {
        Browser::at(app.base.trim_end_matches("/api/v1"))
    }

    /// A browser of the panel served at `root` (`http://host:port`).
    pub fn at(root: &str) -> Browser {
        Browser {
            root: root.to_string(),
            agent: ureq::AgentBuilder::new().redirects(0).build(),
            jar: Mutex::new(BTreeMap::new()),
        }
    }

    /// A page, with extra request headers.
    pub fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Page {
        self.send(
            self.agent.get(&format!("{}{path}", self.root)),
            headers,
            None,
        )
    }

    pub fn get(&self, path: &str) -> Page {
        self.get_with(path, &[])
    }

    /// A form post of `fields`, with extra request headers.
    pub fn post_with(&self, path: &str, fields: &[(&str, &str)], headers: &[(&str, &str)]) -> Page {
        let body: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect();
        let request = self
            .agent
            .post(&format!("{}{path}", self.root))
            .set("content-type", "application/x-www-form-urlencoded");
        self.send(request, headers, Some(body.join("&")))
    }

    pub fn post(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        self.post_with(path, fields, &[])
    }

    /// Opens the login form and sends `email` and `password` from it.
    pub fn login(&self, email: &str, password: &str) -> Page {
        let form = self.get("/login");
        assert_eq!(form.status, 200, "{form:?}");
        let csrf = form.csrf();
        self.post(
            "/login",
            &[("csrf", &csrf), ("email", email), ("password", password)],
        )
    }

    /// The cookie's value in the jar.
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.jar.lock().unwrap().get(name).cloned()
    }

    fn send(
        &self,
        mut request: ureq::Request,
        headers: &[(&str, &str)],
        body: Option<String>,
    ) -> Page {
        let cookies: Vec<String> = self
            .jar
            .lock()
            .unwrap()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if !cookies.is_empty() {
            request = request.set("cookie", &cookies.join("; "));
        }
        for (k, v) in headers {
            request = request.set(k, v);
        }
        let result = match body {
            Some(body) => request.send_string(&body),
            None => request.call(),
        };
        let response = match result {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("the panel did not answer: {e}"),
        };
        let set_cookies: Vec<String> = response
            .all("set-cookie")
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut jar = self.jar.lock().unwrap();
        for cookie in &set_cookies {
            let pair = cookie.split(';').next().unwrap_or("");
            if let Some((k, v)) = pair.split_once('=') {
                if v.is_empty() || cookie.contains("Max-Age=0") {
                    jar.remove(k);
                } else {
                    jar.insert(k.to_string(), v.to_string());
                }
            }
        }
        drop(jar);
        let headers = response
            .headers_names()
            .iter()
            .map(|n| (n.clone(), response.header(n).unwrap_or("").to_string()))
            .collect();
        let (status, location) = (
            response.status(),
            response.header("location").map(str::to_string),
        );
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(response.into_reader(), 10 << 20),
            &mut bytes,
        )
        .expect("the panel's body");
        Page {
            status,
            location,
            set_cookies,
            headers,
            body: String::from_utf8_lossy(&bytes).into_owned(),
            bytes,
        }
    }
}
