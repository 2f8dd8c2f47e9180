//! Owns the figures a rule checked every 5 minutes reads at a mark: a window's delivery is the
//! difference of the ad's lifetime counters at the window's two ends (`counters(t − offset) −
//! counters(t − offset − window)`, both 5-minute marks), an end before the ad's first stored
//! mark counting as nothing delivered yet; conversions and revenue (for ROAS and profit) are
//! read from the stored postbacks by hour, as the hourly run reads them, over the window's
//! hours up to the hour in progress.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use rust_decimal::Decimal;

use super::evaluate::{Series, Source, Window};
use crate::domain::money::CabinetType;
use crate::domain::rule::{Against, Converted, Figures, RuleSpec};
use crate::domain::stats::Totals;
use crate::domain::time;
use crate::store::{marks, StoreError};

const HOUR: i64 = 3600;

/// A cabinet's counters at the marks its fast rules read at one mark, and its postbacks.
pub struct Marks {
    counters: HashMap<i64, Vec<(i64, Totals)>>,
    returns: Series,
}

/// The marks (Unix seconds) the windows of `rules` read when run at `at`: each window's end
/// and start, for a comparison its earlier window's too.
pub fn needed<'r>(rules: impl Iterator<Item = &'r RuleSpec>, at: i64) -> Vec<i64> {
    let mut out = vec![at];
    let mut add = |window: u32, offset: u32| {
        let end = at - i64::from(offset) * HOUR;
        for m in [end, end - i64::from(window) * HOUR] {
            if !out.contains(&m) {
                out.push(m);
            }
        }
    };
    for spec in rules {
        for c in spec.conditions.conditions() {
            if c.metric.windowed() {
                add(c.window_hours, 0);
            }
            if let Against::Compare(cmp) = &c.against {
                if cmp.metric.windowed() {
                    add(cmp.window_hours, cmp.offset_hours);
                }
            }
        }
    }
    out
}

impl Marks {
    /// Reads what `rules` run at the mark `at` need: the counters at the marks their windows
    /// end and start, and (only when a condition reads postbacks) the conversions and rates.
    pub fn load<'r>(
        conn: &Connection,
        account: i64,
        kind: CabinetType,
        rules: impl Iterator<Item = &'r RuleSpec> + Clone,
        at: DateTime<Utc>,
    ) -> Result<Marks, StoreError> {
        let wanted = needed(rules.clone(), at.timestamp());
        Ok(Marks {
            counters: marks::at(conn, account, &wanted)?,
            returns: Series::returns_for(conn, account, kind, rules, at)?,
        })
    }
}

impl Source for Marks {
    fn figures(&self, ad: i64, at: DateTime<Utc>) -> Box<dyn Figures + '_> {
        let hour_in_progress = time::hour_number(at) + i64::from(at.timestamp() % HOUR != 0);
        Box::new(AtMark {
            counters: self.counters.get(&ad).map_or(&[], Vec::as_slice),
            returns: self.returns.of(ad, hour_in_progress),
            at: at.timestamp(),
        })
    }
}

/// One ad's figures at a mark.
struct AtMark<'a> {
    counters: &'a [(i64, Totals)],
    returns: Window<'a>,
    at: i64,
}

impl AtMark<'_> {
    fn counters(&self, mark: i64) -> Option<&Totals> {
        self.counters
            .iter()
            .find(|(m, _)| *m == mark)
            .map(|(_, t)| t)
    }
}

impl Figures for AtMark<'_> {
    /// `None` when the window's end has no mark stored for the ad (it is newer than the
    /// window, or its marks were not read).
    fn totals(&self, window_hours: u32, offset_hours: u32) -> Option<Totals> {
        let end = self.at - i64::from(offset_hours) * HOUR;
        let start = end - i64::from(window_hours) * HOUR;
        let at_end = self.counters(end)?;
        let at_start = self.counters(start).copied().unwrap_or_default();
        Some(at_end.gain_since(&at_start))
    }

    fn converted(&self, window_hours: u32, offset_hours: u32) -> Converted {
        self.returns.converted(window_hours, offset_hours)
    }

    fn rate(&self, currency: &str) -> Option<Decimal> {
        self.returns.rate(currency)
    }

    /// The mark's own hour of the day (not the hour in progress the postbacks are read to).
    fn hour_of_day(&self) -> Option<u32> {
        let at = DateTime::<Utc>::from_timestamp(self.at, 0)?;
        Some(self.returns.hour_at(at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::money::Money;

    fn spent(micros: i64) -> Totals {
        Totals {
            spent: Money::from_micros(micros),
            actions: 1,
            ..Totals::default()
        }
    }

    #[test]
    fn a_window_is_the_difference_of_its_two_marks_and_an_unstored_start_is_nothing_yet() {
        let at = 100 * HOUR;
        let counters = [(at, spent(9_000_000)), (at - 24 * HOUR, spent(4_000_000))];
        let series = Series::empty();
        let fig = AtMark {
            counters: &counters,
            returns: series.of(1, 100),
            at,
        };
        assert_eq!(
            fig.totals(24, 0).unwrap().spent,
            Money::from_micros(5_000_000)
        );
        assert_eq!(fig.totals(24, 0).unwrap().actions, 0);
        assert_eq!(
            fig.totals(1, 0).unwrap().spent,
            Money::from_micros(9_000_000)
        );
        assert_eq!(fig.totals(1, 1), None, "no mark an hour back");
    }

    #[test]
    fn a_mark_reads_its_own_hour_of_the_day_not_the_hour_in_progress() {
        // 06:35 UTC on day 4: the postbacks are read to the hour in progress (07:00).
        let at = 4 * 24 * HOUR + 6 * HOUR + 35 * 60;
        let series = Series::empty();
        let fig = AtMark {
            counters: &[],
            returns: series.of(1, at / HOUR + 1),
            at,
        };
        assert_eq!(fig.hour_of_day(), Some(6));
    }
}
