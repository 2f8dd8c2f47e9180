//! Owns what a rule does: its action (`Action`, by kind `ActionKind`, each with the fields it
//! takes), what the action would change on a campaign in a given state (`Planned`), and how
//! both are shown. Pure.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::State;
use crate::domain::money::{CabinetType, Money};

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
    /// Copies the campaign (as the API's copy does), with a new bid and/or budget when given;
    /// the copy's budget comes from the cabinet balance, at most `max_per_day` in 24 hours per
    /// rule when set.
    Duplicate {
        cpm: Option<Money>,
        budget: Option<Money>,
        max_per_day: Option<Money>,
    },
    /// Sets the campaign's daily budget limit.
    SetDailyBudget {
        amount: Money,
    },
    /// One signed `rule_fired` webhook event per run, naming every campaign that matched.
    Webhook,
}

/// The kinds of [`Action`], for every face that lists them or reads one by its name: a new
/// action is a new variant here, and the compiler points at every list and form it joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    Pause,
    Resume,
    SetCpm,
    ChangeCpm,
    AddBudget,
    Notify,
    Duplicate,
    SetDailyBudget,
    Webhook,
}

impl ActionKind {
    /// Every kind, in the order forms and refusals list them.
    pub const ALL: [ActionKind; 9] = [
        ActionKind::Pause,
        ActionKind::Resume,
        ActionKind::SetCpm,
        ActionKind::ChangeCpm,
        ActionKind::AddBudget,
        ActionKind::Notify,
        ActionKind::Duplicate,
        ActionKind::SetDailyBudget,
        ActionKind::Webhook,
    ];

    /// Its `type` on the wire.
    pub fn name(self) -> &'static str {
        match self {
            ActionKind::Pause => "pause",
            ActionKind::Resume => "resume",
            ActionKind::SetCpm => "set_cpm",
            ActionKind::ChangeCpm => "change_cpm",
            ActionKind::AddBudget => "add_budget",
            ActionKind::Notify => "notify",
            ActionKind::Duplicate => "duplicate",
            ActionKind::SetDailyBudget => "set_daily_budget",
            ActionKind::Webhook => "webhook",
        }
    }

    /// The kind named `word`.
    pub fn parse(word: &str) -> Option<ActionKind> {
        ActionKind::ALL.into_iter().find(|k| k.name() == word)
    }

    /// The fields an action of this kind takes besides its `type`.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            ActionKind::Pause | ActionKind::Resume | ActionKind::Webhook => &[],
            ActionKind::SetCpm => &["cpm"],
            ActionKind::ChangeCpm => &["percent", "min_cpm", "max_cpm"],
            ActionKind::AddBudget => &["amount", "max_per_day"],
            ActionKind::Notify => &["text"],
            ActionKind::Duplicate => &["cpm", "budget", "max_per_day"],
            ActionKind::SetDailyBudget => &["amount"],
        }
    }
}

impl Action {
    /// It changes the campaign's bid (which, on some platforms, sends it back to review).
    pub fn edits_bid(&self) -> bool {
        match self.kind() {
            ActionKind::SetCpm | ActionKind::ChangeCpm => true,
            ActionKind::Pause
            | ActionKind::Resume
            | ActionKind::AddBudget
            | ActionKind::Notify
            | ActionKind::Duplicate
            | ActionKind::SetDailyBudget
            | ActionKind::Webhook => false,
        }
    }

    pub fn kind(&self) -> ActionKind {
        match self {
            Action::Pause => ActionKind::Pause,
            Action::Resume => ActionKind::Resume,
            Action::SetCpm { .. } => ActionKind::SetCpm,
            Action::ChangeCpm { .. } => ActionKind::ChangeCpm,
            Action::AddBudget { .. } => ActionKind::AddBudget,
            Action::Notify { .. } => ActionKind::Notify,
            Action::Duplicate { .. } => ActionKind::Duplicate,
            Action::SetDailyBudget { .. } => ActionKind::SetDailyBudget,
            Action::Webhook => ActionKind::Webhook,
        }
    }

    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    pub fn to_json(&self, kind: CabinetType) -> Value {
        let mut a = json!({ "type": self.name() });
        match self {
            Action::Pause | Action::Resume | Action::Webhook => {}
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
            Action::Duplicate {
                cpm,
                budget,
                max_per_day,
            } => {
                let shown = |m: &Option<Money>| m.map(|m| kind.render(m));
                a["cpm"] = json!(shown(cpm));
                a["budget"] = json!(shown(budget));
                a["max_per_day"] = json!(shown(max_per_day));
            }
            Action::SetDailyBudget { amount } => a["amount"] = json!(kind.render(*amount)),
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
            // The copy's budget: the one given, else what is left on the original (the most
            // the copy takes from the balance; the copy keeps 0 where that is below the floor).
            Action::Duplicate { cpm, budget, .. } => Some(Planned::Duplicate {
                cpm: *cpm,
                budget: *budget,
                moves: budget.unwrap_or(state.budget),
            }),
            Action::SetDailyBudget { amount } => {
                (state.daily_budget != Some(*amount)).then_some(Planned::DailyBudget(*amount))
            }
            Action::Webhook => Some(Planned::Webhook),
        }
    }

    /// The most money it may move into one campaign's copies or budget in 24 hours, if capped.
    pub fn max_per_day(&self) -> Option<Money> {
        match self {
            Action::AddBudget { max_per_day, .. } => Some(*max_per_day),
            Action::Duplicate { max_per_day, .. } => *max_per_day,
            Action::Pause
            | Action::Resume
            | Action::SetCpm { .. }
            | Action::ChangeCpm { .. }
            | Action::Notify { .. }
            | Action::SetDailyBudget { .. }
            | Action::Webhook => None,
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
    /// A copy of the campaign with the bid and budget given (else the original's); `moves`
    /// is the budget it takes from the balance.
    Duplicate {
        cpm: Option<Money>,
        budget: Option<Money>,
        moves: Money,
    },
    DailyBudget(Money),
    Webhook,
}

impl Planned {
    /// The money it moves into the campaign.
    pub fn moves(&self) -> Money {
        match self {
            Planned::AddBudget(m) => *m,
            Planned::Duplicate { moves, .. } => *moves,
            Planned::Switch(_)
            | Planned::Cpm(_)
            | Planned::Notify(_)
            | Planned::DailyBudget(_)
            | Planned::Webhook => Money::ZERO,
        }
    }

    /// Its log entry is written by the act itself (with the move of money, or the copy's
    /// task), not after the pass: a move asked of the platform, or a copy queued.
    pub fn logged_by_act(&self, acted: bool, failed: bool) -> bool {
        match self {
            Planned::Duplicate { .. } => acted,
            Planned::Switch(_)
            | Planned::Cpm(_)
            | Planned::AddBudget(_)
            | Planned::Notify(_)
            | Planned::DailyBudget(_)
            | Planned::Webhook => self.moves().micros() > 0 && (acted || failed),
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
            Planned::Duplicate { cpm, budget, moves } => json!({
                "type": "duplicate",
                "cpm": kind.render(cpm.unwrap_or(state.cpm)),
                "budget": kind.render(budget.unwrap_or(*moves)),
            }),
            Planned::DailyBudget(m) => json!({
                "type": "daily_budget",
                "from": state.daily_budget.map(|d| kind.render(d)),
                "to": kind.render(*m),
            }),
            Planned::Webhook => json!({ "type": "webhook" }),
        }
    }
}
