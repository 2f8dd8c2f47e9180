//! Owns reading a rule's conditions sent as a tree (`{"all": [...]}` / `{"any": [...]}`) and a
//! condition's `compare_to`: the bounds (3 levels, 1-20 conditions in all, windows 1-168
//! hours, `offset_hours` 0-720 with window and offset within the 744 hours hourly stats are
//! kept at least, a factor over 0 up to 100) checked as the tree is read, each refusal named by
//! its path (`conditions.all[1].any[0].compare_to.factor`).

use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::Value;

use super::read::ConditionIn;
use crate::domain::fields::wire::{Amount, Int, Word};
use crate::domain::fields::{self, path};
use crate::domain::rule::{
    CompareTo, Group, Metric, Node, MAX_DEPTH, MAX_OFFSET_HOURS, MAX_REACH_HOURS,
    MAX_TREE_CONDITIONS, MAX_WINDOW_HOURS,
};
use crate::domain::{ParseError, Why};

/// The largest factor a comparison takes.
const MAX_FACTOR: i64 = 100;
/// Decimals a factor may have.
const FACTOR_SCALE: u32 = 4;

/// Reads `conditions` sent as a tree.
pub(super) fn read(value: &Value) -> Result<Group, ParseError> {
    let mut count = 0;
    group(value, "conditions", 1, &mut count)
}

/// The group at `at`, `depth` levels in, counting its conditions into `count`.
fn group(value: &Value, at: &str, depth: usize, count: &mut usize) -> Result<Group, ParseError> {
    let shape = || {
        ParseError::new(
            at,
            format!("{at} is a group: {{\"all\": [...]}} or {{\"any\": [...]}}."),
        )
        .because(Why::Kind)
    };
    let map = value.as_object().ok_or_else(shape)?;
    let mut entries = map.iter();
    let (Some((word, list)), None) = (entries.next(), entries.next()) else {
        return Err(shape());
    };
    let all = match word.as_str() {
        "all" => true,
        "any" => false,
        _ => return Err(shape()),
    };
    let here = path(at, word);
    if depth > MAX_DEPTH {
        return Err(ParseError::new(
            here,
            format!("Groups nest at most {MAX_DEPTH} levels deep."),
        )
        .because(Why::TooMany { max: MAX_DEPTH }));
    }
    let items = match list.as_array() {
        Some(items) if !items.is_empty() => items,
        _ => {
            return Err(ParseError::new(
                &here,
                format!("{word} is an array of 1 or more conditions or groups."),
            )
            .because(Why::Required))
        }
    };
    let mut nodes = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("{here}[{i}]");
        let is_group = item
            .as_object()
            .is_some_and(|m| m.contains_key("all") || m.contains_key("any"));
        if is_group {
            nodes.push(Node::Group(group(item, &at, depth + 1, count)?));
            continue;
        }
        *count += 1;
        if *count > MAX_TREE_CONDITIONS {
            return Err(ParseError::new(
                at,
                format!("A tree holds at most {MAX_TREE_CONDITIONS} conditions in all."),
            )
            .because(Why::TooMany {
                max: MAX_TREE_CONDITIONS,
            }));
        }
        nodes.push(Node::Condition(ConditionIn::read(item, &at)?));
    }
    Ok(Group { all, nodes })
}

#[derive(Deserialize)]
#[serde(expecting = "compare_to is an object.")]
struct CompareIn {
    metric: Option<Word<Metric>>,
    window_hours: Option<Int<1, { MAX_WINDOW_HOURS as i64 }>>,
    offset_hours: Option<Int<0, { MAX_OFFSET_HOURS as i64 }>>,
    factor: Option<Amount>,
}

/// A condition's `compare_to` at `at`, for a condition on `metric` over `own_window` hours:
/// the same metric, window, no offset and a factor of 1 unless sent.
pub(super) fn compare_to(
    value: &Value,
    at: &str,
    metric: Metric,
    own_window: u32,
) -> Result<CompareTo, ParseError> {
    if !value.is_object() {
        return Err(ParseError::new(at, "compare_to is an object.").because(Why::Kind));
    }
    let (sent, undeclared): (CompareIn, _) = fields::read_open(value, at)?;
    undeclared.refuse()?;
    if metric == Metric::Status {
        return Err(ParseError::new(
            at,
            "A status is compared with a value; it takes no compare_to.",
        )
        .because(Why::NotHere));
    }
    let other = sent.metric.map_or(metric, |Word(m)| m);
    if other == Metric::Status {
        return Err(ParseError::new(
            path(at, "metric"),
            "A number is not compared with a status.",
        )
        .because(Why::NotHere));
    }
    let window = sent.window_hours.map(|w| w.0 as u32);
    let offset = sent.offset_hours.map_or(0, |o| o.0 as u32);
    if !other.windowed() && (window.is_some() || offset > 0) {
        let name = if window.is_some() {
            "window_hours"
        } else {
            "offset_hours"
        };
        return Err(ParseError::new(
            path(at, name),
            format!(
                "{} is read as it is at the sync; it takes no {name}.",
                other.as_str()
            ),
        )
        .because(Why::NotHere));
    }
    let window_hours = window.unwrap_or(own_window);
    if window_hours.saturating_add(offset) > MAX_REACH_HOURS {
        return Err(ParseError::new(
            path(at, "offset_hours"),
            format!(
                "window_hours and offset_hours together reach back at most {MAX_REACH_HOURS} hours (31 days of hourly stats)."
            ),
        )
        .because(Why::Range {
            min: 0,
            max: i64::from(MAX_REACH_HOURS - window_hours),
        }));
    }
    let factor = match sent.factor {
        None => Decimal::ONE,
        Some(f) => factor(&f, &path(at, "factor"))?,
    };
    Ok(CompareTo {
        metric: other,
        window_hours,
        offset_hours: offset,
        factor,
    })
}

/// A factor: a decimal over 0 up to 100, with at most 4 decimals.
fn factor(sent: &Amount, param: &str) -> Result<Decimal, ParseError> {
    let d = sent.signed(param, "factor")?;
    if d.scale() > FACTOR_SCALE {
        return Err(ParseError::new(
            param,
            format!("factor has at most {FACTOR_SCALE} decimals."),
        )
        .because(Why::Decimals {
            scale: FACTOR_SCALE,
        }));
    }
    if d <= Decimal::ZERO || d > Decimal::from(MAX_FACTOR) {
        return Err(ParseError::new(
            param,
            format!("factor must be greater than 0 and at most {MAX_FACTOR}."),
        )
        .because(Why::Range {
            min: 0,
            max: MAX_FACTOR,
        }));
    }
    Ok(d.normalize())
}
