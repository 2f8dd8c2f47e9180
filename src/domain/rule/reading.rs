//! Owns how a rule reads a campaign: each metric's value over a window (counts, money, rates
//! undefined without a denominator, revenue in one currency, ROAS and profit in the cabinet's
//! currency, the budget, its daily limit and the hours it lasts, the status), each window read
//! once per campaign however many conditions read it, whether a condition holds on it (against
//! a number or another reading), and whether a rule's tree holds, with the readings for the log.

use std::cell::RefCell;

use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::{Against, Condition, Group, Metric, Node, Op, RuleSpec, State, Threshold};
use crate::domain::campaign::Status;
use crate::domain::stats::Totals;

/// Conversions attributed to a campaign over a window: how many, and revenue per currency.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Converted {
    pub count: i64,
    pub revenue: Vec<(String, Decimal)>,
}

/// What a condition reads a campaign's figures from: windows of `window_hours` that end
/// `offset_hours` before the hour evaluated.
pub trait Figures {
    /// The window's totals; `None` when no hour of the campaign is stored in it.
    fn totals(&self, window_hours: u32, offset_hours: u32) -> Option<Totals>;
    fn converted(&self, window_hours: u32, offset_hours: u32) -> Converted;
    /// What one unit of `currency` is worth in the cabinet's currency at the kept rate of the
    /// day; `None` without a rate.
    fn rate(&self, currency: &str) -> Option<Decimal>;
    /// The hour of the day (0-23) evaluated, in the cabinet owner's time zone; `None` where
    /// the figures know no clock.
    fn hour_of_day(&self) -> Option<u32> {
        None
    }
}

/// A metric's value; `Undefined` when it has none (a rate whose denominator is zero, ROAS
/// without revenue, money without a rate, an earlier period with no stored hour), which makes
/// its condition false.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    Number(Decimal),
    Status(Status),
    Undefined,
}

impl Reading {
    pub fn to_json(&self) -> Value {
        match self {
            Reading::Number(d) => json!(d.normalize().to_string()),
            Reading::Status(s) => json!(s.as_str()),
            Reading::Undefined => Value::Null,
        }
    }
}

/// A window: its hours and how many hours before the evaluated hour it ends.
type Span = (u32, u32);

/// A campaign's figures with each window read once: a rule's conditions often read the same
/// window (and a comparison the same earlier one) many times.
pub struct Memo<'a> {
    figures: &'a dyn Figures,
    totals: RefCell<Vec<(Span, Option<Totals>)>>,
    converted: RefCell<Vec<(Span, Converted)>>,
}

impl<'a> Memo<'a> {
    pub fn new(figures: &'a dyn Figures) -> Memo<'a> {
        Memo {
            figures,
            totals: RefCell::new(Vec::new()),
            converted: RefCell::new(Vec::new()),
        }
    }

    fn totals(&self, key: Span) -> Option<Totals> {
        if let Some((_, t)) = self.totals.borrow().iter().find(|(k, _)| *k == key) {
            return *t;
        }
        let t = self.figures.totals(key.0, key.1);
        self.totals.borrow_mut().push((key, t));
        t
    }

    fn converted(&self, key: Span) -> Converted {
        if let Some((_, c)) = self.converted.borrow().iter().find(|(k, _)| *k == key) {
            return c.clone();
        }
        let c = self.figures.converted(key.0, key.1);
        self.converted.borrow_mut().push((key, c.clone()));
        c
    }

    /// A money reading in the cabinet's currency as an amount of `currency`, at the kept rate;
    /// no value without a rate.
    fn in_currency(&self, reading: Reading, currency: &str) -> Reading {
        match reading {
            Reading::Number(n) => self
                .figures
                .rate(currency)
                .and_then(|rate| n.checked_div(rate))
                .map_or(Reading::Undefined, |n| Reading::Number(n.round_dp(6))),
            Reading::Status(_) | Reading::Undefined => Reading::Undefined,
        }
    }

    /// Revenue over a window in the cabinet's currency; `None` when a currency has no rate.
    fn revenue_converted(&self, c: &Converted) -> Option<Decimal> {
        c.revenue
            .iter()
            .try_fold(Decimal::ZERO, |sum, (cur, amount)| {
                sum.checked_add(amount.checked_mul(self.figures.rate(cur)?)?)
            })
    }
}

/// One side of a condition: a metric over a window `offset_hours` back.
struct Side<'c> {
    metric: Metric,
    window_hours: u32,
    offset_hours: u32,
    currency: Option<&'c str>,
}

impl Side<'_> {
    fn label(&self) -> String {
        let m = match self.metric {
            Metric::Revenue => format!("revenue {}", self.currency.unwrap_or("USD")),
            m => m.as_str().to_string(),
        };
        match (self.metric.windowed(), self.offset_hours) {
            (false, _) => m,
            (true, 0) => format!("{m} ({}h)", self.window_hours),
            (true, o) => format!("{m} ({}h, {o}h earlier)", self.window_hours),
        }
    }

    fn read(&self, state: &State, memo: &Memo) -> Reading {
        let key = (self.window_hours, self.offset_hours);
        let t = match memo.totals(key) {
            Some(t) => t,
            // An earlier period with nothing stored (before the campaign ran, say) has no
            // value; the current one reads as zeros, as it always did.
            None if self.offset_hours > 0 && self.metric.windowed() => return Reading::Undefined,
            None => Totals::default(),
        };
        let rate = |num: Decimal, den: i64, per: Decimal| {
            if den == 0 {
                Reading::Undefined
            } else {
                Reading::Number((num * per / Decimal::from(den)).round_dp(6))
            }
        };
        let spent = t.spent.to_decimal();
        match self.metric {
            Metric::Views => Reading::Number(t.views.into()),
            Metric::Clicks => Reading::Number(t.clicks.into()),
            Metric::Actions => Reading::Number(t.actions.into()),
            Metric::Spent => Reading::Number(spent),
            Metric::Cpm => rate(spent, t.views, Decimal::ONE_THOUSAND),
            Metric::Ctr => rate(t.clicks.into(), t.views, Decimal::ONE_HUNDRED),
            Metric::Cpc => rate(spent, t.clicks, Decimal::ONE),
            Metric::Cpa => rate(spent, t.actions, Decimal::ONE),
            Metric::Conversions => Reading::Number(memo.converted(key).count.into()),
            Metric::Revenue => {
                let currency = self.currency.unwrap_or("USD");
                let revenue = memo
                    .converted(key)
                    .revenue
                    .into_iter()
                    .filter(|(c, _)| c == currency)
                    .map(|(_, r)| r)
                    .sum();
                Reading::Number(revenue)
            }
            Metric::Budget => Reading::Number(state.budget.to_decimal()),
            Metric::Status => Reading::Status(state.status),
            Metric::DailyBudget => state
                .daily_budget
                .map_or(Reading::Undefined, |d| Reading::Number(d.to_decimal())),
            Metric::BudgetLeftHours => {
                // Spend per hour at the window's pace; no spend, no pace.
                if spent.is_zero() {
                    return Reading::Undefined;
                }
                let per_hour = spent / Decimal::from(self.window_hours);
                state
                    .budget
                    .to_decimal()
                    .checked_div(per_hour)
                    .map_or(Reading::Undefined, |h| Reading::Number(h.round_dp(2)))
            }
            Metric::Roas => {
                let c = memo.converted(key);
                if c.revenue.is_empty() || spent.is_zero() {
                    return Reading::Undefined;
                }
                memo.revenue_converted(&c)
                    .and_then(|r| r.checked_div(spent))
                    .map_or(Reading::Undefined, |r| Reading::Number(r.round_dp(2)))
            }
            Metric::Profit => memo
                .revenue_converted(&memo.converted(key))
                .and_then(|r| r.checked_sub(spent))
                .map_or(Reading::Undefined, |p| Reading::Number(p.round_dp(6))),
            Metric::Hour => memo
                .figures
                .hour_of_day()
                .map_or(Reading::Undefined, |h| Reading::Number(h.into())),
        }
    }
}

impl Condition {
    fn side(&self) -> Side<'_> {
        Side {
            metric: self.metric,
            window_hours: self.window_hours,
            offset_hours: 0,
            currency: self.currency.as_deref(),
        }
    }

    /// The metric's reading over the condition's window.
    pub fn read(&self, state: &State, figures: &dyn Figures) -> Reading {
        self.side().read(state, &Memo::new(figures))
    }

    /// Whether the condition holds, with its readings (`"cpa (24h)": "3.1"`, and for a
    /// comparison the reading compared with, factor applied: `"1.3 × cpa (168h)": "2.6"`).
    fn check(&self, state: &State, memo: &Memo, log: &mut serde_json::Map<String, Value>) -> bool {
        let left = self.side();
        let reading = left.read(state, memo);
        // Money compared with a number of a named currency: the reading converted into it, and
        // named with it (`spent EUR (24h)`), as revenue is.
        let (label, reading) = match (&self.against, self.currency.as_deref()) {
            (Against::Value(_), Some(cur)) if self.metric.money() => {
                let name = self.metric.as_str();
                (
                    left.label().replacen(name, &format!("{name} {cur}"), 1),
                    memo.in_currency(reading, cur),
                )
            }
            _ => (left.label(), reading),
        };
        log.insert(label, reading.to_json());
        match &self.against {
            Against::Value(v) => self.holds(&reading, v),
            Against::Compare(cmp) => {
                let right = Side {
                    metric: cmp.metric,
                    window_hours: cmp.window_hours,
                    offset_hours: cmp.offset_hours,
                    currency: self.currency.as_deref(),
                };
                let scaled = match right.read(state, memo) {
                    Reading::Number(n) => n
                        .checked_mul(cmp.factor)
                        .map_or(Reading::Undefined, |n| Reading::Number(n.round_dp(6))),
                    Reading::Status(_) | Reading::Undefined => Reading::Undefined,
                };
                let label = if cmp.factor == Decimal::ONE {
                    right.label()
                } else {
                    format!("{} × {}", cmp.factor.normalize(), right.label())
                };
                log.insert(label, scaled.to_json());
                match (&reading, scaled) {
                    (Reading::Number(l), Reading::Number(r)) => self.op.holds(l, &r),
                    _ => false,
                }
            }
        }
    }

    pub fn holds(&self, reading: &Reading, value: &Threshold) -> bool {
        match (reading, value) {
            (Reading::Number(n), Threshold::Number(v)) => self.op.holds(n, v),
            (Reading::Status(s), Threshold::Status(v)) => match self.op {
                Op::Eq => s == v,
                Op::Ne => s != v,
                _ => false,
            },
            _ => false,
        }
    }
}

impl Group {
    /// Every node is checked (so the log has every reading), then joined by `all` or `any`.
    fn check(&self, state: &State, memo: &Memo, log: &mut serde_json::Map<String, Value>) -> bool {
        let mut results = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            results.push(match node {
                Node::Condition(c) => c.check(state, memo, log),
                Node::Group(g) => g.check(state, memo, log),
            });
        }
        if self.all {
            results.iter().all(|r| *r)
        } else {
            results.iter().any(|r| *r)
        }
    }
}

impl RuleSpec {
    /// Whether the rule's conditions hold for a campaign, with every condition's reading
    /// (`"cpa (24h)": "3.1"`) for the log; a reading with no value is `null`.
    pub fn evaluate(&self, state: &State, figures: &dyn Figures) -> (bool, Value) {
        let memo = Memo::new(figures);
        let mut log = serde_json::Map::new();
        let hit = self.conditions.check(state, &memo, &mut log);
        (hit, Value::Object(log))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{cond, spec, state};
    use super::super::Action;
    use super::*;
    use crate::domain::money::Money;

    struct Fixed(Totals, Converted);

    impl Figures for Fixed {
        fn totals(&self, _: u32, _: u32) -> Option<Totals> {
            Some(self.0)
        }
        fn converted(&self, _: u32, _: u32) -> Converted {
            self.1.clone()
        }
        fn rate(&self, currency: &str) -> Option<Decimal> {
            match currency {
                "USD" => Some(Decimal::ONE),
                "EUR" => Some(Decimal::TWO),
                _ => None,
            }
        }
    }

    fn figures(views: i64, clicks: i64, actions: i64, spent: &str) -> Fixed {
        Fixed(
            Totals {
                views,
                opens: 0,
                clicks,
                actions,
                spent: Money::parse(spent, 6).unwrap(),
            },
            Converted {
                count: 3,
                revenue: vec![
                    ("USD".into(), "12.5".parse().unwrap()),
                    ("EUR".into(), Decimal::ONE),
                ],
            },
        )
    }

    #[test]
    fn rates_are_read_from_the_window_and_undefined_without_a_denominator() {
        let f = figures(2000, 30, 4, "6");
        let s = state();
        let read = |m| cond(m, Op::Gt, "0").read(&s, &f);
        assert_eq!(read(Metric::Cpm), Reading::Number("3".parse().unwrap()));
        assert_eq!(read(Metric::Ctr), Reading::Number("1.5".parse().unwrap()));
        assert_eq!(read(Metric::Cpc), Reading::Number("0.2".parse().unwrap()));
        assert_eq!(read(Metric::Cpa), Reading::Number("1.5".parse().unwrap()));
        assert_eq!(read(Metric::Conversions), Reading::Number(3.into()));
        assert_eq!(read(Metric::Budget), Reading::Number(10.into()));
        let idle = figures(0, 0, 0, "0");
        let cpa = cond(Metric::Cpa, Op::Lt, "100");
        assert_eq!(cpa.read(&s, &idle), Reading::Undefined);
        let (hit, _) = spec(vec![cpa], true, Action::Pause).evaluate(&s, &idle);
        assert!(!hit, "no actions: no CPA, so false");
    }

    #[test]
    fn revenue_counts_only_its_currency() {
        let f = figures(1, 1, 1, "1");
        let mut c = cond(Metric::Revenue, Op::Ge, "12.5");
        let hit = |c: &Condition| {
            spec(vec![c.clone()], true, Action::Pause)
                .evaluate(&state(), &f)
                .0
        };
        assert!(hit(&c), "USD is the default");
        c.currency = Some("EUR".into());
        assert_eq!(c.read(&state(), &f), Reading::Number(Decimal::ONE));
        assert!(!hit(&c));
    }

    #[test]
    fn every_operator_compares_as_written() {
        let f = figures(100, 0, 0, "0");
        let s = state();
        let holds = |op, v| {
            let c = cond(Metric::Views, op, v);
            spec(vec![c], true, Action::Pause).evaluate(&s, &f).0
        };
        assert!(holds(Op::Gt, "99") && !holds(Op::Gt, "100"));
        assert!(holds(Op::Ge, "100") && !holds(Op::Ge, "101"));
        assert!(holds(Op::Lt, "101") && !holds(Op::Lt, "100"));
        assert!(holds(Op::Le, "100") && !holds(Op::Le, "99"));
        assert!(holds(Op::Eq, "100") && !holds(Op::Eq, "99"));
        assert!(holds(Op::Ne, "99") && !holds(Op::Ne, "100"));
        let status = Condition {
            metric: Metric::Status,
            op: Op::Ne,
            against: Against::Value(Threshold::Status(Status::OnHold)),
            window_hours: 1,
            currency: None,
        };
        let hit = |c: &Condition| {
            spec(vec![c.clone()], true, Action::Pause)
                .evaluate(&s, &f)
                .0
        };
        assert!(hit(&status));
        let gt = Condition {
            op: Op::Gt,
            ..status
        };
        assert!(!hit(&gt), "statuses are not ordered");
    }

    #[test]
    fn all_needs_every_condition_and_any_one() {
        let f = figures(1000, 10, 0, "5");
        let conds = vec![
            cond(Metric::Spent, Op::Gt, "4"),
            cond(Metric::Clicks, Op::Gt, "50"),
        ];
        let (all, matched) = spec(conds.clone(), true, Action::Pause).evaluate(&state(), &f);
        assert!(!all);
        assert_eq!(matched, json!({ "spent (24h)": "5", "clicks (24h)": "10" }));
        let (any, _) = spec(conds, false, Action::Pause).evaluate(&state(), &f);
        assert!(any);
    }

    /// Figures whose windows differ by offset (spend 4 now, 2 a period back, none before),
    /// counting the reads.
    struct Periods(std::cell::Cell<u32>);

    impl Figures for Periods {
        fn totals(&self, window: u32, offset: u32) -> Option<Totals> {
            self.0.set(self.0.get() + 1);
            let spent = match offset {
                0 => "4",
                o if o <= window => "2",
                _ => return None,
            };
            Some(figures(1000, 10, 2, spent).0)
        }
        fn converted(&self, _: u32, offset: u32) -> Converted {
            if offset > 0 {
                return Converted::default();
            }
            Converted {
                count: 2,
                revenue: vec![
                    ("USD".into(), "3".parse().unwrap()),
                    ("EUR".into(), "1".parse().unwrap()),
                ],
            }
        }
        fn rate(&self, currency: &str) -> Option<Decimal> {
            (currency != "XTS").then(|| {
                if currency == "EUR" {
                    Decimal::ONE
                } else {
                    "0.5".parse().unwrap()
                }
            })
        }
    }

    fn compare(metric: Metric, op: Op, to: super::super::CompareTo) -> Condition {
        Condition {
            against: Against::Compare(to),
            ..cond(metric, op, "0")
        }
    }

    fn to(metric: Metric, offset: u32, factor: &str) -> super::super::CompareTo {
        super::super::CompareTo {
            metric,
            window_hours: 24,
            offset_hours: offset,
            factor: factor.parse().unwrap(),
        }
    }

    #[test]
    fn a_comparison_reads_the_earlier_period_times_its_factor_and_each_window_once() {
        let f = Periods(std::cell::Cell::new(0));
        let conds = vec![
            compare(Metric::Spent, Op::Gt, to(Metric::Spent, 24, "1.5")),
            compare(Metric::Cpa, Op::Gt, to(Metric::Cpa, 24, "1.5")),
            compare(Metric::Spent, Op::Ge, to(Metric::DailyBudget, 0, "1")),
            cond(Metric::Views, Op::Gt, "1"),
        ];
        let (hit, matched) = spec(conds, true, Action::Pause).evaluate(&state(), &f);
        assert!(hit, "{matched}");
        assert_eq!(
            matched,
            json!({
                "spent (24h)": "4",
                "1.5 × spent (24h, 24h earlier)": "3",
                "cpa (24h)": "2",
                "1.5 × cpa (24h, 24h earlier)": "1.5",
                "daily_budget": "4",
                "views (24h)": "1000"
            })
        );
        assert_eq!(f.0.get(), 2, "two windows read, whatever the conditions");
        let before = compare(Metric::Spent, Op::Gt, to(Metric::Spent, 240, "1"));
        let (hit, matched) = spec(vec![before], true, Action::Pause).evaluate(&state(), &f);
        assert!(!hit, "no hour stored then: no value, so false");
        assert_eq!(matched["spent (24h, 240h earlier)"], Value::Null);
    }

    #[test]
    fn the_new_metrics_read_the_budget_its_pace_and_revenue_at_the_kept_rates() {
        let f = Periods(std::cell::Cell::new(0));
        let mut s = state();
        let read = |m, s: &State| cond(m, Op::Gt, "0").read(s, &f);
        let n = |v: &str| Reading::Number(v.parse().unwrap());
        assert_eq!(read(Metric::DailyBudget, &s), n("4"));
        assert_eq!(
            read(Metric::BudgetLeftHours, &s),
            n("60"),
            "10 left at 4 spent per 24 h"
        );
        assert_eq!(
            read(Metric::Roas, &s),
            n("0.62"),
            "(3 USD × 0.5 + 1 EUR) / 4, to even as ops::returns rounds"
        );
        assert_eq!(read(Metric::Profit, &s), n("-1.5"));
        s.daily_budget = None;
        assert_eq!(read(Metric::DailyBudget, &s), Reading::Undefined);
        let idle = figures(0, 0, 0, "0");
        assert_eq!(
            cond(Metric::BudgetLeftHours, Op::Gt, "0").read(&s, &idle),
            Reading::Undefined
        );
        assert_eq!(
            cond(Metric::Roas, Op::Gt, "0").read(&s, &idle),
            Reading::Undefined
        );
        let mut unpriced = figures(1, 1, 1, "1");
        unpriced.1.revenue.push(("XTS".into(), Decimal::ONE));
        assert_eq!(
            cond(Metric::Profit, Op::Gt, "0").read(&s, &unpriced),
            Reading::Undefined,
            "no rate, no guess"
        );
    }
}
