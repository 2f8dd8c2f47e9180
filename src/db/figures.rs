//! Owns the cabinets' figure generations (schema 74) and the orders kept by them: the write
//! connection notes, through SQLite's pre-update hook, every cabinet whose rows of
//! `campaign_counters` a transaction changes (by any statement or trigger), and adds one to
//! each one's generation before the transaction commits; a commit with a cabinet noted and its
//! generation not written is turned into a rollback. Readers keep each cabinet's campaigns in
//! order of a figure ([`Orders`]), built from its narrow rows and used while the cabinet's
//! generation, read in the same snapshot, is the one it was built at.

use std::collections::{HashMap, HashSet};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Arc;

use parking_lot::Mutex;
use rusqlite::{ffi, Connection, Transaction};

use super::StoreError;
use crate::domain::campaign::Status;

/// The table whose changes move a cabinet's generation.
const WATCHED: &CStr = c"campaign_counters";

/// The cabinets a transaction changed the figures of, not yet written to their generations.
type Noted = Mutex<HashSet<i64>>;

/// The write connection with its hooks: dropping it takes the pre-update hook off before the
/// noted cabinets it points at go.
pub(super) struct Watched {
    noted: Generations,
    conn: Connection,
}

/// The cabinets noted on the write connection, for the writer to write their generations.
pub(super) struct Generations(Arc<Noted>);

impl Watched {
    /// Hooks `conn` (SQLite built with `SQLITE_ENABLE_PREUPDATE_HOOK`, `.cargo/config.toml`).
    pub(super) fn new(conn: Connection) -> Watched {
        let noted: Arc<Noted> = Arc::default();
        let at = Arc::as_ptr(&noted).cast_mut().cast::<c_void>();
        // SAFETY: `note` reads only what SQLite hands it and `at`, which points into `noted`:
        // `Watched` holds it until `drop` has taken the hook off again.
        #[allow(unsafe_code)]
        unsafe {
            ffi::sqlite3_preupdate_hook(conn.handle(), Some(note), at);
        }
        let unwritten = noted.clone();
        conn.commit_hook(Some(move || {
            let left = !unwritten.lock().is_empty();
            if left {
                tracing::error!("a commit changed figures without their generations; rolled back");
            }
            left
        }));
        let forgotten = noted.clone();
        conn.rollback_hook(Some(move || forgotten.lock().clear()));
        Watched {
            noted: Generations(noted),
            conn,
        }
    }

    /// The connection, and the cabinets noted on it.
    pub(super) fn parts(&mut self) -> (&mut Connection, &Generations) {
        (&mut self.conn, &self.noted)
    }
}

impl Generations {
    /// Adds one to the generation of every cabinet noted since the last commit; the writer calls
    /// it last in each transaction it commits.
    pub(super) fn write(&self, tx: &Transaction) -> Result<(), StoreError> {
        let cabinets: Vec<i64> = self.0.lock().drain().collect();
        if cabinets.is_empty() {
            return Ok(());
        }
        let mut stmt = tx.prepare_cached(
            "INSERT INTO figure_generations (account_id, generation) VALUES (?1, 1)
             ON CONFLICT (account_id) DO UPDATE SET generation = generation + 1",
        )?;
        for cabinet in cabinets {
            stmt.execute([cabinet])?;
        }
        Ok(())
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        // SAFETY: takes the hook off the connection `Watched` owns, before `noted` is dropped.
        #[allow(unsafe_code)]
        unsafe {
            ffi::sqlite3_preupdate_hook(self.conn.handle(), None, std::ptr::null_mut());
        }
    }
}

/// SQLite's pre-update hook: notes the cabinet (column 0) of a row of [`WATCHED`] about to be
/// inserted, updated or deleted.
#[allow(unsafe_code)]
unsafe extern "C" fn note(
    at: *mut c_void,
    db: *mut ffi::sqlite3,
    op: c_int,
    _schema: *const c_char,
    table: *const c_char,
    _key: i64,
    _new_key: i64,
) {
    // SAFETY: SQLite hands a NUL-terminated table name and, during the hook, the row's old
    // (update, delete) and new (insert, update) values; `at` is `Watched::noted`.
    unsafe {
        if table.is_null() || CStr::from_ptr(table) != WATCHED {
            return;
        }
        let noted = &*at.cast::<Noted>();
        let mut value: *mut ffi::sqlite3_value = std::ptr::null_mut();
        if op != ffi::SQLITE_INSERT && ffi::sqlite3_preupdate_old(db, 0, &mut value) == 0 {
            noted.lock().insert(ffi::sqlite3_value_int64(value));
        }
        if op != ffi::SQLITE_DELETE && ffi::sqlite3_preupdate_new(db, 0, &mut value) == 0 {
            noted.lock().insert(ffi::sqlite3_value_int64(value));
        }
    }
}

/// A figure a list is sorted by, a column of `campaign_counters`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Figure {
    Views,
    Clicks,
    Spent,
    Budget,
}

impl Figure {
    fn column(self) -> &'static str {
        match self {
            Figure::Views => "views",
            Figure::Clicks => "clicks",
            Figure::Spent => "spent_micros",
            Figure::Budget => "budget_micros",
        }
    }
}

/// One cabinet's campaigns by one figure, ascending (the figure, then `ad_id`), each with its
/// status; built at `generation`.
#[derive(Debug)]
pub struct Order {
    generation: i64,
    pub keys: Vec<(i64, i64, Status)>,
}

/// Keys kept over all cabinets and figures (24 bytes each) before older orders are let go:
/// 1,000 cabinets of 1,000 campaigns by two figures.
const KEPT_KEYS: usize = 2_000_000;

/// The cabinets' orders by a figure, shared by every reader of one database.
#[derive(Default)]
pub struct Orders {
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    orders: HashMap<(i64, Figure), Arc<Order>>,
    keys: usize,
}

impl Orders {
    /// The cabinet's campaigns by `figure` as the snapshot `conn` reads holds them: the order
    /// kept at the snapshot's generation, or one built from its rows (and kept).
    pub fn of(
        &self,
        conn: &Connection,
        account: i64,
        figure: Figure,
    ) -> Result<Arc<Order>, StoreError> {
        let generation = generation(conn, account)?;
        if let Some(order) = self.kept.lock().orders.get(&(account, figure)) {
            if order.generation == generation {
                return Ok(order.clone());
            }
        }
        let order = Arc::new(Order {
            generation,
            keys: keys(conn, account, figure)?,
        });
        self.keep(account, figure, &order);
        Ok(order)
    }

    /// Keeps `order` unless one of a later generation is kept; lets others go to stay within
    /// [`KEPT_KEYS`].
    fn keep(&self, account: i64, figure: Figure, order: &Arc<Order>) {
        let mut kept = self.kept.lock();
        let Kept { orders, keys } = &mut *kept;
        if let Some(old) = orders.get(&(account, figure)) {
            if old.generation > order.generation {
                return;
            }
            *keys -= old.keys.len();
        }
        while *keys + order.keys.len() > KEPT_KEYS {
            let Some(&other) = orders.keys().next() else {
                break;
            };
            if let Some(gone) = orders.remove(&other) {
                *keys -= gone.keys.len();
            }
        }
        *keys += order.keys.len();
        orders.insert((account, figure), order.clone());
    }
}

/// The cabinet's generation (0 before its figures first changed).
fn generation(conn: &Connection, account: i64) -> Result<i64, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT generation FROM figure_generations WHERE account_id = ?1")?;
    let mut rows = stmt.query([account])?;
    Ok(match rows.next()? {
        Some(row) => row.get(0)?,
        None => 0,
    })
}

fn keys_sql(figure: Figure) -> String {
    format!(
        "SELECT {}, ad_id, listed_status FROM campaign_counters WHERE account_id = ?1",
        figure.column()
    )
}

/// The cabinet's campaigns by `figure`, ascending, read from their narrow rows.
fn keys(
    conn: &Connection,
    account: i64,
    figure: Figure,
) -> Result<Vec<(i64, i64, Status)>, StoreError> {
    let mut stmt = conn.prepare_cached(&keys_sql(figure))?;
    let mut keys = Vec::new();
    let mut rows = stmt.query([account])?;
    while let Some(row) = rows.next()? {
        let status = row.get_ref(2)?.as_str().map_err(rusqlite::Error::from)?;
        let status = Status::parse(status)
            .ok_or_else(|| StoreError::Failed(format!("unknown status {status:?}")))?;
        keys.push((row.get(0)?, row.get(1)?, status));
    }
    keys.sort_unstable_by_key(|&(value, ad, _)| (value, ad));
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write connection over a fresh schema, with figures for cabinets 1 (`ad_id`s 1-3) and
    /// 2 (`ad_id` 4) committed.
    fn watched() -> Watched {
        let mut watched = Watched::new(crate::store::test_db());
        commit(&mut watched, |tx| {
            tx.execute_batch(
                "INSERT INTO campaign_counters (account_id, ad_id, listed_status, views) VALUES
                    (1, 1, 'Active', 30), (1, 2, 'Deleted', 10), (1, 3, 'On Hold', 30),
                    (2, 4, 'Active', 5);",
            )
        });
        watched
    }

    /// Runs `f` in a transaction, writes the generations and commits, as the writer does.
    fn commit(watched: &mut Watched, f: impl FnOnce(&Transaction) -> rusqlite::Result<()>) {
        let (conn, generations) = watched.parts();
        let tx = conn.transaction().unwrap();
        f(&tx).unwrap();
        generations.write(&tx).unwrap();
        tx.commit().unwrap();
    }

    fn generations(watched: &mut Watched) -> Vec<(i64, i64)> {
        let mut stmt = watched
            .parts()
            .0
            .prepare("SELECT account_id, generation FROM figure_generations ORDER BY 1")
            .unwrap();
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        rows.collect::<Result<_, _>>().unwrap()
    }

    #[test]
    fn a_commit_moves_the_generation_of_each_cabinet_whose_figures_it_changed_once() {
        let mut watched = watched();
        assert_eq!(generations(&mut watched), [(1, 1), (2, 1)]);
        commit(&mut watched, |tx| {
            tx.execute_batch(
                "UPDATE campaign_counters SET views = views + 1 WHERE account_id = 1;
                 UPDATE cabinets SET name = 'd' WHERE id = 7;",
            )
        });
        assert_eq!(generations(&mut watched), [(1, 2), (2, 1)]);
        // A status moved by the trigger on the copy, and a row deleted with its copy.
        commit(&mut watched, |tx| {
            crate::store::test_campaign(tx, 7, 9);
            tx.execute_batch(
                "UPDATE campaigns SET status = 'Stopped' WHERE ad_id = 9;
                 DELETE FROM campaign_counters WHERE account_id = 2;",
            )
        });
        assert_eq!(generations(&mut watched), [(1, 2), (2, 2), (7, 1)]);
    }

    #[test]
    fn a_commit_that_changed_figures_without_their_generations_is_rolled_back() {
        let mut watched = watched();
        let (conn, _) = watched.parts();
        let tx = conn.transaction().unwrap();
        tx.execute(
            "UPDATE campaign_counters SET views = 99 WHERE ad_id = 4",
            [],
        )
        .unwrap();
        assert!(tx.commit().is_err());
        let views: i64 = conn
            .query_row(
                "SELECT views FROM campaign_counters WHERE ad_id = 4",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(views, 5);
        // A rollback forgets what it noted: the next commit moves no generation.
        let tx = conn.transaction().unwrap();
        tx.execute(
            "UPDATE campaign_counters SET views = 98 WHERE ad_id = 1",
            [],
        )
        .unwrap();
        drop(tx);
        commit(&mut watched, |_| Ok(()));
        assert_eq!(generations(&mut watched), [(1, 1), (2, 1)]);
    }

    #[test]
    fn a_kept_order_serves_until_its_cabinets_generation_moves() {
        let mut watched = watched();
        let orders = Orders::default();
        let first = orders.of(watched.parts().0, 1, Figure::Views).unwrap();
        assert_eq!(
            first.keys,
            [
                (10, 2, Status::Deleted),
                (30, 1, Status::Active),
                (30, 3, Status::OnHold)
            ]
        );
        let again = orders.of(watched.parts().0, 1, Figure::Views).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        let other = orders.of(watched.parts().0, 2, Figure::Views).unwrap();
        commit(&mut watched, |tx| {
            tx.execute(
                "UPDATE campaign_counters SET views = 40 WHERE ad_id = 1",
                [],
            )
            .map(drop)
        });
        let moved = orders.of(watched.parts().0, 1, Figure::Views).unwrap();
        assert_eq!(moved.keys[2], (40, 1, Status::Active));
        let unmoved = orders.of(watched.parts().0, 2, Figure::Views).unwrap();
        assert!(Arc::ptr_eq(&other, &unmoved));
    }

    #[test]
    fn an_order_is_read_from_the_figures_narrow_rows_alone() {
        let conn = crate::store::test_db();
        for figure in [Figure::Views, Figure::Clicks, Figure::Spent, Figure::Budget] {
            let plan = crate::store::test_plan(&conn, &keys_sql(figure), 1);
            assert_eq!(
                plan,
                ["SEARCH campaign_counters USING PRIMARY KEY (account_id=?)"]
            );
        }
    }
}
