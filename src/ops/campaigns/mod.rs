//! Owns a change of one campaign, the same for every face that makes one (the API's writes, a
//! bulk task's item, a rule, Auto CPM): the refusals that need no platform call, the platform
//! call itself (a token makes a repeat harmless), and storing what the platform made of it (the
//! copy or its removal, the status change for the webhooks, the history entry with who made it,
//! the cabinet balance after money moved) inside the caller's transaction, so the caller's own
//! records (a task's progress, a rule's ledger) commit with it; and the check of an uploaded
//! media token a create or an edit names (a schedule following its zone's clocks in `zone`).
//! Blocking.

pub mod auto_cpm;
pub mod budget;
pub mod bulk;
pub mod command;
pub mod create;
pub mod edit;
pub mod fields;
pub mod list;
pub mod recreate;
mod targets;
pub mod zone;

use rusqlite::Connection;
use serde_json::Value;

use crate::clock;
use crate::domain::campaign::{Status, TargetType};
use crate::domain::dates::Dates;
use crate::domain::money::Money;
use crate::domain::schedule::{Schedule, Zone};
use crate::domain::task::BulkAction;
use crate::domain::{ParseError, Why};
use crate::platform::{AdEdit, AdSnapshot, BudgetOp, PlatformError};
use crate::store::campaigns::{self, CampaignRow};
use crate::store::{media, StoreError};

pub use super::error::OpsError;
use crate::ops::write_back;
use crate::ops::Actor;
use crate::services::Services;

/// Why a change is refused before the platform is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A withdrawal of more than the campaign has.
    InsufficientAdBalance,
    /// A bid set by hand while Auto CPM manages the campaign's bid.
    AutoCpmLocked,
    /// A schedule in each viewer's time zone on a campaign that targets channels, bots or
    /// search.
    ViewerZoneNeedsUsers,
    /// A recreate of a campaign the platform has not declined.
    NotDeclined,
}

impl Refusal {
    /// The sentence for a person or a task's errors.
    pub fn sentence(self) -> &'static str {
        match self {
            Refusal::InsufficientAdBalance => "the campaign has less budget than the amount",
            Refusal::AutoCpmLocked => {
                "Auto CPM manages this campaign's bid; switch it off to set one"
            }
            Refusal::ViewerZoneNeedsUsers => {
                "timezone viewer applies only to campaigns that target an audience (users)"
            }
            Refusal::NotDeclined => "only a declined campaign can be recreated",
        }
    }
}

/// The refusal `action` meets on the campaign as stored, if any.
pub fn refusal(row: &CampaignRow, action: &BulkAction) -> Option<Refusal> {
    match action {
        BulkAction::WithdrawBudget(money) if row.budget < *money => {
            Some(Refusal::InsufficientAdBalance)
        }
        BulkAction::SetCpm(_) if row.auto_cpm_enabled => Some(Refusal::AutoCpmLocked),
        BulkAction::SetSchedule(Some(schedule))
            if schedule.zone == Zone::Viewer && row.target_type != TargetType::Users =>
        {
            Some(Refusal::ViewerZoneNeedsUsers)
        }
        _ => None,
    }
}

/// What the platform made of a change.
pub enum Change {
    /// The ad as the platform now reports it.
    Snapshot(Box<AdSnapshot>),
    /// The ad is gone: removed outright (it never ran), or kept as `Deleted`.
    Deleted { removed: bool },
}

/// A change the platform made, with the cabinet balance read after it when money moved.
pub struct Made {
    pub change: Change,
    pub balance: Option<Money>,
}

/// Asks the platform for `action` on campaign `ad` of the actor's cabinet; `token` makes a
/// money move or a delete safe to repeat (a repeat reports the first result). After money
/// moved the cabinet's balance is read too (a failed read leaves it as stored).
pub fn ask(
    s: &Services,
    actor: &Actor,
    ad: i64,
    action: &BulkAction,
    token: &str,
) -> Result<Made, PlatformError> {
    let account = actor.cabinet().id;
    let platform = &s.platform;
    let edit = |edit: AdEdit| {
        platform
            .edit_ad(account, ad, &edit)
            .map(|snap| Change::Snapshot(Box::new(snap)))
    };
    let budget = |op: BudgetOp| {
        platform
            .move_budget(account, ad, op, token)
            .map(|m| Change::Snapshot(Box::new(m.ad)))
    };
    let change = match action {
        BulkAction::Pause => platform
            .switch_ad(account, ad, false, Dates::default())
            .map(|(snap, _)| Change::Snapshot(Box::new(snap))),
        BulkAction::Resume => platform
            .switch_ad(
                account,
                ad,
                true,
                dates_to_send(s, account, ad).map_err(PlatformError::store)?,
            )
            .map(|(snap, _)| Change::Snapshot(Box::new(snap))),
        BulkAction::AddBudget(money) => budget(BudgetOp::Add(*money)),
        BulkAction::WithdrawBudget(money) => budget(BudgetOp::Withdraw(*money)),
        BulkAction::WithdrawAllBudget => budget(BudgetOp::WithdrawAll),
        BulkAction::SetCpm(money) => edit(AdEdit {
            cpm: Some(*money),
            ..AdEdit::default()
        }),
        BulkAction::SetSchedule(schedule) => edit(AdEdit {
            schedule: Some(schedule.as_ref().map(Schedule::to_json)),
            ..AdEdit::default()
        }),
        BulkAction::Delete => platform
            .delete_ad(account, ad, token)
            .map(|removed| Change::Deleted { removed }),
    }?;
    let balance = action
        .moves_money()
        .then(|| platform.balance(account).ok())
        .flatten();
    Ok(Made { change, balance })
}

/// The dates adcab keeps for campaign `ad` as a resume sends them to the platform again (its
/// pause cleared them there): [`Dates::to_send`] at the service time.
pub fn dates_to_send(s: &Services, account: i64, ad: i64) -> Result<Dates, StoreError> {
    s.db.read_blocking(|c| {
        let now = clock::now(c)?.timestamp();
        Ok(campaigns::get(c, account, ad)?
            .map(|row| row.dates.to_send(now))
            .unwrap_or_default())
    })
}

/// What a stored change is, for the campaign's history (made by the actor, through its
/// source).
pub struct Entry<'a> {
    /// The history's action (`edit`, `bulk_pause`, `rule`, …).
    pub action: &'a str,
    pub details: &'a Value,
    /// The automation rule that made the change, when one did.
    pub rule: Option<i64>,
}

/// Stores what the platform made of the actor's change to campaign `ad`, in the caller's
/// transaction: the copy as the platform reports it (recording a status change), or its
/// removal or `Deleted` mark with the status change; the history entry; the balance.
pub fn store(
    tx: &Connection,
    s: &Services,
    actor: &Actor,
    ad: i64,
    made: &Made,
    entry: &Entry,
) -> Result<(), StoreError> {
    let (account, source) = (actor.cabinet().id, actor.source());
    match &made.change {
        Change::Snapshot(snap) => {
            write_back::apply(tx, snap, source, &s.config.conversions.tracker_params)?;
        }
        Change::Deleted { removed } => {
            let now = clock::iso(clock::now(tx)?);
            if let Some(before) = campaigns::get(tx, account, ad)? {
                write_back::record_change(tx, &before, Status::Deleted, source, &now)?;
            }
            if *removed {
                campaigns::remove(tx, account, ad)?;
            } else {
                campaigns::mark_deleted(tx, account, ad, &now)?;
            }
        }
    }
    let by = actor.author().with_rule(entry.rule);
    write_back::record_history(tx, account, ad, by, entry.action, entry.details)?;
    write_back::store_balance(tx, account, made.balance)
}

/// An uploaded media token named at `param`, checked to belong to `account`: the token and its
/// media type.
pub fn media_of(
    conn: &Connection,
    token: String,
    param: String,
    account: i64,
) -> Result<(String, String), OpsError> {
    match media::get(conn, &token)? {
        Some(m) if m.account_id == account => Ok((token, m.media_type)),
        Some(_) => Err(
            ParseError::new(param, "This media token belongs to another cabinet.")
                .because(Why::Unknown)
                .into(),
        ),
        None => Err(ParseError::new(param, "Unknown media token.")
            .because(Why::Unknown)
            .into()),
    }
}
