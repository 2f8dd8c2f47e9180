//! Owns the panel's page shell: the document head with the hashed assets, the navigation with
//! the person and their sign-out form, the bare shell of the login page, and the error page.

use hyper::StatusCode;
use maud::{html, Markup, DOCTYPE};

use super::assets;
use super::session::Session;
use super::Visit;
use crate::http::Reply;

/// The sections of the navigation, by path.
const SECTIONS: [(&str, &str); 7] = [
    ("/cabinets", "Cabinets"),
    ("/campaigns", "Campaigns"),
    ("/rules", "Rules"),
    ("/tasks", "Tasks"),
    ("/keys", "API & Webhooks"),
    ("/team", "Team"),
    ("/sim", "Simulator"),
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
pub fn page(visit: &Visit, session: &Session, section: &str, title: &str, body: Markup) -> Reply {
    let sim = visit.state.services.sim.is_some();
    let team = session.person.is_agency_owner();
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            (head(title))
            body {
                nav.side aria-label="Sections" {
                    a.brand href="/campaigns" { "adcab" }
                    @for (path, name) in SECTIONS {
                        @if (path != "/sim" || sim) && (path != "/team" || team) {
                            a href=(path) aria-current=[(path == section).then_some("page")] { (name) }
                        }
                    }
                    div.who {
                        (session.person.user.email)
                        form method="post" action="/logout" {
                            input type="hidden" name="csrf" value=(session.csrf);
                            button.link type="submit" { "Sign out" }
                        }
                        form method="post" action="/logout" {
                            input type="hidden" name="csrf" value=(session.csrf);
                            input type="hidden" name="everywhere" value="1";
                            button.link type="submit" { "Sign out everywhere" }
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
pub fn bare(_visit: &Visit, title: &str, body: Markup) -> Reply {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            (head(title))
            body.bare { (body) }
        }
    };
    Reply::html(markup.into_string())
}

/// An error page: the status and a sentence that says what to do.
pub fn error(visit: &Visit, status: StatusCode, sentence: &str) -> Reply {
    let body = html! {
        main.login {
            h1 { (status.as_u16()) " " (status.canonical_reason().unwrap_or("")) }
            p { (sentence) }
            p { a href="/campaigns" { "Back to the campaigns" } }
            p.muted { "Request " code { (visit.request_id) } }
        }
    };
    bare(visit, "Error", body).with_status(status)
}
