//! The hourly sync on the connector: each hour gets exactly its own delivery, taken from the
//! platform's 5-minute series, even when views arrive after the hour closed and before the
//! sync ran; "Sync now" brings settings changed on the platform into the copies.

use adcab::ops;

use super::{advance_service, connected, SeedAd};
use crate::helpers::printed;

fn hourly_views(tg: &super::Tg, ad: i64) -> Vec<i64> {
    tg.app
        .services
        .db
        .read_blocking(|c| {
            let mut stmt = c.prepare(
                "SELECT views FROM hourly_stats WHERE account_id = ?1 AND ad_id = ?2 ORDER BY hour",
            )?;
            let rows = stmt
                .query_map([tg.cabinet, ad], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<i64>>>()?;
            Ok::<_, adcab::store::StoreError>(rows)
        })
        .unwrap()
}

#[test]
fn each_hour_gets_exactly_its_own_views_from_the_five_minute_series() {
    let tg = connected(vec![SeedAd::channel("Running", "@alpha_chan")]);
    let ad = tg.first_ad();
    let into_hour = tg.fake.now().rem_euclid(3600);
    tg.advance(3600 - into_hour + 600);
    tg.fake.deliver(tg.id(), ad, 100);
    // The hour closes; 40 more views arrive before the service's sync of it runs.
    tg.fake.advance(3600);
    tg.fake.deliver(tg.id(), ad, 40);
    advance_service(&tg.app.services, 3600);
    tg.app.settle();
    assert_eq!(
        hourly_views(&tg, ad),
        vec![100],
        "the late views are not this hour's"
    );
    tg.advance(3600);
    assert_eq!(hourly_views(&tg, ad), vec![100, 40]);
    assert_eq!(tg.campaign(ad)["views"], 140);
}

/// When the connector last stored what it saw of an ad (`tg_seen.seen_at`).
fn seen_at(tg: &super::Tg, ad: i64) -> i64 {
    tg.app.scalar(
        "SELECT seen_at FROM tg_seen WHERE account_id = ?1 AND ad_id = ?2",
        &[tg.cabinet, ad],
    )
}

#[test]
fn an_ad_that_did_not_move_costs_no_stats_call_and_no_write_of_what_was_seen() {
    let tg = connected(vec![SeedAd::channel("Running", "@alpha_chan")]);
    let ad = tg.first_ad();
    let into_hour = tg.fake.now().rem_euclid(3600);
    tg.advance(3600 - into_hour + 600);
    tg.fake.deliver(tg.id(), ad, 100);
    tg.advance(3600);
    let seen = seen_at(&tg, ad);
    tg.fake.reset_calls();
    tg.advance(3600);
    assert_eq!(tg.fake.call_count("getAdStats"), 0, "an idle hour");
    assert_eq!(seen_at(&tg, ad), seen, "what was seen of it stays");
    tg.fake.deliver(tg.id(), ad, 7);
    tg.advance(3600);
    assert_eq!(hourly_views(&tg, ad), vec![100, 7]);
    assert!(seen_at(&tg, ad) > seen, "seen again once it moved");
}

#[test]
fn sync_now_brings_changes_made_on_the_platform_into_the_copies() {
    let tg = connected(vec![SeedAd::channel("Running", "@alpha_chan")]);
    let ad = tg.first_ad();
    tg.fake.deliver(tg.id(), ad, 500);
    let fresh = tg
        .fake
        .seed_ad(tg.id(), SeedAd::channel("Made elsewhere", "@beta_chan"));
    let out = printed(ops::cabinet_sync(&tg.app.services, tg.cabinet).unwrap());
    assert_eq!(out["campaigns"], 2, "{out}");
    assert_eq!(out["changed"], 2, "one new, one with new counters");
    let list = tg
        .app
        .get_ok(&format!("/campaigns?account_id={}", tg.cabinet), &tg.key);
    let rows = list["data"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["ad_id"] == fresh), "{list}");
    assert!(
        rows.iter().any(|r| r["ad_id"] == ad && r["views"] == 500),
        "{list}"
    );
    let again = printed(ops::cabinet_sync(&tg.app.services, tg.cabinet).unwrap());
    assert_eq!(again["changed"], 0, "nothing new the second time");
}

#[test]
fn the_cabinet_balance_follows_the_platform_each_hour() {
    let tg = connected(vec![]);
    let info = |tg: &super::Tg| {
        tg.app.get_ok("/account/info", &tg.key)["data"][0]["balance"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(info(&tg), "1000.00");
    // An ad made on the platform directly takes 10 from the account.
    tg.fake
        .seed_ad(tg.id(), SeedAd::channel("Made elsewhere", "@beta_chan"));
    assert_eq!(info(&tg), "1000.00", "the copy until the next sync");
    let into_hour = tg.fake.now().rem_euclid(3600);
    tg.advance(3600 - into_hour + 60);
    assert_eq!(info(&tg), "990.00");
}

/// The hour (`YYYY-MM-DDTHH`) and views of each hour of the ad that delivered.
fn hours_with_views(tg: &super::Tg, ad: i64) -> Vec<(String, i64)> {
    tg.app
        .services
        .db
        .read_blocking(|c| {
            let mut stmt = c.prepare(
                "SELECT substr(hour, 1, 13), views FROM hourly_stats
                 WHERE account_id = ?1 AND ad_id = ?2 AND views > 0 ORDER BY hour",
            )?;
            let rows = stmt
                .query_map([tg.cabinet, ad], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<Vec<(String, i64)>>>()?;
            Ok::<_, adcab::store::StoreError>(rows)
        })
        .unwrap()
}

/// Five simulated days without an answer from the platform: more than the 1,000 five-minute
/// intervals one stats call returns. Once it answers again, the sync stores each missed hour in
/// turn from the series read in pages, so each day's views land in their own hour.
#[test]
fn after_five_days_without_the_platform_each_hour_gets_its_own_views() {
    let tg = connected(vec![SeedAd::channel("Running", "@alpha_chan")]);
    let ad = tg.first_ad();
    let into_hour = tg.fake.now().rem_euclid(3600);
    tg.advance(3600 - into_hour + 600);
    let start = tg.app.now();
    tg.fake.fail_next(
        super::Fault::ApiError("INTERNAL".into()),
        Some("getAdsList"),
        u32::MAX,
    );
    for day in 0..5 {
        tg.fake.deliver(tg.id(), ad, 10 * (day + 1));
        tg.advance(24 * 3600);
    }
    assert!(
        hours_with_views(&tg, ad).is_empty(),
        "nothing synced while the platform did not answer"
    );
    tg.fake.reset_calls();
    tg.fake.clear_faults();
    tg.advance(3600);
    let expected: Vec<(String, i64)> = (0..5)
        .map(|day| {
            let hour = start + chrono::Duration::hours(24 * day);
            (hour.format("%Y-%m-%dT%H").to_string(), 10 * (day + 1))
        })
        .collect();
    assert_eq!(hours_with_views(&tg, ad), expected);
    assert_eq!(tg.campaign(ad)["views"], 150);
    assert_eq!(
        tg.fake.call_count("getAdStats"),
        2,
        "the 121 hours' series in two pages of at most 1,000 intervals, read once"
    );
}
