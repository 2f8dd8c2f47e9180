//! ROAS and profit on the API's campaign objects: revenue reported in another currency is
//! converted into the cabinet's at the kept rate (named, with its date); with no rate they are
//! null and the currency is named, never guessed.

use adcab::ops::{self, NewKey};
use serde_json::json;

use crate::helpers::{spawn_app, Camp};

#[test]
fn campaign_objects_carry_roas_and_profit_converted_at_a_named_rate_or_null_without_one() {
    let app = spawn_app();
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000");
    let key = app.key_with(NewKey {
        user,
        postbacks: true,
        ..NewKey::default()
    });
    let site = app.campaign(
        cabinet,
        Camp::site("Shop", "https://shop.example.com/?subid=s-1"),
    );
    let sent = app.send(
        "POST",
        "/postback",
        &key,
        Some(&json!({ "clickid": "s-1", "goal": "sale", "order_id": 1, "payout": "25" })),
        &[],
    );
    assert_eq!(sent.status, 200, "{}", sent.body);
    app.sql(&format!(
        "UPDATE campaign_counters SET spent_micros = 10000000 WHERE ad_id = {site}"
    ));

    let read = app.get_ok(&format!("/campaigns/{site}"), &key)["data"].clone();
    assert_eq!(read["revenue"], json!({ "USD": "25.00" }));
    assert_eq!(
        (&read["roas"], &read["profit"]),
        (&json!(null), &json!(null))
    );
    assert_eq!(read["revenue_unconverted"], json!(["USD"]));

    let yesterday = (app.now() - chrono::Duration::days(1)).date_naive();
    let code = |c: &str| c.parse().unwrap();
    ops::rate_set(
        &app.services,
        &code("EUR"),
        &code("USD"),
        "1.25".parse().unwrap(),
        Some(yesterday),
    )
    .unwrap();
    let read = app.get_ok(&format!("/campaigns/{site}"), &key)["data"].clone();
    assert_eq!(read["roas"], "2.00", "25 USD = 20 EUR against 10 EUR spent");
    assert_eq!(read["profit"], "10.000000");
    assert_eq!(
        read["revenue_rates"],
        json!([{ "from": "USD", "to": "EUR", "rate": "0.8", "date": yesterday.to_string() }]),
        "yesterday's rate, said so"
    );
    assert_eq!(read["revenue_unconverted"], json!([]));
    let listed = app.get_ok("/campaigns", &key)["data"].clone();
    assert_eq!(listed[0]["roas"], "2.00", "the list shows them too");
}
