//! `POST /v1/media` on the simulator, which keeps the spec's limits: type by content, the
//! 10 MB limit (refused before the body is read), the token's cabinet, and using the token on
//! a campaign of any target type. (A Telegram cabinet's tighter limits: `telegram/limits.rs`.)

use std::io::{Read, Write};
use std::time::Duration;

use crate::helpers::{spawn_app, Resp, TestApp};
use serde_json::json;

pub const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR-not-a-real-image";

pub fn multipart(field: &str, filename: &str, content: &[u8]) -> (String, Vec<u8>) {
    let boundary = "adcabTestBoundary42";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{filename}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(content);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

pub fn upload(app: &TestApp, key: &str, query: &str, content_type: &str, body: &[u8]) -> Resp {
    let sent = ureq::post(&format!("{}/media{query}", app.base))
        .set("X-API-Key", key)
        .set("Content-Type", content_type)
        .send_bytes(body);
    Resp::from_ureq(sent, "upload")
}

#[test]
fn an_upload_is_typed_by_its_bytes_and_usable_on_a_campaign() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let (ct, body) = multipart("file", "banner.png", PNG);
    let r = upload(&app, &key, "", &ct, &body);
    assert_eq!(r.status, 200, "{}", r.body);
    let token = r.body["data"]["media"].as_str().unwrap().to_string();
    assert_eq!(r.body["data"]["account_id"], cabinet);
    let stored = std::fs::read(app.dir.path().join("media").join(&token)).unwrap();
    assert_eq!(stored, PNG, "kept beside the database");
    let ad = app.active_campaign(cabinet);
    let edited = app.write_ok(
        "PATCH",
        &format!("/campaigns/{ad}"),
        &key,
        Some(&json!({ "media": token })),
        200,
    );
    assert_eq!(
        (
            edited["data"]["has_media"].as_bool(),
            edited["data"]["media_type"].as_str()
        ),
        (Some(true), Some("image/png"))
    );
    assert_eq!(
        edited["data"]["status"], "In Review",
        "media is a review field"
    );
}

#[test]
fn content_that_is_not_an_accepted_type_is_unsupported_media() {
    let app = spawn_app();
    let (_, _, key) = app.manager();
    let (ct, pdf) = multipart("file", "looks-like.png", b"%PDF-1.7 not an image");
    let r = upload(&app, &key, "", &ct, &pdf);
    r.assert_error(400, "UNSUPPORTED_MEDIA");
    assert_eq!(r.body["param"], "file");
    let (ct, wrong_field) = multipart("upload", "a.png", PNG);
    upload(&app, &key, "", &ct, &wrong_field).assert_error(400, "UNSUPPORTED_MEDIA");
    upload(&app, &key, "", "application/json", b"{}").assert_error(400, "UNSUPPORTED_MEDIA");
    for (name, bytes) in [
        ("a.jpg", &b"\xFF\xD8\xFF\xE0jpeg"[..]),
        ("a.gif", &b"GIF89a...."[..]),
        ("a.webp", &b"RIFF\0\0\0\0WEBPVP8 "[..]),
        ("a.mp4", &b"\0\0\0\x18ftypmp42...."[..]),
    ] {
        let (ct, body) = multipart("file", name, bytes);
        assert_eq!(upload(&app, &key, "", &ct, &body).status, 200, "{name}");
    }
}

#[test]
fn a_file_over_10_mb_is_refused() {
    let app = spawn_app();
    let (_, _, key) = app.manager();
    let mut big = PNG.to_vec();
    big.resize(10 * 1024 * 1024 + 1, 0);
    let (ct, body) = multipart("file", "big.png", &big);
    let r = upload(&app, &key, "", &ct, &body);
    r.assert_error(413, "FILE_TOO_LARGE");
    assert_eq!(r.body["limit"], 10 * 1024 * 1024, "{}", r.body);
    big.truncate(10 * 1024 * 1024);
    let (ct, body) = multipart("file", "max.png", &big);
    assert_eq!(
        upload(&app, &key, "", &ct, &body).status,
        200,
        "exactly 10 MB is accepted"
    );
}

#[test]
fn a_declared_oversize_body_is_refused_before_it_is_read() {
    let app = spawn_app();
    let (_, _, key) = app.manager();
    let addr = app
        .base
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let head = format!(
        "POST /api/v1/media HTTP/1.1\r\nHost: x\r\nX-API-Key: {key}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 20000000\r\n\r\n--b\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut answer = [0u8; 512];
    let n = stream
        .read(&mut answer)
        .expect("an answer without the rest of the body");
    let text = String::from_utf8_lossy(&answer[..n]);
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    assert!(text.contains("FILE_TOO_LARGE"));
}

#[test]
fn a_token_works_only_in_its_own_cabinet() {
    let app = spawn_app();
    let user = app.user("pro");
    let a = app.cabinet(user, "euro", "100");
    let b = app.cabinet(user, "euro", "100");
    let key = app.key_with(adcab::ops::NewKey {
        user,
        manage: true,
        ..Default::default()
    });
    let (ct, body) = multipart("file", "a.png", PNG);
    upload(&app, &key, "", &ct, &body).assert_error(400, "ACCOUNT_ID_REQUIRED");
    let token = upload(&app, &key, &format!("?account_id={a}"), &ct, &body).body["data"]["media"]
        .as_str()
        .unwrap()
        .to_string();
    let ad = app.active_campaign(b);
    let err = app.write_err(
        "PATCH",
        &format!("/campaigns/{ad}?account_id={b}"),
        &key,
        Some(&json!({ "media": token })),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "media");
    let (_, _, read_only) = app.owner_with_cabinet("pro");
    upload(&app, &read_only, "", &ct, &body).assert_error(403, "READ_ONLY_KEY");
}

#[test]
fn the_simulator_takes_media_on_every_target_type_and_100_keywords_as_the_spec_does() {
    let app = spawn_app();
    let (_, cabinet, key) = app.manager();
    let (ct, body) = multipart("file", "anim.gif", b"GIF89a-not-a-real-image");
    let token = upload(&app, &key, "", &ct, &body).body["data"]["media"]
        .as_str()
        .unwrap()
        .to_string();
    let keywords: Vec<String> = (0..100).map(|i| format!("flights {i}")).collect();
    let bots = json!({
        "target_type": "bots", "channels": null, "bots": ["@news_helper_bot"],
        "promote_url": "https://t.me/news_helper_bot?start=ad1", "media": token
    });
    let search = json!({
        "target_type": "search", "channels": null, "search_keywords": keywords, "media": token
    });
    for extra in [bots, search] {
        let ad = app.create_through_api(&key, cabinet, extra);
        let made = app.get_ok(&format!("/campaigns/{ad}"), &key)["data"].clone();
        assert_eq!(
            (made["has_media"].as_bool(), made["media_type"].as_str()),
            (Some(true), Some("image/gif")),
            "{made}"
        );
    }
    let mut too_many: Vec<String> = (0..101).map(|i| format!("flights {i}")).collect();
    let body = crate::helpers::campaign_body(
        cabinet,
        json!({ "target_type": "search", "channels": null, "search_keywords": too_many }),
    );
    let err = app.write_err(
        "POST",
        "/campaigns",
        &key,
        Some(&body),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "search_keywords", "{err}");
    too_many.truncate(1);
    too_many[0] = "k".repeat(65);
    let body = crate::helpers::campaign_body(
        cabinet,
        json!({ "target_type": "search", "channels": null, "search_keywords": too_many }),
    );
    let err = app.write_err(
        "POST",
        "/campaigns",
        &key,
        Some(&body),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "search_keywords[0]", "{err}");
}
