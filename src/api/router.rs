//! Owns the route table: every path and method of the API under `/api/v1` as one line of data
//! (method, pattern, request budget, body, handler; the handler's kind says whether it runs
//! under an `Idempotency-Key`), the lookup that derives a path's `Allow` list from it, and the
//! dispatch. The one place to find an endpoint; a new one is a line here and a handler.

use std::future::Future;
use std::pin::Pin;

use hyper::Method;

use super::error::ApiError;
use super::health::Probe;
use super::idempotency::{self, Claim};
use super::media::MULTIPART_OVERHEAD;
use super::{
    account, bulk, campaign_create, campaign_edit, campaigns, conversions, funds, groups, media,
    postback, proposals, rules, statement, stats, targeting, tasks, AppState, Ctx,
};
use crate::http::Reply;
use crate::ratelimit::Budget;

/// Every path the API serves begins with this.
pub const PREFIX: &str = "/api/v1/";

/// Largest JSON body a call may send.
const MAX_JSON_BODY: usize = 2 * 1024 * 1024;

/// A handler's answer, boxed so handlers of every endpoint share one type.
pub type Answer<'a> = Pin<Box<dyn Future<Output = Result<Reply, ApiError>> + Send + 'a>>;
/// An idempotent handler's answer, and whether it stored that answer itself (in the
/// transaction that did its work).
pub type Queued<'a> = Pin<Box<dyn Future<Output = Result<(Reply, bool), ApiError>> + Send + 'a>>;

/// How a route's handler is called; `param` is the path's `{...}` segment ("" when none).
#[derive(Clone, Copy)]
pub enum Handler {
    /// Answered from the request alone.
    Plain(for<'a> fn(&'a AppState, &'a Ctx, &'a str) -> Answer<'a>),
    /// Run under the request's required `Idempotency-Key`.
    Idempotent(for<'a> fn(&'a AppState, &'a Ctx, &'a str, Claim) -> Queued<'a>),
}

/// What a route reads of the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// A JSON body (or none), read whole, at most 2 MB.
    Json,
    /// A multipart upload, streamed to disk by the handler, at most the file limit.
    Upload,
}

impl Body {
    /// How much body the route reads, and the error past that; `max_file` is the largest file
    /// the platform takes.
    pub fn limit(self, max_file: usize) -> (usize, ApiError) {
        match self {
            Body::Upload => (
                max_file + MULTIPART_OVERHEAD,
                ApiError::FileTooLarge {
                    limit: max_file,
                    media_type: None,
                },
            ),
            Body::Json => (MAX_JSON_BODY, ApiError::BodyTooLarge),
        }
    }
}

/// One line of the table.
pub struct Def {
    pub method: Method,
    /// Segments after the prefix; `{...}` stands for one non-empty segment.
    pub pattern: &'static str,
    pub budget: Budget,
    pub body: Body,
    pub handler: Handler,
}

macro_rules! plain {
    (|$s:ident, $c:ident, $p:ident| $body:expr) => {{
        fn handler<'a>($s: &'a AppState, $c: &'a Ctx, $p: &'a str) -> Answer<'a> {
            Box::pin(async move { $body })
        }
        Handler::Plain(handler)
    }};
}

macro_rules! idempotent {
    (|$s:ident, $c:ident, $p:ident, $claim:ident| $body:expr) => {{
        fn handler<'a>($s: &'a AppState, $c: &'a Ctx, $p: &'a str, $claim: Claim) -> Queued<'a> {
            Box::pin(async move { $body })
        }
        Handler::Idempotent(handler)
    }};
}

/// A route that reads a JSON body (or none).
const fn def(method: Method, pattern: &'static str, budget: Budget, handler: Handler) -> Def {
    Def {
        method,
        pattern,
        budget,
        body: Body::Json,
        handler,
    }
}

/// A route that streams a multipart upload.
const fn upload(method: Method, pattern: &'static str, budget: Budget, handler: Handler) -> Def {
    Def {
        method,
        pattern,
        budget,
        body: Body::Upload,
        handler,
    }
}

use Budget::{Conversions, Read, Write};

/// The API: every route, in the order `Allow` lists them.
pub static ROUTES: [Def; 37] = [
    def(
        Method::GET,
        "account/info",
        Read,
        plain!(|s, c, _p| account::info(s, c)),
    ),
    def(
        Method::GET,
        "targeting",
        Read,
        plain!(|s, _c, _p| targeting::lists(s)),
    ),
    def(
        Method::GET,
        "targeting/cities",
        Read,
        plain!(|s, c, _p| targeting::cities(s, c).await),
    ),
    def(
        Method::GET,
        "groups",
        Read,
        plain!(|s, c, _p| groups::list(s, c).await),
    ),
    def(
        Method::GET,
        "campaigns",
        Read,
        plain!(|s, c, _p| campaigns::list(s, c).await),
    ),
    def(
        Method::POST,
        "campaigns",
        Write,
        idempotent!(|s, c, _p, claim| campaign_create::create(s, c, claim).await),
    ),
    def(
        Method::POST,
        "campaigns/bulk",
        Write,
        idempotent!(|s, c, _p, claim| bulk::bulk(s, c, claim).await),
    ),
    def(
        Method::GET,
        "campaigns/{ad}",
        Read,
        plain!(|s, c, p| campaigns::get(s, c, p).await),
    ),
    def(
        Method::PATCH,
        "campaigns/{ad}",
        Write,
        plain!(|s, c, p| campaign_edit::edit(s, c, p).await),
    ),
    def(
        Method::DELETE,
        "campaigns/{ad}",
        Write,
        plain!(|s, c, p| campaign_edit::delete(s, c, p).await),
    ),
    def(
        Method::GET,
        "campaigns/{ad}/history",
        Read,
        plain!(|s, c, p| stats::history(s, c, p).await),
    ),
    def(
        Method::POST,
        "campaigns/{ad}/pause",
        Write,
        plain!(|s, c, p| campaign_edit::switch(s, c, p, false).await),
    ),
    def(
        Method::POST,
        "campaigns/{ad}/resume",
        Write,
        plain!(|s, c, p| campaign_edit::switch(s, c, p, true).await),
    ),
    def(
        Method::POST,
        "campaigns/{ad}/budget",
        Write,
        idempotent!(|s, c, p, _claim| Ok((campaign_edit::budget(s, c, p).await?, false))),
    ),
    def(
        Method::POST,
        "campaigns/{ad}/copy",
        Write,
        idempotent!(|s, c, p, claim| campaign_create::copy(s, c, p, claim).await),
    ),
    def(
        Method::POST,
        "campaigns/{ad}/recreate",
        Write,
        idempotent!(|s, c, p, claim| campaign_create::recreate(s, c, p, claim).await),
    ),
    def(
        Method::GET,
        "tasks/{id}",
        Read,
        plain!(|s, c, p| tasks::get(s, c, p).await),
    ),
    upload(
        Method::POST,
        "media",
        Write,
        plain!(|s, c, _p| media::upload(s, c).await),
    ),
    def(
        Method::GET,
        "stats",
        Read,
        plain!(|s, c, _p| stats::by_campaign(s, c).await),
    ),
    def(
        Method::GET,
        "stats/total",
        Read,
        plain!(|s, c, _p| stats::total(s, c).await),
    ),
    def(
        Method::POST,
        "postback",
        Conversions,
        plain!(|s, c, _p| postback::postback(s, c).await),
    ),
    def(
        Method::GET,
        "conversions",
        Read,
        plain!(|s, c, _p| conversions::list(s, c).await),
    ),
    def(
        Method::GET,
        "rules",
        Read,
        plain!(|s, c, _p| rules::list(s, c).await),
    ),
    def(
        Method::POST,
        "rules",
        Write,
        plain!(|s, c, _p| rules::create(s, c).await),
    ),
    def(
        Method::GET,
        "rules/{id}",
        Read,
        plain!(|s, c, p| rules::get(s, c, p).await),
    ),
    def(
        Method::PATCH,
        "rules/{id}",
        Write,
        plain!(|s, c, p| rules::edit(s, c, p).await),
    ),
    def(
        Method::DELETE,
        "rules/{id}",
        Write,
        plain!(|s, c, p| rules::delete(s, c, p).await),
    ),
    def(
        Method::GET,
        "rules/{id}/log",
        Read,
        plain!(|s, c, p| rules::log(s, c, p).await),
    ),
    def(
        Method::POST,
        "rules/{id}/preview",
        Read,
        plain!(|s, c, p| rules::preview(s, c, p).await),
    ),
    def(
        Method::GET,
        "rule-templates",
        Read,
        plain!(|s, c, _p| rules::templates(s, c).await),
    ),
    def(
        Method::GET,
        "proposals",
        Read,
        plain!(|s, c, _p| proposals::list(s, c).await),
    ),
    def(
        Method::POST,
        "proposals/{id}/approve",
        Write,
        plain!(|s, c, p| proposals::approve(s, c, p).await),
    ),
    def(
        Method::POST,
        "proposals/{id}/reject",
        Write,
        plain!(|s, c, p| proposals::reject(s, c, p).await),
    ),
    def(
        Method::POST,
        "cabinets",
        Write,
        idempotent!(|s, c, _p, claim| funds::create(s, c, claim).await),
    ),
    def(
        Method::POST,
        "cabinets/{account_id}/funds",
        Write,
        idempotent!(|s, c, p, claim| funds::move_funds(s, c, p, claim).await),
    ),
    def(
        Method::GET,
        "cabinets/{account_id}/transactions",
        Read,
        plain!(|s, c, p| funds::transactions(s, c, p).await),
    ),
    def(
        Method::GET,
        "cabinets/{account_id}/statement",
        Read,
        plain!(|s, c, p| statement::show(s, c, p).await),
    ),
];

/// A request's route: its line of the table, the `{...}` segment and the path after the prefix.
pub struct Route {
    pub def: &'static Def,
    pub param: String,
    pub path: String,
}

/// What a path names: an API route (authenticated by `X-API-Key`), or the tracker URL,
/// whose token in the path is its credential.
pub enum Endpoint {
    Api(Route),
    Ingest(String),
    /// Answered without a key, outside the rate limits and the envelope.
    Unkeyed(Unkeyed),
}

/// The endpoints for machines rather than API clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unkeyed {
    /// `/healthz` or `/readyz`.
    Probe(Probe),
    /// `/metrics`, on the main listener unless `[metrics] listen` gives it its own.
    Metrics,
    /// `/api/v1/openapi.json`.
    OpenApi,
    /// `/api/docs`, the reference page.
    Docs,
}

/// The path of the OpenAPI document.
pub const OPENAPI_PATH: &str = "/api/v1/openapi.json";

/// How `pattern` matches `segments`: `None`, or the placeholder's value and how many
/// segments matched literally (the most literal patterns win: `campaigns/bulk` over
/// `campaigns/{ad}`).
fn matches<'p>(pattern: &str, segments: &[&'p str]) -> Option<(&'p str, usize)> {
    let parts: Vec<&str> = pattern.split('/').collect();
    if parts.len() != segments.len() {
        return None;
    }
    let mut param = "";
    let mut literal = 0;
    for (part, segment) in parts.iter().zip(segments) {
        if part.starts_with('{') {
            if segment.is_empty() {
                return None;
            }
            param = segment;
        } else if part == segment {
            literal += 1;
        } else {
            return None;
        }
    }
    Some((param, literal))
}

/// Finds the endpoint of a method and path: `ROUTE_NOT_FOUND` for an unknown path,
/// `METHOD_NOT_ALLOWED` (with the path's methods) for a known path with another method.
pub fn resolve(method: &Method, path: &str) -> Result<Endpoint, ApiError> {
    let unkeyed = match path {
        "/healthz" => Some(Unkeyed::Probe(Probe::Live)),
        "/readyz" => Some(Unkeyed::Probe(Probe::Ready)),
        "/metrics" => Some(Unkeyed::Metrics),
        OPENAPI_PATH => Some(Unkeyed::OpenApi),
        super::docs::DOCS_PATH => Some(Unkeyed::Docs),
        _ => None,
    };
    if let Some(unkeyed) = unkeyed {
        return match *method {
            Method::GET | Method::HEAD => Ok(Endpoint::Unkeyed(unkeyed)),
            _ => Err(ApiError::MethodNotAllowed {
                allow: "GET, HEAD".into(),
            }),
        };
    }
    let rest = path
        .strip_prefix(PREFIX)
        .ok_or(ApiError::RouteNotFound)?
        .trim_end_matches('/');
    let segments: Vec<&str> = rest.split('/').collect();
    if let ["ingest", token] = segments.as_slice() {
        if !token.is_empty() {
            return match method.as_str() {
                "GET" | "POST" => Ok(Endpoint::Ingest(token.to_string())),
                _ => Err(ApiError::MethodNotAllowed {
                    allow: "GET, POST".into(),
                }),
            };
        }
    }
    let found: Vec<(&'static Def, &str, usize)> = ROUTES
        .iter()
        .filter_map(|d| matches(d.pattern, &segments).map(|(p, literal)| (d, p, literal)))
        .collect();
    let best = found
        .iter()
        .map(|(_, _, literal)| *literal)
        .max()
        .ok_or(ApiError::RouteNotFound)?;
    let candidates = found.iter().filter(|(_, _, literal)| *literal == best);
    if let Some((def, param, _)) = candidates.clone().find(|(d, _, _)| d.method == method) {
        return Ok(Endpoint::Api(Route {
            def,
            param: param.to_string(),
            path: format!("/{rest}"),
        }));
    }
    let allow: Vec<&str> = candidates.map(|(d, _, _)| d.method.as_str()).collect();
    Err(ApiError::MethodNotAllowed {
        allow: allow.join(", "),
    })
}

/// Runs the route's handler, under the request's `Idempotency-Key` where the route takes one.
pub async fn dispatch(state: &AppState, route: &Route, ctx: &Ctx) -> Result<Reply, ApiError> {
    match route.def.handler {
        Handler::Plain(handler) => handler(state, ctx, &route.param).await,
        Handler::Idempotent(handler) => {
            idempotency::guarded(
                state,
                ctx,
                route.def.method.as_str(),
                &route.path,
                |claim| handler(state, ctx, &route.param, claim),
            )
            .await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(method: Method, path: &str) -> (&'static str, Method, String) {
        match resolve(&method, path).unwrap() {
            Endpoint::Api(r) => (r.def.pattern, r.def.method.clone(), r.param),
            Endpoint::Ingest(token) => ("ingest", method, token),
            Endpoint::Unkeyed(Unkeyed::Probe(probe)) => ("health", method, format!("{probe:?}")),
            Endpoint::Unkeyed(other) => ("unkeyed", method, format!("{other:?}")),
        }
    }

    #[test]
    fn the_health_probes_sit_outside_the_api_prefix() {
        assert_eq!(
            found(Method::GET, "/healthz"),
            ("health", Method::GET, "Live".into())
        );
        assert_eq!(
            found(Method::GET, "/readyz"),
            ("health", Method::GET, "Ready".into())
        );
        assert!(resolve(&Method::GET, "/api/v1/healthz").is_err());
        assert_eq!(
            found(Method::GET, "/metrics"),
            ("unkeyed", Method::GET, "Metrics".into())
        );
        assert_eq!(
            found(Method::GET, "/api/v1/openapi.json"),
            ("unkeyed", Method::GET, "OpenApi".into())
        );
    }

    #[test]
    fn resolves_known_paths_and_refuses_others() {
        assert_eq!(
            found(Method::GET, "/api/v1/account/info"),
            ("account/info", Method::GET, String::new())
        );
        assert_eq!(
            found(Method::GET, "/api/v1/campaigns/12/"),
            ("campaigns/{ad}", Method::GET, "12".into())
        );
        assert_eq!(
            found(Method::POST, "/api/v1/campaigns/bulk"),
            ("campaigns/bulk", Method::POST, String::new())
        );
        assert_eq!(
            found(Method::GET, "/api/v1/ingest/trk_abc"),
            ("ingest", Method::GET, "trk_abc".into())
        );
        assert_eq!(
            found(Method::POST, "/api/v1/campaigns/3/pause"),
            ("campaigns/{ad}/pause", Method::POST, "3".into())
        );
        for (method, path, error) in [
            (Method::GET, "/api/v1/nope", ApiError::RouteNotFound),
            (Method::GET, "/v1/targeting", ApiError::RouteNotFound),
            (
                Method::POST,
                "/api/v1/campaigns/3/fly",
                ApiError::RouteNotFound,
            ),
            (Method::GET, "/api/v1/tasks/", ApiError::RouteNotFound),
            (
                Method::PUT,
                "/api/v1/targeting",
                ApiError::MethodNotAllowed {
                    allow: "GET".into(),
                },
            ),
            (
                Method::GET,
                "/api/v1/campaigns/3/budget",
                ApiError::MethodNotAllowed {
                    allow: "POST".into(),
                },
            ),
            (
                Method::GET,
                "/api/v1/campaigns/bulk",
                ApiError::MethodNotAllowed {
                    allow: "POST".into(),
                },
            ),
            (
                Method::PUT,
                "/api/v1/campaigns/3",
                ApiError::MethodNotAllowed {
                    allow: "GET, PATCH, DELETE".into(),
                },
            ),
            (
                Method::DELETE,
                "/api/v1/campaigns",
                ApiError::MethodNotAllowed {
                    allow: "GET, POST".into(),
                },
            ),
        ] {
            assert_eq!(resolve(&method, path).err(), Some(error), "{method} {path}");
        }
    }

    #[test]
    fn every_change_is_a_write_and_only_creates_copies_recreates_bulk_and_budget_take_a_key() {
        for d in &ROUTES {
            let idempotent = matches!(d.handler, Handler::Idempotent(_));
            let expected = d.method == Method::POST
                && [
                    "campaigns",
                    "campaigns/bulk",
                    "campaigns/{ad}/budget",
                    "campaigns/{ad}/copy",
                    "campaigns/{ad}/recreate",
                    "cabinets",
                    "cabinets/{account_id}/funds",
                ]
                .contains(&d.pattern);
            assert_eq!(idempotent, expected, "{} {}", d.method, d.pattern);
            // A preview is a POST that changes nothing: any key may ask for one.
            let reads = d.method == Method::GET || d.pattern == "rules/{id}/preview";
            assert_eq!(
                d.budget == Budget::Read,
                reads,
                "{} {}",
                d.method,
                d.pattern
            );
        }
    }
}
