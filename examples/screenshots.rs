//! Renews the web panel's committed screenshots in `docs/screenshots/`: every page, at a
//! desktop's width (1400 × 900) and a phone's (390 × 844), in English and in Russian, as
//! `{page}-{desktop|phone}-{en|ru}.png` (the login page, before any setting, as
//! `login-{desktop|phone}.png`). A command of its own, so a test run never writes into
//! the working tree.
//!
//! It starts the real server in this process over a temporary database with the first-run demo
//! workspace (an agency owner, three cabinets, their campaigns and a key), approves the
//! campaigns in review, declines one with the platform's reason, lets six hours of delivery
//! pass on the simulator's clock, and then drives headless Chromium (Debian's `chromium` and
//! `chromium-driver`) through the pages as the owner.
//!
//! Run: `cargo run --example screenshots` (optional argument: the folder to write into).

use std::path::PathBuf;
use std::time::Duration;

use adcab::config::Config;
use adcab::{app::demo, ops, Services};

#[path = "../tests/support/poll.rs"]
mod poll;
#[path = "../tests/support/server.rs"]
mod server;
/// What the browser driver of the tests imports from their helpers.
mod helpers {
    pub use super::poll::poll;
}
#[allow(dead_code)] // the driver's commands the tests use and this command does not
#[path = "../tests/it/browser/webdriver.rs"]
mod webdriver;

use server::Server;
use webdriver::Chrome;

/// The pages shot, by file name and path; `{account}`, `{ad}` and `{declined}` are filled in.
const PAGES: &[(&str, &str)] = &[
    ("home", "/"),
    ("cabinets", "/cabinets"),
    ("campaigns", "/campaigns"),
    ("campaign", "/campaigns/{account}/{ad}"),
    ("campaign-declined", "/campaigns/{account}/{declined}"),
    ("campaign-new", "/campaigns/new"),
    ("rules", "/rules"),
    ("tasks", "/tasks"),
    ("keys", "/keys"),
    ("team", "/team"),
    ("settings", "/settings"),
    ("sim", "/sim"),
];

const WIDTHS: [(&str, i64, i64); 2] = [("desktop", 1400, 900), ("phone", 390, 844)];

fn main() {
    let folder: PathBuf = std::env::args().nth(1).map_or_else(
        || {
            [env!("CARGO_MANIFEST_DIR"), "docs", "screenshots"]
                .iter()
                .collect()
        },
        PathBuf::from,
    );
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut config = Config::default();
    config.storage.path = dir.path().join("screens.db");
    config.panel.enabled = true;
    config.demo.bootstrap = true;
    let services = Services::open(config.clone(), adcab::db::Open::Create).expect("open");
    let workspace = demo::bootstrap_if_empty(&services)
        .expect("the demo workspace")
        .expect("an empty database takes the demo");
    let server = Server::start(services.clone());
    let (account, ad, declined) = deliver(&services, &config);
    let root = server.base.trim_end_matches("/api/v1").to_string();

    let chrome = Chrome::start();
    let mut written = 0;
    chrome.goto(&format!("{root}/login"));
    for (width, w, h) in WIDTHS {
        chrome.set_viewport(w, h);
        shoot(&chrome, &folder, &format!("login-{width}"));
        written += 1;
    }
    chrome.find("input[name=email]").send_keys(workspace.email);
    chrome
        .find("input[name=password]")
        .send_keys(&workspace.password);
    chrome.find("form button[type=submit]").click();
    chrome.wait_for("signing in", |c| {
        (!c.url().ends_with("/login")).then_some(())
    });
    // The person's language is read on every request: no need to sign in again.
    for lang in ["en", "ru"] {
        set_language(&config, lang);
        for (width, w, h) in WIDTHS {
            chrome.set_viewport(w, h);
            for (name, path) in PAGES {
                let path = path
                    .replace("{account}", &account.to_string())
                    .replace("{ad}", &ad.to_string())
                    .replace("{declined}", &declined.to_string());
                chrome.goto(&format!("{root}{path}"));
                shoot(&chrome, &folder, &format!("{name}-{width}-{lang}"));
                written += 1;
            }
        }
    }
    chrome.quit().expect("the browser closes");
    drop(server);
    println!("{written} screenshots in {}", folder.display());
}

/// Approves every campaign in review but the newest, which is declined with a reason, and
/// lets six hours of delivery pass: (cabinet, a delivering campaign, the declined one).
fn deliver(services: &Services, config: &Config) -> (i64, i64, i64) {
    let conn = adcab::db::open_connection(&config.storage.path).expect("a connection");
    let mut ads: Vec<(i64, i64)> = conn
        .prepare("SELECT account_id, ad_id FROM campaigns ORDER BY account_id, ad_id")
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()
        })
        .expect("the demo's campaigns");
    let (first_account, _) = ads[0];
    let declined = ads
        .iter()
        .rposition(|(a, _)| *a == first_account)
        .map(|i| ads.remove(i))
        .expect("a campaign of the first cabinet");
    for (account, ad) in &ads {
        ops::sim_review(services, *account, *ad, true, None).expect("approved");
    }
    ops::sim_review(
        services,
        declined.0,
        declined.1,
        false,
        Some("Text formatting"),
    )
    .expect("declined");
    ops::sim_advance(services, 6 * 3600).expect("six hours");
    let settled = poll::poll(Duration::from_secs(60), || {
        adcab::jobs::scheduler::idle(&conn)
            .ok()
            .filter(|idle| *idle)
    });
    assert!(
        settled.is_some(),
        "the hourly syncs did not finish in a minute"
    );
    (first_account, ads[0].1, declined.1)
}

/// Sets the language every person of the workspace reads the panel in.
fn set_language(config: &Config, lang: &str) {
    let conn = adcab::db::open_connection(&config.storage.path).expect("a connection");
    conn.execute("UPDATE users SET language = ?1", [lang])
        .expect("the language set");
}

fn shoot(chrome: &Chrome, folder: &std::path::Path, name: &str) {
    let png = chrome.screenshot(&folder.join(format!("{name}.png")));
    assert!(png.starts_with(b"\x89PNG"), "{name} is a PNG");
}
