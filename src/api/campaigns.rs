//! Owns the campaign read endpoints: `GET /v1/campaigns` (filters, cursor and offset pages,
//! reduced objects) and `GET /v1/campaigns/{ad_id}` (the full object, re-read from the platform
//! when the stored copy is older than five minutes, the stored copy when it does not answer).

use std::time::Duration;

use serde_json::json;

use super::campaign_object::{Full, Reduced};
use super::error::ApiError;
use super::request;
use super::Ctx;
use crate::clock;
use crate::domain::campaign::{LinkKind, Status};
use crate::domain::link::normalize_domain;
use crate::domain::money::CabinetType;
use crate::http::AppState;
use crate::http::Query;
use crate::http::Reply;
use crate::primitives::{hex, unhex};
use crate::store::auto_cpm;
use crate::store::campaigns::{self as repo, CampaignRow, DomainMode, ListFilter, Page, SortKey};
use crate::store::conversions as conversion_store;
use crate::store::StoreError;
use crate::sync;

/// A stored copy older than this is re-read from the platform before a single read answers.
const FRESHNESS: chrono::Duration = chrono::Duration::minutes(5);
const DEFAULT_LIMIT: i64 = 100;
const MAX_LIMIT: i64 = 500;

/// What a list request asks for: the filter, the page and its size.
pub struct ListRequest {
    pub filter: ListFilter,
    pub page: Page,
    pub limit: i64,
}

/// Reads a list request's filters, sort and page from `q` over the cabinets `accounts` (the
/// API's and the panel's campaign lists take the same parameters).
pub fn list_request(q: &Query, accounts: Vec<i64>) -> Result<ListRequest, ApiError> {
    let filter = ListFilter {
        accounts,
        statuses: statuses(q)?,
        title: q.text("title").map(str::to_string),
        username: q
            .text("bot_username")
            .map(|u| u.trim_start_matches('@').to_ascii_lowercase()),
        domain: domain(q)?,
        kind: q
            .text("type")
            .map(|t| {
                LinkKind::parse(t).ok_or_else(|| {
                    ApiError::validation("type", "type must be bot, channel or site.")
                })
            })
            .transpose()?,
    };
    let limit = q.int("limit", 1, MAX_LIMIT)?.unwrap_or(DEFAULT_LIMIT);
    let cursor_mode = q.get("cursor").is_some()
        || filter.username.is_some()
        || filter.domain.is_some()
        || filter.kind.is_some();
    let page = if cursor_mode {
        if q.text("offset").is_some() {
            return Err(ApiError::validation(
                "offset",
                "offset cannot be combined with cursor pagination (cursor, bot_username, promote_domain, type).",
            ));
        }
        let after = q.text("cursor").map(decode_cursor).transpose()?;
        Page::Cursor { after, limit }
    } else {
        Page::Offset {
            offset: q.int("offset", 0, repo::OFFSET_DEPTH)?.unwrap_or(0),
            limit,
            sort: q
                .text("sortBy")
                .map(|s| {
                    SortKey::parse(s).ok_or_else(|| {
                        ApiError::validation(
                            "sortBy",
                            format!("sortBy must be one of {}.", SortKey::NAMES),
                        )
                    })
                })
                .transpose()?
                .unwrap_or(SortKey::Date),
            descending: match q.text("sortOrder").map(str::to_ascii_lowercase).as_deref() {
                None | Some("desc") => true,
                Some("asc") => false,
                Some(_) => {
                    return Err(ApiError::validation(
                        "sortOrder",
                        "sortOrder must be asc or desc.",
                    ))
                }
            },
        }
    };
    Ok(ListRequest {
        filter,
        page,
        limit,
    })
}

pub async fn list(state: &AppState, ctx: &Ctx) -> Result<Reply, ApiError> {
    let q = &ctx.query;
    let scope = ctx.principal.scope(q.account_id()?)?;
    let kinds: Vec<(i64, CabinetType)> = scope
        .iter()
        .map(|r| (r.cabinet.id, r.cabinet.cabinet_type))
        .collect();
    let ListRequest {
        filter,
        page,
        limit,
    } = list_request(q, kinds.iter().map(|(id, _)| *id).collect())?;
    let (rows, more, summaries) = state
        .services
        .db
        .read(move |conn| {
            let (rows, more) = repo::list(conn, &filter, &page)?;
            let summaries = conversion_store::summaries_of(conn, &rows)?;
            Ok::<_, ApiError>((rows, more, summaries))
        })
        .await?;
    let currency = |account: i64| {
        kinds
            .iter()
            .find(|(id, _)| *id == account)
            .map(|(_, k)| *k)
            .unwrap_or(CabinetType::Euro)
    };
    let data: Vec<Reduced> = rows
        .iter()
        .zip(&summaries)
        .map(|(row, summary)| Reduced::of(row, currency(row.account_id)).with_conversions(summary))
        .collect();
    let meta = match page {
        Page::Cursor { .. } => json!({
            "limit": limit,
            "cursor": q.text("cursor"),
            "next_cursor": rows.last().filter(|_| more).map(|r| encode_cursor(r.account_id, r.ad_id)),
            "hasMore": more,
        }),
        Page::Offset { offset, .. } => json!({
            "limit": limit,
            "cursor": null,
            "next_cursor": null,
            "hasMore": more,
            "offset": offset,
        }),
    };
    Reply::ok_meta(&data, meta)
}

pub async fn get(state: &AppState, ctx: &Ctx, ad: &str) -> Result<Reply, ApiError> {
    let (account, ad) = locate(state, ctx, ad).await?;
    let kind = ctx.principal.cabinet(account)?.cabinet.cabinet_type;
    let row = state
        .services
        .db
        .read(move |c| repo::get(c, account, ad))
        .await?
        .ok_or(ApiError::CampaignNotFound)?;
    let row = fresh(state, row).await?;
    let (row, summary, auto) = state
        .services
        .db
        .read(move |c| {
            let summary = conversion_store::summary_of(c, &row)?;
            let auto = auto_cpm::get(c, account, ad)?.map(|m| m.settings);
            Ok::<_, ApiError>((row, summary, auto))
        })
        .await?;
    Reply::ok(
        Full::of(&row, kind)
            .with_conversions(&summary)
            .with_auto_cpm(auto.as_ref(), kind),
    )
}

/// The `(account_id, ad_id)` a path's `ad_id` names: in the `account_id` given, or in the
/// only reachable cabinet holding that `ad_id` (`ACCOUNT_ID_REQUIRED` when several do).
pub async fn locate(state: &AppState, ctx: &Ctx, ad: &str) -> Result<(i64, i64), ApiError> {
    let ad = request::ad_id(ad)?;
    if let Some(id) = ctx.query.account_id()? {
        return Ok((ctx.principal.cabinet(id)?.cabinet.id, ad));
    }
    let ids: Vec<i64> = ctx.principal.active().map(|r| r.cabinet.id).collect();
    let found = state
        .services
        .db
        .read(move |c| repo::cabinets_with_ad(c, ad, &ids))
        .await?;
    match found.as_slice() {
        [] => Err(ApiError::CampaignNotFound),
        [only] => Ok((*only, ad)),
        _ => Err(ApiError::AccountIdRequired {
            why: "this ad_id exists in several of this key's cabinets",
        }),
    }
}

/// Re-reads the ad from the platform when the stored copy is stale; keeps the stored copy when
/// the platform fails or does not answer within the configured time.
async fn fresh(state: &AppState, row: CampaignRow) -> Result<CampaignRow, ApiError> {
    let db = state.services.db.clone();
    let now = db.read(clock::now).await?;
    let synced = clock::parse_iso(&row.synced_at).ok_or_else(|| {
        ApiError::internal(format!(
            "campaigns.synced_at of ({}, {}) holds {:?}",
            row.account_id, row.ad_id, row.synced_at
        ))
    })?;
    if row.status == Status::Deleted || now - synced < FRESHNESS {
        return Ok(row);
    }
    let (account, ad) = (row.account_id, row.ad_id);
    let wait = Duration::from_millis(state.services.config.platform.read_timeout_ms);
    let call = state.platform_call(wait, move |s| sync::reread(s, account, ad));
    match call.await {
        Ok(Some(Ok(Ok(())))) => db
            .read(move |c| repo::get(c, account, ad))
            .await?
            .ok_or(ApiError::CampaignNotFound),
        Ok(Some(Ok(Err(e)))) => {
            tracing::info!(account, ad, error = %e, "platform read failed; serving the stored copy");
            Ok(row)
        }
        Ok(Some(Err(e))) => Err(e.into()),
        Err(StoreError::Busy) => {
            tracing::info!(
                account,
                ad,
                "platform calls are saturated; serving the stored copy"
            );
            Ok(row)
        }
        Err(e) => Err(e.into()),
        Ok(None) => {
            tracing::info!(
                account,
                ad,
                "platform read timed out; serving the stored copy"
            );
            Ok(row)
        }
    }
}

fn statuses(q: &Query) -> Result<Option<Vec<Status>>, ApiError> {
    q.text("status")
        .map(|list| {
            list.split(',')
                .filter(|s| !s.trim().is_empty())
                .map(|s| {
                    Status::parse(s).ok_or_else(|| {
                        ApiError::validation("status", format!("Unknown status '{}'.", s.trim()))
                    })
                })
                .collect()
        })
        .transpose()
}

fn domain(q: &Query) -> Result<Option<(String, DomainMode)>, ApiError> {
    let mode = match q.text("promote_domain_mode") {
        None | Some("exact") => DomainMode::Exact,
        Some("suffix") => DomainMode::Suffix,
        Some(_) => {
            return Err(ApiError::validation(
                "promote_domain_mode",
                "promote_domain_mode must be exact or suffix.",
            ))
        }
    };
    q.text("promote_domain")
        .map(|d| {
            let host = normalize_domain(d);
            if host.is_empty() {
                return Err(ApiError::validation(
                    "promote_domain",
                    "promote_domain names no host.",
                ));
            }
            Ok((host, mode))
        })
        .transpose()
}

pub fn encode_cursor(account: i64, ad: i64) -> String {
    hex(format!("v1:{account}:{ad}").as_bytes())
}

fn decode_cursor(cursor: &str) -> Result<(i64, i64), ApiError> {
    let bad = || ApiError::validation("cursor", "The cursor is not one this service issued.");
    let bytes = unhex(cursor).ok_or_else(bad)?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    let mut parts = text.split(':');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("v1"), Some(a), Some(b), None) => {
            Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
        }
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_bad_ones_are_refused() {
        let c = encode_cursor(5_000_000_001, 42);
        assert_eq!(decode_cursor(&c).unwrap(), (5_000_000_001, 42));
        assert!(decode_cursor("zz").is_err());
        assert!(decode_cursor(&hex(b"v2:1:2")).is_err());
        assert!(decode_cursor("abc").is_err());
    }
}
