//! The cabinets page as a download: the same cabinets as the page, with the API's figures.

use super::logged_in;
use crate::helpers::{spawn_app, Camp};
use adcab::ops::{self, TeamAccess};

#[test]
fn the_cabinets_download_has_the_apis_balance_and_the_campaigns_by_status() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    app.approved(
        cabinet,
        Camp::channel("Spring launch", "https://t.me/alpha_chan"),
    );
    app.campaign(
        cabinet,
        Camp::channel("Waiting one", "https://t.me/alpha_chan"),
    );
    let web = logged_in(&app, user);

    let page = web.get("/cabinets").body;
    assert!(page.contains("/cabinets?format=csv"), "the download link");
    let csv = web.get_with("/cabinets?format=csv", &[("accept-language", "ru")]);
    assert_eq!(csv.status, 200, "{}", csv.body);
    assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
    let lines: Vec<&str> = csv.body.lines().collect();
    assert_eq!(lines.len(), 2, "a header and the one cabinet: {lines:?}");
    let header: Vec<&str> = lines[0].split(',').collect();
    let row: Vec<&str> = lines[1].split(',').collect();
    let cell = |name: &str| {
        let at = header
            .iter()
            .position(|c| *c == name)
            .unwrap_or_else(|| panic!("{name}"));
        row[at]
    };
    let info = app.get_ok("/account/info", &key)["data"][0].clone();
    assert_eq!(cell("id"), cabinet.to_string());
    assert_eq!(
        cell("balance"),
        info["balance"].as_str().unwrap(),
        "the API's balance"
    );
    assert_eq!(cell("currency"), "EUR");
    assert_eq!(cell("access_level"), "owner", "the same in every language");
    assert_eq!(cell("campaigns_active"), "1");
    assert_eq!(cell("campaigns_in_review"), "1");

    let xlsx = web.get("/cabinets?format=xlsx");
    assert_eq!(xlsx.status, 200);
    assert_eq!(
        xlsx.body.as_bytes().get(..2),
        Some(&b"PK"[..]),
        "a zip workbook"
    );
    assert_eq!(web.get("/cabinets?format=pdf").status, 400);
}

#[test]
fn a_cabinet_offers_a_new_campaign_to_who_may_change_it_only() {
    let app = spawn_app();
    let agency = app.user("agency");
    let own = app.cabinet(agency, "euro", "100");
    let shared = app.cabinet(agency, "euro", "100");
    let member = app.user("pro");
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Viewer).unwrap();

    let owner_page = logged_in(&app, agency).get("/cabinets").body;
    for cabinet in [own, shared] {
        assert!(
            owner_page.contains(&format!("href=\"/campaigns/new?account_id={cabinet}\"")),
            "the owner may create in {cabinet}"
        );
    }
    let viewer_page = logged_in(&app, member).get("/cabinets").body;
    assert!(
        viewer_page.contains(&format!("?account_id={shared}")),
        "the viewer sees it"
    );
    assert!(
        !viewer_page.contains("/campaigns/new"),
        "but is offered no new campaign in it"
    );
}
