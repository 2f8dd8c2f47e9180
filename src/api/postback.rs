//! Owns the inbound conversion endpoints: `POST /v1/postback` (one event from a JSON body, or
//! from the query string when there is no body; or `{events: [...]}`, at most 1,000) and
//! `GET /v1/ingest/<token>` (one event from the query string; the write-only tracker token
//! stands for its holder). Each event is charged against the sender's conversion budget:
//! when the budget covers only some events of a batch, the first ones go ahead and the rest
//! fail with `RATE_LIMITED`.

use hyper::StatusCode;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::error::ApiError;
use super::Ctx;
use crate::auth::AuthError;
use crate::domain::conversion::RawEvent;
use crate::domain::fields::Entries;
use crate::domain::ParseError;
use crate::http::AppState;
use crate::http::Query;
use crate::http::Reply;
use crate::ops::ingest::{Recorded, Refusal, Sender};
use crate::primitives::unix_now_f64;
use crate::ratelimit::{self, RateInfo};

/// Events one batch may carry.
pub const MAX_BATCH: usize = 1000;

/// What a postback body holds; a batch's events are still unread.
enum Shape<'a> {
    Single(RawEvent),
    Batch(Vec<&'a RawValue>),
}

fn shape(ctx: &Ctx) -> Result<Shape<'_>, ApiError> {
    if ctx.body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Shape::Single(RawEvent::from_pairs(
            ctx.query.pairs().to_vec(),
        )));
    }
    let not_json = |e| ApiError::validation("body", format!("The body is not valid JSON: {e}."));
    let Ok(Entries(top)) = serde_json::from_slice::<Entries<&RawValue>>(&ctx.body) else {
        let body: Value = serde_json::from_slice(&ctx.body).map_err(not_json)?;
        return Ok(Shape::Single(RawEvent::from_json(body)?));
    };
    match top.into_iter().rev().find(|(name, _)| name == "events") {
        Some((_, events)) => match serde_json::from_str::<Vec<&RawValue>>(events.get()) {
            Ok(events) if (1..=MAX_BATCH).contains(&events.len()) => Ok(Shape::Batch(events)),
            _ => Err(ApiError::validation(
                "events",
                format!("events must be an array of 1 to {MAX_BATCH} events."),
            )),
        },
        None => Ok(Shape::Single(event(ctx.body.as_ref())?)),
    }
}

/// Reads one event object of valid JSON.
fn event(json: &[u8]) -> Result<RawEvent, ParseError> {
    match serde_json::from_slice::<Entries<Value>>(json) {
        Ok(Entries(fields)) => RawEvent::from_fields(fields),
        Err(_) => Err(RawEvent::not_an_object()),
    }
}

/// `POST /v1/postback` with an API key that has Receive postbacks on.
pub async fn postback(state: &AppState, ctx: &Ctx) -> Result<Reply, ApiError> {
    let key = &ctx.principal.key;
    if !key.postbacks {
        return Err(ApiError::IngestDisabled);
    }
    let sender = Sender {
        holder: key.user_id,
        accounts: ctx.principal.active().map(|r| r.cabinet.id).collect(),
    };
    let bucket = ratelimit::Sender::Key(key.id);
    let mut rate = None;
    let reply = match shape(ctx)? {
        Shape::Single(raw) => single(state, sender, bucket, raw, &mut rate).await,
        Shape::Batch(events) => batch(state, sender, bucket, events, &mut rate).await,
    };
    *ctx.rate.lock().unwrap_or_else(|p| p.into_inner()) = rate;
    reply
}

/// `GET /v1/ingest/<token>`: the tracker URL.
pub async fn by_token(
    state: &AppState,
    token: &str,
    query: &Query,
    rate: &mut Option<RateInfo>,
) -> Result<Reply, ApiError> {
    let token = token.to_string();
    let (holder, accounts) = state
        .services
        .db
        .read(move |c| crate::auth::tracker(c, &token))
        .await?;
    let raw = RawEvent::from_pairs(query.pairs().to_vec());
    let sender = Sender { holder, accounts };
    single(state, sender, ratelimit::Sender::Tracker(holder), raw, rate).await
}

/// Charges `wanted` events; `RATE_LIMITED` when not one is left.
fn charge(
    state: &AppState,
    bucket: ratelimit::Sender,
    wanted: usize,
    rate: &mut Option<RateInfo>,
) -> Result<usize, ApiError> {
    let (granted, info) = state
        .limiter
        .take_events(bucket, wanted as u32, unix_now_f64());
    *rate = Some(info);
    if !info.allowed {
        return Err(ApiError::RateLimited {
            retry_after: state.limiter.events_retry_after(),
        });
    }
    Ok(granted as usize)
}

async fn single(
    state: &AppState,
    sender: Sender,
    bucket: ratelimit::Sender,
    raw: RawEvent,
    rate: &mut Option<RateInfo>,
) -> Result<Reply, ApiError> {
    let event = raw.parse()?;
    charge(state, bucket, 1, rate)?;
    let outcome = state.ingest.record(sender, vec![event]).await?;
    match outcome.into_iter().next() {
        Some(Ok(r)) => Reply::ok(Stored::from(&r)),
        Some(Err(refusal)) => Err(refused(refusal)),
        None => Err(ApiError::internal("the ingest writer gave no outcome")),
    }
}

async fn batch(
    state: &AppState,
    sender: Sender,
    bucket: ratelimit::Sender,
    events: Vec<&RawValue>,
    rate: &mut Option<RateInfo>,
) -> Result<Reply, ApiError> {
    let granted = charge(state, bucket, events.len(), rate)?;
    let retry_after = state.limiter.events_retry_after();
    let total = events.len();
    let mut checked: Vec<Result<(), ApiError>> = Vec::with_capacity(total);
    let mut valid = Vec::with_capacity(granted);
    for (i, e) in events.into_iter().enumerate() {
        let event = if i >= granted {
            Err(ApiError::RateLimited { retry_after })
        } else {
            event(e.get().as_bytes())
                .and_then(|raw| raw.parse())
                .map_err(ApiError::from)
        };
        checked.push(event.map(|event| valid.push(event)));
    }
    let sent = valid.len();
    let recorded = state.ingest.record(sender, valid).await?;
    if recorded.len() != sent {
        return Err(ApiError::internal(format!(
            "the ingest writer answered {} outcomes for {sent} events",
            recorded.len()
        )));
    }
    let mut recorded = recorded.into_iter().map(|o| o.map_err(refused));
    let outcomes: Vec<Result<Recorded, ApiError>> = checked
        .into_iter()
        .map(|c| {
            c.and_then(|()| {
                recorded
                    .next()
                    .expect("one outcome per event, checked above")
            })
        })
        .collect();
    let accepted = outcomes.iter().filter(|o| o.is_ok()).count();
    let answer = BatchAnswer {
        accepted,
        failed: total - accepted,
        results: outcomes.iter().enumerate().map(Element::of).collect(),
    };
    let mut reply = Reply::ok_status::<ApiError>(StatusCode::ACCEPTED, answer)?;
    if granted < total {
        reply
            .headers
            .push(("retry-after".into(), retry_after.to_string()));
    }
    Ok(reply)
}

/// A stored event as answered: `id` as a string, `ad_id` the first of `ad_ids`.
#[derive(Serialize)]
struct Stored<'a> {
    id: String,
    ad_id: Option<i64>,
    ad_ids: &'a [i64],
    account_id: i64,
    event_type: &'static str,
    deduped: bool,
}

impl<'a> From<&'a Recorded> for Stored<'a> {
    fn from(r: &'a Recorded) -> Stored<'a> {
        Stored {
            id: r.id.to_string(),
            ad_id: r.ad_ids.first().copied(),
            ad_ids: &r.ad_ids,
            account_id: r.account_id,
            event_type: r.event_type.as_str(),
            deduped: r.deduped,
        }
    }
}

/// The spec's answer to an event the service would not store.
fn refused(refusal: Refusal) -> ApiError {
    match refusal {
        Refusal::AccountNotFound => ApiError::Auth(AuthError::AccountNotFound),
        Refusal::RefNotFound => ApiError::RefNotFound,
        Refusal::AmbiguousRef => ApiError::AmbiguousRef,
    }
}

/// A batch's answer.
#[derive(Serialize)]
struct BatchAnswer<'a> {
    accepted: usize,
    failed: usize,
    results: Vec<Element<'a>>,
}

/// One element of a batch's `results`: the stored event, or the error it would have been
/// answered alone (without `success` and `request_id`), with its `index` and `ok`.
#[derive(Serialize)]
#[serde(untagged)]
enum Element<'a> {
    Stored {
        index: usize,
        ok: bool,
        #[serde(flatten)]
        stored: Stored<'a>,
    },
    Failed(Value),
}

impl<'a> Element<'a> {
    fn of((index, outcome): (usize, &'a Result<Recorded, ApiError>)) -> Element<'a> {
        match outcome {
            Ok(r) => Element::Stored {
                index,
                ok: true,
                stored: r.into(),
            },
            Err(e) => {
                let mut element = e.body("");
                if let Some(fields) = element.as_object_mut() {
                    fields.remove("success");
                    fields.remove("request_id");
                    fields.insert("index".into(), json!(index));
                    fields.insert("ok".into(), json!(false));
                }
                Element::Failed(element)
            }
        }
    }
}
