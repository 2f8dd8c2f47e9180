//! What each person sees in the panel: exactly the cabinets and campaigns the API lets them
//! read, with the API list's filters; one campaign's page (a declined one with the platform's
//! reason, in the list too); the hashed, cached assets.

use adcab::ops::{self, TeamAccess};
use chrono::Timelike;

use super::logged_in;
use crate::helpers::{spawn_app, Browser, Camp};

#[test]
fn each_person_sees_exactly_the_cabinets_and_campaigns_they_reach() {
    let app = spawn_app();
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "euro", "100");
    let kept = app.cabinet(agency, "ton", "100");
    let member = app.user("pro");
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Viewer).unwrap();
    let outsider = app.user("pro");
    let foreign = app.cabinet(outsider, "euro", "100");
    let in_shared = app.campaign(
        shared,
        Camp::channel("Shared launch", "https://t.me/alpha_chan"),
    );
    let in_kept = app.campaign(
        kept,
        Camp::channel("Agency only", "https://t.me/alpha_chan"),
    );
    let in_foreign = app.campaign(
        foreign,
        Camp::channel("Someone else", "https://t.me/alpha_chan"),
    );

    let owner = logged_in(&app, agency);
    let cabinets = owner.get("/cabinets").body;
    assert!(
        cabinets.contains(&format!("account_id={shared}"))
            && cabinets.contains(&format!("account_id={kept}"))
    );
    assert!(!cabinets.contains(&format!("account_id={foreign}")));
    let list = owner.get("/campaigns").body;
    assert!(list.contains("Shared launch") && list.contains("Agency only"));
    assert!(!list.contains("Someone else"));
    assert!(
        cabinets.contains(">Team<"),
        "an agency owner's navigation has the team"
    );

    let viewer = logged_in(&app, member);
    let cabinets = viewer.get("/cabinets").body;
    assert!(cabinets.contains(&format!("account_id={shared}")));
    assert!(!cabinets.contains(&format!("account_id={kept}")));
    assert!(cabinets.contains("viewer"), "the access level is shown");
    assert!(
        !cabinets.contains(">Team<"),
        "a member has no team of their own"
    );
    let list = viewer.get("/campaigns").body;
    assert!(list.contains("Shared launch"));
    assert!(!list.contains("Agency only") && !list.contains("Someone else"));
    assert_eq!(
        viewer
            .get(&format!("/campaigns/{shared}/{in_shared}"))
            .status,
        200
    );
    assert_eq!(
        viewer.get(&format!("/campaigns/{kept}/{in_kept}")).status,
        404
    );
    assert_eq!(
        viewer.get(&format!("/campaigns?account_id={kept}")).status,
        404
    );
    assert_eq!(
        viewer
            .get(&format!("/campaigns/{foreign}/{in_foreign}"))
            .status,
        404
    );

    ops::member_remove(&app.services, agency, member, Some(shared)).unwrap();
    assert_eq!(
        viewer
            .get(&format!("/campaigns/{shared}/{in_shared}"))
            .status,
        404,
        "lost access takes effect at once"
    );
}

#[test]
fn the_list_takes_the_api_filters_and_sorts_and_names_a_bad_one() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let running = app.approved(
        cabinet,
        Camp::channel("Running one", "https://t.me/alpha_chan"),
    );
    app.campaign(
        cabinet,
        Camp::channel("Waiting one", "https://t.me/alpha_chan"),
    );
    let b = logged_in(&app, user);

    let active = b.get("/campaigns?status=Active").body;
    assert!(active.contains("Running one") && !active.contains("Waiting one"));
    let titled = b.get("/campaigns?title=Waiting").body;
    assert!(titled.contains("Waiting one") && !titled.contains("Running one"));
    let sorted = b.get("/campaigns?sortBy=title&sortOrder=asc").body;
    assert!(sorted.find("Running one").unwrap() < sorted.find("Waiting one").unwrap());
    let bad = b.get("/campaigns?sortBy=colour");
    assert_eq!(bad.status, 200);
    assert!(
        bad.body.contains("sortBy: sortBy must be one of"),
        "the API's own message"
    );
    let page = b.get("/campaigns?limit=1&sortBy=title&sortOrder=asc").body;
    assert!(page.contains("Running one") && !page.contains("Waiting one"));
    assert!(page.contains("offset=1"), "a link to the next page");
    let one = b.get(&format!("/campaigns/{cabinet}/{running}"));
    assert_eq!(one.status, 200);
    assert!(one.body.contains("Running one") && one.body.contains("Active"));
}

#[test]
fn a_declined_campaign_shows_the_platforms_reason_on_its_page_and_in_the_list() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let declined = app.campaign(
        cabinet,
        Camp::channel("Shouting one", "https://t.me/alpha_chan"),
    );
    let waiting = app.campaign(
        cabinet,
        Camp::channel("Waiting one", "https://t.me/alpha_chan"),
    );
    ops::sim_review(
        &app.services,
        cabinet,
        declined,
        false,
        Some("Text formatting"),
    )
    .unwrap();
    let b = logged_in(&app, user);
    let explained = "The ad text uses capital letters, emoji or punctuation to draw attention.";

    let page = b.get(&format!("/campaigns/{cabinet}/{declined}")).body;
    assert!(
        page.contains("Declined by the platform: Text formatting") && page.contains(explained),
        "the reason and its explanation"
    );
    let other = b.get(&format!("/campaigns/{cabinet}/{waiting}")).body;
    assert!(
        other.contains("Waiting one") && !other.contains("Declined by the platform"),
        "no reason for a campaign in review"
    );
    let list = b.get("/campaigns").body;
    assert!(
        list.contains(&format!(r#"title="Text formatting — {explained}"#)),
        "the whole reason as the short one's tooltip"
    );
    assert_eq!(
        list.matches(r#"class="muted reason""#).count(),
        1,
        "one declined"
    );
}

#[test]
fn a_campaign_page_shows_its_chart_and_history_with_sources() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    app.align_hour();
    // The three hours delivered below end inside one UTC day, so "today" holds some of them.
    let hour = i64::from(app.now().hour());
    if hour >= 21 {
        app.advance((24 - hour) * 3600);
    }
    let ad = app.funded(cabinet, 500_000_000);
    app.advance(3 * 3600);
    let b = logged_in(&app, user);

    let page = b.get(&format!("/campaigns/{cabinet}/{ad}")).body;
    assert!(
        page.matches("<rect").count() >= 3,
        "bars for the delivered hours: {page}"
    );
    assert!(page.contains("Views · peak") && page.contains("Spend · peak"));
    assert!(
        page.contains("<td data-label=\"Source\"><span class=\"badge\">panel</span></td>"),
        "the creation's source"
    );
    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {user}"
    ));
    let russian = b.get(&format!("/campaigns/{cabinet}/{ad}")).body;
    assert!(
        russian.contains("Показы · макс.") && russian.contains("Почасовой график"),
        "the chart's words in Russian: {russian}"
    );
    assert!(!russian.contains("· peak"), "no English left in the chart");
    app.sql(&format!(
        "UPDATE users SET language = 'en' WHERE id = {user}"
    ));
    for period in ["24h", "7d", "30d"] {
        let p = b.get(&format!("/campaigns/{cabinet}/{ad}?period={period}"));
        assert_eq!(p.status, 200, "{period}");
        assert!(p.body.contains("<svg"), "{period}");
    }

    let cabinets = b.get("/cabinets").body;
    // What the cabinet's campaigns gained since the start of the service clock's UTC day.
    let today = app.now().format("%Y-%m-%dT00:00:00Z").to_string();
    let spent = app
        .services
        .db
        .read_blocking(move |c| {
            Ok::<i64, adcab::store::StoreError>(c.query_row(
                "SELECT COALESCE(SUM(spent_micros), 0) FROM hourly_stats WHERE account_id = ?1 AND hour >= ?2",
                rusqlite::params![cabinet, today],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert!(spent > 0);
    // Money as the page's language writes it: a no-break space before the currency.
    let shown = format!("{:.2}\u{a0}EUR", spent as f64 / 1e6);
    assert!(
        cabinets.contains(&shown),
        "today's spend {shown} in {cabinets}"
    );
}

#[test]
fn assets_have_hashed_names_and_a_year_long_cache() {
    let app = spawn_app();
    let (user, _, _) = app.manager();
    let b = logged_in(&app, user);
    let page = b.get("/campaigns");
    assert!(page
        .header("content-security-policy")
        .unwrap()
        .contains("frame-ancestors 'none'"));
    assert_eq!(page.header("cache-control"), Some("no-store"));
    let at = page.body.find("/assets/panel-").unwrap();
    let href = &page.body[at..at + page.body[at..].find('"').unwrap()];
    assert!(
        href.ends_with(".css") && href.len() == "/assets/panel-".len() + 12 + 4,
        "{href}"
    );
    let css = Browser::new(&app).get(href);
    assert_eq!(css.status, 200, "assets need no session");
    assert_eq!(
        css.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert!(css.header("content-type").unwrap().starts_with("text/css"));
    assert_eq!(
        b.get("/assets/panel-000000000000.css").status,
        404,
        "another build's name"
    );
}

#[test]
fn a_campaign_page_lists_its_conversions_newest_first() {
    let app = spawn_app();
    let user = app.user("pro");
    let cabinet = app.cabinet(user, "euro", "1000");
    let key = app.key_with(adcab::ops::NewKey {
        user,
        postbacks: true,
        ..adcab::ops::NewKey::default()
    });
    let site = app.campaign(
        cabinet,
        Camp::site("Shop", "https://shop.example.com/?subid=s-77"),
    );
    let web = logged_in(&app, user);
    assert!(web
        .get(&format!("/campaigns/{cabinet}/{site}"))
        .body
        .contains("No conversions yet."));
    for (txid, payout) in [("o1", "19.99"), ("o2", "5")] {
        let body = serde_json::json!({ "clickid": "s-77", "goal": "sale", "order_id": txid, "payout": payout, "cur": "eur" });
        let r = app.send("POST", "/postback", &key, Some(&body), &[]);
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let page = web.get(&format!("/campaigns/{cabinet}/{site}")).body;
    let (newer, older) = (
        page.find("5.00 EUR").unwrap(),
        page.find("19.99 EUR").unwrap(),
    );
    assert!(newer < older, "newest first");
    assert!(page.contains("24.99 EUR"), "the revenue total");
}

#[test]
fn a_store_failure_on_any_page_shows_no_internal_text() {
    let app = spawn_app();
    let user = app.user("agency");
    let cabinet = app.cabinet(user, "euro", "100");
    let ad = app.active_campaign(cabinet);
    let key = app.key_with(adcab::ops::NewKey {
        user,
        manage: true,
        ..adcab::ops::NewKey::default()
    });
    let rule = app.write_ok(
        "POST",
        "/rules",
        &key,
        Some(&serde_json::json!({
            "name": "r", "account_id": cabinet,
            "conditions": [{ "metric": "views", "op": ">", "value": 1 }],
            "action": { "type": "pause" }
        })),
        200,
    )["data"]["id"]
        .as_i64()
        .unwrap();
    let key_id: i64 = app.scalar("SELECT MAX(id) FROM api_keys WHERE user_id = ?1", &[user]);
    let web = logged_in(&app, user);
    let csrf = web.get("/campaigns").csrf();
    // Every table the pages read past the session is gone, as a damaged or half-restored
    // database would leave it; the session and the person's reach still read.
    for table in [
        "campaigns",
        "rules",
        "rule_log",
        "tasks",
        "api_keys",
        "webhook_deliveries",
        "hourly_stats",
        "team_members",
        "auto_cpm",
        "groups",
    ] {
        app.sql(&format!("ALTER TABLE {table} RENAME TO gone_{table}"));
    }
    let pages = [
        "/cabinets".to_string(),
        "/campaigns".into(),
        format!("/campaigns/{cabinet}/{ad}"),
        "/tasks".into(),
        "/keys".into(),
        format!("/keys/{key_id}"),
        "/team".into(),
        "/rules".into(),
        format!("/rules/{rule}/log"),
        format!("/rules/{rule}/preview"),
        "/sim".into(),
    ];
    let mut answers: Vec<(String, u16, String)> = pages
        .iter()
        .map(|p| {
            let page = web.get(p);
            (format!("GET {p}"), page.status, page.body)
        })
        .collect();
    let forms: [(String, Vec<(&str, String)>); 4] = [
        (
            format!("/campaigns/{cabinet}/{ad}/edit"),
            vec![("title", "A new title".into())],
        ),
        (
            "/campaigns/bulk".into(),
            vec![
                ("action", "pause".into()),
                ("ad", format!("{cabinet}:{ad}")),
            ],
        ),
        (
            "/rules".into(),
            vec![("account_id", cabinet.to_string()), ("name", "x".into())],
        ),
        ("/keys".into(), vec![("manage", "1".into())]),
    ];
    for (path, fields) in &forms {
        let mut sent: Vec<(&str, &str)> = vec![("csrf", &csrf)];
        sent.extend(fields.iter().map(|(k, v)| (*k, v.as_str())));
        let page = web.post(path, &sent);
        answers.push((format!("POST {path}"), page.status, page.body));
    }
    let failed = answers
        .iter()
        .filter(|(_, status, _)| *status >= 500)
        .count();
    assert!(
        failed >= 8,
        "the store failure reached the pages: {:?}",
        answers.iter().map(|(w, s, _)| (w, s)).collect::<Vec<_>>()
    );
    for (what, status, body) in &answers {
        let lower = body.to_lowercase();
        for internal in ["sqlite", "no such table", "internal error:", "gone_"] {
            assert!(
                !lower.contains(internal),
                "{what} ({status}) shows {internal:?}: {body}"
            );
        }
    }
}
