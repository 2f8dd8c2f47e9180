//! Schedules given by zone name follow daylight saving on Telegram Ads (the fake): the
//! platform is sent the zone's summer offset in seconds once the clocks change, with the
//! history saying why; a fixed offset is never sent again; a move the platform refuses is
//! recorded once.

use chrono::Datelike;
use serde_json::json;

use super::{advance_service, connected, Fault, Tg};
use crate::zones::{after_last_sunday_of_march, next_january, office_hours, seconds_until};

/// Moves both clocks to `at` and has the scheduler sync only the hour before it: the months
/// between are not what these tests check, and syncing each of their hours from the fake
/// would outlast the wait.
fn jump(tg: &Tg, at: chrono::DateTime<chrono::Utc>) {
    let seconds = seconds_until(&tg.app, at);
    tg.fake.advance(seconds);
    advance_service(&tg.app.services, seconds);
    let hour = adcab::clock::hour_start(tg.app.now()) - chrono::Duration::hours(1);
    let hour = adcab::clock::iso(hour);
    tg.app.sql(&format!(
        "UPDATE scheduler_state SET next_sync_hour = '{hour}', next_digest_hour = '{hour}'"
    ));
    tg.app.settle();
}

#[test]
fn a_schedule_given_by_name_in_january_is_sent_again_with_the_summer_offset_after_march() {
    let tg = connected(vec![]);
    let january = next_january(tg.app.now());
    jump(&tg, january);
    let named = tg.create(json!({ "schedule": office_hours("Europe/Berlin") }));
    let fixed = tg.create(json!({ "schedule": office_hours("+03:00") }));
    let on_platform = |ad: i64| tg.fake.ad(tg.id(), ad).expect("the ad on the platform");
    assert_eq!(on_platform(named)["schedule"]["timezone"], 3600);
    assert_eq!(
        tg.campaign(named)["schedule"]["timezone_name"],
        "Europe/Berlin"
    );
    tg.fake.reset_calls();

    jump(&tg, after_last_sunday_of_march(january.year()));
    let held = on_platform(named)["schedule"].clone();
    assert_eq!(
        held["timezone"], 7200,
        "the summer offset, in seconds: {held}"
    );
    assert_eq!(
        on_platform(fixed)["schedule"]["timezone"],
        3 * 3600,
        "a fixed offset stays"
    );
    let edits: Vec<_> = tg
        .fake
        .calls()
        .into_iter()
        .filter(|c| c.method == "editAd")
        .collect();
    assert_eq!(
        edits.len(),
        1,
        "one edit, of the named campaign only: {edits:?}"
    );
    let stored = tg.campaign(named);
    assert_eq!(
        (
            stored["schedule"]["timezone"].as_str(),
            stored["schedule"]["timezone_name"].as_str()
        ),
        (Some("+02:00"), Some("Europe/Berlin"))
    );
    let (cabinet, ad) = (tg.cabinet, named);
    let history = tg
        .app
        .services
        .db
        .read_blocking(move |c| adcab::store::history::list(c, cabinet, ad))
        .unwrap();
    let moved = history
        .iter()
        .find(|e| e.source == "system")
        .expect("the move in the history, by the system");
    assert_eq!(
        moved.details.as_ref().unwrap()["zone"],
        json!({ "name": "Europe/Berlin", "from": "+01:00", "to": "+02:00" })
    );
}

#[test]
fn a_move_the_platform_refuses_is_recorded_once_and_the_schedule_keeps_its_offset() {
    let tg = connected(vec![]);
    let january = next_january(tg.app.now());
    jump(&tg, january);
    let ad = tg.create(json!({ "schedule": office_hours("Europe/Berlin") }));
    tg.fake.fail_next(
        Fault::ApiError("SCHEDULE_TIMEZONE_INVALID".into()),
        Some("editAd"),
        1,
    );
    jump(&tg, after_last_sunday_of_march(january.year()));
    let on_platform = tg.fake.ad(tg.id(), ad).unwrap();
    assert_eq!(
        on_platform["schedule"]["timezone"], 3600,
        "the old offset stays"
    );
    let (cabinet, services) = (tg.cabinet, &tg.app.services);
    let history = || {
        services
            .db
            .read_blocking(move |c| adcab::store::history::list(c, cabinet, ad))
            .unwrap()
    };
    let refused: Vec<_> = history()
        .into_iter()
        .filter(|e| e.action == "zone_refused")
        .collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].source, "system");
    let details = refused[0].details.clone().unwrap();
    assert_eq!(
        (
            details["zone"].as_str(),
            details["offset"].as_str(),
            details["held"].as_str()
        ),
        (Some("Europe/Berlin"), Some("+02:00"), Some("+01:00"))
    );

    // The campaign's page says so, in English and in Russian.
    let web = crate::web::logged_in(&tg.app, tg.user);
    let page = web.get(&format!("/campaigns/{cabinet}/{ad}")).body;
    assert!(
        page.contains(
            "The clocks in Europe/Berlin changed to UTC+02:00, which the platform does not take: schedule left at UTC+01:00 by adcab itself"
        ),
        "{page}"
    );
    tg.app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {}",
        tg.user
    ));
    let ru = web.get(&format!("/campaigns/{cabinet}/{ad}")).body;
    assert!(
        ru.contains("В зоне Europe/Berlin перевели часы на UTC+02:00"),
        "{ru}"
    );

    // The next passes do not ask again for the same offset.
    tg.fake.reset_calls();
    let pass = adcab::jobs::zones::run(services).unwrap();
    assert_eq!(pass, adcab::jobs::zones::Pass::default());
    tg.advance(3600);
    assert_eq!(tg.fake.call_count("editAd"), 0);
    assert_eq!(
        history()
            .iter()
            .filter(|e| e.action == "zone_refused")
            .count(),
        1
    );
}
