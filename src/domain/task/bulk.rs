//! Owns the bulk actions over campaigns: each action's kind (its name on the wire and the extra
//! field it takes) and the action with what it carries (money or a schedule).

use super::{Money, Schedule, TaskKind};

/// One bulk action over campaigns, with what it carries.
#[derive(Debug, Clone, PartialEq)]
pub enum BulkAction {
    Pause,
    Resume,
    AddBudget(Money),
    WithdrawBudget(Money),
    WithdrawAllBudget,
    SetCpm(Money),
    /// `None` removes the schedule.
    SetSchedule(Option<Schedule>),
    Delete,
}

/// The extra field an action takes, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extra {
    None,
    /// `amount`: money.
    Amount,
    /// `cpm`: money.
    Cpm,
    /// `schedule`: an object, or null to remove it.
    Schedule,
}

impl Extra {
    /// The field's name, in requests and in stored payloads.
    pub fn field(self) -> Option<&'static str> {
        match self {
            Extra::None => None,
            Extra::Amount => Some("amount"),
            Extra::Cpm => Some("cpm"),
            Extra::Schedule => Some("schedule"),
        }
    }
}

/// The value of an action's extra field, once read.
#[derive(Debug, Clone, PartialEq)]
pub enum ExtraValue {
    None,
    Money(Money),
    Schedule(Option<Schedule>),
}

/// A bulk action's kind, without what it carries: its name on the wire and the extra field it
/// takes. Every list of actions (the refusal's, the panel's form) is [`BulkKind::ALL`], and
/// every place that tells them apart is a match, so a new action is a compiler error wherever
/// it must join.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkKind {
    Pause,
    Resume,
    AddBudget,
    WithdrawBudget,
    WithdrawAllBudget,
    SetCpm,
    SetSchedule,
    Delete,
    /// Declined campaigns made again without changes, each declined one then deleted; queued
    /// as a recreate task ([`Payload::Recreate`]), not as a [`BulkAction`].
    Recreate,
}

impl BulkKind {
    /// Every kind, in the order refusals and forms list them.
    pub const ALL: [BulkKind; 9] = [
        BulkKind::Pause,
        BulkKind::Resume,
        BulkKind::AddBudget,
        BulkKind::WithdrawBudget,
        BulkKind::WithdrawAllBudget,
        BulkKind::SetCpm,
        BulkKind::SetSchedule,
        BulkKind::Delete,
        BulkKind::Recreate,
    ];

    /// Its `action` on the wire and in stored payloads.
    pub fn name(self) -> &'static str {
        match self {
            BulkKind::Pause => "pause",
            BulkKind::Resume => "resume",
            BulkKind::AddBudget => "add_budget",
            BulkKind::WithdrawBudget => "withdraw_budget",
            BulkKind::WithdrawAllBudget => "withdraw_all_budget",
            BulkKind::SetCpm => "set_cpm",
            BulkKind::SetSchedule => "set_schedule",
            BulkKind::Delete => "delete",
            BulkKind::Recreate => "recreate",
        }
    }

    /// The kind named `word`.
    pub fn parse(word: &str) -> Option<BulkKind> {
        BulkKind::ALL.into_iter().find(|k| k.name() == word)
    }

    /// The extra field an action of this kind takes.
    pub fn extra(self) -> Extra {
        match self {
            BulkKind::Pause
            | BulkKind::Resume
            | BulkKind::WithdrawAllBudget
            | BulkKind::Delete
            | BulkKind::Recreate => Extra::None,
            BulkKind::AddBudget | BulkKind::WithdrawBudget => Extra::Amount,
            BulkKind::SetCpm => Extra::Cpm,
            BulkKind::SetSchedule => Extra::Schedule,
        }
    }
}

impl BulkAction {
    /// The action of `kind` with the value of its extra field; `None` when the value is not
    /// the one the kind takes, or the kind is not a change of each campaign (`recreate`).
    pub fn from_parts(kind: BulkKind, value: ExtraValue) -> Option<BulkAction> {
        Some(match (kind, value) {
            (BulkKind::Pause, ExtraValue::None) => BulkAction::Pause,
            (BulkKind::Resume, ExtraValue::None) => BulkAction::Resume,
            (BulkKind::AddBudget, ExtraValue::Money(m)) => BulkAction::AddBudget(m),
            (BulkKind::WithdrawBudget, ExtraValue::Money(m)) => BulkAction::WithdrawBudget(m),
            (BulkKind::WithdrawAllBudget, ExtraValue::None) => BulkAction::WithdrawAllBudget,
            (BulkKind::SetCpm, ExtraValue::Money(m)) => BulkAction::SetCpm(m),
            (BulkKind::SetSchedule, ExtraValue::Schedule(s)) => BulkAction::SetSchedule(s),
            (BulkKind::Delete, ExtraValue::None) => BulkAction::Delete,
            _ => return None,
        })
    }

    /// Its kind.
    pub fn bulk_kind(&self) -> BulkKind {
        match self {
            BulkAction::Pause => BulkKind::Pause,
            BulkAction::Resume => BulkKind::Resume,
            BulkAction::AddBudget(_) => BulkKind::AddBudget,
            BulkAction::WithdrawBudget(_) => BulkKind::WithdrawBudget,
            BulkAction::WithdrawAllBudget => BulkKind::WithdrawAllBudget,
            BulkAction::SetCpm(_) => BulkKind::SetCpm,
            BulkAction::SetSchedule(_) => BulkKind::SetSchedule,
            BulkAction::Delete => BulkKind::Delete,
        }
    }

    pub fn name(&self) -> &'static str {
        self.bulk_kind().name()
    }

    pub fn kind(&self) -> TaskKind {
        match self {
            BulkAction::Pause | BulkAction::Resume => TaskKind::Status,
            BulkAction::AddBudget(_)
            | BulkAction::WithdrawBudget(_)
            | BulkAction::WithdrawAllBudget => TaskKind::Budget,
            BulkAction::SetCpm(_) => TaskKind::Cpm,
            BulkAction::SetSchedule(_) => TaskKind::Schedule,
            BulkAction::Delete => TaskKind::Delete,
        }
    }

    /// It moves money between campaigns and the cabinet (so the balance is read after).
    pub fn moves_money(&self) -> bool {
        matches!(
            self,
            BulkAction::AddBudget(_)
                | BulkAction::WithdrawBudget(_)
                | BulkAction::WithdrawAllBudget
                | BulkAction::Delete
        )
    }
}
