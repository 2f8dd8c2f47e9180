//! People in the panel: an agency owner invites by email (the person created when new, a
//! one-time link shown once that works once, for 72 hours of the service clock, and signs
//! them in), the operator's reset link from the command line (a new password, the person's
//! other sessions ended), and a person's own settings with each refusal beside its field.

use std::path::Path;
use std::process::Command;

use crate::alerts::bot_fake;

use super::{access, logged_in, with_login, PASSWORD};
use crate::helpers::{spawn_app, spawn_app_with, Browser, Page, TestApp};
use adcab::store::users;

const NEW_PASSWORD: &str = "a brand new passphrase";

/// The one-time link's path shown on the page after an invitation, if any.
fn shown_link(page: &Page) -> Option<String> {
    let at = page.body.find("/invite/")?;
    let rest = &page.body[at..];
    Some(rest[..rest.find('"')?].to_string())
}

fn user_by_email(app: &TestApp, email: &str) -> Option<users::User> {
    let email = email.to_string();
    app.services
        .db
        .read_blocking(move |c| users::by_email(c, &email))
        .unwrap()
}

fn invitation_hashes(app: &TestApp, user: i64) -> Vec<String> {
    app.services
        .db
        .read_blocking(move |c| {
            let mut stmt = c.prepare("SELECT token_hash FROM invitations WHERE user_id = ?1")?;
            let rows = stmt.query_map([user], |r| r.get(0))?;
            Ok::<_, adcab::store::StoreError>(rows.collect::<rusqlite::Result<Vec<String>>>()?)
        })
        .unwrap()
}

/// An agency owner with one euro cabinet, logged in: (owner, cabinet, browser).
fn agency(app: &TestApp) -> (i64, i64, Browser) {
    let owner = app.user("agency");
    let cabinet = app.cabinet(owner, "euro", "100");
    let web = logged_in(app, owner);
    (owner, cabinet, web)
}

fn invite(web: &Browser, email: &str, cabinet: i64, access: &str) -> Page {
    let csrf = web.get("/team").csrf();
    web.post(
        "/team/invite",
        &[
            ("csrf", &csrf),
            ("email", email),
            ("cabinet", &cabinet.to_string()),
            ("access", access),
        ],
    )
}

/// Sets the password through the link's page in a fresh browser; the answer and the browser.
fn accept(app: &TestApp, path: &str, password: &str, again: &str) -> (Page, Browser) {
    let web = Browser::new(app);
    let form = web.get(path);
    assert_eq!(form.status, 200, "{}", form.body);
    let csrf = form.csrf();
    let sent = web.post(
        path,
        &[
            ("csrf", &csrf),
            ("password", password),
            ("password_again", again),
        ],
    );
    (sent, web)
}

#[test]
fn inviting_a_new_email_creates_the_person_with_a_link_shown_once_that_works_once_and_signs_them_in(
) {
    let app = spawn_app();
    let (_, cabinet, owner) = agency(&app);
    let made = invite(&owner, "Anna@Agency.example", cabinet, "manager");
    assert_eq!(made.status, 200, "{}", made.body);
    let person = user_by_email(&app, "anna@agency.example").expect("the person was created");
    assert_eq!(access(&app, person.id, cabinet).as_deref(), Some("manager"));
    assert!(made.body.contains("was created"), "{}", made.body);
    let path = shown_link(&made).expect("the link is on the page");
    assert_eq!(path.len(), "/invite/".len() + 64, "{path}");
    assert_eq!(made.header("cache-control"), Some("no-store"));
    let token = path.trim_start_matches("/invite/");
    let hashes = invitation_hashes(&app, person.id);
    assert_eq!(
        hashes,
        vec![adcab::primitives::sha256_hex(token)],
        "only the hash is stored"
    );
    let again = owner.get("/team");
    assert!(!again.body.contains(token), "shown once");
    assert!(again.body.contains("Has not set a password yet"));

    let web = Browser::new(&app);
    let form = web.get(&path);
    assert!(
        form.body.contains("Anna@Agency.example"),
        "who it is for, as typed"
    );
    let csrf = form.csrf();
    let post = |password: &str, again: &str| {
        web.post(
            &path,
            &[
                ("csrf", &csrf),
                ("password", password),
                ("password_again", again),
            ],
        )
    };
    let short = post("short", "short");
    assert_eq!(short.status, 422);
    assert!(short.body.contains(r#"data-param="password""#));
    let differ = post(NEW_PASSWORD, "another passphrase");
    assert_eq!(differ.status, 422);
    assert!(differ.body.contains(r#"data-param="password_again""#));
    let done = post(NEW_PASSWORD, NEW_PASSWORD);
    assert_eq!(done.status, 303, "{}", done.body);
    assert_eq!(done.location.as_deref(), Some("/"));
    assert!(web.cookie("adcab_session").is_some(), "signed in");
    let cabinets = web.get("/cabinets");
    assert_eq!(cabinets.status, 200);
    assert!(cabinets.body.contains("Anna@Agency.example"));
    assert!(cabinets.body.contains(&format!("account_id={cabinet}")));

    let spent = Browser::new(&app).get(&path);
    assert_eq!(spent.status, 404);
    assert!(spent.body.contains("unknown, already used or expired"));
    let other = Browser::new(&app);
    let csrf = other.get("/login").csrf();
    let used_again = other.post(
        &path,
        &[
            ("csrf", &csrf),
            ("password", "someone else's choice"),
            ("password_again", "someone else's choice"),
        ],
    );
    assert_eq!(used_again.status, 404, "works once");
    assert_eq!(
        Browser::new(&app)
            .login("anna@agency.example", NEW_PASSWORD)
            .status,
        303
    );
}

#[test]
fn inviting_an_existing_person_shares_the_cabinet_and_gives_a_link_only_to_one_this_owner_invited()
{
    let app = spawn_app();
    let (_, cabinet, owner) = agency(&app);
    let known = app.user("pro");
    let known_email = with_login(&app, known);
    let made = invite(&owner, &known_email.to_uppercase(), cabinet, "viewer");
    assert_eq!(made.status, 200, "{}", made.body);
    assert!(made.body.contains("No link was made"), "{}", made.body);
    assert_eq!(shown_link(&made), None, "no link to their account");
    assert_eq!(access(&app, known, cabinet).as_deref(), Some("viewer"));
    let users: i64 = app.scalar("SELECT COUNT(*) FROM users WHERE id > ?1", &[0]);
    assert_eq!(users, 2, "no one created");
    let member = logged_in(&app, known);
    assert!(member
        .get("/cabinets")
        .body
        .contains(&format!("account_id={cabinet}")));

    // An account the operator made, without a password: the owner gets no key to it.
    let operators = app.user("free");
    let made = invite(
        &owner,
        &user_by_email_of(&app, operators),
        cabinet,
        "viewer",
    );
    assert_eq!(made.status, 200);
    assert_eq!(shown_link(&made), None, "{}", made.body);
    assert_eq!(access(&app, operators, cabinet).as_deref(), Some("viewer"));
    assert!(!owner
        .get("/team")
        .body
        .contains(&format!("/team/{operators}/link")));

    // Someone this owner invited and who has not come yet: invited again, a new link.
    let first = shown_link(&invite(&owner, "slow@example.com", cabinet, "viewer")).unwrap();
    let fresh = user_by_email(&app, "slow@example.com").unwrap().id;
    let made = invite(&owner, "slow@example.com", cabinet, "manager");
    assert!(
        made.body.contains("was added to your team"),
        "{}",
        made.body
    );
    let second = shown_link(&made).expect("a new link for them");
    assert_ne!(first, second);
    assert_eq!(Browser::new(&app).get(&first).status, 404, "replaced");
    let csrf = owner.get("/team").csrf();
    let renewed = owner.post(&format!("/team/{fresh}/link"), &[("csrf", &csrf)]);
    assert_eq!(renewed.status, 200, "{}", renewed.body);
    let third = shown_link(&renewed).expect("a new link from the member's row");
    assert_eq!(Browser::new(&app).get(&second).status, 404, "replaced");
    let (done, _) = accept(&app, &third, NEW_PASSWORD, NEW_PASSWORD);
    assert_eq!(done.status, 303);
    let refused = owner.post(&format!("/team/{operators}/link"), &[("csrf", &csrf)]);
    assert_eq!(refused.status, 422, "not invited by this owner");
    let refused = owner.post(&format!("/team/{fresh}/link"), &[("csrf", &csrf)]);
    assert_eq!(refused.status, 422, "they have a password now");
}

fn user_by_email_of(app: &TestApp, id: i64) -> String {
    app.services
        .db
        .read_blocking(move |c| users::get(c, id))
        .unwrap()
        .unwrap()
        .email
}

#[test]
fn an_invitation_link_goes_to_the_persons_telegram_chat_or_the_page_says_it_did_not() {
    let bot = bot_fake::FakeBot::start("123456:test-token");
    let url = bot.url.clone();
    let app = spawn_app_with(move |c| {
        c.notify.bot_api_url = url;
        c.notify.bot_token = "123456:test-token".into();
        c.panel.public_url = "https://ads.example".into();
    });
    let (_, cabinet, owner) = agency(&app);
    // Invited once (a new person has no chat yet), the chat linked, then invited again.
    let invite_with_chat = |chat: Option<i64>| {
        let email = format!("chat{}@example.com", chat.unwrap_or(0));
        let first = invite(&owner, &email, cabinet, "viewer");
        assert!(first.body.contains("no Telegram chat linked"));
        let person = user_by_email(&app, &email).unwrap().id;
        if let Some(chat) = chat {
            adcab::ops::user_set_chat(&app.services, person, &chat.to_string()).unwrap();
        }
        invite(&owner, &email, cabinet, "viewer")
    };
    bot.add_chat(555);
    let sent = invite_with_chat(Some(555));
    assert!(
        sent.body.contains("also sent to their Telegram chat"),
        "{}",
        sent.body
    );
    let path = shown_link(&sent).unwrap();
    let told = bot.messages_to(555);
    assert_eq!(told.len(), 1);
    assert!(
        told[0].text.contains(&format!("https://ads.example{path}")),
        "{}",
        told[0].text
    );
    bot.add_chat(777);
    bot.block(777);
    let blocked = invite_with_chat(Some(777));
    assert!(
        blocked.body.contains("could not be sent"),
        "{}",
        blocked.body
    );
    assert!(shown_link(&blocked).is_some(), "the link is still shown");
    let no_chat = invite_with_chat(None);
    assert!(no_chat.body.contains("no Telegram chat linked"));
}

#[test]
fn an_invitation_refuses_a_bad_email_a_foreign_cabinet_and_the_owner_beside_the_fields() {
    let app = spawn_app();
    let (owner_id, cabinet, owner) = agency(&app);
    let (_, foreign, _) = app.manager();
    let bad = invite(&owner, "not an email", cabinet, "viewer");
    assert_eq!(bad.status, 422);
    assert!(bad.body.contains(r#"data-param="email""#));
    let theirs = invite(&owner, "bob@example.com", foreign, "viewer");
    assert_eq!(theirs.status, 422);
    assert!(theirs.body.contains(r#"data-param="cabinet""#));
    assert!(theirs.body.contains(r#"value="bob@example.com""#), "kept");
    assert_eq!(user_by_email(&app, "bob@example.com").map(|u| u.id), None);
    let own = user_by_email_of(&app, owner_id);
    let me = invite(&owner, &own, cabinet, "viewer");
    assert_eq!(me.status, 422, "{own}");
    assert!(me.body.contains(r#"data-param="email""#));
}

#[test]
fn an_invitation_link_works_for_72_hours_of_the_service_clock() {
    let app = spawn_app();
    let (_, cabinet, owner) = agency(&app);
    let path = shown_link(&invite(&owner, "late@example.com", cabinet, "viewer")).unwrap();
    adcab::ops::sim_advance(&app.services, 71 * 3600).unwrap();
    assert_eq!(Browser::new(&app).get(&path).status, 200, "71 hours on");
    adcab::ops::sim_advance(&app.services, 2 * 3600).unwrap();
    let web = Browser::new(&app);
    let expired = web.get(&path);
    assert_eq!(expired.status, 404);
    assert!(expired.body.contains("unknown, already used or expired"));
    let csrf = web.get("/login").csrf();
    let sent = web.post(
        &path,
        &[
            ("csrf", &csrf),
            ("password", NEW_PASSWORD),
            ("password_again", NEW_PASSWORD),
        ],
    );
    assert_eq!(sent.status, 404);
    let late = user_by_email(&app, "late@example.com").unwrap().id;
    let hash: Option<String> = app.scalar("SELECT password_hash FROM users WHERE id = ?1", &[late]);
    assert_eq!(hash, None, "no password was set");
}

#[test]
fn guessing_links_is_limited_like_signing_in() {
    let app = spawn_app_with(|c| c.panel.login_failures_per_address = 3);
    let web = Browser::new(&app);
    for i in 0..3 {
        assert_eq!(web.get(&format!("/invite/{:064x}", i)).status, 404);
    }
    let limited = web.get(&format!("/invite/{:064x}", 9));
    assert_eq!(limited.status, 429);
    assert!(limited.header("retry-after").is_some());
}

#[test]
fn a_person_who_does_not_own_an_agency_cannot_invite() {
    let app = spawn_app();
    let (agency_owner, cabinet, _) = agency(&app);
    let manager = app.user("pro");
    adcab::ops::member_add(
        &app.services,
        agency_owner,
        manager,
        cabinet,
        adcab::ops::TeamAccess::Manager,
    )
    .unwrap();
    let web = logged_in(&app, manager);
    assert_eq!(web.get("/team").status, 403);
    let csrf = web.get("/settings").csrf();
    let refused = web.post(
        "/team/invite",
        &[
            ("csrf", &csrf),
            ("email", "new@example.com"),
            ("cabinet", &cabinet.to_string()),
            ("access", "manager"),
        ],
    );
    assert_eq!(refused.status, 403);
    assert!(user_by_email(&app, "new@example.com").is_none());
    let link = web.post(&format!("/team/{manager}/link"), &[("csrf", &csrf)]);
    assert_eq!(link.status, 403);
}

/// Writes a config for the command line over the test server's database.
fn cli_config(app: &TestApp, public_url: &str) -> std::path::PathBuf {
    let path = app.dir.path().join("cli.toml");
    let text = format!(
        "[storage]\npath = \"{}\"\n[demo]\nbootstrap = false\n[panel]\npublic_url = \"{public_url}\"\n",
        app.services.config.storage.path.display()
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn reset_link(config: &Path, id: i64) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_adcab"))
        .arg("--config")
        .arg(config)
        .args(["admin", "user", "reset-link", "--id", &id.to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_reset_link_from_the_command_line_sets_a_new_password_and_ends_other_sessions() {
    let app = spawn_app();
    let (user, _, _) = app.manager();
    let email = with_login(&app, user);
    let elsewhere = Browser::new(&app);
    assert_eq!(elsewhere.login(&email, PASSWORD).status, 303);
    assert_eq!(elsewhere.get("/campaigns").status, 200);
    let config = cli_config(&app, "https://ads.example/");
    let printed = reset_link(&config, user);
    let link = printed["link"].as_str().unwrap();
    let path = link
        .strip_prefix("https://ads.example")
        .expect("under the public URL")
        .to_string();
    assert!(path.starts_with("/invite/"), "{link}");
    let form = Browser::new(&app).get(&path);
    assert!(form.body.contains("Choose a new password") && form.body.contains(&email));

    let (done, web) = accept(&app, &path, NEW_PASSWORD, NEW_PASSWORD);
    assert_eq!(done.status, 303, "{}", done.body);
    assert_eq!(done.location.as_deref(), Some("/"));
    assert_eq!(web.get("/campaigns").status, 200, "signed in");
    assert_eq!(
        elsewhere.get("/campaigns").status,
        303,
        "the other session ended"
    );
    assert_eq!(Browser::new(&app).login(&email, PASSWORD).status, 401);
    assert_eq!(Browser::new(&app).login(&email, NEW_PASSWORD).status, 303);
    assert_eq!(Browser::new(&app).get(&path).status, 404, "spent");
}

#[test]
fn settings_save_language_zone_and_chat_and_refuse_bad_ones_beside_their_fields() {
    let app = spawn_app();
    let (user, _, _) = app.manager();
    let web = logged_in(&app, user);
    let page = web.get("/settings");
    assert_eq!(page.status, 200);
    assert!(page.body.contains(r#"<html lang="en""#));
    assert!(
        page.body.contains(r#"value="Europe/Berlin""#),
        "zones listed"
    );
    let csrf = page.csrf();
    let saved = web.post(
        "/settings",
        &[
            ("csrf", &csrf),
            ("language", "ru"),
            ("time_zone", "Europe/Berlin"),
            ("telegram_chat", "-1001234"),
        ],
    );
    assert_eq!(saved.status, 303);
    let stored = |app: &TestApp| -> (Option<String>, Option<String>, Option<i64>) {
        app.services
            .db
            .read_blocking(move |c| {
                Ok::<_, adcab::store::StoreError>(c.query_row(
                    "SELECT language, time_zone, telegram_chat FROM users WHERE id = ?1",
                    [user],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )?)
            })
            .unwrap()
    };
    assert_eq!(
        stored(&app),
        (
            Some("ru".into()),
            Some("Europe/Berlin".into()),
            Some(-1_001_234)
        )
    );
    let russian = web.get(saved.location.as_deref().unwrap());
    assert!(russian.body.contains(r#"<html lang="ru""#));
    assert!(russian.body.contains("Настройки") && russian.body.contains("Сохранено."));
    assert!(russian
        .body
        .contains(r#"<option value="Europe/Berlin" selected"#));

    let refused = web.post(
        "/settings",
        &[
            ("csrf", &csrf),
            ("language", "de"),
            ("time_zone", "Mars/Olympus"),
            ("telegram_chat", "@mychat"),
        ],
    );
    assert_eq!(refused.status, 422);
    for field in ["language", "time_zone", "telegram_chat"] {
        assert!(
            refused.body.contains(&format!(r#"data-param="{field}""#)),
            "{field}"
        );
    }
    assert!(refused.body.contains(r#"value="@mychat""#), "kept as sent");
    assert_eq!(
        stored(&app).1.as_deref(),
        Some("Europe/Berlin"),
        "unchanged"
    );

    let cleared = web.post(
        "/settings",
        &[
            ("csrf", &csrf),
            ("language", "browser"),
            ("time_zone", "browser"),
            ("telegram_chat", ""),
        ],
    );
    assert_eq!(cleared.status, 303);
    assert_eq!(stored(&app), (None, None, None));
    let by_browser = web.get_with("/settings", &[("accept-language", "ru-RU,ru;q=0.9")]);
    assert!(by_browser.body.contains(r#"<html lang="ru""#));

    let forged = web.post("/settings", &[("language", "ru")]);
    assert_eq!(forged.status, 403, "no csrf");
}

#[test]
fn a_password_change_needs_the_current_one_and_the_new_one_twice_and_ends_other_sessions() {
    let app = spawn_app();
    let (user, _, _) = app.manager();
    let email = with_login(&app, user);
    let [web, other] = [Browser::new(&app), Browser::new(&app)];
    for b in [&web, &other] {
        assert_eq!(b.login(&email, PASSWORD).status, 303);
    }
    let csrf = web.get("/settings").csrf();
    let change = |current: &str, new: &str, again: &str| {
        web.post(
            "/settings/password",
            &[
                ("csrf", &csrf),
                ("current_password", current),
                ("password", new),
                ("password_again", again),
            ],
        )
    };
    let wrong = change("not my password", NEW_PASSWORD, NEW_PASSWORD);
    assert_eq!(wrong.status, 422);
    assert!(wrong.body.contains(r#"data-param="current_password""#));
    let differ = change(PASSWORD, NEW_PASSWORD, "something else entirely");
    assert_eq!(differ.status, 422);
    assert!(differ.body.contains(r#"data-param="password_again""#));
    let short = change(PASSWORD, "short", "short");
    assert_eq!(short.status, 422);
    assert!(short.body.contains(r#"data-param="password""#));
    assert_eq!(other.get("/campaigns").status, 200, "nothing changed yet");

    let done = change(PASSWORD, NEW_PASSWORD, NEW_PASSWORD);
    assert_eq!(done.status, 303, "{}", done.body);
    assert_eq!(web.get("/campaigns").status, 200, "this session stays");
    assert_eq!(other.get("/campaigns").status, 303, "the other one ended");
    assert_eq!(Browser::new(&app).login(&email, PASSWORD).status, 401);
    assert_eq!(Browser::new(&app).login(&email, NEW_PASSWORD).status, 303);
}

#[test]
fn the_invitation_page_speaks_the_language_chosen_for_the_person_not_the_browsers() {
    let app = spawn_app();
    let (_, cabinet, owner) = agency(&app);
    let form = owner.get("/team");
    assert!(
        form.body.contains(r#"<option value="en" selected>"#),
        "the owner's own language by default: {}",
        form.body
    );
    let csrf = form.csrf();
    let made = owner.post(
        "/team/invite",
        &[
            ("csrf", &csrf),
            ("email", "olga@agency.example"),
            ("cabinet", &cabinet.to_string()),
            ("access", "manager"),
            ("language", "ru"),
        ],
    );
    assert_eq!(made.status, 200, "{}", made.body);
    let path = shown_link(&made).expect("a link");
    let english = [("accept-language", "en-GB,en;q=0.9")];

    let web = Browser::new(&app);
    let page = web.get_with(&path, &english);
    assert_eq!(page.status, 200);
    assert!(page.body.contains(r#"<html lang="ru""#), "{}", page.body);
    let csrf = page.csrf();
    let refused = web.post_with(
        &path,
        &[
            ("csrf", &csrf),
            ("password", "short"),
            ("password_again", "short"),
        ],
        &english,
    );
    assert_eq!(refused.status, 422);
    assert!(
        refused.body.contains(r#"<html lang="ru""#),
        "the refusal too"
    );

    // The person's own setting, once they have one, wins over the invitation's.
    let person = user_by_email(&app, "olga@agency.example").unwrap();
    app.sql(&format!(
        "UPDATE users SET language = 'en' WHERE id = {}",
        person.id
    ));
    let page = Browser::new(&app).get_with(&path, &[("accept-language", "ru")]);
    assert!(page.body.contains(r#"<html lang="en""#), "{}", page.body);

    // A link with no language chosen (a reset link, an invitation older than the choice)
    // follows the browser.
    app.sql(&format!(
        "UPDATE users SET language = NULL WHERE id = {0};
         UPDATE invitations SET language = NULL WHERE user_id = {0}",
        person.id
    ));
    let page = Browser::new(&app).get_with(&path, &[("accept-language", "ru")]);
    assert!(page.body.contains(r#"<html lang="ru""#));
    let page = Browser::new(&app).get_with(&path, &english);
    assert!(page.body.contains(r#"<html lang="en""#));
}

#[test]
fn an_accepted_invitation_leaves_the_chosen_language_as_the_persons_setting() {
    let app = spawn_app();
    let (_, cabinet, owner) = agency(&app);
    let csrf = owner.get("/team").csrf();
    let made = owner.post(
        "/team/invite",
        &[
            ("csrf", &csrf),
            ("email", "olga@agency.example"),
            ("cabinet", &cabinet.to_string()),
            ("access", "manager"),
            ("language", "ru"),
        ],
    );
    let path = shown_link(&made).expect("a link");
    let english = [("accept-language", "en-GB,en;q=0.9")];
    let web = Browser::new(&app);
    let csrf = web.get_with(&path, &english).csrf();
    let accepted = web.post_with(
        &path,
        &[
            ("csrf", &csrf),
            ("password", "a long enough password"),
            ("password_again", "a long enough password"),
        ],
        &english,
    );
    assert_eq!(accepted.status, 303, "{}", accepted.body);
    let person = user_by_email(&app, "olga@agency.example").unwrap();
    assert_eq!(person.language, Some(adcab::i18n::Lang::Ru));
    let home = web.get_with("/", &english);
    assert!(
        home.body.contains(r#"<html lang="ru""#),
        "the panel after the invitation speaks Russian to an English browser"
    );
}
