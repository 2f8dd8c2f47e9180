//! Owns a cabinet's monthly reconciliation (`adcab admin cabinet reconcile`): the spend, views
//! and clicks adcab stored for each ad in a month against the platform's account report for
//! that month, each difference listed; with `fix`, adcab's hourly and daily rows corrected so
//! the month's sums are the platform's, each correction in the campaign's history.

use std::collections::BTreeMap;

use chrono::Duration;
use serde::Serialize;
use serde_json::{json, Value};

use super::{bad, require_cabinet, write_back, OpsError};
use crate::clock;
use crate::domain::stats::Totals;
use crate::domain::time::Month;
use crate::services::Services;
use crate::store::history::Source;
use crate::store::reconcile::{self, Delta};
use crate::store::{cabinets, stats};

/// What `admin cabinet reconcile` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Reconciled {
    pub month: String,
    pub differences: Vec<Difference>,
    /// adcab's rows were corrected (`--fix`, and there was a difference).
    pub fixed: bool,
}

/// One figure of one ad that adcab and the platform count differently: counts as numbers,
/// spend as a decimal string.
#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    pub ad_id: i64,
    pub field: &'static str,
    pub adcab: Value,
    pub platform: Value,
}

/// The figures compared, each with how it is shown and its part of a correction.
fn compared(ad: i64, ours: &Totals, theirs: &Totals) -> (Vec<Difference>, Delta) {
    let mut found = Vec::new();
    let mut delta = Delta::default();
    if ours.views != theirs.views {
        delta.views = theirs.views - ours.views;
        found.push(("views", json!(ours.views), json!(theirs.views)));
    }
    if ours.clicks != theirs.clicks {
        delta.clicks = theirs.clicks - ours.clicks;
        found.push(("clicks", json!(ours.clicks), json!(theirs.clicks)));
    }
    if ours.spent != theirs.spent {
        delta.spent_micros = theirs.spent.micros() - ours.spent.micros();
        found.push((
            "spent",
            json!(ours.spent.render6()),
            json!(theirs.spent.render6()),
        ));
    }
    let differences = found
        .into_iter()
        .map(|(field, adcab, platform)| Difference {
            ad_id: ad,
            field,
            adcab,
            platform,
        })
        .collect();
    (differences, delta)
}

/// Reconciles cabinet `account`'s `month` with the platform's account report; with `fix`,
/// corrects adcab's rows. A month that has not begun is refused; the current one compares what
/// was synced so far with what the platform counts up to now.
pub fn cabinet_reconcile(
    s: &Services,
    account: i64,
    month: Month,
    fix: bool,
) -> Result<Reconciled, OpsError> {
    let now = s.db.read_blocking(|c| {
        require_cabinet(c, account)?;
        Ok::<_, OpsError>(clock::now(c)?)
    })?;
    if month.start() > now {
        return Err(bad("month", format!("{month} has not begun")));
    }
    let platform = s.platform.month_report(account, month)?;
    let (from, to) = (clock::iso(month.start()), clock::iso(month.end()));
    let stored =
        s.db.read_blocking(|c| reconcile::of_ads(c, account, &from, &to))?;
    let mut theirs_by_ad: BTreeMap<i64, Totals> = BTreeMap::new();
    for (ad, totals) in &platform {
        theirs_by_ad.entry(*ad).or_default().add(totals);
    }
    for ad in stored.keys() {
        theirs_by_ad.entry(*ad).or_default();
    }
    let mut differences = Vec::new();
    let mut corrections = Vec::new();
    for (ad, theirs) in theirs_by_ad {
        let ours = stored.get(&ad).cloned().unwrap_or_default();
        let (found, delta) = compared(ad, &ours, &theirs);
        if !found.is_empty() {
            corrections.push((ad, delta, json!(found)));
        }
        differences.extend(found);
    }
    let fixed = fix && !corrections.is_empty();
    if fixed {
        let last_hour = clock::iso(clock::hour_start(month.end().min(now)) - Duration::hours(1));
        s.db.write_blocking(|tx| {
            for (ad, delta, found) in &corrections {
                let corrected =
                    reconcile::correct(tx, (account, *ad), (&from, &to), &last_hour, *delta)?;
                for hour in corrected.hours {
                    stats::total_cabinet_hour(tx, account, &hour)?;
                }
                for (day, moved) in &corrected.days {
                    stats::shift_cabinet_day(tx, account, day, moved)?;
                }
                let details = json!({ "month": month.to_string(), "differences": found });
                write_back::record_history(
                    tx,
                    account,
                    *ad,
                    Source::Operator.into(),
                    "reconcile",
                    &details,
                )?;
            }
            // The corrected hours may lie in the last day the campaigns' kept pace sums.
            let synced = cabinets::synced_through(tx, account)?.and_then(|t| clock::parse_iso(&t));
            if let Some(end) = synced {
                stats::keep_day_spend(tx, account, end - Duration::hours(1))?;
            }
            Ok::<_, OpsError>(())
        })?;
    }
    Ok(Reconciled {
        month: month.to_string(),
        differences,
        fixed,
    })
}
