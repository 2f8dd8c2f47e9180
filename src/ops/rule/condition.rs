//! Owns reading one condition of a rule as every face sends it (`metric`, `op`, `value` or
//! `compare_to`, `window_hours`, `currency`), flat in a list or a leaf of a tree: how its
//! value reads for its metric, and a comparison's bounds (windows 1-168 hours, `offset_hours`
//! 0-720 with window and offset within the 744 hours hourly stats are kept at least, a factor
//! over 0 up to 100), each refusal named by its path.

use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::Value;

use crate::domain::campaign::Status;
use crate::domain::fields::wire::{present, Amount, Choice, Int, Named, Raw, Text, Word};
use crate::domain::fields::{self, path};
use crate::domain::rule::{
    Against, CompareTo, Condition, Metric, Op, Threshold, MAX_OFFSET_HOURS, MAX_REACH_HOURS,
    MAX_WINDOW_HOURS,
};
use crate::domain::{words, ParseError, Why};

/// The largest factor a comparison takes.
const MAX_FACTOR: i64 = 100;
/// Decimals a factor may have.
const FACTOR_SCALE: u32 = 4;

#[derive(Deserialize)]
#[serde(expecting = "A condition is an object.")]
pub(super) struct ConditionIn {
    metric: Word<Metric>,
    op: Word<Op>,
    value: Option<Raw>,
    #[serde(default, deserialize_with = "present")]
    compare_to: Option<Raw>,
    window_hours: Option<Int<1, { MAX_WINDOW_HOURS as i64 }>>,
    currency: Option<Text>,
}

impl Named for ConditionIn {
    const PLURAL: &'static str = "conditions";
}

impl Choice for Metric {
    fn parse(word: &str) -> Option<Metric> {
        Metric::parse(word)
    }

    fn refusal() -> String {
        let all: Vec<_> = Metric::ALL.iter().map(|m| m.as_str()).collect();
        format!("must be one of {}.", all.join(", "))
    }
}

impl Choice for Op {
    fn parse(word: &str) -> Option<Op> {
        Op::parse(word)
    }

    fn refusal() -> String {
        "must be one of >, >=, <, <=, =, !=.".into()
    }
}

impl ConditionIn {
    /// Reads the condition at `at` (`conditions[1]`): its fields, how its value reads for its
    /// metric, then any field it does not take.
    pub(super) fn read(value: &Value, at: &str) -> Result<Condition, ParseError> {
        let (sent, undeclared): (ConditionIn, _) = fields::read_open(value, at)?;
        let condition = sent.condition(at)?;
        undeclared.refuse()?;
        Ok(condition)
    }

    fn condition(self, at: &str) -> Result<Condition, ParseError> {
        let (Word(metric), Word(op)) = (self.metric, self.op);
        let window = self.window_hours.map(|w| w.0);
        let own_window = match window {
            Some(w) => w as u32,
            None if metric.windowed() => 24,
            None => 1,
        };
        let against = match (self.value, self.compare_to) {
            (Some(_), Some(_)) => {
                return Err(ParseError::new(
                    path(at, "compare_to"),
                    "A condition compares with value or with compare_to, not both.",
                )
                .because(Why::NotHere))
            }
            (None, Some(Raw(cmp))) => Against::Compare(compare_to(
                &cmp,
                &path(at, "compare_to"),
                metric,
                own_window,
            )?),
            (value, None) => Against::Value(threshold(value.map(|r| r.0), at, metric, op)?),
        };
        if window.is_some() && !metric.windowed() {
            return Err(ParseError::new(
                path(at, "window_hours"),
                "budget, daily_budget, status and hour are read as they are at the sync; they take no window_hours.",
            )
            .because(Why::NotHere));
        }
        let compared = match &against {
            Against::Compare(c) => Some(c.metric),
            Against::Value(_) => None,
        };
        let currency = match self.currency.map(|t| t.0) {
            None => None,
            Some(_)
                if metric != Metric::Revenue
                    && compared != Some(Metric::Revenue)
                    && !(metric.money() && compared.is_none()) =>
            {
                return Err(ParseError::new(
                    path(at, "currency"),
                    "currency applies to the revenue metric, and to a money metric compared with a number (the number's currency).",
                )
                .because(Why::NotHere))
            }
            Some(cur) if cur.len() == 3 && cur.chars().all(|ch| ch.is_ascii_alphabetic()) => {
                Some(cur.to_ascii_uppercase())
            }
            Some(_) => {
                return Err(ParseError::new(
                    path(at, "currency"),
                    "currency is a three-letter ISO 4217 code.",
                )
                .because(Why::Unknown))
            }
        };
        Ok(Condition {
            metric,
            op,
            against,
            window_hours: own_window,
            currency,
        })
    }
}

/// A condition's `value`: a campaign status for the status metric (compared with = or !=
/// only), else a number (negative only for revenue, whole for counts).
fn threshold(
    value: Option<Value>,
    at: &str,
    metric: Metric,
    op: Op,
) -> Result<Threshold, ParseError> {
    let param = path(at, "value");
    let value = value
        .ok_or_else(|| ParseError::new(&param, "value is required.").because(Why::Required))?;
    if metric == Metric::Status {
        let Text(text) = fields::read_at(&value, &param)?;
        let status = Status::parse(&text).ok_or_else(|| {
            ParseError::new(&param, "value must be a campaign status.").because(Why::Unknown)
        })?;
        if !matches!(op, Op::Eq | Op::Ne) {
            return Err(
                ParseError::new(path(at, "op"), "A status is compared with = or != only.").because(
                    Why::NotOneOf {
                        allowed: words(&["=", "!="]),
                    },
                ),
            );
        }
        return Ok(Threshold::Status(status));
    }
    let amount: Amount = fields::read_at(&value, &param)?;
    let value = amount.signed(&param, "value")?;
    if value.is_sign_negative() && !metric.signed() {
        return Err(ParseError::new(param, "value must not be negative.").because(Why::Negative));
    }
    let counter = matches!(
        metric,
        Metric::Views | Metric::Clicks | Metric::Actions | Metric::Conversions | Metric::Hour
    );
    if counter && value.normalize().scale() > 0 {
        return Err(ParseError::new(
            param,
            format!(
                "{} is a count: value must be a whole number.",
                metric.as_str()
            ),
        )
        .because(Why::Decimals { scale: 0 }));
    }
    Ok(Threshold::Number(value.normalize()))
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
fn compare_to(
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
