//! Owns a rule as every face writes it: reading its fields (all of them for a new rule, the
//! ones sent over the stored ones for a change) into the domain's types, each wrong field named
//! by its path (`conditions[1].value`, `action.max_cpm`); storing a new rule or a change with
//! its scope checked against the cabinet and the cabinet's limit on rules.

use rusqlite::Connection;
use rust_decimal::Decimal;
use serde_json::{json, Map, Value};

use super::OpsError;
use crate::clock;
use crate::domain::campaign::Status;
use crate::domain::fields::Fields;
use crate::domain::money::{CabinetType, Money};
use crate::domain::rule::{
    Action, Condition, Metric, Op, RuleSpec, Scope, Threshold, MAX_CONDITIONS,
    MAX_RULES_PER_CABINET, MAX_SCOPE_ADS, MAX_WINDOW_HOURS,
};
use crate::domain::ParseError;
use crate::store::rules::{self, RuleRow};
use crate::store::{campaigns, groups};

fn object<'a>(
    f: &Fields,
    name: &str,
    value: &'a Value,
) -> Result<&'a Map<String, Value>, ParseError> {
    value
        .as_object()
        .ok_or_else(|| ParseError::new(f.path(name), format!("{name} must be an object.")))
}

fn scope(f: &mut Fields) -> Result<Option<Scope>, ParseError> {
    let Some(value) = f.raw("scope") else {
        return Ok(None);
    };
    let mut s = Fields::new(object(f, "scope", value)?, f.path("scope"));
    let group = s.id("group_id")?;
    let ads = s.ids("ad_ids", MAX_SCOPE_ADS)?;
    s.deny_unknown()?;
    match (group, ads) {
        (None, None) => Ok(Some(Scope::Cabinet)),
        (Some(g), None) => Ok(Some(Scope::Group(g))),
        (None, Some(ads)) if ads.is_empty() => Err(ParseError::new(
            s.path("ad_ids"),
            "ad_ids lists at least one campaign.",
        )),
        (None, Some(ads)) => Ok(Some(Scope::Ads(ads))),
        (Some(_), Some(_)) => Err(ParseError::new(
            f.path("scope"),
            "scope is {} (the cabinet), {\"group_id\": N} or {\"ad_ids\": [...]}, not both.",
        )),
    }
}

fn threshold(c: &mut Fields, metric: Metric, op: Op) -> Result<Threshold, ParseError> {
    if metric == Metric::Status {
        let text = c.required_string("value")?;
        let status = Status::parse(&text)
            .ok_or_else(|| ParseError::new(c.path("value"), "value must be a campaign status."))?;
        if !matches!(op, Op::Eq | Op::Ne) {
            return Err(ParseError::new(
                c.path("op"),
                "A status is compared with = or != only.",
            ));
        }
        return Ok(Threshold::Status(status));
    }
    let value = c
        .signed_decimal("value")?
        .ok_or_else(|| ParseError::new(c.path("value"), "value is required."))?;
    if value.is_sign_negative() && metric != Metric::Revenue {
        return Err(ParseError::new(
            c.path("value"),
            "value must not be negative.",
        ));
    }
    let counter = matches!(
        metric,
        Metric::Views | Metric::Clicks | Metric::Actions | Metric::Conversions
    );
    if counter && value.normalize().scale() > 0 {
        return Err(ParseError::new(
            c.path("value"),
            format!(
                "{} is a count: value must be a whole number.",
                metric.as_str()
            ),
        ));
    }
    Ok(Threshold::Number(value.normalize()))
}

fn condition(c: &mut Fields) -> Result<Condition, ParseError> {
    let metric = c.required_string("metric")?;
    let metric = Metric::parse(&metric).ok_or_else(|| {
        let all: Vec<_> = Metric::ALL.iter().map(|m| m.as_str()).collect();
        ParseError::new(
            c.path("metric"),
            format!("metric must be one of {}.", all.join(", ")),
        )
    })?;
    let op = c.required_string("op")?;
    let op = Op::parse(&op)
        .ok_or_else(|| ParseError::new(c.path("op"), "op must be one of >, >=, <, <=, =, !=."))?;
    let value = threshold(c, metric, op)?;
    let window = c.int("window_hours", 1, i64::from(MAX_WINDOW_HOURS))?;
    if window.is_some() && !metric.windowed() {
        return Err(ParseError::new(
            c.path("window_hours"),
            "budget and status are read as they are at the sync; they take no window_hours.",
        ));
    }
    let currency = c.string("currency")?;
    let currency = match currency {
        None => None,
        Some(_) if metric != Metric::Revenue => {
            return Err(ParseError::new(
                c.path("currency"),
                "currency applies to the revenue metric only.",
            ))
        }
        Some(cur) if cur.len() == 3 && cur.chars().all(|ch| ch.is_ascii_alphabetic()) => {
            Some(cur.to_ascii_uppercase())
        }
        Some(_) => {
            return Err(ParseError::new(
                c.path("currency"),
                "currency is a three-letter ISO 4217 code.",
            ))
        }
    };
    c.deny_unknown()?;
    Ok(Condition {
        metric,
        op,
        value,
        window_hours: match window {
            Some(w) => w as u32,
            None if metric.windowed() => 24,
            None => 1,
        },
        currency,
    })
}

fn conditions(f: &mut Fields) -> Result<Option<Vec<Condition>>, ParseError> {
    let Some(value) = f.raw("conditions") else {
        return Ok(None);
    };
    let path = f.path("conditions");
    let list = value
        .as_array()
        .filter(|l| (1..=MAX_CONDITIONS).contains(&l.len()))
        .ok_or_else(|| {
            ParseError::new(
                &path,
                format!("conditions is an array of 1 to {MAX_CONDITIONS} conditions."),
            )
        })?;
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            let at = format!("{path}[{i}]");
            let map = v
                .as_object()
                .ok_or_else(|| ParseError::new(&at, "A condition is an object."))?;
            condition(&mut Fields::new(map, at))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// A required amount greater than zero, at the cabinet currency's scale.
fn positive(a: &mut Fields, name: &str, kind: CabinetType) -> Result<Money, ParseError> {
    a.positive_money(name, kind.scale())?.ok_or_else(|| {
        ParseError::new(
            a.path(name),
            format!("{name} is required and must be greater than 0."),
        )
    })
}

fn action(f: &mut Fields, kind: CabinetType) -> Result<Option<Action>, ParseError> {
    let Some(value) = f.raw("action") else {
        return Ok(None);
    };
    let mut a = Fields::new(object(f, "action", value)?, f.path("action"));
    let action = match a.required_string("type")?.as_str() {
        "pause" => Action::Pause,
        "resume" => Action::Resume,
        "set_cpm" => Action::SetCpm {
            cpm: positive(&mut a, "cpm", kind)?,
        },
        "change_cpm" => {
            let percent = a
                .signed_decimal("percent")?
                .filter(|p| !p.is_zero() && *p >= Decimal::from(-90) && *p <= Decimal::from(500))
                .ok_or_else(|| {
                    ParseError::new(
                        a.path("percent"),
                        "percent is required: from -90 to 500, not 0 (negative lowers the bid).",
                    )
                })?;
            let (min_cpm, max_cpm) = (
                positive(&mut a, "min_cpm", kind)?,
                positive(&mut a, "max_cpm", kind)?,
            );
            if min_cpm > max_cpm {
                return Err(ParseError::new(
                    a.path("max_cpm"),
                    "max_cpm must be at least min_cpm.",
                ));
            }
            Action::ChangeCpm {
                percent: percent.normalize(),
                min_cpm,
                max_cpm,
            }
        }
        "add_budget" => {
            let amount = positive(&mut a, "amount", kind)?;
            let max_per_day = positive(&mut a, "max_per_day", kind)?;
            if max_per_day < amount {
                return Err(ParseError::new(
                    a.path("max_per_day"),
                    "max_per_day must be at least amount.",
                ));
            }
            Action::AddBudget {
                amount,
                max_per_day,
            }
        }
        "notify" => {
            let text = a.required_string("text")?.trim().to_string();
            if text.is_empty() || text.chars().count() > 500 {
                return Err(ParseError::new(
                    a.path("text"),
                    "text is 1 to 500 characters.",
                ));
            }
            Action::Notify { text }
        }
        _ => {
            return Err(ParseError::new(
                a.path("type"),
                "type must be pause, resume, set_cpm, change_cpm, add_budget or notify.",
            ))
        }
    };
    a.deny_unknown()?;
    Ok(Some(action))
}

/// Reads a rule's fields: all of them for a new rule (`base` is `None`), or the ones sent
/// over `base` for a change.
pub fn spec(
    f: &mut Fields,
    kind: CabinetType,
    base: Option<&RuleSpec>,
) -> Result<RuleSpec, ParseError> {
    let missing = |name: &str| ParseError::new(name, format!("{name} is required."));
    let name = match f.string("name")? {
        Some(n) if n.trim().is_empty() || n.trim().chars().count() > 100 => {
            return Err(ParseError::new(
                f.path("name"),
                "name is 1 to 100 characters.",
            ))
        }
        Some(n) => n.trim().to_string(),
        None => base
            .map(|b| b.name.clone())
            .ok_or_else(|| missing("name"))?,
    };
    let scope = scope(f)?
        .or_else(|| base.map(|b| b.scope.clone()))
        .unwrap_or(Scope::Cabinet);
    let match_all = match f.string("match")?.as_deref() {
        Some("all") => true,
        Some("any") => false,
        Some(_) => return Err(ParseError::new(f.path("match"), "match is all or any.")),
        None => base.is_none_or(|b| b.match_all),
    };
    let conditions = match conditions(f)? {
        Some(c) => c,
        None => base
            .map(|b| b.conditions.clone())
            .ok_or_else(|| missing("conditions"))?,
    };
    let action = match action(f, kind)? {
        Some(a) => a,
        None => base
            .map(|b| b.action.clone())
            .ok_or_else(|| missing("action"))?,
    };
    let int = |f: &mut Fields, name: &str, min: i64, max: i64, old: Option<u32>, default: u32| {
        f.int(name, min, max)
            .map(|v| v.map(|v| v as u32).or(old).unwrap_or(default))
    };
    let cooldown_hours = int(
        f,
        "cooldown_hours",
        0,
        168,
        base.map(|b| b.cooldown_hours),
        24,
    )?;
    let max_runs_per_day = int(
        f,
        "max_runs_per_day",
        1,
        24,
        base.map(|b| b.max_runs_per_day),
        1,
    )?;
    let enabled = f
        .bool("enabled")?
        .or(base.map(|b| b.enabled))
        .unwrap_or(true);
    let dry_run = f
        .bool("dry_run")?
        .or(base.map(|b| b.dry_run))
        .unwrap_or(false);
    f.deny_unknown()?;
    Ok(RuleSpec {
        name,
        scope,
        match_all,
        conditions,
        action,
        cooldown_hours,
        max_runs_per_day,
        enabled,
        dry_run,
    })
}

/// Refuses a scope naming a group or campaigns the cabinet does not have.
fn check_scope(conn: &Connection, account: i64, scope: &Scope) -> Result<(), OpsError> {
    match scope {
        Scope::Cabinet => Ok(()),
        Scope::Group(g) => match groups::get(conn, *g)? {
            Some(group) if group.account_id == account => Ok(()),
            _ => Err(ParseError::new("scope.group_id", "No such group in this cabinet.").into()),
        },
        Scope::Ads(ads) => {
            let live = campaigns::live_ids(conn, account)?;
            match ads.iter().position(|ad| !live.contains(ad)) {
                Some(i) => Err(ParseError::new(
                    format!("scope.ad_ids[{i}]"),
                    format!("No live campaign {} in this cabinet.", ads[i]),
                )
                .into()),
                None => Ok(()),
            }
        }
    }
}

/// Stores a new rule of `account` (the API's create and the panel's form): its scope checked
/// against the cabinet and the cabinet's rule limit, in one transaction.
pub fn insert(tx: &Connection, account: i64, spec: &RuleSpec) -> Result<RuleRow, OpsError> {
    check_scope(tx, account, &spec.scope)?;
    if rules::count(tx, account)? >= MAX_RULES_PER_CABINET {
        return Err(ParseError::new(
            "account_id",
            format!("A cabinet holds at most {MAX_RULES_PER_CABINET} rules."),
        )
        .into());
    }
    let id = rules::save(tx, None, account, spec, &clock::iso(clock::now(tx)?))?;
    rules::get(tx, id)?.ok_or(OpsError::RuleNotFound)
}

/// Stores the new version `spec` of rule `id` of `account` (its scope checked again when
/// `scope_sent`).
pub fn update(
    tx: &Connection,
    id: i64,
    account: i64,
    spec: &RuleSpec,
    scope_sent: bool,
) -> Result<RuleRow, OpsError> {
    if scope_sent {
        check_scope(tx, account, &spec.scope)?;
    }
    rules::save(tx, Some(id), account, spec, &clock::iso(clock::now(tx)?))?;
    rules::get(tx, id)?.ok_or(OpsError::RuleNotFound)
}

/// A rule as the API, the panel and the operator's commands show it.
pub fn describe(rule: &RuleRow, kind: CabinetType) -> Value {
    let spec = &rule.spec;
    json!({
        "id": rule.id,
        "account_id": rule.account_id,
        "name": spec.name,
        "scope": spec.scope.to_json(),
        "match": if spec.match_all { "all" } else { "any" },
        "conditions": spec.conditions.iter().map(|c| c.to_json()).collect::<Vec<_>>(),
        "action": spec.action.to_json(kind),
        "cooldown_hours": spec.cooldown_hours,
        "max_runs_per_day": spec.max_runs_per_day,
        "enabled": spec.enabled,
        "dry_run": spec.dry_run,
        "created_at": rule.created_at,
        "updated_at": rule.updated_at,
    })
}
