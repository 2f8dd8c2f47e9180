//! Owns a rule's conditions as a tree: groups of `all` / `any` nested up to three levels, 1-20
//! conditions in all, and what a condition compares with (a number, or another reading: a
//! metric over a window, `offset_hours` back, times a factor), as stored and as answered. The
//! flat `match` + list of before is a group of one level, stored and answered as it was.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{Condition, Metric, Op, Threshold};

/// Levels of groups a tree may nest (the outer group is the first).
pub const MAX_DEPTH: usize = 3;
/// Conditions a tree holds in all.
pub const MAX_TREE_CONDITIONS: usize = 20;
/// The furthest back a comparison looks: 30 days.
pub const MAX_OFFSET_HOURS: u32 = 720;
/// The furthest back a comparison's window may reach (offset plus window): the 31 days hourly
/// stats stay hourly at the shortest retention the configuration allows.
pub const MAX_REACH_HOURS: u32 = 744;

/// A group of conditions and groups: every one holds (`all`) or one of them (`any`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "GroupWire", into = "GroupWire")]
pub struct Group {
    pub all: bool,
    pub nodes: Vec<Node>,
}

/// A group as stored and sent: `{"all": [...]}` or `{"any": [...]}`.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum GroupWire {
    All(Vec<Node>),
    Any(Vec<Node>),
}

impl From<GroupWire> for Group {
    fn from(w: GroupWire) -> Group {
        match w {
            GroupWire::All(nodes) => Group { all: true, nodes },
            GroupWire::Any(nodes) => Group { all: false, nodes },
        }
    }
}

impl From<Group> for GroupWire {
    fn from(g: Group) -> GroupWire {
        if g.all {
            GroupWire::All(g.nodes)
        } else {
            GroupWire::Any(g.nodes)
        }
    }
}

/// One entry of a group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Node {
    Group(Group),
    Condition(Condition),
}

impl Group {
    /// The flat form: `match` over a list of conditions.
    pub fn flat(all: bool, list: Vec<Condition>) -> Group {
        Group {
            all,
            nodes: list.into_iter().map(Node::Condition).collect(),
        }
    }

    /// Its word on the wire.
    pub fn word(&self) -> &'static str {
        if self.all {
            "all"
        } else {
            "any"
        }
    }

    /// Every condition of the tree, depth first.
    pub fn conditions(&self) -> Vec<&Condition> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a Condition>) {
        for node in &self.nodes {
            match node {
                Node::Condition(c) => out.push(c),
                Node::Group(g) => g.collect(out),
            }
        }
    }

    /// As answered: `{"all": [...]}` with each condition as [`Condition::to_json`] gives it.
    pub fn to_json(&self) -> Value {
        let nodes: Vec<Value> = self
            .nodes
            .iter()
            .map(|n| match n {
                Node::Condition(c) => c.to_json(),
                Node::Group(g) => g.to_json(),
            })
            .collect();
        json!({ self.word(): nodes })
    }
}

/// Another reading a condition compares its metric with: `metric` over `window_hours` that
/// ended `offset_hours` before the condition's window ends, times `factor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompareTo {
    pub metric: Metric,
    pub window_hours: u32,
    pub offset_hours: u32,
    pub factor: Decimal,
}

impl CompareTo {
    pub fn to_json(&self) -> Value {
        json!({
            "metric": self.metric.as_str(),
            "window_hours": self.window_hours,
            "offset_hours": self.offset_hours,
            "factor": self.factor.normalize().to_string(),
        })
    }

    /// The hours before the condition's end it reads back to.
    pub fn reach(&self) -> u32 {
        if self.metric.windowed() {
            self.window_hours.saturating_add(self.offset_hours)
        } else {
            1
        }
    }
}

/// What a condition's metric is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Against {
    Value(Threshold),
    Compare(CompareTo),
}

/// A condition as stored: the rows written before comparisons existed have a `value` and no
/// `compare_to`, and read unchanged.
#[derive(Serialize, Deserialize)]
pub(super) struct StoredCondition {
    metric: Metric,
    op: Op,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<Threshold>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    compare_to: Option<CompareTo>,
    window_hours: u32,
    #[serde(default)]
    currency: Option<String>,
}

impl TryFrom<StoredCondition> for Condition {
    type Error = &'static str;

    fn try_from(s: StoredCondition) -> Result<Condition, &'static str> {
        let against = match (s.value, s.compare_to) {
            (Some(v), None) => Against::Value(v),
            (None, Some(c)) => Against::Compare(c),
            _ => return Err("a condition has a value or a compare_to"),
        };
        Ok(Condition {
            metric: s.metric,
            op: s.op,
            against,
            window_hours: s.window_hours,
            currency: s.currency,
        })
    }
}

impl From<Condition> for StoredCondition {
    fn from(c: Condition) -> StoredCondition {
        let (value, compare_to) = match c.against {
            Against::Value(v) => (Some(v), None),
            Against::Compare(cmp) => (None, Some(cmp)),
        };
        StoredCondition {
            metric: c.metric,
            op: c.op,
            value,
            compare_to,
            window_hours: c.window_hours,
            currency: c.currency,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::cond;
    use super::*;

    #[test]
    fn a_condition_stored_before_comparisons_reads_unchanged() {
        let old = r#"[{"metric":"spent","op":">","value":{"number":"5"},"window_hours":24,"currency":null}]"#;
        let read: Vec<Condition> = serde_json::from_str(old).unwrap();
        assert_eq!(read, vec![cond(Metric::Spent, Op::Gt, "5")]);
        assert_eq!(
            serde_json::to_string(&read).unwrap(),
            old,
            "written as before"
        );
    }

    #[test]
    fn a_tree_is_stored_and_read_back_whole() {
        let compare = Condition {
            against: Against::Compare(CompareTo {
                metric: Metric::Cpa,
                window_hours: 168,
                offset_hours: 0,
                factor: "1.3".parse().unwrap(),
            }),
            ..cond(Metric::Cpa, Op::Gt, "0")
        };
        let tree = Group {
            all: true,
            nodes: vec![
                Node::Condition(cond(Metric::Spent, Op::Gt, "5")),
                Node::Group(Group {
                    all: false,
                    nodes: vec![
                        Node::Condition(compare),
                        Node::Condition(cond(Metric::Ctr, Op::Lt, "1")),
                    ],
                }),
            ],
        };
        let stored = serde_json::to_string(&tree).unwrap();
        assert!(
            stored.starts_with(r#"{"all":[{"metric":"spent""#),
            "{stored}"
        );
        let back: Group = serde_json::from_str(&stored).unwrap();
        assert_eq!(back, tree);
        assert_eq!(back.conditions().len(), 3);
        assert_eq!(
            back.to_json()["all"][1]["any"][0]["compare_to"]["factor"],
            "1.3"
        );
    }
}
