//! Owns ROAS and profit: revenue (reported by trackers in any currency) and spend (in a
//! cabinet's currency) converted into one currency at the kept rates of a day, with every rate
//! used and its date, so a face can show it beside the figure. A currency with no rate leaves
//! ROAS and profit out (`None`, with the currency named), never guessed. Reads only.

use chrono::NaiveDate;
use rusqlite::Connection;
use rust_decimal::Decimal;

use crate::domain::agency::CurrencyCode;
use crate::domain::money::CabinetType;
use crate::store::campaigns::CampaignRow;
use crate::store::rates;
use crate::store::StoreError;

/// One conversion made: one `from` costs `rate` of `to`, the rate of `day`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Used {
    pub from: CurrencyCode,
    pub to: CurrencyCode,
    pub rate: Decimal,
    pub day: NaiveDate,
}

/// Amounts of several currencies summed in one: the sum of those with a rate, the rates used
/// (one per currency converted), and the currencies with none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summed {
    pub currency: CurrencyCode,
    pub amount: Decimal,
    pub used: Vec<Used>,
    /// Currencies (as reported) that had no rate into `currency`; their amounts are left out.
    pub missing: Vec<String>,
}

impl Summed {
    /// `amount`, already in `currency`: no rate used, none missing.
    fn whole_in(currency: &CurrencyCode, amount: Decimal) -> Summed {
        Summed {
            currency: *currency,
            amount,
            used: Vec::new(),
            missing: Vec::new(),
        }
    }

    /// The sum, when every amount could be converted.
    pub fn whole(&self) -> Option<Decimal> {
        self.missing.is_empty().then_some(self.amount)
    }
}

/// `amounts` (a currency as reported, an amount) summed in `to` at the rates of `day`.
pub fn sum_in(
    conn: &Connection,
    amounts: &[(String, Decimal)],
    to: &CurrencyCode,
    day: NaiveDate,
) -> Result<Summed, StoreError> {
    let mut sum = Summed {
        currency: *to,
        amount: Decimal::ZERO,
        used: Vec::new(),
        missing: Vec::new(),
    };
    for (currency, amount) in amounts {
        let converted = match CurrencyCode::parse(currency) {
            Some(from) => rates::convert(conn, *amount, &from, to, day)?.map(|c| (from, c)),
            None => None,
        };
        let Some((from, c)) = converted else {
            if !sum.missing.contains(currency) {
                sum.missing.push(currency.clone());
            }
            continue;
        };
        let Some(total) = sum.amount.checked_add(c.amount) else {
            sum.missing.push(currency.clone());
            continue;
        };
        sum.amount = total;
        if from != *to && !sum.used.iter().any(|u| u.from == from) {
            sum.used.push(Used {
                from,
                to: *to,
                rate: c.rate,
                day: c.day,
            });
        }
    }
    Ok(sum)
}

/// ROAS and profit of `spend` against `revenue`, both in `currency`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Returns {
    pub currency: CurrencyCode,
    /// The revenue converted; `None` when a currency had no rate.
    pub revenue: Option<Decimal>,
    /// Revenue per unit of spend, 2 decimals; `None` without spend or without a whole revenue.
    pub roas: Option<Decimal>,
    /// Revenue minus spend, 6 decimals; `None` without a whole revenue or spend.
    pub profit: Option<Decimal>,
    pub used: Vec<Used>,
    pub missing: Vec<String>,
}

impl Returns {
    /// Nothing to show in `currency`: no revenue, hence no ROAS or profit and no rate.
    pub fn none(currency: &CurrencyCode) -> Returns {
        Returns {
            currency: *currency,
            revenue: None,
            roas: None,
            profit: None,
            used: Vec::new(),
            missing: Vec::new(),
        }
    }
}

/// Micro-units of revenue per reported currency, as the conversion totals keep them.
pub fn revenue_amounts<'a>(
    revenue: impl IntoIterator<Item = (&'a String, &'a i128)>,
) -> Vec<(String, Decimal)> {
    revenue
        .into_iter()
        .filter_map(|(c, m)| {
            Decimal::try_from_i128_with_scale(*m, 6)
                .ok()
                .map(|d| (c.clone(), d))
        })
        .collect()
}

/// ROAS and profit of `spend` (in `spend_currency`) against `revenue`, in `currency`, at the
/// rates of `day`. No revenue reported at all: `None`s with no missing rate (nothing to show).
pub fn returns(
    conn: &Connection,
    spend: Decimal,
    spend_currency: &CurrencyCode,
    revenue: &[(String, Decimal)],
    currency: &CurrencyCode,
    day: NaiveDate,
) -> Result<Returns, StoreError> {
    if revenue.is_empty() {
        return Ok(Returns::none(currency));
    }
    if let Some(income) = same_currency(spend_currency, revenue, currency) {
        let cost = Summed::whole_in(currency, spend.round_dp(6));
        return Ok(between(&Summed::whole_in(currency, income), &cost));
    }
    let income = sum_in(conn, revenue, currency, day)?;
    let cost = sum_in(conn, &[(spend_currency.to_string(), spend)], currency, day)?;
    Ok(between(&income, &cost))
}

/// ROAS and profit of a stored campaign: its lifetime spend against the revenue its row keeps,
/// in its cabinet's currency (`kind`) at the rates of `day` (today on the service clock).
pub fn of_campaign(
    conn: &Connection,
    row: &CampaignRow,
    kind: CabinetType,
    day: NaiveDate,
) -> Result<Returns, StoreError> {
    let currency = kind.currency_code();
    let revenue = revenue_amounts(&row.conversions.revenue);
    returns(
        conn,
        row.spent.to_decimal(),
        &currency,
        &revenue,
        &currency,
        day,
    )
}

/// The revenue summed as [`sum_in`] sums it, when the spend and every amount are already in
/// `currency` (the usual campaign): no rate to look up. `None` otherwise, or past the range.
fn same_currency(
    spend_currency: &CurrencyCode,
    revenue: &[(String, Decimal)],
    currency: &CurrencyCode,
) -> Option<Decimal> {
    if spend_currency != currency || revenue.iter().any(|(c, _)| c != currency.as_str()) {
        return None;
    }
    revenue.iter().try_fold(Decimal::ZERO, |sum, (_, amount)| {
        sum.checked_add(amount.round_dp(6))
    })
}

/// ROAS and profit of `cost` against `income`, both summed in one currency, with the rates
/// either used and the currencies either lacked; `None`s unless both sums are whole.
pub fn between(income: &Summed, cost: &Summed) -> Returns {
    let mut answer = Returns {
        currency: income.currency,
        revenue: None,
        roas: None,
        profit: None,
        used: income.used.clone(),
        missing: income.missing.clone(),
    };
    for u in &cost.used {
        if !answer.used.contains(u) {
            answer.used.push(u.clone());
        }
    }
    answer.missing.extend(cost.missing.iter().cloned());
    let (Some(income), Some(cost)) = (income.whole(), cost.whole()) else {
        return answer;
    };
    answer.revenue = Some(income);
    answer.profit = income.checked_sub(cost).map(|p| p.round_dp(6));
    answer.roas = (!cost.is_zero())
        .then(|| income.checked_div(cost))
        .flatten()
        .map(|r| r.round_dp(2));
    answer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::rates::{set, Rate};

    fn code(c: &str) -> CurrencyCode {
        CurrencyCode::parse(c).unwrap()
    }

    fn d(t: &str) -> Decimal {
        t.parse().unwrap()
    }

    #[test]
    fn revenue_in_another_currency_is_converted_before_roas_and_profit() {
        let conn = crate::store::test_db();
        let rate = Rate {
            base: code("EUR"),
            quote: code("USD"),
            day: "2026-11-27".parse().unwrap(),
            rate: d("1.25"),
            source: "ecb".into(),
        };
        set(&conn, &rate, "t").unwrap();
        let day: NaiveDate = "2026-11-28".parse().unwrap();
        let revenue = [("USD".to_string(), d("250")), ("EUR".to_string(), d("10"))];
        let r = returns(&conn, d("100"), &code("EUR"), &revenue, &code("EUR"), day).unwrap();
        assert_eq!(r.revenue, Some(d("210")));
        assert_eq!(r.roas, Some(d("2.1")));
        assert_eq!(r.profit, Some(d("110")));
        assert_eq!(r.used.len(), 1);
        assert_eq!(
            r.used[0].day.to_string(),
            "2026-11-27",
            "the Friday's rate, said so"
        );

        let revenue = [("USD".to_string(), d("250"))];
        let r = returns(&conn, d("100"), &code("TON"), &revenue, &code("TON"), day).unwrap();
        assert_eq!((r.roas, r.profit), (None, None), "no rate: never guessed");
        assert_eq!(r.missing, ["USD"]);

        let r = returns(&conn, d("100"), &code("EUR"), &[], &code("EUR"), day).unwrap();
        assert_eq!((r.roas, r.profit, r.missing.len()), (None, None, 0));
        let r = returns(&conn, d("0"), &code("EUR"), &revenue, &code("EUR"), day).unwrap();
        assert_eq!(
            (r.roas, r.profit),
            (None, Some(d("200"))),
            "no spend: no ROAS"
        );
    }

    /// Revenue and spend already in the campaign's currency skip the rates, with the answer
    /// the rates' way gives (amounts past six decimals, no spend, a loss among them).
    #[test]
    fn one_currency_answers_as_the_conversion_would() {
        let conn = crate::store::test_db();
        let day: NaiveDate = "2026-11-28".parse().unwrap();
        let eur = code("EUR");
        for (spend, amounts) in [
            ("100", vec!["250", "10.5"]),
            ("0", vec!["3"]),
            ("7.123456789", vec!["1.0000005", "2.9999994"]),
            ("500", vec!["12.25"]),
        ] {
            let revenue: Vec<(String, Decimal)> =
                amounts.iter().map(|a| ("EUR".to_string(), d(a))).collect();
            assert!(same_currency(&eur, &revenue, &eur).is_some());
            let spend = d(spend);
            let long_way = between(
                &sum_in(&conn, &revenue, &eur, day).unwrap(),
                &sum_in(&conn, &[("EUR".to_string(), spend)], &eur, day).unwrap(),
            );
            let answer = returns(&conn, spend, &eur, &revenue, &eur, day).unwrap();
            assert_eq!(answer, long_way, "{spend} against {amounts:?}");
        }
        let usd = [("USD".to_string(), d("1"))];
        assert_eq!(same_currency(&eur, &usd, &eur), None);
        assert_eq!(same_currency(&code("TON"), &[], &eur), None);
    }
}
