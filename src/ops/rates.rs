//! Owns the operator's exchange rates: `admin rates set` (a rate by hand, for a day or the
//! service clock's today, replacing a fetched one of that day) and `admin rates list`; and the
//! reporting currency: the one an owner chooses on `/settings` among those adcab converts, and
//! which one a page of totals converts into (its cabinets' owner's, else the operator's).

use chrono::NaiveDate;
use rusqlite::Connection;
use rust_decimal::Decimal;
use serde::Serialize;

use super::{bad, now_iso, OpsError};
use crate::clock;
use crate::domain::agency::CurrencyCode;
use crate::services::Services;
use crate::store::cabinets::Reachable;
use crate::store::rates::{self, Rate};
use crate::store::StoreError;

/// The most rates `admin rates list` prints.
const LISTED: usize = 500;

/// One kept rate as printed: one `from` costs `rate` of `to` on `date`.
#[derive(Debug, Clone, Serialize)]
pub struct RateShown {
    pub from: String,
    pub to: String,
    pub date: String,
    pub rate: String,
    pub source: String,
}

impl From<Rate> for RateShown {
    fn from(r: Rate) -> RateShown {
        RateShown {
            from: r.base.to_string(),
            to: r.quote.to_string(),
            date: r.day.to_string(),
            rate: r.rate.normalize().to_string(),
            source: r.source,
        }
    }
}

/// `admin rates list`: the configured reporting currency and source, and the kept rates,
/// newest day first.
#[derive(Debug, Clone, Serialize)]
pub struct RateList {
    pub reporting_currency: String,
    pub source: &'static str,
    pub rates: Vec<RateShown>,
}

/// `admin rates set --from CUR --to CUR --rate DEC [--date YYYY-MM-DD]`: keeps the rate by
/// hand (source `manual`) for `date`, else the service clock's day (UTC); a later fetch does
/// not replace it.
pub fn rate_set(
    s: &Services,
    from: &CurrencyCode,
    to: &CurrencyCode,
    rate: Decimal,
    date: Option<NaiveDate>,
) -> Result<RateShown, OpsError> {
    if from == to {
        return Err(bad("to", "a rate is between two different currencies"));
    }
    if rate <= Decimal::ZERO || rate.scale() > 12 {
        return Err(bad(
            "rate",
            "must be a positive decimal with at most 12 decimals",
        ));
    }
    let kept = s.db.write_blocking(|tx| {
        let now = clock::now(tx)?;
        let rate = Rate {
            base: *from,
            quote: *to,
            day: date.unwrap_or(now.date_naive()),
            rate: rate.normalize(),
            source: "manual".into(),
        };
        rates::set(tx, &rate, &clock::iso(now))?;
        Ok::<_, OpsError>(rate)
    })?;
    Ok(kept.into())
}

/// `admin rates list`.
pub fn rate_list(s: &Services) -> Result<RateList, OpsError> {
    let rows = s.db.read_blocking(|c| rates::list(c, LISTED))?;
    let config = &s.config.rates;
    Ok(RateList {
        reporting_currency: config.reporting_currency.to_string(),
        source: match config.source {
            crate::config::RatesSource::Ecb => "ecb",
            crate::config::RatesSource::Manual => "manual",
        },
        rates: rows.into_iter().map(RateShown::from).collect(),
    })
}

/// The currencies an owner may report in, first in this order: the euro, the US dollar most
/// trackers report revenue in, TON and Telegram Stars (`STARS`, the platform's `XTR`).
pub const OFFERED: [&str; 4] = ["EUR", "USD", "TON", "STARS"];

/// The reporting currencies an owner may choose: [`OFFERED`], then the operator's `default`
/// and every other currency a kept rate names (the ECB's), each once.
pub fn reporting_currencies(
    conn: &Connection,
    default: &CurrencyCode,
) -> Result<Vec<CurrencyCode>, StoreError> {
    let mut all: Vec<CurrencyCode> = OFFERED
        .iter()
        .map(|c| CurrencyCode::parse(c).expect("an offered currency is a code"))
        .collect();
    for code in std::iter::once(*default).chain(rates::currencies(conn)?) {
        if !all.contains(&code) {
            all.push(code);
        }
    }
    Ok(all)
}

/// `/settings`: keeps the reporting currency `owner` chose, one of [`reporting_currencies`]; `None` leaves
/// it to the operator's `default`.
pub fn reporting_currency_set(
    conn: &Connection,
    owner: i64,
    choice: Option<&CurrencyCode>,
    default: &CurrencyCode,
) -> Result<(), OpsError> {
    if let Some(code) = choice {
        if !reporting_currencies(conn, default)?.contains(code) {
            return Err(bad(
                "reporting_currency",
                format!("{code} is not a currency adcab converts"),
            ));
        }
    }
    rates::set_owner_currency(conn, owner, choice, &now_iso(conn)?)?;
    Ok(())
}

/// The currency a page of totals over the cabinets `reach` converts into: their owner's choice
/// when they are all one owner's, else (cabinets of several owners, or no choice) the
/// operator's `default`.
pub fn reporting_currency(
    conn: &Connection,
    default: &CurrencyCode,
    reach: &[Reachable],
) -> Result<CurrencyCode, StoreError> {
    let mut owners = reach.iter().map(|r| r.cabinet.owner_id);
    let Some(first) = owners.next() else {
        return Ok(*default);
    };
    if owners.any(|o| o != first) {
        return Ok(*default);
    }
    Ok(rates::owner_currency(conn, first)?.unwrap_or(*default))
}
