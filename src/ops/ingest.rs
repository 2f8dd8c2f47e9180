//! Owns recording inbound conversions, the service's highest-volume write. Each event is
//! attributed (its ref or invite link, to campaigns the sender reaches) and stored, or
//! updated when its `txid` was seen. Requests are grouped: one writer thread takes every
//! request waiting, commits all their events in one transaction, and only then answers each
//! of them, so every accepted event is committed before its answer and many requests share
//! one commit. The queue in front of the writer is bounded: when it stays full, a request is
//! answered "busy" (503) instead of waiting without end.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

use crate::clock;
use crate::db::Db;
use crate::domain::conversion::{Event, EventType, Target};
use crate::metrics::Metrics;
use crate::store::conversions::Recorder;
use crate::store::refs;
use crate::store::StoreError;

/// Events one transaction takes at most; more wait for the next one.
const GROUP_EVENTS: usize = 20_000;
/// Requests that may wait for the writer (each holds at most a batch of 1,000 events).
const QUEUE: usize = 256;
/// How long a request waits for a place in the queue before it is told "busy".
const QUEUE_WAIT: Duration = Duration::from_secs(5);

/// Who sent events: the person whose key or tracker token it was, and the active cabinets
/// they reach through it.
#[derive(Debug, Clone)]
pub struct Sender {
    pub holder: i64,
    pub accounts: Vec<i64>,
}

/// An event that was stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub id: i64,
    pub account_id: i64,
    pub ad_ids: Vec<i64>,
    pub event_type: EventType,
    /// An event with this `txid` existed and was updated.
    pub deduped: bool,
}

/// Why an event was not stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The event names an `account_id` its sender does not reach.
    AccountNotFound,
    /// No campaign the sender reaches carries its ref or invite link.
    RefNotFound,
    /// Campaigns in several of the sender's cabinets carry it.
    AmbiguousRef,
}

/// What became of one event.
pub type Outcome = Result<Recorded, Refusal>;

struct Job {
    sender: Sender,
    events: Vec<Event>,
    answer: oneshot::Sender<Result<Vec<Outcome>, StoreError>>,
}

/// The handle requests use; dropping it ends the writer thread and waits for it.
pub struct Ingest {
    /// Taken when dropped, which closes the queue.
    jobs: Option<mpsc::Sender<Job>>,
    writer: Option<std::thread::JoinHandle<()>>,
}

impl Ingest {
    pub fn start(db: Db, metrics: Arc<Metrics>) -> Ingest {
        let (jobs, queue) = mpsc::channel(QUEUE);
        let writer = std::thread::Builder::new()
            .name("adcab-ingest".into())
            .spawn(move || writer(db, &metrics, queue))
            .expect("the ingest writer thread starts");
        Ingest {
            jobs: Some(jobs),
            writer: Some(writer),
        }
    }

    /// Records the events (already checked) once they are committed, one outcome per event
    /// in order.
    pub async fn record(
        &self,
        sender: Sender,
        events: Vec<Event>,
    ) -> Result<Vec<Outcome>, StoreError> {
        let (answer, answered) = oneshot::channel();
        let job = Job {
            sender,
            events,
            answer,
        };
        let jobs = self.jobs.as_ref().expect("the queue is open until dropped");
        match jobs.send_timeout(job, QUEUE_WAIT).await {
            Ok(()) => {}
            Err(mpsc::error::SendTimeoutError::Timeout(_)) => return Err(StoreError::Busy),
            Err(mpsc::error::SendTimeoutError::Closed(_)) => {
                return Err(StoreError::Failed("the ingest writer has stopped".into()))
            }
        }
        answered
            .await
            .map_err(|_| StoreError::Failed("the ingest writer dropped a request".into()))?
    }
}

/// Closes the queue and waits for the writer to finish the group in hand (none once the
/// server has answered every request), so that a stopped server no longer has the database
/// open: a restore right after it stops is not refused for this thread's connections.
impl Drop for Ingest {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

fn writer(db: Db, metrics: &Metrics, mut queue: mpsc::Receiver<Job>) {
    while let Some(first) = queue.blocking_recv() {
        let mut size = first.events.len();
        let mut group = vec![first];
        while size < GROUP_EVENTS {
            match queue.try_recv() {
                Ok(job) => {
                    size += job.events.len();
                    group.push(job);
                }
                Err(_) => break,
            }
        }
        let committed = db.write_blocking(|tx| {
            let now = clock::iso(clock::now(tx)?);
            let mut found = HashMap::new();
            let mut recorder = Recorder::new(tx)?;
            let outcomes = group
                .iter()
                .map(|job| {
                    job.events
                        .iter()
                        .map(|event| {
                            let campaigns = campaigns(tx, &mut found, &event.target)?;
                            record(&mut recorder, campaigns, &job.sender, event, &now)
                        })
                        .collect::<Result<Vec<_>, StoreError>>()
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            recorder.finish()?;
            Ok(outcomes)
        });
        let outcome = if committed.is_ok() {
            "recorded"
        } else {
            "failed"
        };
        metrics.ingested(outcome, size as u64);
        match committed {
            Ok(outcomes) => {
                for (job, outcome) in group.into_iter().zip(outcomes) {
                    let _ = job.answer.send(Ok(outcome));
                }
            }
            Err(e) => {
                let busy = matches!(e, StoreError::Busy);
                let text = e.to_string();
                for job in group {
                    let shared = if busy {
                        StoreError::Busy
                    } else {
                        StoreError::Failed(text.clone())
                    };
                    let _ = job.answer.send(Err(shared));
                }
            }
        }
    }
}

/// The campaigns (cabinet, ad) whose links carry `target`, read once per transaction.
fn campaigns<'f>(
    conn: &rusqlite::Connection,
    found: &'f mut HashMap<Target, Vec<(i64, i64)>>,
    target: &Target,
) -> Result<&'f [(i64, i64)], StoreError> {
    if !found.contains_key(target) {
        found.insert(target.clone(), refs::find(conn, target)?);
    }
    Ok(&found[target])
}

/// Attributes one event among the `campaigns` carrying its ref and stores it. Attribution
/// failures are the event's outcome; store failures abort the transaction.
fn record(
    recorder: &mut Recorder,
    campaigns: &[(i64, i64)],
    sender: &Sender,
    event: &Event,
    now: &str,
) -> Result<Outcome, StoreError> {
    if let Some(account) = event.account_id {
        if !sender.accounts.contains(&account) {
            return Ok(Err(Refusal::AccountNotFound));
        }
    }
    let mut reached = campaigns.iter().filter(|(account, _)| {
        sender.accounts.contains(account) && event.account_id.is_none_or(|a| a == *account)
    });
    let Some(&(account, first)) = reached.next() else {
        return Ok(Err(Refusal::RefNotFound));
    };
    let mut ads = vec![first];
    for &(other, ad) in reached {
        if other != account {
            return Ok(Err(Refusal::AmbiguousRef));
        }
        ads.push(ad);
    }
    let (id, deduped) = recorder.upsert(sender.holder, event, account, &ads, now)?;
    Ok(Ok(Recorded {
        id,
        account_id: account,
        ad_ids: ads,
        event_type: event.event,
        deduped,
    }))
}
