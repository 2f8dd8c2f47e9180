//! Owns the client report, built once for every face: for a cabinet (or a group of its
//! campaigns) and a span of whole days in a time zone (UTC unless given), the totals and their change against the period of
//! the same length before, a daily series, a line per campaign, conversions by event, revenue
//! converted into the cabinet's currency at the kept rate of the span's last day (a currency
//! without a rate stays native, never guessed), and the agency's fee as its own line. Read
//! from the stored hours and the days retention rolled them into: the span and the period
//! before it in three queries whatever their length (`read`). Reading one takes a [`Reader`]: someone who reaches the
//! cabinet, a live share link (`links`), or the cabinet's report schedule.

pub mod agency;
mod figures;
pub mod links;
pub mod pdf;
mod read;
mod span;

use std::collections::BTreeMap;

use chrono::{Days, NaiveDate};
use rusqlite::Connection;
use rust_decimal::Decimal;

pub use crate::domain::zone::midnight;
pub use figures::{
    Agency, Amount, CampaignLine, Change, Day, EventLine, Fee, Figures, GroupRef, RateUsed, Report,
    Revenue,
};
pub use span::{Span, DEFAULT_DAYS, MAX_DAYS};

use super::{bad, OpsError};
use crate::domain::agency::CurrencyCode;
use crate::store::cabinets::{self as cabinet_rows, Cabinet, Reachable};
use crate::store::{groups, rates, reports as rows};

/// Someone allowed to read a cabinet's report: a person or key that reaches it (any access
/// level), a live share link of it, or its report schedule.
#[derive(Debug, Clone)]
pub struct Reader {
    cabinet: Cabinet,
}

impl Reader {
    /// The reader of `account` among the cabinets `reach` holds; `None` when it is not there.
    pub fn of(reach: &[Reachable], account: i64) -> Option<Reader> {
        reach
            .iter()
            .find(|r| r.cabinet.id == account)
            .map(|r| Reader {
                cabinet: r.cabinet.clone(),
            })
    }

    /// The reader of a cabinet's scheduled report: the cabinet itself, for its owner; `None`
    /// for a cabinet that is not kept.
    pub fn scheduled(conn: &Connection, account: i64) -> Result<Option<Reader>, OpsError> {
        Ok(cabinet_rows::get(conn, account)?.map(|cabinet| Reader { cabinet }))
    }

    pub fn cabinet(&self) -> &Cabinet {
        &self.cabinet
    }
}

/// The report of the reader's cabinet over `span` (its days in its zone), narrowed to the
/// campaigns of `group` when one is named (it must be the cabinet's). Blocking: one read.
pub fn build(
    conn: &Connection,
    reader: &Reader,
    span: Span,
    group: Option<i64>,
) -> Result<Report, OpsError> {
    let cabinet = &reader.cabinet;
    let account = cabinet.id;
    let group = match group {
        None => None,
        Some(id) => match groups::get(conn, id)? {
            Some(g) if g.account_id == account => Some(GroupRef {
                id: g.id,
                name: g.name,
            }),
            Some(_) | None => {
                return Err(bad("group_id", format!("no group {id} in this cabinet")))
            }
        },
    };
    let campaigns: Vec<(i64, String)> = rows::campaigns(conn, account)?
        .into_iter()
        .filter(|(_, _, g)| group.as_ref().is_none_or(|want| *g == Some(want.id)))
        .map(|(ad, title, _)| (ad, title))
        .collect();
    let ads: Vec<i64> = campaigns.iter().map(|(ad, _)| *ad).collect();
    let previous = span.previous();

    let (now, before) = read::span(conn, account, &ads, span, group.is_none())?;

    let currency = cabinet.cabinet_type.currency_code();
    let (now_rates, used, unconverted) = rates_at(conn, &now.total.revenue, &currency, span.to())?;
    let (before_rates, _, _) = rates_at(conn, &before.revenue, &currency, previous.to())?;

    let totals = now.total.figures(&now_rates);
    let previous_figures = before.figures(&before_rates);
    let mut daily = Vec::with_capacity(span.days() as usize);
    let mut day = span.from();
    while day <= span.to() {
        let figures = now
            .days
            .get(&day)
            .map(|s| s.figures(&now_rates))
            .unwrap_or_default();
        daily.push(Day { day, figures });
        day = day + Days::new(1);
    }
    let titles: BTreeMap<i64, String> = campaigns.into_iter().collect();
    let mut lines: Vec<CampaignLine> = now
        .campaigns
        .iter()
        .map(|(ad, sum)| CampaignLine {
            ad_id: *ad,
            title: titles.get(ad).cloned().unwrap_or_default(),
            figures: sum.figures(&now_rates),
        })
        .collect();
    lines.sort_by(|a, b| {
        b.figures
            .spent
            .cmp(&a.figures.spent)
            .then(a.ad_id.cmp(&b.ad_id))
    });
    let events = now
        .events
        .into_iter()
        .map(|(event_type, (count, revenue))| EventLine {
            event_type,
            count,
            revenue: amounts(&revenue),
        })
        .collect();
    let scale = cabinet.cabinet_type.scale();
    let fee = cabinet_rows::terms(conn, account)?
        .and_then(|t| t.fee)
        .map(|fee| Fee::on(totals.spent, fee, scale));
    let profile = rows::profile(conn, cabinet.owner_id)?;
    Ok(Report {
        account_id: account,
        cabinet_name: cabinet.name.clone(),
        currency: cabinet.cabinet_type.currency(),
        scale,
        group,
        agency: Agency {
            owner_id: cabinet.owner_id,
            name: profile.name,
            has_logo: profile.logo_type.is_some(),
        },
        from: span.from(),
        to: span.to(),
        time_zone: span.zone().name(),
        previous_from: previous.from(),
        previous_to: previous.to(),
        change: Change::between(&totals, &previous_figures),
        totals,
        previous: previous_figures,
        daily,
        campaigns: lines,
        events,
        revenue: Revenue {
            native: amounts(&now.total.revenue),
            rates: used,
            unconverted,
        },
        fee,
    })
}

/// The rate of each revenue currency into the cabinet's, the rates as used, and the currencies
/// without one.
type Rates = (BTreeMap<String, Decimal>, Vec<RateUsed>, Vec<String>);

/// The [`Rates`] of the currencies of `revenue` into the cabinet's on `day`.
fn rates_at(
    conn: &Connection,
    revenue: &BTreeMap<String, i128>,
    into: &CurrencyCode,
    day: NaiveDate,
) -> Result<Rates, OpsError> {
    let mut found = BTreeMap::new();
    let mut used = Vec::new();
    let mut missing = Vec::new();
    for currency in revenue.keys() {
        let converted = match CurrencyCode::parse(currency) {
            Some(code) => rates::convert(conn, Decimal::ONE, &code, into, day)?,
            None => None,
        };
        match converted {
            // Revenue already in the cabinet's currency needs no rate beside it.
            Some(c) if currency == into.as_str() => {
                found.insert(currency.clone(), c.rate);
            }
            Some(c) => {
                found.insert(currency.clone(), c.rate);
                used.push(RateUsed {
                    currency: currency.clone(),
                    rate: c.rate,
                    day: c.day,
                });
            }
            None => missing.push(currency.clone()),
        }
    }
    Ok((found, used, missing))
}

fn amounts(revenue: &BTreeMap<String, i128>) -> Vec<Amount> {
    revenue
        .iter()
        .map(|(currency, micros)| Amount {
            currency: currency.clone(),
            amount: Decimal::from_i128_with_scale(*micros, 6),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn a_report_sums_the_stored_days_of_its_campaigns_and_adds_the_fee() {
        let conn = crate::store::test_db();
        conn.execute_batch(
            "INSERT INTO campaigns (account_id, ad_id, title, text, status, active, promote_url,
                link_kind, target_type, targeting, cpm_micros, views_per_user, created_at,
                synced_at, status_changed_at)
             VALUES (7, 1, 'One', 't', 'active', 1, 'https://t.me/a', 'channel', 'channels',
                '{}', 1, 1, 0, 't', 't');
             UPDATE cabinets SET fee_percent = '10' WHERE id = 7;
             INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros) VALUES (7, 1, '2026-11-27T10:00:00Z', 1000, 0, 10, 2, 5004000);
             INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros) VALUES (7, 1, '2026-11-27T11:00:00Z', 1000, 0, 10, 2, 5000000);
             INSERT INTO hourly_entries (account_id, ad_id, hour, views, opens, clicks, actions, spent_micros) VALUES (8, 2, '2026-11-27T11:00:00Z', 9, 0, 9, 9, 9000000);
             INSERT INTO daily_stats (account_id, ad_id, day, views, opens, clicks, actions, spent_micros) VALUES (7, 1, '2026-11-26', 500, 0, 5, 1, 1000000);
             INSERT INTO cabinet_hours (account_id, hour, views, clicks, actions, spent_micros)
             SELECT account_id, hour, SUM(views), SUM(clicks), SUM(actions), SUM(spent_micros)
             FROM hourly_stats GROUP BY account_id, hour;
             INSERT INTO cabinet_hours (account_id, hour, views, clicks, actions, spent_micros)
                 VALUES (7, '2026-11-26T15:00:00Z', 500, 5, 1, 1000000);",
        )
        .unwrap();
        let cabinet = cabinet_rows::get(&conn, 7).unwrap().unwrap();
        let reader = Reader { cabinet };
        let span = Span::new(d("2026-11-27"), d("2026-11-27")).unwrap();
        let report = build(&conn, &reader, span, None).unwrap();
        assert_eq!(report.totals.views, 2000, "campaign 2 is not the cabinet's");
        assert_eq!(report.totals.spent, Decimal::new(10_004_000, 6));
        assert_eq!(report.previous.views, 500, "the day before, rolled up");
        assert_eq!(report.change.views, Some(Decimal::new(300, 0)));
        let fee = report.fee.clone().unwrap();
        assert_eq!(fee.platform_spend, Decimal::new(1000, 2));
        assert_eq!(fee.fee, Decimal::new(100, 2));
        assert_eq!(fee.client_spend, Decimal::new(1100, 2));
        assert_eq!(report.campaigns.len(), 1);
        assert_eq!(report.daily.len(), 1);

        // As another face (a webhook's figures, a PDF) reads it.
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["totals"]["spent"], "10.004000");
        assert_eq!(json["daily"][0]["day"], "2026-11-27");
        assert_eq!(
            json["daily"][0]["views"], 2000,
            "a day's figures beside its date"
        );
        assert_eq!(json["campaigns"][0]["title"], "One");
        assert_eq!(json["fee"]["client_spend"], "11.00");
        assert_eq!(json["currency"], "EUR");
    }
}
