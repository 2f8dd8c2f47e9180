//! Owns an automation rule as the service understands it: its scope, conditions over metrics
//! with a look-back window, its action, and what an action would change. How a condition reads
//! a campaign's figures is `reading`; the action and what it would change are `action`; the
//! guards (cooldown, runs a day, money a day) that may hold an action back are `guards`. Pure:
//! the caller brings the figures and the past runs.

mod action;
mod every;
mod guards;
mod reading;
pub mod templates;
mod tree;

use chrono::Duration;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::campaign::Status;
use super::money::Money;

pub use action::{Action, ActionKind, Planned};
pub use every::{Every, FAST_REACH_HOURS, FAST_REFUSAL};
pub use guards::{Guards, Move, Run, Skip};
pub use reading::{Converted, Figures, Reading};
pub use tree::{
    Against, CompareTo, Group, Node, MAX_DEPTH, MAX_OFFSET_HOURS, MAX_REACH_HOURS,
    MAX_TREE_CONDITIONS,
};

/// The longest look-back window, and the span a preview replays.
pub const MAX_WINDOW_HOURS: u32 = 168;
/// Conditions of a flat list (`match` + `conditions: [...]`); a tree holds up to
/// [`MAX_TREE_CONDITIONS`].
pub const MAX_CONDITIONS: usize = 10;
/// Rules per cabinet.
pub const MAX_RULES_PER_CABINET: usize = 100;
/// Campaigns a rule may list in its scope.
pub const MAX_SCOPE_ADS: usize = 1000;
/// Cabinets a rule across cabinets covers, at least and at most.
pub const MIN_SCOPE_CABINETS: usize = 2;
pub const MAX_SCOPE_CABINETS: usize = 50;
/// The span over which runs and money are counted "per day".
pub const DAY: Duration = Duration::hours(24);
/// How far back the guards look: the longest cooldown, and a day of runs and money.
pub const GUARD_SPAN: Duration = Duration::hours(MAX_WINDOW_HOURS as i64);

/// Which campaigns of the cabinet a rule looks at (live ones only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Cabinet,
    Group(i64),
    Ads(Vec<i64>),
}

impl Scope {
    pub fn to_json(&self) -> Value {
        match self {
            Scope::Cabinet => json!({}),
            Scope::Group(g) => json!({ "group_id": g }),
            Scope::Ads(ads) => json!({ "ad_ids": ads }),
        }
    }

    pub fn includes(&self, ad: i64, group: Option<i64>) -> bool {
        match self {
            Scope::Cabinet => true,
            Scope::Group(g) => group == Some(*g),
            Scope::Ads(ads) => ads.contains(&ad),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    Views,
    Clicks,
    Actions,
    Spent,
    Cpm,
    Ctr,
    Cpc,
    Cpa,
    Conversions,
    Revenue,
    Budget,
    Status,
    DailyBudget,
    BudgetLeftHours,
    Roas,
    Profit,
    /// The hour of the day (0-23) evaluated, in the cabinet owner's time zone.
    Hour,
}

impl Metric {
    pub const ALL: [Metric; 17] = [
        Metric::Views,
        Metric::Clicks,
        Metric::Actions,
        Metric::Spent,
        Metric::Cpm,
        Metric::Ctr,
        Metric::Cpc,
        Metric::Cpa,
        Metric::Conversions,
        Metric::Revenue,
        Metric::Budget,
        Metric::Status,
        Metric::DailyBudget,
        Metric::BudgetLeftHours,
        Metric::Roas,
        Metric::Profit,
        Metric::Hour,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Views => "views",
            Metric::Clicks => "clicks",
            Metric::Actions => "actions",
            Metric::Spent => "spent",
            Metric::Cpm => "cpm",
            Metric::Ctr => "ctr",
            Metric::Cpc => "cpc",
            Metric::Cpa => "cpa",
            Metric::Conversions => "conversions",
            Metric::Revenue => "revenue",
            Metric::Budget => "budget",
            Metric::Status => "status",
            Metric::DailyBudget => "daily_budget",
            Metric::BudgetLeftHours => "budget_left_hours",
            Metric::Roas => "roas",
            Metric::Profit => "profit",
            Metric::Hour => "hour",
        }
    }

    pub fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// Read over a look-back window (the others are the campaign's state at the sync).
    pub fn windowed(self) -> bool {
        !matches!(
            self,
            Metric::Budget | Metric::Status | Metric::DailyBudget | Metric::Hour
        )
    }

    /// Counted from postbacks rather than the platform (ROAS and profit in part).
    pub fn from_postbacks(self) -> bool {
        matches!(
            self,
            Metric::Conversions | Metric::Revenue | Metric::Roas | Metric::Profit
        )
    }

    /// Read from revenue converted into the cabinet's currency at the kept rates.
    pub fn converted(self) -> bool {
        matches!(self, Metric::Roas | Metric::Profit)
    }

    /// Money in the cabinet's currency (a condition may name another `currency` to compare
    /// it with a number in, converted at the kept rates).
    pub fn money(self) -> bool {
        matches!(
            self,
            Metric::Spent
                | Metric::Cpm
                | Metric::Cpc
                | Metric::Cpa
                | Metric::Budget
                | Metric::DailyBudget
                | Metric::Profit
        )
    }

    /// Its value may be below zero.
    pub fn signed(self) -> bool {
        matches!(self, Metric::Revenue | Metric::Profit)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = ">=")]
    Ge,
    #[serde(rename = "<")]
    Lt,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = "=")]
    Eq,
    #[serde(rename = "!=")]
    Ne,
}

impl Op {
    pub const ALL: [Op; 6] = [Op::Gt, Op::Ge, Op::Lt, Op::Le, Op::Eq, Op::Ne];

    pub fn as_str(self) -> &'static str {
        match self {
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Eq => "=",
            Op::Ne => "!=",
        }
    }

    pub fn parse(s: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.as_str() == s)
    }

    fn holds<T: PartialOrd>(self, left: &T, right: &T) -> bool {
        match self {
            Op::Gt => left > right,
            Op::Ge => left >= right,
            Op::Lt => left < right,
            Op::Le => left <= right,
            Op::Eq => left == right,
            Op::Ne => left != right,
        }
    }
}

/// What a condition compares with: a number (counters, money in the cabinet currency or the
/// revenue currency, CTR in percent) or, for `status`, a status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Threshold {
    Number(Decimal),
    Status(Status),
}

impl Threshold {
    fn to_json(&self) -> Value {
        match self {
            Threshold::Number(d) => json!(d.normalize().to_string()),
            Threshold::Status(s) => json!(s.as_str()),
        }
    }
}

/// A metric over a window compared with a number or with another reading ([`Against`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "tree::StoredCondition", into = "tree::StoredCondition")]
pub struct Condition {
    pub metric: Metric,
    pub op: Op,
    pub against: Against,
    /// Hours looked back from the end of the synced hour (1-168); 1 for state metrics.
    pub window_hours: u32,
    /// The revenue currency (ISO 4217); only for `revenue`.
    pub currency: Option<String>,
}

impl Condition {
    pub fn to_json(&self) -> Value {
        let mut c = json!({
            "metric": self.metric.as_str(),
            "op": self.op.as_str(),
            "window_hours": self.window_hours,
        });
        match &self.against {
            Against::Value(v) => c["value"] = v.to_json(),
            Against::Compare(cmp) => c["compare_to"] = cmp.to_json(),
        }
        if let Some(cur) = &self.currency {
            c["currency"] = json!(cur);
        }
        c
    }
}

/// A rule as stored: everything but its id and cabinet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSpec {
    pub name: String,
    pub scope: Scope,
    /// The conditions: the flat form is one group of conditions (`flat`).
    pub conditions: Group,
    /// Sent as `match` + a list, and answered so.
    pub flat: bool,
    pub action: Action,
    pub cooldown_hours: u32,
    pub max_runs_per_day: u32,
    pub enabled: bool,
    pub dry_run: bool,
    /// The cabinets a rule across cabinets covers, its home cabinet first; empty: its own only.
    pub cabinets: Vec<i64>,
    /// Across cabinets: the most money the rule moves over all of them in 24 hours.
    pub max_total_per_day: Option<Money>,
    /// Ask first: a change that passes the guards is proposed to a person instead of made.
    pub approval: bool,
    /// How often it is checked: hourly, or every 5 minutes on the 5-minute figures.
    pub every: Every,
}

/// A campaign's state at the sync, as conditions on state and actions read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    pub ad_id: i64,
    pub group_id: Option<i64>,
    pub status: Status,
    pub active: bool,
    pub cpm: Money,
    pub budget: Money,
    /// The daily budget limit, where the platform has one.
    pub daily_budget: Option<Money>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::money::CabinetType;

    #[test]
    fn each_action_kind_is_named_as_its_action_is_stored_and_read_back_by_that_name() {
        let m = Money::parse("1", 2).unwrap();
        let actions = [
            Action::Pause,
            Action::Resume,
            Action::SetCpm { cpm: m },
            Action::ChangeCpm {
                percent: Decimal::TEN,
                min_cpm: m,
                max_cpm: m,
            },
            Action::AddBudget {
                amount: m,
                max_per_day: m,
            },
            Action::Notify { text: "x".into() },
            Action::Duplicate {
                cpm: Some(m),
                budget: None,
                max_per_day: None,
            },
            Action::SetDailyBudget { amount: m },
            Action::Webhook,
        ];
        let kinds: Vec<ActionKind> = actions.iter().map(Action::kind).collect();
        assert_eq!(kinds, ActionKind::ALL);
        for action in &actions {
            let stored = serde_json::to_value(action).unwrap();
            assert_eq!(stored["type"], action.name());
            assert_eq!(ActionKind::parse(action.name()), Some(action.kind()));
            let fields: Vec<&str> = stored
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .filter(|k| *k != "type")
                .collect();
            let mut expected = action.kind().fields().to_vec();
            expected.sort_unstable();
            assert_eq!(fields, expected, "{}", action.name());
        }
        assert_eq!(ActionKind::parse("withdraw"), None);
    }

    pub(super) fn state() -> State {
        State {
            ad_id: 7,
            group_id: None,
            status: Status::Active,
            active: true,
            cpm: Money::parse("2.00", 2).unwrap(),
            budget: Money::parse("10", 2).unwrap(),
            daily_budget: Some(Money::parse("4", 2).unwrap()),
        }
    }

    pub(super) fn cond(metric: Metric, op: Op, value: &str) -> Condition {
        Condition {
            metric,
            op,
            against: Against::Value(Threshold::Number(value.parse().unwrap())),
            window_hours: 24,
            currency: None,
        }
    }

    pub(super) fn spec(conditions: Vec<Condition>, match_all: bool, action: Action) -> RuleSpec {
        RuleSpec {
            name: "r".into(),
            scope: Scope::Cabinet,
            conditions: Group::flat(match_all, conditions),
            flat: true,
            action,
            cooldown_hours: 6,
            max_runs_per_day: 2,
            enabled: true,
            dry_run: false,
            cabinets: Vec::new(),
            max_total_per_day: None,
            approval: false,
            every: Every::Hour,
        }
    }

    #[test]
    fn actions_plan_only_a_change() {
        let kind = CabinetType::Euro;
        let mut s = state();
        assert_eq!(Action::Pause.plan(&s, kind), Some(Planned::Switch(false)));
        assert_eq!(Action::Resume.plan(&s, kind), None, "already on");
        s.active = false;
        assert_eq!(Action::Pause.plan(&s, kind), None, "already off");
        let set = Action::SetCpm { cpm: s.cpm };
        assert_eq!(set.plan(&s, kind), None, "same bid");
        let lower = |percent: &str, min: &str| Action::ChangeCpm {
            percent: percent.parse().unwrap(),
            min_cpm: Money::parse(min, 2).unwrap(),
            max_cpm: Money::parse("3", 2).unwrap(),
        };
        let cpm = |s: &str| Some(Planned::Cpm(Money::parse(s, 2).unwrap()));
        assert_eq!(lower("-15", "1").plan(&s, kind), cpm("1.70"));
        assert_eq!(lower("-80", "1.50").plan(&s, kind), cpm("1.50"), "floor");
        assert_eq!(lower("200", "1").plan(&s, kind), cpm("3.00"), "ceiling");
        s.cpm = Money::parse("3", 2).unwrap();
        assert_eq!(lower("10", "1").plan(&s, kind), None, "at the ceiling");
        let stars = State {
            cpm: Money::parse("7", 0).unwrap(),
            ..state()
        };
        let up = Action::ChangeCpm {
            percent: "10".parse().unwrap(),
            min_cpm: Money::parse("1", 0).unwrap(),
            max_cpm: Money::parse("100", 0).unwrap(),
        };
        assert_eq!(
            up.plan(&stars, CabinetType::Stars),
            Some(Planned::Cpm(Money::parse("8", 0).unwrap())),
            "7.7 STARS rounds to whole stars"
        );
    }
}
