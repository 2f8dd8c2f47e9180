//! Owns the in-process webhook receiver: it answers every request with one status and
//! records the headers and the raw body.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener as StdListener;
use std::sync::{Arc, Mutex};

use super::raw::read_headers;
use serde_json::Value;

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
    /// When the whole request had arrived.
    pub at: std::time::Instant,
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
                record.lock().unwrap().push(Received {
                    headers,
                    body,
                    at: std::time::Instant::now(),
                });
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
