//! Owns reading the rows of many campaigns named by their keys, `(account_id, ad_id)`, in a
//! few statements rather than one per key: the keys are bound [`CHUNK`] pairs at a time as a
//! `VALUES` list that a query joins to its table through the primary key (`CROSS JOIN` keeps
//! the list outside, so each key is one probe), the last chunk padded with a key no campaign
//! has.

use std::sync::OnceLock;

/// Keys bound to one statement.
pub const CHUNK: usize = 100;

/// A key no campaign has (ids are positive), padding the last chunk.
const NONE: i64 = -1;

/// `(VALUES (?, ?), ...) AS keys` of [`CHUNK`] pairs, whose columns are `keys.column1`
/// (`account_id`) and `keys.column2` (`ad_id`).
pub fn values() -> &'static str {
    static SQL: OnceLock<String> = OnceLock::new();
    SQL.get_or_init(|| {
        let pairs = vec!["(?, ?)"; CHUNK].join(", ");
        format!("(VALUES {pairs}) AS keys")
    })
}

/// The keys as the parameters of [`values`], [`CHUNK`] pairs to a chunk.
pub fn chunks(keys: &[(i64, i64)]) -> impl Iterator<Item = Vec<i64>> + '_ {
    keys.chunks(CHUNK).map(|chunk| {
        let mut bound: Vec<i64> = chunk.iter().flat_map(|&(a, b)| [a, b]).collect();
        bound.resize(CHUNK * 2, NONE);
        bound
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::{params_from_iter, Connection};

    #[test]
    fn every_key_is_found_once_through_the_primary_key() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE t (a INTEGER, b INTEGER, x TEXT, PRIMARY KEY (a, b));
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
             INSERT INTO t SELECT i % 3 + 1, i, 'r' || i FROM n;",
        )
        .unwrap();
        let sql = format!(
            "SELECT t.b FROM {} CROSS JOIN t ON t.a = keys.column1 AND t.b = keys.column2",
            values()
        );
        let plan = crate::store::test_plan(&conn, &sql, 0);
        assert!(
            plan.iter().any(|p| p.starts_with("SEARCH t USING")),
            "{plan:?}"
        );
        let keys: Vec<(i64, i64)> = (1..=250).map(|i| (i % 3 + 1, i)).chain([(9, 9)]).collect();
        let mut stmt = conn.prepare(&sql).unwrap();
        let mut found = Vec::new();
        for bound in chunks(&keys) {
            assert_eq!(bound.len(), CHUNK * 2);
            let rows = stmt
                .query_map(params_from_iter(bound), |r| r.get::<_, i64>(0))
                .unwrap();
            found.extend(rows.map(Result::unwrap));
        }
        found.sort_unstable();
        assert_eq!(found, (1..=250).collect::<Vec<_>>());
    }
}
