//! Owns the stats endpoints, answered from the stored hourly stats without asking the
//! platform: `GET /v1/stats` (per campaign, keyed by account id then ad id),
//! `GET /v1/stats/total` (per account) and `GET /v1/campaigns/{ad_id}/history` (one
//! campaign's aggregate over a period). Every figure is a JSON number.

use serde_json::{json, Map, Value};

use super::campaigns::locate;
use super::error::ApiError;
use super::Ctx;
use crate::clock;
use crate::domain::stats::{history_span, stats_span, HistoryQuery, Span, Totals};
use crate::http::AppState;
use crate::http::Reply;
use crate::store::StoreError;
use crate::store::{campaigns, runs};

/// Each campaign's figures over the span, per cabinet; `all` reads the lifetime counters.
fn per_campaign(
    conn: &rusqlite::Connection,
    account: i64,
    span: &Span,
) -> Result<Vec<(i64, Totals)>, StoreError> {
    match span.from {
        Some(from) => runs::per_campaign(conn, account, &clock::iso(from), &clock::iso(span.to)),
        None => campaigns::lifetime(conn, account),
    }
}

/// A cabinet's sums over the span and how many of its campaigns have figures in it.
fn per_cabinet(
    conn: &rusqlite::Connection,
    account: i64,
    span: &Span,
) -> Result<(usize, Totals), StoreError> {
    let Some(from) = span.from else {
        let campaigns = campaigns::lifetime(conn, account)?;
        return Ok((campaigns.len(), campaigns.iter().map(|(_, t)| t).sum()));
    };
    runs::cabinet_total(conn, account, &clock::iso(from), &clock::iso(span.to))
}

/// What a stats read found: the cabinets it covers (with their currencies), the span of
/// `period`, and what `read` found of each cabinet in it.
struct Found<T> {
    cabinets: Vec<(i64, &'static str)>,
    span: Span,
    read: Vec<T>,
}

async fn find<T: Send + 'static>(
    state: &AppState,
    ctx: &Ctx,
    read: fn(&rusqlite::Connection, i64, &Span) -> Result<T, StoreError>,
) -> Result<Found<T>, ApiError> {
    let cabinets: Vec<(i64, &'static str)> = ctx
        .principal
        .scope(ctx.query.account_id()?)?
        .iter()
        .map(|r| (r.cabinet.id, r.cabinet.cabinet_type.currency()))
        .collect();
    let now = state.services.db.read(clock::now).await?;
    let span = stats_span(ctx.query.text("period"), now);
    let (ids, read_span): (Vec<i64>, Span) = (cabinets.iter().map(|c| c.0).collect(), span.clone());
    let read = state
        .services
        .db
        .read(move |c| {
            ids.iter()
                .map(|id| read(c, *id, &read_span))
                .collect::<Result<Vec<_>, StoreError>>()
        })
        .await?;
    Ok(Found {
        cabinets,
        span,
        read,
    })
}

impl<T> Found<T> {
    fn meta(&self) -> Value {
        let currencies: Map<String, Value> = self
            .cabinets
            .iter()
            .map(|(id, currency)| (id.to_string(), json!(currency)))
            .collect();
        json!({
            "period": self.span.period,
            "from": self.span.from.map(clock::iso),
            "to": clock::iso(self.span.to),
            "currencies": currencies,
        })
    }
}

/// `GET /v1/stats`: `data[account_id][ad_id]` holds the figures of every campaign with any in
/// the period.
pub async fn by_campaign(state: &AppState, ctx: &Ctx) -> Result<Reply, ApiError> {
    let found = find(state, ctx, per_campaign).await?;
    let mut data = Map::new();
    for ((account, _), campaigns) in found.cabinets.iter().zip(&found.read) {
        let ads: Map<String, Value> = campaigns
            .iter()
            .map(|(ad, t)| (ad.to_string(), t.metrics()))
            .collect();
        data.insert(account.to_string(), Value::Object(ads));
    }
    Reply::ok_meta(Value::Object(data), found.meta())
}

/// `GET /v1/stats/total`: `data[account_id]` sums every campaign of the cabinet, with the
/// cabinet's currency and how many campaigns had figures.
pub async fn total(state: &AppState, ctx: &Ctx) -> Result<Reply, ApiError> {
    let found = find(state, ctx, per_cabinet).await?;
    let mut data = Map::new();
    for ((account, currency), (campaigns, sum)) in found.cabinets.iter().zip(&found.read) {
        let mut figures = sum.metrics();
        figures["currency"] = json!(currency);
        figures["campaigns"] = json!(campaigns);
        data.insert(account.to_string(), figures);
    }
    Reply::ok_meta(Value::Object(data), found.meta())
}

/// `GET /v1/campaigns/{ad_id}/history`: the campaign's figures over the period, as one
/// aggregate; `404 NOT_FOUND` when it has no stats there.
pub async fn history(state: &AppState, ctx: &Ctx, ad: &str) -> Result<Reply, ApiError> {
    let q = &ctx.query;
    let query = HistoryQuery {
        period: q.text("period"),
        start_date: q.text("startDate"),
        end_date: q.text("endDate"),
        start_hour: q.int("startHour", 0, 23)?,
        end_hour: q.int("endHour", 0, 23)?,
    };
    let now = state.services.db.read(clock::now).await?;
    let span = history_span(&query, now)?;
    let (account, ad) = locate(state, ctx, ad).await?;
    let (from, to) = (
        span.from.map(clock::iso).unwrap_or_default(),
        clock::iso(span.to),
    );
    let found = state
        .services
        .db
        .read(move |c| {
            if campaigns::status_of(c, account, ad)?.is_none() {
                return Err(ApiError::CampaignNotFound);
            }
            Ok(runs::of_campaign(c, account, ad, &from, &to)?)
        })
        .await?;
    let totals = found.ok_or(ApiError::NoStats)?;
    Reply::ok_meta(
        totals.metrics(),
        json!({
            "adId": ad,
            "accountId": account,
            "period": span.period,
            "from": span.from.map(clock::iso),
            "to": clock::iso(span.to),
        }),
    )
}
