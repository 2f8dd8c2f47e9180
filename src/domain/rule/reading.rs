//! Owns how a rule reads a campaign: each metric's value over a condition's window (counts,
//! money, rates undefined without a denominator, revenue in one currency, the budget and the
//! status), whether a condition holds on it, and whether a rule's conditions hold together,
//! with the readings for the log.

use rust_decimal::Decimal;
use serde_json::{json, Value};

use super::{Condition, Metric, Op, RuleSpec, State, Threshold};
use crate::domain::campaign::Status;
use crate::domain::stats::Totals;

/// Conversions attributed to a campaign over a window: how many, and revenue per currency.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Converted {
    pub count: i64,
    pub revenue: Vec<(String, Decimal)>,
}

/// What a condition reads a campaign's window figures from.
pub trait Figures {
    fn totals(&self, window_hours: u32) -> Totals;
    fn converted(&self, window_hours: u32) -> Converted;
}

/// A metric's value; `None` for a rate whose denominator is zero (no views, clicks or
/// actions), which makes its condition false.
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

impl Condition {
    pub fn read(&self, state: &State, figures: &dyn Figures) -> Reading {
        let rate = |num: Decimal, den: i64, per: Decimal| {
            if den == 0 {
                Reading::Undefined
            } else {
                Reading::Number((num * per / Decimal::from(den)).round_dp(6))
            }
        };
        let t = || figures.totals(self.window_hours);
        match self.metric {
            Metric::Views => Reading::Number(t().views.into()),
            Metric::Clicks => Reading::Number(t().clicks.into()),
            Metric::Actions => Reading::Number(t().actions.into()),
            Metric::Spent => Reading::Number(t().spent.to_decimal()),
            Metric::Cpm => {
                let t = t();
                rate(t.spent.to_decimal(), t.views, Decimal::ONE_THOUSAND)
            }
            Metric::Ctr => {
                let t = t();
                rate(t.clicks.into(), t.views, Decimal::ONE_HUNDRED)
            }
            Metric::Cpc => {
                let t = t();
                rate(t.spent.to_decimal(), t.clicks, Decimal::ONE)
            }
            Metric::Cpa => {
                let t = t();
                rate(t.spent.to_decimal(), t.actions, Decimal::ONE)
            }
            Metric::Conversions => {
                Reading::Number(figures.converted(self.window_hours).count.into())
            }
            Metric::Revenue => {
                let currency = self.currency.as_deref().unwrap_or("USD");
                let revenue = figures
                    .converted(self.window_hours)
                    .revenue
                    .into_iter()
                    .filter(|(c, _)| c == currency)
                    .map(|(_, r)| r)
                    .sum();
                Reading::Number(revenue)
            }
            Metric::Budget => Reading::Number(state.budget.to_decimal()),
            Metric::Status => Reading::Status(state.status),
        }
    }

    pub fn holds(&self, reading: &Reading) -> bool {
        match (reading, &self.value) {
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

impl RuleSpec {
    /// Whether the rule's conditions hold for a campaign, with every condition's reading
    /// (`"cpa (24h)": "3.1"`) for the log.
    pub fn evaluate(&self, state: &State, figures: &dyn Figures) -> (bool, Value) {
        let mut matched = serde_json::Map::new();
        let mut results = Vec::with_capacity(self.conditions.len());
        for c in &self.conditions {
            let reading = c.read(state, figures);
            results.push(c.holds(&reading));
            let label = match (c.metric, c.metric.windowed()) {
                (Metric::Revenue, _) => format!(
                    "revenue {} ({}h)",
                    c.currency.as_deref().unwrap_or("USD"),
                    c.window_hours
                ),
                (m, true) => format!("{} ({}h)", m.as_str(), c.window_hours),
                (m, false) => m.as_str().to_string(),
            };
            matched.insert(label, reading.to_json());
        }
        let hit = if self.match_all {
            results.iter().all(|r| *r)
        } else {
            results.iter().any(|r| *r)
        };
        (hit, Value::Object(matched))
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
        fn totals(&self, _: u32) -> Totals {
            self.0
        }
        fn converted(&self, _: u32) -> Converted {
            self.1.clone()
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
        assert!(
            !cpa.holds(&cpa.read(&s, &idle)),
            "no actions: no CPA, so false"
        );
    }

    #[test]
    fn revenue_counts_only_its_currency() {
        let f = figures(1, 1, 1, "1");
        let mut c = cond(Metric::Revenue, Op::Ge, "12.5");
        assert!(c.holds(&c.read(&state(), &f)), "USD is the default");
        c.currency = Some("EUR".into());
        assert_eq!(c.read(&state(), &f), Reading::Number(Decimal::ONE));
        assert!(!c.holds(&c.read(&state(), &f)));
    }

    #[test]
    fn every_operator_compares_as_written() {
        let f = figures(100, 0, 0, "0");
        let s = state();
        let holds = |op, v| {
            let c = cond(Metric::Views, op, v);
            c.holds(&c.read(&s, &f))
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
            value: Threshold::Status(Status::OnHold),
            window_hours: 1,
            currency: None,
        };
        assert!(status.holds(&status.read(&s, &f)));
        let gt = Condition {
            op: Op::Gt,
            ..status
        };
        assert!(!gt.holds(&gt.read(&s, &f)), "statuses are not ordered");
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
}
