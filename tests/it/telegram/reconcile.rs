//! The monthly reconciliation against Telegram's account report (`getAccountReport`): adcab's
//! stored spend, views and clicks per ad compared with the platform's, each difference listed,
//! and with `--fix` adcab's rows corrected and the correction in the campaign's history.

use adcab::domain::time::Month;
use adcab::ops;
use serde_json::json;

use super::{connected, SeedAd};
use crate::helpers::printed;

#[test]
fn a_month_is_reconciled_with_the_platforms_report_and_fixed_once() {
    let tg = connected(vec![SeedAd::channel("Running", "@alpha_chan")]);
    let ad = tg.first_ad();
    let into_hour = tg.fake.now().rem_euclid(3600);
    tg.advance(3600 - into_hour + 600);
    tg.fake.deliver(tg.id(), ad, 400);
    // The month of the delivery's hour, which the next hour may not be in.
    let month: Month = tg.app.now().format("%Y-%m").to_string().parse().unwrap();
    tg.advance(3600);
    let s = &tg.app.services;
    let clean = printed(ops::cabinet_reconcile(s, tg.cabinet, month, false).unwrap());
    assert_eq!(
        clean,
        json!({ "month": month.to_string(), "differences": [], "fixed": false }),
        "what the hourly sync stored is what the platform counts"
    );
    let stored = |sql: &str| tg.app.scalar::<i64>(sql, &[tg.cabinet, ad]);
    let spent: i64 =
        stored("SELECT SUM(spent_micros) FROM hourly_stats WHERE account_id = ?1 AND ad_id = ?2");
    tg.app
        .services
        .db
        .write_blocking(|tx| {
            tx.execute(
                "UPDATE hourly_entries SET views = views - 30, spent_micros = spent_micros + 5000
             WHERE account_id = ?1 AND ad_id = ?2",
                [tg.cabinet, ad],
            )?;
            Ok::<_, adcab::store::StoreError>(())
        })
        .unwrap();

    let found = printed(ops::cabinet_reconcile(s, tg.cabinet, month, false).unwrap());
    let render = |micros: i64| adcab::domain::money::Money::from_micros(micros).render6();
    assert_eq!(
        found["differences"],
        json!([
            { "ad_id": ad, "field": "views", "adcab": 370, "platform": 400 },
            { "ad_id": ad, "field": "spent", "adcab": render(spent + 5000), "platform": render(spent) },
        ])
    );
    assert_eq!(found["fixed"], false, "only listed without --fix");

    let fixed = printed(ops::cabinet_reconcile(s, tg.cabinet, month, true).unwrap());
    assert_eq!(fixed["fixed"], true);
    assert_eq!(fixed["differences"], found["differences"]);
    assert_eq!(
        stored("SELECT SUM(views) FROM hourly_stats WHERE account_id = ?1 AND ad_id = ?2"),
        400
    );
    assert_eq!(
        stored("SELECT SUM(spent_micros) FROM hourly_stats WHERE account_id = ?1 AND ad_id = ?2"),
        spent
    );
    let again = printed(ops::cabinet_reconcile(s, tg.cabinet, month, true).unwrap());
    assert_eq!(again["differences"], json!([]));
    assert_eq!(again["fixed"], false, "nothing left to fix");
    let history = printed(ops::history(s, tg.cabinet, ad).unwrap());
    let entries = history["events"].as_array().unwrap();
    let corrections: Vec<_> = entries
        .iter()
        .filter(|e| e["action"] == "reconcile")
        .collect();
    assert_eq!(corrections.len(), 1, "{history}");
    assert_eq!(corrections[0]["details"]["month"], month.to_string());
}

#[test]
fn a_month_not_begun_is_refused() {
    let tg = connected(vec![]);
    let next = tg.app.now() + chrono::Duration::days(40);
    let month: Month = next.format("%Y-%m").to_string().parse().unwrap();
    let err = ops::cabinet_reconcile(&tg.app.services, tg.cabinet, month, false).unwrap_err();
    assert_eq!(err.param(), Some("month"), "{err:?}");
}
