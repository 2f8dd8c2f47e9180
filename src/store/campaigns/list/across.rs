//! Sorted list pages over many cabinets read across them at once: when the person reaches at
//! least half of all cabinets (`kept::Cabinets`), the filter names only statuses and the sort
//! has an index across cabinets (a column of the copy,
//! `sql/0070_list_indexes_across_cabinets.sql`, or a figure ascending, whose partial index
//! holds the campaigns without it, `sql/0071_list_indexes_across_cabinets_unrun.sql`), one walk
//! of that index finds the page in page order, where [`super::merge`] runs a statement per
//! cabinet. The walk reads the page's keys, the other cabinets' entries skipped; over every
//! cabinet a second walk reads the rows themselves, each found from its index entry, the
//! entries past a cabinet's depth left out; else [`super::fetch`] reads them.

use rusqlite::types::Value as Sql;
use rusqlite::{params_from_iter, Connection};

use super::merge::Order;
use super::{
    fetch, from_row, listed_columns, status_condition, CabinetQuery, CampaignRow, ListFilter,
    SortKey, BY_NUMBER, OFFSET_DEPTH,
};
use crate::store::kept::Cabinets;
use crate::store::StoreError;

/// The walk over some cabinets gives way to the merge once it has read this many entries per
/// row of the page (plus [`SLACK`]) without filling it: the cabinets reached are then a thin
/// share of the order's head, which the merge reads without skipping.
const PER_ROW: usize = 4;
const SLACK: usize = 64;

/// An index across cabinets in one order's page order (the sorted column, `ad_id`, then the
/// cabinet), holding each entry's status.
#[derive(Debug, Clone, Copy)]
struct Index {
    name: &'static str,
    /// The table it indexes, and the table a row's other columns are joined from.
    table: &'static str,
    joined: &'static str,
    /// The table's column of the copy's status.
    status: &'static str,
    /// A partial index's condition: it holds the order's head alone (a figure at zero or
    /// less), and a walk that runs out of entries before the page is full gives way.
    head: Option<&'static str>,
}

impl Index {
    /// A copy's column's index (schema 70): every campaign, either way.
    const fn copy(name: &'static str) -> Index {
        Index {
            name,
            table: "campaigns",
            joined: "campaign_counters",
            status: "status",
            head: None,
        }
    }

    /// A figure's partial index (schema 71): the campaigns first in its ascending order.
    const fn unrun(name: &'static str, head: &'static str) -> Index {
        Index {
            name,
            table: "campaign_counters",
            joined: "campaigns",
            status: "listed_status",
            head: Some(head),
        }
    }
}

/// The index across cabinets that `order` walks, when it has one.
fn index(order: Order) -> Option<Index> {
    Some(match (order.sort, order.descending) {
        (SortKey::Date, _) => Index::copy("campaigns_across_by_date"),
        (SortKey::AdId, _) => Index::copy("campaigns_across_by_ad_id"),
        (SortKey::Title, _) => Index::copy("campaigns_across_by_title"),
        (SortKey::Status, _) => Index::copy("campaigns_across_by_status"),
        (SortKey::Cpm, _) => Index::copy("campaigns_across_by_cpm"),
        (SortKey::Views, false) => Index::unrun("campaign_counters_across_no_views", "views <= 0"),
        (SortKey::Clicks, false) => {
            Index::unrun("campaign_counters_across_no_clicks", "clicks <= 0")
        }
        (SortKey::Spent, false) => {
            Index::unrun("campaign_counters_across_no_spend", "spent_micros <= 0")
        }
        (SortKey::Budget, false) => {
            Index::unrun("campaign_counters_across_no_budget", "budget_micros <= 0")
        }
        (SortKey::Views | SortKey::Clicks | SortKey::Spent | SortKey::Budget, true) => return None,
    })
}

/// What a walk reads of each campaign.
#[derive(Debug, Clone, Copy)]
enum Walk {
    /// Its key (cabinet, `ad_id`), from the index alone.
    Keys,
    /// Its listed row, but for the `ad_id`s of a JSON array: `?` rows in page order after the
    /// first `?` (bound after the statuses, in that order).
    Rows,
}

/// The walk's statement: every matching campaign the index holds, in page order (ties on the
/// column by `ad_id`, then by cabinet, as the merge orders them), binding the statuses when
/// the filter names them. The rows' walk leaves out some `ad_id`s, and skips its first rows,
/// from the index's entries alone, reading no copy it does not return; from a figure's index
/// it reaches each copy by its number ([`BY_NUMBER`]).
fn walk_sql(filter: &ListFilter, order: Order, index: Index, walk: Walk) -> String {
    let (status, _) = status_condition(filter, index.status);
    let dir = if order.descending { "DESC" } else { "ASC" };
    let joined = format!(" CROSS JOIN {} USING (account_id, ad_id)", index.joined);
    let left_out = format!(" AND {BY_NUMBER} AND ad_id NOT IN (SELECT value FROM json_each(?))");
    let (columns, joined, left_out, limit) = match walk {
        Walk::Keys => ("account_id, ad_id", "", "", ""),
        Walk::Rows => (
            listed_columns(),
            joined.as_str(),
            left_out.as_str(),
            " LIMIT ? OFFSET ?",
        ),
    };
    let head = index.head.map(|h| format!("{h} AND ")).unwrap_or_default();
    format!(
        "SELECT {columns} FROM {} INDEXED BY {}{joined}
         WHERE {head}{status}{left_out} {}, account_id {dir}{limit}",
        index.table,
        index.name,
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
    let Some(index) = index(order).filter(|_| query.only_status) else {
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
    if cabinets.every {
        if let Some(rows) = walk.rows(&walked)? {
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
    index: Index,
    cabinets: &'a Cabinets,
    offset: i64,
    keep: usize,
}

/// The keys of a page's rows, in page order, and the `ad_id`s of the cabinets' entries the
/// walk skipped past the depth a page reads of each.
struct Walked {
    keys: Vec<(i64, i64)>,
    past: Vec<i64>,
}

impl Walker<'_> {
    /// `keep` as a count of rows in SQL.
    fn limit(&self) -> i64 {
        i64::try_from(self.keep).unwrap_or(i64::MAX)
    }

    /// The page's keys (cabinet, `ad_id`), read from the index alone: the other cabinets'
    /// entries skipped, and a cabinet's past its first `min(offset + keep, OFFSET_DEPTH)`, as
    /// the merge reads no further of any; `None` once it read [`PER_ROW`] entries per row
    /// of the page (plus [`SLACK`]) without filling it, or when a partial index ends first
    /// (the page reaches past the campaigns it holds).
    fn keys(&self) -> Result<Option<Walked>, StoreError> {
        let depth = (self.offset + self.limit()).min(OFFSET_DEPTH);
        let mut skip = usize::try_from(self.offset).unwrap_or(0);
        let budget = (skip + self.keep)
            .saturating_mul(PER_ROW)
            .saturating_add(SLACK);
        let (_, statuses) = status_condition(self.filter, self.index.status);
        let sql = walk_sql(self.filter, self.order, self.index, Walk::Keys);
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(statuses))?;
        let mut taken = vec![0_i64; self.cabinets.len()];
        let mut walked = Walked {
            keys: Vec::with_capacity(self.keep),
            past: Vec::new(),
        };
        let mut read = 0;
        while walked.keys.len() < self.keep {
            let Some(r) = rows.next()? else {
                if self.index.head.is_some() {
                    return Ok(None);
                }
                break;
            };
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
                walked.past.push(r.get(1)?);
            } else if skip > 0 {
                skip -= 1;
            } else {
                walked.keys.push((account, r.get(1)?));
            }
        }
        Ok(Some(walked))
    }

    /// The rows of `walked`'s keys, read in one statement walking the index again, each found
    /// from its entry without a seek by its key: when the walk is over every cabinet, its
    /// entries but those past a cabinet's depth, after the first `offset`, are the page. Those
    /// are left out by `ad_id` alone (one integer to look up an entry, where a pair takes a
    /// scan for nulls), which may leave out another cabinet's campaign with the same `ad_id`:
    /// `None` should a row not be the key at its place.
    fn rows(&self, walked: &Walked) -> Result<Option<Vec<CampaignRow>>, StoreError> {
        let (_, statuses) = status_condition(self.filter, self.index.status);
        let sql = walk_sql(self.filter, self.order, self.index, Walk::Rows);
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let past = Sql::Text(serde_json::json!(walked.past).to_string());
        let window = [past, Sql::Integer(self.limit()), Sql::Integer(self.offset)];
        let mut rows = stmt.query(params_from_iter(statuses.into_iter().chain(window)))?;
        let keys = &walked.keys;
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
    use crate::db::figures::Orders;

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

    /// Over sets of cabinets read together (all three, whose rows the second walk reads, and
    /// two pairs, whose rows are read by key), each order with an index across cabinets (a
    /// figure's holding its campaigns at zero alone), and pages at several depths, the walk
    /// finds the merge's rows or gives way; it finds them in most cases, over all three and
    /// over pairs alike.
    #[test]
    fn the_walk_finds_the_merges_rows_or_gives_way() {
        let conn = seeded();
        let (mut over_every, mut over_some, mut cases) = (0, 0, 0);
        let sorts = SortKey::NAMES.split(", ").filter_map(SortKey::parse);
        for sort in sorts {
            for descending in [true, false] {
                if index(Order { sort, descending }).is_none() {
                    continue;
                }
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
                        let want = merged(
                            &conn,
                            &Orders::default(),
                            &query,
                            &filter.accounts,
                            order,
                            offset,
                            limit,
                        )
                        .unwrap();
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
    /// three), for a sort by a figure descending, and for one ascending whose page reaches past
    /// the campaigns at zero (some 30 of 910 without views); a page past a cabinet's depth (the
    /// third holds most campaigns, and a page past 450 reaches its 501st) is walked, that
    /// cabinet's entries past it skipped.
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
        let ascending = Order {
            sort: SortKey::Views,
            descending: false,
        };
        let every = of(vec![10, 20, 30]);
        assert!(walked(&conn, &every, ascending, 0, 7).is_some());
        assert_eq!(walked(&conn, &every, ascending, 0, 100), None);
        let filter = of(vec![30, 10, 20]);
        let query = CabinetQuery::of(&filter);
        let deep = merged(
            &conn,
            &Orders::default(),
            &query,
            &filter.accounts,
            by(SortKey::AdId),
            450,
            500,
        )
        .unwrap();
        assert_eq!(walk(vec![30, 10, 20], SortKey::AdId, 450, 500), Some(deep));
    }

    /// Over every cabinet, the second walk reads the rows of the first's keys (at an offset
    /// too, and past a cabinet's depth, its entries beyond it left out), as `fetch` reads
    /// them; given keys that are not its entries in order, or without the entries to leave
    /// out, it reads nothing. The cabinets' `ad_id`s are made distinct first; where they are
    /// not, leaving out a cabinet's entries by `ad_id` leaves out others' too, and it reads
    /// nothing either.
    #[test]
    fn the_rows_walk_reads_the_keys_rows_or_nothing() {
        let conn = seeded();
        let filter = ListFilter {
            accounts: vec![20, 30, 10],
            ..ListFilter::default()
        };
        let cabinets = Cabinets::new(&conn, &filter.accounts).unwrap();
        assert!(cabinets.every);
        let walker = |conn, sort, descending, offset, keep| Walker {
            conn,
            filter: &filter,
            order: Order { sort, descending },
            index: index(Order { sort, descending }).unwrap(),
            cabinets: &cabinets,
            offset,
            keep,
        };
        let deep = walker(&conn, SortKey::AdId, true, 450, 100);
        let shared = deep.keys().unwrap().unwrap();
        assert!(!shared.past.is_empty());
        assert!(deep.rows(&shared).unwrap().is_none());

        conn.execute_batch(
            "UPDATE campaigns SET ad_id = ad_id + 1000 * account_id;
             UPDATE campaign_counters SET ad_id = ad_id + 1000 * account_id;",
        )
        .unwrap();
        for (sort, descending, offset, keep) in [
            (SortKey::Title, false, 0, 60),
            (SortKey::Status, false, 0, 60),
            (SortKey::Cpm, false, 40, 60),
            (SortKey::Spent, false, 10, 60),
            (SortKey::AdId, true, 450, 100),
        ] {
            let walk = walker(&conn, sort, descending, offset, keep);
            let walked = walk.keys().unwrap().unwrap();
            assert_eq!(walked.keys.len(), keep, "{sort:?}");
            assert_eq!(walked.past.is_empty(), offset < 450, "{sort:?}");
            let rows = walk.rows(&walked).unwrap().unwrap();
            let fetched = fetch(&conn, &walked.keys).unwrap();
            let seen = |rows: &[CampaignRow]| -> Vec<(i64, i64, String, i64)> {
                let of = |r: &CampaignRow| (r.account_id, r.ad_id, r.title.clone(), r.views);
                rows.iter().map(of).collect()
            };
            assert_eq!(seen(&rows), seen(&fetched), "{sort:?}");
            let mut shuffled = walked.keys.clone();
            shuffled.swap(3, 4);
            let other = |keys: Vec<(i64, i64)>, past: Vec<i64>| Walked { keys, past };
            let past = || walked.past.clone();
            assert!(walk.rows(&other(shuffled, past())).unwrap().is_none());
            let later = walked.keys[1..].to_vec();
            assert!(walk.rows(&other(later, past())).unwrap().is_none());
            if !walked.past.is_empty() {
                let kept = walked.keys.clone();
                assert!(walk.rows(&other(kept, Vec::new())).unwrap().is_none());
            }
        }
    }

    /// Every order with an index across cabinets walks it in page order, for keys and for rows:
    /// no temporary B-tree, whether the filter names statuses or not, and a row's other table
    /// found in one seek (its figures by their key, or for a figure's index its copy by its
    /// number).
    #[test]
    fn each_walk_reads_its_index_in_page_order() {
        let conn = crate::store::test_db();
        let named = ListFilter {
            statuses: Some(vec![crate::domain::campaign::Status::Active]),
            ..ListFilter::default()
        };
        let sorts = SortKey::NAMES.split(", ").filter_map(SortKey::parse);
        for sort in sorts {
            for descending in [true, false] {
                let order = Order { sort, descending };
                let Some(index) = index(order) else { continue };
                for filter in [&ListFilter::default(), &named] {
                    for walk in [Walk::Keys, Walk::Rows] {
                        let sql = walk_sql(filter, order, index, walk);
                        let plan = crate::store::test_plan(&conn, &sql, 1);
                        assert!(
                            plan.iter().any(|step| step.contains(index.name))
                                && plan.iter().all(|step| !step.contains("TEMP B-TREE")),
                            "{sort:?} {walk:?}: {plan:?}"
                        );
                        if let Walk::Rows = walk {
                            let by_key = [
                                format!("SEARCH {} USING PRIMARY KEY", index.joined),
                                format!("SEARCH {} USING INTEGER PRIMARY KEY", index.joined),
                            ];
                            assert!(
                                plan.iter()
                                    .any(|step| by_key.iter().any(|k| step.starts_with(k))),
                                "{sort:?}: {plan:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}
