//! Owns the route table: every path and method of the API under `/api/v1`, which request
//! budget each counts against, and the dispatch to its handler. The one place to find an endpoint.

use hyper::Method;

use super::response::Reply;
use super::{account, campaigns, groups, targeting, AppState, Ctx};
use crate::error::ApiError;
use crate::ratelimit::Budget;

/// Every path the API serves begins with this.
pub const PREFIX: &str = "/api/v1/";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    AccountInfo,
    Targeting,
    Groups,
    ListCampaigns,
    GetCampaign(String),
}

impl Route {
    pub fn budget(&self) -> Budget {
        match self {
            Route::AccountInfo
            | Route::Targeting
            | Route::Groups
            | Route::ListCampaigns
            | Route::GetCampaign(_) => Budget::Read,
        }
    }
}

/// Finds the route of a method and path: `ROUTE_NOT_FOUND` for an unknown path,
/// `METHOD_NOT_ALLOWED` for a known path with another method.
pub fn resolve(method: &Method, path: &str) -> Result<Route, ApiError> {
    let rest = path.strip_prefix(PREFIX).ok_or(ApiError::RouteNotFound)?;
    let segments: Vec<&str> = rest.trim_end_matches('/').split('/').collect();
    let (allow, route) = match segments.as_slice() {
        ["account", "info"] => ("GET", Route::AccountInfo),
        ["targeting"] => ("GET", Route::Targeting),
        ["groups"] => ("GET", Route::Groups),
        ["campaigns"] => ("GET", Route::ListCampaigns),
        ["campaigns", ad] if !ad.is_empty() => ("GET", Route::GetCampaign(ad.to_string())),
        _ => return Err(ApiError::RouteNotFound),
    };
    if method.as_str() != allow {
        return Err(ApiError::MethodNotAllowed { allow });
    }
    Ok(route)
}

pub async fn dispatch(state: &AppState, route: Route, ctx: &Ctx) -> Result<Reply, ApiError> {
    match route {
        Route::AccountInfo => account::info(ctx),
        Route::Targeting => Ok(targeting::lists()),
        Route::Groups => groups::list(state, ctx).await,
        Route::ListCampaigns => campaigns::list(state, ctx).await,
        Route::GetCampaign(ad) => campaigns::get(state, ctx, &ad).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_known_paths_and_refuses_others() {
        assert_eq!(
            resolve(&Method::GET, "/api/v1/account/info").unwrap(),
            Route::AccountInfo
        );
        assert_eq!(
            resolve(&Method::GET, "/api/v1/campaigns/12/").unwrap(),
            Route::GetCampaign("12".into())
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
    }
}
