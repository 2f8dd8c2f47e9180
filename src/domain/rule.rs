//! Owns an automation rule as the service understands it: its scope, conditions over metrics
//! with a look-back window, its action and guards; how a condition reads a campaign's figures;
//! what an action would change; and the guards (cooldown, runs a day, money a day) that may
//! hold it back. Pure: the caller brings the figures and the past runs.

use chrono::{DateTime, Duration, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::campaign::Status;
use super::money::{CabinetType, Money, MAX_MICROS};
use super::stats::Totals;

/// The longest look-back window, and the span a preview replays.
pub const MAX_WINDOW_HOURS: u32 = 168;
/// Conditions per rule.
pub const MAX_CONDITIONS: usize = 10;
/// Rules per cabinet.
pub const MAX_RULES_PER_CABINET: usize = 100;
/// Campaigns a rule may list in its scope.
pub const MAX_SCOPE_ADS: usize = 1000;
/// The span over which runs and money are counted "per day".
pub const DAY: Duration = Duration::hours(24);

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
}

impl Metric {
    pub const ALL: [Metric; 12] = [
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
        }
    }

    pub fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// Read over a look-back window (the others are the campaign's state at the sync).
    pub fn windowed(self) -> bool {
        !matches!(self, Metric::Budget | Metric::Status)
    }

    /// Counted from postbacks rather than the platform.
    pub fn from_postbacks(self) -> bool {
        matches!(self, Metric::Conversions | Metric::Revenue)
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    pub metric: Metric,
    pub op: Op,
    pub value: Threshold,
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
            "value": self.value.to_json(),
            "window_hours": self.window_hours,
        });
        if let Some(cur) = &self.currency {
            c["currency"] = json!(cur);
        }
        c
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Action {
    Pause,
    Resume,
    SetCpm {
        cpm: Money,
    },
    /// Moves the bid by `percent` (negative lowers it), kept within `[min_cpm, max_cpm]`.
    ChangeCpm {
        percent: Decimal,
        min_cpm: Money,
        max_cpm: Money,
    },
    /// Adds `amount` from the cabinet balance, at most `max_per_day` in 24 hours per rule.
    AddBudget {
        amount: Money,
        max_per_day: Money,
    },
    Notify {
        text: String,
    },
}

impl Action {
    pub fn name(&self) -> &'static str {
        match self {
            Action::Pause => "pause",
            Action::Resume => "resume",
            Action::SetCpm { .. } => "set_cpm",
            Action::ChangeCpm { .. } => "change_cpm",
            Action::AddBudget { .. } => "add_budget",
            Action::Notify { .. } => "notify",
        }
    }

    pub fn to_json(&self, kind: CabinetType) -> Value {
        let mut a = json!({ "type": self.name() });
        match self {
            Action::Pause | Action::Resume => {}
            Action::SetCpm { cpm } => a["cpm"] = json!(kind.render(*cpm)),
            Action::ChangeCpm {
                percent,
                min_cpm,
                max_cpm,
            } => {
                a["percent"] = json!(percent.normalize().to_string());
                a["min_cpm"] = json!(kind.render(*min_cpm));
                a["max_cpm"] = json!(kind.render(*max_cpm));
            }
            Action::AddBudget {
                amount,
                max_per_day,
            } => {
                a["amount"] = json!(kind.render(*amount));
                a["max_per_day"] = json!(kind.render(*max_per_day));
            }
            Action::Notify { text } => a["text"] = json!(text),
        }
        a
    }

    /// What the action would change on a campaign in `state`; `None` when it would change
    /// nothing (pausing a paused campaign, a bid already at its bound).
    pub fn plan(&self, state: &State, kind: CabinetType) -> Option<Planned> {
        match self {
            Action::Pause => state.active.then_some(Planned::Switch(false)),
            Action::Resume => (!state.active).then_some(Planned::Switch(true)),
            Action::SetCpm { cpm } => (*cpm != state.cpm).then_some(Planned::Cpm(*cpm)),
            Action::ChangeCpm {
                percent,
                min_cpm,
                max_cpm,
            } => {
                let factor = Decimal::ONE_HUNDRED.checked_add(*percent)? / Decimal::ONE_HUNDRED;
                let moved = state.cpm.to_decimal().checked_mul(factor)?;
                let rounded = moved.round_dp_with_strategy(
                    kind.scale(),
                    rust_decimal::RoundingStrategy::MidpointNearestEven,
                );
                let cpm = Money::from_decimal(rounded)?.clamp(*min_cpm, *max_cpm);
                (cpm != state.cpm && cpm.micros() > 0).then_some(Planned::Cpm(cpm))
            }
            Action::AddBudget { amount, .. } => state
                .budget
                .checked_add(*amount)
                .map(|_| Planned::AddBudget(*amount)),
            Action::Notify { text } => Some(Planned::Notify(text.clone())),
        }
    }
}

/// A change an action decided on for one campaign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Planned {
    Switch(bool),
    Cpm(Money),
    AddBudget(Money),
    Notify(String),
}

impl Planned {
    /// The money it moves into the campaign.
    pub fn moves(&self) -> Money {
        match self {
            Planned::AddBudget(m) => *m,
            Planned::Switch(_) | Planned::Cpm(_) | Planned::Notify(_) => Money::ZERO,
        }
    }

    /// As the log and history show it.
    pub fn to_json(&self, state: &State, kind: CabinetType) -> Value {
        match self {
            Planned::Switch(on) => json!({ "type": if *on { "resume" } else { "pause" } }),
            Planned::Cpm(cpm) => json!({
                "type": "cpm", "from": kind.render(state.cpm), "to": kind.render(*cpm)
            }),
            Planned::AddBudget(m) => json!({ "type": "add_budget", "amount": kind.render(*m) }),
            Planned::Notify(text) => json!({ "type": "notify", "text": text }),
        }
    }
}

/// A rule as stored: everything but its id and cabinet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSpec {
    pub name: String,
    pub scope: Scope,
    pub match_all: bool,
    pub conditions: Vec<Condition>,
    pub action: Action,
    pub cooldown_hours: u32,
    pub max_runs_per_day: u32,
    pub enabled: bool,
    pub dry_run: bool,
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
}

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

/// One earlier run of a rule on a campaign (acted, or would have in a dry run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub rule_id: i64,
    pub ad_id: i64,
    pub at: DateTime<Utc>,
}

/// Money a rule moved (or set out to move) into a campaign, or would have in a dry run. The
/// rule may since have been deleted: its moves still count against the cabinet's cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    pub rule_id: i64,
    pub at: DateTime<Utc>,
    pub moved: Money,
    /// A dry run's would-be money: it counts for its own rule's guards only.
    pub dry: bool,
}

/// Why a guard held an action back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    Cooldown,
    MaxRunsPerDay,
    RuleMoneyCap,
    CabinetMoneyCap,
}

impl Skip {
    pub fn reason(self) -> &'static str {
        match self {
            Skip::Cooldown => "cooldown",
            Skip::MaxRunsPerDay => "max_runs_per_day",
            Skip::RuleMoneyCap => "max_per_day",
            Skip::CabinetMoneyCap => "cabinet_daily_cap",
        }
    }
}

/// The runs of a cabinet's rules and the money they moved in the last day (at least) before an
/// evaluation, kept up to date as the evaluation runs, so its guards see its own earlier
/// actions.
#[derive(Debug, Clone, Default)]
pub struct Guards {
    runs: Vec<Run>,
    moves: Vec<Move>,
    /// The cabinet's cap on money moved by automation in a day; `None`: none beyond the rules'.
    cabinet_cap: Option<Money>,
}

impl Guards {
    pub fn new(runs: Vec<Run>, moves: Vec<Move>, cabinet_cap: Option<Money>) -> Guards {
        Guards {
            runs,
            moves,
            cabinet_cap,
        }
    }

    /// Whether rule `id` already ran on campaign `ad` at `at`: that hour's evaluation of the
    /// campaign was made (by a run a crash cut short) and is not made again.
    pub fn ran(&self, id: i64, ad: i64, at: DateTime<Utc>) -> bool {
        self.runs
            .iter()
            .any(|r| r.rule_id == id && r.ad_id == ad && r.at == at)
    }

    /// Whether rule `id` (as `spec`) may run `planned` on campaign `ad` at `at`.
    pub fn check(
        &self,
        id: i64,
        spec: &RuleSpec,
        ad: i64,
        at: DateTime<Utc>,
        planned: &Planned,
    ) -> Result<(), Skip> {
        let day_ago = at - DAY;
        let cooldown = Duration::hours(i64::from(spec.cooldown_hours));
        let mine = || {
            self.runs
                .iter()
                .filter(move |r| r.rule_id == id && r.ad_id == ad)
        };
        if spec.cooldown_hours > 0 && mine().any(|r| r.at > at - cooldown) {
            return Err(Skip::Cooldown);
        }
        let today = mine().filter(|r| r.at > day_ago).count();
        if today >= spec.max_runs_per_day as usize {
            return Err(Skip::MaxRunsPerDay);
        }
        let moving = planned.moves();
        if moving.micros() == 0 {
            return Ok(());
        }
        // The rule's own moves, or the cabinet's real ones (and this rule's own, which a dry
        // run counts as it would have been).
        let moved = |rule: Option<i64>| {
            self.moves
                .iter()
                .filter(|r| r.at > day_ago)
                .filter(|r| match rule {
                    Some(only) => r.rule_id == only,
                    None => !r.dry || r.rule_id == id,
                })
                .fold(moving.micros(), |sum, r| {
                    sum.saturating_add(r.moved.micros())
                })
                .min(MAX_MICROS + 1)
        };
        if let Action::AddBudget { max_per_day, .. } = spec.action {
            if moved(Some(id)) > max_per_day.micros() {
                return Err(Skip::RuleMoneyCap);
            }
        }
        if let Some(cap) = self.cabinet_cap {
            if moved(None) > cap.micros() {
                return Err(Skip::CabinetMoneyCap);
            }
        }
        Ok(())
    }

    /// Records a run made now, and the money it moved (or would have, `dry`).
    pub fn record(&mut self, run: Run, moved: Money, dry: bool) {
        if moved.micros() > 0 {
            self.moves.push(Move {
                rule_id: run.rule_id,
                at: run.at,
                moved,
                dry,
            });
        }
        self.runs.push(run);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(Totals, Converted);

    impl Figures for Fixed {
        fn totals(&self, _: u32) -> Totals {
            self.0
        }
        fn converted(&self, _: u32) -> Converted {
            self.1.clone()
        }
    }

    fn state() -> State {
        State {
            ad_id: 7,
            group_id: None,
            status: Status::Active,
            active: true,
            cpm: Money::parse("2.00", 2).unwrap(),
            budget: Money::parse("10", 2).unwrap(),
        }
    }

    fn cond(metric: Metric, op: Op, value: &str) -> Condition {
        Condition {
            metric,
            op,
            value: Threshold::Number(value.parse().unwrap()),
            window_hours: 24,
            currency: None,
        }
    }

    fn spec(conditions: Vec<Condition>, match_all: bool, action: Action) -> RuleSpec {
        RuleSpec {
            name: "r".into(),
            scope: Scope::Cabinet,
            match_all,
            conditions,
            action,
            cooldown_hours: 6,
            max_runs_per_day: 2,
            enabled: true,
            dry_run: false,
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

    #[test]
    fn guards_hold_cooldown_runs_and_money_per_day() {
        let at = |h: i64| DateTime::<Utc>::UNIX_EPOCH + Duration::hours(1000 + h);
        let m = |s: &str| Money::parse(s, 2).unwrap();
        let add = Action::AddBudget {
            amount: m("5"),
            max_per_day: m("10"),
        };
        let rule = spec(vec![], true, add);
        let planned = Planned::AddBudget(m("5"));
        let mut g = Guards::new(Vec::new(), Vec::new(), Some(m("12")));
        assert_eq!(g.check(1, &rule, 7, at(0), &planned), Ok(()));
        g.record(
            Run {
                rule_id: 1,
                ad_id: 7,
                at: at(0),
            },
            m("5"),
            false,
        );
        assert_eq!(g.check(1, &rule, 7, at(5), &planned), Err(Skip::Cooldown));
        assert_eq!(
            g.check(1, &rule, 8, at(5), &planned),
            Ok(()),
            "per campaign"
        );
        g.record(
            Run {
                rule_id: 1,
                ad_id: 8,
                at: at(5),
            },
            m("5"),
            false,
        );
        assert_eq!(
            g.check(1, &rule, 9, at(6), &planned),
            Err(Skip::RuleMoneyCap),
            "10 moved by the rule today"
        );
        assert_eq!(
            g.check(2, &rule, 9, at(6), &planned),
            Err(Skip::CabinetMoneyCap),
            "another rule: 15 would pass the cabinet's 12"
        );
        assert_eq!(
            g.check(1, &rule, 9, at(25), &planned),
            Ok(()),
            "a day later"
        );
        g.record(
            Run {
                rule_id: 1,
                ad_id: 7,
                at: at(7),
            },
            m("0"),
            false,
        );
        assert_eq!(
            g.check(1, &rule, 7, at(14), &Planned::Switch(false)),
            Err(Skip::MaxRunsPerDay),
            "two runs on ad 7 in the last day"
        );
        let mut dry = Guards::new(Vec::new(), Vec::new(), Some(m("6")));
        dry.record(
            Run {
                rule_id: 5,
                ad_id: 1,
                at: at(0),
            },
            m("3"),
            true,
        );
        assert_eq!(
            dry.check(1, &rule, 9, at(1), &planned),
            Ok(()),
            "a dry run's would-be money leaves the cabinet's cap to real rules"
        );
        assert_eq!(
            dry.check(5, &rule, 9, at(1), &planned),
            Err(Skip::CabinetMoneyCap),
            "but counts for its own rule"
        );
        assert!(dry.ran(5, 1, at(0)) && !dry.ran(5, 1, at(1)) && !dry.ran(4, 1, at(0)));
        let deleted = Guards::new(
            Vec::new(),
            vec![Move {
                rule_id: 99,
                at: at(0),
                moved: m("10"),
                dry: false,
            }],
            Some(m("12")),
        );
        assert_eq!(
            deleted.check(1, &rule, 9, at(3), &planned),
            Err(Skip::CabinetMoneyCap),
            "a deleted rule's move still counts against the cabinet"
        );
    }
}
