//! The web panel over HTTP: logins and sessions, CSRF and cross-site refusal, and what each
//! person sees.

mod actions;
mod keys;
mod pages;
mod sessions;

use adcab::panel;
use adcab::store::users;

use crate::helpers::TestApp;

/// A password good enough for the panel.
pub const PASSWORD: &str = "correct horse battery";

/// Gives `user` the panel password [`PASSWORD`] and returns their email.
pub fn with_login(app: &TestApp, user: i64) -> String {
    panel::user_set(&app.services, user, None, None, Some(PASSWORD)).unwrap();
    app.services
        .db
        .read_blocking(|c| users::get(c, user))
        .unwrap()
        .unwrap()
        .email
}
