//! Owns the grammar of a campaign's fields as a request or a form sends them, read the same by
//! every face: a bid and a budget in the cabinet's currency (a budget 0 or at least the
//! cabinet's minimum), the link, the button the cabinet's form has (one of the platform's), a
//! schedule (in one of the platform's time zones), a daily cap, strings that `null` clears.

use serde_json::Value;

use crate::domain::campaign::TargetType;
use crate::domain::capabilities::Capabilities;
use crate::domain::fields::Fields;
use crate::domain::link::PromoteLink;
use crate::domain::money::{CabinetType, Money, MAX_MICROS};
use crate::domain::schedule::Schedule;
use crate::domain::ParseError;
use crate::store::cabinets::Cabinet;

/// A bid: greater than zero, at the currency's scale.
pub fn cpm(f: &mut Fields, kind: CabinetType) -> Result<Option<Money>, ParseError> {
    f.positive_money("cpm", kind.scale())
}

/// A budget: `0` or at least the cabinet's `min_budget`.
pub fn budget(f: &mut Fields, cabinet: &Cabinet) -> Result<Option<Money>, ParseError> {
    let budget = f.money("budget", cabinet.cabinet_type.scale())?;
    if let Some(b) = budget {
        check_budget_floor(b, cabinet).map_err(|m| ParseError::new(f.path("budget"), m))?;
    }
    Ok(budget)
}

/// Refuses an amount left on a campaign between zero and `min_budget`.
pub fn check_budget_floor(budget: Money, cabinet: &Cabinet) -> Result<(), String> {
    let floor = Money::from_units(cabinet.min_budget).unwrap_or(Money::from_micros(MAX_MICROS));
    if budget.micros() != 0 && budget < floor {
        return Err(format!(
            "A campaign's budget is 0 or at least the cabinet's min_budget of {} {}.",
            cabinet.min_budget,
            cabinet.cabinet_type.currency()
        ));
    }
    Ok(())
}

pub fn promote_url(f: &mut Fields) -> Result<Option<String>, ParseError> {
    let Some(url) = f.string("promote_url")? else {
        return Ok(None);
    };
    PromoteLink::parse(&url).map_err(|e| ParseError::new(f.path("promote_url"), e.to_string()))?;
    Ok(Some(url.trim().to_string()))
}

/// `button`: one of the platform's buttons, on a cabinet whose ad form has one; `null` clears
/// it.
pub fn button(
    f: &mut Fields,
    cabinet: &Cabinet,
    caps: &Capabilities,
) -> Result<Option<Option<String>>, ParseError> {
    let Some(value) = f.raw("button") else {
        return Ok(None);
    };
    let path = f.path("button");
    if value.is_null() {
        return Ok(Some(None));
    }
    if !cabinet.ad_button {
        return Err(ParseError::new(
            path,
            "This cabinet's ad form has no button.",
        ));
    }
    match value.as_str().filter(|b| caps.has_button(b)) {
        Some(b) => Ok(Some(Some(b.to_string()))),
        None => Err(ParseError::new(
            path,
            format!("button must be one of {}.", caps.buttons.join(", ")),
        )),
    }
}

/// `schedule`: an object (parsed) or `null` to remove it.
pub fn schedule(
    f: &mut Fields,
    target: Option<TargetType>,
    caps: &Capabilities,
) -> Result<Option<Option<Schedule>>, ParseError> {
    let Some(value) = f.raw("schedule") else {
        return Ok(None);
    };
    if value.is_null() {
        return Ok(Some(None));
    }
    Ok(Some(Some(Schedule::parse(
        value,
        &f.path("schedule"),
        target,
        caps,
    )?)))
}

/// A schedule choice in the form the ad values carry it: the normalised object, or `None`.
pub fn schedule_json(schedule: Option<Schedule>) -> Option<Value> {
    schedule.as_ref().map(Schedule::to_json)
}

/// An optional string that `null` clears.
pub fn clearable_string(f: &mut Fields, name: &str) -> Result<Option<Option<String>>, ParseError> {
    match f.raw(name) {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::String(s)) => Ok(Some(Some(s.clone()))),
        Some(_) => Err(ParseError::new(
            f.path(name),
            format!("{name} must be a string or null."),
        )),
    }
}

/// `daily_budget`: an amount greater than zero, or `null` to remove the cap.
pub fn daily_budget(
    f: &mut Fields,
    kind: CabinetType,
) -> Result<Option<Option<Money>>, ParseError> {
    if matches!(f.raw("daily_budget"), Some(Value::Null)) {
        return Ok(Some(None));
    }
    Ok(f.positive_money("daily_budget", kind.scale())?.map(Some))
}
