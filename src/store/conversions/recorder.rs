//! Owns storing conversion events in bulk: new rows of `conversions` inserted [`CHUNK`] to a
//! statement, an event whose `txid` was seen updating its row, its campaign kept in its row
//! when it is attributed to one (`ad_id`), else its `conversion_campaigns` attributions written
//! [`CHUNK`] to a statement, and what they change in `conversion_totals` written once per
//! campaign, event type and currency.

use std::collections::HashMap;

use rusqlite::{params, CachedStatement, Connection};

use super::{join, split};
use crate::domain::conversion::{Event, Target};
use crate::store::{optional, StoreError};

/// Rows one statement inserts: a batch's events are inserted this many at a time (one
/// statement run instead of one per row), the rest one by one.
const CHUNK: usize = 50;

/// An event to store: its sender, and the campaigns (`ads` of cabinet `account`) it is
/// attributed to.
pub struct Item<'e> {
    pub holder: i64,
    pub event: &'e Event,
    pub account: i64,
    pub ads: &'e [i64],
}

/// The statements that store events, prepared once for the many events of one transaction,
/// the attributions not yet written, and what the stored events change in their campaigns'
/// `conversion_totals`, written by [`Recorder::finish`].
pub struct Recorder<'c> {
    conn: &'c Connection,
    insert_many: CachedStatement<'c>,
    insert_one: CachedStatement<'c>,
    previous: CachedStatement<'c>,
    update: CachedStatement<'c>,
    detach: CachedStatement<'c>,
    attribute_many: CachedStatement<'c>,
    attribute_one: CachedStatement<'c>,
    /// Attributions (conversion, cabinet, ad) still to be written.
    attributions: Vec<(i64, i64, i64)>,
    changes: HashMap<TotalKey, Change>,
}

/// A row of `conversion_totals`: campaign, event type and currency (`''` without an amount).
type TotalKey = (i64, i64, String, String);

/// What stored events add to one row of `conversion_totals` (negative for a replaced event).
#[derive(Default)]
struct Change {
    count: i64,
    amount: i128,
}

/// Values an inserted row binds besides `now` (`?1`, its `received_at` and `updated_at`).
const INSERT_VALUES: usize = 10;

/// The statement inserting `rows` new events, each skipped when its sender sent its `txid`
/// before, returning the rows it inserted.
fn insert_sql(rows: usize) -> String {
    let values: Vec<String> = (0..rows)
        .map(|row| {
            let at = 2 + row * INSERT_VALUES;
            let mut place: Vec<String> =
                (at..at + INSERT_VALUES).map(|i| format!("?{i}")).collect();
            place.extend(["?1".into(), "?1".into()]);
            format!("({})", place.join(", "))
        })
        .collect();
    // OR IGNORE rather than ON CONFLICT DO NOTHING: the same for the one constraint an event
    // can meet (every other column is bound from checked values), and, as no row can abort
    // it, SQLite keeps no statement journal (a copy of each page before the statement
    // changed it) for this statement of many rows. A row it ignored is updated after it.
    format!(
        "INSERT OR IGNORE INTO conversions (holder_id, txid, event_type, ref, invite_link,
            amount_micros, currency, status, account_id, ad_id, received_at, updated_at)
         VALUES {}
         RETURNING id, holder_id, txid",
        values.join(", ")
    )
}

/// The statement writing `rows` attributions.
fn attribute_sql(rows: usize) -> String {
    let values: Vec<&str> = (0..rows).map(|_| "(?, ?, ?)").collect();
    format!(
        "INSERT INTO conversion_campaigns (conversion_id, account_id, ad_id) VALUES {}",
        values.join(", ")
    )
}

impl<'c> Recorder<'c> {
    pub fn new(conn: &'c Connection) -> Result<Recorder<'c>, StoreError> {
        Ok(Recorder {
            conn,
            insert_many: conn.prepare_cached(&insert_sql(CHUNK))?,
            insert_one: conn.prepare_cached(&insert_sql(1))?,
            previous: conn.prepare_cached(
                "SELECT id, event_type, amount_micros, currency, account_id, ad_id
                 FROM conversions WHERE holder_id = ?1 AND txid = ?2",
            )?,
            update: conn.prepare_cached(
                "UPDATE conversions SET event_type = ?3, ref = ?4, invite_link = ?5,
                    amount_micros = ?6, currency = ?7, status = ?8, account_id = ?9,
                    ad_id = ?10, updated_at = ?11
                 WHERE holder_id = ?1 AND txid = ?2",
            )?,
            detach: conn.prepare_cached(
                "DELETE FROM conversion_campaigns WHERE conversion_id = ?1
                 RETURNING account_id, ad_id",
            )?,
            attribute_many: conn.prepare_cached(&attribute_sql(CHUNK))?,
            attribute_one: conn.prepare_cached(&attribute_sql(1))?,
            attributions: Vec::new(),
            changes: HashMap::new(),
        })
    }

    /// Stores each item's event, in order: a new row, or an update of the row with the same
    /// sender and `txid` (sent before, or earlier in `items`), its attribution replaced and
    /// what it had added to its campaigns' totals taken back. Returns each event's id and
    /// whether it was an update.
    pub fn record(&mut self, items: &[Item], now: &str) -> Result<Vec<(i64, bool)>, StoreError> {
        let mut stored = Vec::with_capacity(items.len());
        let (many, rest) = items.split_at(items.len() - items.len() % CHUNK);
        for chunk in many.chunks(CHUNK).chain(rest.chunks(1)) {
            let statement = if chunk.len() == CHUNK {
                &mut self.insert_many
            } else {
                &mut self.insert_one
            };
            let mut inserted = insert(statement, chunk, now)?;
            for item in chunk {
                // The first of the chunk's events with its sender and txid was inserted; any
                // other (or one sent before) updates that row.
                let new = inserted.remove(&(item.holder, item.event.txid.clone()));
                stored.push(self.settle(item, new, now)?);
            }
        }
        self.write_attributions(true)?;
        Ok(stored)
    }

    /// Attributes an event, inserted as `new` or else updating its row, and counts it.
    fn settle(
        &mut self,
        item: &Item,
        new: Option<i64>,
        now: &str,
    ) -> Result<(i64, bool), StoreError> {
        let (id, updated) = match new {
            Some(id) => (id, false),
            None => (self.replace(item, now)?, true),
        };
        let currency = item.event.currency.as_deref();
        for &ad in item.ads {
            if single(item.ads).is_none() {
                self.attributions.push((id, item.account, ad));
            }
            let event = item.event.event.as_str();
            self.add(
                (item.account, ad),
                event,
                currency,
                item.event.amount_micros,
                1,
            );
        }
        self.write_attributions(false)?;
        Ok((id, updated))
    }

    /// Updates the row the event's sender stored under its `txid` and takes its attribution
    /// back (the one campaign in its row, or its `conversion_campaigns` rows, written first so
    /// none is left behind); returns its id.
    fn replace(&mut self, item: &Item, now: &str) -> Result<i64, StoreError> {
        self.write_attributions(true)?;
        let (holder, event) = (item.holder, item.event);
        let (id, old_event, old_amount, old_currency, old_account, old_ad) =
            self.previous.query_row(params![holder, event.txid], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, Option<i64>>(5)?,
                ))
            })?;
        let (reference, invite) = target(event);
        self.update.execute(params![
            holder,
            event.txid,
            event.event.as_str(),
            reference,
            invite,
            event.amount_micros,
            event.currency,
            event.status,
            item.account,
            single(item.ads),
            now
        ])?;
        let detached = match old_ad {
            Some(ad) => vec![(old_account, ad)],
            None => self
                .detach
                .query_map([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?,
        };
        for campaign in detached {
            self.add(
                campaign,
                &old_event,
                old_currency.as_deref(),
                old_amount,
                -1,
            );
        }
        Ok(id)
    }

    /// Writes the waiting attributions [`CHUNK`] to a statement; with `all`, the rest one by
    /// one too.
    fn write_attributions(&mut self, all: bool) -> Result<(), StoreError> {
        if self.attributions.len() < CHUNK && !all {
            return Ok(());
        }
        let waiting = std::mem::take(&mut self.attributions);
        let mut chunks = waiting.chunks_exact(CHUNK);
        for chunk in &mut chunks {
            for (i, &(id, account, ad)) in chunk.iter().enumerate() {
                let at = 1 + 3 * i;
                self.attribute_many.raw_bind_parameter(at, id)?;
                self.attribute_many.raw_bind_parameter(at + 1, account)?;
                self.attribute_many.raw_bind_parameter(at + 2, ad)?;
            }
            self.attribute_many.raw_execute()?;
        }
        if all {
            for &(id, account, ad) in chunks.remainder() {
                self.attribute_one.execute(params![id, account, ad])?;
            }
        } else {
            self.attributions.extend_from_slice(chunks.remainder());
        }
        Ok(())
    }

    /// Counts one event (`sign` 1) or takes one back (`sign` -1) in a campaign's totals.
    fn add(
        &mut self,
        (account, ad): (i64, i64),
        event: &str,
        currency: Option<&str>,
        amount: Option<i64>,
        sign: i64,
    ) {
        let key = (
            account,
            ad,
            event.to_string(),
            currency.unwrap_or_default().to_string(),
        );
        let change = self.changes.entry(key).or_default();
        change.count += sign;
        change.amount += i128::from(amount.unwrap_or(0)) * i128::from(sign);
    }

    /// Writes what the stored events changed into `conversion_totals`; a row whose count
    /// comes to zero is removed, so a campaign shows no revenue in a currency it no longer has.
    /// Totals are added here, in 128 bits, and stored normalized (the rest below
    /// [`super::SPLIT`]), so no number of events can overflow a column or turn it into a float.
    pub fn finish(mut self) -> Result<(), StoreError> {
        self.write_attributions(true)?;
        let mut read = self.conn.prepare_cached(
            "SELECT count, amount_high, amount_low FROM conversion_totals
             WHERE account_id = ?1 AND ad_id = ?2 AND event_type = ?3 AND currency = ?4",
        )?;
        let mut write = self.conn.prepare_cached(
            "INSERT OR REPLACE INTO conversion_totals
                (account_id, ad_id, event_type, currency, count, amount_high, amount_low)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut remove = self.conn.prepare_cached(
            "DELETE FROM conversion_totals
             WHERE account_id = ?1 AND ad_id = ?2 AND event_type = ?3 AND currency = ?4",
        )?;
        for ((account, ad, event, currency), change) in &self.changes {
            let key = params![account, ad, event, currency];
            let (count, amount) = optional(read.query_row(key, |r| {
                let (high, low): (Option<i64>, Option<i64>) = (r.get(1)?, r.get(2)?);
                Ok((
                    r.get::<_, i64>(0)?,
                    join(high.unwrap_or(0), low.unwrap_or(0)),
                ))
            }))?
            .unwrap_or((0, 0));
            let count = count.saturating_add(change.count);
            if count <= 0 {
                remove.execute(key)?;
                continue;
            }
            let total = amount.checked_add(change.amount).ok_or_else(|| {
                StoreError::Failed(format!("the conversion total of ad {ad} overflows"))
            })?;
            let parts = (!currency.is_empty()).then(|| split(total)).transpose()?;
            write.execute(params![
                account,
                ad,
                event,
                currency,
                count,
                parts.map(|(high, _)| high),
                parts.map(|(_, low)| low)
            ])?;
        }
        Ok(())
    }
}

/// The `ad_id` column of an event attributed to `ads`: the campaign when it is one, else none
/// (its attributions are rows of `conversion_campaigns`).
fn single(ads: &[i64]) -> Option<i64> {
    match ads {
        [ad] => Some(*ad),
        _ => None,
    }
}

/// The event's `ref` and `invite_link` columns.
fn target(event: &Event) -> (Option<&str>, Option<&str>) {
    match &event.target {
        Target::Ref(r) => (Some(r.as_str()), None),
        Target::Invite(i) => (None, Some(i.as_str())),
    }
}

/// Runs `statement` (made by [`insert_sql`] for as many rows as `items`) over the items'
/// events; returns the ids of the rows it inserted by sender and `txid`.
fn insert(
    statement: &mut CachedStatement,
    items: &[Item],
    now: &str,
) -> Result<HashMap<(i64, String), i64>, StoreError> {
    statement.raw_bind_parameter(1, now)?;
    for (row, item) in items.iter().enumerate() {
        let at = 2 + row * INSERT_VALUES;
        let event = item.event;
        let (reference, invite) = target(event);
        statement.raw_bind_parameter(at, item.holder)?;
        statement.raw_bind_parameter(at + 1, &event.txid)?;
        statement.raw_bind_parameter(at + 2, event.event.as_str())?;
        statement.raw_bind_parameter(at + 3, reference)?;
        statement.raw_bind_parameter(at + 4, invite)?;
        statement.raw_bind_parameter(at + 5, event.amount_micros)?;
        statement.raw_bind_parameter(at + 6, &event.currency)?;
        statement.raw_bind_parameter(at + 7, &event.status)?;
        statement.raw_bind_parameter(at + 8, item.account)?;
        statement.raw_bind_parameter(at + 9, single(item.ads))?;
    }
    let mut inserted = HashMap::with_capacity(items.len());
    let mut rows = statement.raw_query();
    while let Some(r) = rows.next()? {
        inserted.insert((r.get(1)?, r.get(2)?), r.get(0)?);
    }
    Ok(inserted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::conversion::EventType;
    use crate::store::conversions::{Summary, SPLIT};

    fn purchase(txid: &str, amount: i64, currency: &str) -> Event {
        Event {
            target: Target::Ref("r".into()),
            event: EventType::Purchase,
            txid: txid.into(),
            amount_micros: Some(amount),
            currency: Some(currency.into()),
            status: None,
            account_id: None,
        }
    }

    /// Ad 5 of cabinet 7's summary, as a campaign read gives it.
    fn read_back(conn: &Connection) -> Summary {
        crate::store::campaigns::get(conn, 7, 5)
            .unwrap()
            .unwrap()
            .conversions
    }

    /// Stores `events` from sender 1 for ad 5 of cabinet 7 in one transaction; returns each
    /// one's id and whether it updated a row.
    fn store(conn: &mut Connection, events: &[Event]) -> Vec<(i64, bool)> {
        let tx = conn.transaction().unwrap();
        let mut recorder = Recorder::new(&tx).unwrap();
        let items: Vec<Item> = events
            .iter()
            .map(|event| Item {
                holder: 1,
                event,
                account: 7,
                ads: &[5],
            })
            .collect();
        let stored = recorder.record(&items, "2026-01-01T00:00:00Z").unwrap();
        recorder.finish().unwrap();
        tx.commit().unwrap();
        stored
    }

    /// Ad 5 of cabinet 7 with no conversion yet.
    fn campaign() -> Connection {
        let conn = crate::store::test_db();
        let ad = crate::domain::ad::AdSnapshot {
            ad_id: 5,
            ..crate::store::campaigns::tests::snapshot()
        };
        crate::store::campaigns::insert(&conn, &ad, None, "2026-01-01T00:00:00Z").unwrap();
        conn
    }

    /// A txid sent twice in one chunk of rows, and again in a later chunk and among the
    /// events stored one by one: the first stores a row, each later one updates it, and the
    /// totals count the event once, with its last values.
    #[test]
    fn a_txid_repeated_within_and_across_chunks_is_one_row_with_its_last_values() {
        let mut conn = campaign();
        let mut events: Vec<Event> = (0..CHUNK * 2 + 7)
            .map(|i| purchase(&format!("t{i}"), 1_000_000, "USD"))
            .collect();
        events[3] = purchase("t1", 2_000_000, "USD");
        events[CHUNK + 1] = purchase("t1", 3_000_000, "EUR");
        events[CHUNK * 2 + 2] = purchase("t1", 4_000_000, "EUR");
        let stored = store(&mut conn, &events);
        let first = stored[1].0;
        for at in [3, CHUNK + 1, CHUNK * 2 + 2] {
            assert_eq!(stored[at], (first, true), "event {at} updates t1's row");
        }
        assert_eq!(
            stored.iter().filter(|(_, updated)| !updated).count(),
            CHUNK * 2 + 4
        );
        let attributed: (i64, i64) = conn
            .query_row(
                "SELECT (SELECT COUNT(*) FROM conversions WHERE ad_id = 5),
                    (SELECT COUNT(*) FROM conversion_campaigns)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(
            attributed,
            ((CHUNK * 2 + 4) as i64, 0),
            "each row attributed to its one campaign in itself"
        );
        let summary = read_back(&conn);
        assert_eq!(
            summary.counts.of(EventType::Purchase),
            (CHUNK * 2 + 4) as i64
        );
        assert_eq!(summary.revenue["EUR"], 4_000_000);
        assert_eq!(summary.revenue["USD"], (CHUNK * 2 + 3) as i128 * 1_000_000);

        let again = store(&mut conn, &events[..CHUNK]);
        assert!(
            again.iter().all(|(_, updated)| *updated),
            "every one sent before"
        );
        assert_eq!(
            read_back(&conn).counts.of(EventType::Purchase),
            (CHUNK * 2 + 4) as i64
        );
    }

    /// Stores `event` from sender 1 attributed to `ads` of cabinet 7 in one transaction.
    fn store_for(conn: &mut Connection, event: &Event, ads: &[i64]) -> (i64, bool) {
        let tx = conn.transaction().unwrap();
        let mut recorder = Recorder::new(&tx).unwrap();
        let items = [Item {
            holder: 1,
            event,
            account: 7,
            ads,
        }];
        let stored = recorder.record(&items, "2026-01-01T00:00:00Z").unwrap();
        recorder.finish().unwrap();
        tx.commit().unwrap();
        stored[0]
    }

    /// Where an event's campaigns are kept: its `ad_id` and its `conversion_campaigns` rows.
    fn kept(conn: &Connection, id: i64) -> (Option<i64>, Vec<i64>) {
        let ad = conn
            .query_row("SELECT ad_id FROM conversions WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .unwrap();
        let rows = conn
            .prepare(
                "SELECT ad_id FROM conversion_campaigns WHERE conversion_id = ?1 ORDER BY ad_id",
            )
            .unwrap()
            .query_map([id], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        (ad, rows)
    }

    /// An event of several campaigns keeps them as rows of `conversion_campaigns`, one of one
    /// campaign in its own row; re-sent with the other attribution, it moves, and each
    /// campaign's totals count it only while it is attributed there.
    #[test]
    fn an_event_moves_between_one_campaign_in_its_row_and_several_in_rows_of_their_own() {
        let mut conn = campaign();
        let ad = crate::domain::ad::AdSnapshot {
            ad_id: 6,
            ..crate::store::campaigns::tests::snapshot()
        };
        crate::store::campaigns::insert(&conn, &ad, None, "2026-01-01T00:00:00Z").unwrap();
        let count = |conn: &Connection, ad: i64| -> i64 {
            conn.query_row(
                "SELECT COALESCE(SUM(count), 0) FROM conversion_totals WHERE account_id = 7 AND ad_id = ?1",
                [ad],
                |r| r.get(0),
            )
            .unwrap()
        };
        let (id, _) = store_for(&mut conn, &purchase("t", 1, "USD"), &[5, 6]);
        assert_eq!(kept(&conn, id), (None, vec![5, 6]));
        assert_eq!((count(&conn, 5), count(&conn, 6)), (1, 1));

        assert_eq!(
            store_for(&mut conn, &purchase("t", 2, "USD"), &[6]),
            (id, true)
        );
        assert_eq!(kept(&conn, id), (Some(6), vec![]));
        assert_eq!((count(&conn, 5), count(&conn, 6)), (0, 1));

        assert_eq!(
            store_for(&mut conn, &purchase("t", 3, "USD"), &[5]),
            (id, true)
        );
        assert_eq!(kept(&conn, id), (Some(5), vec![]));
        assert_eq!((count(&conn, 5), count(&conn, 6)), (1, 0));

        assert_eq!(
            store_for(&mut conn, &purchase("t", 4, "USD"), &[5, 6]),
            (id, true)
        );
        assert_eq!(kept(&conn, id), (None, vec![5, 6]));
        assert_eq!((count(&conn, 5), count(&conn, 6)), (1, 1));
    }

    #[test]
    fn totals_of_the_largest_amounts_stay_normalized_integers_and_follow_a_resent_event() {
        let mut conn = campaign();
        let max = i64::MAX;
        let many: Vec<Event> = (0..1000)
            .map(|i| purchase(&format!("t{i}"), max, "USD"))
            .collect();
        store(&mut conn, &many);
        store(&mut conn, &many[..1]);
        let summary = read_back(&conn);
        assert_eq!(
            summary.counts.of(EventType::Purchase),
            1000,
            "the resent t0 counts once"
        );
        assert_eq!(summary.revenue["USD"], 1000 * i128::from(max));
        let stored: Vec<(String, String, bool)> = conn
            .prepare(
                "SELECT typeof(amount_high), typeof(amount_low), abs(amount_low) < ?1
                 FROM conversion_totals",
            )
            .unwrap()
            .query_map([SPLIT], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            stored,
            vec![("integer".to_string(), "integer".to_string(), true)],
            "two integers, the rest below SPLIT: the parts never grow with the number of events"
        );

        store(&mut conn, &[purchase("t0", -2, "EUR")]);
        let summary = read_back(&conn);
        assert_eq!(summary.counts.of(EventType::Purchase), 1000);
        assert_eq!(summary.revenue["USD"], 999 * i128::from(max));
        assert_eq!(summary.revenue["EUR"], -2);
    }
}
