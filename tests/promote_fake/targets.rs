//! Targets, peer resolution, placement and review rules; uploads and the test controls.

use crate::promote_fake::FakePromote;
use crate::*;
use serde_json::{json, Value};

#[test]
fn targets_peers_placement_and_review_rules() {
    let f = FakePromote::start();
    let a = f.add_account("EUR", "T", "100", false);
    let b = f.add_account("EUR", "U", "100", false);
    let mut p = chan_ad("Numeric", "0");
    let id = json!({"channel_id": "@news_daily"});
    let chan = ok(&f, &b.token, "getTargetChannel", id.clone());
    let num = chan["channel_id"].as_i64().unwrap();
    assert!(num > 0 && num < 1 << 52);
    assert_eq!(
        ok(&f, &a.token, "getTargetChannel", id)["channel_id"],
        json!(num),
        "stable id"
    );
    p["target"] = json!({"type": "channels", "channel_ids": [num]});
    let c = f.add_account("EUR", "V", "100", false);
    assert_eq!(
        fails(&f, &c.token, "createAd", p.clone()),
        "CHANNEL_ID_UNKNOWN"
    );
    p["return_target"] = json!(true);
    let ad = ok(&f, &a.token, "createAd", p);
    assert_eq!(
        ad["target"]["channels"][0],
        json!({"channel_id": num, "title": "News Daily", "username": "news_daily", "photo_url": format!("https://promote-fake.invalid/peer/{num}.jpg")})
    );
    assert_eq!(
        fails(
            &f,
            &a.token,
            "getTargetBot",
            json!({"bot_id": "@missing_bot"})
        ),
        "BOT_ID_UNKNOWN"
    );
    assert_eq!(
        fails(
            &f,
            &a.token,
            "getTargetChannel",
            json!({"channel_id": "@ab"})
        ),
        "CHANNEL_ID_UNKNOWN"
    );

    let cases = [
        (
            json!({"type": "channels", "language_codes": ["en", "ru", "es", "de", "fr", "it", "pt", "uk", "ar"]}),
            "TARGET_INVALID",
        ),
        (
            json!({"type": "channels", "topic_ids": [1], "language_codes": ["en", "ru"]}),
            "TARGET_INVALID",
        ),
        (
            json!({"type": "channels", "language_codes": ["xx"]}),
            "LANGUAGE_CODE_INVALID",
        ),
        (
            json!({"type": "users", "country_codes": ["US", "GB"], "location_ids": [101]}),
            "TARGET_INVALID",
        ),
        (
            json!({"type": "users", "country_codes": ["GB"], "location_ids": [101]}),
            "LOCATION_ID_INVALID",
        ),
        (
            json!({"type": "users", "country_codes": [], "device": "fridge"}),
            "DEVICE_INVALID",
        ),
        (
            json!({"type": "users", "country_codes": [], "audience_ids": [1]}),
            "RETARGETING_DISABLED",
        ),
        (json!({"type": "bots", "bot_ids": []}), "TARGET_INVALID"),
        (json!({"type": "planets"}), "TARGET_INVALID"),
    ];
    for (target, code) in cases {
        let mut q = chan_ad("Bad target", "0");
        q["target"] = target;
        q.as_object_mut().unwrap().remove("placement");
        assert_eq!(fails(&f, &a.token, "createAd", q), code);
    }
    let mut bots = chan_ad("Bot", "0");
    bots["target"] = json!({"type": "bots", "bot_ids": ["@helper_bot"]});
    assert_eq!(
        fails(&f, &a.token, "createAd", bots.clone()),
        "PLACEMENT_INVALID"
    );
    bots.as_object_mut().unwrap().remove("placement");
    assert_eq!(
        ok(&f, &a.token, "createAd", bots)["placement"],
        "bot_banner"
    );
    let mut low = chan_ad("Cheap", "0");
    low["cpm"] = json!(0.09);
    assert_eq!(fails(&f, &a.token, "createAd", low), "CPM_TOO_LOW");

    // Review rule: title/pause/schedule/cap edits keep an approved ad running; cpm re-reviews.
    let id = running_ad(&f, &a, "10");
    let sched = json!({"week_hours_mask": [0, 0, 0, 0, 0, 0, 0], "timezone": 7200});
    let e = ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": id, "title": "Renamed", "schedule": sched, "daily_budget_limit": 3, "impression_frequency": 2}),
    );
    assert_eq!(
        (
            e["status"].as_str(),
            e["daily_budget_limit"].to_string(),
            e["impression_frequency"].as_i64()
        ),
        (Some("active"), "3".into(), Some(2))
    );
    assert_eq!(e["daily_spent_budget"].to_string(), "0");
    let e = ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": id, "schedule": false, "daily_budget_limit": 0}),
    );
    assert!(
        e.get("schedule").is_none()
            && e.get("daily_budget_limit").is_none()
            && e.get("daily_spent_budget").is_none()
    );
    let bad_tz = json!({"ad_id": id, "schedule": {"week_hours_mask": [1, 1, 1, 1, 1, 1, 1], "timezone": 1800}});
    assert_eq!(fails(&f, &a.token, "editAd", bad_tz), "SCHEDULE_INVALID");
    let e = ok(&f, &a.token, "editAd", json!({"ad_id": id, "cpm": 3}));
    assert_eq!(e["status"], "in_review");
    f.approve(&a.account_id, id);
    assert_eq!(
        ok(
            &f,
            &a.token,
            "editAd",
            json!({"ad_id": id, "is_paused": false})
        )["status"],
        "active"
    );

    // Unfunded ads wait in ready_for_review: a top-up does not submit, submit does.
    let r = ok(&f, &a.token, "createAd", chan_ad("Ready", "0"))["ad_id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        fails(&f, &a.token, "submitAdForReview", json!({"ad_id": r})),
        "AD_BUDGET_EMPTY"
    );
    assert_eq!(
        ok(
            &f,
            &a.token,
            "increaseAdBudget",
            json!({"ad_id": r, "amount": 1})
        )["status"],
        "ready_for_review"
    );
    assert_eq!(
        ok(&f, &a.token, "submitAdForReview", json!({"ad_id": r}))["status"],
        "in_review"
    );
    assert_eq!(
        fails(&f, &a.token, "submitAdForReview", json!({"ad_id": r})),
        "AD_STATUS_INVALID"
    );
    assert_eq!(
        fails(&f, &a.token, "createAudience", json!({"title": "x"})),
        "RETARGETING_DISABLED"
    );
    assert_eq!(fails(&f, &a.token, "getPixel", json!({})), "ACCESS_DENIED");
}

#[test]
fn uploads_and_http_controls() {
    let f = FakePromote::start();
    let a = f.add_account("EUR", "Media", "100", false);
    let b = f.add_account("EUR", "Other", "100", false);
    let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3];
    let photo = multipart("uploadAdPhoto", &f, &a.token, &jpeg, Some(&a.account_id))
        .result()
        .clone();
    let photo_id = photo["photo_id"].as_str().unwrap().to_string();
    assert!(photo["photo_url"].as_str().unwrap().starts_with("https://"));
    assert_eq!(
        multipart("uploadAdPhoto", &f, &a.token, b"GIF89a....", None).error(),
        "FILE_TYPE_INVALID"
    );
    assert_eq!(
        multipart("uploadAdVideo", &f, &a.token, &jpeg, None).error(),
        "FILE_TYPE_INVALID"
    );
    assert_eq!(
        multipart("uploadAdPhoto", &f, &a.token, b"", None).error(),
        "FILE_EMPTY"
    );
    let big = vec![0xFFu8; (1 << 20) + 1];
    assert_eq!(
        multipart("uploadWebsitePhoto", &f, &a.token, &big, None).error(),
        "FILE_SIZE_INVALID"
    );
    let video = multipart(
        "uploadAdVideo",
        &f,
        &a.token,
        b"\0\0\0\x18ftypmp42rest",
        None,
    )
    .result()
    .clone();
    assert!(video["video_id"].is_string());
    let mut p = chan_ad("Pic", "0");
    p["photo_id"] = json!(photo_id);
    assert_eq!(
        ok(&f, &a.token, "createAd", p.clone())["photo"]["photo_id"],
        json!(photo_id)
    );
    assert_eq!(fails(&f, &b.token, "createAd", p), "PHOTO_ID_INVALID");

    // The same controls over HTTP under /_fake/.
    let ctl = |name: &str, args: Value| {
        send(
            &format!("{}/_fake/{name}", f.url),
            "POST",
            None,
            None,
            "application/json",
            args.to_string().as_bytes(),
        )
        .unwrap()
    };
    let id = ok(&f, &a.token, "createAd", chan_ad("Ctl", "10"))["ad_id"]
        .as_i64()
        .unwrap();
    ctl("approve", json!({"account_id": a.account_id, "ad_id": id})).result();
    let served = ctl(
        "deliver",
        json!({"account_id": a.account_id, "ad_id": id, "views": 100}),
    );
    assert_eq!(served.result()["served"], json!(100));
    let now = f.now();
    assert_eq!(
        ctl("advance", json!({"seconds": 60})).result()["now"],
        json!(now + 60)
    );
    let acct = ctl(
        "add_account",
        json!({"currency": "XTR", "title": "Stars", "balance": "500"}),
    )
    .result()
    .clone();
    assert_eq!(f.balance(acct["account_id"].as_str().unwrap()), "500");
    assert_eq!(
        ctl("approve", json!({"account_id": a.account_id, "ad_id": 1})).status,
        400
    );
    assert!(
        f.calls().iter().all(|c| !c.method.starts_with('_')),
        "controls are not recorded"
    );
    assert_eq!(f.ad(&a.account_id, id).unwrap()["views"], json!(100));
}
