//! Owns the route table: every path and method of the API under `/api/v1`, which request
//! budget each counts against, and the dispatch to its handler. The one place to find an endpoint.

use hyper::Method;

use super::error::ApiError;
use super::media::MULTIPART_OVERHEAD;
use super::response::Reply;
use super::{
    account, bulk, campaign_create, campaign_edit, campaigns, conversions, groups, idempotency,
    media, postback, stats, targeting, tasks, AppState, Ctx,
};
use crate::domain::media::MAX_FILE;
use crate::ratelimit::Budget;

/// Every path the API serves begins with this.
pub const PREFIX: &str = "/api/v1/";

/// Largest JSON body a call may send.
const MAX_JSON_BODY: usize = 2 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    AccountInfo,
    Targeting,
    Groups,
    ListCampaigns,
    GetCampaign(String),
    EditCampaign(String),
    PauseCampaign(String),
    ResumeCampaign(String),
    MoveBudget(String),
    DeleteCampaign(String),
    CreateCampaigns,
    CopyCampaign(String),
    Bulk,
    GetTask(String),
    UploadMedia,
    Stats,
    StatsTotal,
    CampaignHistory(String),
    Postback,
    Conversions,
}

/// What a path names: an API route (authenticated by `X-API-Key`), or the tracker URL,
/// whose token in the path is its credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Api(Route),
    Ingest(String),
}

impl Route {
    pub fn budget(&self) -> Budget {
        match self {
            Route::AccountInfo
            | Route::Targeting
            | Route::Groups
            | Route::ListCampaigns
            | Route::GetCampaign(_)
            | Route::GetTask(_)
            | Route::Stats
            | Route::StatsTotal
            | Route::CampaignHistory(_)
            | Route::Conversions => Budget::Read,
            Route::Postback => Budget::Conversions,
            Route::EditCampaign(_)
            | Route::PauseCampaign(_)
            | Route::ResumeCampaign(_)
            | Route::MoveBudget(_)
            | Route::DeleteCampaign(_)
            | Route::CreateCampaigns
            | Route::CopyCampaign(_)
            | Route::Bulk
            | Route::UploadMedia => Budget::Write,
        }
    }

    /// Whether the handler receives the body as a stream (to disk) instead of whole.
    pub fn streams_body(&self) -> bool {
        matches!(self, Route::UploadMedia)
    }

    /// How much body the route reads, and the error past that.
    pub fn body_limit(&self) -> (usize, ApiError) {
        match self {
            Route::UploadMedia => (MAX_FILE + MULTIPART_OVERHEAD, ApiError::FileTooLarge),
            _ => (MAX_JSON_BODY, ApiError::BodyTooLarge),
        }
    }
}

/// Finds the endpoint of a method and path: `ROUTE_NOT_FOUND` for an unknown path,
/// `METHOD_NOT_ALLOWED` for a known path with another method.
pub fn resolve(method: &Method, path: &str) -> Result<Endpoint, ApiError> {
    let rest = path.strip_prefix(PREFIX).ok_or(ApiError::RouteNotFound)?;
    match rest
        .trim_end_matches('/')
        .split('/')
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["ingest", token] if !token.is_empty() => match method.as_str() {
            "GET" | "POST" => Ok(Endpoint::Ingest(token.to_string())),
            _ => Err(ApiError::MethodNotAllowed { allow: "GET, POST" }),
        },
        _ => resolve_api(method, rest).map(Endpoint::Api),
    }
}

fn resolve_api(method: &Method, rest: &str) -> Result<Route, ApiError> {
    let segments: Vec<&str> = rest.trim_end_matches('/').split('/').collect();
    let m = method.as_str();
    let not_allowed = |allow| Err(ApiError::MethodNotAllowed { allow });
    match segments.as_slice() {
        ["postback"] if m == "POST" => Ok(Route::Postback),
        ["conversions"] if m == "GET" => Ok(Route::Conversions),
        ["postback"] => not_allowed("POST"),
        ["conversions"] => not_allowed("GET"),
        ["account", "info"] if m == "GET" => Ok(Route::AccountInfo),
        ["targeting"] if m == "GET" => Ok(Route::Targeting),
        ["groups"] if m == "GET" => Ok(Route::Groups),
        ["stats"] if m == "GET" => Ok(Route::Stats),
        ["stats", "total"] if m == "GET" => Ok(Route::StatsTotal),
        ["account", "info"] | ["targeting"] | ["groups"] | ["stats"] | ["stats", "total"] => {
            not_allowed("GET")
        }
        ["campaigns"] => match m {
            "GET" => Ok(Route::ListCampaigns),
            "POST" => Ok(Route::CreateCampaigns),
            _ => not_allowed("GET, POST"),
        },
        ["campaigns", "bulk"] => match m {
            "POST" => Ok(Route::Bulk),
            _ => not_allowed("POST"),
        },
        ["media"] => match m {
            "POST" => Ok(Route::UploadMedia),
            _ => not_allowed("POST"),
        },
        ["tasks", id] if !id.is_empty() => match m {
            "GET" => Ok(Route::GetTask(id.to_string())),
            _ => not_allowed("GET"),
        },
        ["campaigns", ad] if !ad.is_empty() => {
            let ad = ad.to_string();
            match m {
                "GET" => Ok(Route::GetCampaign(ad)),
                "PATCH" => Ok(Route::EditCampaign(ad)),
                "DELETE" => Ok(Route::DeleteCampaign(ad)),
                _ => not_allowed("GET, PATCH, DELETE"),
            }
        }
        ["campaigns", ad, "history"] if !ad.is_empty() => match m {
            "GET" => Ok(Route::CampaignHistory(ad.to_string())),
            _ => not_allowed("GET"),
        },
        ["campaigns", ad, action] if !ad.is_empty() => {
            let ad = ad.to_string();
            let route = match *action {
                "pause" => Route::PauseCampaign(ad),
                "resume" => Route::ResumeCampaign(ad),
                "budget" => Route::MoveBudget(ad),
                "copy" => Route::CopyCampaign(ad),
                _ => return Err(ApiError::RouteNotFound),
            };
            if m == "POST" {
                Ok(route)
            } else {
                not_allowed("POST")
            }
        }
        _ => Err(ApiError::RouteNotFound),
    }
}

pub async fn dispatch(state: &AppState, route: Route, ctx: &Ctx) -> Result<Reply, ApiError> {
    match route {
        Route::AccountInfo => account::info(ctx),
        Route::Targeting => Ok(targeting::lists()),
        Route::Groups => groups::list(state, ctx).await,
        Route::ListCampaigns => campaigns::list(state, ctx).await,
        Route::GetCampaign(ad) => campaigns::get(state, ctx, &ad).await,
        Route::EditCampaign(ad) => campaign_edit::edit(state, ctx, &ad).await,
        Route::PauseCampaign(ad) => campaign_edit::switch(state, ctx, &ad, false).await,
        Route::ResumeCampaign(ad) => campaign_edit::switch(state, ctx, &ad, true).await,
        Route::GetTask(id) => tasks::get(state, ctx, &id).await,
        Route::UploadMedia => media::upload(state, ctx).await,
        Route::Stats => stats::by_campaign(state, ctx).await,
        Route::StatsTotal => stats::total(state, ctx).await,
        Route::CampaignHistory(ad) => stats::history(state, ctx, &ad).await,
        Route::Postback => postback::postback(state, ctx).await,
        Route::Conversions => conversions::list(state, ctx).await,
        Route::CreateCampaigns => {
            idempotency::guarded(state, ctx, "POST", "/campaigns", |claim| {
                campaign_create::create(state, ctx, claim)
            })
            .await
        }
        Route::CopyCampaign(ad) => {
            let path = format!("/campaigns/{ad}/copy");
            idempotency::guarded(state, ctx, "POST", &path, |claim| {
                campaign_create::copy(state, ctx, &ad, claim)
            })
            .await
        }
        Route::Bulk => {
            idempotency::guarded(state, ctx, "POST", "/campaigns/bulk", |claim| {
                bulk::bulk(state, ctx, claim)
            })
            .await
        }
        Route::MoveBudget(ad) => {
            let path = format!("/campaigns/{ad}/budget");
            idempotency::guarded(state, ctx, "POST", &path, |_| async {
                campaign_edit::budget(state, ctx, &ad)
                    .await
                    .map(|r| (r, false))
            })
            .await
        }
        Route::DeleteCampaign(ad) => campaign_edit::delete(state, ctx, &ad).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_known_paths_and_refuses_others() {
        assert_eq!(
            resolve(&Method::GET, "/api/v1/account/info").unwrap(),
            Endpoint::Api(Route::AccountInfo)
        );
        assert_eq!(
            resolve(&Method::GET, "/api/v1/campaigns/12/").unwrap(),
            Endpoint::Api(Route::GetCampaign("12".into()))
        );
        assert_eq!(
            resolve(&Method::GET, "/api/v1/ingest/trk_abc").unwrap(),
            Endpoint::Ingest("trk_abc".into())
        );
        assert_eq!(
            resolve(&Method::GET, "/api/v1/nope").unwrap_err(),
            ApiError::RouteNotFound
        );
        assert_eq!(
            resolve(&Method::GET, "/v1/targeting").unwrap_err(),
            ApiError::RouteNotFound
        );
        assert_eq!(
            resolve(&Method::PUT, "/api/v1/targeting").unwrap_err(),
            ApiError::MethodNotAllowed { allow: "GET" }
        );
        assert_eq!(
            resolve(&Method::POST, "/api/v1/campaigns/3/pause").unwrap(),
            Endpoint::Api(Route::PauseCampaign("3".into()))
        );
        assert_eq!(
            resolve(&Method::GET, "/api/v1/campaigns/3/budget").unwrap_err(),
            ApiError::MethodNotAllowed { allow: "POST" }
        );
        assert_eq!(
            resolve(&Method::POST, "/api/v1/campaigns/3/fly").unwrap_err(),
            ApiError::RouteNotFound
        );
    }
}
