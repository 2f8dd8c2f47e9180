//! The list query behind `GET /v1/campaigns`: filters, keyset (cursor) pages, and sorted
//! offset pages. Both read each cabinet in the page's order: through an index that matches it
//! (the primary key for cursor pages, `sql/0053_list_indexes_cover_status.sql` for sorts by a
//! column of the copy), or for a sort by a figure from the cabinet's order kept in memory
//! (`db::figures`, schema 74); a sorted page merges the cabinets, reading at most
//! `offset + limit + 1` keys of any, so the work follows the page asked for, never the number
//! of campaigns; over most cabinets a sort by a column of the copy walks one index across them
//! instead (`across`).

mod across;
mod merge;
mod whole;

use rusqlite::types::Value as Sql;
use rusqlite::{params_from_iter, CachedStatement, Connection};

use super::{from_row, listed_columns, CampaignRow, BY_NUMBER, WITH_COUNTERS};
use crate::db::figures::{Figure, Orders};
use crate::domain::campaign::{LinkKind, Status};
use crate::store::StoreError;
use merge::{merged, Order};
pub use whole::{all, sums, Sums};

/// Offset pagination reaches at most this many campaigns of each cabinet.
pub const OFFSET_DEPTH: i64 = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DomainMode {
    Exact,
    Suffix,
}

/// Filters of the list query; they combine with AND.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub accounts: Vec<i64>,
    /// `None`: every status but `Deleted`.
    pub statuses: Option<Vec<Status>>,
    pub title: Option<String>,
    pub username: Option<String>,
    pub domain: Option<(String, DomainMode)>,
    pub kind: Option<LinkKind>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Date,
    AdId,
    Title,
    Status,
    Views,
    Clicks,
    Spent,
    Budget,
    Cpm,
}

impl SortKey {
    pub const NAMES: &'static str = "date, ad_id, title, status, views, clicks, spent, budget, cpm";

    pub fn parse(s: &str) -> Option<SortKey> {
        Some(match s {
            "date" | "created_at" => SortKey::Date,
            "ad_id" => SortKey::AdId,
            "title" => SortKey::Title,
            "status" => SortKey::Status,
            "views" => SortKey::Views,
            "clicks" => SortKey::Clicks,
            "spent" => SortKey::Spent,
            "budget" => SortKey::Budget,
            "cpm" => SortKey::Cpm,
            _ => return None,
        })
    }

    /// Whether the sorted column is one of a campaign's figures (`campaign_counters`).
    fn is_figure(self) -> bool {
        self.figure().is_some()
    }

    fn figure(self) -> Option<Figure> {
        Some(match self {
            SortKey::Views => Figure::Views,
            SortKey::Clicks => Figure::Clicks,
            SortKey::Spent => Figure::Spent,
            SortKey::Budget => Figure::Budget,
            SortKey::Date | SortKey::AdId | SortKey::Title | SortKey::Status | SortKey::Cpm => {
                return None
            }
        })
    }

    fn column(self) -> &'static str {
        match self {
            SortKey::Date => "created_at",
            SortKey::AdId => "ad_id",
            SortKey::Title => "title",
            SortKey::Status => "status",
            SortKey::Views => "views",
            SortKey::Clicks => "clicks",
            SortKey::Spent => "spent_micros",
            SortKey::Budget => "budget_micros",
            SortKey::Cpm => "cpm_micros",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    /// Keyset pages in `(account_id ASC, ad_id DESC)` order, after the given position.
    Cursor {
        after: Option<(i64, i64)>,
        limit: i64,
    },
    /// Sorted pages; each cabinet contributes at most its first `OFFSET_DEPTH` campaigns.
    /// Ties on the sorted column go by `ad_id`, then by cabinet, in the same direction.
    Offset {
        offset: i64,
        limit: i64,
        sort: SortKey,
        descending: bool,
    },
}

/// One page of the list, plus whether more rows follow it.
pub fn list(
    conn: &Connection,
    orders: &Orders,
    filter: &ListFilter,
    page: &Page,
) -> Result<(Vec<CampaignRow>, bool), StoreError> {
    let query = CabinetQuery::of(filter);
    // The page's many statements read one snapshot, the read's (`db::readers` runs each read
    // in one transaction): no write lands between them.
    let rows = match *page {
        Page::Cursor { after, limit } => cursor_page(conn, &query, &filter.accounts, after, limit)?,
        Page::Offset {
            offset,
            limit,
            sort,
            descending,
        } => {
            let order = Order { sort, descending };
            if let [account] = filter.accounts[..] {
                one_cabinet(conn, orders, &query, account, order, offset, limit)?
            } else if let Some(rows) = across::page(conn, &query, filter, order, offset, limit)? {
                rows
            } else {
                let keys = merged(conn, orders, &query, &filter.accounts, order, offset, limit)?;
                fetch(conn, &keys)?
            }
        }
    };
    let limit = match *page {
        Page::Cursor { limit, .. } | Page::Offset { limit, .. } => limit,
    };
    Ok(split_more(rows, limit))
}

/// One cabinet's filtered campaigns: each `FROM` (the tables and conditions) binds the cabinet
/// first, then the filter's `args`, then what the caller appends (a position, a limit).
struct CabinetQuery {
    /// The copies with their figures: what a row is read from.
    from: String,
    /// The copies alone, without their figures.
    copies: String,
    /// The figures alone (`campaign_counters`, which holds each copy's status) when the filter
    /// names nothing else; else as `from`.
    figures: String,
    args: Vec<Sql>,
    /// Whether the filter names nothing but statuses.
    only_status: bool,
    /// The statuses it names (`None`: every status but `Deleted`).
    statuses: Option<Vec<Status>>,
}

impl CabinetQuery {
    /// The campaigns of one cabinet that `filter` matches.
    fn of(filter: &ListFilter) -> CabinetQuery {
        let (clauses, args) = conditions(filter);
        let only_status = clauses.len() == 1;
        let clauses = clauses.join(" AND ");
        let from = format!("FROM {WITH_COUNTERS} WHERE account_id = ? AND {clauses}");
        let figures = if only_status {
            let (status, _) = status_condition(filter, "listed_status");
            format!("FROM campaign_counters WHERE account_id = ? AND {status}")
        } else {
            from.clone()
        };
        CabinetQuery {
            copies: format!("FROM campaigns WHERE account_id = ? AND {clauses}"),
            from,
            figures,
            args,
            only_status,
            statuses: filter.statuses.clone(),
        }
    }

    /// The figure whose kept orders a sort reads: a figure's, when the filter names nothing
    /// but statuses.
    fn kept_figure(&self, sort: SortKey) -> Option<Figure> {
        sort.figure().filter(|_| self.only_status)
    }

    /// Whether the filter lists a campaign of `status`.
    fn lists(&self, status: Status) -> bool {
        match &self.statuses {
            None => status != Status::Deleted,
            Some(statuses) => statuses.contains(&status),
        }
    }

    /// What the keys of a sort are read from: the table holding the sorted column.
    fn keys_from(&self, sort: SortKey) -> &str {
        if sort.is_figure() {
            &self.figures
        } else {
            &self.copies
        }
    }

    /// The rows of `stmt` (made of `from`) for one cabinet, each read by `read`.
    fn rows<T>(
        &self,
        stmt: &mut CachedStatement<'_>,
        account: i64,
        extra: impl IntoIterator<Item = Sql>,
        read: fn(&rusqlite::Row) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, StoreError> {
        let mut rows = Vec::new();
        self.rows_into(stmt, account, extra, read, &mut rows)?;
        Ok(rows)
    }

    /// [`CabinetQuery::rows`] added to `rows` (a page sized once, its rows never moved again).
    fn rows_into<T>(
        &self,
        stmt: &mut CachedStatement<'_>,
        account: i64,
        extra: impl IntoIterator<Item = Sql>,
        read: fn(&rusqlite::Row) -> rusqlite::Result<T>,
        rows: &mut Vec<T>,
    ) -> Result<(), StoreError> {
        let bound = std::iter::once(Sql::Integer(account))
            .chain(self.args.iter().cloned())
            .chain(extra);
        for row in stmt.query_map(params_from_iter(bound), read)? {
            rows.push(row?);
        }
        Ok(())
    }
}

/// A sorted page of one cabinet, rows `offset..offset + limit + 1` of its first
/// `OFFSET_DEPTH`: read whole in one statement, or by a figure their keys taken from the
/// cabinet's kept order and the rows read by them.
fn one_cabinet(
    conn: &Connection,
    orders: &Orders,
    query: &CabinetQuery,
    account: i64,
    order: Order,
    offset: i64,
    limit: i64,
) -> Result<Vec<CampaignRow>, StoreError> {
    let take = (limit + 1).min(OFFSET_DEPTH - offset).max(0);
    if let Some(figure) = query.kept_figure(order.sort) {
        let kept = orders.of(conn, account, figure)?;
        let keys: Vec<(i64, i64)> = merge::kept_from(&kept, order.descending, 0)
            .filter(|(_, (_, _, status))| query.lists(*status))
            .skip(usize::try_from(offset).unwrap_or(0))
            .take(usize::try_from(take).unwrap_or(0))
            .map(|(_, (_, ad, _))| (account, ad))
            .collect();
        return fetch(conn, &keys);
    }
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {} {} {} LIMIT ? OFFSET ?",
        listed_columns(),
        query.from,
        order.sql()
    ))?;
    let window = [Sql::Integer(take), Sql::Integer(offset)];
    let mut rows = Vec::with_capacity(usize::try_from(take).unwrap_or(0));
    query.rows_into(&mut stmt, account, window, from_row, &mut rows)?;
    Ok(rows)
}

/// [`fetch`]'s statement: the listed columns, then the key's position.
fn fetch_sql() -> &'static str {
    static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SQL.get_or_init(|| {
        let values = vec!["(?, ?, ?)"; FETCHED].join(", ");
        format!(
            "WITH page(at, account, ad) AS (VALUES {values})
             SELECT {}, page.at FROM page
             CROSS JOIN ({WITH_COUNTERS})
                 ON account_id = page.account AND ad_id = page.ad AND {BY_NUMBER}",
            listed_columns(),
        )
    })
}

/// Keys [`fetch`] binds to one run of its statement.
const FETCHED: usize = 64;

/// The listed rows of the campaigns of `keys` (cabinet, `ad_id`), in that order: the keys bound
/// as plain integers, [`FETCHED`] at a time, to one cached statement over a `VALUES` list of
/// (position, cabinet, `ad_id`), each finding its figures by their key and its copy by the
/// copy's number ([`BY_NUMBER`]); a short last run repeats its last key, and a key's position
/// places its row. (Bound as a JSON array, the keys' parsing took a quarter of the page's
/// reads.)
fn fetch(conn: &Connection, keys: &[(i64, i64)]) -> Result<Vec<CampaignRow>, StoreError> {
    let mut stmt = conn.prepare_cached(fetch_sql())?;
    let position = stmt.column_count() - 1;
    let mut placed: Vec<Option<CampaignRow>> = vec![None; keys.len()];
    for (run, chunk) in keys.chunks(FETCHED).enumerate() {
        let first = run * FETCHED;
        let padded = (0..FETCHED).map(|i| {
            (
                first + i.min(chunk.len() - 1),
                chunk[i.min(chunk.len() - 1)],
            )
        });
        let mut bound = Vec::with_capacity(FETCHED * 3);
        for (at, (account, ad)) in padded {
            bound.extend([i64::try_from(at).unwrap_or(i64::MAX), account, ad]);
        }
        let mut rows = stmt.query(params_from_iter(bound))?;
        while let Some(r) = rows.next()? {
            let at: usize = r.get(position)?;
            if let Some(slot @ None) = placed.get_mut(at) {
                *slot = Some(from_row(r)?);
            }
        }
    }
    Ok(placed.into_iter().flatten().collect())
}

/// A keyset page in `(account_id ASC, ad_id DESC)` order: the cabinets from the cursor's on,
/// each read newest first through the primary key, until `limit + 1` rows are found.
fn cursor_page(
    conn: &Connection,
    query: &CabinetQuery,
    accounts: &[i64],
    after: Option<(i64, i64)>,
    limit: i64,
) -> Result<Vec<CampaignRow>, StoreError> {
    let head = format!("SELECT {} {}", listed_columns(), query.from);
    let mut whole = conn.prepare_cached(&format!("{head} ORDER BY ad_id DESC LIMIT ?"))?;
    let mut rest =
        conn.prepare_cached(&format!("{head} AND ad_id < ? ORDER BY ad_id DESC LIMIT ?"))?;
    let mut accounts = accounts.to_vec();
    accounts.sort_unstable();
    accounts.dedup();
    let keep = usize::try_from(limit + 1).unwrap_or(0);
    let mut page: Vec<CampaignRow> = Vec::with_capacity(keep);
    for account in accounts {
        let want = keep - page.len();
        if want == 0 {
            break;
        }
        let want = Sql::Integer(i64::try_from(want).unwrap_or(i64::MAX));
        match after {
            Some((from, _)) if account < from => continue,
            Some((from, ad)) if account == from => {
                let position = [Sql::Integer(ad), want];
                query.rows_into(&mut rest, account, position, from_row, &mut page)?;
            }
            _ => query.rows_into(&mut whole, account, [want], from_row, &mut page)?,
        }
    }
    Ok(page)
}

/// The filter's conditions other than the cabinets, with their arguments in order; the first
/// is the status's ([`status_condition`] of `campaigns.status`).
fn conditions(filter: &ListFilter) -> (Vec<String>, Vec<Sql>) {
    let (clause, arg) = status_condition(filter, "status");
    let mut clauses = vec![clause];
    let mut args: Vec<Sql> = arg.into_iter().collect();
    if let Some(title) = &filter.title {
        clauses.push("instr(lower(title), lower(?)) > 0".into());
        args.push(Sql::Text(title.clone()));
    }
    if let Some(username) = &filter.username {
        clauses.push("tme_username = ?".into());
        args.push(Sql::Text(username.to_ascii_lowercase()));
    }
    if let Some((domain, mode)) = &filter.domain {
        match mode {
            DomainMode::Exact => clauses.push("promote_host = ?".into()),
            DomainMode::Suffix => {
                clauses.push(
                    "(promote_host = ? OR substr(promote_host, -length(?) - 1) = '.' || ?)".into(),
                );
                args.extend([Sql::Text(domain.clone()), Sql::Text(domain.clone())]);
            }
        }
        args.push(Sql::Text(domain.clone()));
    }
    if let Some(kind) = filter.kind {
        clauses.push("link_kind = ?".into());
        args.push(Sql::Text(kind.as_str().into()));
    }
    (clauses, args)
}

/// The filter's status condition, read from the column named `column`, and its argument.
fn status_condition(filter: &ListFilter, column: &str) -> (String, Option<Sql>) {
    match &filter.statuses {
        None => (format!("{column} <> 'Deleted'"), None),
        Some(statuses) => {
            let names: Vec<&str> = statuses.iter().map(|s| s.as_str()).collect();
            (
                format!("{column} IN (SELECT value FROM json_each(?))"),
                Some(Sql::Text(serde_json::json!(names).to_string())),
            )
        }
    }
}

fn split_more(mut rows: Vec<CampaignRow>, limit: i64) -> (Vec<CampaignRow>, bool) {
    let limit = usize::try_from(limit).unwrap_or(0);
    let more = rows.len() > limit;
    rows.truncate(limit);
    (rows, more)
}

#[cfg(test)]
mod tests {
    use super::merge::Cell;
    use super::*;
    use rusqlite::params;

    /// Campaigns in three cabinets (the first deeper than `OFFSET_DEPTH`), with many ties on
    /// every sorted column and a few deleted ones.
    pub(super) fn seeded() -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::db::schema::migrate(&mut conn).unwrap();
        let mut seed: u64 = 7;
        let mut next = move |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            i64::try_from((seed >> 33) % m).unwrap()
        };
        for (account, count) in [(30_i64, 700), (10, 120), (20, 90)] {
            conn.execute(
                "INSERT INTO users (id, email, plan, created_at) VALUES (?1, ?2, 'pro', 't')",
                params![account, format!("{account}@example.com")],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO cabinets (id, owner_id, name, cabinet_type, balance_micros,
                    balance_updated_at, min_budget, created_at) VALUES (?1, ?1, 'c', 'euro', 0, 't', 1, 't')",
                [account],
            )
            .unwrap();
            for ad in 1..=count {
                let status =
                    ["Active", "On Hold", "Stopped", "Deleted", "In Review"][next(5) as usize];
                let title = format!("title {}", next(40));
                let cpm = next(4) * 500_000;
                let figures = [next(6) * 1_000_000, next(5) * 250_000, next(30), next(8)];
                conn.execute(
                    "INSERT INTO campaigns (account_id, ad_id, title, text, status, active,
                        promote_url, link_kind, target_type, targeting, cpm_micros,
                        views_per_user, created_at, synced_at, status_changed_at)
                     VALUES (?1, ?2, ?3, 't', ?4, 1, 'https://example.com', 'site', 'channels',
                        '{}', ?5, 1, ?6, 't', 't')",
                    params![account, ad, title, status, cpm, 1_000 + next(50)],
                )
                .unwrap();
                let [budget, spent, views, clicks] = figures;
                conn.execute(
                    "UPDATE campaign_counters SET budget_micros = ?3, spent_micros = ?4,
                        views = ?5, clicks = ?6
                     WHERE account_id = ?1 AND ad_id = ?2",
                    params![account, ad, budget, spent, views, clicks],
                )
                .unwrap();
            }
        }
        conn
    }

    /// `fetch` gives each key's row in the keys' order, over several runs of its statement and
    /// a short last one, a key without a campaign left out; each key finds its figures by their
    /// key and its copy by the copy's number, no table scanned.
    #[test]
    fn fetched_rows_come_in_the_keys_order_over_several_runs() {
        let conn = seeded();
        let mut keys: Vec<(i64, i64)> = (1..=90).rev().map(|ad| (20, ad)).collect();
        keys.extend((1..=60).map(|ad| (30, ad * 7)));
        keys.insert(70, (10, 9_999));
        keys.push((10, 1));
        assert!(keys.len() > 2 * FETCHED && !keys.len().is_multiple_of(FETCHED));
        let rows = fetch(&conn, &keys).unwrap();
        let found: Vec<(i64, i64)> = rows.iter().map(|r| (r.account_id, r.ad_id)).collect();
        let expected: Vec<(i64, i64)> = keys.into_iter().filter(|k| *k != (10, 9_999)).collect();
        assert_eq!(found, expected);
        let plan = crate::store::test_plan(&conn, fetch_sql(), 1);
        assert!(
            plan.iter().all(|step| !step.starts_with("SCAN campaign"))
                && plan
                    .iter()
                    .any(|step| step == "SEARCH campaigns USING INTEGER PRIMARY KEY (rowid=?)"),
            "{plan:?}"
        );
    }

    /// The row's value of the sorted column, as the index orders it (text by bytes).
    fn cell(sort: SortKey, row: &CampaignRow) -> Cell {
        match sort {
            SortKey::Date => Cell::Int(row.created_at),
            SortKey::AdId => Cell::Int(row.ad_id),
            SortKey::Title => Cell::Text(row.title.clone()),
            SortKey::Status => Cell::Text(row.status.as_str().to_string()),
            SortKey::Views => Cell::Int(row.views),
            SortKey::Clicks => Cell::Int(row.clicks),
            SortKey::Spent => Cell::Int(row.spent.micros()),
            SortKey::Budget => Cell::Int(row.budget.micros()),
            SortKey::Cpm => Cell::Int(row.cpm.micros()),
        }
    }

    /// Which rows a filter keeps, said the slow way.
    type Keep = dyn Fn(&CampaignRow) -> bool;

    /// What a page must hold, computed the slow way: every cabinet's rows sorted, cut at
    /// `OFFSET_DEPTH`, then all sorted together.
    fn expected(
        conn: &Connection,
        accounts: &[i64],
        keep: &Keep,
        order: Order,
        offset: usize,
        limit: usize,
    ) -> (Vec<(i64, i64)>, bool) {
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {} FROM {WITH_COUNTERS}",
                super::super::COLUMNS
            ))
            .unwrap();
        let rows: Vec<CampaignRow> = stmt
            .query_map([], from_row)
            .unwrap()
            .filter_map(|r| r.ok().filter(|r| keep(r)))
            .collect();
        let rank = |r: &CampaignRow| (cell(order.sort, r), r.ad_id, r.account_id);
        let mut reachable = Vec::new();
        for &account in accounts {
            let mut mine: Vec<&CampaignRow> =
                rows.iter().filter(|r| r.account_id == account).collect();
            mine.sort_by_key(|r| rank(r));
            if order.descending {
                mine.reverse();
            }
            reachable.extend(mine.into_iter().take(OFFSET_DEPTH as usize));
        }
        reachable.sort_by_key(|r| rank(r));
        if order.descending {
            reachable.reverse();
        }
        let keys: Vec<(i64, i64)> = reachable.iter().map(|r| (r.account_id, r.ad_id)).collect();
        let page = keys.iter().skip(offset).take(limit).copied().collect();
        (page, keys.len() > offset + limit)
    }

    #[test]
    fn a_list_page_reads_none_of_the_unlisted_columns_in_the_same_places() {
        let listed = listed_columns();
        for (column, _) in super::super::UNLISTED {
            assert!(!listed.contains(column), "{column} is still read");
        }
        assert_eq!(
            listed.matches(',').count(),
            super::super::COLUMNS.matches(',').count()
        );
    }

    #[test]
    fn cursor_pages_walk_every_cabinet_in_key_order_once() {
        let conn = seeded();
        let filter = ListFilter {
            accounts: vec![30, 10, 20],
            statuses: Some(vec![Status::Active, Status::Stopped]),
            ..ListFilter::default()
        };
        let mut want: Vec<(i64, i64)> = Vec::new();
        for account in [10, 20, 30] {
            let mut stmt = conn
                .prepare(
                    "SELECT ad_id FROM campaigns WHERE account_id = ?1
                       AND status IN ('Active', 'Stopped') ORDER BY ad_id DESC",
                )
                .unwrap();
            let ads = stmt.query_map([account], |r| r.get::<_, i64>(0)).unwrap();
            want.extend(ads.map(|ad| (account, ad.unwrap())));
        }
        let mut got = Vec::new();
        let mut after = None;
        loop {
            let (rows, more) = list(
                &conn,
                &Orders::default(),
                &filter,
                &Page::Cursor { after, limit: 37 },
            )
            .unwrap();
            assert!(
                rows.len() == 37 || !more,
                "a page is full unless it is the last"
            );
            got.extend(rows.iter().map(|r| (r.account_id, r.ad_id)));
            if !more {
                break;
            }
            after = got.last().copied();
        }
        assert_eq!(got, want);
    }

    #[test]
    fn sorted_pages_of_one_or_many_cabinets_match_a_full_sort_cut_at_each_depth() {
        let conn = seeded();
        let every = ListFilter {
            accounts: vec![10, 20, 30],
            ..ListFilter::default()
        };
        let narrowed = ListFilter {
            statuses: Some(vec![Status::Active, Status::Stopped]),
            title: Some("TITLE 1".into()),
            ..every.clone()
        };
        let not_deleted = |r: &CampaignRow| r.status != Status::Deleted;
        let narrow = |r: &CampaignRow| {
            matches!(r.status, Status::Active | Status::Stopped) && r.title.contains("title 1")
        };
        let deepest = ListFilter {
            accounts: vec![30],
            ..every.clone()
        };
        let cases: [(&ListFilter, &Keep); 3] = [
            (&every, &not_deleted),
            (&narrowed, &narrow),
            (&deepest, &not_deleted),
        ];
        let sorts = [
            SortKey::Date,
            SortKey::AdId,
            SortKey::Title,
            SortKey::Status,
            SortKey::Views,
            SortKey::Clicks,
            SortKey::Spent,
            SortKey::Budget,
            SortKey::Cpm,
        ];
        for ((filter, keep), sort) in cases.iter().flat_map(|c| sorts.map(|s| (c, s))) {
            for descending in [true, false] {
                for (offset, limit) in [(0, 500), (0, 7), (37, 100), (450, 500), (500, 500)] {
                    let page = Page::Offset {
                        offset,
                        limit,
                        sort,
                        descending,
                    };
                    let (rows, more) = list(&conn, &Orders::default(), filter, &page).unwrap();
                    let got: Vec<(i64, i64)> =
                        rows.iter().map(|r| (r.account_id, r.ad_id)).collect();
                    let order = Order { sort, descending };
                    let want = expected(
                        &conn,
                        &filter.accounts,
                        *keep,
                        order,
                        offset as usize,
                        limit as usize,
                    );
                    assert_eq!(
                        (got, more),
                        want,
                        "{filter:?} {sort:?} desc={descending} offset={offset} limit={limit}"
                    );
                }
            }
        }
    }
}
