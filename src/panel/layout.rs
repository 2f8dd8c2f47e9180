//! Owns the panel's page shell: the document head with the hashed assets, the navigation with
//! the person and their sign-out form, the bare shell of the login page, and the error page.

use hyper::StatusCode;
use maud::{html, Markup, DOCTYPE};

use super::assets;
use super::session::Session;
use super::Visit;
use crate::http::Reply;

/// The sections of the navigation: path and catalogue key. Home comes first.
const SECTIONS: [(&str, &str); 9] = [
    ("/", "nav-home"),
    ("/cabinets", "nav-cabinets"),
    ("/campaigns", "nav-campaigns"),
    ("/reports", "nav-reports"),
    ("/rules", "nav-rules"),
    ("/tasks", "nav-tasks"),
    ("/keys", "nav-keys"),
    ("/team", "nav-team"),
    ("/sim", "nav-sim"),
];

fn head(title: &str) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            meta name="htmx-config" content=r#"{"includeIndicatorStyles":false}"#;
            title { (title) " · adcab" }
            link rel="stylesheet" href=(assets::url(&assets::CSS));
            script src=(assets::url(&assets::HTMX)) defer {}
            script src=(assets::url(&assets::JS)) defer {}
        }
    }
}

/// A page of the panel for a logged-in person: `section` is the navigation entry it belongs to.
/// The navigation is a side column on wide screens and, on phones, a top bar with the brand
/// and a menu button: a `<details>` whose state the style reads (`:has(details[open])`) to
/// show the sections, so it opens without the script and the sections stay plain links
/// outside it on a desktop.
pub fn page(visit: &Visit, session: &Session, section: &str, title: &str, body: Markup) -> Reply {
    let sim = visit.state.services.sim.is_some();
    let team = session.person.is_agency_owner();
    let markup = html! {
        (DOCTYPE)
        html lang=(visit.lang.code()) {
            (head(title))
            body {
                nav.side aria-label=(visit.t("nav-sections")) {
                    a.brand href="/" { "adcab" }
                    details.menu { summary { (visit.t("nav-menu")) } }
                    div.links {
                        @for (path, key) in SECTIONS {
                            @if (path != "/sim" || sim) && (path != "/team" || team) {
                                a href=(path) aria-current=[(path == section).then_some("page")] { (visit.lang.t(key)) }
                            }
                        }
                        div.who {
                            span.email { (session.person.user.email) }
                            a href="/settings" aria-current=[("/settings" == section).then_some("page")] { (visit.t("nav-settings")) }
                            a href="/api/docs" { (visit.t("nav-api-docs")) }
                            form method="post" action="/logout" {
                                input type="hidden" name="csrf" value=(session.csrf);
                                button.link type="submit" { (visit.t("nav-sign-out")) }
                            }
                            form method="post" action="/logout" {
                                input type="hidden" name="csrf" value=(session.csrf);
                                input type="hidden" name="everywhere" value="1";
                                button.link type="submit" { (visit.t("nav-sign-out-everywhere")) }
                            }
                        }
                    }
                }
                main id="main" { (body) }
            }
        }
    };
    Reply::html(markup.into_string())
}

/// A page outside the navigation (the login).
pub fn bare(visit: &Visit, title: &str, body: Markup) -> Reply {
    let markup = html! {
        (DOCTYPE)
        html lang=(visit.lang.code()) {
            (head(title))
            body.bare { (body) }
        }
    };
    Reply::html(markup.into_string())
}

/// An error page: the status, what kind of failure it is, and a sentence that says what to do,
/// in the page's language.
pub fn error(visit: &Visit, status: StatusCode, title: &str, sentence: &str) -> Reply {
    let body = html! {
        main.login {
            h1 { (status.as_u16()) " " (title) }
            p { (sentence) }
            p { a href="/campaigns" { (visit.t("common-error-back")) } }
            p.muted { (visit.t("common-request")) " " code { (visit.request_id) } }
        }
    };
    bare(visit, &visit.t("error-page"), body).with_status(status)
}
