//! Owns what a cabinet's conversions over a span come to: how many, and their revenue per
//! currency, read from the conversions themselves (the home page reads them through their
//! daily rows, `kept::conversions`, which falls back to this read).

use rusqlite::{params, Connection};

use super::StoreError;

/// What [`conversions_of_cabinet`] reads, through `conversions_received` (schema 47).
const CONVERSIONS_OF_CABINET: &str =
    "SELECT currency, COUNT(*), SUM(amount_micros) FROM conversions
     WHERE account_id = ?1 AND received_at >= ?2 AND received_at < ?3
     GROUP BY currency ORDER BY currency";

/// The conversions a cabinet received over a span: how many, and the revenue they reported
/// per currency (micro-units, exact), currencies in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Converted {
    pub count: i64,
    pub revenue: Vec<(String, i128)>,
}

impl Converted {
    /// The conversions of several spans together, currencies in order.
    pub fn sum(spans: &[Converted]) -> Converted {
        let mut revenue: std::collections::BTreeMap<&str, i128> = Default::default();
        let mut count: i64 = 0;
        for span in spans {
            count = count.saturating_add(span.count);
            for (currency, amount) in &span.revenue {
                let sum = revenue.entry(currency).or_default();
                *sum = sum.saturating_add(*amount);
            }
        }
        Converted {
            count,
            revenue: revenue
                .into_iter()
                .map(|(currency, amount)| (currency.to_string(), amount))
                .collect(),
        }
    }
}

/// The conversions attributed to a cabinet received in `[from, to)` (ISO times): what
/// `kept::conversions` reads from the daily rows, read from the conversions themselves (for
/// spans the daily rows cannot serve).
pub fn conversions_of_cabinet(
    conn: &Connection,
    account: i64,
    from: &str,
    to: &str,
) -> Result<Converted, StoreError> {
    let mut stmt = conn.prepare_cached(CONVERSIONS_OF_CABINET)?;
    let mut rows = stmt.query(params![account, from, to])?;
    let mut found = Converted::default();
    while let Some(r) = rows.next()? {
        let currency: Option<String> = r.get(0)?;
        let count: i64 = r.get(1)?;
        found.count = found.count.saturating_add(count);
        // SUM of integers is exact in SQLite unless it overflows, which it reports as an error.
        let amount: Option<i64> = r.get(2)?;
        if let (Some(currency), Some(amount)) = (currency, amount) {
            found.revenue.push((currency, i128::from(amount)));
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::money::Money;
    use crate::store::{kept, test_db};

    #[test]
    fn a_cabinets_conversions_over_a_span_are_read_through_the_index_by_time_alone() {
        let conn = test_db();
        let plan: Vec<String> = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {CONVERSIONS_OF_CABINET}"))
            .unwrap()
            .query_map(params![7, "a", "b"], |r| r.get(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            plan.iter().any(|step| step.contains(
                "USING COVERING INDEX conversions_received (account_id=? AND received_at>? AND received_at<?)"
            )),
            "{plan:?}"
        );
    }

    #[test]
    fn hours_fall_into_the_day_they_start_in() {
        let conn = test_db();
        conn.execute_batch(
            "INSERT INTO cabinet_hours VALUES (7, '2026-11-26T22:00:00Z', 1, 0, 0, 1000000);
             INSERT INTO cabinet_hours VALUES (7, '2026-11-26T23:00:00Z', 2, 1, 0, 2000000);
             INSERT INTO cabinet_hours VALUES (7, '2026-11-27T23:00:00Z', 4, 0, 1, 4000000);
             INSERT INTO cabinet_hours VALUES (7, '2026-11-28T23:00:00Z', 8, 0, 0, 8000000);",
        )
        .unwrap();
        // Days starting at 23:00 UTC (a zone one hour ahead).
        let bounds: Vec<String> = [
            "2026-11-26T23:00:00Z",
            "2026-11-27T23:00:00Z",
            "2026-11-28T23:00:00Z",
        ]
        .map(String::from)
        .to_vec();
        let days = kept::days(&conn, 7, &kept::Spans::new(bounds)).unwrap();
        assert_eq!(days.len(), 2);
        assert_eq!((days[0].views, days[0].clicks), (2, 1));
        assert_eq!((days[1].views, days[1].actions), (4, 1));
        assert_eq!(days[1].spent, Money::from_micros(4_000_000));
    }

    #[test]
    fn conversions_count_and_sum_per_currency() {
        let conn = test_db();
        conn.execute_batch(
            "INSERT INTO conversions (holder_id, txid, event_type, amount_micros, currency,
                account_id, received_at, updated_at) VALUES
                (1, 'a', 'purchase', 2500000, 'USD', 7, '2026-11-27T10:00:00Z', 'x'),
                (1, 'b', 'purchase', 500000, 'USD', 7, '2026-11-27T11:00:00Z', 'x'),
                (1, 'c', 'lead', NULL, NULL, 7, '2026-11-27T12:00:00Z', 'x'),
                (1, 'd', 'lead', NULL, NULL, 7, '2026-11-29T12:00:00Z', 'x');",
        )
        .unwrap();
        let found =
            conversions_of_cabinet(&conn, 7, "2026-11-27T00:00:00Z", "2026-11-28T00:00:00Z")
                .unwrap();
        assert_eq!(found.count, 3);
        assert_eq!(found.revenue, vec![("USD".to_string(), 3_000_000)]);
    }
}
