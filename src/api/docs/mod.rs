//! Owns the API reference at `GET /api/docs`: the OpenAPI document (`openapi.json`) rendered
//! as one HTML page with its style and a small script inline (no external asset; the page
//! reads whole without the script), a curl example for every operation and webhook event
//! built from the document (`curl`), and the answer's cache validator and headers. It reads
//! nothing but the document and the configured public URL, so it needs no key.

pub mod curl;
mod page;

use std::sync::OnceLock;

use hyper::header::HeaderMap;
use hyper::StatusCode;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::http::{AppState, Reply};

/// The path of the reference.
pub const DOCS_PATH: &str = "/api/docs";

/// The origin the examples name when neither the configuration nor the request says one.
const FALLBACK_ORIGIN: &str = "http://127.0.0.1:8080";

/// The OpenAPI document, read once.
pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| serde_json::from_str(super::OPENAPI).unwrap_or(Value::Null))
}

/// The origin the page's examples start from: `[panel] public_url` when set, else the
/// request's `Host` (when it reads as a host and port), else the default listener.
pub fn origin(public_url: &str, headers: &HeaderMap) -> String {
    if !public_url.is_empty() {
        return public_url.trim_end_matches('/').to_string();
    }
    let host = headers
        .get(hyper::header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c))
        });
    match host {
        Some(host) => format!("http://{host}"),
        None => FALLBACK_ORIGIN.to_string(),
    }
}

/// Answers `GET /api/docs`: the page, or `304` when `If-None-Match` names its current `ETag`.
/// The page changes only with the binary and the configured URL, so a client keeps it and
/// asks each time whether it is still current (`no-cache` with a validator).
pub fn answer(state: &AppState, headers: &HeaderMap) -> Reply {
    let origin = origin(&state.services.config.panel.public_url, headers);
    let page = page::render(document(), &origin);
    let etag = format!(
        "\"{}\"",
        crate::primitives::hex(&Sha256::digest(page.as_bytes())[..12])
    );
    let fresh = headers
        .get(hyper::header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|sent| {
            sent.split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == etag || t == "*")
        });
    let csp = format!(
        "default-src 'none'; style-src 'sha256-{}'; script-src 'sha256-{}'; img-src data:; \
         base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        base64(&Sha256::digest(page::STYLE.as_bytes())),
        base64(&Sha256::digest(page::SCRIPT.as_bytes())),
    );
    let mut reply = if fresh {
        Reply::raw(Vec::new(), "text/html; charset=utf-8").with_status(StatusCode::NOT_MODIFIED)
    } else {
        Reply::raw(page, "text/html; charset=utf-8")
    };
    reply.headers.extend([
        ("etag".to_string(), etag),
        ("cache-control".to_string(), "no-cache".to_string()),
        ("content-security-policy".to_string(), csp),
        ("x-content-type-options".to_string(), "nosniff".to_string()),
        ("referrer-policy".to_string(), "no-referrer".to_string()),
    ]);
    reply
}

/// Standard base64 with padding (for the CSP's hashes of the inline style and script).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_known_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected, "{input}");
        }
    }

    #[test]
    fn the_origin_prefers_the_public_url_then_a_plain_host() {
        let mut headers = HeaderMap::new();
        assert_eq!(origin("", &headers), FALLBACK_ORIGIN);
        headers.insert(hyper::header::HOST, "ads.example.com:8080".parse().unwrap());
        assert_eq!(origin("", &headers), "http://ads.example.com:8080");
        assert_eq!(
            origin("https://ads.example.com/", &headers),
            "https://ads.example.com"
        );
        headers.insert(hyper::header::HOST, "evil\"><script>".parse().unwrap());
        assert_eq!(origin("", &headers), FALLBACK_ORIGIN);
    }

    #[test]
    fn the_document_reads() {
        assert!(document()["paths"].is_object());
        assert!(document()["webhooks"].is_object());
    }
}
