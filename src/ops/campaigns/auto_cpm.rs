//! Owns an edit's `auto_cpm`, read the same from the API's `PATCH` and the panel's Auto CPM
//! form: the settings sent over the ones stored for the campaign. Switching Auto CPM on needs
//! a goal, a target and both bounds, sent now or kept from before; the bounds in order.

use serde::Deserialize;
use serde_json::Value;

use crate::domain::auto_cpm::{CpaFrom, Goal, Settings};
use crate::domain::fields;
use crate::domain::fields::wire::{Amount, Choice, Flag, Word};
use crate::domain::money::{CabinetType, Money};
use crate::domain::{ParseError, Why};

/// `auto_cpm` as sent.
#[derive(Deserialize)]
#[serde(expecting = "\u{0} must be an object.")]
pub struct AutoCpmIn {
    enabled: Flag,
    goal: Option<Word<Goal>>,
    cpa_from: Option<Word<CpaFrom>>,
    target: Option<Amount>,
    min_cpm: Option<Amount>,
    max_cpm: Option<Amount>,
}

impl Choice for Goal {
    fn parse(word: &str) -> Option<Goal> {
        Goal::parse(word)
    }

    fn refusal() -> String {
        "is cpa or pace.".into()
    }
}

impl Choice for CpaFrom {
    fn parse(word: &str) -> Option<CpaFrom> {
        CpaFrom::parse(word)
    }

    fn refusal() -> String {
        "is actions or postbacks.".into()
    }
}

impl AutoCpmIn {
    /// Reads `auto_cpm` (`value`) into the settings to store for a campaign of a `kind`
    /// cabinet with `stored` settings; `None` when switching off what was never set up.
    pub fn read(
        value: &Value,
        kind: CabinetType,
        stored: Option<Settings>,
    ) -> Result<Option<Settings>, ParseError> {
        let (sent, undeclared): (AutoCpmIn, _) = fields::read_open(value, "auto_cpm")?;
        let amount = |sent: Option<Amount>, name: &str| {
            sent.map(|a| a.positive(&format!("auto_cpm.{name}"), name, kind.scale()))
                .transpose()
        };
        let enabled = sent.enabled.0;
        let goal = sent.goal.map(|g| g.0);
        let cpa_from = sent.cpa_from.map(|c| c.0);
        let target = amount(sent.target, "target")?;
        let min_cpm = amount(sent.min_cpm, "min_cpm")?;
        let max_cpm = amount(sent.max_cpm, "max_cpm")?;
        undeclared.refuse()?;
        let pick = |sent: Option<Money>, old: Option<Money>, name: &str| {
            sent.or(old).ok_or_else(|| {
                ParseError::new(
                    format!("auto_cpm.{name}"),
                    format!("{name} is required to switch Auto CPM on."),
                )
                .because(Why::Required)
            })
        };
        let settings = match (enabled, stored) {
            (false, Some(old)) => Settings {
                enabled: false,
                ..old
            },
            (false, None) if goal.is_none() && target.is_none() && cpa_from.is_none() => {
                return Ok(None)
            }
            _ => Settings {
                enabled,
                goal: goal.or(stored.map(|s| s.goal)).ok_or_else(|| {
                    ParseError::new("auto_cpm.goal", "goal is required to switch Auto CPM on.")
                        .because(Why::Required)
                })?,
                cpa_from: cpa_from
                    .or(stored.map(|s| s.cpa_from))
                    .unwrap_or(CpaFrom::Actions),
                target: pick(target, stored.map(|s| s.target), "target")?,
                min_cpm: pick(min_cpm, stored.map(|s| s.min_cpm), "min_cpm")?,
                max_cpm: pick(max_cpm, stored.map(|s| s.max_cpm), "max_cpm")?,
            },
        };
        if settings.min_cpm > settings.max_cpm {
            return Err(
                ParseError::new("auto_cpm.max_cpm", "max_cpm must be at least min_cpm.")
                    .because(Why::Order),
            );
        }
        Ok(Some(settings))
    }
}
