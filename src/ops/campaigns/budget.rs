//! Owns a budget move of one campaign, for every face alike: reading it (`action` and, for
//! `add` and `withdraw`, an `amount` above 0) and making it: the amount left on the campaign
//! stays 0 or at least the cabinet's minimum, a withdrawal takes no more than the campaign
//! has, the platform moves the money (a token makes a repeat harmless), and the campaign, the
//! cabinet's balance and the history entry are stored together. Blocking.

use serde::Deserialize;
use serde_json::{json, Value};

use super::fields as campaign_fields;
use super::{OpsError, Refusal};
use crate::clock;
use crate::domain::fields;
use crate::domain::fields::wire::{Amount, Text};
use crate::domain::money::{CabinetType, Money, MAX_UNITS};
use crate::domain::{words, ParseError, Why};
use crate::ops::write_back;
use crate::ops::Actor;
use crate::platform::BudgetOp;
use crate::services::Services;
use crate::store::cabinets;
use crate::store::campaigns::CampaignRow;

/// A budget move as sent.
#[derive(Deserialize)]
struct BudgetIn {
    action: Text,
    amount: Option<Amount>,
}

/// Reads a budget move for a cabinet of `kind`.
pub fn read(body: &Value, kind: CabinetType) -> Result<BudgetOp, ParseError> {
    let (sent, undeclared): (BudgetIn, _) = fields::read_open(body, "")?;
    let asked = sent
        .amount
        .map(|a| a.money("amount", "amount", kind.scale()))
        .transpose()?;
    undeclared.refuse()?;
    let amount = || {
        asked.filter(|a| a.micros() > 0).ok_or_else(|| {
            ParseError::new("amount", "amount is required and must be greater than 0.")
                .because(Why::NotPositive)
        })
    };
    match sent.action.0.as_str() {
        "add" => Ok(BudgetOp::Add(amount()?)),
        "withdraw" => Ok(BudgetOp::Withdraw(amount()?)),
        "withdraw_all" if asked.is_some() => {
            Err(ParseError::new("amount", "withdraw_all takes no amount.").because(Why::NotHere))
        }
        "withdraw_all" => Ok(BudgetOp::WithdrawAll),
        _ => Err(
            ParseError::new("action", "action must be add, withdraw or withdraw_all.").because(
                Why::NotOneOf {
                    allowed: words(&["add", "withdraw", "withdraw_all"]),
                },
            ),
        ),
    }
}

/// What a budget move did.
#[derive(Debug, Clone, Copy)]
pub struct Moved {
    pub moved: Money,
    /// Less was withdrawn than asked (the campaign spent meanwhile).
    pub partial: bool,
}

/// Moves money between `row` and the actor's cabinet: the amount left on the campaign must
/// stay 0 or at least the cabinet's minimum (`param` `amount`), a withdrawal no more than the
/// campaign has. `token` makes a repeat harmless. The cabinet's balance is stored with the
/// change; a top-up the platform took without moving the budget stores the campaign as it
/// reported it and is `BudgetUnchanged`.
pub fn move_budget(
    s: &Services,
    actor: &Actor,
    row: &CampaignRow,
    op: BudgetOp,
    token: &str,
) -> Result<Moved, OpsError> {
    let (source, cabinet) = (actor.source(), actor.cabinet());
    let kind = cabinet.cabinet_type;
    let invalid =
        |m: String, why: Why| OpsError::Invalid(ParseError::new("amount", m).because(why));
    let floor = Why::BelowFloor {
        min: cabinet.min_budget,
        currency: kind.currency(),
    };
    match op {
        BudgetOp::Add(a) => {
            let after = row.budget.checked_add(a).ok_or_else(|| {
                invalid(
                    format!("The campaign's budget would exceed {MAX_UNITS}."),
                    Why::TooLarge { max: MAX_UNITS },
                )
            })?;
            campaign_fields::check_budget_floor(after, cabinet)
                .map_err(|e| invalid(e.to_string(), floor.clone()))?;
        }
        BudgetOp::Withdraw(a) => {
            let after = row
                .budget
                .checked_sub(a)
                .ok_or(OpsError::Refused(Refusal::InsufficientAdBalance))?;
            campaign_fields::check_budget_floor(after, cabinet).map_err(|e| {
                invalid(
                    format!("{e} Withdraw less, or use withdraw_all."),
                    floor.clone(),
                )
            })?;
        }
        BudgetOp::WithdrawAll => {}
    }
    let (account, ad) = (cabinet.id, row.ad_id);
    let moved = s.platform.move_budget(account, ad, op, token)?;
    let unchanged = matches!(op, BudgetOp::Add(_)) && moved.moved.micros() == 0;
    let partial = matches!(op, BudgetOp::Withdraw(asked) if moved.moved < asked);
    let (action, amount) = match op {
        BudgetOp::Add(a) => ("add", Some(a)),
        BudgetOp::Withdraw(a) => ("withdraw", Some(a)),
        BudgetOp::WithdrawAll => ("withdraw_all", None),
    };
    let details = json!({
        "action": action,
        "amount": amount.map(|a| kind.render(a)),
        "moved": kind.render(moved.moved),
    });
    let params = &s.config.conversions.tracker_params;
    s.db.write_blocking(|tx| {
        let now = clock::iso(clock::now(tx)?);
        cabinets::set_balance(tx, account, moved.balance, &now)?;
        write_back::apply(tx, &moved.ad, source, params)?;
        if !unchanged {
            write_back::record_history(tx, account, ad, actor.author(), "budget", &details)?;
        }
        Ok::<_, OpsError>(())
    })?;
    if unchanged {
        return Err(OpsError::BudgetUnchanged);
    }
    Ok(Moved {
        moved: moved.moved,
        partial,
    })
}
