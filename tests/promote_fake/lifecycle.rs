//! The ad lifecycle, delivery and the 5-minute stats series, paging, dates and schedules.

use crate::promote_fake::{FakePromote, SeedAd};
use crate::*;
use serde_json::{json, Value};

#[test]
fn lifecycle_delivery_and_stats_series() {
    let f = FakePromote::start();
    f.set_now(1_700_000_000 - 1_700_000_000 % 86400 + 3600); // 01:00 UTC
    let a = f.add_account("EUR", "A", "100", false);
    let ad = ok(&f, &a.token, "createAd", chan_ad("Life", "10"));
    let id = ad["ad_id"].as_i64().unwrap();
    assert_eq!(
        (ad["status"].as_str(), ad["remaining_budget"].to_string()),
        (Some("in_review"), "10".into())
    );
    assert_eq!(ad["cpm"].to_string(), "2.46");
    assert_eq!(f.balance(&a.account_id), "90");
    f.approve(&a.account_id, id);
    let start = f.now();
    f.deliver(&a.account_id, id, 1000);
    f.advance(300);
    f.deliver(&a.account_id, id, 501);
    let got = f.ad(&a.account_id, id).unwrap();
    assert_eq!(
        (got["status"].as_str(), got["views"].as_i64()),
        (Some("active"), Some(1501))
    );
    assert_eq!(
        (got["clicks"].as_i64(), got["actions"].as_i64()),
        (Some(150), Some(30))
    );
    assert_eq!(got["spent_budget"].to_string(), "3.69246"); // 2.46 + 501 * 0.00246
    assert_eq!(got["remaining_budget"].to_string(), "6.30754");

    let from = start - start % 300;
    let rows = ok(
        &f,
        &a.token,
        "getAdStats",
        json!({"ad_id": id, "from_time": from + 17, "to_time": from + 1200, "interval": 300}),
    );
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 4, "dense rows, from_time rounded down");
    assert_eq!(
        (rows[0]["from_time"].as_i64(), rows[0]["to_time"].as_i64()),
        (Some(from), Some(from + 300))
    );
    assert_eq!(
        (
            rows[0]["views"].as_i64(),
            rows[1]["views"].as_i64(),
            rows[2]["views"].as_i64()
        ),
        (Some(1000), Some(501), Some(0))
    );
    assert_eq!(
        (
            rows[1]["spent_budget"].to_string(),
            rows[1]["currency"].as_str()
        ),
        ("1.23246".into(), Some("EUR"))
    );
    let day = ok(
        &f,
        &a.token,
        "getAccountStats",
        json!({"from_time": from, "to_time": from + 86400, "interval": 86400}),
    );
    assert_eq!(
        (day.as_array().unwrap().len(), day[0]["views"].as_i64()),
        (1, Some(1501))
    );

    let max =
        json!({"ad_id": id, "from_time": from, "to_time": from + 300 * 1000, "interval": 300});
    assert_eq!(
        ok(&f, &a.token, "getAdStats", max)
            .as_array()
            .unwrap()
            .len(),
        1000
    );
    for bad in [
        json!({"to_time": from + 300 * 1001, "interval": 300}),
        json!({"to_time": from, "interval": 300}),
    ] {
        let mut p = bad;
        p["ad_id"] = json!(id);
        p["from_time"] = json!(from);
        assert_eq!(fails(&f, &a.token, "getAdStats", p), "TIME_RANGE_INVALID");
    }
    let p = json!({"ad_id": id, "from_time": from, "to_time": from + 600, "interval": 60});
    assert_eq!(fails(&f, &a.token, "getAdStats", p), "INTERVAL_INVALID");

    // Spending the whole budget stops the ad; a top-up restarts it.
    f.deliver(&a.account_id, id, 1_000_000);
    let got = f.ad(&a.account_id, id).unwrap();
    assert_eq!(
        (got["status"].as_str(), got["remaining_budget"].to_string()),
        (Some("stopped"), "0".into())
    );
    assert_eq!(got["spent_budget"].to_string(), "10");
    let topped = ok(
        &f,
        &a.token,
        "increaseAdBudget",
        json!({"ad_id": id, "amount": "5"}),
    );
    assert_eq!(topped["status"], "active");
    f.decline(&a.account_id, id, "Too <loud>");
    let got = f.ad(&a.account_id, id).unwrap();
    assert_eq!(
        (got["status"].as_str(), &got["decline_reason"]),
        (
            Some("declined"),
            &json!({"text": "Too <loud>", "description_html": "<p>Too &lt;loud&gt;</p>"})
        ),
        "the text as it is, the explanation as HTML"
    );
}

#[test]
fn a_decline_carries_its_text_and_html_explanation_until_an_edit() {
    let f = FakePromote::start();
    let a = f.add_account("EUR", "Declines", "100", false);
    let id = ok(&f, &a.token, "createAd", chan_ad("Declines", "10"))["ad_id"]
        .as_i64()
        .unwrap();
    let html = "<p>Gambling is <b>not allowed</b>. See <a href=\"https://ads.telegram.org\">the rules</a>.</p>";
    f.decline_explained(&a.account_id, id, "Prohibited product", html);
    let listed = ok(&f, &a.token, "getAdsList", json!({}));
    let ad = &listed["ads"][0];
    assert_eq!(
        ad["decline_reason"],
        json!({"text": "Prohibited product", "description_html": html}),
        "{ad}"
    );
    let by_id = ok(&f, &a.token, "getAdsById", json!({"ad_ids": [id]}));
    assert_eq!(by_id[0]["decline_reason"], ad["decline_reason"]);
    let edited = ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": id, "text": "Fresh news"}),
    );
    assert_eq!(edited["status"], "in_review");
    assert_eq!(edited.get("decline_reason"), None, "{edited}");
}

#[test]
fn paging_250_ads_newest_first() {
    let f = FakePromote::start();
    let a = f.add_account("XTR", "Many", "0", false);
    let ids: Vec<i64> = (0..250)
        .map(|i| {
            f.seed_ad(
                &a.account_id,
                SeedAd {
                    budget: "0".into(),
                    ..SeedAd::channel(&format!("Ad {i}"), "@many_chan")
                },
            )
        })
        .collect();
    assert_eq!(ids[0], 1001);
    let (mut seen, mut offset, mut pages) = (Vec::new(), None::<String>, 0);
    loop {
        let mut p = json!({"limit": 100});
        if let Some(o) = &offset {
            p["offset"] = json!(o);
        }
        let page = ok(&f, &a.token, "getAdsList", p);
        assert_eq!(page["total_count"], json!(250));
        seen.extend(
            page["ads"]
                .as_array()
                .unwrap()
                .iter()
                .map(|ad| ad["ad_id"].as_i64().unwrap()),
        );
        pages += 1;
        match page.get("next_offset").and_then(Value::as_str) {
            Some(n) => {
                assert_eq!(n, format!("a:{}", seen.last().unwrap()));
                offset = Some(n.to_string());
            }
            None => break,
        }
    }
    let mut want = ids.clone();
    want.reverse();
    assert_eq!((pages, seen), (3, want));
    assert_eq!(
        fails(&f, &a.token, "getAdsList", json!({"limit": 101})),
        "LIMIT_INVALID"
    );
    assert_eq!(
        fails(&f, &a.token, "getAdsList", json!({"offset": "zz"})),
        "OFFSET_INVALID"
    );
    let other = f.add_account("XTR", "Other", "0", false);
    assert_eq!(
        ok(&f, &other.token, "getAdsList", json!({}))["total_count"],
        json!(0)
    );
    assert_eq!(
        ok(&f, &other.token, "getAdsById", json!({"ad_ids": [ids[0]]})),
        json!([])
    );
}

#[test]
fn dates_schedule_decline_and_stars_precision() {
    let f = FakePromote::start();
    let t0 = 1_800_000_000 - 1_800_000_000 % 86400; // a Friday, 00:00 UTC
    f.set_now(t0);
    let a = f.add_account("XTR", "Stars", "1000", false);
    let mut p = chan_ad("Dated", "10.6");
    p["cpm"] = json!(1.5);
    p["activate_date"] = json!(t0 + 3600);
    p["deactivate_date"] = json!(t0 + 7200);
    p["is_paused"] = json!(true);
    let ad = ok(&f, &a.token, "createAd", p.clone());
    let id = ad["ad_id"].as_i64().unwrap();
    assert_eq!(
        (ad["cpm"].to_string(), ad["remaining_budget"].to_string()),
        ("2".into(), "11".into())
    );
    assert_eq!(ad["is_paused"], json!(false), "a date wins over is_paused");
    f.approve(&a.account_id, id);
    assert_eq!(f.ad(&a.account_id, id).unwrap()["status"], "on_hold");
    f.deliver(&a.account_id, id, 1000);
    assert_eq!(f.ad(&a.account_id, id).unwrap()["views"], json!(0));
    f.advance(3600);
    f.deliver(&a.account_id, id, 1000);
    let got = f.ad(&a.account_id, id).unwrap();
    assert_eq!(
        (got["status"].as_str(), got["spent_budget"].to_string()),
        (Some("active"), "2".into())
    );
    f.advance(4000); // past deactivate_date, which ended activity at t0 + 7200
    assert_eq!(f.ad(&a.account_id, id).unwrap()["status"], "stopped");
    let dec = json!({"ad_id": id, "amount": 1});
    assert_eq!(
        fails(&f, &a.token, "decreaseAdBudget", dec.clone()),
        "AD_RECENTLY_ACTIVE"
    );
    f.advance(200);
    assert_eq!(
        ok(&f, &a.token, "decreaseAdBudget", dec)["remaining_budget"].to_string(),
        "8"
    );
    p["activate_date"] = json!(f.now() - 1);
    assert_eq!(fails(&f, &a.token, "createAd", p), "ACTIVATE_DATE_INVALID");

    // A schedule that allows only Friday 00:00-01:00 UTC+2 (Thursday 22:00 UTC) serves nothing now.
    let mut s = chan_ad("Scheduled", "5");
    s["schedule"] = json!({"week_hours_mask": [0, 0, 0, 0, 1, 0, 0], "timezone": 7200});
    let sid = ok(&f, &a.token, "createAd", s)["ad_id"].as_i64().unwrap();
    f.approve(&a.account_id, sid);
    f.deliver(&a.account_id, sid, 500);
    assert_eq!(f.ad(&a.account_id, sid).unwrap()["views"], json!(0));
    f.set_now(t0 + 7 * 86400 - 7200 + 60); // the next Friday 00:01 at UTC+2
    f.deliver(&a.account_id, sid, 500);
    assert_eq!(f.ad(&a.account_id, sid).unwrap()["views"], json!(500));

    // A declined, funded ad goes back to review when its copy changes.
    f.decline(&a.account_id, sid, "Misleading");
    let e = ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": sid, "text": "Honest text"}),
    );
    assert_eq!(
        (e["status"].as_str(), e.get("decline_reason")),
        (Some("in_review"), None)
    );
}

#[test]
fn is_paused_clears_both_dates_and_dates_sent_with_a_resume_are_set_again() {
    let f = FakePromote::start();
    let a = f.add_account("EUR", "Dated", "100", false);
    let minute = f.now() - f.now() % 60;
    let (start, end) = (minute + 3600, minute + 7200);
    let mut p = chan_ad("Dated", "10");
    p["activate_date"] = json!(start);
    p["deactivate_date"] = json!(end);
    let id = ok(&f, &a.token, "createAd", p)["ad_id"].as_i64().unwrap();
    f.approve(&a.account_id, id);
    let dates = |ad: &Value| (ad["activate_date"].clone(), ad["deactivate_date"].clone());
    let pause = json!({"ad_id": id, "is_paused": true});
    let paused = ok(&f, &a.token, "editAd", pause);
    assert_eq!(
        dates(&paused),
        (Value::Null, Value::Null),
        "§9.2: a pause clears them"
    );
    assert_eq!(paused["status"], "on_hold");
    let resume =
        json!({"ad_id": id, "is_paused": false, "activate_date": start, "deactivate_date": end});
    let resumed = ok(&f, &a.token, "editAd", resume);
    assert_eq!(dates(&resumed), (json!(start), json!(end)));
    assert_eq!(
        (resumed["is_paused"].as_bool(), resumed["status"].as_str()),
        (Some(false), Some("on_hold"))
    );
    let running = ok(
        &f,
        &a.token,
        "editAd",
        json!({"ad_id": id, "is_paused": false}),
    );
    assert_eq!(
        dates(&running),
        (Value::Null, Value::Null),
        "a resume alone clears them too"
    );
    assert_eq!(running["status"], "active");
}
