//! Owns reading a rule's conditions sent as a tree (`{"all": [...]}` / `{"any": [...]}`): the
//! bounds (3 levels, 1-20 conditions in all) checked as the tree is read, each leaf read as a
//! condition (`condition`), each refusal named by its path
//! (`conditions.all[1].any[0].compare_to.factor`).

use serde_json::Value;

use super::condition::ConditionIn;
use crate::domain::fields::path;
use crate::domain::rule::{Group, Node, MAX_DEPTH, MAX_TREE_CONDITIONS};
use crate::domain::{ParseError, Why};

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
