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
