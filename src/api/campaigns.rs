//! Owns the campaign read endpoints: `GET /v1/campaigns` (filters, cursor and offset pages,
//! reduced objects) and `GET /v1/campaigns/{ad_id}` (the full object, re-read from the platform
//! when the stored copy is older than five minutes, the stored copy when it does not answer).

use std::time::Duration;

use serde_json::json;

use super::campaign_object::{write_list, Full, Reduced};
use super::error::ApiError;
use super::request;
use super::Ctx;
use crate::auth::AuthError;
use crate::clock;
use crate::domain::campaign::Status;
use crate::domain::money::CabinetType;
use crate::http::AppState;
use crate::http::Reply;
use crate::ops::campaigns::list::{encode_cursor, list_request, ListRequest};
use crate::ops::{returns, write_back};
use crate::store::auto_cpm;
use crate::store::campaigns::{self as repo, CampaignRow, Page};
use crate::store::StoreError;

/// Room for one campaign of the list encoded (about 570 bytes with short texts and one
/// currency of revenue; long texts and several currencies take more), for sizing the
/// answer's buffer once.
const LISTED_BYTES: usize = 1024;

/// A stored copy older than this is re-read from the platform before a single read answers.
const FRESHNESS: chrono::Duration = chrono::Duration::minutes(5);
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
    let cursor = q.text("cursor").map(str::to_string);
    let orders = state.services.db.figure_orders();
    // The page is written in the reader's turn, beside the rows it has just read: handed to
    // the async side, rows read on another core took 1.7 times as long to encode (0.77 ms
    // against 0.46 for 500 rows over 100 cabinets, through serde_json), a quarter of the
    // request.
    state
        .services
        .db
        .read(move |conn| {
            let currency = |account: i64| {
                kinds
                    .iter()
                    .find(|(id, _)| *id == account)
                    .map(|(_, k)| *k)
                    .unwrap_or(CabinetType::Euro)
            };
            let (rows, more) = repo::list(conn, &orders, &filter, &page)?;
            let day = crate::clock::now(conn)?.date_naive();
            let returns = rows
                .iter()
                .map(|row| returns::of_campaign(conn, row, currency(row.account_id), day))
                .collect::<Result<Vec<_>, _>>()?;
            let meta = match page {
                Page::Cursor { .. } => json!({
                    "limit": limit,
                    "cursor": cursor,
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
            Reply::ok_written_page(meta, rows.len() * LISTED_BYTES, |out| {
                write_list(
                    out,
                    rows.iter().zip(&returns).map(|(row, returns)| {
                        Reduced::of(row, currency(row.account_id)).with_conversions(returns)
                    }),
                )
            })
        })
        .await
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
    let (row, returns, auto) = state
        .services
        .db
        .read(move |c| {
            let day = crate::clock::now(c)?.date_naive();
            let returns = returns::of_campaign(c, &row, kind, day)?;
            let auto = auto_cpm::get(c, account, ad)?.map(|m| m.settings);
            Ok::<_, ApiError>((row, returns, auto))
        })
        .await?;
    Reply::ok(
        Full::of(&row, kind)
            .with_conversions(&returns)
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
        _ => Err(ApiError::Auth(AuthError::AccountIdRequired {
            why: "this ad_id exists in several of this key's cabinets",
        })),
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
    let call = state.platform_call(wait, move |s| write_back::reread(s, account, ad));
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
