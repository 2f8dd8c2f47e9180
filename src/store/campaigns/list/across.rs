//! Sorted list pages over many cabinets read across them at once: when the person reaches at
//! least half of all cabinets (`kept::Cabinets`), the filter names only statuses and the sort
//! is a column of the copy, one walk of the sort's index across cabinets
//! (`sql/0070_list_indexes_across_cabinets.sql`) finds the page in page order, where
//! [`super::merge`] runs a statement per cabinet. The walk reads the page's keys, the other
//! cabinets' entries skipped; over every cabinet, when it skipped none, a second walk reads
//! the rows themselves, each found from its index entry, else [`super::fetch`] reads them.

use rusqlite::types::Value as Sql;
use rusqlite::{params_from_iter, Connection};

use super::merge::Order;
use super::{
    fetch, from_row, listed_columns, status_condition, CabinetQuery, CampaignRow, ListFilter,
    SortKey, OFFSET_DEPTH,
};
use crate::store::kept::Cabinets;
use crate::store::StoreError;

/// The walk over some cabinets gives way to the merge once it has read this many entries per
/// row of the page (plus [`SLACK`]) without filling it: the cabinets reached are then a thin
/// share of the order's head, which the merge reads without skipping.
const PER_ROW: usize = 4;
const SLACK: usize = 64;

/// The sorted column's index across cabinets, when the sort has one.
fn index(sort: SortKey) -> Option<&'static str> {
    Some(match sort {
        SortKey::Date => "campaigns_across_by_date",
        SortKey::AdId => "campaigns_across_by_ad_id",
        SortKey::Title => "campaigns_across_by_title",
        SortKey::Status => "campaigns_across_by_status",
        SortKey::Cpm => "campaigns_across_by_cpm",
        SortKey::Views | SortKey::Clicks | SortKey::Spent | SortKey::Budget => return None,
    })
}

/// What a walk reads of each campaign.
#[derive(Debug, Clone, Copy)]
enum Walk {
    /// Its key (cabinet, `ad_id`), from the index alone.
    Keys,
    /// Its listed row, the first `?` rows in page order (bound after the statuses).
    Rows,
}

/// The walk's statement: every matching campaign in page order (ties on the column by
/// `ad_id`, then by cabinet, as the merge orders them), binding the statuses when the filter
/// names them.
fn walk_sql(filter: &ListFilter, order: Order, index: &str, walk: Walk) -> String {
    let (status, _) = status_condition(filter, "status");
    let dir = if order.descending { "DESC" } else { "ASC" };
    let (columns, counters, limit) = match walk {
        Walk::Keys => ("account_id, ad_id", "", ""),
        Walk::Rows => (
            listed_columns(),
            " CROSS JOIN campaign_counters USING (account_id, ad_id)",
            " LIMIT ?",
        ),
    };
    format!(
        "SELECT {columns} FROM campaigns INDEXED BY {index}{counters}
         WHERE {status} {}, account_id {dir}{limit}",
        order.sql()
    )
}

/// Rows `offset..offset + limit + 1` of the page over `filter.accounts`, as
/// [`super::merge::merged`] and [`fetch`] find them; `None` where the walk does not apply or
/// gives way: the filter names more than statuses, the sort has no index across cabinets, the
/// cabinets are not read together, or too many entries were skipped.
pub(super) fn page(
    conn: &Connection,
    query: &CabinetQuery,
    filter: &ListFilter,
    order: Order,
    offset: i64,
    limit: i64,
) -> Result<Option<Vec<CampaignRow>>, StoreError> {
    let Some(index) = index(order.sort).filter(|_| query.only_status) else {
        return Ok(None);
    };
    let cabinets = Cabinets::new(conn, &filter.accounts)?;
    if !cabinets.together {
        return Ok(None);
    }
    let walk = Walker {
        conn,
        filter,
        order,
        index,
        cabinets: &cabinets,
        offset,
        keep: usize::try_from(limit + 1).unwrap_or(0),
    };
    let Some(walked) = walk.keys()? else {
        return Ok(None);
    };
    if cabinets.every && !walked.past {
        if let Some(rows) = walk.rows(&walked.keys)? {
            return Ok(Some(rows));
        }
    }
    Ok(Some(fetch(conn, &walked.keys)?))
}

/// One walk of `index` over `cabinets`, for the rows `offset..offset + keep` of the page.
struct Walker<'a> {
    conn: &'a Connection,
    filter: &'a ListFilter,
    order: Order,
    index: &'a str,
    cabinets: &'a Cabinets,
    offset: i64,
    keep: usize,
}

/// The keys of a page's rows, in page order, and whether the walk skipped a cabinet's entries
/// past the depth a page reads of it.
struct Walked {
    keys: Vec<(i64, i64)>,
    past: bool,
}

impl Walker<'_> {
    /// `keep` as a count of rows in SQL.
    fn limit(&self) -> i64 {
        i64::try_from(self.keep).unwrap_or(i64::MAX)
    }

    /// The page's keys (cabinet, `ad_id`), read from the index alone: the other cabinets'
    /// entries skipped, and a cabinet's past its first `min(offset + keep, OFFSET_DEPTH)`, as
    /// the merge reads no further of any; `None` once it read [`PER_ROW`] entries per row
    /// of the page (plus [`SLACK`]) without filling it.
    fn keys(&self) -> Result<Option<Walked>, StoreError> {
        let depth = (self.offset + self.limit()).min(OFFSET_DEPTH);
        let mut skip = usize::try_from(self.offset).unwrap_or(0);
        let budget = (skip + self.keep)
            .saturating_mul(PER_ROW)
            .saturating_add(SLACK);
        let (_, statuses) = status_condition(self.filter, "status");
        let sql = walk_sql(self.filter, self.order, self.index, Walk::Keys);
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(statuses))?;
        let mut taken = vec![0_i64; self.cabinets.len()];
        let mut walked = Walked {
            keys: Vec::with_capacity(self.keep),
            past: false,
        };
        let mut read = 0;
        while walked.keys.len() < self.keep {
            let Some(r) = rows.next()? else { break };
            read += 1;
            if read > budget {
                return Ok(None);
            }
            let account: i64 = r.get(0)?;
            let Some(place) = self.cabinets.place(account) else {
                continue;
            };
            taken[place] += 1;
            if taken[place] > depth {
                walked.past = true;
            } else if skip > 0 {
                skip -= 1;
            } else {
                walked.keys.push((account, r.get(1)?));
            }
        }
        Ok(Some(walked))
    }

    /// The rows of `keys`, read in one statement walking the index again, each found from
    /// its entry without a seek by its key: when the walk is over every cabinet and skipped no
    /// entry past a cabinet's depth, its entries after the first `offset` are the page. `None`
    /// should a row not be the key at its place.
    fn rows(&self, keys: &[(i64, i64)]) -> Result<Option<Vec<CampaignRow>>, StoreError> {
        let (_, statuses) = status_condition(self.filter, "status");
        let sql = walk_sql(self.filter, self.order, self.index, Walk::Rows);
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let wanted = self.offset.saturating_add(self.limit());
        let bound = statuses.into_iter().chain([Sql::Integer(wanted)]);
        let mut rows = stmt.query(params_from_iter(bound))?;
        for _ in 0..self.offset {
            if rows.next()?.is_none() {
                break;
            }
        }
        let mut page = Vec::with_capacity(keys.len());
        while let Some(r) = rows.next()? {
            let row = from_row(r)?;
            if keys.get(page.len()) != Some(&(row.account_id, row.ad_id)) {
                return Ok(None);
            }
            page.push(row);
        }
        Ok((page.len() == keys.len()).then_some(page))
    }
}

#[cfg(test)]
mod tests {
    use super::super::merge::merged;
    use super::super::tests::seeded;
    use super::*;

    /// The keys of a walk's page, or `None` where it gives way.
    fn walked(
        conn: &Connection,
        filter: &ListFilter,
        order: Order,
        offset: i64,
        limit: i64,
    ) -> Option<Vec<(i64, i64)>> {
        let rows = page(
            conn,
            &CabinetQuery::of(filter),
            filter,
            order,
            offset,
            limit,
        )
        .unwrap()?;
        Some(rows.iter().map(|r| (r.account_id, r.ad_id)).collect())
    }

    /// Over sets of cabinets read together (all three, whose rows the second walk reads where
    /// the first skipped nothing past a depth, and two pairs, whose rows are read by key), each
    /// sort with an index across cabinets, both ways,
    /// and pages at several depths, the walk finds the merge's rows or gives way; it finds
    /// them in most cases, over all three and over pairs alike.
    #[test]
    fn the_walk_finds_the_merges_rows_or_gives_way() {
        let conn = seeded();
        let (mut over_every, mut over_some, mut cases) = (0, 0, 0);
        let sorts = SortKey::NAMES.split(", ").filter_map(SortKey::parse);
        for sort in sorts.filter(|s| index(*s).is_some()) {
            for descending in [true, false] {
                for accounts in [vec![10, 20, 30], vec![30, 20], vec![10, 20]] {
                    let every = Cabinets::new(&conn, &accounts).unwrap().every;
                    assert_eq!(every, accounts.len() == 3);
                    for (offset, limit) in [(0, 7), (37, 100), (0, 500), (450, 500)] {
                        let filter = ListFilter {
                            accounts: accounts.clone(),
                            ..ListFilter::default()
                        };
                        let order = Order { sort, descending };
                        let query = CabinetQuery::of(&filter);
                        cases += 1;
                        let want =
                            merged(&conn, &query, &filter.accounts, order, offset, limit).unwrap();
                        if let Some(found) = walked(&conn, &filter, order, offset, limit) {
                            if every {
                                over_every += 1;
                            } else {
                                over_some += 1;
                            }
                            assert_eq!(found, want, "{sort:?} {descending} {filter:?} {offset}");
                        }
                    }
                }
            }
        }
        assert!(
            (over_every + over_some) * 2 > cases && over_every > 0 && over_some > 0,
            "{over_every} and {over_some} of {cases}"
        );
    }

    /// The walk gives way to the merge where the cabinets reached are far down the order (ids
    /// above 120 are all the third's), where the cabinets are not read together (one of
    /// three), and for a sort by a figure; a page past a cabinet's depth (the third holds most
    /// campaigns, and a page past 450 reaches its 501st) is walked, that cabinet's entries past
    /// it skipped.
    #[test]
    fn the_walk_gives_way_after_a_long_skip_over_a_few_cabinets_or_by_a_figure() {
        let conn = seeded();
        let of = |accounts: Vec<i64>| ListFilter {
            accounts,
            ..ListFilter::default()
        };
        let by = |sort| Order {
            sort,
            descending: true,
        };
        let walk =
            |accounts, sort, offset, limit| walked(&conn, &of(accounts), by(sort), offset, limit);
        assert!(walk(vec![10, 20, 30], SortKey::Date, 0, 7).is_some());
        assert!(walk(vec![10, 20], SortKey::Date, 0, 7).is_some());
        assert_eq!(walk(vec![10, 20], SortKey::AdId, 0, 7), None);
        assert_eq!(walk(vec![20], SortKey::Date, 0, 7), None);
        assert_eq!(walk(vec![10, 20, 30], SortKey::Views, 0, 7), None);
        let filter = of(vec![30, 10, 20]);
        let query = CabinetQuery::of(&filter);
        let deep = merged(&conn, &query, &filter.accounts, by(SortKey::AdId), 450, 500).unwrap();
        assert_eq!(walk(vec![30, 10, 20], SortKey::AdId, 450, 500), Some(deep));
    }

    /// Over every cabinet, with no entry skipped past a depth, the second walk reads the
    /// rows of the first's keys (at an offset too), as `fetch` reads them; given keys that are
    /// not its first entries, it reads nothing.
    #[test]
    fn the_rows_walk_reads_the_keys_rows_or_nothing() {
        let conn = seeded();
        let filter = ListFilter {
            accounts: vec![20, 30, 10],
            ..ListFilter::default()
        };
        let cabinets = Cabinets::new(&conn, &filter.accounts).unwrap();
        assert!(cabinets.every);
        for (sort, offset) in [
            (SortKey::Title, 0),
            (SortKey::Status, 0),
            (SortKey::Cpm, 40),
        ] {
            let walk = Walker {
                conn: &conn,
                filter: &filter,
                order: Order {
                    sort,
                    descending: false,
                },
                index: index(sort).unwrap(),
                cabinets: &cabinets,
                offset,
                keep: 60,
            };
            let walked = walk.keys().unwrap().unwrap();
            assert!(!walked.past && walked.keys.len() == 60, "{sort:?}");
            let rows = walk.rows(&walked.keys).unwrap().unwrap();
            let fetched = fetch(&conn, &walked.keys).unwrap();
            let seen = |rows: &[CampaignRow]| -> Vec<(i64, i64, String, i64)> {
                let of = |r: &CampaignRow| (r.account_id, r.ad_id, r.title.clone(), r.views);
                rows.iter().map(of).collect()
            };
            assert_eq!(seen(&rows), seen(&fetched), "{sort:?}");
            let mut shuffled = walked.keys.clone();
            shuffled.swap(3, 4);
            assert!(walk.rows(&shuffled).unwrap().is_none(), "{sort:?}");
            assert!(walk.rows(&walked.keys[1..]).unwrap().is_none(), "{sort:?}");
        }
    }

    /// Every sort with an index across cabinets walks it in page order, for keys and for rows:
    /// no temporary B-tree, whether the filter names statuses or not, and a row's figures
    /// found by its key.
    #[test]
    fn each_walk_reads_its_index_in_page_order() {
        let conn = crate::store::test_db();
        let named = ListFilter {
            statuses: Some(vec![crate::domain::campaign::Status::Active]),
            ..ListFilter::default()
        };
        let sorts = SortKey::NAMES.split(", ").filter_map(SortKey::parse);
        for sort in sorts {
            let Some(index) = index(sort) else { continue };
            for descending in [true, false] {
                for filter in [&ListFilter::default(), &named] {
                    for walk in [Walk::Keys, Walk::Rows] {
                        let order = Order { sort, descending };
                        let sql = walk_sql(filter, order, index, walk);
                        let plan = crate::store::test_plan(&conn, &sql, 1);
                        assert!(
                            plan.iter().any(|step| step.contains(index))
                                && plan.iter().all(|step| !step.contains("TEMP B-TREE")),
                            "{sort:?} {walk:?}: {plan:?}"
                        );
                        if let Walk::Rows = walk {
                            assert!(
                                plan.iter().any(|step| step
                                    .starts_with("SEARCH campaign_counters USING PRIMARY KEY")),
                                "{sort:?}: {plan:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}
