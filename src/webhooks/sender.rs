//! Owns emptying the webhook outbox: the oldest waiting event of each key is sent (keys in
//! parallel, each key's events in order), its delivery logged and the event removed in one
//! transaction. An event whose sending was cut short by a crash is sent again after restart
//! with the same delivery id, for the receiver to dedupe. `dispatch` is the one way any
//! webhook leaves the service, the panel's `ping` included.

use std::sync::Arc;
use std::time::Duration;

use chrono::SecondsFormat;
use serde_json::Value;
use tokio::sync::{watch, Notify};

use super::deliver::{self, Outcome};
use crate::clock;
use crate::db;
use crate::services::Services;
use crate::store::keys::KeyRow;
use crate::store::outbox::{self, Pending};
use crate::store::StoreError;
use crate::store::{deliveries, keys};

/// Keys served at once; each waits at most about 21 s (two 10 s attempts and the pause).
const PARALLEL: i64 = 8;
/// How long the sender waits for new events when the outbox is empty.
const IDLE: Duration = Duration::from_secs(1);

/// Sends waiting events until `stop` turns true; deliveries in flight finish first.
pub async fn run(services: Services, wake: Arc<Notify>, mut stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        let batch = services
            .db
            .read(|c| outbox::next_per_key(c, PARALLEL))
            .await;
        match batch {
            Ok(batch) if !batch.is_empty() => {
                let mut sends = tokio::task::JoinSet::new();
                for pending in batch {
                    let s = services.clone();
                    sends.spawn(db::blocking(move || deliver_pending(&s, pending)));
                }
                while let Some(done) = sends.join_next().await {
                    match done {
                        Ok(Ok(Ok(()))) => {}
                        Ok(Ok(Err(e))) => {
                            tracing::error!(error = %e, "webhook delivery could not be recorded")
                        }
                        Ok(Err(panic)) => tracing::error!(%panic, "webhook delivery panicked"),
                        Err(e) => tracing::error!(error = %e, "webhook sender task failed"),
                    }
                }
                continue;
            }
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "cannot read the webhook outbox"),
        }
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(IDLE) => {}
            _ = stop.changed() => {}
        }
    }
}

/// Sends one waiting event to its key as the key stands now (URL and secret), then logs the
/// delivery and removes the event together.
fn deliver_pending(s: &Services, p: Pending) -> Result<(), StoreError> {
    let key = s.db.read_blocking(|c| keys::get(c, p.key_id))?;
    let payload: Value = serde_json::from_str(&p.payload)
        .map_err(|e| StoreError::Corrupt(format!("webhook_outbox.payload of row {}: {e}", p.id)))?;
    let live = key.filter(|k| !k.revoked);
    match live
        .as_ref()
        .and_then(|k| Some((k, k.webhook_url.as_deref()?)))
    {
        Some((key, url)) => {
            dispatch(s, key, url, &p.event, &p.delivery_id, payload, Some(p.id))?;
        }
        None => {
            tracing::info!(key = p.key_id, delivery = %p.delivery_id, "dropped: the key no longer has a webhook");
            s.db.write_blocking(|tx| outbox::remove(tx, p.id))?;
        }
    }
    Ok(())
}

/// Sends `payload` as `event` to the key's webhook `url` now, stamped with `delivered_at` from
/// the service clock, and logs the delivery (removing the outbox row it came from, if any, in
/// the same transaction).
pub fn dispatch(
    s: &Services,
    key: &KeyRow,
    url: &str,
    event: &str,
    delivery_id: &str,
    mut payload: Value,
    outbox_row: Option<i64>,
) -> Result<Outcome, StoreError> {
    let now = s.db.read_blocking(clock::now)?;
    payload["delivered_at"] = Value::String(now.to_rfc3339_opts(SecondsFormat::Millis, true));
    let body = payload.to_string();
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
