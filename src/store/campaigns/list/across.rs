//! Sorted list pages over many cabinets read across them at once: when the person reaches at
//! least half of all cabinets (`kept::Cabinets`), the filter names only statuses and the sort
//! is a column of the copy, one walk of the sort's index across cabinets
//! (`sql/0070_list_indexes_across_cabinets.sql`) finds the page's keys in page order, the
//! other cabinets' entries skipped, where [`super::merge`] runs a statement per cabinet.

use rusqlite::Connection;

use super::merge::Order;
use super::{status_condition, CabinetQuery, ListFilter, SortKey, OFFSET_DEPTH};
use crate::store::kept::Cabinets;
use crate::store::StoreError;

/// The walk gives way to the merge once it has read this many entries per row of the page
/// (plus [`SLACK`]) without filling it: the cabinets reached are then a thin share of the
/// order's head, which the merge reads without skipping.
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

/// The walk's statement: every matching campaign's key in page order (ties on the column by
/// `ad_id`, then by cabinet, as the merge orders them), binding the statuses when the filter
/// names them.
fn walk_sql(filter: &ListFilter, order: Order, index: &str) -> String {
    let (status, _) = status_condition(filter, "status");
    let dir = if order.descending { "DESC" } else { "ASC" };
    format!(
        "SELECT account_id, ad_id FROM campaigns INDEXED BY {index} WHERE {status}
         {}, account_id {dir}",
        order.sql()
    )
}

/// The keys (cabinet, `ad_id`) of rows `offset..offset + limit + 1` of the page over
/// `filter.accounts`, as [`super::merge::merged`] finds them; `None` where the walk does not
/// apply or gives way: the filter names more than statuses, the sort has no index across
/// cabinets, the cabinets are not read together, a cabinet passes the depth a page reads of
/// it, or too many entries were skipped.
pub(super) fn keys(
    conn: &Connection,
    query: &CabinetQuery,
    filter: &ListFilter,
    order: Order,
    offset: i64,
    limit: i64,
) -> Result<Option<Vec<(i64, i64)>>, StoreError> {
    let Some(index) = index(order.sort).filter(|_| query.only_status) else {
        return Ok(None);
    };
    let cabinets = Cabinets::new(conn, &filter.accounts)?;
    if !cabinets.together {
        return Ok(None);
    }
    let depth = (offset + limit + 1).min(OFFSET_DEPTH);
    let keep = usize::try_from(limit + 1).unwrap_or(0);
    let mut skip = usize::try_from(offset).unwrap_or(0);
    let budget = (skip + keep).saturating_mul(PER_ROW).saturating_add(SLACK);
    let (_, statuses) = status_condition(filter, "status");
    let mut stmt = conn.prepare_cached(&walk_sql(filter, order, index))?;
    let mut rows = stmt.query(rusqlite::params_from_iter(statuses))?;
    let mut taken = vec![0_i64; cabinets.len()];
    let mut page = Vec::with_capacity(keep);
    let mut read = 0;
    while page.len() < keep {
        let Some(r) = rows.next()? else { break };
        read += 1;
        if read > budget {
            return Ok(None);
        }
        let account: i64 = r.get(0)?;
        let Some(place) = cabinets.place(account) else {
            continue;
        };
        taken[place] += 1;
        if taken[place] > depth {
            return Ok(None);
        }
        if skip > 0 {
            skip -= 1;
        } else {
            page.push((account, r.get(1)?));
        }
    }
    Ok(Some(page))
}

#[cfg(test)]
mod tests {
    use super::super::merge::merged;
    use super::super::tests::seeded;
    use super::*;

    /// Over sets of cabinets read together, each sort with an index across cabinets, both
    /// ways, and pages at several depths, the walk finds the merge's keys or gives way; it finds
    /// them in most cases.
    #[test]
    fn the_walk_finds_the_merges_keys_or_gives_way() {
        let conn = seeded();
        let (mut walked, mut cases) = (0, 0);
        let sorts = SortKey::NAMES.split(", ").filter_map(SortKey::parse);
        for sort in sorts.filter(|s| index(*s).is_some()) {
            for descending in [true, false] {
                for accounts in [vec![10, 20, 30], vec![30, 20], vec![10, 20]] {
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
                        if let Some(found) =
                            keys(&conn, &query, &filter, order, offset, limit).unwrap()
                        {
                            walked += 1;
                            assert_eq!(found, want, "{sort:?} {descending} {filter:?} {offset}");
                        }
                    }
                }
            }
        }
        assert!(walked * 2 > cases, "{walked} of {cases}");
    }

    /// The walk gives way to the merge where a cabinet passes the depth a page reads of it (the
    /// third cabinet holds most campaigns, and a page past 450 reaches its 501st), where the
    /// cabinets reached are far down the order (ids above 120 are all the third's), and where
    /// the cabinets are not read together (one of three).
    #[test]
    fn the_walk_gives_way_past_a_cabinets_depth_a_long_skip_or_a_few_cabinets() {
        let conn = seeded();
        let of = |accounts: Vec<i64>| ListFilter {
            accounts,
            ..ListFilter::default()
        };
        let by = |sort| Order {
            sort,
            descending: true,
        };
        let walk = |filter: &ListFilter, sort, offset, limit| {
            keys(
                &conn,
                &CabinetQuery::of(filter),
                filter,
                by(sort),
                offset,
                limit,
            )
            .unwrap()
        };
        assert!(walk(&of(vec![10, 20, 30]), SortKey::Date, 0, 7).is_some());
        assert_eq!(walk(&of(vec![10, 20, 30]), SortKey::Date, 450, 500), None);
        assert!(walk(&of(vec![10, 20]), SortKey::Date, 0, 7).is_some());
        assert_eq!(walk(&of(vec![10, 20]), SortKey::AdId, 0, 7), None);
        assert_eq!(walk(&of(vec![20]), SortKey::Date, 0, 7), None);
        assert_eq!(walk(&of(vec![10, 20, 30]), SortKey::Views, 0, 7), None);
    }

    /// Every sort with an index across cabinets walks it in page order: no temporary B-tree,
    /// whether the filter names statuses or not.
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
                    let order = Order { sort, descending };
                    let plan = crate::store::test_plan(&conn, &walk_sql(filter, order, index), 1);
                    assert!(
                        plan.iter().any(|step| step.contains(index))
                            && plan.iter().all(|step| !step.contains("TEMP B-TREE")),
                        "{sort:?}: {plan:?}"
                    );
                }
            }
        }
    }
}
