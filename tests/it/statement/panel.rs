//! The statement in the panel: linked from the report and the money page, the month picker,
//! the figures in English and in Russian, the CSV download, a month not begun refused with the
//! picker kept, and nothing for someone who does not reach the cabinet.

use super::sim::{a_busy_month, agency};
use crate::web::logged_in;

#[test]
fn the_statement_page_reads_in_both_languages_and_downloads_as_csv() {
    let (app, _main, client, key) = agency();
    let (month, ad) = a_busy_month(&app, &key, client);
    let owner: i64 = app.scalar("SELECT owner_id FROM cabinets WHERE id = ?1", &[client]);
    let web = logged_in(&app, owner);
    let path = format!("/reports/{client}/statement");
    assert!(web.get(&format!("/reports/{client}")).body.contains(&path));
    assert!(web
        .get(&format!("/cabinets/{client}/money"))
        .body
        .contains(&path));

    let page = web.get_with(
        &format!("{path}?month={month}"),
        &[("accept-language", "en")],
    );
    assert_eq!(page.status, 200, "{}", page.body);
    for text in [
        "Opening balance",
        "Closing balance",
        "Into campaign budgets",
        "Spring launch",
        "The main account",
        "nothing to reconcile",
        "type=\"month\"",
    ] {
        assert!(page.body.contains(text), "{text}: {}", page.body);
    }
    let ru = web.get_with(
        &format!("{path}?month={month}"),
        &[("accept-language", "ru")],
    );
    for text in [
        "Остаток на начало",
        "Остаток на конец",
        "В бюджеты кампаний",
        "Основной счёт",
    ] {
        assert!(ru.body.contains(text), "{text}");
    }
    assert!(ru.body.contains("67,50"), "money written the Russian way");

    let csv = web.get(&format!("{path}?month={month}&format=csv"));
    assert_eq!(csv.status, 200);
    let rows: Vec<Vec<&str>> = csv.body.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows[0][..7],
        ["section", "at", "kind", "ad_id", "title", "currency", "amount"]
    );
    let find = |section: &str, kind: &str| {
        rows.iter()
            .find(|r| r[0] == section && r[2] == kind)
            .unwrap_or_else(|| panic!("{section} {kind}: {}", csv.body))
            .clone()
    };
    assert_eq!(find("opening", "")[6], "0");
    assert_eq!(find("closing", "")[6], "67.5");
    assert_eq!(find("line", "to_campaign")[3], ad.to_string());
    assert_eq!(find("total", "transfer_in")[6], "100.5");

    let later = super::month_of(app.now() + chrono::Duration::days(40));
    let refused = web.get(&format!("{path}?month={later}"));
    assert_eq!(refused.status, 422);
    assert!(refused.body.contains("has not begun"), "{}", refused.body);
    assert!(refused.body.contains("name=\"month\""), "the picker stays");
    let bad = web.get_with(&format!("{path}?month=May"), &[("accept-language", "ru")]);
    assert_eq!(bad.status, 422);
    assert!(bad.body.contains("ГГГГ-ММ"));

    let stranger = app.user("pro");
    let other = logged_in(&app, stranger);
    assert_eq!(other.get(&format!("{path}?month={month}")).status, 404);
    assert_eq!(
        other
            .get(&format!("{path}?month={month}&format=csv"))
            .status,
        404
    );
}
