//! The merge behind sorted list pages: every cabinet's keys (the sorted column and `ad_id`)
//! read in page order, a chunk at a time from the cabinet's index for the sort alone (it holds
//! the status the default filter reads), and merged on a heap until the page is full. Only the
//! page's own rows are then read whole, by their keys.

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
        match self.sort {
            // Said once: twice, the planner would sort what the index by ad_id holds in order.
            SortKey::AdId => format!("ORDER BY ad_id {dir}"),
            sort => format!("ORDER BY {} {dir}, ad_id {dir}", sort.column()),
        }
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

/// Merges every cabinet's rows in page order, skipping `offset` rows and keeping `limit + 1`:
/// their cabinets and `ad_id`s, in that order.
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
    let [first_sql, next_sql] = chunk_queries(query, order);
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

/// The statements of one cabinet's chunks of keys: the first (binding the cabinet, the
/// filter's arguments and a limit) and each next (a key to read past, then a limit).
fn chunk_queries(query: &CabinetQuery, order: Order) -> [String; 2] {
    let past = if order.descending { "<" } else { ">" };
    let col = order.sort.column();
    let sorted = order.sql();
    let head = format!("SELECT {col}, ad_id {}", query.keys_from(order.sort));
    [
        format!("{head} {sorted} LIMIT ?"),
        format!("{head} AND ({col}, ad_id) {past} (?, ?) {sorted} LIMIT ?"),
    ]
}

impl Stream {
    /// Buffers a chunk read with `LIMIT asked`; a short chunk, or reaching `depth`, ends it.
    fn take(&mut self, keys: Vec<Key>, asked: i64, depth: i64) {
        let got = i64::try_from(keys.len()).unwrap_or(i64::MAX);
        self.read = self.read.saturating_add(got);
        self.done = got < asked || self.read >= depth;
        self.buffered = keys.into();
    }

    fn head(&self, order: Order, stream: usize) -> Option<Head> {
        self.buffered.front().map(|(cell, ad)| Head {
            rank: (cell.clone(), *ad, self.account),
            order,
            stream,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::ListFilter;
    use super::*;

    /// Under the default filter (every status but `Deleted`), both chunks of every sort read
    /// their keys from the sort's index alone: no campaign is looked up in the table until the
    /// page's own rows are.
    #[test]
    fn every_sort_reads_its_keys_from_its_index_alone() {
        let conn = crate::store::test_db();
        let query = CabinetQuery::of(&ListFilter::default());
        let sorts = SortKey::NAMES.split(", ").filter_map(SortKey::parse);
        for sort in sorts {
            for descending in [true, false] {
                for sql in chunk_queries(&query, Order { sort, descending }) {
                    let plan = crate::store::test_plan(&conn, &sql, 1);
                    assert!(
                        plan.iter().all(|step| step.contains("COVERING INDEX")),
                        "{sort:?}: {plan:?}"
                    );
                }
            }
        }
    }
}
