//! Owns a rule across cabinets: reading `scope.account_ids` (2 to 50 distinct cabinets, the
//! first its home) and `max_total_per_day`, and the checks of the cabinets as a whole (one
//! owner; amounts only where they share a currency) once the faces found the caller may write
//! to each.

use crate::domain::fields;
use crate::domain::fields::wire::{Amount, Ids};
use crate::domain::money::{CabinetType, Money};
use crate::domain::rule::{Action, Against, RuleSpec, MAX_SCOPE_CABINETS, MIN_SCOPE_CABINETS};
use crate::domain::{ParseError, Why};
use crate::ops::{Actor, OpsError};

/// The cabinets `scope.account_ids` lists (none when it is not sent).
pub(super) fn cabinets(sent: Option<&[i64]>) -> Result<Vec<i64>, ParseError> {
    let Some(ids) = sent else {
        return Ok(Vec::new());
    };
    if ids.len() < MIN_SCOPE_CABINETS {
        return Err(ParseError::new(
            "scope.account_ids",
            format!(
                "account_ids lists {MIN_SCOPE_CABINETS} to {MAX_SCOPE_CABINETS} cabinets; a rule of one cabinet names it in account_id."
            ),
        )
        .because(Why::Required));
    }
    for (i, id) in ids.iter().enumerate() {
        if ids[..i].contains(id) {
            return Err(ParseError::new(
                format!("scope.account_ids[{i}]"),
                format!("Cabinet {id} is listed twice."),
            )
            .because(Why::Other));
        }
    }
    Ok(ids.to_vec())
}

/// The cabinets a rule's body lists in `scope.account_ids` (none when it lists none), read
/// before the rest of the rule, so a face finds the caller's access to each first.
pub fn listed(body: &serde_json::Value) -> Result<Option<Vec<i64>>, ParseError> {
    let Some(sent) = body.get("scope").and_then(|s| s.get("account_ids")) else {
        return Ok(None);
    };
    if sent.is_null() {
        return Ok(None);
    }
    let Ids(ids) = fields::read_at::<Ids<MAX_SCOPE_CABINETS>>(sent, "scope.account_ids")?;
    cabinets(Some(&ids)).map(Some)
}

/// `max_total_per_day`: only on a rule across cabinets; kept from `base` when not sent.
pub(super) fn max_total(
    sent: Option<Amount>,
    cabinets: &[i64],
    kind: CabinetType,
    base: Option<&RuleSpec>,
) -> Result<Option<Money>, ParseError> {
    let param = "max_total_per_day";
    let was_sent = sent.is_some();
    let value = match sent {
        Some(a) => Some(a.positive(param, param, kind.scale())?),
        None => base.and_then(|b| b.max_total_per_day),
    };
    if value.is_some() && cabinets.is_empty() {
        if !was_sent {
            // The rule no longer spans cabinets: its cap across them goes with the list.
            return Ok(None);
        }
        return Err(ParseError::new(
            param,
            "max_total_per_day caps a rule across cabinets (scope.account_ids).",
        )
        .because(Why::NotHere));
    }
    Ok(value)
}

/// Refuses a rule across the cabinets of `actors` (one per listed cabinet, in order, each one
/// the caller may write to) whose cabinets belong to more than one owner, or that sets an
/// amount while the cabinets' currencies differ: its money conditions and the amount of its
/// action would mean different money in different cabinets.
pub fn check(actors: &[Actor], spec: &RuleSpec) -> Result<(), OpsError> {
    let Some(home) = actors.first() else {
        return Ok(());
    };
    let owner = home.cabinet().owner_id;
    let currency = home.cabinet().cabinet_type.currency();
    let mut spans_currencies = false;
    for (i, actor) in actors.iter().enumerate() {
        if actor.cabinet().owner_id != owner {
            return Err(ParseError::new(
                format!("scope.account_ids[{i}]"),
                "A rule covers cabinets of one owner; this cabinet belongs to another.",
            )
            .because(Why::Other)
            .into());
        }
        spans_currencies |= actor.cabinet().cabinet_type.currency() != currency;
    }
    if !spans_currencies {
        return Ok(());
    }
    if spec.action.max_per_day().is_some() || carries_amount(&spec.action) {
        return Err(ParseError::new(
            "action",
            "These cabinets keep different currencies: an action with an amount would move different money in each. Use one currency's cabinets, or an action without an amount.",
        )
        .because(Why::Other)
        .into());
    }
    if spec.max_total_per_day.is_some() {
        return Err(ParseError::new(
            "max_total_per_day",
            "These cabinets keep different currencies: a cap over all of them has no one currency.",
        )
        .because(Why::Other)
        .into());
    }
    let money = spec.conditions.conditions().into_iter().find(|c| {
        matches!(c.against, Against::Value(_)) && c.metric.money() && c.currency.is_none()
    });
    if let Some(c) = money {
        return Err(ParseError::new(
            "conditions",
            format!(
                "These cabinets keep different currencies: {} compared with a number means different money in each. Name the number's currency (the condition's currency: each cabinet's figure is converted at the kept rates), compare it with another metric, or use one currency's cabinets.",
                c.metric.as_str()
            ),
        )
        .because(Why::Other)
        .into());
    }
    Ok(())
}

/// The action sets or moves an amount of money.
fn carries_amount(action: &Action) -> bool {
    match action {
        Action::SetCpm { .. }
        | Action::ChangeCpm { .. }
        | Action::AddBudget { .. }
        | Action::SetDailyBudget { .. } => true,
        Action::Duplicate { cpm, budget, .. } => cpm.is_some() || budget.is_some(),
        Action::Pause | Action::Resume | Action::Notify { .. } | Action::Webhook => false,
    }
}
