//! Owns reading a rule as every face sends it: its fields (all of them for a new rule, the
//! ones sent over the stored ones for a change) into the domain's types, each wrong field named
//! by its path (`conditions[1].value`, `conditions.all[1].any[0].compare_to.factor`,
//! `action.max_cpm`), in the order they are read. A condition is `condition`'s, the
//! conditions' tree `tree`'s.

use rust_decimal::Decimal;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::Value;

use super::condition::ConditionIn;
use crate::domain::fields::wire::{
    present, Amount, Choice, Flag, Id, Ids, Int, Later, Lenient, List, Raw, Trimmed, Word,
};
use crate::domain::fields::{self, path, Body};
use crate::domain::money::{CabinetType, Money};
use crate::domain::rule::{
    Action, ActionKind, Every, Group, RuleSpec, Scope, FAST_REFUSAL, MAX_CONDITIONS, MAX_SCOPE_ADS,
    MAX_SCOPE_CABINETS,
};
use crate::domain::{ParseError, Why};
use crate::store::rules::RuleRow;

/// A rule's fields as sent; each is optional (a change sends some, a new rule needs most).
#[derive(Deserialize)]
struct RuleIn {
    name: Option<Trimmed<1, 100>>,
    #[serde(default, deserialize_with = "present")]
    scope: Option<ScopeIn>,
    #[serde(rename = "match")]
    match_all: Option<Word<Match>>,
    #[serde(default, deserialize_with = "present")]
    conditions: Option<Raw>,
    #[serde(default, deserialize_with = "present")]
    action: Option<Raw>,
    cooldown_hours: Option<Int<0, 168>>,
    max_runs_per_day: Option<Int<1, 24>>,
    enabled: Option<Flag>,
    dry_run: Option<Flag>,
    max_total_per_day: Option<Amount>,
    approval: Option<Flag>,
    every: Option<Word<Every>>,
}

/// `match`: every condition (`all`) or one of them (`any`).
struct Match(bool);

impl Choice for Match {
    fn parse(word: &str) -> Option<Match> {
        match word {
            "all" => Some(Match(true)),
            "any" => Some(Match(false)),
            _ => None,
        }
    }

    fn refusal() -> String {
        "is all or any.".into()
    }
}

#[derive(Deserialize)]
#[serde(expecting = "\u{0} must be an object.")]
struct ScopeIn {
    group_id: Option<Id>,
    ad_ids: Option<Ids<MAX_SCOPE_ADS>>,
    account_ids: Option<Ids<MAX_SCOPE_CABINETS>>,
}

/// An action's `type`, read before the fields that type takes.
#[derive(Deserialize)]
struct ActionHead {
    #[serde(rename = "type")]
    kind: Word<ActionKind>,
}

impl Choice for ActionKind {
    fn parse(word: &str) -> Option<ActionKind> {
        ActionKind::parse(word)
    }

    fn refusal() -> String {
        let names: Vec<&str> = ActionKind::ALL.iter().map(|k| k.name()).collect();
        format!("must be {}.", crate::domain::either(&names))
    }
}

impl Choice for Every {
    fn parse(word: &str) -> Option<Every> {
        Every::parse(word)
    }

    fn refusal() -> String {
        "is 1h or 5m.".into()
    }
}

/// The rule's `every` (sent, else the stored one, else hourly), refused when a check every 5
/// minutes would read further back than the 5-minute figures are kept.
fn every(
    sent: Option<Word<Every>>,
    base: Option<&RuleSpec>,
    conditions: &Group,
) -> Result<Every, ParseError> {
    let every = sent
        .map(|Word(e)| e)
        .or(base.map(|b| b.every))
        .unwrap_or_default();
    if every.allows(conditions) {
        Ok(every)
    } else {
        Err(ParseError::new("every", FAST_REFUSAL))
    }
}

/// The fields of an action that takes none but its type.
#[derive(Deserialize)]
struct Bare {
    #[serde(rename = "type")]
    _kind: IgnoredAny,
}

#[derive(Deserialize)]
struct SetCpmIn {
    #[serde(rename = "type")]
    _kind: IgnoredAny,
    cpm: Option<Amount>,
}

#[derive(Deserialize)]
struct ChangeCpmIn {
    #[serde(rename = "type")]
    _kind: IgnoredAny,
    percent: Option<Amount>,
    min_cpm: Option<Amount>,
    max_cpm: Option<Amount>,
}

#[derive(Deserialize)]
struct AddBudgetIn {
    #[serde(rename = "type")]
    _kind: IgnoredAny,
    amount: Option<Amount>,
    max_per_day: Option<Amount>,
}

#[derive(Deserialize)]
struct DuplicateIn {
    #[serde(rename = "type")]
    _kind: IgnoredAny,
    cpm: Option<Amount>,
    budget: Option<Amount>,
    max_per_day: Option<Amount>,
}

#[derive(Deserialize)]
struct DailyBudgetIn {
    #[serde(rename = "type")]
    _kind: IgnoredAny,
    amount: Option<Amount>,
}

#[derive(Deserialize)]
struct NotifyIn {
    #[serde(rename = "type")]
    _kind: IgnoredAny,
    text: Trimmed<1, 500>,
}

impl ScopeIn {
    fn scope(self) -> Result<Scope, ParseError> {
        if self.account_ids.is_some() && (self.group_id.is_some() || self.ad_ids.is_some()) {
            return Err(ParseError::new(
                "scope",
                "A rule across cabinets (account_ids) watches each cabinet whole: send no group_id or ad_ids with it.",
            ));
        }
        match (self.group_id, self.ad_ids) {
            (None, None) => Ok(Scope::Cabinet),
            (Some(Id(g)), None) => Ok(Scope::Group(g)),
            (None, Some(Ids(ads))) if ads.is_empty() => Err(ParseError::new(
                "scope.ad_ids",
                "ad_ids lists at least one campaign.",
            )
            .because(Why::Required)),
            (None, Some(Ids(ads))) => Ok(Scope::Ads(ads)),
            (Some(_), Some(_)) => Err(ParseError::new(
                "scope",
                "scope is {} (the cabinet), {\"group_id\": N} or {\"ad_ids\": [...]}, not both.",
            )),
        }
    }
}

/// A required amount of an action greater than zero, at the cabinet currency's scale.
fn positive(sent: Option<Amount>, name: &str, kind: CabinetType) -> Result<Money, ParseError> {
    let param = path("action", name);
    sent.map(|a| a.positive(&param, name, kind.scale()))
        .transpose()?
        .ok_or_else(|| {
            ParseError::new(
                param,
                format!("{name} is required and must be greater than 0."),
            )
            .because(Why::NotPositive)
        })
}

/// An optional amount of an action greater than zero, at the cabinet currency's scale.
fn optional(
    sent: Option<Amount>,
    name: &str,
    kind: CabinetType,
) -> Result<Option<Money>, ParseError> {
    let param = path("action", name);
    sent.map(|a| a.positive(&param, name, kind.scale()))
        .transpose()
}

/// The rule's `action`: its `type`, then the fields that type takes (any other refused).
fn action(value: &Value, kind: CabinetType) -> Result<Action, ParseError> {
    if !value.is_object() {
        return Err(ParseError::new("action", "action must be an object.").because(Why::Kind));
    }
    let Lenient(ActionHead { kind: Word(which) }) = fields::read_at(value, "action")?;
    Ok(match which {
        ActionKind::Pause => {
            fields::read_at::<Bare>(value, "action")?;
            Action::Pause
        }
        ActionKind::Resume => {
            fields::read_at::<Bare>(value, "action")?;
            Action::Resume
        }
        ActionKind::SetCpm => {
            let (sent, undeclared): (SetCpmIn, _) = fields::read_open(value, "action")?;
            let cpm = positive(sent.cpm, "cpm", kind)?;
            undeclared.refuse()?;
            Action::SetCpm { cpm }
        }
        ActionKind::ChangeCpm => {
            let (sent, undeclared): (ChangeCpmIn, _) = fields::read_open(value, "action")?;
            let param = path("action", "percent");
            let percent = sent
                .percent
                .map(|p| p.signed(&param, "percent"))
                .transpose()?
                .filter(|p| !p.is_zero() && *p >= Decimal::from(-90) && *p <= Decimal::from(500))
                .ok_or_else(|| {
                    ParseError::new(
                        &param,
                        "percent is required: from -90 to 500, not 0 (negative lowers the bid).",
                    )
                    .because(Why::Range { min: -90, max: 500 })
                })?;
            let (min_cpm, max_cpm) = (
                positive(sent.min_cpm, "min_cpm", kind)?,
                positive(sent.max_cpm, "max_cpm", kind)?,
            );
            undeclared.refuse()?;
            if min_cpm > max_cpm {
                return Err(
                    ParseError::new("action.max_cpm", "max_cpm must be at least min_cpm.")
                        .because(Why::Order),
                );
            }
            Action::ChangeCpm {
                percent: percent.normalize(),
                min_cpm,
                max_cpm,
            }
        }
        ActionKind::AddBudget => {
            let (sent, undeclared): (AddBudgetIn, _) = fields::read_open(value, "action")?;
            let amount = positive(sent.amount, "amount", kind)?;
            let max_per_day = positive(sent.max_per_day, "max_per_day", kind)?;
            undeclared.refuse()?;
            if max_per_day < amount {
                return Err(ParseError::new(
                    "action.max_per_day",
                    "max_per_day must be at least amount.",
                )
                .because(Why::Order));
            }
            Action::AddBudget {
                amount,
                max_per_day,
            }
        }
        ActionKind::Notify => {
            let sent: NotifyIn = fields::read_at(value, "action")?;
            Action::Notify { text: sent.text.0 }
        }
        ActionKind::Duplicate => {
            let (sent, undeclared): (DuplicateIn, _) = fields::read_open(value, "action")?;
            let cpm = optional(sent.cpm, "cpm", kind)?;
            let budget = optional(sent.budget, "budget", kind)?;
            let max_per_day = optional(sent.max_per_day, "max_per_day", kind)?;
            undeclared.refuse()?;
            if let (Some(max), Some(budget)) = (max_per_day, budget) {
                if max < budget {
                    return Err(ParseError::new(
                        "action.max_per_day",
                        "max_per_day must be at least budget.",
                    )
                    .because(Why::Order));
                }
            }
            Action::Duplicate {
                cpm,
                budget,
                max_per_day,
            }
        }
        ActionKind::SetDailyBudget => {
            let (sent, undeclared): (DailyBudgetIn, _) = fields::read_open(value, "action")?;
            let amount = positive(sent.amount, "amount", kind)?;
            undeclared.refuse()?;
            Action::SetDailyBudget { amount }
        }
        ActionKind::Webhook => {
            fields::read_at::<Bare>(value, "action")?;
            Action::Webhook
        }
    })
}

/// Reads a rule's fields for a cabinet of `kind`: all of them for a new rule (`base` is
/// `None`), or the ones sent over `base` for a change.
pub fn read(
    body: &Value,
    kind: CabinetType,
    base: Option<&RuleSpec>,
) -> Result<RuleSpec, ParseError> {
    let (sent, undeclared): (RuleIn, _) = fields::read_open(body, "")?;
    let missing =
        |name: &str| ParseError::new(name, format!("{name} is required.")).because(Why::Required);
    let name = match sent.name {
        Some(Trimmed(n)) => n,
        None => base
            .map(|b| b.name.clone())
            .ok_or_else(|| missing("name"))?,
    };
    let cabinets = match &sent.scope {
        Some(s) => super::across::cabinets(s.account_ids.as_ref().map(|Ids(ids)| ids.as_slice()))?,
        None => base.map_or_else(Vec::new, |b| b.cabinets.clone()),
    };
    let scope = match sent.scope {
        Some(s) => s.scope()?,
        None => base.map_or(Scope::Cabinet, |b| b.scope.clone()),
    };
    let match_sent = sent.match_all.map(|Word(Match(all))| all);
    let (conditions, flat) = match sent.conditions {
        Some(Raw(value)) if value.is_object() => {
            if match_sent.is_some() {
                return Err(ParseError::new(
                    "match",
                    "A tree of conditions says all or any in its groups; it takes no match.",
                )
                .because(Why::NotHere));
            }
            (super::tree::read(&value)?, false)
        }
        Some(Raw(value)) => {
            let List(list) =
                fields::read_at::<List<Later<ConditionIn>, MAX_CONDITIONS>>(&value, "conditions")?;
            let list = list
                .into_iter()
                .enumerate()
                .map(|(i, Later(c, _))| ConditionIn::read(&c, &format!("conditions[{i}]")))
                .collect::<Result<Vec<_>, _>>()?;
            let all = match_sent.or(base.filter(|b| b.flat).map(|b| b.conditions.all));
            (Group::flat(all.unwrap_or(true), list), true)
        }
        None => {
            match base {
                Some(b) if b.flat => {
                    let mut group = b.conditions.clone();
                    group.all = match_sent.unwrap_or(group.all);
                    (group, true)
                }
                Some(_) if match_sent.is_some() => return Err(ParseError::new(
                    "match",
                    "This rule's conditions are a tree: send conditions to change how they join.",
                )
                .because(Why::NotHere)),
                Some(b) => (b.conditions.clone(), false),
                None => return Err(missing("conditions")),
            }
        }
    };
    let action = match sent.action {
        Some(Raw(value)) => action(&value, kind)?,
        None => base
            .map(|b| b.action.clone())
            .ok_or_else(|| missing("action"))?,
    };
    undeclared.refuse()?;
    let max_total_per_day =
        super::across::max_total(sent.max_total_per_day, &cabinets, kind, base)?;
    let every = every(sent.every, base, &conditions)?;
    let int = |sent: Option<i64>, old: Option<u32>, default: u32| {
        sent.map(|v| v as u32).or(old).unwrap_or(default)
    };
    Ok(RuleSpec {
        name,
        scope,
        conditions,
        flat,
        action,
        cooldown_hours: int(
            sent.cooldown_hours.map(|v| v.0),
            base.map(|b| b.cooldown_hours),
            24,
        ),
        max_runs_per_day: int(
            sent.max_runs_per_day.map(|v| v.0),
            base.map(|b| b.max_runs_per_day),
            1,
        ),
        enabled: sent
            .enabled
            .map(|f| f.0)
            .or(base.map(|b| b.enabled))
            .unwrap_or(true),
        dry_run: sent
            .dry_run
            .map(|f| f.0)
            .or(base.map(|b| b.dry_run))
            .unwrap_or(false),
        cabinets,
        max_total_per_day,
        approval: approval(sent.approval, base),
        every,
    })
}

/// `approval`: as sent, else as stored, else off.
fn approval(sent: Option<Flag>, base: Option<&RuleSpec>) -> bool {
    sent.map(|f| f.0)
        .or(base.map(|b| b.approval))
        .unwrap_or(false)
}

/// A change of a stored rule, as read.
pub struct RuleChange {
    pub(super) spec: RuleSpec,
    /// The scope was sent (and is checked again).
    pub(super) scope_sent: bool,
}

/// Reads a change of `rule` (of a `kind` cabinet) from `body`: the fields sent over the stored
/// ones. A cabinet's id, if sent, must be the rule's own.
pub fn read_change(
    body: &Body,
    kind: CabinetType,
    rule: &RuleRow,
) -> Result<RuleChange, ParseError> {
    if body.account_id()?.is_some_and(|a| a != rule.account_id) {
        return Err(ParseError::new(
            "account_id",
            "A rule stays in its cabinet; create a new one for another.",
        )
        .because(Why::Other));
    }
    Ok(RuleChange {
        spec: read(&body.fields(), kind, Some(&rule.spec))?,
        scope_sent: body.has("scope"),
    })
}
