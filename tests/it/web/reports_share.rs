//! Share links of client reports: what a link shows, that it leads nowhere else and takes no
//! writes, that it stops working when revoked or expired (answering like an unknown token),
//! and that tokens are guessed no faster than passwords.

use super::logged_in;
use super::reports::{csv_rows, delivered, row, share, stored};
use crate::helpers::{spawn_app, spawn_app_with, Browser};
use chrono::Duration;

#[test]
fn a_share_link_shows_the_report_alone_and_stops_when_revoked() {
    let app = spawn_app();
    let (user, cabinet, _, _, [first, second]) = delivered(&app);
    let web = logged_in(&app, user);
    let from = first.to_string();
    let to = second.to_string();
    let path = share(
        &web,
        cabinet,
        &[
            ("span", "fixed"),
            ("from", &from),
            ("to", &to),
            ("expires_days", "30"),
        ],
    );
    let hash: String = app.scalar(
        "SELECT token_hash FROM report_links WHERE account_id = ?1",
        &[cabinet],
    );
    assert!(
        !path.contains(&hash) && hash.len() == 64,
        "only the hash is kept"
    );

    let client = Browser::new(&app);
    let shown = client.get(&path);
    assert_eq!(shown.status, 200, "{}", shown.body);
    assert_eq!(shown.header("x-robots-tag"), Some("noindex, nofollow"));
    assert!(shown
        .body
        .contains("<meta name=\"robots\" content=\"noindex, nofollow\">"));
    for tag in ["<a ", "<form", "<nav", "<script", "<button", "<input"] {
        assert!(
            !shown.body.contains(tag),
            "{tag} on a share link: {}",
            shown.body
        );
    }
    for href in shown.body.split("href=\"").skip(1) {
        assert!(href.starts_with("/assets/"), "only the stylesheet: {href}");
    }
    for src in shown.body.split("src=\"").skip(1) {
        assert!(src.starts_with("data:"), "no other path: {src}");
    }
    let (views, _, _, _) = stored(&app, cabinet, first, second);
    let rows = csv_rows(&client.get(&format!("{path}?format=csv")).body);
    assert_eq!(row(&rows, "total")["views"], views.to_string());
    // The link's days and nothing else: a query asking for others is not heard.
    let other = csv_rows(
        &client
            .get(&format!("{path}?from=2020-01-01&to={to}&format=csv"))
            .body,
    );
    assert_eq!(row(&other, "total")["day"], format!("{from}..{to}"));
    // No writes through it, and no way from it to the panel.
    assert_eq!(client.post(&path, &[("span", "last30")]).status, 405);
    assert_eq!(
        client.get(&format!("{path}/../../cabinets")).status,
        303,
        "the panel wants a login"
    );
    assert_eq!(client.get(&format!("/reports/{cabinet}")).status, 303);

    let unknown = client.get(&format!("/r/{}", "0".repeat(64)));
    assert_eq!(unknown.status, 404);

    let page = web.get(&format!("/reports/{cabinet}"));
    let link_id: i64 = app.scalar(
        "SELECT id FROM report_links WHERE account_id = ?1",
        &[cabinet],
    );
    assert!(
        page.body.contains(&format!("data-link=\"{link_id}\"")),
        "listed while live"
    );
    let revoked = web.post(
        &format!("/reports/{cabinet}/share/{link_id}/revoke"),
        &[("csrf", &page.csrf())],
    );
    assert_eq!(revoked.status, 303);
    let gone = client.get(&path);
    assert_eq!(gone.status, 404);
    assert_eq!(
        gone.body, unknown.body,
        "the same answer as an unknown token"
    );
    assert_eq!(client.get(&format!("{path}?format=csv")).status, 404);
    assert!(!web
        .get(&format!("/reports/{cabinet}"))
        .body
        .contains(&format!("data-link=\"{link_id}\"")));
}

#[test]
fn a_rolling_share_link_follows_the_days_and_expires() {
    let app = spawn_app();
    let owner = app.user("agency");
    let cabinet = app.cabinet(owner, "euro", "100");
    let web = logged_in(&app, owner);
    let path = share(
        &web,
        cabinet,
        &[("span", "last7"), ("expires_days", "7"), ("language", "ru")],
    );
    let client = Browser::new(&app);
    let shown = client.get_with(&path, &[("accept-language", "en-US")]);
    assert!(
        shown.body.contains("<html lang=\"ru\""),
        "the language chosen for it"
    );
    assert!(shown.body.contains("Отчёт"));
    let today = app.now().date_naive();
    let rows = csv_rows(&client.get(&format!("{path}?format=csv")).body);
    assert_eq!(
        row(&rows, "total")["day"],
        format!("{}..{today}", today - Duration::days(6))
    );

    app.advance(6 * 24 * 3600);
    let later = app.now().date_naive();
    let rows = csv_rows(&client.get(&format!("{path}?format=csv")).body);
    assert_eq!(
        row(&rows, "total")["day"],
        format!("{}..{later}", later - Duration::days(6)),
        "rolling"
    );

    app.advance(24 * 3600 + 60);
    assert_eq!(client.get(&path).status, 404, "expired after 7 days");
}

#[test]
fn share_links_are_guessed_no_faster_than_passwords() {
    let app = spawn_app_with(|c| c.panel.login_failures_per_address = 3);
    let client = Browser::new(&app);
    for i in 0..3 {
        assert_eq!(client.get(&format!("/r/{i:064}")).status, 404);
    }
    let limited = client.get(&format!("/r/{:064}", 9));
    assert_eq!(limited.status, 429);
    assert!(limited.header("retry-after").is_some());
    assert!(!limited.body.contains("<a "), "no way out from it either");
}

#[test]
fn the_share_form_speaks_the_clients_report_language_by_default() {
    let app = spawn_app();
    let (user, cabinet, _, _, _) = delivered(&app);
    let web = logged_in(&app, user);
    let selected = |body: &str| {
        ["en", "ru"]
            .into_iter()
            .filter(|code| body.contains(&format!("<option value=\"{code}\" selected>")))
            .collect::<Vec<_>>()
    };
    let page = web.get(&format!("/reports/{cabinet}"));
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(
        selected(&page.body),
        ["en"],
        "the page's language by default"
    );

    app.sql(&format!(
        "UPDATE cabinets SET report_language = 'ru' WHERE id = {cabinet}"
    ));
    let page = web.get(&format!("/reports/{cabinet}"));
    assert_eq!(
        selected(&page.body),
        ["ru"],
        "the client's language once set"
    );
}
