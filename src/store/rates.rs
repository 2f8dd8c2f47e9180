//! Owns the kept exchange rates (migration 32): one rate per currency pair and day, and the
//! look-up that finds the rate a figure of a given day converts at; and the reporting currency
//! an owner chose (migration 39, a column of `agency_profiles`).

use chrono::NaiveDate;
use rusqlite::{params, Connection, OptionalExtension};
use rust_decimal::Decimal;

use super::{parsed, StoreError};
use crate::domain::agency::CurrencyCode;

/// One kept rate: one unit of `base` costs `rate` units of `quote` on `day`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rate {
    pub base: CurrencyCode,
    pub quote: CurrencyCode,
    pub day: NaiveDate,
    pub rate: Decimal,
    pub source: String,
}

/// Keeps a rate, replacing the pair's rate of that day.
pub fn set(conn: &Connection, rate: &Rate, now: &str) -> Result<(), StoreError> {
    upsert(conn, rate, now, "")?;
    Ok(())
}

/// Keeps a fetched rate (`ecb`, `url`, `fixed`) unless a rate set by hand is kept for the
/// pair and day: the operator's word wins over a fetch. True when it was kept.
pub fn set_fetched(conn: &Connection, rate: &Rate, now: &str) -> Result<bool, StoreError> {
    Ok(upsert(conn, rate, now, "WHERE rates.source <> 'manual'")? > 0)
}

/// Inserts `rate` or replaces the pair's rate of its day where `replace_where` (a fixed SQL
/// condition, or empty for always) holds; the rows changed.
fn upsert(
    conn: &Connection,
    rate: &Rate,
    now: &str,
    replace_where: &str,
) -> Result<usize, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "INSERT INTO rates (base, quote, day, rate, source, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (base, quote, day) DO UPDATE SET
            rate = excluded.rate, source = excluded.source, updated_at = excluded.updated_at
         {replace_where}"
    ))?;
    Ok(stmt.execute(params![
        rate.base.as_str(),
        rate.quote.as_str(),
        rate.day.to_string(),
        rate.rate.to_string(),
        rate.source,
        now
    ])?)
}

/// True when a fetch from `source` kept a rate at a time of `day` (UTC, `updated_at`), so
/// that source's fetch of the day is done.
pub fn fetched_on(conn: &Connection, source: &str, day: NaiveDate) -> Result<bool, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM rates
         WHERE source = ?1 AND substr(updated_at, 1, 10) = ?2)",
    )?;
    Ok(stmt.query_row(params![source, day.to_string()], |r| r.get(0))?)
}

/// The kept rates, newest day first, at most `limit`.
pub fn list(conn: &Connection, limit: usize) -> Result<Vec<Rate>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT base, quote, day, rate, source FROM rates
         ORDER BY day DESC, base, quote LIMIT ?1",
    )?;
    let rows = stmt.query_map([limit as i64], read)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The newest rate of the pair on `day` or up to `days_back` days before it (rates are not
/// published on every day), as kept: `base → quote` only, no inverse or cross rate.
pub fn find(
    conn: &Connection,
    base: &CurrencyCode,
    quote: &CurrencyCode,
    day: NaiveDate,
    days_back: u32,
) -> Result<Option<Rate>, StoreError> {
    let earliest = day - chrono::Days::new(u64::from(days_back));
    let mut stmt = conn.prepare_cached(
        "SELECT base, quote, day, rate, source FROM rates
         WHERE base = ?1 AND quote = ?2 AND day <= ?3 AND day >= ?4
         ORDER BY day DESC LIMIT 1",
    )?;
    Ok(stmt
        .query_row(
            params![
                base.as_str(),
                quote.as_str(),
                day.to_string(),
                earliest.to_string()
            ],
            read,
        )
        .optional()?)
}

/// An amount converted at a kept rate: the figure, the rate used (`from → to`) and its day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    pub amount: Decimal,
    pub rate: Decimal,
    pub day: NaiveDate,
}

/// How many days before a figure's day a rate may be from (weekends and holidays publish
/// none): a week.
pub const DAYS_BACK: u32 = 7;

/// Converts `amount` of `from` into `to` at the rate of `day` (or the newest within
/// [`DAYS_BACK`] before it): the pair as kept, else its inverse, else across EUR (the
/// reference rates' base) or USD. `None` when no rate is known: the figure stays native, never
/// guessed. The result keeps 6 decimals.
pub fn convert(
    conn: &Connection,
    amount: Decimal,
    from: &CurrencyCode,
    to: &CurrencyCode,
    day: NaiveDate,
) -> Result<Option<Converted>, StoreError> {
    let Some((rate, rate_day)) = rate_between(conn, from, to, day)? else {
        return Ok(None);
    };
    Ok(amount.checked_mul(rate).map(|a| Converted {
        amount: a.round_dp(6),
        rate: rate.round_dp(8),
        day: rate_day,
    }))
}

/// The rate `from → to` on `day` and the day it is of (the older of two for a cross rate).
fn rate_between(
    conn: &Connection,
    from: &CurrencyCode,
    to: &CurrencyCode,
    day: NaiveDate,
) -> Result<Option<(Decimal, NaiveDate)>, StoreError> {
    if from == to {
        return Ok(Some((Decimal::ONE, day)));
    }
    if let Some(r) = find(conn, from, to, day, DAYS_BACK)? {
        return Ok(Some((r.rate, r.day)));
    }
    if let Some(r) = find(conn, to, from, day, DAYS_BACK)? {
        return Ok(inverse(r.rate).map(|x| (x, r.day)));
    }
    // Across a currency both have a rate with: EUR (the reference rates' base), else USD (a
    // fixed Stars rate is often given in it).
    for pivot in PIVOTS {
        let pivot = CurrencyCode::parse(pivot).expect("a pivot is a code");
        if pivot == *from || pivot == *to {
            continue;
        }
        if let (Some((a, a_day)), Some((b, b_day))) = (
            direct_or_inverse(conn, from, &pivot, day)?,
            direct_or_inverse(conn, &pivot, to, day)?,
        ) {
            return Ok(a.checked_mul(b).map(|x| (x, a_day.min(b_day))));
        }
    }
    Ok(None)
}

/// The currencies a cross rate may go across, in order.
const PIVOTS: [&str; 2] = ["EUR", "USD"];

fn direct_or_inverse(
    conn: &Connection,
    from: &CurrencyCode,
    to: &CurrencyCode,
    day: NaiveDate,
) -> Result<Option<(Decimal, NaiveDate)>, StoreError> {
    if let Some(r) = find(conn, from, to, day, DAYS_BACK)? {
        return Ok(Some((r.rate, r.day)));
    }
    Ok(find(conn, to, from, day, DAYS_BACK)?.and_then(|r| inverse(r.rate).map(|x| (x, r.day))))
}

fn inverse(rate: Decimal) -> Option<Decimal> {
    Decimal::ONE.checked_div(rate)
}

/// Every currency a kept rate names, either side, sorted.
pub fn currencies(conn: &Connection) -> Result<Vec<CurrencyCode>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT base FROM rates UNION SELECT quote FROM rates ORDER BY 1")?;
    let rows = stmt.query_map([], |r| parsed(r, 0, "rates.base", CurrencyCode::parse))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The reporting currency `owner` chose; `None` when they chose none.
pub fn owner_currency(conn: &Connection, owner: i64) -> Result<Option<CurrencyCode>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT reporting_currency FROM agency_profiles
         WHERE owner_id = ?1 AND reporting_currency IS NOT NULL",
    )?;
    Ok(stmt
        .query_row([owner], |r| {
            parsed(
                r,
                0,
                "agency_profiles.reporting_currency",
                CurrencyCode::parse,
            )
        })
        .optional()?)
}

/// Keeps the reporting currency `owner` chose (`None`: the operator's default).
pub fn set_owner_currency(
    conn: &Connection,
    owner: i64,
    currency: Option<&CurrencyCode>,
    now: &str,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO agency_profiles (owner_id, reporting_currency, updated_at)
         VALUES (?1, ?2, ?3)
         ON CONFLICT (owner_id) DO UPDATE SET reporting_currency = excluded.reporting_currency,
            updated_at = excluded.updated_at",
        params![owner, currency.map(CurrencyCode::as_str), now],
    )?;
    Ok(())
}

fn read(r: &rusqlite::Row) -> rusqlite::Result<Rate> {
    Ok(Rate {
        base: parsed(r, 0, "rates.base", CurrencyCode::parse)?,
        quote: parsed(r, 1, "rates.quote", CurrencyCode::parse)?,
        day: parsed(r, 2, "rates.day", |t| t.parse().ok())?,
        rate: parsed(r, 3, "rates.rate", |t| t.parse().ok())?,
        source: r.get(4)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(c: &str) -> CurrencyCode {
        CurrencyCode::parse(c).unwrap()
    }

    fn rate(day: &str, value: &str, source: &str) -> Rate {
        Rate {
            base: code("EUR"),
            quote: code("USD"),
            day: day.parse().unwrap(),
            rate: value.parse().unwrap(),
            source: source.into(),
        }
    }

    #[test]
    fn a_day_finds_its_own_rate_or_the_newest_before_it_within_reach() {
        let conn = crate::store::test_db();
        set(&conn, &rate("2026-11-20", "1.05", "ecb"), "t").unwrap();
        set(&conn, &rate("2026-11-23", "1.06", "ecb"), "t").unwrap();
        let (eur, usd) = (code("EUR"), code("USD"));
        let on = |d: &str, back| {
            find(&conn, &eur, &usd, d.parse().unwrap(), back)
                .unwrap()
                .map(|r| r.rate.to_string())
        };
        assert_eq!(on("2026-11-23", 0).as_deref(), Some("1.06"));
        assert_eq!(
            on("2026-11-22", 3).as_deref(),
            Some("1.05"),
            "the Friday's rate"
        );
        assert_eq!(on("2026-11-22", 1), None, "nothing within a day");
        assert_eq!(on("2026-11-19", 7), None, "nothing before the first");
        assert!(find(&conn, &usd, &eur, "2026-11-23".parse().unwrap(), 0)
            .unwrap()
            .is_none());
    }

    #[test]
    fn amounts_convert_directly_inversely_and_across_eur_or_not_at_all() {
        let conn = crate::store::test_db();
        set(&conn, &rate("2026-11-20", "1.25", "ecb"), "t").unwrap();
        let ton = Rate {
            base: code("TON"),
            quote: code("EUR"),
            day: "2026-11-19".parse().unwrap(),
            rate: "4".parse().unwrap(),
            source: "url".into(),
        };
        set(&conn, &ton, "t").unwrap();
        let day: NaiveDate = "2026-11-21".parse().unwrap();
        let conv = |amount: &str, from: &str, to: &str| {
            convert(&conn, amount.parse().unwrap(), &code(from), &code(to), day)
                .unwrap()
                .map(|c| (c.amount.normalize().to_string(), c.day.to_string()))
        };
        assert_eq!(
            conv("10", "EUR", "USD"),
            Some(("12.5".into(), "2026-11-20".into()))
        );
        assert_eq!(
            conv("12.5", "USD", "EUR"),
            Some(("10".into(), "2026-11-20".into()))
        );
        assert_eq!(
            conv("2", "TON", "USD"),
            Some(("10".into(), "2026-11-19".into())),
            "across EUR, dated by the older rate"
        );
        assert_eq!(conv("2", "STARS", "USD"), None, "no rate: never guessed");
        let stars = Rate {
            base: code("STARS"),
            quote: code("USD"),
            day: "2026-11-21".parse().unwrap(),
            rate: "0.015".parse().unwrap(),
            source: "fixed".into(),
        };
        set(&conn, &stars, "t").unwrap();
        assert_eq!(
            conv("1000", "STARS", "EUR"),
            Some(("12".into(), "2026-11-20".into())),
            "across USD when one side is EUR"
        );
        assert_eq!(
            conv("3", "USD", "USD"),
            Some(("3".into(), "2026-11-21".into()))
        );
    }

    #[test]
    fn an_owners_currency_is_kept_beside_their_agency_name_and_can_be_unset() {
        let conn = crate::store::test_db();
        assert_eq!(owner_currency(&conn, 1).unwrap(), None);
        crate::store::reports::set_name(&conn, 1, Some("Agency"), "t").unwrap();
        set_owner_currency(&conn, 1, Some(&code("USD")), "t").unwrap();
        assert_eq!(owner_currency(&conn, 1).unwrap(), Some(code("USD")));
        assert_eq!(owner_currency(&conn, 2).unwrap(), None, "another owner's");
        let name = crate::store::reports::profile(&conn, 1).unwrap().name;
        assert_eq!(name.as_deref(), Some("Agency"), "the name stays");
        set_owner_currency(&conn, 1, None, "t").unwrap();
        assert_eq!(owner_currency(&conn, 1).unwrap(), None);
        set(&conn, &rate("2026-11-20", "1.05", "ecb"), "t").unwrap();
        assert_eq!(currencies(&conn).unwrap(), [code("EUR"), code("USD")]);
    }

    #[test]
    fn a_rate_set_again_replaces_the_days_rate() {
        let conn = crate::store::test_db();
        set(&conn, &rate("2026-11-20", "1.05", "ecb"), "t").unwrap();
        set(&conn, &rate("2026-11-20", "1.07", "manual"), "t").unwrap();
        let all = list(&conn, 10).unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(
            (all[0].rate.to_string(), all[0].source.as_str()),
            ("1.07".into(), "manual")
        );
    }

    #[test]
    fn a_fetch_does_not_replace_a_rate_set_by_hand_but_replaces_its_own() {
        let conn = crate::store::test_db();
        assert!(set_fetched(
            &conn,
            &rate("2026-11-20", "1.05", "ecb"),
            "2026-11-20T16:00:00Z"
        )
        .unwrap());
        assert!(set_fetched(
            &conn,
            &rate("2026-11-20", "1.06", "ecb"),
            "2026-11-21T08:00:00Z"
        )
        .unwrap());
        assert!(fetched_on(&conn, "ecb", "2026-11-21".parse().unwrap()).unwrap());
        assert!(!fetched_on(&conn, "ecb", "2026-11-22".parse().unwrap()).unwrap());
        set(&conn, &rate("2026-11-20", "1.10", "manual"), "t").unwrap();
        assert!(!set_fetched(
            &conn,
            &rate("2026-11-20", "1.07", "ecb"),
            "2026-11-22T08:00:00Z"
        )
        .unwrap());
        let all = list(&conn, 10).unwrap();
        assert_eq!(
            (all[0].rate.to_string(), all[0].source.as_str()),
            ("1.10".into(), "manual")
        );
    }
}
