//! The web panel on the real binary: the demo's printed login opens it, and a password set
//! with `admin user set --password-stdin` replaces it.

use super::{adcab, admin, config, serve};
use crate::helpers::Browser;

#[test]
fn the_demos_printed_login_opens_the_panel_and_a_password_from_stdin_replaces_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), "");
    let server = serve(adcab(&config, &["serve"]));
    let line = server
        .printed
        .iter()
        .find(|l| l.starts_with("Web panel: "))
        .expect("the demo prints a panel login");
    let password = line
        .split("with password ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_string();
    let root = server.base.trim_end_matches("/api/v1").to_string();
    let web = Browser::at(&root);
    assert_eq!(web.login("demo@adcab.local", &password).status, 303);
    assert!(web.get("/campaigns").body.contains("Demo: channel launch"));

    let set = admin(
        &config,
        &["admin", "user", "set", "--id", "1", "--password-stdin"],
        "a new demo password\n",
    );
    assert_eq!(set["id"], 1);
    assert_eq!(web.get("/campaigns").status, 303, "the old sessions ended");
    let again = Browser::at(&root);
    assert_eq!(again.login("demo@adcab.local", &password).status, 401);
    assert_eq!(
        again
            .login("demo@adcab.local", "a new demo password")
            .status,
        303
    );
}

/// Sends a login form for `email` with a wrong password on a connection of its own; the
/// status it got, or 0 without an answer.
fn wrong_login(root: &str, email: &str) -> u16 {
    let token = "ab".repeat(32);
    let body = format!("csrf={token}&email={email}&password=wrong+password+here");
    let answer = ureq::AgentBuilder::new()
        .timeout(std::time::Duration::from_secs(60))
        .redirects(0)
        .build()
        .post(&format!("{root}/login"))
        .set("content-type", "application/x-www-form-urlencoded")
        .set("cookie", &format!("adcab_login={token}"))
        .send_string(&body);
    match answer {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r.status(),
        Err(_) => 0,
    }
}

#[test]
fn a_flood_of_logins_checks_two_passwords_at_a_time_and_holds_little_memory() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), "");
    std::fs::write(
        &config,
        std::fs::read_to_string(&config).unwrap()
            + "[panel]\nlogin_failures_per_address = 100000\n",
    )
    .unwrap();
    let server = serve(adcab(&config, &["serve"]));
    let root = server.base.trim_end_matches("/api/v1").to_string();
    assert_eq!(wrong_login(&root, "warm@x.org"), 401);
    let before = super::proc_status(server.pid(), "VmRSS:");
    let (statuses, peak) = super::peak_while(server.pid(), "VmRSS:", || {
        let gate = std::sync::Barrier::new(400);
        std::thread::scope(|s| {
            let sent: Vec<_> = (0..400)
                .map(|i| {
                    let (gate, root) = (&gate, &root);
                    s.spawn(move || {
                        gate.wait();
                        wrong_login(root, &format!("flood{i}@x.org"))
                    })
                })
                .collect();
            sent.into_iter()
                .map(|h| h.join().unwrap())
                .collect::<Vec<u16>>()
        })
    });
    let count = |status: u16| statuses.iter().filter(|s| **s == status).count();
    println!(
        "login flood: 400 at once; {} checked (401), {} told to try again (503), others {:?}; \
         memory {} MB before, peak {} MB",
        count(401),
        count(503),
        statuses
            .iter()
            .filter(|s| !matches!(s, 401 | 503))
            .collect::<Vec<_>>(),
        before / 1024,
        peak / 1024
    );
    assert_eq!(count(401) + count(503), 400, "{statuses:?}");
    assert!(count(401) >= 2, "some were checked");
    assert!(
        count(503) > 0,
        "a flood is turned away, not queued without end"
    );
    let threads = super::proc_status(server.pid(), "Threads:");
    assert!(threads < 100, "{threads} threads after the flood");
    assert!(
        peak.saturating_sub(before) < 150 * 1024,
        "the flood took the process from {} MB to {} MB",
        before / 1024,
        peak / 1024
    );
}

#[test]
fn hundreds_of_webhook_tests_to_a_silent_receiver_leave_other_tenants_served() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), "");
    std::fs::write(
        &config,
        std::fs::read_to_string(&config).unwrap() + "[webhooks]\nallow_private_targets = true\n",
    )
    .unwrap();
    let server = serve(adcab(&config, &["serve"]));
    let root = server.base.trim_end_matches("/api/v1").to_string();
    // A receiver that takes connections and never answers: each Test waits its 10 s twice.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let hook = format!("http://{}/hook", silent.local_addr().unwrap());
    // The demo key and four more: a person holds at most five.
    admin(
        &config,
        &["admin", "key", "set", "--id", "1", "--webhook-url", &hook],
        "",
    );
    let keys: Vec<i64> = std::iter::once(1)
        .chain((0..4).map(|_| {
            admin(
                &config,
                &[
                    "admin",
                    "key",
                    "create",
                    "--user",
                    "1",
                    "--webhook-url",
                    &hook,
                ],
                "",
            )["id"]
                .as_i64()
                .unwrap()
        }))
        .collect();
    let tenant = admin(
        &config,
        &["admin", "user", "add", "--email", "other@x.org"],
        "",
    )["id"]
        .to_string();
    admin(
        &config,
        &[
            "admin", "cabinet", "add", "--owner", &tenant, "--name", "Other", "--type", "euro",
        ],
        "",
    );
    let other_key = admin(&config, &["admin", "key", "create", "--user", &tenant], "")["key"]
        .as_str()
        .unwrap()
        .to_string();
    let password = server
        .printed
        .iter()
        .find_map(|l| l.split("with password ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_string();
    let web = Browser::at(&root);
    assert_eq!(web.login("demo@adcab.local", &password).status, 303);
    let csrf = web.get("/keys").csrf();

    let done = std::sync::atomic::AtomicBool::new(false);
    let ((pages, latencies), threads) = super::peak_while(server.pid(), "Threads:", || {
        std::thread::scope(|s| {
            let clicks: Vec<_> = (0..560)
                .map(|i| {
                    let (web, csrf, key) = (&web, &csrf, keys[i % keys.len()]);
                    s.spawn(move || {
                        let page = web.post(&format!("/keys/{key}/test"), &[("csrf", csrf)]);
                        (page.status, page.body)
                    })
                })
                .collect();
            let reader = s.spawn(|| {
                let agent = super::agent();
                let url = format!("{}/account/info", server.base);
                let mut took = Vec::new();
                std::thread::sleep(std::time::Duration::from_millis(500));
                while !done.load(std::sync::atomic::Ordering::SeqCst) && took.len() < 50 {
                    let t = std::time::Instant::now();
                    let (status, _, body) =
                        super::call(&agent, "GET", &url, &other_key, None).unwrap();
                    assert_eq!(status, 200, "{body}");
                    took.push(t.elapsed());
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                took
            });
            let pages: Vec<(u16, String)> = clicks.into_iter().map(|c| c.join().unwrap()).collect();
            done.store(true, std::sync::atomic::Ordering::SeqCst);
            (pages, reader.join().unwrap())
        })
    });
    drop(silent);
    let count = |status: u16, text: &str| {
        pages
            .iter()
            .filter(|(s, b)| *s == status && b.contains(text))
            .count()
    };
    let sent = count(200, "Test delivery ");
    let waited = count(200, "still waiting for its receiver");
    let full = count(200, "webhook tests are waiting");
    // A burst past the panel's queue is told the service is busy, at once.
    let busy = count(503, "busy");
    let mut sorted = latencies.clone();
    sorted.sort();
    let median = sorted[sorted.len() / 2];
    let worst = *sorted.last().unwrap();
    println!(
        "560 Test clicks over 5 keys: {sent} sent, {waited} refused (same key), {full} refused \
         (all places taken), {busy} told busy; another tenant's GET /account/info: {} requests, median {median:?}, \
         worst {worst:?}; at most {threads} server threads",
        sorted.len()
    );
    assert!(sent <= 2 * adcab::outbound::TESTS, "{sent} Tests were sent");
    let other: Vec<&(u16, String)> = pages
        .iter()
        .filter(|(s, _)| !matches!(s, 200 | 503))
        .collect();
    assert!(
        other.is_empty(),
        "{} other answers: {:?}",
        other.len(),
        other.first()
    );
    assert_eq!(sent + waited + full + busy, 560, "every click got its page");
    assert!(threads < 150, "{threads} threads in the server");
    assert!(
        worst < std::time::Duration::from_secs(2),
        "another tenant waited {worst:?}"
    );
}
