//! The merge behind sorted list pages: every cabinet's keys (the sorted column and `ad_id`)
//! read in page order, a chunk at a time through the cabinet's index for the sort, and merged
//! on a heap until the page is full. Only the page's own rows are then read whole.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use rusqlite::types::{FromSqlError, Value as Sql, ValueRef};
use rusqlite::{Connection, Row};

use super::{CabinetQuery, SortKey, OFFSET_DEPTH};
use crate::store::StoreError;

/// The value of the sorted column; one column, so one variant, in any one merge.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Cell {
    Int(i64),
    Text(String),
}

impl Cell {
    /// The sorted column as stored: a number, or text (ordered by bytes, as the index is).
    fn read(value: ValueRef<'_>) -> rusqlite::Result<Cell> {
        match value {
            ValueRef::Integer(n) => Ok(Cell::Int(n)),
            ValueRef::Text(t) => Ok(Cell::Text(String::from_utf8_lossy(t).into_owned())),
            _ => Err(FromSqlError::InvalidType.into()),
        }
    }

    fn sql(&self) -> Sql {
        match self {
            Cell::Int(n) => Sql::Integer(*n),
            Cell::Text(t) => Sql::Text(t.clone()),
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Order {
    pub sort: SortKey,
    pub descending: bool,
}

/// A campaign's place in one cabinet's order: the sorted column, then `ad_id`.
type Key = (Cell, i64);

fn key(row: &Row) -> rusqlite::Result<Key> {
    Ok((Cell::read(row.get_ref(0)?)?, row.get(1)?))
}

impl Order {
    /// The `ORDER BY` clause of one cabinet's rows in this order.
    pub fn sql(self) -> String {
        let dir = if self.descending { "DESC" } else { "ASC" };
        format!("ORDER BY {} {dir}, ad_id {dir}", self.sort.column())
    }

    /// `BinaryHeap` pops the greatest: make that the row which comes first.
    fn first(self, a: &(Cell, i64, i64), b: &(Cell, i64, i64)) -> Ordering {
        if self.descending {
            a.cmp(b)
        } else {
            b.cmp(a)
        }
    }
}

/// One cabinet's keys in page order, read a chunk at a time: the next chunk starts after the
/// last key read (`(column, ad_id)` past it, through the cabinet's index for the sort).
struct Stream {
    account: i64,
    buffered: VecDeque<Key>,
    /// The size of the last chunk asked for; each next one asks twice as many.
    chunk: i64,
    read: i64,
    done: bool,
}

/// A cabinet's next campaign in the merge: the sorted column, `ad_id`, then the cabinet.
struct Head {
    rank: (Cell, i64, i64),
    order: Order,
    stream: usize,
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> Ordering {
        self.order.first(&self.rank, &other.rank)
    }
}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head {}

/// Merges every cabinet's rows in page order, skipping `offset` rows and keeping `limit + 1`.
/// A cabinet contributes at most `min(OFFSET_DEPTH, offset + limit + 1)` rows. Cabinets are
/// read in chunks through two cached statements (first chunk, next chunk), each chunk twice
/// the last, the first sized so that all first chunks together about fill the page: the work
/// follows the page, not the number of campaigns, and no statement is prepared per cabinet.
pub(super) fn merged(
    conn: &Connection,
    query: &CabinetQuery,
    accounts: &[i64],
    order: Order,
    offset: i64,
    limit: i64,
) -> Result<Vec<(i64, i64)>, StoreError> {
    let depth = (offset + limit + 1).min(OFFSET_DEPTH);
    let past = if order.descending { "<" } else { ">" };
    let col = order.sort.column();
    let sorted = order.sql();
    let head = format!("SELECT {col}, ad_id {}", query.from);
    let first_sql = format!("{head} {sorted} LIMIT ?");
    let next_sql = format!("{head} AND ({col}, ad_id) {past} (?, ?) {sorted} LIMIT ?");
    let mut first = conn.prepare_cached(&first_sql)?;
    let mut next = conn.prepare_cached(&next_sql)?;
    let cabinets = i64::try_from(accounts.len().max(1)).unwrap_or(i64::MAX);
    let chunk = ((depth + cabinets - 1) / cabinets).min(depth);
    let mut streams: Vec<Stream> = accounts
        .iter()
        .map(|&account| Stream {
            account,
            buffered: VecDeque::new(),
            chunk,
            read: 0,
            done: false,
        })
        .collect();
    let mut heap = BinaryHeap::with_capacity(streams.len());
    for (i, stream) in streams.iter_mut().enumerate() {
        let keys = query.rows(&mut first, stream.account, [Sql::Integer(chunk)], key)?;
        stream.take(keys, chunk, depth);
        heap.extend(stream.head(order, i));
    }
    let keep = usize::try_from(limit + 1).unwrap_or(0);
    let mut skip = offset;
    let mut page = Vec::with_capacity(keep);
    while page.len() < keep {
        let Some(top) = heap.pop() else { break };
        let stream = &mut streams[top.stream];
        let Some((cell, ad)) = stream.buffered.pop_front() else {
            break;
        };
        if stream.buffered.is_empty() && !stream.done {
            stream.chunk = stream.chunk.saturating_mul(2);
            let want = stream.chunk.min(depth - stream.read);
            let after = [cell.sql(), Sql::Integer(ad), Sql::Integer(want)];
            let keys = query.rows(&mut next, stream.account, after, key)?;
            stream.take(keys, want, depth);
        }
        heap.extend(stream.head(order, top.stream));
        if skip > 0 {
            skip -= 1;
        } else {
            page.push((stream.account, ad));
        }
    }
    Ok(page)
}

impl Stream {
    /// Buffers a chunk read with `LIMIT asked`; a short chunk, or reaching `depth`, ends it.
    fn take(&mut self, keys: VecDeque<Key>, asked: i64, depth: i64) {
        let got = i64::try_from(keys.len()).unwrap_or(i64::MAX);
        self.read = self.read.saturating_add(got);
        self.done = got < asked || self.read >= depth;
        self.buffered = keys;
    }

    fn head(&self, order: Order, stream: usize) -> Option<Head> {
        self.buffered.front().map(|(cell, ad)| Head {
            rank: (cell.clone(), *ad, self.account),
            order,
            stream,
        })
    }
}
