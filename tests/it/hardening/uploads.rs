//! Owns the upload regressions: refused from the head before the body is read, oversized
//! uploads leave no file, stale partial uploads removed at start.

use std::time::{Duration, Instant};

use super::{open, request};
use crate::helpers::{read_answer, spawn_app, spawn_app_with};
use serde_json::json;

#[test]
fn an_upload_is_refused_from_its_head_before_the_body_is_read() {
    let app = spawn_app_with(|c| c.limits.writes_per_minute = 1);
    let (_, cabinet, key) = app.manager();
    let head = |key: Option<&str>| {
        let mut headers = vec![
            (
                "Content-Type",
                "multipart/form-data; boundary=X".to_string(),
            ),
            ("Content-Length", (10 * 1024 * 1024).to_string()),
        ];
        if let Some(key) = key {
            headers.push(("X-API-Key", key.to_string()));
        }
        request(
            "POST",
            &format!("/media?account_id={cabinet}"),
            &headers,
            "",
        )
    };
    for (key, status, code) in [
        (None, 401, "API_KEY_MISSING"),
        (Some("adcab_0000"), 401, "API_KEY_INVALID"),
    ] {
        let started = Instant::now();
        let mut stream = open(&app, &head(key));
        read_answer(&mut stream).unwrap().assert_error(status, code);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "no body awaited"
        );
    }
    let spent = app.send("PATCH", "/campaigns/1", &key, Some(&json!({})), &[]);
    assert_ne!(
        spent.status, 429,
        "the one write of the minute: {}",
        spent.body
    );
    let mut limited = open(&app, &head(Some(&key)));
    read_answer(&mut limited)
        .unwrap()
        .assert_error(429, "RATE_LIMITED");
}

#[test]
fn an_oversized_upload_is_refused_and_leaves_no_file() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let mut body = b"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n\r\n\x89PNG\r\n\x1a\n".to_vec();
    body.resize(body.len() + 10 * 1024 * 1024, b'x');
    body.extend_from_slice(b"\r\n--B--\r\n");
    let chunked = {
        let mut out = format!(
            "POST /api/v1/media?account_id={cabinet} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: {key}\r\nContent-Type: multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        .into_bytes();
        for chunk in body.chunks(64 * 1024) {
            out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
            out.extend_from_slice(chunk);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"0\r\n\r\n");
        out
    };
    app.raw(&chunked).assert_error(413, "FILE_TOO_LARGE");
    let media = app.dir.path().join("media");
    let left: Vec<_> = std::fs::read_dir(&media)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn stale_uploads_of_a_stopped_process_are_removed_at_start() {
    let app = spawn_app();
    let media = app.dir.path().join("media");
    std::fs::create_dir_all(&media).unwrap();
    std::fs::write(media.join(".upload-deadbeef"), b"partial").unwrap();
    std::fs::write(media.join("med_kept"), b"kept").unwrap();
    let app = app.restart();
    assert!(!media.join(".upload-deadbeef").exists());
    assert!(media.join("med_kept").exists());
    drop(app);
}
