//! Owns reading a rule sent as a template (`{"template": ID, "params": {...}}`, with optional
//! `name`, `scope`, `enabled`, `dry_run`) for every face: the library's template filled, then
//! read as any rule body is (`read`), a refusal of a filled field named `params.<name>`.

use serde_json::{Map, Value};

use crate::domain::money::CabinetType;
use crate::domain::rule::templates;
use crate::domain::rule::RuleSpec;
use crate::domain::{ParseError, Why};

/// Fields besides `template` and `params` a template's rule takes as sent.
const OVERRIDES: [&str; 4] = ["name", "scope", "enabled", "dry_run"];

/// Whether `fields` (a body without its cabinet) asks for a template.
pub fn asks(fields: &Value) -> bool {
    fields.get("template").is_some()
}

/// Reads a rule made from a template for a cabinet of `kind` out of `fields`.
pub fn read(fields: &Value, kind: CabinetType) -> Result<RuleSpec, ParseError> {
    let empty = Map::new();
    let sent = fields.as_object().unwrap_or(&empty);
    let ids: Vec<&str> = templates::TEMPLATES.iter().map(|t| t.id).collect();
    let template = sent
        .get("template")
        .and_then(Value::as_str)
        .and_then(templates::find)
        .ok_or_else(|| {
            ParseError::new(
                "template",
                format!("template must be {}.", crate::domain::either(&ids)),
            )
            .because(Why::NotOneOf {
                allowed: crate::domain::words(&ids),
            })
        })?;
    let params = match sent.get("params") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(p)) => p,
        Some(_) => {
            return Err(ParseError::new("params", "params must be an object.").because(Why::Kind))
        }
    };
    let mut filled = templates::fill(template, params, kind)?;
    for (key, value) in sent {
        match key.as_str() {
            "template" | "params" => {}
            k if OVERRIDES.contains(&k) => filled.body[k] = value.clone(),
            k => {
                return Err(ParseError::new(
                    k,
                    format!(
                        "A rule from a template takes template, params, {}; not {k}.",
                        OVERRIDES.join(", ")
                    ),
                )
                .because(Why::NotHere))
            }
        }
    }
    super::read(&filled.body, kind, None).map_err(|e| match filled.param_at(&e.param) {
        Some(name) => ParseError {
            param: format!("params.{name}"),
            message: format!("{name}: {}", e.message),
            why: e.why,
        },
        None => e,
    })
}
