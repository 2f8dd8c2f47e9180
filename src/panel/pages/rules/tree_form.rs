//! Owns the rule form's conditions as rows that build a tree without script: each row is a
//! condition or a group (`kind{n}`), names the level of the group it sits in (`depth{n}`, 1 the
//! outer group) and its fields (`metric{n}`, `op{n}`, `value{n}`, `window{n}`, a comparison's
//! `cmp_metric{n}`, `cmp_window{n}`, `cmp_offset{n}`, `cmp_factor{n}`; a group's `join{n}`).
//! Buttons post back `edit=cond:N|group:N|remove:N` (N a group row or `root`) with the rows as
//! they are, and the form comes back changed. It reads rows from a form and from a stored rule,
//! draws them, and writes them as the API's `conditions` with the form row of each body path.

use maud::{html, Markup};
use serde_json::{json, Map, Value};

use super::super::super::Form;
use super::words::metric_name;
use crate::domain::rule::{Against, Group, Metric, Node, Op, RuleSpec, Threshold, MAX_DEPTH};
use crate::i18n::Lang;

/// Rows a form may hold (conditions and groups).
pub const MAX_ROWS: usize = 40;
/// Condition rows a new form offers.
const NEW_ROWS: usize = 3;

/// A condition's fields as written on the form.
const COND_FIELDS: [&str; 9] = [
    "metric",
    "op",
    "value",
    "window",
    "cmp_metric",
    "cmp_window",
    "cmp_offset",
    "cmp_factor",
    "currency",
];

/// One row: a condition's fields, or a group's join.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The level of the group the row sits in: 1 is the outer group.
    pub depth: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Group {
        all: bool,
    },
    /// The fields of [`COND_FIELDS`], in that order.
    Cond(Box<[String; 9]>),
}

impl Row {
    fn empty(depth: usize) -> Row {
        Row {
            depth,
            kind: Kind::Cond(Box::default()),
        }
    }

    fn field(&self, name: &str) -> &str {
        match &self.kind {
            Kind::Cond(f) => COND_FIELDS
                .iter()
                .position(|n| *n == name)
                .map_or("", |i| f[i].as_str()),
            Kind::Group { .. } => "",
        }
    }
}

/// The conditions as the form holds them: the outer group's join, the rows, and whether they
/// are sent as a tree (a flat list otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rows {
    pub all: bool,
    pub rows: Vec<Row>,
    pub tree: bool,
}

impl Rows {
    /// A new form's: three empty conditions, joined by all.
    pub fn new() -> Rows {
        Rows {
            all: true,
            rows: (0..NEW_ROWS).map(|_| Row::empty(1)).collect(),
            tree: false,
        }
    }

    /// The rows as a form sent them (`match` the outer join, `shape=tree` a tree).
    pub fn of_form(form: &Form) -> Rows {
        let text = |name: &str| form.get(name).map(str::trim).unwrap_or("").to_string();
        let mut rows = Vec::new();
        for n in 0..MAX_ROWS {
            let kind = form.get(&format!("kind{n}"));
            if kind.is_none() && form.get(&format!("metric{n}")).is_none() {
                continue;
            }
            let depth = text(&format!("depth{n}"))
                .parse::<usize>()
                .unwrap_or(1)
                .clamp(1, MAX_DEPTH);
            let kind = match kind {
                Some("group") => Kind::Group {
                    all: text(&format!("join{n}")) != "any",
                },
                _ => Kind::Cond(Box::new(COND_FIELDS.map(|f| text(&format!("{f}{n}"))))),
            };
            rows.push(Row { depth, kind });
        }
        let groups = rows.iter().any(|r| matches!(r.kind, Kind::Group { .. }));
        Rows {
            all: text("match") != "any",
            rows,
            tree: groups || text("shape") == "tree",
        }
    }

    /// A stored rule's conditions as rows.
    pub fn of_spec(spec: &RuleSpec) -> Rows {
        let mut rows = Vec::new();
        push_group(&spec.conditions, 1, &mut rows);
        Rows {
            all: spec.conditions.all,
            rows,
            tree: !spec.flat,
        }
    }

    /// Applies a button's `edit` (`cond:N`, `group:N`, `remove:N`; N a group row or `root`);
    /// whether it named something to do.
    pub fn edit(&mut self, edit: &str) -> bool {
        let Some((what, at)) = edit.split_once(':') else {
            return false;
        };
        let group = if at == "root" {
            None
        } else {
            match at.parse::<usize>() {
                Ok(n) if n < self.rows.len() => Some(n),
                _ => return false,
            }
        };
        match (what, group) {
            ("remove", Some(n)) => {
                let end = self.end_of(n);
                self.rows.drain(n..end);
            }
            ("cond" | "group", g) if self.rows.len() < MAX_ROWS => {
                let (depth, end) = match g {
                    None => (1, self.rows.len()),
                    Some(n) => match self.rows[n].kind {
                        Kind::Group { .. } => (self.rows[n].depth + 1, self.end_of(n)),
                        Kind::Cond(_) => return false,
                    },
                };
                let row = if what == "cond" {
                    Row::empty(depth)
                } else if depth < MAX_DEPTH {
                    self.tree = true;
                    Row {
                        depth,
                        kind: Kind::Group { all: true },
                    }
                } else {
                    return false;
                };
                self.rows.insert(end, row);
                if what == "group" {
                    self.rows.insert(end + 1, Row::empty(depth + 1));
                }
            }
            _ => return false,
        }
        true
    }

    /// The row after row `n` and everything inside it (a group's rows).
    fn end_of(&self, n: usize) -> usize {
        let depth = self.rows[n].depth;
        match self.rows[n].kind {
            Kind::Cond(_) => n + 1,
            Kind::Group { .. } => (n + 1..self.rows.len())
                .find(|&i| self.rows[i].depth <= depth)
                .unwrap_or(self.rows.len()),
        }
    }

    /// The API's `conditions` (and `match` for a flat list), with the form row of each body
    /// path a refusal may name (`conditions[1]`, `conditions.all[0].any[2]`). Empty condition
    /// rows and groups left empty are not sent.
    pub fn to_body(&self) -> (Map<String, Value>, Vec<(String, usize)>) {
        let mut body = Map::new();
        let mut paths = Vec::new();
        let mut stack: Vec<Open> = vec![(self.all, 0, Vec::new())];
        let close = |stack: &mut Vec<Open>| {
            if let Some((all, row, items)) = stack.pop() {
                if let (false, Some(parent)) = (items.is_empty(), stack.last_mut()) {
                    parent.2.push((row, group_value(all, items)));
                }
            }
        };
        for (n, row) in self.rows.iter().enumerate() {
            while stack.len() > row.depth.max(1) {
                close(&mut stack);
            }
            match &row.kind {
                Kind::Group { all } if stack.len() < MAX_DEPTH => {
                    stack.push((*all, n, Vec::new()));
                }
                Kind::Group { .. } => {}
                Kind::Cond(_) => {
                    if let Some(c) = condition(row) {
                        if let Some(top) = stack.last_mut() {
                            top.2.push((n, c));
                        }
                    }
                }
            }
        }
        while stack.len() > 1 {
            close(&mut stack);
        }
        let items = stack.pop().map(|s| s.2).unwrap_or_default();
        if self.tree {
            let word = if self.all { "all" } else { "any" };
            let mut nodes = Vec::new();
            for (i, (row, v)) in items.into_iter().enumerate() {
                note_paths(&v, &format!("conditions.{word}[{i}]"), row, &mut paths);
                nodes.push(strip(v));
            }
            body.insert("conditions".into(), json!({ word: nodes }));
        } else {
            let mut list = Vec::new();
            for (i, (row, v)) in items.into_iter().enumerate() {
                paths.push((format!("conditions[{i}]"), row));
                list.push(strip(v));
            }
            body.insert("match".into(), json!(if self.all { "all" } else { "any" }));
            body.insert("conditions".into(), Value::Array(list));
        }
        (body, paths)
    }
}

/// A group being filled: its join, its form row, and its nodes with theirs.
type Open = (bool, usize, Vec<(usize, Value)>);

/// A group on its way to the body: its nodes keep their form rows (under `_row`) until the
/// paths are noted.
fn group_value(all: bool, items: Vec<(usize, Value)>) -> Value {
    let nodes: Vec<Value> = items
        .into_iter()
        .map(|(row, mut v)| {
            v["_row"] = json!(row);
            v
        })
        .collect();
    json!({ if all { "all" } else { "any" }: nodes })
}

/// Notes the form row of the node `v` at `at` and of everything inside it.
fn note_paths(v: &Value, at: &str, row: usize, paths: &mut Vec<(String, usize)>) {
    paths.push((at.to_string(), row));
    for word in ["all", "any"] {
        if let Some(nodes) = v.get(word).and_then(Value::as_array) {
            for (i, node) in nodes.iter().enumerate() {
                let inner = node["_row"].as_u64().map_or(row, |r| r as usize);
                note_paths(node, &format!("{at}.{word}[{i}]"), inner, paths);
            }
        }
    }
}

/// The node without the rows noted in it.
fn strip(v: Value) -> Value {
    match v {
        Value::Object(mut m) => {
            m.remove("_row");
            Value::Object(m.into_iter().map(|(k, v)| (k, strip(v))).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(strip).collect()),
        other => other,
    }
}

/// A condition row as the API's condition; `None` when it is left empty.
fn condition(row: &Row) -> Option<Value> {
    if COND_FIELDS
        .iter()
        .all(|f| row.field(f).is_empty() || *f == "op")
    {
        return None;
    }
    // A whole number as a JSON number; anything else as sent, for the API to name.
    let number = |s: &str| s.parse::<i64>().map_or(json!(s), Value::from);
    let mut c = Map::new();
    let mut put = |k: &str, v: Value| {
        if v != "" {
            c.insert(k.into(), v);
        }
    };
    put("metric", json!(row.field("metric")));
    put("op", json!(row.field("op")));
    put("window_hours", number(row.field("window")));
    put("currency", json!(row.field("currency")));
    let compared = ["cmp_metric", "cmp_window", "cmp_offset", "cmp_factor"]
        .iter()
        .any(|f| !row.field(f).is_empty());
    if row.field("value").is_empty() && compared {
        let mut cmp = Map::new();
        for (field, name) in [
            ("cmp_metric", "metric"),
            ("cmp_window", "window_hours"),
            ("cmp_offset", "offset_hours"),
            ("cmp_factor", "factor"),
        ] {
            let v = row.field(field);
            if !v.is_empty() {
                let v = if field == "cmp_metric" || field == "cmp_factor" {
                    json!(v)
                } else {
                    number(v)
                };
                cmp.insert(name.into(), v);
            }
        }
        c.insert("compare_to".into(), Value::Object(cmp));
    } else {
        put("value", json!(row.field("value")));
    }
    Some(Value::Object(c))
}

/// The rows of a stored group's nodes, at `depth`.
fn push_group(group: &Group, depth: usize, rows: &mut Vec<Row>) {
    for node in &group.nodes {
        match node {
            Node::Group(g) => {
                rows.push(Row {
                    depth,
                    kind: Kind::Group { all: g.all },
                });
                push_group(g, depth + 1, rows);
            }
            Node::Condition(c) => {
                let windowed = |m: Metric| m.windowed();
                let mut f: [String; 9] = Default::default();
                f[0] = c.metric.as_str().into();
                f[1] = c.op.as_str().into();
                if windowed(c.metric) {
                    f[3] = c.window_hours.to_string();
                }
                match &c.against {
                    Against::Value(Threshold::Number(d)) => f[2] = d.normalize().to_string(),
                    Against::Value(Threshold::Status(s)) => f[2] = s.as_str().into(),
                    Against::Compare(cmp) => {
                        f[4] = cmp.metric.as_str().into();
                        if windowed(cmp.metric) {
                            f[5] = cmp.window_hours.to_string();
                            f[6] = cmp.offset_hours.to_string();
                        }
                        f[7] = cmp.factor.normalize().to_string();
                    }
                }
                f[8] = c.currency.clone().unwrap_or_default();
                rows.push(Row {
                    depth,
                    kind: Kind::Cond(Box::new(f)),
                });
            }
        }
    }
}

/// The rows drawn: each indented by its level, a group with its join and buttons to add a
/// condition or a group inside it (up to three levels) or to remove it; `error_at` draws the
/// refusal that belongs to a row.
pub fn draw(lang: Lang, rows: &Rows, error_at: &dyn Fn(&str) -> Markup) -> Markup {
    let t = |key: &str| lang.t(key);
    html! {
        input type="hidden" name="shape" value=(if rows.tree { "tree" } else { "flat" });
        label { (t("rules-form-match"))
            select name="match" {
                option value="all" selected[rows.all] { (t("rules-form-match-all")) }
                option value="any" selected[!rows.all] { (t("rules-form-match-any")) }
            }
            small { (t("rules-form-match-help")) } }
        (error_at("match"))
        @for (n, row) in rows.rows.iter().enumerate() {
            div class={ "tree-row depth-" (row.depth) } data-depth=(row.depth) {
                input type="hidden" name={ "depth" (n) } value=(row.depth);
                @match &row.kind {
                    Kind::Group { all } => {
                        input type="hidden" name={ "kind" (n) } value="group";
                        div.filters {
                            label { (t("rules-form-group")) select name={ "join" (n) } {
                                option value="all" selected[*all] { (t("rules-form-match-all")) }
                                option value="any" selected[!*all] { (t("rules-form-match-any")) }
                            } }
                        }
                        div.tree-buttons {
                            button type="submit" name="edit" value={ "cond:" (n) } { (t("rules-form-add-condition")) }
                            @if row.depth + 1 < MAX_DEPTH {
                                button type="submit" name="edit" value={ "group:" (n) } { (t("rules-form-add-group")) }
                            }
                            button type="submit" name="edit" value={ "remove:" (n) } { (t("rules-form-remove-group")) }
                        }
                    }
                    Kind::Cond(_) => {
                        input type="hidden" name={ "kind" (n) } value="cond";
                        (condition_row(lang, n, row))
                    }
                }
                (error_at(&format!("row{n}")))
            }
        }
        div.tree-buttons {
            button type="submit" name="edit" value="cond:root" { (t("rules-form-add-condition")) }
            button type="submit" name="edit" value="group:root" { (t("rules-form-add-group")) }
        }
    }
}

fn condition_row(lang: Lang, n: usize, row: &Row) -> Markup {
    let t = |key: &str| lang.t(key);
    let f = |name: &str| row.field(name).to_string();
    let op = if f("op").is_empty() {
        ">".into()
    } else {
        f("op")
    };
    html! {
        div.filters {
            label { (t("rules-form-metric")) select name={ "metric" (n) } {
                option value="" { "–" }
                @for m in Metric::ALL { option value=(m.as_str()) selected[f("metric") == m.as_str()] { (metric_name(lang, m)) } }
            } }
            label { (t("rules-form-op")) select name={ "op" (n) } {
                @for o in Op::ALL { option value=(o.as_str()) selected[op == o.as_str()] { (o.as_str()) } }
            } }
            label { (t("rules-form-value")) input type="text" name={ "value" (n) } value=(f("value")); }
            label { (t("rules-form-window")) input type="text" inputmode="numeric" name={ "window" (n) } placeholder="24" value=(f("window")); }
        }
        details.compare open[!f("cmp_metric").is_empty() || !f("cmp_factor").is_empty()] {
            summary { (t("rules-form-compare")) }
            div.filters {
                label { (t("rules-form-compare-metric")) select name={ "cmp_metric" (n) } {
                    option value="" { (t("rules-form-compare-same")) }
                    @for m in Metric::ALL { option value=(m.as_str()) selected[f("cmp_metric") == m.as_str()] { (metric_name(lang, m)) } }
                } }
                label { (t("rules-form-compare-window")) input type="text" inputmode="numeric" name={ "cmp_window" (n) } value=(f("cmp_window")); }
                label { (t("rules-form-compare-offset")) input type="text" inputmode="numeric" name={ "cmp_offset" (n) } value=(f("cmp_offset")); }
                label { (t("rules-form-compare-factor")) input type="text" inputmode="decimal" name={ "cmp_factor" (n) } placeholder="1" value=(f("cmp_factor")); }
            }
            small.muted { (t("rules-form-compare-help")) }
        }
        @if !f("currency").is_empty() {
            input type="hidden" name={ "currency" (n) } value=(f("currency"));
        }
        div.tree-buttons {
            button type="submit" name="edit" value={ "remove:" (n) } { (t("rules-form-remove-condition")) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(depth: usize, metric: &str, value: &str) -> Row {
        let mut f: [String; 9] = Default::default();
        f[0] = metric.into();
        f[1] = ">".into();
        f[2] = value.into();
        Row {
            depth,
            kind: Kind::Cond(Box::new(f)),
        }
    }

    fn group(depth: usize, all: bool) -> Row {
        Row {
            depth,
            kind: Kind::Group { all },
        }
    }

    #[test]
    fn rows_nest_into_groups_by_their_depth_and_each_path_names_its_row() {
        let rows = Rows {
            all: true,
            rows: vec![
                cond(1, "spent", "5"),
                group(1, false),
                cond(2, "ctr", "1"),
                group(2, true),
                cond(3, "views", "10"),
                cond(1, "", ""),
                cond(1, "cpa", "2"),
            ],
            tree: true,
        };
        let (body, paths) = rows.to_body();
        assert_eq!(
            body["conditions"],
            json!({"all": [
                {"metric": "spent", "op": ">", "value": "5"},
                {"any": [
                    {"metric": "ctr", "op": ">", "value": "1"},
                    {"all": [{"metric": "views", "op": ">", "value": "10"}]}
                ]},
                {"metric": "cpa", "op": ">", "value": "2"}
            ]})
        );
        let row = |p: &str| paths.iter().find(|(at, _)| at == p).map(|(_, r)| *r);
        assert_eq!(row("conditions.all[1]"), Some(1));
        assert_eq!(row("conditions.all[1].any[1].all[0]"), Some(4));
        assert_eq!(row("conditions.all[2]"), Some(6));
    }

    #[test]
    fn buttons_add_and_remove_conditions_and_groups_up_to_three_levels() {
        let mut rows = Rows::new();
        assert!(rows.edit("group:root"));
        assert_eq!(rows.rows.len(), 5);
        assert_eq!(rows.rows[3], group(1, true));
        assert_eq!(rows.rows[4].depth, 2);
        assert!(rows.tree);
        assert!(rows.edit("group:3"));
        assert_eq!(rows.rows[5], group(2, true));
        assert!(!rows.edit("group:5"), "a fourth level is not offered");
        assert!(rows.edit("cond:5"));
        assert_eq!(rows.rows.len(), 8);
        assert!(rows.edit("remove:3"));
        assert_eq!(rows.rows.len(), 3, "the group goes with what it holds");
        assert!(!rows.edit("remove:9"));
        assert!(!rows.edit("nonsense"));
    }
}
