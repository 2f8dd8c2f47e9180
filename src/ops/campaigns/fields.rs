//! Owns the grammar of a campaign's fields, read the same by every face: the wire types of a
//! link and a target type, and what the cabinet decides once the body has its shape: a bid
//! and a budget in the cabinet's currency (a budget 0 or at least the cabinet's minimum), the
//! button the cabinet's form has (one of the platform's), a schedule (in one of the platform's
//! time zones; each viewer's time only for users ads), a daily
//! cap, a placement the target type allows, a date read to the minute. `at` is where the campaign sits in the request (`campaigns[2]`, or empty at the top).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer};
use serde_json::Value;

use crate::domain::campaign::TargetType;
use crate::domain::capabilities::Capabilities;
use crate::domain::dates;
use crate::domain::fields::path;
use crate::domain::fields::wire::{Amount, Choice, Patch, Raw, Text};
use crate::domain::link::PromoteLink;
use crate::domain::money::{CabinetType, Money, MAX_MICROS};
use crate::domain::schedule::Schedule;
use crate::domain::{ParseError, Why};
use crate::store::cabinets::Cabinet;

/// A promote link ([`PromoteLink`]), kept trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link(pub String);

impl<'de> Deserialize<'de> for Link {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Link, D::Error> {
        let Text(url) = Text::deserialize(d)?;
        PromoteLink::parse(&url).map_err(de::Error::custom)?;
        Ok(Link(url.trim().to_string()))
    }
}

impl Choice for TargetType {
    fn parse(word: &str) -> Option<TargetType> {
        TargetType::parse(word)
    }

    fn refusal() -> String {
        "must be channels, bots, search or users.".into()
    }
}

/// A bid: greater than zero, at the currency's scale.
pub fn cpm(sent: &Amount, at: &str, kind: CabinetType) -> Result<Money, ParseError> {
    sent.positive(&path(at, "cpm"), "cpm", kind.scale())
}

/// A budget: `0` or at least the cabinet's `min_budget`.
pub fn budget(sent: &Amount, at: &str, cabinet: &Cabinet) -> Result<Money, ParseError> {
    let param = path(at, "budget");
    let budget = sent.money(&param, "budget", cabinet.cabinet_type.scale())?;
    check_budget_floor(budget, cabinet).map_err(|e| {
        ParseError::new(param, e.to_string()).because(Why::BelowFloor {
            min: cabinet.min_budget,
            currency: cabinet.cabinet_type.currency(),
        })
    })?;
    Ok(budget)
}

/// An amount left on a campaign between zero and its cabinet's `min_budget`; `Display` is the
/// sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BelowFloor {
    min_budget: i64,
    kind: CabinetType,
}

impl fmt::Display for BelowFloor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "A campaign's budget is 0 or at least the cabinet's min_budget of {} {}.",
            self.min_budget,
            self.kind.currency()
        )
    }
}

/// Refuses an amount left on a campaign between zero and `min_budget`.
pub fn check_budget_floor(budget: Money, cabinet: &Cabinet) -> Result<(), BelowFloor> {
    let floor = Money::from_units(cabinet.min_budget).unwrap_or(Money::from_micros(MAX_MICROS));
    if budget.micros() != 0 && budget < floor {
        return Err(BelowFloor {
            min_budget: cabinet.min_budget,
            kind: cabinet.cabinet_type,
        });
    }
    Ok(())
}

/// `button`: one of the platform's buttons, on a cabinet whose ad form has one; `null` clears
/// it.
pub fn button(
    sent: Patch<Raw>,
    at: &str,
    cabinet: &Cabinet,
    caps: &Capabilities,
) -> Result<Option<Option<String>>, ParseError> {
    let value = match sent {
        Patch::Keep => return Ok(None),
        Patch::Clear => return Ok(Some(None)),
        Patch::Set(Raw(value)) => value,
    };
    let param = path(at, "button");
    if !cabinet.ad_button {
        return Err(
            ParseError::new(param, "This cabinet's ad form has no button.").because(Why::NotHere),
        );
    }
    match value.as_str().filter(|b| caps.has_button(b)) {
        Some(b) => Ok(Some(Some(b.to_string()))),
        None => Err(ParseError::new(
            param,
            format!("button must be one of {}.", caps.buttons.join(", ")),
        )
        .because(Why::NotOneOf {
            allowed: caps.buttons.iter().map(|b| (*b).to_string()).collect(),
        })),
    }
}

/// `schedule`: an object (parsed, with each viewer's time refused for a campaign that
/// targets others than users) or `null` to remove it.
pub fn schedule(
    sent: Patch<Raw>,
    at: &str,
    target: Option<TargetType>,
    caps: &Capabilities,
) -> Result<Option<Option<Schedule>>, ParseError> {
    match sent {
        Patch::Keep => Ok(None),
        Patch::Clear => Ok(Some(None)),
        Patch::Set(Raw(value)) => {
            Schedule::parse(&value, &path(at, "schedule"), target, caps).map(|s| Some(Some(s)))
        }
    }
}

/// A schedule choice in the form the ad values carry it: the normalised object, or `None`.
pub fn schedule_json(schedule: Option<Schedule>) -> Option<Value> {
    schedule.as_ref().map(Schedule::to_json)
}

/// The zone a schedule choice was given in by name, which adcab keeps beside it.
pub fn schedule_zone(schedule: Option<&Schedule>) -> Option<String> {
    schedule.and_then(Schedule::zone_name).map(str::to_string)
}

/// `daily_budget`: an amount greater than zero, or `null` to remove the cap.
pub fn daily_budget(
    sent: Patch<Amount>,
    at: &str,
    kind: CabinetType,
) -> Result<Option<Option<Money>>, ParseError> {
    let param = path(at, "daily_budget");
    Ok(match sent {
        Patch::Keep => None,
        Patch::Clear => Some(None),
        Patch::Set(amount) => Some(Some(amount.positive(
            &param,
            "daily_budget",
            kind.scale(),
        )?)),
    })
}

/// The placement sent at `at` for ads of `target`, one the platform allows for it; the
/// platform's own for `target` when none is sent.
pub fn placement(
    sent: Option<Text>,
    at: &str,
    target: TargetType,
    caps: &Capabilities,
) -> Result<&'static str, ParseError> {
    let allowed = caps.placements(target);
    let chosen = match &sent {
        None => allowed.first(),
        Some(Text(p)) => allowed.iter().find(|a| **a == p.as_str()),
    };
    chosen.copied().ok_or_else(|| {
        let names: Vec<&str> = allowed.to_vec();
        ParseError::new(
            path(at, "placement"),
            format!(
                "placement must be {} for target_type {}.",
                crate::domain::either(&names),
                target.as_str()
            ),
        )
        .because(Why::NotOneOf {
            allowed: crate::domain::words(&names),
        })
    })
}

/// A date field `name` at `at` as sent: `None` left out, `Some(None)` removed (`null`),
/// `Some(Some(t))` set, read to the minute. When it may be is checked when the change is made.
pub fn date(sent: Patch<Text>, at: &str, name: &str) -> Result<Option<Option<i64>>, ParseError> {
    sent.into_option()
        .map(|d| {
            d.map(|Text(text)| dates::parse(&text, &path(at, name)))
                .transpose()
        })
        .transpose()
}
