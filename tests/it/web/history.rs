//! A campaign's page names who made each change and what it targets: the history says the
//! person (by their email, with the face they used) or the automation rule (by its name),
//! and still reads for rows from before persons were kept, for a person no longer there and
//! for a deleted rule; targeting names a channel by the title a look-up or the platform's
//! answer to the create gave.

use adcab::store::history::{self, Author, Source};
use serde_json::json;

use super::logged_in;
use crate::helpers::{spawn_app, Camp, TestApp};

fn page_of(cabinet: i64, ad: i64) -> String {
    format!("/campaigns/{cabinet}/{ad}")
}

fn record(
    app: &TestApp,
    cabinet: i64,
    ad: i64,
    by: Author,
    action: &str,
    details: serde_json::Value,
) {
    let action = action.to_string();
    app.services
        .db
        .write_blocking(move |tx| {
            history::record(
                tx,
                cabinet,
                ad,
                "2026-01-01T00:00:00Z",
                by,
                &action,
                &details,
            )
        })
        .unwrap();
}

#[test]
fn the_history_names_the_person_and_the_rule_and_reads_old_rows_and_gone_ones() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.active_campaign(cabinet);
    let web = logged_in(&app, user);
    let email: String = app.scalar("SELECT email FROM users WHERE id = ?1", &[user]);
    let csrf = web.get(&page_of(cabinet, ad)).csrf();
    let added = web.post(
        &format!("{}/budget", page_of(cabinet, ad)),
        &[("csrf", &csrf), ("amount", "10"), ("direction", "add")],
    );
    assert_eq!(added.status, 303, "{}", added.body);
    app.sql(&format!(
        "INSERT INTO rules (id, account_id, name, scope, match_all, conditions, action,
            cooldown_hours, max_runs_per_day, enabled, dry_run, created_at, updated_at)
         VALUES (41, {cabinet}, 'Scale winners', '{{}}', 1, '[]', '{{}}', 24, 1, 1, 0, 't', 't'),
                (42, {cabinet}, 'Night pause', '{{}}', 1, '[]', '{{}}', 24, 1, 1, 0, 't', 't'),
                (43, {cabinet}, 'Old rule', '{{}}', 1, '[]', '{{}}', 24, 1, 1, 0, 't', 't');"
    ));
    let rule = |id: i64| Author::from(Source::Automation).with_rule(Some(id));
    let bid = |from: &str, to: &str| json!({ "type": "cpm", "from": from, "to": to });
    // The rule's name then was "Scale up"; the page names it as it is called now.
    record(
        &app,
        cabinet,
        ad,
        rule(41),
        "rule",
        json!({ "rule": 41, "name": "Scale up", "change": bid("2.00", "2.50") }),
    );
    // A rule deleted since, whose change kept its name; one whose change did not.
    record(
        &app,
        cabinet,
        ad,
        rule(42),
        "rule",
        json!({ "rule": 42, "name": "Night pause", "change": { "type": "pause" } }),
    );
    record(
        &app,
        cabinet,
        ad,
        rule(43),
        "rule",
        json!({ "rule": 43, "change": { "type": "resume" } }),
    );
    app.sql("DELETE FROM rules WHERE id IN (42, 43)");
    // A row from before persons were kept, and a person no longer in adcab.
    record(&app, cabinet, ad, Source::Panel.into(), "pause", json!({}));
    record(
        &app,
        cabinet,
        ad,
        Author::person(Source::Api, 999_999),
        "resume",
        json!({}),
    );

    let page = web.get(&page_of(cabinet, ad)).body;
    for sentence in [
        format!("10.00 EUR added to the budget by {email} (panel)"),
        "Bid changed from 2.00 to 2.50 EUR by automation, rule Scale winners".to_string(),
        "Paused by automation, rule Night pause (since deleted)".to_string(),
        "Resumed by automation, a deleted rule (#43)".to_string(),
        "Paused in the panel".to_string(),
        "Resumed by a person no longer in adcab (api)".to_string(),
    ] {
        assert!(page.contains(&sentence), "{sentence} in {page}");
    }

    app.sql(&format!(
        "UPDATE users SET language = 'ru' WHERE id = {user}"
    ));
    let ru = web.get(&page_of(cabinet, ad)).body;
    for sentence in [
        format!("Бюджет пополнен на 10.00 EUR — {email} (панель)"),
        "Ставка CPM изменена с 2.00 до 2.50 EUR — автоматизацией, правило «Scale winners»"
            .to_string(),
        "Поставлена на паузу — автоматизацией, правило «Night pause» (удалено)".to_string(),
        "Возобновлена — автоматизацией, удалённое правило №43".to_string(),
        "Поставлена на паузу — в панели".to_string(),
    ] {
        assert!(ru.contains(&sentence), "{sentence} in {ru}");
    }
}

#[test]
fn a_change_through_the_api_names_the_person_whose_key_made_it() {
    let app = spawn_app();
    let (user, cabinet, key) = app.manager();
    let ad = app.active_campaign(cabinet);
    let email: String = app.scalar("SELECT email FROM users WHERE id = ?1", &[user]);
    let paused = app.write_ok("POST", &format!("/campaigns/{ad}/pause"), &key, None, 200);
    assert_eq!(paused["data"]["active"], false);
    let last = app
        .services
        .db
        .read_blocking(move |c| history::list(c, cabinet, ad))
        .unwrap()
        .pop()
        .unwrap();
    assert_eq!(
        (
            last.action.as_str(),
            last.user_id,
            last.user_email.as_deref()
        ),
        ("pause", Some(user), Some(email.as_str()))
    );
}

#[test]
fn a_looked_up_channels_title_shows_in_the_campaigns_targeting() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let ad = app.approved(
        cabinet,
        Camp {
            targeting: json!({ "channels": ["@daily_news", "@never_looked"] }),
            ..Camp::channel("News", "https://t.me/news_shop")
        },
    );
    // As a campaign stored before titles were kept (making it kept the simulator's).
    app.sql("DELETE FROM peer_titles");
    let web = logged_in(&app, user);
    let before = web.get(&page_of(cabinet, ad)).body;
    assert!(
        before.contains(">@daily_news</a>") && !before.contains("Daily News"),
        "no title before a look-up: {before}"
    );
    let found = web.get(&format!(
        "/campaigns/new/lookup?target_type=channels&q=%40daily_news&account_id={cabinet}"
    ));
    assert!(
        found.body.contains("<strong>Daily News</strong>"),
        "{}",
        found.body
    );

    let after = web.get(&page_of(cabinet, ad)).body;
    assert!(
        after.contains(
            r#"<a href="https://t.me/daily_news" rel="noopener">Daily News <span class="muted">(@daily_news)</span></a>"#
        ),
        "Title (@username): {after}"
    );
    assert!(after.contains(">@never_looked</a>"), "{after}");
}

#[test]
fn on_telegram_a_campaign_made_shows_its_channels_titles_as_the_platform_gave_them() {
    let tg = crate::telegram::connected(vec![]);
    let ad = tg.app.campaign(
        tg.cabinet,
        Camp {
            targeting: json!({ "channels": ["@tech_daily"] }),
            ..Camp::channel("News", "https://t.me/news_shop")
        },
    );
    let web = logged_in(&tg.app, tg.user);
    let page = web.get(&page_of(tg.cabinet, ad)).body;
    assert!(
        page.contains(r#"rel="noopener">Tech Daily <span class="muted">(@tech_daily)</span></a>"#),
        "the title from the platform's answer to the create: {page}"
    );
}
