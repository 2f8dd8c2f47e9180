//! Owns recording inbound conversions, the service's highest-volume write. Each event is
//! attributed (its ref or invite link, to campaigns the sender reaches) and stored, or
//! updated when its `txid` was seen. The requests that arrive while a write is under way wait
//! for the next: one write of the database's writer records them all in one transaction and
//! each is answered only after its commit, so every accepted event is committed before its
//! answer and many requests share one commit. Should that write fail, each request is recorded
//! again alone, so one request's failure fails no other. The waiting requests are bounded: past
//! [`QUEUE`], or when the writer is busy, a request is answered "busy" (503) instead of
//! waiting without end.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::oneshot;

use rusqlite::Transaction;

use crate::clock;
use crate::db::Db;
use crate::domain::conversion::{Event, EventType, Target};
use crate::metrics::Metrics;
use crate::store::conversions::{Item, Recorder};
use crate::store::refs;
use crate::store::StoreError;

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

/// Requests that may wait to be recorded; one more is answered "busy" at once.
const QUEUE: usize = 256;
/// Events one write records at most; the requests past it wait for the next write.
const GROUP_EVENTS: usize = 20_000;

/// What a request's events became, once committed.
type Answer = oneshot::Sender<Result<Vec<Outcome>, StoreError>>;

/// A request waiting to be recorded.
struct Waiting {
    sender: Sender,
    events: Vec<Event>,
    answer: Answer,
}

/// The requests waiting, and whether a write of them is under way.
#[derive(Default)]
struct Pending {
    queue: VecDeque<Waiting>,
    writing: bool,
}

struct Shared {
    db: Db,
    metrics: Arc<Metrics>,
    pending: Mutex<Pending>,
}

/// Records conversions for requests: the requests that arrive while a write is under way wait
/// for the next one, which records them all in one transaction of the database's writer, so
/// many requests share one commit and one reading of the refs and the totals.
pub struct Ingest {
    shared: Arc<Shared>,
}

impl Ingest {
    pub fn new(db: Db, metrics: Arc<Metrics>) -> Ingest {
        Ingest {
            shared: Arc::new(Shared {
                db,
                metrics,
                pending: Mutex::new(Pending::default()),
            }),
        }
    }

    /// Records the events (already checked) once they are committed, one outcome per event
    /// in order. `Busy` when [`QUEUE`] requests wait already, or the writer is busy.
    pub async fn record(
        &self,
        sender: Sender,
        events: Vec<Event>,
    ) -> Result<Vec<Outcome>, StoreError> {
        let (answer, answered) = oneshot::channel();
        let lead = {
            let mut pending = self.shared.pending.lock();
            if pending.queue.len() >= QUEUE {
                return Err(StoreError::Busy);
            }
            pending.queue.push_back(Waiting {
                sender,
                events,
                answer,
            });
            !std::mem::replace(&mut pending.writing, true)
        };
        if lead {
            tokio::spawn(drain(self.shared.clone()));
        }
        answered
            .await
            .map_err(|_| StoreError::Failed("the conversion writer dropped a request".into()))?
    }
}

/// A drain under way. Dropped before it ended (a write panicked), it drops the requests still
/// waiting (each answered "failed") so that the next request starts a new drain.
struct Draining {
    shared: Arc<Shared>,
    ended: bool,
}

impl Drop for Draining {
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        let stranded = {
            let mut pending = self.shared.pending.lock();
            pending.writing = false;
            std::mem::take(&mut pending.queue)
        };
        drop(stranded);
    }
}

/// Records the waiting requests, a group of at most [`GROUP_EVENTS`] events at a time, until
/// none waits. It ends under the same lock that finds none, so a request queued after that
/// starts a drain of its own and is never left behind.
async fn drain(shared: Arc<Shared>) {
    let mut guard = Draining {
        shared,
        ended: false,
    };
    loop {
        let group = {
            let mut pending = guard.shared.pending.lock();
            let mut size = 0;
            let mut group = Vec::new();
            while let Some(next) = pending.queue.front() {
                if !group.is_empty() && size + next.events.len() > GROUP_EVENTS {
                    break;
                }
                size += next.events.len();
                group.extend(pending.queue.pop_front());
            }
            if group.is_empty() {
                pending.writing = false;
                guard.ended = true;
                return;
            }
            group
        };
        write_group(&guard.shared, group).await;
    }
}

/// Records a group of requests in one write and answers each. Should the write fail for
/// another reason than a busy writer, each request is recorded again alone, so one request's
/// failure fails no other.
async fn write_group(shared: &Shared, group: Vec<Waiting>) {
    let (answers, work): (Vec<Answer>, Vec<(Sender, Vec<Event>)>) = group
        .into_iter()
        .map(|w| (w.answer, (w.sender, w.events)))
        .unzip();
    let work = Arc::new(work);
    let all = work.clone();
    let recorded = shared.db.write(move |tx| record_all(tx, &all)).await;
    let answer = |i: usize, answer: Answer, outcome: Result<Vec<Outcome>, StoreError>| {
        let name = if outcome.is_ok() {
            "recorded"
        } else {
            "failed"
        };
        shared.metrics.ingested(name, work[i].1.len() as u64);
        drop(answer.send(outcome));
    };
    match recorded {
        Ok(outcomes) => {
            for (i, (reply, outcome)) in answers.into_iter().zip(outcomes).enumerate() {
                answer(i, reply, Ok(outcome));
            }
        }
        Err(e) if matches!(e, StoreError::Busy) || answers.len() == 1 => {
            for (i, reply) in answers.into_iter().enumerate() {
                answer(i, reply, Err(e.shared()));
            }
        }
        Err(_) => {
            for (i, reply) in answers.into_iter().enumerate() {
                let all = work.clone();
                let alone = shared
                    .db
                    .write(move |tx| record_all(tx, &all[i..=i]))
                    .await
                    .map(|mut outcomes| outcomes.pop().unwrap_or_default());
                answer(i, reply, alone);
            }
        }
    }
}

/// Attributes and stores the events of several requests in one transaction, one outcome list
/// per request: every event is attributed first, then the attributed ones are stored
/// together, in order.
fn record_all(
    tx: &Transaction,
    requests: &[(Sender, Vec<Event>)],
) -> Result<Vec<Vec<Outcome>>, StoreError> {
    let now = clock::iso(clock::now(tx)?);
    let mut found = HashMap::new();
    let mut attributed = Vec::with_capacity(requests.len());
    for (sender, events) in requests {
        let mut of_request = Vec::with_capacity(events.len());
        for event in events {
            let campaigns = campaigns(tx, &mut found, &event.target)?;
            of_request.push(attribute(campaigns, sender, event));
        }
        attributed.push(of_request);
    }
    let items: Vec<Item> = requests
        .iter()
        .zip(&attributed)
        .flat_map(|((sender, events), attributed)| {
            events
                .iter()
                .zip(attributed)
                .filter_map(move |(event, a)| a.as_ref().ok().map(|a| (sender, event, a)))
        })
        .map(|(sender, event, (account, ads))| Item {
            holder: sender.holder,
            event,
            account: *account,
            ads,
        })
        .collect();
    let mut recorder = Recorder::new(tx)?;
    let mut stored = recorder.record(&items, &now)?.into_iter();
    recorder.finish()?;
    drop(items);
    let outcomes = requests
        .iter()
        .zip(attributed)
        .map(|((_, events), attributed)| {
            events
                .iter()
                .zip(attributed)
                .map(|(event, a)| {
                    let (account_id, ad_ids) = a?;
                    let (id, deduped) = stored
                        .next()
                        .expect("the recorder answers every event it was given");
                    Ok(Recorded {
                        id,
                        account_id,
                        ad_ids,
                        event_type: event.event,
                        deduped,
                    })
                })
                .collect()
        })
        .collect();
    Ok(outcomes)
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

/// Attributes one event among the `campaigns` carrying its ref: the cabinet and the ads it
/// counts for, or why it is refused.
fn attribute(
    campaigns: &[(i64, i64)],
    sender: &Sender,
    event: &Event,
) -> Result<(i64, Vec<i64>), Refusal> {
    if let Some(account) = event.account_id {
        if !sender.accounts.contains(&account) {
            return Err(Refusal::AccountNotFound);
        }
    }
    let mut reached = campaigns.iter().filter(|(account, _)| {
        sender.accounts.contains(account) && event.account_id.is_none_or(|a| a == *account)
    });
    let Some(&(account, first)) = reached.next() else {
        return Err(Refusal::RefNotFound);
    };
    let mut ads = vec![first];
    for &(other, ad) in reached {
        if other != account {
            return Err(Refusal::AmbiguousRef);
        }
        ads.push(ad);
    }
    Ok((account, ads))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{Db, Open};
    use crate::domain::conversion::EventType;

    fn purchase(txid: &str) -> Event {
        Event {
            target: Target::Ref("r".into()),
            event: EventType::Purchase,
            txid: txid.into(),
            amount_micros: Some(1_000_000),
            currency: Some("USD".into()),
            status: None,
            account_id: None,
        }
    }

    /// A database with ad 5 of cabinet 7 carrying ref `r`, whose writer refuses to store an
    /// event with the txid `poison`.
    fn poisoned(dir: &std::path::Path) -> Db {
        let db = Db::open(&dir.join("ingest.db"), Open::Create).unwrap();
        db.write_blocking(|tx| {
            tx.execute_batch(
                "INSERT INTO users (id, email, plan, created_at) VALUES (1, 'a@example.com', 'pro', 't');
                 INSERT INTO cabinets (id, owner_id, name, cabinet_type, balance_updated_at,
                    min_budget, created_at) VALUES (7, 1, 'c', 'euro', 't', 1, 't');",
            )?;
            let ad = crate::domain::ad::AdSnapshot {
                ad_id: 5,
                ..crate::store::campaigns::tests::snapshot()
            };
            crate::store::campaigns::insert(tx, &ad, None, "2026-01-01T00:00:00Z")?;
            refs::replace(tx, 7, 5, &[Target::Ref("r".into())])?;
            tx.execute_batch(
                "CREATE TEMP TRIGGER poison BEFORE INSERT ON conversions
                 WHEN NEW.txid = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned'); END",
            )?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
        db
    }

    /// Sixteen clients sending one event at a time: drains start and end under them, and every
    /// request is answered with its event stored once.
    #[test]
    fn every_request_of_a_crowd_is_answered_with_its_events_stored() {
        let dir = tempfile::tempdir().unwrap();
        let ingest = Arc::new(Ingest::new(poisoned(dir.path()), Arc::new(Metrics::new())));
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .enable_all()
            .build()
            .unwrap();
        let answered: Vec<bool> = rt.block_on(async {
            let tasks: Vec<_> = (0..16)
                .map(|client| {
                    let ingest = ingest.clone();
                    tokio::spawn(async move {
                        let mut ok = Vec::new();
                        for n in 0..60 {
                            let sender = Sender {
                                holder: 1,
                                accounts: vec![7],
                            };
                            let event = purchase(&format!("{client}-{n}"));
                            ok.push(ingest.record(sender, vec![event]).await.is_ok());
                        }
                        ok
                    })
                })
                .collect();
            let mut all = Vec::new();
            for task in tasks {
                all.extend(task.await.unwrap());
            }
            all
        });
        assert_eq!(answered.len(), 960);
        assert!(answered.iter().all(|ok| *ok), "every request answered");
        let stored: i64 = ingest
            .shared
            .db
            .read_blocking(|c| {
                Ok::<_, StoreError>(
                    c.query_row("SELECT COUNT(*) FROM conversions", [], |r| r.get(0))?,
                )
            })
            .unwrap();
        assert_eq!(stored, 960);
    }

    #[test]
    fn requests_share_one_write_and_one_failing_request_fails_no_other() {
        let dir = tempfile::tempdir().unwrap();
        let shared = Shared {
            db: poisoned(dir.path()),
            metrics: Arc::new(Metrics::new()),
            pending: Mutex::new(Pending::default()),
        };
        let sender = Sender {
            holder: 1,
            accounts: vec![7],
        };
        let mut answered = Vec::new();
        let group: Vec<Waiting> = [vec!["a1", "a2"], vec!["poison"], vec!["b1"]]
            .into_iter()
            .map(|txids| {
                let (answer, rx) = oneshot::channel();
                answered.push(rx);
                Waiting {
                    sender: sender.clone(),
                    events: txids.into_iter().map(purchase).collect(),
                    answer,
                }
            })
            .collect();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(write_group(&shared, group));
        let answers: Vec<_> = answered
            .into_iter()
            .map(|rx| rx.blocking_recv().unwrap())
            .collect();
        assert!(matches!(&answers[0], Ok(o) if o.len() == 2 && o.iter().all(Result::is_ok)));
        assert!(answers[1].is_err(), "{:?}", answers[1]);
        assert!(matches!(&answers[2], Ok(o) if o.len() == 1 && o[0].is_ok()));
        let stored: i64 = shared
            .db
            .read_blocking(|c| {
                Ok::<_, StoreError>(
                    c.query_row("SELECT COUNT(*) FROM conversions", [], |r| r.get(0))?,
                )
            })
            .unwrap();
        assert_eq!(stored, 3, "a1, a2 and b1, each once");
    }
}
