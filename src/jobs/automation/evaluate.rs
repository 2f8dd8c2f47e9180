//! Owns one pass of one rule over a cabinet's campaigns, shared by the live run and the
//! preview: the hour series its windows read (earlier windows of comparisons included, read in
//! the same one query), the kept rates ROAS and profit convert revenue with, the conditions,
//! the action's plan, the guards, and the decision for each campaign in scope.

use std::collections::HashMap;

use chrono::{DateTime, Duration, Timelike, Utc};
use rusqlite::Connection;
use rust_decimal::Decimal;
use serde_json::Value;

use crate::domain::money::{CabinetType, Money};
use crate::domain::rule::{
    Against, Condition, Converted, Figures, Guards, Metric, Planned, RuleSpec, Run, Skip, State,
};
use crate::domain::stats::Totals;
use crate::domain::time;
use crate::ops::returns;
use crate::store::rules::{self, ConvertedHour, Hour, RuleRow};
use crate::store::StoreError;

/// The cabinet's hourly figures over a span, per campaign.
pub struct Series {
    hours: HashMap<i64, Vec<(Hour, Totals)>>,
    converted: HashMap<i64, Vec<ConvertedHour>>,
    /// Per revenue currency, one unit's worth in the cabinet's currency (`None`: no rate).
    rates: Vec<(String, Option<Decimal>)>,
    /// The cabinet owner's zone, read only when a condition reads the hour of the day.
    zone: Option<chrono_tz::Tz>,
}

impl Series {
    /// Reads what `rules` evaluated at hour ends from `first` to `last` need: the hours of
    /// the furthest any condition reaches back (its window, or a comparison's window and
    /// offset) before `first` up to `last`, conversions only when a condition reads postbacks,
    /// and the kept rate of `last`'s day of each revenue currency into the cabinet's (`kind`)
    /// only when a condition reads ROAS or profit, as `ops::returns` converts them.
    pub fn for_rules<'r>(
        conn: &Connection,
        account: i64,
        kind: CabinetType,
        rules: impl Iterator<Item = &'r RuleSpec> + Clone,
        first: DateTime<Utc>,
        last: DateTime<Utc>,
    ) -> Result<Series, StoreError> {
        Series::read(conn, account, kind, rules, first, last, true)
    }

    /// [`Series::for_rules`] without the hours of delivery: the conversions and rates only,
    /// for the fast checks, which read delivery from the 5-minute marks.
    pub fn returns_for<'r>(
        conn: &Connection,
        account: i64,
        kind: CabinetType,
        rules: impl Iterator<Item = &'r RuleSpec> + Clone,
        at: DateTime<Utc>,
    ) -> Result<Series, StoreError> {
        Series::read(conn, account, kind, rules, at, at, false)
    }

    fn read<'r>(
        conn: &Connection,
        account: i64,
        kind: CabinetType,
        rules: impl Iterator<Item = &'r RuleSpec> + Clone,
        first: DateTime<Utc>,
        last: DateTime<Utc>,
        delivery: bool,
    ) -> Result<Series, StoreError> {
        let conditions: Vec<&Condition> = rules.flat_map(|r| r.conditions.conditions()).collect();
        let metrics = || {
            conditions.iter().flat_map(|c| match &c.against {
                Against::Value(_) => [Some(c.metric), None],
                Against::Compare(cmp) => [Some(c.metric), Some(cmp.metric)],
            })
        };
        let widest = conditions
            .iter()
            .map(|c| match &c.against {
                Against::Value(_) => c.window_hours,
                Against::Compare(cmp) => c.window_hours.max(cmp.reach()),
            })
            .max()
            .unwrap_or(1);
        let conversions = metrics().flatten().any(Metric::from_postbacks);
        let from = time::iso(first - Duration::hours(i64::from(widest)));
        let to = time::iso(last);
        let converted = if conversions {
            rules::converted_hours(conn, account, &from, &to)?
        } else {
            HashMap::new()
        };
        // Revenue's currencies for ROAS and profit, and the currencies money is compared in.
        let revenue = metrics().flatten().any(Metric::converted);
        let named = conditions
            .iter()
            .filter_map(|c| match (&c.against, &c.currency) {
                (Against::Value(_), Some(cur)) if c.metric.money() => Some(cur),
                _ => None,
            });
        let wanted = converted
            .values()
            .flatten()
            .filter_map(|c| c.currency.as_ref())
            .filter(|_| revenue)
            .chain(named);
        let into = kind.currency_code();
        let mut rates: Vec<(String, Option<Decimal>)> = Vec::new();
        for cur in wanted {
            if rates.iter().any(|(c, _)| c == cur) {
                continue;
            }
            let one = [(cur.clone(), Decimal::ONE)];
            let summed = returns::sum_in(conn, &one, &into, last.date_naive())?;
            let rate = match summed.used.first() {
                Some(used) => Some(used.rate),
                None => summed.whole(),
            };
            rates.push((cur.clone(), rate));
        }
        let zone = if metrics().flatten().any(|m| m == Metric::Hour) {
            rules::owner_zone(conn, account)?
        } else {
            None
        };
        Ok(Series {
            hours: if delivery {
                rules::hours(conn, account, &from, &to)?
            } else {
                HashMap::new()
            },
            converted,
            rates,
            zone,
        })
    }

    /// No figures at all.
    #[cfg(test)]
    pub(super) fn empty() -> Series {
        Series {
            hours: HashMap::new(),
            converted: HashMap::new(),
            rates: Vec::new(),
            zone: None,
        }
    }

    /// A campaign's figures over windows that end where the hour `end` begins.
    pub fn of(&self, ad: i64, end: Hour) -> Window<'_> {
        Window {
            hours: self.hours.get(&ad).map_or(&[], Vec::as_slice),
            converted: self.converted.get(&ad).map_or(&[], Vec::as_slice),
            rates: &self.rates,
            zone: self.zone,
            end,
        }
    }
}

/// Where a pass reads each campaign's figures at a time: the hour series (the hourly run,
/// the preview) or the 5-minute marks (the fast checks).
pub trait Source {
    fn figures(&self, ad: i64, at: DateTime<Utc>) -> Box<dyn Figures + '_>;
}

impl Source for Series {
    fn figures(&self, ad: i64, at: DateTime<Utc>) -> Box<dyn Figures + '_> {
        Box::new(self.of(ad, time::hour_number(at)))
    }
}

pub struct Window<'a> {
    hours: &'a [(Hour, Totals)],
    converted: &'a [ConvertedHour],
    rates: &'a [(String, Option<Decimal>)],
    zone: Option<chrono_tz::Tz>,
    end: Hour,
}

impl Window<'_> {
    /// The hour of the day at `at` in the cabinet owner's zone (UTC without one).
    pub fn hour_at(&self, at: DateTime<Utc>) -> u32 {
        match self.zone {
            Some(zone) => at.with_timezone(&zone).hour(),
            None => at.hour(),
        }
    }

    fn within(&self, hour: Hour, window_hours: u32, offset_hours: u32) -> bool {
        let end = self.end - i64::from(offset_hours);
        hour < end && hour >= end - i64::from(window_hours)
    }
}

impl Figures for Window<'_> {
    fn totals(&self, window_hours: u32, offset_hours: u32) -> Option<Totals> {
        let mut sum = None;
        for (hour, t) in self.hours {
            if self.within(*hour, window_hours, offset_hours) {
                sum.get_or_insert_with(Totals::default).add(t);
            }
        }
        sum
    }

    fn rate(&self, currency: &str) -> Option<Decimal> {
        self.rates.iter().find(|(c, _)| c == currency)?.1
    }

    fn hour_of_day(&self) -> Option<u32> {
        let at = DateTime::<Utc>::from_timestamp(self.end.checked_mul(3600)?, 0)?;
        Some(self.hour_at(at))
    }

    fn converted(&self, window_hours: u32, offset_hours: u32) -> Converted {
        let mut out = Converted::default();
        let mut revenue: Vec<(String, i128)> = Vec::new();
        for c in self
            .converted
            .iter()
            .filter(|c| self.within(c.hour, window_hours, offset_hours))
        {
            out.count = out.count.saturating_add(c.count);
            if let Some(cur) = &c.currency {
                match revenue.iter_mut().find(|(r, _)| r == cur) {
                    Some((_, sum)) => *sum = sum.saturating_add(c.amount_micros),
                    None => revenue.push((cur.clone(), c.amount_micros)),
                }
            }
        }
        out.revenue = revenue
            .into_iter()
            .filter_map(|(cur, micros)| {
                Decimal::try_from_i128_with_scale(micros, 6)
                    .ok()
                    .map(|d| (cur, d))
            })
            .collect();
        out
    }
}

/// What became of a rule on one campaign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Acted,
    DryRun,
    Skipped(Skip),
    Failed(String),
    /// Proposed to a person (the rule asks first); nothing was done.
    Proposed,
}

impl Outcome {
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Acted => "acted",
            Outcome::DryRun => "dry_run",
            Outcome::Skipped(_) => "skipped",
            Outcome::Failed(_) => "failed",
            Outcome::Proposed => "proposed",
        }
    }

    pub fn reason(&self) -> Option<String> {
        match self {
            Outcome::Skipped(skip) => Some(skip.reason().to_string()),
            Outcome::Failed(why) => Some(why.clone()),
            Outcome::Acted | Outcome::DryRun | Outcome::Proposed => None,
        }
    }
}

/// One decision of a pass: the campaign, the readings that matched, the change and what
/// became of it.
#[derive(Debug, Clone)]
pub struct Decision {
    pub ad_id: i64,
    pub matched: Value,
    pub planned: Planned,
    pub action: Value,
    pub outcome: Outcome,
}

impl Decision {
    /// The money it moved (or would have, in a dry run).
    pub fn moved(&self) -> Money {
        match self.outcome {
            Outcome::Acted | Outcome::DryRun => self.planned.moves(),
            Outcome::Skipped(_) | Outcome::Failed(_) | Outcome::Proposed => Money::ZERO,
        }
    }

    /// Whether it is a move of money that was asked of the platform: those are logged before
    /// the platform is asked, with the move, and their log entry kept up to date by the act.
    pub fn logged_by_act(&self) -> bool {
        let acted = self.outcome == Outcome::Acted;
        let failed = matches!(self.outcome, Outcome::Failed(_));
        self.planned.logged_by_act(acted, failed)
    }
}

/// Runs `rule` at `at` (the end of a synced hour, or a 5-minute mark for the fast checks) over
/// `states`, reading each campaign's figures from `series`: each live campaign in scope whose
/// conditions hold and whose action would change something is checked against the guards,
/// then acted on through `act` (given the readings that matched), unless the rule is a dry
/// run, or proposed when it asks first. An action done changes the campaign's state in `states`, so later rules of the same
/// pass see it. A campaign the rule already ran on at `at` (before a crash cut that run short)
/// is left out: each hour's (or mark's) evaluation is made once. An act that fails is logged
/// with its error's sentence.
pub fn pass<E: std::fmt::Display>(
    rule: &RuleRow,
    kind: CabinetType,
    states: &mut [State],
    series: &dyn Source,
    at: DateTime<Utc>,
    guards: &mut Guards,
    act: &mut dyn FnMut(&State, &Planned, &Value) -> Result<(), E>,
) -> Vec<Decision> {
    let spec = &rule.spec;
    let mut decisions = Vec::new();
    for state in states.iter_mut() {
        if !spec.scope.includes(state.ad_id, state.group_id) || guards.ran(rule.id, state.ad_id, at)
        {
            continue;
        }
        let (hit, matched) = spec.evaluate(state, &*series.figures(state.ad_id, at));
        if !hit {
            continue;
        }
        let Some(planned) = spec.action.plan(state, kind) else {
            continue;
        };
        let action = planned.to_json(state, kind);
        let outcome = match guards.check(rule.id, spec, state.ad_id, at, &planned) {
            Err(skip) => Outcome::Skipped(skip),
            Ok(()) if spec.dry_run => Outcome::DryRun,
            // A notice changes nothing: it is sent, never asked about.
            Ok(()) if spec.approval && !matches!(planned, Planned::Notify(_)) => Outcome::Proposed,
            Ok(()) => match act(state, &planned, &matched) {
                Ok(()) => {
                    apply(state, &planned);
                    Outcome::Acted
                }
                Err(why) => Outcome::Failed(why.to_string()),
            },
        };
        let decision = Decision {
            ad_id: state.ad_id,
            matched,
            planned,
            action,
            outcome,
        };
        if matches!(decision.outcome, Outcome::Acted | Outcome::DryRun) {
            let run = Run {
                rule_id: rule.id,
                ad_id: state.ad_id,
                at,
            };
            guards.record(run, decision.moved(), decision.outcome == Outcome::DryRun);
        }
        decisions.push(decision);
    }
    decisions
}

/// A change done, as the campaign's state shows it until the next sync.
fn apply(state: &mut State, planned: &Planned) {
    match planned {
        Planned::Switch(on) => state.active = *on,
        Planned::Cpm(cpm) => state.cpm = *cpm,
        Planned::AddBudget(m) => {
            state.budget = state.budget.checked_add(*m).unwrap_or(state.budget);
        }
        Planned::DailyBudget(m) => state.daily_budget = Some(*m),
        Planned::Notify(_) | Planned::Duplicate { .. } | Planned::Webhook => {}
    }
}
