//! The web panel over HTTP: logins and sessions, CSRF and cross-site refusal, and what each
//! person sees.

mod actions;
mod cabinets;
mod campaign;
mod create;
mod history;
mod home;
mod keys;
mod list;
mod pages;
mod people;
mod reports;
mod reports_share;
mod rules;
mod rules_across;
mod sessions;
mod shell;
mod tasks;
mod team;
mod words;

use adcab::ops;
use adcab::store::users;

use crate::helpers::{Browser, TestApp};

/// A password good enough for the panel.
pub const PASSWORD: &str = "correct horse battery";

/// Gives `user` the panel password [`PASSWORD`] and returns their email.
pub fn with_login(app: &TestApp, user: i64) -> String {
    ops::user_set(&app.services, user, None, None, Some(PASSWORD)).unwrap();
    app.services
        .db
        .read_blocking(|c| users::get(c, user))
        .unwrap()
        .unwrap()
        .email
}

/// A browser logged in as `user` (given the password [`PASSWORD`]).
/// The access `member` holds on `cabinet` through their agency's team, if any.
pub fn access(app: &TestApp, member: i64, cabinet: i64) -> Option<String> {
    app.services
        .db
        .read_blocking(move |c| {
            Ok::<_, adcab::store::StoreError>(
                c.query_row(
                    "SELECT access FROM cabinet_shares WHERE member_id = ?1 AND cabinet_id = ?2",
                    [member, cabinet],
                    |r| r.get(0),
                )
                .ok(),
            )
        })
        .unwrap()
}

pub fn logged_in(app: &TestApp, user: i64) -> Browser {
    let email = with_login(app, user);
    let b = Browser::new(app);
    assert_eq!(b.login(&email, PASSWORD).status, 303);
    b
}
