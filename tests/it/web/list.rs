//! The campaigns list (`/campaigns`): its totals line per currency over every matching
//! campaign, its downloads (CSV compared field by field with `GET /api/v1/campaigns`, XLSX a
//! workbook), the switch, budget and bid forms of each row for a person who may change the
//! cabinet and plain figures for a viewer, and its words in Russian.

use adcab::ops::{self, TeamAccess};
use rust_decimal::Decimal;

use super::logged_in;
use crate::helpers::{spawn_app, Camp, TestApp};

/// Sets a campaign's delivery and money as the sync would have stored them.
fn delivered(
    app: &TestApp,
    account: i64,
    ad: i64,
    views: i64,
    clicks: i64,
    actions: i64,
    spent: i64,
) {
    app.sql(&format!(
        "UPDATE campaign_counters SET views = {views}, opens = {clicks}, clicks = {clicks},
            actions = {actions}, spent_micros = {spent}
         WHERE account_id = {account} AND ad_id = {ad}"
    ));
}

/// The page's `<tfoot>`: the totals lines.
fn tfoot(body: &str) -> &str {
    let from = body
        .find("<tfoot>")
        .unwrap_or_else(|| panic!("no totals: {body}"));
    let to = body[from..].find("</tfoot>").unwrap() + from;
    &body[from..to]
}

/// The `<tr>` whose id is `id`.
fn row<'a>(body: &'a str, id: &str) -> &'a str {
    let from = body
        .find(&format!(r#"<tr id="{id}""#))
        .unwrap_or_else(|| panic!("no row {id}: {body}"));
    let to = body[from..].find("</tr>").unwrap() + from;
    &body[from..to]
}

#[test]
fn the_totals_line_sums_every_matching_campaign_not_only_the_page_per_currency() {
    let app = spawn_app();
    let (user, euro, _) = app.manager();
    let ton = app.cabinet(user, "ton", "100");
    let a = app.approved(euro, Camp::channel("Alpha", "https://t.me/alpha_chan"));
    let b = app.approved(euro, Camp::channel("Beta", "https://t.me/alpha_chan"));
    let c = app.approved(ton, Camp::channel("Gamma", "https://t.me/alpha_chan"));
    delivered(&app, euro, a, 3_000, 30, 6, 6_000_000);
    delivered(&app, euro, b, 1_000, 10, 2, 2_600_000);
    delivered(&app, ton, c, 500, 5, 1, 1_000_000);
    app.sql(&format!(
        "INSERT INTO conversion_totals (account_id, ad_id, event_type, currency, count)
         VALUES ({euro}, {a}, 'lead', '', 3), ({euro}, {b}, 'purchase', '', 2)"
    ));
    let web = logged_in(&app, user);

    // One campaign a page: the totals still cover all three.
    let page = web.get("/campaigns?limit=1&sortBy=title&sortOrder=asc");
    assert_eq!(page.status, 200);
    assert_eq!(
        page.body.matches("<tr id=\"c-").count(),
        1,
        "one row on the page"
    );
    let totals = tfoot(&page.body);
    let lines: Vec<&str> = totals.split(r#"<tr class="totals">"#).skip(1).collect();
    assert_eq!(lines.len(), 2, "one line per currency: {totals}");
    let eur = lines
        .iter()
        .find(|l| l.contains("Total, EUR"))
        .expect("EUR");
    for (column, value) in [
        ("Spent", "8.60\u{a0}EUR"),
        ("Views", "4,000"),
        ("Clicks", "40"),
        ("CTR", "1.00%"),
        ("CPM", "2.15\u{a0}EUR"),
        ("Actions", "8"),
        ("Conversions", "5"),
        ("Budget", "20.00\u{a0}EUR"),
    ] {
        assert!(
            eur.contains(&format!(r#"data-label="{column}">{value}<"#)),
            "{column} {value}: {eur}"
        );
    }
    assert!(eur.contains("2 campaigns"), "{eur}");
    let ton_line = lines
        .iter()
        .find(|l| l.contains("Total, TON"))
        .expect("TON");
    assert!(
        ton_line.contains(r#"data-label="Spent">1.00"#),
        "{ton_line}"
    );
    assert!(
        ton_line.contains(r#"data-label="Views">500<"#),
        "{ton_line}"
    );

    // The filters narrow the totals as they narrow the list.
    let one = web.get("/campaigns?title=Beta");
    let totals = tfoot(&one.body);
    assert!(totals.contains(r#"data-label="Spent">2.60"#), "{totals}");
    assert!(!totals.contains("Total, TON"), "{totals}");
}

/// A CSV line split on commas (the test's titles hold none).
fn fields(line: &str) -> Vec<String> {
    line.split(',').map(str::to_string).collect()
}

#[test]
fn the_csv_download_holds_every_matching_campaign_with_the_apis_figures_in_the_pages_sort() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ads: Vec<i64> = ["One", "Two", "Three"]
        .iter()
        .map(|t| app.approved(cabinet, Camp::channel(t, "https://t.me/alpha_chan")))
        .collect();
    delivered(&app, cabinet, ads[0], 1_234, 17, 3, 2_468_123);
    delivered(&app, cabinet, ads[1], 9_000, 0, 0, 18_000_000);
    delivered(&app, cabinet, ads[2], 0, 0, 0, 0);
    app.sql(&format!(
        "INSERT INTO conversion_totals (account_id, ad_id, event_type, currency, count,
            amount_high, amount_low)
         VALUES ({cabinet}, {}, 'purchase', 'USD', 2, 0, 12500000)",
        ads[0]
    ));
    let web = logged_in(&app, user);

    // The page shows one campaign; the download has all, in the page's sort.
    let query = "sortBy=views&sortOrder=desc&limit=1";
    let csv = web.get(&format!("/campaigns?{query}&format=csv"));
    assert_eq!(csv.status, 200, "{}", csv.body);
    assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
    assert!(csv
        .header("content-disposition")
        .is_some_and(|d| d.contains("campaigns.csv")));
    let lines: Vec<&str> = csv.body.split("\r\n").filter(|l| !l.is_empty()).collect();
    let header = fields(lines[0]);
    assert_eq!(&header[..4], ["ad_id", "account_id", "title", "status"]);
    let api = app.get_ok("/campaigns?sortBy=views&sortOrder=desc", &key)["data"].clone();
    let api = api.as_array().unwrap();
    assert_eq!(lines.len() - 1, api.len(), "every campaign: {}", csv.body);
    assert_eq!(api.len(), 3);
    for (line, object) in lines[1..].iter().zip(api) {
        let cells = fields(line);
        let cell = |name: &str| {
            let at = header
                .iter()
                .position(|h| h == name)
                .unwrap_or_else(|| panic!("{name}"));
            cells[at].clone()
        };
        let number = |v: &str| {
            v.parse::<Decimal>()
                .unwrap_or_else(|_| panic!("{v} in {line}"))
        };
        for name in ["title", "status"] {
            assert_eq!(
                cell(name),
                object[name].as_str().unwrap(),
                "{name} in {line}"
            );
        }
        for name in ["ad_id", "account_id", "views", "opens", "clicks", "actions"] {
            assert_eq!(cell(name), object[name].to_string(), "{name} in {line}");
        }
        for name in ["budget", "cpm", "spent", "ctr", "cpc", "cpa", "cvr"] {
            assert_eq!(
                number(&cell(name)),
                number(object[name].as_str().unwrap()),
                "{name} in {line} against {object}"
            );
        }
        for event in ["lead", "conversion", "purchase"] {
            assert_eq!(
                cell(&format!("conversions.{event}")),
                object["conversions"][event].to_string()
            );
        }
        match object["revenue"].as_object().unwrap().iter().next() {
            Some((currency, amount)) => {
                assert_eq!(cell("revenue_currency"), *currency);
                assert_eq!(number(&cell("revenue")), number(amount.as_str().unwrap()));
            }
            None => assert_eq!(cell("revenue"), ""),
        }
    }
    assert_eq!(
        fields(lines[1])[0],
        ads[1].to_string(),
        "the most viewed first"
    );
    assert!(
        lines[1..].iter().any(|l| l.contains(",2.468123,")),
        "spend exact, as the API has it: {}",
        csv.body
    );

    let filtered = web.get("/campaigns?title=Two&format=csv").body;
    assert_eq!(filtered.split("\r\n").filter(|l| !l.is_empty()).count(), 2);
    assert!(filtered.contains(",Two,"), "{filtered}");
    assert_eq!(web.get("/campaigns?format=pdf").status, 400);
}

#[test]
fn the_xlsx_download_is_a_workbook() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let session = web.cookie(adcab::panel::session::COOKIE).unwrap();
    let answer = ureq::get(&format!("{}/campaigns?format=xlsx", web.root))
        .set(
            "cookie",
            &format!("{}={session}", adcab::panel::session::COOKIE),
        )
        .call()
        .expect("the download");
    assert_eq!(
        answer.header("content-type"),
        Some("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    );
    assert!(answer
        .header("content-disposition")
        .is_some_and(|d| d.contains("campaigns.xlsx")));
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut answer.into_reader(), &mut bytes).unwrap();
    assert_eq!(&bytes[..4], b"PK\x03\x04", "a zip");
    assert!(
        bytes.windows(14).any(|w| w == b"xl/workbook.xm"),
        "a workbook inside"
    );
}

#[test]
fn a_writer_gets_the_switch_budget_and_bid_forms_in_each_row_posting_back_to_the_list() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let on = app.active_campaign(cabinet);
    let off = app.active_campaign(cabinet);
    app.sql(&format!(
        "UPDATE campaigns SET active = 0, status = 'On Hold'
         WHERE account_id = {cabinet} AND ad_id = {off}"
    ));
    let web = logged_in(&app, user);
    let page = web.get("/campaigns?status=Active,On%20Hold&sortBy=title&sortOrder=asc");
    assert_eq!(page.status, 200);
    let csrf = page.csrf();
    let back = "/campaigns?status=Active%2COn%20Hold&amp;sortBy=title&amp;sortOrder=asc";
    assert!(
        page.body.contains(r#"href="/campaigns/new""#),
        "New campaign"
    );

    for (ad, action) in [(on, "pause"), (off, "resume")] {
        let id = format!("c-{cabinet}-{ad}");
        let line = row(&page.body, &id);
        let base = format!("/campaigns/{cabinet}/{ad}");
        for (target, fields) in [
            (format!("{base}/{action}"), vec![]),
            (
                format!("{base}/budget"),
                vec![
                    r#"name="amount""#,
                    r#"name="direction" value="add""#,
                    r#"name="direction" value="withdraw""#,
                ],
            ),
            (format!("{base}/cpm"), vec![r#"name="cpm""#]),
        ] {
            let from = line
                .find(&format!(r#"action="{target}""#))
                .unwrap_or_else(|| panic!("no form to {target}: {line}"));
            let form = &line[from..from + line[from..].find("</form>").unwrap()];
            assert!(form.contains(&format!(r#"hx-post="{target}""#)), "{form}");
            assert!(form.contains(&format!(r##"hx-target="#{id}""##)), "{form}");
            assert!(form.contains(&format!(r##"hx-select="#{id}""##)), "{form}");
            assert!(
                form.contains(&format!(r#"name="csrf" value="{csrf}""#)),
                "{form}"
            );
            assert!(
                form.contains(&format!(r#"name="back" value="{back}""#)),
                "{form}"
            );
            for field in fields {
                assert!(form.contains(field), "{field}: {form}");
            }
        }
        let checked = if ad == on { "true" } else { "false" };
        assert!(
            line.contains(&format!(r#"role="switch" aria-checked="{checked}""#)),
            "{line}"
        );
    }
    assert!(
        row(&page.body, &format!("c-{cabinet}-{on}"))
            .contains(r#"name="cpm" min="0" step="0.01" required value="2.00""#),
        "the bid's field holds the bid"
    );
}

#[test]
fn a_viewer_sees_plain_figures_and_no_form_in_any_row() {
    let app = spawn_app();
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "euro", "100");
    let ad = app.active_campaign(shared);
    let member = app.user("pro");
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Viewer).unwrap();

    let viewer = logged_in(&app, member);
    let page = viewer.get("/campaigns");
    assert_eq!(page.status, 200);
    let line = row(&page.body, &format!("c-{shared}-{ad}"));
    assert!(!line.contains("<form"), "no form: {line}");
    assert!(!line.contains("role=\"switch\""), "{line}");
    assert!(line.contains(r#"data-label="Budget">10.00"#), "{line}");
    assert!(line.contains(r#"data-label="Bid (CPM)">2.00"#), "{line}");
    assert!(
        !page.body.contains(r#"href="/campaigns/new""#),
        "nothing to create in"
    );

    let owner = logged_in(&app, agency);
    let line = owner.get("/campaigns").body;
    assert!(
        row(&line, &format!("c-{shared}-{ad}"))
            .contains(&format!(r#"action="/campaigns/{shared}/{ad}/pause""#)),
        "the owner has the forms"
    );
}

#[test]
fn the_list_reads_in_russian_with_figures_written_the_russian_way() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    delivered(&app, cabinet, ad, 12_345, 120, 7, 24_690_000);
    let web = logged_in(&app, user);
    let page = web.get_with("/campaigns", &[("accept-language", "ru-RU,ru;q=0.9")]);
    assert!(page.body.contains(r#"<html lang="ru""#));
    for words in [
        "Кампании",
        "Итого, EUR",
        r#"data-label="Расход""#,
        "Ставка CPM",
        "Новая кампания",
        "Скачать",
    ] {
        assert!(page.body.contains(words), "{words}");
    }
    let line = row(&page.body, &format!("c-{cabinet}-{ad}"));
    assert!(
        line.contains("data-label=\"Показы\">12\u{a0}345<"),
        "thousands grouped the Russian way: {line}"
    );
    assert!(line.contains("24,69\u{a0}EUR"), "a decimal comma: {line}");
}

#[test]
fn a_refused_row_action_shows_in_its_row_of_the_list_in_the_persons_language() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let other = app.active_campaign(cabinet);
    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {user}"
    ));
    let web = logged_in(&app, user);
    let list = "/campaigns?sortBy=title&sortOrder=asc";
    let csrf = web.get(list).csrf();
    let id = format!("c-{cabinet}-{ad}");
    let base = format!("/campaigns/{cabinet}/{ad}");

    for (action, fields, param) in [
        (
            "budget",
            vec![("amount", "12,3,4"), ("direction", "add")],
            "amount",
        ),
        ("cpm", vec![("cpm", "two")], "cpm"),
    ] {
        let mut sent = vec![("csrf", csrf.as_str()), ("back", list)];
        sent.extend(fields.iter().copied());
        let answer = web.post(&format!("{base}/{action}"), &sent);
        assert_eq!(answer.status, 422, "{}", answer.body);
        assert!(answer.body.contains(r#"<html lang="ru""#), "Russian");
        assert!(
            answer.body.contains("campaign-list"),
            "the list again, not the campaign's page: {}",
            answer.body
        );
        let line = row(&answer.body, &id);
        assert!(
            line.contains(&format!(r#"role="alert" data-param="{param}""#)),
            "{action}: the refusal in its row: {line}"
        );
        assert!(
            line.contains("нужно число"),
            "{action}, why in Russian: {line}"
        );
        assert!(
            line.contains("<details class=\"inline\" open"),
            "opened: {line}"
        );
        assert!(
            !row(&answer.body, &format!("c-{cabinet}-{other}")).contains("role=\"alert\""),
            "only in the row it came from"
        );
        assert!(
            line.contains(r#"name="back" value="/campaigns?sortBy=title&amp;sortOrder=asc""#),
            "the forms still come back to the list: {line}"
        );
    }
    let budget: i64 = app.scalar(
        "SELECT budget_micros FROM campaign_counters WHERE account_id = ?1 AND ad_id = ?2",
        &[cabinet, ad],
    );
    assert_eq!(budget, 10_000_000, "nothing moved");

    // From the campaign's own page the refusal stays on that page.
    let own = web.post(
        &format!("{base}/budget"),
        &[
            ("csrf", &csrf),
            ("back", &base),
            ("amount", "12,3,4"),
            ("direction", "add"),
        ],
    );
    assert_eq!(own.status, 422);
    assert!(!own.body.contains("campaign-list"), "the campaign's page");
    assert!(own.body.contains(r#"data-param="amount""#));
}
