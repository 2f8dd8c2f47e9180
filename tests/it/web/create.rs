//! Creating campaigns in the panel (`/campaigns/new`): who may, one ad of each target type
//! through the create operation the API uses (queued as a task with source `panel`), bulk
//! creation as one task, the preview, the look-ups, and refusals beside their fields in
//! English and Russian.

use adcab::ops::{self, TeamAccess};
use serde_json::Value;

use super::logged_in;
use crate::helpers::{spawn_app, Browser, TestApp};

/// The form's fields every ad needs, for cabinet `account`, with `extra` laid over them.
fn fields<'a>(
    account: &'a str,
    csrf: &'a str,
    extra: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut f = vec![
        ("csrf", csrf),
        ("account_id", account),
        ("title", "Morning news"),
        ("text", "Fresh news every morning"),
        ("promote_url", "https://t.me/alpha_chan"),
        ("cpm", "2.50"),
        ("budget", "20"),
        ("views_per_user", "2"),
    ];
    for (k, v) in extra {
        f.retain(|(name, _)| name != k || ["countries", "languages", "topics"].contains(k));
        f.push((k, v));
    }
    f
}

/// The newest campaign of `account` after the queued tasks ran: its row as JSON columns.
fn newest(app: &TestApp, account: i64) -> (String, Value, i64, i64, i64, String) {
    app.run_tasks();
    let row = app
        .services
        .db
        .read_blocking(move |c| {
            c.query_row(
                "SELECT target_type, targeting, cpm_micros, budget_micros, views_per_user, title
                 FROM campaigns JOIN campaign_counters USING (account_id, ad_id)
                 WHERE account_id = ?1 ORDER BY created_at DESC, ad_id DESC LIMIT 1",
                [account],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                    ))
                },
            )
            .map_err(adcab::store::StoreError::from)
        })
        .unwrap();
    let targeting: Value = serde_json::from_str(&row.1).unwrap();
    (row.0, targeting, row.2, row.3, row.4, row.5)
}

fn manager_page(app: &TestApp) -> (i64, Browser, String) {
    let (user, cabinet, _) = app.manager();
    let web = logged_in(app, user);
    let form = web.get("/campaigns/new");
    assert_eq!(form.status, 200, "{}", form.body);
    let csrf = form.csrf();
    (cabinet, web, csrf)
}

#[test]
fn the_form_offers_only_cabinets_the_person_may_change_with_the_apis_field_names() {
    let app = spawn_app();
    let (user, own, _) = app.manager();
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "ton", "100");
    ops::member_add(&app.services, agency, user, shared, TeamAccess::Viewer).unwrap();
    let web = logged_in(&app, user);
    let page = web.get("/campaigns/new").body;
    assert!(
        page.contains(&format!(r#"<option value="{own}""#)),
        "{page}"
    );
    assert!(
        !page.contains(&format!(r#"<option value="{shared}""#)),
        "a cabinet shared for viewing is not offered"
    );
    for field in [
        "title",
        "text",
        "promote_url",
        "target_type",
        "channels",
        "bots",
        "search_keywords",
        "countries",
        "languages",
        "topics",
        "cpm",
        "budget",
        "daily_budget",
        "views_per_user",
        "schedule.timezone",
        "placement",
        "starts_at",
        "ends_at",
        "website_name",
    ] {
        assert!(
            page.contains(&format!(r#"name="{field}""#)),
            "no field {field}"
        );
    }
    assert!(page.contains(r#"data-limit="160""#), "the text's limit");
}

#[test]
fn a_viewer_has_no_cabinet_to_create_in_and_is_refused_the_form_and_the_post() {
    let app = spawn_app();
    let agency = app.user("agency");
    let shared = app.cabinet(agency, "euro", "100");
    let member = app.user("pro");
    ops::member_add(&app.services, agency, member, shared, TeamAccess::Viewer).unwrap();
    let web = logged_in(&app, member);
    let form = web.get("/campaigns/new");
    assert_eq!(form.status, 403, "{}", form.body);
    let csrf = web.get("/campaigns").csrf();
    let account = shared.to_string();
    let sent = web.post(
        "/campaigns/new",
        &fields(
            &account,
            &csrf,
            &[("target_type", "channels"), ("channels", "@tech_daily")],
        ),
    );
    assert_eq!(sent.status, 403, "{}", sent.body);
    let queued: i64 = app.scalar("SELECT COUNT(*) FROM tasks", &[]);
    assert_eq!(queued, 0);
    let (status, _) = upload(&web, shared, &csrf, b"\x89PNG\r\n\x1a\n0000", "en");
    assert_eq!(status, 403, "a viewer uploads no media");
    let kept: i64 = app.scalar("SELECT COUNT(*) FROM media", &[]);
    assert_eq!(kept, 0);
}

#[test]
fn a_channels_ad_is_created_with_every_field_as_entered() {
    let app = spawn_app();
    let (cabinet, web, csrf) = manager_page(&app);
    let account = cabinet.to_string();
    let sent = web.post(
        "/campaigns/new",
        &fields(
            &account,
            &csrf,
            &[
                ("target_type", "channels"),
                ("channels", "@tech_daily, news_today"),
                ("languages", "en"),
                ("exclude_channels", "@spam_chan"),
                ("bots", "@ignored_bot"),
            ],
        ),
    );
    assert_eq!(sent.status, 303, "{}", sent.body);
    assert_eq!(sent.location.as_deref(), Some("/tasks"));
    let source: String = app.scalar("SELECT source FROM tasks", &[]);
    assert_eq!(source, "panel");
    let (target, targeting, cpm, budget, views, title) = newest(&app, cabinet);
    assert_eq!(target, "channels");
    let channels = targeting["channels"].to_string();
    assert!(
        channels.contains("tech_daily") && channels.contains("news_today"),
        "{targeting}"
    );
    assert_eq!(targeting["languages"], serde_json::json!(["en"]));
    assert!(
        targeting["exclude_channels"]
            .to_string()
            .contains("spam_chan"),
        "{targeting}"
    );
    assert!(
        targeting.get("bots").is_none_or(Value::is_null),
        "another type's field is left out"
    );
    assert_eq!((cpm, budget, views), (2_500_000, 20_000_000, 2));
    assert_eq!(title, "Morning news");
}

#[test]
fn a_bots_ad_is_created_from_the_form() {
    let app = spawn_app();
    let (cabinet, web, csrf) = manager_page(&app);
    let account = cabinet.to_string();
    let sent = web.post(
        "/campaigns/new",
        &fields(
            &account,
            &csrf,
            &[
                ("target_type", "bots"),
                ("bots", "@helper_bot"),
                ("promote_url", "https://t.me/shop_bot?start=ads"),
            ],
        ),
    );
    assert_eq!(sent.status, 303, "{}", sent.body);
    let (target, targeting, ..) = newest(&app, cabinet);
    assert_eq!(target, "bots");
    assert!(
        targeting["bots"].to_string().contains("helper_bot"),
        "{targeting}"
    );
}

#[test]
fn a_users_ad_is_created_with_countries_languages_topics_and_device() {
    let app = spawn_app();
    let (cabinet, web, csrf) = manager_page(&app);
    let account = cabinet.to_string();
    let sent = web.post(
        "/campaigns/new",
        &fields(
            &account,
            &csrf,
            &[
                ("target_type", "users"),
                ("countries", "DE"),
                ("countries", "AT"),
                ("languages", "de"),
                ("topics", "1"),
                ("device", "ios"),
                ("channels", "@not_for_users"),
            ],
        ),
    );
    assert_eq!(sent.status, 303, "{}", sent.body);
    let (target, targeting, ..) = newest(&app, cabinet);
    assert_eq!(target, "users");
    assert_eq!(targeting["countries"], serde_json::json!(["DE", "AT"]));
    assert_eq!(targeting["languages"], serde_json::json!(["de"]));
    assert_eq!(targeting["topics"], serde_json::json!([1]));
    assert_eq!(targeting["device"], "ios");
}

#[test]
fn a_search_ad_is_created_with_its_keywords() {
    let app = spawn_app();
    let (cabinet, web, csrf) = manager_page(&app);
    let account = cabinet.to_string();
    let sent = web.post(
        "/campaigns/new",
        &fields(
            &account,
            &csrf,
            &[
                ("target_type", "search"),
                ("search_keywords", "crypto news, daily digest"),
            ],
        ),
    );
    assert_eq!(sent.status, 303, "{}", sent.body);
    let (target, targeting, ..) = newest(&app, cabinet);
    assert_eq!(target, "search");
    assert_eq!(
        targeting["search_keywords"],
        serde_json::json!(["crypto news", "daily digest"])
    );
}

#[test]
fn one_ad_per_channel_and_per_text_variant_is_queued_as_one_task_in_a_group() {
    let app = spawn_app();
    let (cabinet, web, csrf) = manager_page(&app);
    let account = cabinet.to_string();
    let sent = web.post(
        "/campaigns/new",
        &fields(
            &account,
            &csrf,
            &[
                ("target_type", "channels"),
                ("channels", "@tech_daily\n@news_today"),
                ("per_channel", "on"),
                ("variants", "Second text"),
                ("new_group_name", "Launch"),
            ],
        ),
    );
    assert_eq!(sent.status, 303, "{}", sent.body);
    let tasks: i64 = app.scalar("SELECT COUNT(*) FROM tasks", &[]);
    assert_eq!(tasks, 1, "one task");
    app.run_tasks();
    let made: i64 = app.scalar(
        "SELECT COUNT(*) FROM campaigns c JOIN groups g ON g.id = c.group_id
         WHERE c.account_id = ?1 AND g.name = 'Launch'",
        &[cabinet],
    );
    assert_eq!(made, 4, "two channels times two texts");
    let second: i64 = app.scalar(
        "SELECT COUNT(*) FROM campaigns WHERE account_id = ?1 AND text = 'Second text'",
        &[cabinet],
    );
    assert_eq!(second, 2);
}

#[test]
fn preview_draws_the_ad_and_queues_nothing() {
    let app = spawn_app();
    let (cabinet, web, csrf) = manager_page(&app);
    let account = cabinet.to_string();
    let page = web.post(
        "/campaigns/new",
        &fields(
            &account,
            &csrf,
            &[
                ("target_type", "channels"),
                ("channels", "@tech_daily"),
                ("preview", "1"),
            ],
        ),
    );
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains(r#"class="tg-ad""#), "{}", page.body);
    assert!(page.body.contains("Fresh news every morning"));
    assert!(page.body.contains("Sponsored"));
    assert!(
        page.body.contains("alpha_chan"),
        "the promoted channel's name"
    );
    let tasks: i64 = app.scalar("SELECT COUNT(*) FROM tasks", &[]);
    assert_eq!(tasks, 0);

    let typed = web.get_with(
        "/campaigns/new/preview?text=Hello&promote_url=https%3A%2F%2Ft.me%2Fshop_bot&picture=on",
        &[("accept-language", "ru")],
    );
    assert_eq!(typed.status, 200);
    assert!(
        typed.body.contains(r#"<p class="tg-text">Hello</p>"#)
            && typed.body.contains("Открыть бота")
            && typed.body.contains("tg-avatar"),
        "{}",
        typed.body
    );
}

#[test]
fn a_refusal_shows_beside_its_field_in_english_and_in_russian() {
    let app = spawn_app();
    let (cabinet, web, csrf) = manager_page(&app);
    let account = cabinet.to_string();
    let long = "x".repeat(161);
    let refused = web.post(
        "/campaigns/new",
        &fields(
            &account,
            &csrf,
            &[
                ("target_type", "channels"),
                ("channels", "@tech_daily"),
                ("text", &long),
            ],
        ),
    );
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(
        refused.body.contains(
            r#"<p class="error" role="alert" data-param="text">The text has 161 characters; the platform shows at most 160.</p>"#
        ),
        "{}",
        refused.body
    );
    assert!(refused.body.contains(&long), "the form keeps what was sent");

    let ru = [("accept-language", "ru")];
    let refused = web.post_with(
        "/campaigns/new",
        &fields(
            &account,
            &csrf,
            &[
                ("target_type", "channels"),
                ("channels", "@tech_daily"),
                ("title", ""),
            ],
        ),
        &ru,
    );
    assert_eq!(refused.status, 422);
    assert!(
        refused
            .body
            .contains(r#"data-param="title">Заполните поле «Название».</p>"#),
        "{}",
        refused.body
    );
    let refused = web.post_with(
        "/campaigns/new",
        &fields(
            &account,
            &csrf,
            &[
                ("target_type", "channels"),
                ("channels", "@tech_daily"),
                ("budget", "2"),
            ],
        ),
        &ru,
    );
    assert!(
        refused
            .body
            .contains(r#"data-param="budget">Бюджет — 0 или не меньше 5 EUR.</p>"#),
        "{}",
        refused.body
    );
    let refused = web.post(
        "/campaigns/new",
        &fields(
            &account,
            &csrf,
            &[
                ("target_type", "channels"),
                ("channels", "@tech_daily"),
                ("cpm", "0.10"),
            ],
        ),
    );
    assert!(
        refused
            .body
            .contains(r#"data-param="cpm">The bid is below the platform's minimum of"#),
        "{}",
        refused.body
    );
    let refused = web.post(
        "/campaigns/new",
        &fields(&account, &csrf, &[("target_type", "channels")]),
    );
    assert!(
        refused.body.contains(r#"data-param="channels""#),
        "a channels ad without channels: {}",
        refused.body
    );
    let tasks: i64 = app.scalar("SELECT COUNT(*) FROM tasks", &[]);
    assert_eq!(tasks, 0, "nothing refused was queued");
}

#[test]
fn the_lookup_finds_a_channel_on_the_platform_and_the_link_says_what_it_is() {
    let app = spawn_app();
    let (_, web, _) = manager_page(&app);
    let found = web.get("/campaigns/new/lookup?target_type=channels&q=%40tech_daily");
    assert_eq!(found.status, 200);
    assert!(
        found
            .body
            .contains(r#"data-add="@tech_daily" data-to="channels""#),
        "{}",
        found.body
    );
    let none = web.get("/campaigns/new/lookup?target_type=bots&q=missing_bot");
    assert!(
        none.body.contains("knows no channel or bot"),
        "{}",
        none.body
    );
    let link =
        web.get("/campaigns/new/link?promote_url=https%3A%2F%2Ft.me%2Fshop_bot%3Fstart%3Dads");
    assert!(link.body.contains("A bot: @shop_bot"), "{}", link.body);
    let ru = web.get_with(
        "/campaigns/new/link?promote_url=https%3A%2F%2Fexample.com%2Fx",
        &[("accept-language", "ru")],
    );
    assert!(ru.body.contains("Сайт: example.com"), "{}", ru.body);
}

/// Sends `bytes` as the form's media upload for `account`, with `csrf` in its header; the
/// status and body.
fn upload(web: &Browser, account: i64, csrf: &str, bytes: &[u8], lang: &str) -> (u16, String) {
    let session = web.cookie("adcab_session").expect("a session cookie");
    let answer = ureq::post(&format!(
        "{}/campaigns/new/media?account_id={account}",
        web.root
    ))
    .set("cookie", &format!("adcab_session={session}"))
    .set("x-csrf-token", csrf)
    .set("accept-language", lang)
    .send_bytes(bytes);
    match answer {
        Ok(r) => (r.status(), r.into_string().unwrap()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap()),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn a_picture_uploaded_from_the_form_is_kept_for_the_cabinet_and_carried_by_the_ad() {
    let app = spawn_app();
    let (cabinet, web, csrf) = manager_page(&app);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend_from_slice(&[0u8; 200]);
    let (status, body) = upload(&web, cabinet, &csrf, &png, "en");
    assert_eq!(status, 200, "{body}");
    let at = body.find(r#"data-token=""#).expect("a token") + r#"data-token=""#.len();
    let token = body[at..at + body[at..].find('"').unwrap()].to_string();
    let kept: i64 = app.scalar(
        "SELECT COUNT(*) FROM media WHERE account_id = ?1",
        &[cabinet],
    );
    assert_eq!(kept, 1, "kept for the cabinet");

    let account = cabinet.to_string();
    let sent = web.post(
        "/campaigns/new",
        &fields(
            &account,
            &csrf,
            &[
                ("target_type", "channels"),
                ("channels", "@tech_daily"),
                ("media", &token),
            ],
        ),
    );
    assert_eq!(sent.status, 303, "{}", sent.body);
    app.run_tasks();
    let carried: String = app.scalar(
        "SELECT media_type FROM campaigns WHERE account_id = ?1",
        &[cabinet],
    );
    assert_eq!(carried, "image/png");

    let (status, body) = upload(&web, cabinet, &csrf, b"plain text, not a picture", "ru");
    assert_eq!(status, 422);
    assert!(body.contains("Платформа принимает только файлы"), "{body}");
    let (status, _) = upload(&web, cabinet, "wrong", &png, "en");
    assert_eq!(status, 403, "the CSRF token is checked");
}

#[test]
fn on_telegram_the_lookup_shows_the_channels_title_from_the_platform() {
    let tg = crate::telegram::connected(vec![]);
    let web = logged_in(&tg.app, tg.user);
    let found = web.get(&format!(
        "/campaigns/new/lookup?target_type=channels&q=%40tech_daily&account_id={}",
        tg.cabinet
    ));
    assert_eq!(found.status, 200, "{}", found.body);
    assert!(
        found.body.contains("<strong>Tech Daily</strong>")
            && found.body.contains(r#"data-add="@tech_daily""#),
        "{}",
        found.body
    );
}
