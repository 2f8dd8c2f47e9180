//! Creating campaigns through the new-campaign form in a real browser: one of each target
//! type, typed and clicked as a person would (the script shows the chosen type's fields,
//! counts the text, draws the preview as it is typed, adds a looked-up channel, uploads a
//! picture), each then found on the simulator with every
//! field as entered.

use serde_json::{json, Value};

use super::webdriver::Chrome;
use super::{root, screenshot, signed_in};
use crate::helpers::{spawn_app, TestApp};

/// What a created campaign holds: target type, targeting, title, text, link, cpm and budget
/// in micros, views per user, daily cap in micros.
struct Made {
    target_type: String,
    targeting: Value,
    title: String,
    text: String,
    promote_url: String,
    cpm: i64,
    budget: i64,
    views_per_user: i64,
    daily_budget: Option<i64>,
    media_type: Option<String>,
}

/// The campaign of `account` titled `title`, after the queued tasks ran.
fn made(app: &TestApp, account: i64, title: &str) -> Made {
    app.run_tasks();
    let wanted = title.to_string();
    app.services
        .db
        .read_blocking(move |c| {
            c.query_row(
                "SELECT target_type, targeting, title, text, promote_url, cpm_micros,
                        budget_micros, views_per_user, daily_budget_micros, media_type
                 FROM campaigns JOIN campaign_counters USING (account_id, ad_id)
                 WHERE account_id = ?1 AND title = ?2",
                rusqlite::params![account, wanted],
                |r| {
                    Ok(Made {
                        target_type: r.get(0)?,
                        targeting: serde_json::from_str(&r.get::<_, String>(1)?)
                            .unwrap_or(Value::Null),
                        title: r.get(2)?,
                        text: r.get(3)?,
                        promote_url: r.get(4)?,
                        cpm: r.get(5)?,
                        budget: r.get(6)?,
                        views_per_user: r.get(7)?,
                        daily_budget: r.get(8)?,
                        media_type: r.get(9)?,
                    })
                },
            )
            .map_err(adcab::store::StoreError::from)
        })
        .unwrap_or_else(|e| panic!("no campaign titled {title}: {e:?}"))
}

/// Fills in the fields every ad has, picks `target` and returns once its fields show.
fn common(chrome: &Chrome, app: &TestApp, target: &str, title: &str, text: &str, url: &str) {
    chrome.goto(&format!("{}/campaigns/new", root(app)));
    chrome
        .find(&format!("select[name=target_type] option[value={target}]"))
        .click();
    chrome.find("input[name=title]").send_keys(title);
    chrome.find("textarea[name=text]").send_keys(text);
    chrome.find("input[name=promote_url]").send_keys(url);
    chrome.find("input[name=cpm]").send_keys("2.50");
    chrome.find("input[name=budget]").send_keys("20");
    chrome.find("input[name=daily_budget]").send_keys("7");
    chrome
        .find("select[name=views_per_user] option[value='3']")
        .click();
    let count = chrome.find("output.count").text();
    assert_eq!(
        count,
        format!("{} / 160", text.chars().count()),
        "the text is counted as typed"
    );
}

fn create(chrome: &Chrome) {
    chrome
        .find("#new-campaign button.primary[type=submit]")
        .click();
    chrome.wait_for("the tasks page after creating", |c| {
        c.url().ends_with("/tasks").then_some(())
    });
}

fn check_common(m: &Made, target: &str, title: &str, text: &str, url: &str) {
    assert_eq!(m.target_type, target);
    assert_eq!((m.title.as_str(), m.text.as_str()), (title, text));
    assert_eq!(m.promote_url, url);
    assert_eq!((m.cpm, m.budget), (2_500_000, 20_000_000));
    assert_eq!(m.views_per_user, 3);
    assert_eq!(m.daily_budget, Some(7_000_000));
}

#[test]
fn one_campaign_of_each_target_type_is_created_through_the_form_in_a_real_browser() {
    let app = spawn_app();
    let (user, cabinet, _) = app.manager();
    let chrome = Chrome::start();
    signed_in(&chrome, &app, user);

    // Channels: the bots' field is hidden, a channel is added through the look-up.
    let url = "https://t.me/alpha_chan";
    common(
        &chrome,
        &app,
        "channels",
        "In channels",
        "Read us daily",
        url,
    );
    chrome.wait_for("the preview drawn as the text is typed", |c| {
        c.try_find("#preview p.tg-text")
            .filter(|p| p.text() == "Read us daily")
            .map(|_| ())
    });
    assert!(
        !chrome.find("textarea[name=bots]").is_displayed(),
        "a bots field does not show for a channels ad"
    );
    chrome
        .find("textarea[name=channels]")
        .send_keys("@tech_daily");
    chrome
        .find(".for-type[data-for='channels'] input[name=q]")
        .send_keys("news_today");
    chrome.wait_for("the looked-up channel", |c| {
        c.try_find("button[data-add='@news_today']").map(|_| ())
    });
    chrome.find("button[data-add='@news_today']").click();
    chrome
        .find("select[name=languages] option[value=en]")
        .click();
    // A picture chosen shows in the form and is uploaded for the cabinet.
    let picture = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("new-campaign.png");
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend_from_slice(&[0u8; 256]);
    std::fs::write(&picture, &png).unwrap();
    chrome
        .find("input[type=file][data-upload]")
        .send_keys(picture.to_str().unwrap());
    // The token goes into `media` unseen: the ad made below carries the picture.
    chrome.wait_for("the picture uploaded", |c| {
        c.try_find("#media-preview p.muted")
            .filter(|p| p.text().starts_with("Uploaded"))
            .map(|_| ())
    });
    assert!(
        chrome.try_find("#media-preview img.media-shown").is_some(),
        "the picture shows"
    );
    screenshot(&chrome, "new-campaign");
    create(&chrome);
    let m = made(&app, cabinet, "In channels");
    check_common(&m, "channels", "In channels", "Read us daily", url);
    let channels = m.targeting["channels"].to_string();
    assert!(
        channels.contains("tech_daily") && channels.contains("news_today"),
        "{}",
        m.targeting
    );
    assert_eq!(m.targeting["languages"], json!(["en"]));
    assert_eq!(m.media_type.as_deref(), Some("image/png"));

    // Bots.
    let url = "https://t.me/shop_bot?start=ads";
    common(&chrome, &app, "bots", "In bots", "Shop with us", url);
    assert!(!chrome.find("textarea[name=channels]").is_displayed());
    chrome.find("textarea[name=bots]").send_keys("@helper_bot");
    create(&chrome);
    let m = made(&app, cabinet, "In bots");
    check_common(&m, "bots", "In bots", "Shop with us", url);
    assert!(
        m.targeting["bots"].to_string().contains("helper_bot"),
        "{}",
        m.targeting
    );

    // Users: countries picked after filtering, a language, a topic, a device.
    let url = "https://example.com/offer";
    common(&chrome, &app, "users", "To people", "An offer for you", url);
    chrome
        .find("input[data-filter=countries]")
        .send_keys("germ");
    chrome
        .find("select[name=countries] option[value=DE]")
        .click();
    chrome
        .find("select[name=languages] option[value=de]")
        .click();
    chrome.find("select[name=topics] option[value='1']").click();
    chrome
        .find("select[name=device] option[value=android]")
        .click();
    create(&chrome);
    let m = made(&app, cabinet, "To people");
    check_common(&m, "users", "To people", "An offer for you", url);
    assert_eq!(m.targeting["countries"], json!(["DE"]));
    assert_eq!(m.targeting["languages"], json!(["de"]));
    assert_eq!(m.targeting["topics"], json!([1]));
    assert_eq!(m.targeting["device"], "android");

    // Search: keywords typed show as chips.
    let url = "https://t.me/alpha_chan";
    common(&chrome, &app, "search", "In search", "Found you", url);
    chrome
        .find("input[name=search_keywords]")
        .send_keys("daily news, tech digest");
    let chips: Vec<String> = chrome
        .find_all("#keyword-chips .chip")
        .iter()
        .map(|c| c.text())
        .collect();
    assert_eq!(chips, ["daily news", "tech digest"]);
    create(&chrome);
    let m = made(&app, cabinet, "In search");
    check_common(&m, "search", "In search", "Found you", url);
    assert_eq!(
        m.targeting["search_keywords"],
        json!(["daily news", "tech digest"])
    );
    chrome.quit().unwrap();
}

#[test]
fn the_hints_follow_the_cabinet_chosen_and_a_city_is_picked_from_the_platforms_list() {
    let app = spawn_app();
    let (user, euro, _) = app.manager();
    let ton = app.cabinet(user, "ton", "100");
    let chrome = Chrome::start();
    signed_in(&chrome, &app, user);
    chrome.goto(&format!("{}/campaigns/new?account_id={euro}", root(&app)));
    let help = |c: &Chrome| c.find("#budget-help").text();
    assert!(help(&chrome).contains("EUR"), "{}", help(&chrome));
    chrome
        .find(&format!("select[name=account_id] option[value='{ton}']"))
        .click();
    chrome.wait_for("the budget's hint in the chosen cabinet's currency", |c| {
        help(c).contains("TON").then_some(())
    });
    assert_eq!(chrome.find("span.currency").text(), "TON");

    // A users ad in Germany: a city found by a part of its name is added by its id.
    chrome
        .find("select[name=target_type] option[value=users]")
        .click();
    chrome
        .find("select[name=countries] option[value=DE]")
        .click();
    chrome.find("input[name=city]").send_keys("berl");
    chrome.wait_for("Berlin found on the platform", |c| {
        c.try_find("#lookup-cities button[data-add='301']")
            .map(|_| ())
    });
    chrome.find("#lookup-cities button[data-add='301']").click();
    let cities = chrome.script("return document.querySelector('textarea[name=cities]').value");
    assert_eq!(cities, json!("301"));
}
