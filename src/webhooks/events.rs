//! Owns turning what happened into webhook events in the outbox: `status_change` (every
//! unsent status change, one event per cabinet and receiving key; a change to `Declined`
//! carries the platform's `decline_reason`, others `null`), `cabinet_funds` (a client
//! cabinet's transfer settled), `hourly_digest` (a cabinet's closed hour: top campaigns by
//! spend, totals over all), `alert` (a rule's notice), `rule_fired` (a `webhook` rule's run, its payload made by
//! `jobs::automation`) and `report` (a cabinet's scheduled
//! client report, its figures). Only keys whose holder reaches the cabinet receive its events.
//! Queues inside the caller's write transaction; a closed hour's digests are built before it,
//! on readers.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use rusqlite::Connection;
use serde_json::{json, Map, Value};

use crate::auth;
use crate::clock;
use crate::domain::ad::DeclineReason;
use crate::domain::money::CabinetType;
use crate::domain::stats::{number, Totals};
use crate::store::campaigns::{self, Named};
use crate::store::StoreError;
use crate::store::{cabinets, events, keys, outbox, stats};

/// Campaigns listed in one digest at most; `totals` still cover all of them.
pub const DIGEST_TOP: usize = 200;

/// Which keys receive which cabinets' events, as of now.
pub struct Receivers(Vec<(i64, HashSet<i64>)>);

impl Receivers {
    /// Active keys with a webhook URL, each with the active cabinets its holder reaches
    /// within the key's scope, while the holder's plan includes API access.
    pub fn load(conn: &Connection) -> Result<Receivers, StoreError> {
        let mut list = Vec::new();
        for key in keys::with_webhook(conn)? {
            let id = key.id;
            let Some(p) = auth::principal(conn, key)? else {
                continue;
            };
            if p.plan_includes_api {
                list.push((id, p.active().map(|r| r.cabinet.id).collect()));
            }
        }
        Ok(Receivers(list))
    }

    pub fn of(&self, account: i64) -> impl Iterator<Item = i64> + '_ {
        self.0
            .iter()
            .filter(move |(_, reach)| reach.contains(&account))
            .map(|(key, _)| *key)
    }

    /// Every cabinet some key receives, in order.
    pub fn cabinets(&self) -> BTreeSet<i64> {
        self.0
            .iter()
            .flat_map(|(_, reach)| reach.iter().copied())
            .collect()
    }
}

/// Puts one event into the outbox for every key receiving the cabinet's events.
fn queue(
    conn: &Connection,
    receivers: &Receivers,
    account: i64,
    event: &str,
    payload: &Value,
    now: &str,
) -> Result<usize, StoreError> {
    queue_text(conn, receivers, account, event, &payload.to_string(), now)
}

/// [`queue`] with the payload already written out.
fn queue_text(
    conn: &Connection,
    receivers: &Receivers,
    account: i64,
    event: &str,
    text: &str,
    now: &str,
) -> Result<usize, StoreError> {
    let mut queued = 0;
    for key in receivers.of(account) {
        let delivery = uuid::Uuid::new_v4().to_string();
        outbox::insert(conn, key, event, &delivery, text, now)?;
        queued += 1;
    }
    Ok(queued)
}

/// Turns every unsent status change into `status_change` events: one per cabinet (holding all
/// its changes, in order) and receiving key. Returns how many events were queued.
pub fn queue_status_changes(conn: &Connection) -> Result<usize, StoreError> {
    let unsent = events::unsent(conn)?;
    let Some(last) = unsent.last().map(|u| u.id) else {
        return Ok(0);
    };
    let mut by_cabinet: BTreeMap<i64, Vec<Value>> = BTreeMap::new();
    for u in unsent {
        by_cabinet.entry(u.account_id).or_default().push(json!({
            "ad_id": u.ad_id,
            "tme_path": u.tme_path,
            "old_status": u.old_status,
            "new_status": u.new_status,
            "decline_reason": u.decline_reason.as_ref().map(DeclineReason::shown),
        }));
    }
    let receivers = Receivers::load(conn)?;
    let now = clock::iso(clock::now(conn)?);
    let mut queued = 0;
    for (account, changes) in by_cabinet {
        let payload = json!({
            "event": "status_change",
            "account_id": account,
            "changes": changes,
        });
        queued += queue(conn, &receivers, account, "status_change", &payload, &now)?;
    }
    events::mark_sent(conn, last)?;
    Ok(queued)
}

/// Queues an `alert` (a rule's notify action, or a built-in alert of `kind`) for every key of
/// `receivers` receiving the cabinet's events. Returns how many events were queued.
pub fn queue_alert(
    conn: &Connection,
    receivers: &Receivers,
    account: i64,
    ad: Option<i64>,
    kind: &str,
    text: &str,
    at: &str,
) -> Result<usize, StoreError> {
    let payload = json!({
        "event": "alert",
        "kind": kind,
        "account_id": account,
        "ad_id": ad,
        "text": text,
        "at": at,
    });
    let now = clock::iso(clock::now(conn)?);
    queue(conn, receivers, account, "alert", &payload, &now)
}

/// Queues an event of another owner's making (a rule's `rule_fired`) for every key of
/// `receivers` receiving the cabinet's events. Returns how many events were queued.
pub fn queue_event(
    conn: &Connection,
    receivers: &Receivers,
    account: i64,
    event: &str,
    payload: &Value,
) -> Result<usize, StoreError> {
    let now = clock::iso(clock::now(conn)?);
    queue(conn, receivers, account, event, payload, &now)
}

/// Queues a `cabinet_funds` event (a transfer between a client cabinet and its main account
/// that settled, or failed) for every key receiving the cabinet's events.
pub fn queue_funds(conn: &Connection, account: i64, payload: &Value) -> Result<usize, StoreError> {
    let receivers = Receivers::load(conn)?;
    let now = clock::iso(clock::now(conn)?);
    queue(conn, &receivers, account, "cabinet_funds", payload, &now)
}

/// Every cabinet some key receives: those with an `hourly_digest` of each hour ([`digest`]).
pub fn receiving_cabinets(conn: &Connection) -> Result<Vec<i64>, StoreError> {
    Ok(Receivers::load(conn)?.cabinets().into_iter().collect())
}

/// Queues each cabinet's digest ([`digest`], as text) for every key receiving the cabinet's
/// events now.
/// A cabinet whose first receiving key came after the digests were built gets none for the
/// hour.
pub fn queue_digests(conn: &Connection, digests: &[(i64, String)]) -> Result<usize, StoreError> {
    let receivers = Receivers::load(conn)?;
    let now = clock::iso(clock::now(conn)?);
    let mut queued = 0;
    for (account, text) in digests {
        queued += queue_text(conn, &receivers, *account, "hourly_digest", text, &now)?;
    }
    Ok(queued)
}

/// One cabinet's `hourly_digest` of the hour starting at `hour`, or `None` for an idle hour
/// (no views, clicks, spend, actions or status changes in it). It only reads, so readers build
/// the digests of a closed hour and the writer only queues them ([`queue_digests`]).
pub fn digest(
    conn: &Connection,
    account: i64,
    hour: DateTime<Utc>,
) -> Result<Option<Value>, StoreError> {
    let Some(cabinet) = cabinets::get(conn, account)? else {
        return Ok(None);
    };
    let end = hour + Duration::hours(1);
    let (start_iso, end_iso) = (clock::iso(hour), clock::iso(end));
    let (with_stats, totals) = stats::hour_total(conn, account, &start_iso)?;
    let mut lines = stats::top_of_hour(conn, account, &start_iso, DIGEST_TOP)?;
    // Campaigns whose status changed in the hour without a gain follow, by ad_id.
    let mut changed = 0;
    for ad in events::changed_between(conn, account, &start_iso, &end_iso)? {
        if stats::gained_in(conn, account, &start_iso, ad)? {
            continue;
        }
        changed += 1;
        if lines.len() < DIGEST_TOP {
            let named = campaigns::named(conn, account, ad)?;
            lines.push((ad, Totals::default(), named));
        }
    }
    let total = with_stats + changed;
    if total == 0 {
        return Ok(None);
    }
    let listed: Vec<Value> = lines
        .iter()
        .map(|(ad, t, named)| digest_line(*ad, t, named.as_ref(), cabinet.cabinet_type))
        .collect();
    let mut payload = Map::new();
    payload.insert("event".into(), json!("hourly_digest"));
    payload.insert(
        "period".into(),
        json!({
            "start": hour.to_rfc3339_opts(SecondsFormat::Secs, true),
            "end": end.to_rfc3339_opts(SecondsFormat::Secs, true),
        }),
    );
    payload.insert("account_id".into(), json!(account));
    payload.insert(
        "totals".into(),
        json!({
            "views": totals.views,
            "clicks": totals.clicks,
            "spent": number(totals.spent.to_decimal()),
            "actions": totals.actions,
        }),
    );
    payload.insert("campaigns".into(), Value::Array(listed));
    if total > DIGEST_TOP {
        payload.insert(
            "truncated".into(),
            json!({ "omitted": total - DIGEST_TOP, "total": total }),
        );
    }
    Ok(Some(Value::Object(payload)))
}

fn digest_line(ad: i64, t: &Totals, row: Option<&Named>, kind: CabinetType) -> Value {
    json!({
        "ad_id": ad,
        "tme_path": row.and_then(|r| r.tme_path.as_deref()),
        "title": row.map(|r| r.title.as_str()),
        "status": row.map(|r| r.status.as_str()),
        "views": t.views,
        "clicks": t.clicks,
        "spent": number(t.spent.to_decimal()),
        "actions": t.actions,
        "cpm": row.map(|r| kind.render(r.cpm)),
        "budget": row.map(|r| kind.render(r.budget)),
    })
}

/// Queues a `report` event (a scheduled client report: `figures` with `event` and
/// `account_id` added) for every key receiving the cabinet's events. Returns how many.
pub fn queue_report(conn: &Connection, account: i64, figures: &Value) -> Result<usize, StoreError> {
    let mut payload = Map::new();
    payload.insert("event".into(), json!("report"));
    payload.insert("account_id".into(), json!(account));
    if let Value::Object(fields) = figures {
        for (k, v) in fields {
            payload.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    let receivers = Receivers::load(conn)?;
    let now = clock::iso(clock::now(conn)?);
    queue(
        conn,
        &receivers,
        account,
        "report",
        &Value::Object(payload),
        &now,
    )
}
