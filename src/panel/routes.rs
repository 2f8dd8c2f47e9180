//! Owns the panel's page table: every page and form but the login (which has no session yet),
//! by method and path, each with the handler that answers it; and finding the line a request
//! matches, with the path's `{...}` values.

use std::future::Future;
use std::pin::Pin;

use hyper::body::Incoming;
use hyper::Method;

use super::multipart::Sent;
use super::session::Session;
use super::{login, pages, Form, Visit, WebError};
use crate::http::Reply;

type Page<'a> = Pin<Box<dyn Future<Output = Result<Reply, WebError>> + Send + 'a>>;

/// How a page is answered; `args` are the path's `{...}` segments.
#[derive(Clone, Copy)]
pub(super) enum Handler {
    /// A page for a logged-in person.
    View(for<'a> fn(&'a Visit<'a>, &'a Session, &'a [&'a str]) -> Page<'a>),
    /// A form sent by a logged-in person, its CSRF token checked.
    Act(for<'a> fn(&'a Visit<'a>, &'a Session, &'a Form, &'a [&'a str]) -> Page<'a>),
    /// A file sent by a logged-in person as the request's body, its CSRF token in the
    /// `x-csrf-token` header; the handler reads the body.
    Upload(for<'a> fn(&'a Visit<'a>, &'a Session, Incoming, &'a [&'a str]) -> Page<'a>),
    /// A `multipart/form-data` form sent by a logged-in person (a file picked without the
    /// script), read whole up to the limit in bytes, its CSRF token checked among its fields.
    Multipart(
        usize,
        for<'a> fn(&'a Visit<'a>, &'a Session, &'a Sent, &'a [&'a str]) -> Page<'a>,
    ),
}

/// One line of the page table.
pub(super) struct Def {
    pub(super) method: Method,
    /// Segments; `{}` stands for one non-empty segment.
    pub(super) pattern: &'static str,
    pub(super) handler: Handler,
}

macro_rules! view {
    ($f:path) => {{
        fn handler<'a>(v: &'a Visit<'a>, s: &'a Session, args: &'a [&'a str]) -> Page<'a> {
            Box::pin($f(v, s, args))
        }
        Handler::View(handler)
    }};
}

macro_rules! act {
    ($f:path) => {{
        fn handler<'a>(
            v: &'a Visit<'a>,
            s: &'a Session,
            form: &'a Form,
            args: &'a [&'a str],
        ) -> Page<'a> {
            Box::pin($f(v, s, form, args))
        }
        Handler::Act(handler)
    }};
}

macro_rules! upload {
    ($f:path) => {{
        fn handler<'a>(
            v: &'a Visit<'a>,
            s: &'a Session,
            body: Incoming,
            args: &'a [&'a str],
        ) -> Page<'a> {
            Box::pin($f(v, s, body, args))
        }
        Handler::Upload(handler)
    }};
}

macro_rules! multipart {
    ($limit:expr, $f:path) => {{
        fn handler<'a>(
            v: &'a Visit<'a>,
            s: &'a Session,
            sent: &'a Sent,
            args: &'a [&'a str],
        ) -> Page<'a> {
            Box::pin($f(v, s, sent, args))
        }
        Handler::Multipart($limit, handler)
    }};
}

/// Every page and form of the panel but the login, which has no session yet.
fn table() -> &'static [Def] {
    static TABLE: std::sync::OnceLock<Vec<Def>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        vec![
            Def {
                method: Method::GET,
                pattern: "/",
                handler: view!(pages::home::show),
            },
            Def {
                method: Method::GET,
                pattern: "/cabinets",
                handler: view!(pages::cabinets::list),
            },
            Def {
                method: Method::POST,
                pattern: "/cabinets/clients",
                handler: act!(pages::funds::open),
            },
            Def {
                method: Method::GET,
                pattern: "/cabinets/{}/money",
                handler: view!(pages::funds::page),
            },
            Def {
                method: Method::POST,
                pattern: "/cabinets/{}/money/confirm",
                handler: act!(pages::funds::confirm),
            },
            Def {
                method: Method::POST,
                pattern: "/cabinets/{}/money",
                handler: act!(pages::funds::move_money),
            },
            Def {
                method: Method::GET,
                pattern: "/campaigns",
                handler: view!(pages::campaigns::list),
            },
            // The new-campaign form's lines come before `/campaigns/{}/{}`, which would take
            // its look-ups' paths.
            Def {
                method: Method::GET,
                pattern: "/campaigns/new",
                handler: view!(pages::new_campaign::show),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/new",
                handler: act!(pages::new_campaign::create),
            },
            Def {
                method: Method::GET,
                pattern: "/campaigns/new/lookup",
                handler: view!(pages::new_campaign::peers),
            },
            Def {
                method: Method::GET,
                pattern: "/campaigns/new/cities",
                handler: view!(pages::new_campaign::cities),
            },
            Def {
                method: Method::GET,
                pattern: "/campaigns/new/link",
                handler: view!(pages::new_campaign::link),
            },
            Def {
                method: Method::GET,
                pattern: "/campaigns/new/preview",
                handler: view!(pages::new_campaign::preview),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/new/media",
                handler: upload!(pages::new_campaign::upload),
            },
            Def {
                method: Method::GET,
                pattern: "/campaigns/{}/{}",
                handler: view!(pages::campaign::show),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/{}/{}/edit",
                handler: act!(pages::campaign::edit),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/{}/{}/auto-cpm",
                handler: act!(pages::campaign::set_auto_cpm),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/{}/{}/pause",
                handler: act!(pages::campaign::pause),
            },
            Def {
                method: Method::POST,
                pattern: "/proposals/{}/approve",
                handler: act!(pages::proposals::approve),
            },
            Def {
                method: Method::POST,
                pattern: "/proposals/{}/reject",
                handler: act!(pages::proposals::reject),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/{}/{}/resume",
                handler: act!(pages::campaign::resume),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/{}/{}/budget",
                handler: act!(pages::campaign::budget),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/{}/{}/cpm",
                handler: act!(pages::campaign::cpm),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/{}/{}/copy",
                handler: act!(pages::campaign::copy),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/{}/{}/recreate",
                handler: act!(pages::campaign::recreate),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/{}/{}/delete",
                handler: act!(pages::campaign::delete),
            },
            Def {
                method: Method::POST,
                pattern: "/campaigns/bulk",
                handler: act!(pages::campaigns::bulk),
            },
            Def {
                method: Method::GET,
                pattern: "/rules",
                handler: view!(pages::rules::list),
            },
            Def {
                method: Method::POST,
                pattern: "/rules",
                handler: act!(pages::rules::create),
            },
            Def {
                method: Method::GET,
                pattern: "/rules/{}/edit",
                handler: view!(pages::rules::edit),
            },
            Def {
                method: Method::POST,
                pattern: "/rules/{}/edit",
                handler: act!(pages::rules::save),
            },
            Def {
                method: Method::GET,
                pattern: "/rules/templates",
                handler: view!(pages::rules::templates),
            },
            Def {
                method: Method::POST,
                pattern: "/rules/templates",
                handler: act!(pages::rules::create_from_template),
            },
            Def {
                method: Method::POST,
                pattern: "/rules/{}/enable",
                handler: act!(pages::rules::enable),
            },
            Def {
                method: Method::POST,
                pattern: "/rules/{}/disable",
                handler: act!(pages::rules::disable),
            },
            Def {
                method: Method::POST,
                pattern: "/rules/{}/delete",
                handler: act!(pages::rules::delete),
            },
            Def {
                method: Method::GET,
                pattern: "/rules/{}/log",
                handler: view!(pages::rules::log),
            },
            Def {
                method: Method::GET,
                pattern: "/rules/{}/preview",
                handler: view!(pages::rules::preview),
            },
            Def {
                method: Method::GET,
                pattern: "/tasks",
                handler: view!(pages::tasks::list),
            },
            Def {
                method: Method::POST,
                pattern: "/tasks/{}/cancel",
                handler: act!(pages::tasks::cancel),
            },
            Def {
                method: Method::POST,
                pattern: "/tasks/{}/resume",
                handler: act!(pages::tasks::resume),
            },
            Def {
                method: Method::GET,
                pattern: "/keys",
                handler: view!(pages::keys::list),
            },
            Def {
                method: Method::POST,
                pattern: "/keys",
                handler: act!(pages::keys::create),
            },
            Def {
                method: Method::GET,
                pattern: "/keys/{}",
                handler: view!(pages::keys::show),
            },
            Def {
                method: Method::POST,
                pattern: "/keys/{}/webhook",
                handler: act!(pages::keys::webhook),
            },
            Def {
                method: Method::POST,
                pattern: "/keys/{}/test",
                handler: act!(pages::keys::test),
            },
            Def {
                method: Method::POST,
                pattern: "/keys/{}/secret",
                handler: act!(pages::keys::secret),
            },
            Def {
                method: Method::POST,
                pattern: "/keys/{}/revoke",
                handler: act!(pages::keys::revoke),
            },
            Def {
                method: Method::POST,
                pattern: "/tracker/rotate",
                handler: act!(pages::keys::tracker),
            },
            Def {
                method: Method::GET,
                pattern: "/team",
                handler: view!(pages::team::show),
            },
            Def {
                method: Method::POST,
                pattern: "/team/invite",
                handler: act!(pages::team::invite),
            },
            Def {
                method: Method::POST,
                pattern: "/team/{}/access",
                handler: act!(pages::team::access),
            },
            Def {
                method: Method::POST,
                pattern: "/team/{}/remove",
                handler: act!(pages::team::remove),
            },
            Def {
                method: Method::POST,
                pattern: "/team/{}/link",
                handler: act!(pages::team::link),
            },
            Def {
                method: Method::GET,
                pattern: "/settings",
                handler: view!(pages::settings::show),
            },
            Def {
                method: Method::POST,
                pattern: "/settings",
                handler: act!(pages::settings::save),
            },
            Def {
                method: Method::POST,
                pattern: "/settings/password",
                handler: act!(pages::settings::password),
            },
            Def {
                method: Method::GET,
                pattern: "/reports",
                handler: view!(pages::reports::index),
            },
            Def {
                method: Method::GET,
                pattern: "/reports/{}",
                handler: view!(pages::reports::show),
            },
            Def {
                method: Method::GET,
                pattern: "/reports/{}/logo",
                handler: view!(pages::reports::logo),
            },
            Def {
                method: Method::GET,
                pattern: "/reports/{}/statement",
                handler: view!(pages::reports::statement::show),
            },
            Def {
                method: Method::POST,
                pattern: "/reports/{}/share",
                handler: act!(pages::reports::share),
            },
            Def {
                method: Method::POST,
                pattern: "/reports/{}/share/{}/revoke",
                handler: act!(pages::reports::revoke),
            },
            Def {
                method: Method::POST,
                pattern: "/settings/agency",
                handler: act!(pages::settings::agency),
            },
            Def {
                method: Method::POST,
                pattern: "/settings/logo",
                handler: multipart!(pages::settings::LOGO_LIMIT, pages::settings::logo),
            },
            Def {
                method: Method::POST,
                pattern: "/settings/logo/remove",
                handler: act!(pages::settings::remove_logo),
            },
            Def {
                method: Method::POST,
                pattern: "/settings/currency",
                handler: act!(pages::settings::currency),
            },
            Def {
                method: Method::GET,
                pattern: "/settings/logo",
                handler: view!(pages::settings::show_logo),
            },
            Def {
                method: Method::GET,
                pattern: "/sim",
                handler: view!(pages::sim::show),
            },
            Def {
                method: Method::POST,
                pattern: "/sim/advance",
                handler: act!(pages::sim::advance),
            },
            Def {
                method: Method::POST,
                pattern: "/sim/review/{}/{}",
                handler: act!(pages::sim::review),
            },
            Def {
                method: Method::POST,
                pattern: "/logout",
                handler: act!(logout),
            },
        ]
    })
}

async fn logout<'a>(
    v: &'a Visit<'a>,
    s: &'a Session,
    form: &'a Form,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    login::logout(v, s, form).await
}

/// The line of the table matching a method and path, with the path's `{}` values; `Err`
/// when the path is known under other methods only.
pub(super) fn resolve<'p>(
    method: &Method,
    path: &'p str,
) -> Result<Option<(&'static Def, Vec<&'p str>)>, WebError> {
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    let mut known = false;
    for def in table() {
        let parts: Vec<&str> = def.pattern.trim_end_matches('/').split('/').collect();
        if parts.len() != segments.len() {
            continue;
        }
        let mut args = Vec::new();
        let fits = parts.iter().zip(&segments).all(|(p, s)| {
            if *p == "{}" {
                args.push(*s);
                !s.is_empty()
            } else {
                p == s
            }
        });
        if fits {
            if def.method == *method {
                return Ok(Some((def, args)));
            }
            known = true;
        }
    }
    if known {
        Err(WebError::MethodNotAllowed)
    } else {
        Ok(None)
    }
}
