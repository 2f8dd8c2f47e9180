//! The platform's limits where they are tighter than the spec's, on a Telegram cabinet: GIF and
//! WEBP uploads, a photo over 5 MB, more than 10 search keywords and media on a bots or search
//! campaign are refused with the spec's codes before the platform is called; a video keeps its
//! own 20 MB; `GET /v1/account/info` shows the figures.

use serde_json::json;

use super::connected;
use crate::helpers::campaign_body;
use crate::media::{multipart, upload, PNG};

const MB: usize = 1024 * 1024;

/// The upload methods the connector calls.
const UPLOADS: [&str; 2] = ["uploadAdPhoto", "uploadAdVideo"];

/// A campaign body as an entry of `campaigns`: without the top-level `account_id`.
fn entry(mut body: serde_json::Value) -> serde_json::Value {
    body.as_object_mut().unwrap().remove("account_id");
    body
}

fn upload_calls(tg: &super::Tg) -> usize {
    UPLOADS.iter().map(|m| tg.fake.call_count(m)).sum()
}

#[test]
fn gif_and_webp_are_unsupported_media_before_the_platform_is_called() {
    let tg = connected(vec![]);
    let query = format!("?account_id={}", tg.cabinet);
    for (name, bytes, label) in [
        ("anim.gif", &b"GIF89a-not-a-real-image"[..], "GIF"),
        ("pic.webp", &b"RIFF\0\0\0\0WEBPVP8 not-real"[..], "WEBP"),
    ] {
        let (ct, body) = multipart("file", name, bytes);
        let r = upload(&tg.app, &tg.key, &query, &ct, &body);
        r.assert_error(400, "UNSUPPORTED_MEDIA");
        assert_eq!(r.body["param"], "file");
        let said = r.body["error"].as_str().unwrap();
        assert!(
            said.contains("JPG, PNG or MP4") && said.contains(&format!("not take {label} files")),
            "{said}"
        );
    }
    assert_eq!(upload_calls(&tg), 0, "the platform was never asked");
    let kept = std::fs::read_dir(tg.app.dir.path().join("media"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(kept, 0, "a refused upload leaves no file behind");
}

#[test]
fn a_photo_over_5_mb_is_too_large_and_a_video_has_its_own_20_mb() {
    let tg = connected(vec![]);
    let query = format!("?account_id={}", tg.cabinet);
    let mut photo = PNG.to_vec();
    photo.resize(6 * MB, 0);
    let (ct, body) = multipart("file", "big.png", &photo);
    let r = upload(&tg.app, &tg.key, &query, &ct, &body);
    r.assert_error(413, "FILE_TOO_LARGE");
    assert_eq!(
        (&r.body["param"], &r.body["limit"]),
        (&json!("file"), &json!(5 * MB))
    );
    assert!(
        r.body["error"].as_str().unwrap().contains("5 MB"),
        "{}",
        r.body
    );
    assert_eq!(
        upload_calls(&tg),
        0,
        "refused before the platform is called"
    );

    photo.truncate(5 * MB);
    let (ct, body) = multipart("file", "max.png", &photo);
    let r = upload(&tg.app, &tg.key, &query, &ct, &body);
    assert_eq!(r.status, 200, "exactly 5 MB is a photo's limit: {}", r.body);
    assert_eq!(tg.fake.call_count("uploadAdPhoto"), 1);

    let mut video = b"\0\0\0\x18ftypmp42".to_vec();
    video.resize(6 * MB, 0);
    let (ct, body) = multipart("file", "clip.mp4", &video);
    let r = upload(&tg.app, &tg.key, &query, &ct, &body);
    assert_eq!(r.status, 200, "a 6 MB video is within 20 MB: {}", r.body);
    assert_eq!(tg.fake.call_count("uploadAdVideo"), 1);

    video.resize(20 * MB + 1, 0);
    let (ct, body) = multipart("file", "long.mp4", &video);
    let r = upload(&tg.app, &tg.key, &query, &ct, &body);
    r.assert_error(413, "FILE_TOO_LARGE");
    assert_eq!(r.body["limit"], json!(20 * MB), "{}", r.body);
    assert_eq!(tg.fake.call_count("uploadAdVideo"), 1, "not asked again");
}

#[test]
fn more_than_10_keywords_or_a_long_one_is_refused_naming_the_field() {
    let tg = connected(vec![]);
    let search = |keywords: Vec<String>| {
        campaign_body(
            tg.cabinet,
            json!({
                "target_type": "search", "channels": null, "search_keywords": keywords
            }),
        )
    };
    let eleven: Vec<String> = (0..11).map(|i| format!("cheap flights {i}")).collect();
    let err = tg.app.write_err(
        "POST",
        "/campaigns",
        &tg.key,
        Some(&search(eleven.clone())),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "search_keywords", "{err}");
    assert!(err["error"].as_str().unwrap().contains("10"), "{err}");
    let many = json!({
        "account_id": tg.cabinet,
        "campaigns": [entry(search(eleven[..10].to_vec())), entry(search(eleven.clone()))]
    });
    let err = tg.app.write_err(
        "POST",
        "/campaigns",
        &tg.key,
        Some(&many),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "campaigns[1].search_keywords", "{err}");
    let mut long = eleven[..10].to_vec();
    long[3] = "k".repeat(65);
    let err = tg.app.write_err(
        "POST",
        "/campaigns",
        &tg.key,
        Some(&search(long)),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "search_keywords[3]", "{err}");
    assert_eq!(
        tg.fake.call_count("createAd"),
        0,
        "nothing reached the platform"
    );

    let queued = tg.app.write_ok(
        "POST",
        "/campaigns",
        &tg.key,
        Some(&search(eleven[..10].to_vec())),
        202,
    );
    let done = tg.finish_task(&queued);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(tg.fake.call_count("createAd"), 1, "10 keywords are taken");
}

#[test]
fn media_on_a_bots_or_search_campaign_is_refused_naming_the_media_field() {
    let tg = connected(vec![]);
    let (ct, body) = multipart("file", "banner.png", PNG);
    let query = format!("?account_id={}", tg.cabinet);
    let token = upload(&tg.app, &tg.key, &query, &ct, &body).body["data"]["media"]
        .as_str()
        .unwrap()
        .to_string();
    let bots = json!({
        "target_type": "bots", "channels": null, "bots": ["@news_helper_bot"],
        "promote_url": "https://t.me/news_helper_bot?start=ad1"
    });
    let ad = tg.create(bots.clone());
    let writes = || ["createAd", "editAd"].map(|m| tg.fake.call_count(m));
    let before = writes();

    let mut with_media = campaign_body(tg.cabinet, bots);
    with_media["media"] = json!(token);
    let err = tg.app.write_err(
        "POST",
        "/campaigns",
        &tg.key,
        Some(&with_media),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "media", "{err}");
    assert!(
        err["error"].as_str().unwrap().contains("channels or users"),
        "{err}"
    );
    let search = campaign_body(
        tg.cabinet,
        json!({
            "target_type": "search", "channels": null, "search_keywords": ["flights"],
            "media": token
        }),
    );
    let many = json!({ "account_id": tg.cabinet, "campaigns": [entry(search)] });
    let err = tg.app.write_err(
        "POST",
        "/campaigns",
        &tg.key,
        Some(&many),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(err["param"], "campaigns[0].media", "{err}");

    let edit = tg.patch(ad, &json!({ "account_id": tg.cabinet, "media": token }));
    edit.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(edit.body["param"], "media", "{}", edit.body);
    let copy = tg.app.write_err(
        "POST",
        &format!("/campaigns/{ad}/copy"),
        &tg.key,
        Some(&json!({ "account_id": tg.cabinet, "media": token })),
        400,
        "VALIDATION_ERROR",
    );
    assert_eq!(copy["param"], "media", "{copy}");
    assert_eq!(writes(), before, "the platform was never asked to write");
    assert_eq!(tg.campaign(ad)["has_media"], false);
}

#[test]
fn account_info_shows_the_platforms_limits() {
    let tg = connected(vec![]);
    let body = tg.app.get_ok("/account/info", &tg.key);
    let limits = &body["data"][0]["limits"];
    assert_eq!(
        *limits,
        json!({
            "search_keywords": 10,
            "search_keyword_length": 64,
            "photo_bytes": 5 * MB,
            "video_bytes": 20 * MB,
            "media_types": ["image/jpeg", "image/png", "video/mp4"],
            "media_targets": ["channels", "users"],
            "placements": {
                "channels": ["channel_post"],
                "bots": ["bot_banner"],
                "search": ["search_result"],
                "users": ["channel_post", "video_banner"]
            }
        }),
        "{body}"
    );
}
