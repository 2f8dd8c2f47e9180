//! Client reports in the panel: the figures against the stored hours (made by the simulator's
//! clock), the change against the previous period, the fee line, the downloads, who may read
//! one, the agency's name and logo, and a person's time zone moving the days of their report
//! and of the links they make. Share links themselves: `reports_share`.

use super::logged_in;
use crate::helpers::{spawn_app, Browser, Camp, TestApp};
use adcab::ops::NewKey;
use chrono::{Duration, NaiveDate};
use serde_json::json;

/// An owner with a euro cabinet, a site campaign delivering for two whole UTC days and a key
/// that sends postbacks: (user, cabinet, ad, key, the two days).
pub(super) fn delivered(app: &TestApp) -> (i64, i64, i64, String, [NaiveDate; 2]) {
    let user = app.user("agency");
    let cabinet = app.cabinet(user, "euro", "1000");
    let key = app.key_with(NewKey {
        user,
        manage: true,
        postbacks: true,
        ..NewKey::default()
    });
    // Start at the next UTC midnight, so the two days are whole.
    let now = app.now();
    let midnight = (now + Duration::days(1))
        .date_naive()
        .and_hms_opt(0, 2, 0)
        .unwrap()
        .and_utc();
    app.advance((midnight - now).num_seconds());
    let ad = app.approved(
        cabinet,
        Camp {
            budget_micros: 900_000_000,
            ..Camp::site("Shop", "https://shop.example.com/?subid=s-1")
        },
    );
    let first = app.now().date_naive();
    for _ in 0..4 {
        app.advance(12 * 3600);
    }
    (user, cabinet, ad, key, [first, first + Duration::days(1)])
}

/// The stored hours' sums of a cabinet over whole UTC days `from..=to`: (views, clicks,
/// actions, spent micros).
pub(super) fn stored(
    app: &TestApp,
    cabinet: i64,
    from: NaiveDate,
    to: NaiveDate,
) -> (i64, i64, i64, i64) {
    let end = to + Duration::days(1);
    let sum = |column: &str| -> i64 {
        app.scalar(
            &format!(
                "SELECT COALESCE(SUM({column}), 0) FROM hourly_stats WHERE account_id = ?1
                 AND hour >= '{from}T00:00:00Z' AND hour < '{end}T00:00:00Z'"
            ),
            &[cabinet],
        )
    };
    (
        sum("views"),
        sum("clicks"),
        sum("actions"),
        sum("spent_micros"),
    )
}

/// A CSV download as rows of cells by column name.
pub(super) fn csv_rows(body: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut lines = body.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

pub(super) fn row<'a>(
    rows: &'a [std::collections::HashMap<String, String>],
    section: &str,
) -> &'a std::collections::HashMap<String, String> {
    rows.iter()
        .find(|r| r["section"] == section)
        .unwrap_or_else(|| panic!("no {section} row: {rows:?}"))
}

fn micros(decimal: &str) -> i64 {
    let d: rust_decimal::Decimal = decimal.parse().unwrap();
    (d * rust_decimal::Decimal::from(1_000_000))
        .try_into()
        .unwrap()
}

#[test]
fn a_report_has_the_stored_hours_figures_and_their_change_against_the_day_before() {
    let app = spawn_app();
    let (user, cabinet, ad, _, [first, second]) = delivered(&app);
    let web = logged_in(&app, user);
    let path = format!("/reports/{cabinet}?from={second}&to={second}");

    let csv = web.get(&format!("{path}&format=csv"));
    assert_eq!(csv.status, 200, "{}", csv.body);
    assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
    let rows = csv_rows(&csv.body);
    let (views, clicks, actions, spent) = stored(&app, cabinet, second, second);
    assert!(views > 0 && spent > 0, "the campaign delivered");
    let total = row(&rows, "total");
    assert_eq!(total["views"], views.to_string());
    assert_eq!(total["clicks"], clicks.to_string());
    assert_eq!(total["actions"], actions.to_string());
    assert_eq!(micros(&total["spent"]), spent);
    assert_eq!(total["currency"], "EUR");
    let campaign = row(&rows, "campaign");
    assert_eq!(campaign["ad_id"], ad.to_string());
    assert_eq!(
        campaign["views"],
        views.to_string(),
        "one campaign: all of it"
    );
    let day = row(&rows, "day");
    assert_eq!(day["day"], second.to_string());

    let (before_views, _, _, _) = stored(&app, cabinet, first, first);
    let previous = row(&rows, "previous");
    assert_eq!(previous["views"], before_views.to_string());
    assert_eq!(previous["day"], format!("{first}..{first}"));

    // The page shows the same, and the change against the day before.
    let page = web.get(&path);
    assert_eq!(page.status, 200, "{}", page.body);
    let change = rust_decimal::Decimal::from(views - before_views)
        * rust_decimal::Decimal::ONE_HUNDRED
        / rust_decimal::Decimal::from(before_views);
    let change = change.round_dp(2);
    let shown = format!(
        "{}{:.2}%",
        if change > rust_decimal::Decimal::ZERO {
            "+"
        } else {
            ""
        },
        change
    );
    let views_tile = page
        .body
        .split("data-figure=\"views\"")
        .nth(1)
        .expect("the views tile");
    let views_tile = &views_tile[..views_tile.find("</div>").unwrap()];
    assert!(views_tile.contains(&shown), "{shown} in {views_tile}");
    assert!(
        page.body.contains("<svg class=\"chart\""),
        "the daily chart"
    );

    // Two days: the daily rows are the stored days.
    let both = csv_rows(
        &web.get(&format!(
            "/reports/{cabinet}?from={first}&to={second}&format=csv"
        ))
        .body,
    );
    let days: Vec<_> = both.iter().filter(|r| r["section"] == "day").collect();
    assert_eq!(days.len(), 2);
    assert_eq!(days[0]["views"], before_views.to_string());
    assert_eq!(days[1]["views"], views.to_string());

    let xlsx = web.get(&format!("{path}&format=xlsx"));
    assert_eq!(xlsx.status, 200);
    assert_eq!(
        xlsx.body.as_bytes().get(..2),
        Some(&b"PK"[..]),
        "a zip workbook"
    );
    let pdf = web.get(&format!("{path}&format=pdf"));
    assert_eq!(pdf.status, 200);
    assert_eq!(pdf.bytes.get(..5), Some(&b"%PDF-"[..]), "a PDF");
}

#[test]
fn the_fee_is_a_line_of_its_own_and_revenue_converts_at_the_kept_rate() {
    let app = spawn_app();
    let (user, cabinet, _, key, [_, second]) = delivered(&app);
    app.sql(&format!(
        "UPDATE cabinets SET fee_percent = '12.5' WHERE id = {cabinet};
         INSERT INTO rates VALUES ('EUR', 'USD', '{second}', '1.25', 'manual', 'x');"
    ));
    let sent = app.send(
        "POST",
        "/postback",
        &key,
        Some(&json!({"clickid": "s-1", "goal": "sale", "order_id": 1, "payout": "50", "currency": "USD"})),
        &[],
    );
    assert_eq!(sent.status, 200, "{}", sent.body);
    let sent = app.send(
        "POST",
        "/postback",
        &key,
        Some(&json!({"clickid": "s-1", "goal": "sale", "order_id": 2, "payout": "7", "currency": "XAU"})),
        &[],
    );
    assert_eq!(sent.status, 200, "{}", sent.body);
    let today = app.now().date_naive();
    app.sql(&format!(
        "INSERT INTO rates VALUES ('EUR', 'USD', '{today}', '1.25', 'manual', 'x');"
    ));
    let web = logged_in(&app, user);

    let rows = csv_rows(
        &web.get(&format!(
            "/reports/{cabinet}?from={second}&to={today}&format=csv"
        ))
        .body,
    );
    let total = row(&rows, "total");
    let spent: rust_decimal::Decimal = total["spent"].parse().unwrap();
    let platform =
        spent.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
    let fee = (platform * rust_decimal::Decimal::new(125, 3))
        .round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
    let fee_row = row(&rows, "fee");
    assert_eq!(
        fee_row["spent"].parse::<rust_decimal::Decimal>().unwrap(),
        fee
    );
    assert_eq!(fee_row["title"], "12.5%");
    let client = row(&rows, "client_spend");
    assert_eq!(
        client["spent"].parse::<rust_decimal::Decimal>().unwrap(),
        platform + fee
    );
    assert_eq!(total["conversions"], "2");
    assert_eq!(
        total["revenue"].parse::<rust_decimal::Decimal>().unwrap(),
        rust_decimal::Decimal::from(40),
        "50 USD at 1.25 USD per EUR; the XAU without a rate is left out"
    );
    let event = row(&rows, "event");
    assert_eq!(
        (event["title"].as_str(), event["conversions"].as_str()),
        ("purchase", "2")
    );

    let page = web.get_with(
        &format!("/reports/{cabinet}?from={second}&to={today}"),
        &[("accept-language", "ru")],
    );
    assert!(page.body.contains("data-figure=\"fee\""), "{}", page.body);
    assert!(page.body.contains("Итого для клиента"));
    assert!(
        page.body.contains("Курса XAU"),
        "the currency without a rate is named"
    );
}

#[test]
fn a_report_is_only_for_who_reaches_the_cabinet_and_its_span_is_bounded() {
    let app = spawn_app();
    let owner = app.user("agency");
    let cabinet = app.cabinet(owner, "euro", "100");
    let stranger = app.user("pro");
    let web = logged_in(&app, stranger);
    assert_eq!(web.get(&format!("/reports/{cabinet}")).status, 404);
    assert_eq!(
        web.get(&format!("/reports/{cabinet}?format=csv")).status,
        404
    );
    assert_eq!(web.get("/reports/not-a-number").status, 404);

    let web = logged_in(&app, owner);
    let page = web.get(&format!("/reports/{cabinet}?from=2020-01-01&to=2026-01-01"));
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("role=\"alert\""),
        "a span too long is said"
    );
    let cabinets = web.get("/cabinets").body;
    assert!(
        cabinets.contains(&format!("href=\"/reports/{cabinet}\"")),
        "linked from the cabinets"
    );
    assert!(cabinets.contains("href=\"/reports\""), "and the navigation");
}

/// Makes a share link from the report page; returns its path (`/r/{token}`).
pub(super) fn share(web: &Browser, cabinet: i64, fields: &[(&str, &str)]) -> String {
    let page = web.get(&format!("/reports/{cabinet}"));
    let csrf = page.csrf();
    let mut form = vec![("csrf", csrf.as_str())];
    form.extend_from_slice(fields);
    let made = web.post(&format!("/reports/{cabinet}/share"), &form);
    assert_eq!(made.status, 200, "{}", made.body);
    let at = made
        .body
        .find("data-share-url=\"\">")
        .expect("the new link");
    let rest = &made.body[at + "data-share-url=\"\">".len()..];
    let url = &rest[..rest.find('<').unwrap()];
    let path = &url[url.find("/r/").expect("a share path")..];
    assert_eq!(path.len(), "/r/".len() + 64, "a 256-bit token");
    path.to_string()
}

/// Sends `bytes` as the `logo` file of the settings' multipart form; returns (status,
/// location, body).
fn upload_logo(web: &Browser, bytes: &[u8]) -> (u16, Option<String>, String) {
    let csrf = web.get("/settings").csrf();
    let boundary = "----adcabtestboundary";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{csrf}\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"logo\"; filename=\"logo.png\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let agent = ureq::AgentBuilder::new().redirects(0).build();
    let cookie = format!(
        "adcab_session={}",
        web.cookie("adcab_session").expect("signed in")
    );
    let answer = agent
        .post(&format!("{}/settings/logo", web.root))
        .set("cookie", &cookie)
        .set(
            "content-type",
            &format!("multipart/form-data; boundary={boundary}"),
        )
        .send_bytes(&body);
    let response = match answer {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{e}"),
    };
    (
        response.status(),
        response.header("location").map(str::to_string),
        response.into_string().unwrap_or_default(),
    )
}

/// A PNG's signature and a little more: what the logo's check reads.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";

#[test]
fn the_agency_name_and_logo_set_on_settings_head_the_report_and_its_share_link() {
    let app = spawn_app();
    let owner = app.user("agency");
    let cabinet = app.cabinet(owner, "euro", "100");
    let web = logged_in(&app, owner);
    let page = web.get("/settings");
    let saved = web.post(
        "/settings/agency",
        &[("csrf", &page.csrf()), ("agency_name", "Northwind Ads")],
    );
    assert_eq!(saved.status, 303, "{}", saved.body);

    let (status, _, body) = upload_logo(&web, b"GIF89a not a logo");
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("PNG"), "{body}");
    let (status, _, body) = upload_logo(&web, &vec![0x89; 300 * 1024]);
    assert_eq!(status, 400, "too large: {body}");
    let (status, location, body) = upload_logo(&web, PNG);
    assert_eq!(status, 303, "{body}");
    assert_eq!(location.as_deref(), Some("/settings?saved=agency#agency"));

    let report = web.get(&format!("/reports/{cabinet}")).body;
    assert!(report.contains("Northwind Ads"));
    assert!(report.contains(&format!("src=\"/reports/{cabinet}/logo\"")));
    let logo = web.get(&format!("/reports/{cabinet}/logo"));
    assert_eq!(logo.header("content-type"), Some("image/png"));

    let path = share(&web, cabinet, &[]);
    let shared = Browser::new(&app).get(&path).body;
    assert!(shared.contains("Northwind Ads"));
    assert!(
        shared.contains("src=\"data:image/png;base64,iVBORw0KGgo"),
        "{shared}"
    );

    // Someone who does not reach the cabinet sees neither.
    let stranger = logged_in(&app, app.user("pro"));
    assert_eq!(
        stranger.get(&format!("/reports/{cabinet}/logo")).status,
        404
    );
    assert!(
        !stranger.get("/settings").body.contains("agency_name"),
        "no cabinet of their own"
    );
}

/// The text of a PDF, all pages.
fn pdf_text(bytes: &[u8]) -> String {
    let doc = lopdf::Document::load_mem(bytes).expect("a PDF");
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    doc.extract_text(&pages).expect("its text")
}

#[test]
fn a_report_downloads_as_a_pdf_with_its_figures_in_the_readers_language_and_through_its_share_link()
{
    let app = spawn_app();
    let (user, cabinet, _, _, [first, second]) = delivered(&app);
    let web = logged_in(&app, user);
    let path = format!("/reports/{cabinet}?from={first}&to={second}");
    let pdf = web.get(&format!("{path}&format=pdf"));
    assert_eq!(pdf.status, 200, "{}", pdf.body);
    assert_eq!(pdf.header("content-type"), Some("application/pdf"));
    assert_eq!(
        pdf.header("content-disposition"),
        Some(format!("attachment; filename=\"report-{cabinet}-{first}-{second}.pdf\"").as_str())
    );
    let text = pdf_text(&pdf.bytes);
    let (views, clicks, _, _) = stored(&app, cabinet, first, second);
    assert!(views > 1000, "enough views to be written with a separator");
    let en = |n: i64| {
        let s = n.to_string();
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    for want in [
        "Shop".to_string(),
        "Views".into(),
        "Conversions by event".into(),
        en(views),
        en(clicks),
        first.to_string(),
    ] {
        assert!(text.contains(&want), "{want:?} missing from {text}");
    }

    // The same report in Russian, through a share link made in Russian.
    let from = first.to_string();
    let to = second.to_string();
    let shared = share(
        &web,
        cabinet,
        &[
            ("span", "fixed"),
            ("from", &from),
            ("to", &to),
            ("expires_days", "30"),
            ("language", "ru"),
        ],
    );
    let client = Browser::new(&app);
    let ru = client.get(&format!("{shared}?format=pdf"));
    assert_eq!(ru.status, 200, "{}", ru.body);
    let text = pdf_text(&ru.bytes);
    for want in ["Показы", "Кампании", &first.format("%d.%m.%Y").to_string()] {
        assert!(text.contains(want), "{want:?} missing from {text}");
    }
    assert!(!text.contains("Views"), "{text}");
}

#[test]
fn a_persons_time_zone_moves_the_days_of_their_report_and_of_the_links_they_make() {
    let app = spawn_app();
    let (user, cabinet, _, _, [first, second]) = delivered(&app);
    app.sql(&format!(
        "UPDATE users SET time_zone = 'Asia/Tokyo' WHERE id = {user}"
    ));
    let web = logged_in(&app, user);
    // `second` in Tokyo (UTC+9) runs from 15:00 UTC of `first` to 15:00 UTC of `second`.
    let tokyo: i64 = app.scalar(
        &format!(
            "SELECT COALESCE(SUM(views), 0) FROM hourly_stats WHERE account_id = ?1
             AND hour >= '{first}T15:00:00Z' AND hour < '{second}T15:00:00Z'"
        ),
        &[cabinet],
    );
    let (utc, _, _, _) = stored(&app, cabinet, second, second);
    assert_ne!(
        tokyo, utc,
        "the two days differ, so the test can tell them apart"
    );

    let path = format!("/reports/{cabinet}?from={second}&to={second}");
    let rows = csv_rows(&web.get(&format!("{path}&format=csv")).body);
    assert_eq!(row(&rows, "total")["views"], tokyo.to_string());
    assert_eq!(row(&rows, "day")["views"], tokyo.to_string());
    let page = web.get(&path);
    assert!(page.body.contains("days in Asia/Tokyo"), "{}", page.body);

    // A link they make shows the days of their zone to a client without one.
    let day = second.to_string();
    let link = share(
        &web,
        cabinet,
        &[
            ("span", "fixed"),
            ("from", &day),
            ("to", &day),
            ("expires_days", "30"),
        ],
    );
    let client = Browser::new(&app);
    let shared = csv_rows(&client.get(&format!("{link}?format=csv")).body);
    assert_eq!(row(&shared, "total")["views"], tokyo.to_string());
}
