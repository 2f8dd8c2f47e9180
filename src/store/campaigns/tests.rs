//! Unit tests of the campaign copies: insert, refresh and read back.

use super::*;
use crate::domain::ad::{AdCounters, AdSpec, DeclineReason};
use serde_json::json;

/// Ad 3 of cabinet 7 as the platform reports it (the conversion tests use it too).
pub(crate) fn snapshot() -> AdSnapshot {
    AdSnapshot {
        account_id: 7,
        ad_id: 3,
        spec: AdSpec {
            title: "Spring".into(),
            text: "Fresh every morning".into(),
            promote_url: "https://shop.example.com/land?subid=s1".into(),
            target_type: TargetType::Users,
            targeting: json!({ "countries": ["US"] }),
            views_per_user: 2,
            media_token: Some("med_1".into()),
            media_type: Some("photo".into()),
            picture: true,
            button: Some("buy".into()),
            website_name: Some("Shop".into()),
            placement: Some("video_banner".into()),
        },
        status: Status::Active,
        active: true,
        cpm: Money::from_micros(2_000_000),
        budget: Money::from_micros(10_000_000),
        spent: Money::from_micros(1_500_000),
        daily_budget: Some(Money::from_micros(3_000_000)),
        schedule: Some(json!({ "timezone": "UTC" })),
        dates: Dates {
            starts_at: Some(1_800_000_000),
            ends_at: None,
        },
        views: 100,
        opens: 40,
        clicks: 9,
        actions: 2,
        created_at: 1_700_000_000,
        status_changed_at: "2026-01-01T00:00:00Z".into(),
        invite_link: Some("t.me/+AbCd".into()),
        decline_reason: None,
        peers: Vec::new(),
    }
}

/// Every column the snapshot sets, read back.
fn assert_stored(row: &CampaignRow, snap: &AdSnapshot) {
    let spec = &snap.spec;
    assert_eq!(
        (
            &row.title,
            &row.text,
            &row.promote_url,
            row.target_type,
            &row.targeting
        ),
        (
            &spec.title,
            &spec.text,
            &spec.promote_url,
            spec.target_type,
            &spec.targeting
        )
    );
    assert_eq!(
        (
            row.views_per_user,
            &row.media_token,
            &row.media_type,
            row.picture
        ),
        (
            spec.views_per_user,
            &spec.media_token,
            &spec.media_type,
            spec.picture
        )
    );
    assert_eq!(
        (
            &row.button,
            &row.website_name,
            &row.schedule,
            &row.invite_link
        ),
        (
            &spec.button,
            &spec.website_name,
            &snap.schedule,
            &snap.invite_link
        )
    );
    assert_eq!(
        (
            row.status,
            row.active,
            row.cpm,
            row.budget,
            row.spent,
            row.daily_budget
        ),
        (
            snap.status,
            snap.active,
            snap.cpm,
            snap.budget,
            snap.spent,
            snap.daily_budget
        )
    );
    assert_eq!(
        (
            row.views,
            row.opens,
            row.clicks,
            row.actions,
            row.created_at
        ),
        (
            snap.views,
            snap.opens,
            snap.clicks,
            snap.actions,
            snap.created_at
        )
    );
    let link = link_of(&spec.promote_url).unwrap();
    assert_eq!((row.link_kind, &row.tme_path), (link.kind, &link.tme_path));
}

#[test]
fn a_copy_reads_back_as_inserted_and_as_refreshed() {
    let conn = crate::store::test_db();
    conn.execute_batch(
        "INSERT INTO groups (id, account_id, name, color) VALUES (4, 7, 'g', '#000000')",
    )
    .unwrap();
    let first = snapshot();
    insert(&conn, &first, Some(4), "2026-01-01T00:00:00Z").unwrap();
    let row = get(&conn, 7, 3).unwrap().unwrap();
    assert_stored(&row, &first);
    assert_eq!(
        (
            row.group_id,
            row.synced_at.as_str(),
            row.status_changed_at.as_str()
        ),
        (Some(4), "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
    );

    let mut next = first.clone();
    next.spec.title = "Summer".into();
    next.spec.promote_url = "https://t.me/alpha_chan".into();
    next.spec.media_token = None;
    next.status = Status::OnHold;
    next.active = false;
    next.budget = Money::from_micros(12_000_000);
    next.daily_budget = None;
    next.schedule = None;
    next.views = 150;
    next.status_changed_at = "2026-01-02T00:00:00Z".into();
    let found = refresh(&conn, &next, "2026-01-02T01:00:00Z", Counters::Write)
        .unwrap()
        .unwrap();
    assert!(found.changed);
    assert!(found.link_changed, "the promoted link changed");
    assert_eq!(found.old_status, first.status);
    let first_path = link_of(&first.spec.promote_url).unwrap().tme_path;
    assert_eq!(found.old_tme_path, first_path, "the path the copy had");
    let row = get(&conn, 7, 3).unwrap().unwrap();
    assert_stored(&row, &next);
    assert_eq!(
        (row.synced_at.as_str(), row.status_changed_at.as_str()),
        ("2026-01-02T01:00:00Z", "2026-01-02T00:00:00Z")
    );

    let mut same = next.clone();
    same.status_changed_at = "2026-01-03T00:00:00Z".into();
    let found = refresh(&conn, &same, "2026-01-03T01:00:00Z", Counters::Write)
        .unwrap()
        .unwrap();
    assert!(!found.changed, "nothing the report says is new");
    assert!(!found.link_changed);
    assert_eq!(found.old_status, Status::OnHold);
    assert_eq!(found.old_tme_path.as_deref(), Some("alpha_chan"));
    let row = get(&conn, 7, 3).unwrap().unwrap();
    assert_eq!(
        (row.synced_at.as_str(), row.status_changed_at.as_str()),
        ("2026-01-03T01:00:00Z", "2026-01-02T00:00:00Z"),
        "an unchanged status keeps the time it changed"
    );

    let mut counted = same.clone();
    counted.views = 180;
    counted.spent = Money::from_micros(360_000);
    counted.budget = same.budget.checked_sub(Money::from_micros(60_000)).unwrap();
    let found = refresh(&conn, &counted, "2026-01-04T00:30:00Z", Counters::Keep)
        .unwrap()
        .unwrap();
    assert!(
        !found.changed,
        "counters and a budget left as they are change nothing"
    );
    let row = get(&conn, 7, 3).unwrap().unwrap();
    assert_eq!(
        (row.views, row.spent, row.budget, row.synced_at.as_str()),
        (150, same.spent, same.budget, "2026-01-04T00:30:00Z"),
        "the counters and the budget kept, the read recorded"
    );
    let found = refresh(&conn, &counted, "2026-01-04T01:00:00Z", Counters::Write)
        .unwrap()
        .unwrap();
    assert!(
        found.changed && !found.link_changed,
        "only counters changed"
    );
    let row = get(&conn, 7, 3).unwrap().unwrap();
    assert_stored(&row, &counted);
    assert_eq!(row.synced_at, "2026-01-04T01:00:00Z");
}

/// The counters line of a snapshot, as an account-wide report gives it.
fn line_of(snap: &AdSnapshot) -> AdCounters {
    AdCounters {
        ad_id: snap.ad_id,
        status: snap.status,
        active: snap.active,
        budget: snap.budget,
        spent: snap.spent,
        views: snap.views,
        opens: snap.opens,
        clicks: snap.clicks,
        actions: snap.actions,
        status_changed_at: snap.status_changed_at.clone(),
        decline_reason: snap.decline_reason.clone(),
    }
}

#[test]
fn a_decline_reason_is_stored_while_declined_and_cleared_when_the_ad_leaves_it() {
    let conn = crate::store::test_db();
    let reason = DeclineReason::new("Misleading claims", Some("Promises income.")).unwrap();
    let declined = AdSnapshot {
        status: Status::Declined,
        decline_reason: Some(reason.clone()),
        ..snapshot()
    };
    insert(&conn, &declined, None, "2026-01-01T00:00:00Z").unwrap();
    let reason_of = || get(&conn, 7, 3).unwrap().unwrap().decline_reason;
    assert_eq!(reason_of(), Some(reason.clone()), "stored on insert");

    let in_review = AdSnapshot {
        status: Status::InReview,
        ..declined.clone()
    };
    let found = refresh(&conn, &in_review, "2026-01-02T00:00:00Z", Counters::Write)
        .unwrap()
        .unwrap();
    assert!(found.changed);
    assert_eq!(
        reason_of(),
        None,
        "a platform that still names the reason of an ad in review is not believed"
    );

    let other = DeclineReason::new("Landing page does not work", None).unwrap();
    let declined_again = AdSnapshot {
        decline_reason: Some(other.clone()),
        ..declined.clone()
    };
    refresh(
        &conn,
        &declined_again,
        "2026-01-03T00:00:00Z",
        Counters::Write,
    )
    .unwrap();
    assert_eq!(reason_of(), Some(other));

    CounterWrites::new(&conn)
        .apply(
            7,
            &line_of(&declined),
            Reported::State {
                status_moved: false,
                wide_moved: true,
            },
            None,
        )
        .unwrap();
    assert_eq!(
        reason_of(),
        Some(reason),
        "a report's new reason replaces the old one"
    );
    let approved = AdSnapshot {
        status: Status::Active,
        decline_reason: None,
        ..declined
    };
    CounterWrites::new(&conn)
        .apply(
            7,
            &line_of(&approved),
            Reported::State {
                status_moved: true,
                wide_moved: true,
            },
            None,
        )
        .unwrap();
    let row = get(&conn, 7, 3).unwrap().unwrap();
    assert_eq!((row.status, row.decline_reason), (Status::Active, None));
}

#[test]
fn the_placement_is_stored_and_the_dates_are_kept_over_a_report_without_them() {
    let conn = crate::store::test_db();
    let snap = snapshot();
    insert(&conn, &snap, None, "2026-01-01T00:00:00Z").unwrap();
    let row = get(&conn, 7, 3).unwrap().unwrap();
    assert_eq!(row.placement.as_deref(), Some("video_banner"));
    assert_eq!(row.dates, snap.dates);
    let ends = Dates {
        starts_at: None,
        ends_at: Some(1_800_003_600),
    };
    set_dates(&conn, 7, 3, ends).unwrap();
    let paused = AdSnapshot {
        active: false,
        status: Status::OnHold,
        dates: Dates::default(),
        ..snapshot()
    };
    refresh(&conn, &paused, "2026-01-01T01:00:00Z", Counters::Write).unwrap();
    let row = get(&conn, 7, 3).unwrap().unwrap();
    assert_eq!(
        row.dates, ends,
        "a platform that cleared them on a pause does not clear adcab's"
    );
    assert!(!row.active);
}

#[test]
fn a_report_line_keeps_the_switch_only_when_its_switch_budget_and_decline_reason_are_stored() {
    let conn = crate::store::test_db();
    let reason = DeclineReason::new("Misleading claims", None).unwrap();
    let declined = AdSnapshot {
        status: Status::Declined,
        decline_reason: Some(reason),
        ..snapshot()
    };
    insert(&conn, &declined, None, "2026-01-01T00:00:00Z").unwrap();
    let state = sync_states(&conn, 7).unwrap().remove(&3).unwrap();
    let line = line_of(&declined);
    assert!(state.same_switch(&line), "the line as stored");
    let moved = [
        AdCounters {
            active: !line.active,
            ..line.clone()
        },
        AdCounters {
            budget: Money::from_micros(line.budget.micros() + 1),
            ..line.clone()
        },
        AdCounters {
            decline_reason: Some(DeclineReason::new("Broken link", None).unwrap()),
            ..line.clone()
        },
        AdCounters {
            decline_reason: None,
            ..line.clone()
        },
    ];
    for other in moved {
        assert!(!state.same_switch(&other), "{other:?}");
    }
}

#[test]
fn the_copies_revision_moves_with_every_local_write_and_not_with_a_report() {
    let conn = crate::store::test_db();
    let rev = || crate::store::cabinets::copies_rev(&conn, 7).unwrap();
    let first = rev();
    let snap = snapshot();
    insert(&conn, &snap, None, "2026-01-01T00:00:00Z").unwrap();
    let inserted = rev();
    assert!(inserted > first, "a copy added");

    let reported = AdSnapshot {
        views: 500,
        status: Status::OnHold,
        ..snap.clone()
    };
    CounterWrites::new(&conn)
        .apply(
            7,
            &line_of(&reported),
            Reported::State {
                status_moved: true,
                wide_moved: true,
            },
            Some(1),
        )
        .unwrap();
    assert_eq!(rev(), inserted, "the sync's own write of a report");

    let edited = AdSnapshot {
        budget: Money::from_micros(20_000_000),
        ..snap
    };
    refresh(&conn, &edited, "2026-01-02T00:00:00Z", Counters::Write).unwrap();
    let refreshed = rev();
    assert!(refreshed > inserted, "a change adcab stored");
    let local_rev = || sync_states(&conn, 7).unwrap()[&3].local_rev;
    let before = local_rev();
    refresh(&conn, &edited, "2026-01-02T01:00:00Z", Counters::Keep).unwrap();
    assert_eq!(
        (rev(), local_rev()),
        (refreshed, before),
        "the sync's full re-read that found the copy as stored"
    );
    refresh(&conn, &edited, "2026-01-02T02:00:00Z", Counters::Write).unwrap();
    assert!(
        rev() > refreshed && local_rev() > before,
        "any other refresh, even one that found the copy as stored"
    );
    let refreshed = rev();

    mark_deleted(&conn, 7, 3, "2026-01-03T00:00:00Z").unwrap();
    let deleted = rev();
    assert!(deleted > refreshed, "a copy marked deleted");

    remove(&conn, 7, 3).unwrap();
    assert!(rev() > deleted, "a copy removed");
}

#[test]
fn what_was_read_of_the_copies_is_current_until_a_local_write_or_a_stored_report() {
    use crate::store::cabinets::{set_synced_through, Revised};
    let conn = crate::store::test_db();
    let snap = snapshot();
    insert(&conn, &snap, None, "2026-01-01T00:00:00Z").unwrap();
    let states = |c: &Connection| sync_states(c, 7);

    let read = Revised::read(&conn, 7, states).unwrap();
    assert!(read.current(&conn).unwrap().is_some(), "nothing written");

    // A report's lines leave the revision; storing the report (its hour) moves it, so a state
    // read before another sync of the cabinet stored its report is read again.
    let read = Revised::read(&conn, 7, states).unwrap();
    let reported = AdSnapshot {
        views: 500,
        ..snap.clone()
    };
    CounterWrites::new(&conn)
        .apply(7, &line_of(&reported), Reported::CountersOnly, None)
        .unwrap();
    set_synced_through(&conn, 7, "2026-01-01T01:00:00Z").unwrap();
    assert!(read.current(&conn).unwrap().is_none(), "a report stored");

    let read = Revised::read(&conn, 7, states).unwrap();
    assert_eq!(
        read.current(&conn).unwrap().expect("nothing since")[&3]
            .mark
            .views,
        500
    );
    let read = Revised::read(&conn, 7, states).unwrap();
    let edited = AdSnapshot {
        budget: Money::from_micros(20_000_000),
        ..reported
    };
    refresh(&conn, &edited, "2026-01-02T00:00:00Z", Counters::Write).unwrap();
    assert!(
        read.current(&conn).unwrap().is_none(),
        "a change adcab stored after the read"
    );
    let gone = Revised::read(&conn, 8, states).unwrap();
    assert!(gone.current(&conn).unwrap().is_none(), "no such cabinet");
}
