//! Owns the raw TCP client: bytes sent as they are, and answers read off the socket.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::time::Duration;

use super::client::assert_error_envelope;
use super::TestApp;
use serde_json::Value;

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
pub(super) fn read_headers(reader: &mut impl BufRead) -> std::io::Result<HashMap<String, String>> {
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
}
