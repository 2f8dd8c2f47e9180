//! Owns emptying the webhook outbox: each key with waiting events is served in a lane of its
//! own (up to [`PARALLEL`] keys at once, so a slow receiver holds only its own key), which sends
//! that key's events in order, one after another, each delivery logged and its event removed
//! in one transaction. An event whose sending was cut short by a crash is sent again after
//! restart with the same delivery id, for the receiver to dedupe; a key whose lane failed
//! rests a second before it is served again. `dispatch` is the one way
//! any webhook leaves the service, the panel's `ping` included.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::SecondsFormat;
use tokio::sync::{watch, Notify};
use tokio::task::JoinSet;

use super::deliver::{self, Outcome};
use crate::clock;
use crate::db;
use crate::services::Services;
use crate::store::keys::KeyRow;
use crate::store::outbox::{self, Pending};
use crate::store::StoreError;
use crate::store::{deliveries, keys};

/// Keys served at once; each waits at most about 21 s per event (two 10 s attempts and the
/// pause).
const PARALLEL: usize = 8;
/// Events a key's lane sends before it is handed on, so that a key beyond the first
/// [`PARALLEL`] waits for at most this many of another key's events.
const TURN: usize = 64;
/// How long the sender waits for new events when the outbox is empty, and how long a key
/// whose lane failed (its event could not be read, or its delivery not recorded) rests before
/// its lane starts again: an event sent but not recorded is sent again, once a second at most,
/// not as fast as the store can fail.
const IDLE: Duration = Duration::from_secs(1);

/// Sends waiting events until `stop` turns true; deliveries in flight finish first.
pub async fn run(services: Services, wake: Arc<Notify>, mut stop: watch::Receiver<bool>) {
    let mut lanes = JoinSet::new();
    let mut serving: HashMap<tokio::task::Id, i64> = HashMap::new();
    let mut resting: HashMap<i64, tokio::time::Instant> = HashMap::new();
    while !*stop.borrow() {
        if serving.len() < PARALLEL {
            let now = tokio::time::Instant::now();
            resting.retain(|_, until| *until > now);
            match services.db.read(outbox::waiting_keys).await {
                Ok(keys) => {
                    let free = PARALLEL - serving.len();
                    let idle: Vec<i64> = keys
                        .into_iter()
                        .filter(|key| !serving.values().any(|served| served == key))
                        .filter(|key| !resting.contains_key(key))
                        .take(free)
                        .collect();
                    for key in idle {
                        let (s, stop) = (services.clone(), stop.clone());
                        let lane = lanes.spawn(db::blocking(move || serve_key(&s, key, &stop)));
                        serving.insert(lane.id(), key);
                    }
                }
                Err(e) => tracing::error!(error = %e, "cannot read the webhook outbox"),
            }
        }
        tokio::select! {
            Some(done) = lanes.join_next_with_id(), if !lanes.is_empty() => {
                let id = match &done {
                    Ok((id, _)) => *id,
                    Err(e) => e.id(),
                };
                let key = serving.remove(&id);
                if let (false, Some(key)) = (log_lane(done.map(|(_, result)| result)), key) {
                    resting.insert(key, tokio::time::Instant::now() + IDLE);
                }
            }
            _ = wake.notified() => {}
            _ = tokio::time::sleep(IDLE) => {}
            _ = stop.changed() => {}
        }
    }
    while let Some(done) = lanes.join_next().await {
        log_lane(done);
    }
}

type LaneResult = Result<Result<Result<(), StoreError>, db::Panicked>, tokio::task::JoinError>;

/// Logs how a lane ended; true when it ended well.
fn log_lane(done: LaneResult) -> bool {
    match done {
        Ok(Ok(Ok(()))) => return true,
        Ok(Ok(Err(e))) => tracing::error!(error = %e, "webhook delivery could not be recorded"),
        Ok(Err(panic)) => tracing::error!(%panic, "webhook delivery panicked"),
        Err(e) => tracing::error!(error = %e, "webhook sender task failed"),
    }
    false
}

/// Sends a key's waiting events in order, the oldest first: up to [`TURN`] of them, fewer when
/// `stop` turns true or the key has none left.
fn serve_key(s: &Services, key: i64, stop: &watch::Receiver<bool>) -> Result<(), StoreError> {
    for _ in 0..TURN {
        let Some(pending) = s.db.read_blocking(|c| outbox::oldest_of_key(c, key))? else {
            break;
        };
        deliver_pending(s, pending)?;
        if *stop.borrow() {
            break;
        }
    }
    Ok(())
}

/// Sends one waiting event to its key as the key stands now (URL and secret), then logs the
/// delivery and removes the event together. An event whose stored payload is not a JSON
/// object's text (a damaged row: adcab queues objects only) can never be sent: it is logged
/// and removed, so that it does not hold back the key's later events.
fn deliver_pending(s: &Services, p: Pending) -> Result<(), StoreError> {
    if object_inside(&p.payload).is_none() {
        tracing::error!(key = p.key_id, delivery = %p.delivery_id, "dropped: the stored payload is not a JSON object");
        return s.db.write_blocking(|tx| outbox::remove(tx, p.id));
    }
    let key = s.db.read_blocking(|c| keys::get(c, p.key_id))?;
    let live = key.filter(|k| !k.revoked);
    match live
        .as_ref()
        .and_then(|k| Some((k, k.webhook_url.as_deref()?)))
    {
        Some((key, url)) => {
            dispatch(
                s,
                key,
                url,
                &p.event,
                &p.delivery_id,
                &p.payload,
                Some(p.id),
            )?;
        }
        None => {
            tracing::info!(key = p.key_id, delivery = %p.delivery_id, "dropped: the key no longer has a webhook");
            s.db.write_blocking(|tx| outbox::remove(tx, p.id))?;
        }
    }
    Ok(())
}

/// Sends `payload` (a JSON object's text, without `delivered_at`) as `event` to the key's
/// webhook `url` now, stamped with `delivered_at` from the service clock ([`stamped`]), and
/// logs the delivery (removing the outbox row it came from, if any, in the same transaction).
pub fn dispatch(
    s: &Services,
    key: &KeyRow,
    url: &str,
    event: &str,
    delivery_id: &str,
    payload: &str,
    outbox_row: Option<i64>,
) -> Result<Outcome, StoreError> {
    let now = s.db.read_blocking(clock::now)?;
    let body =
        stamped(payload, &now.to_rfc3339_opts(SecondsFormat::Millis, true)).ok_or_else(|| {
            StoreError::Corrupt(format!("the payload of {delivery_id} is not an object"))
        })?;
    let outcome = deliver::send(
        &s.config.webhooks,
        url,
        &key.webhook_secret,
        event,
        delivery_id,
        body.as_bytes(),
    );
    s.metrics.delivery(outcome.delivered());
    if !outcome.delivered() {
        tracing::warn!(key = key.id, event, delivery = delivery_id, error = ?outcome.error, "webhook not delivered");
    }
    s.db.write_blocking(|tx| {
        deliveries::record(
            tx,
            &deliveries::Sent {
                key: key.id,
                event,
                delivery_id,
                payload: &body,
            },
            &outcome,
            &clock::iso(now),
        )?;
        if let Some(row) = outbox_row {
            outbox::remove(tx, row)?;
        }
        Ok::<_, StoreError>(())
    })?;
    Ok(outcome)
}

/// `payload`, the text of a JSON object without `delivered_at`, with `delivered_at` put first,
/// the rest of the text as it is (the payload is not parsed and written out again: a digest
/// runs to tens of kilobytes); `None` when the text is not an object's.
fn stamped(payload: &str, delivered_at: &str) -> Option<String> {
    let inner = object_inside(payload)?;
    let at = serde_json::Value::from(delivered_at);
    Some(if inner.is_empty() {
        format!("{{\"delivered_at\":{at}}}")
    } else {
        format!("{{\"delivered_at\":{at},{inner}}}")
    })
}

/// What is between the braces of `payload`, the text of a JSON object; `None` when the text is
/// not an object's.
fn object_inside(payload: &str) -> Option<&str> {
    Some(payload.trim().strip_prefix('{')?.strip_suffix('}')?.trim())
}

#[cfg(test)]
mod tests {
    use super::stamped;

    #[test]
    fn a_payload_is_stamped_without_being_written_out_again() {
        let at = "2026-12-01T10:00:00.000Z";
        let payload = r#"{"event":"ping","spent":12.50,"key_id":3}"#;
        let body = stamped(payload, at).unwrap();
        assert_eq!(
            body,
            r#"{"delivered_at":"2026-12-01T10:00:00.000Z","event":"ping","spent":12.50,"key_id":3}"#
        );
        let parsed: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(parsed["delivered_at"], at);
        assert_eq!(
            stamped("{}", at).unwrap(),
            format!("{{\"delivered_at\":\"{at}\"}}")
        );
        assert_eq!(stamped("[1]", at), None);
        assert_eq!(stamped("", at), None);
    }
}
