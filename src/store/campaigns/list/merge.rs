//! The merge behind sorted list pages: every cabinet's keys (the sorted column and `ad_id`)
//! read in page order, a chunk at a time, from the cabinet's index for the sort alone (it holds
//! the status the default filter reads), or for a figure from the cabinet's order kept in
//! memory (`db::figures`), and merged on a heap until the page is full. Only the page's own
//! rows are then read whole, by their keys.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

use rusqlite::types::{FromSqlError, Value as Sql, ValueRef};
use rusqlite::{CachedStatement, Connection, Row};

use super::{CabinetQuery, SortKey, OFFSET_DEPTH};
use crate::db::figures::{Figure, Order as Kept, Orders};
use crate::domain::campaign::Status;
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
/// last key read (`(column, ad_id)` past it, through the cabinet's index for the sort), or
/// after the last entry of its kept order looked at.
struct Stream {
    account: i64,
    /// The cabinet's kept order, and how many of its entries (in page order) were looked at.
    kept: Option<Arc<Kept>>,
    at: usize,
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

/// Where the merge reads each cabinet's chunks of keys from.
enum Source<'c> {
    /// The two cached statements of [`chunk_queries`] (first chunk, next chunk).
    Index {
        first: CachedStatement<'c>,
        next: CachedStatement<'c>,
    },
    /// The cabinets' kept orders by a figure.
    Kept(&'c Orders, Figure),
}

impl Source<'_> {
    /// A cabinet's first `want` keys.
    fn first(
        &mut self,
        conn: &Connection,
        query: &CabinetQuery,
        order: Order,
        stream: &mut Stream,
        want: i64,
    ) -> Result<Vec<Key>, StoreError> {
        match self {
            Source::Index { first, .. } => {
                query.rows(first, stream.account, [Sql::Integer(want)], key)
            }
            Source::Kept(orders, figure) => {
                stream.kept = Some(orders.of(conn, stream.account, *figure)?);
                Ok(stream.kept_chunk(query, order, want))
            }
        }
    }

    /// A cabinet's next `want` keys, after `last`.
    fn next(
        &mut self,
        query: &CabinetQuery,
        order: Order,
        stream: &mut Stream,
        last: &Key,
        want: i64,
    ) -> Result<Vec<Key>, StoreError> {
        match self {
            Source::Index { next, .. } => {
                let after = [last.0.sql(), Sql::Integer(last.1), Sql::Integer(want)];
                query.rows(next, stream.account, after, key)
            }
            Source::Kept(..) => Ok(stream.kept_chunk(query, order, want)),
        }
    }
}

/// The entries of a kept order from the `at`-th on in page order, each with its place.
pub(super) fn kept_from(
    kept: &Kept,
    descending: bool,
    at: usize,
) -> impl Iterator<Item = (usize, (i64, i64, Status))> + '_ {
    let n = kept.keys.len();
    (at..n).map(move |k| (k, kept.keys[if descending { n - 1 - k } else { k }]))
}

/// Merges every cabinet's rows in page order, skipping `offset` rows and keeping `limit + 1`:
/// their cabinets and `ad_id`s, in that order.
/// A cabinet contributes at most `min(OFFSET_DEPTH, offset + limit + 1)` rows. Cabinets are
/// read in chunks, each twice the last, the first sized so that all first chunks together
/// about fill the page: the work follows the page, not the number of campaigns. A figure's
/// chunks, when the filter names only statuses, come from the cabinets' kept orders; any
/// other's through two cached statements, none prepared per cabinet.
pub(super) fn merged(
    conn: &Connection,
    orders: &Orders,
    query: &CabinetQuery,
    accounts: &[i64],
    order: Order,
    offset: i64,
    limit: i64,
) -> Result<Vec<(i64, i64)>, StoreError> {
    let depth = (offset + limit + 1).min(OFFSET_DEPTH);
    let mut source = match query.kept_figure(order.sort) {
        Some(figure) => Source::Kept(orders, figure),
        None => {
            let [first, next] = chunk_queries(query, order);
            Source::Index {
                first: conn.prepare_cached(&first)?,
                next: conn.prepare_cached(&next)?,
            }
        }
    };
    let cabinets = i64::try_from(accounts.len().max(1)).unwrap_or(i64::MAX);
    let chunk = ((depth + cabinets - 1) / cabinets).min(depth);
    let mut streams: Vec<Stream> = accounts
        .iter()
        .map(|&account| Stream {
            account,
            kept: None,
            at: 0,
            buffered: VecDeque::new(),
            chunk,
            read: 0,
            done: false,
        })
        .collect();
    let mut heap = BinaryHeap::with_capacity(streams.len());
    for (i, stream) in streams.iter_mut().enumerate() {
        let keys = source.first(conn, query, order, stream, chunk)?;
        stream.take(keys, chunk, depth);
        heap.extend(stream.head(order, i));
    }
    let keep = usize::try_from(limit + 1).unwrap_or(0);
    let mut skip = offset;
    let mut page = Vec::with_capacity(keep);
    while page.len() < keep {
        let Some(top) = heap.pop() else { break };
        let stream = &mut streams[top.stream];
        let Some(last) = stream.buffered.pop_front() else {
            break;
        };
        let ad = last.1;
        if stream.buffered.is_empty() && !stream.done {
            stream.chunk = stream.chunk.saturating_mul(2);
            let want = stream.chunk.min(depth - stream.read);
            let keys = source.next(query, order, stream, &last, want)?;
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
    /// The next `want` keys of the cabinet's kept order the filter lists, from where the last
    /// chunk stopped.
    fn kept_chunk(&mut self, query: &CabinetQuery, order: Order, want: i64) -> Vec<Key> {
        let Some(kept) = &self.kept else {
            return Vec::new();
        };
        let want = usize::try_from(want).unwrap_or(0);
        let mut keys = Vec::with_capacity(want.min(kept.keys.len()));
        let mut at = self.at;
        for (k, (value, ad, status)) in kept_from(kept, order.descending, self.at) {
            if keys.len() >= want {
                break;
            }
            at = k + 1;
            if query.lists(status) {
                keys.push((Cell::Int(value), ad));
            }
        }
        self.at = at;
        keys
    }

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
    /// their keys from the sort's index alone, or for a figure from the cabinets' kept orders
    /// (built from the figures' narrow rows alone, `db::figures`): no campaign is looked up in
    /// the table until the page's own rows are.
    #[test]
    fn every_sort_reads_its_keys_from_its_index_alone() {
        let conn = crate::store::test_db();
        let query = CabinetQuery::of(&ListFilter::default());
        let sorts = SortKey::NAMES.split(", ").filter_map(SortKey::parse);
        let (kept, indexed): (Vec<SortKey>, Vec<SortKey>) =
            sorts.partition(|&sort| query.kept_figure(sort).is_some());
        assert_eq!(
            kept,
            [
                SortKey::Views,
                SortKey::Clicks,
                SortKey::Spent,
                SortKey::Budget
            ]
        );
        for sort in indexed {
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
