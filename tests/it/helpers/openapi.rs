//! Owns the check that an answer is one the OpenAPI document (`src/api/openapi.json`)
//! describes: the operation of the request's method and path (a path with ids is matched to
//! the router's own pattern), the response of its status (or `default`), that response's JSON
//! schema (2020-12, `$ref`s into the document's components), compiled once per operation and
//! status, and its headers: every header it marks `required` is there, every one it declares
//! holds a value of its schema, and the service's own headers (`X-Request-Id`, the rate-limit
//! headers, `Retry-After`, `Location`, `Allow`) are sent only where it declares them.
//! `Resp::from_ureq` runs it on every answer the tests get.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use adcab::api::router::{self, Endpoint};
use hyper::Method;
use jsonschema::Validator;
use serde_json::{json, Value};

/// The document, as the repository keeps it and the server serves it.
pub const TEXT: &str = include_str!("../../../src/api/openapi.json");

/// Methods an OpenAPI path item can hold, as the document spells them.
pub const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| serde_json::from_str(TEXT).expect("src/api/openapi.json is JSON"))
}

/// The document's path for a request path (without its query): the path itself when the
/// document lists it, else the pattern the router resolves it to with `method`.
pub fn template(method: &str, path: &str) -> Option<String> {
    let paths = document()["paths"].as_object()?;
    // The router takes a trailing `/` under the API prefix only.
    let literal = match path.strip_prefix(router::PREFIX) {
        Some(rest) => format!("{}{}", router::PREFIX, rest.trim_end_matches('/')),
        None => path.to_string(),
    };
    if paths.contains_key(&literal) {
        return Some(literal);
    }
    let method = Method::from_bytes(method.to_ascii_uppercase().as_bytes()).ok()?;
    match router::resolve(&method, path) {
        Ok(Endpoint::Api(route)) => Some(format!("{}{}", router::PREFIX, route.def.pattern)),
        Ok(Endpoint::Ingest(_)) => Some(format!("{}ingest/{{token}}", router::PREFIX)),
        _ => None,
    }
}

/// Follows a `$ref` (`#/components/...`) to what it names; anything else as it is.
pub fn deref(value: &Value) -> &Value {
    let mut value = value;
    for _ in 0..8 {
        match value["$ref"].as_str() {
            Some(pointer) => {
                value = pointer
                    .strip_prefix('#')
                    .and_then(|p| document().pointer(p))
                    .unwrap_or_else(|| panic!("openapi.json: {pointer} resolves to nothing"));
            }
            None => return value,
        }
    }
    panic!("openapi.json: a $ref chain longer than 8");
}

/// The validator of a schema of the document, its `$ref`s resolved in the document: the schema
/// is checked as the only subschema of a root that carries the document's components.
pub fn compile(schema: &Value) -> Result<Validator, String> {
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": document()["components"],
        "allOf": [schema],
    });
    jsonschema::draft202012::options()
        .build(&root)
        .map_err(|e| format!("the schema does not compile: {e}"))
}

/// `text` cut to at most `max` bytes (at a character boundary), marked when cut.
fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let end = (0..=max)
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    format!("{} ...", &text[..end])
}

/// Every validation error of `body`, one a line, each with where in the body it is.
fn problems(validator: &Validator, body: &Value) -> Option<String> {
    let errors: Vec<String> = validator
        .iter_errors(body)
        .take(12)
        .map(|e| format!("at '{}': {}", e.instance_path(), clip(&e.to_string(), 400)))
        .collect();
    (!errors.is_empty()).then(|| errors.join("\n"))
}

type Cache = Mutex<HashMap<String, Arc<Validator>>>;

/// The validator of the schema at `pointer` in the document, compiled the first time.
fn validator_at(pointer: &str) -> Result<Arc<Validator>, String> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    if let Some(v) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(pointer) {
        return Ok(v.clone());
    }
    let schema = document()
        .pointer(pointer)
        .ok_or_else(|| format!("openapi.json has nothing at {pointer}"))?;
    let compiled = Arc::new(compile(schema)?);
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(pointer.to_string(), compiled.clone());
    Ok(compiled)
}

/// Escapes one segment of a JSON pointer.
fn segment(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// The JSON pointer of the response that describes `status` of `method` on `template` (its
/// status, else `default`), the response's `$ref` followed; `Err` when the operation or the
/// status is not documented, or documented without a JSON body.
pub fn response_at(template: &str, method: &str, status: u16) -> Result<String, String> {
    let operation = &document()["paths"][template][method];
    if !operation.is_object() {
        return Err(format!(
            "{} {template} is not in the document",
            method.to_uppercase()
        ));
    }
    let responses = &operation["responses"];
    let (key, response) = [status.to_string(), "default".to_string()]
        .into_iter()
        .find_map(|k| responses.get(&k).map(|r| (k, r)))
        .ok_or_else(|| {
            format!(
                "{} {template} documents no {status} answer (and no default)",
                method.to_uppercase()
            )
        })?;
    let pointer = match response["$ref"].as_str() {
        Some(r) => r.trim_start_matches('#').to_string(),
        None => format!("/paths/{}/{method}/responses/{key}", segment(template)),
    };
    if !deref(response)["content"]["application/json"]["schema"].is_object() {
        return Err(format!(
            "{} {template} documents its {key} answer without a JSON body",
            method.to_uppercase()
        ));
    }
    Ok(pointer)
}

/// The pointer of the response (`response` the pointer of a response object) whose JSON schema
/// `body` meets, or every reason it does not.
fn meets(response: &str, status: u16, body: &Value) -> Result<String, String> {
    let pointer = format!("{response}/content/application~1json/schema");
    let validator = validator_at(&pointer)?;
    match problems(&validator, body) {
        None => Ok(response.to_string()),
        Some(p) => Err(format!("{status} (schema {pointer}):\n{p}")),
    }
}

/// The response of the document that describes an answer (see [`check`]): its JSON pointer.
fn matched(method: Option<&str>, path: &str, status: u16, body: &Value) -> Result<String, String> {
    let path = path.split('?').next().unwrap_or(path);
    let methods: Vec<String> = match method {
        Some(m) => vec![m.to_ascii_lowercase()],
        None => METHODS.iter().map(|m| m.to_string()).collect(),
    };
    let mut failures = Vec::new();
    for m in &methods {
        let Some(template) = template(m, path) else {
            continue;
        };
        if !document()["paths"][&template][m].is_object() {
            continue;
        }
        let outcome = response_at(&template, m, status).and_then(|response| {
            meets(&response, status, body)
                .map_err(|e| format!("{} {template} {e}", m.to_uppercase()))
        });
        match outcome {
            Ok(response) => return Ok(response),
            Err(e) => failures.push(e),
        }
    }
    if failures.is_empty() || method.is_none() {
        // No documented operation: the answer of an unknown route or method.
        let unrouted = match status {
            404 => Some("/components/responses/RouteNotFound"),
            405 => Some("/components/responses/MethodNotAllowed"),
            _ => None,
        };
        if let Some(response) = unrouted {
            match meets(response, status, body) {
                Ok(response) => return Ok(response),
                Err(e) => failures.push(e),
            }
        } else if failures.is_empty() {
            failures.push(format!(
                "no operation of the document answers {status} on this path"
            ));
        }
    }
    Err(failures.join("\n--\n"))
}

/// Checks an answer against the document: `method` (when known) and `path` of the request
/// (its query ignored), the answer's status and JSON body. An answer to a path or method the
/// document does not list must be its `ROUTE_NOT_FOUND` or `METHOD_NOT_ALLOWED` answer. When
/// the method is not known, the answer must be one that some operation of the path describes.
pub fn check(method: Option<&str>, path: &str, status: u16, body: &Value) -> Result<(), String> {
    matched(method, path, status, body).map(|_| ())
}

/// The headers the service sets on its answers itself: an answer carries one only where the
/// document declares it.
pub const SERVICE_HEADERS: [&str; 7] = [
    "x-request-id",
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "retry-after",
    "location",
    "allow",
];

/// A header's value as its schema reads it: a number where the schema is of numbers, else
/// the text.
fn header_value(schema: &Value, text: &str) -> Value {
    let numeric = ["integer", "number"].iter().any(|t| {
        schema["type"] == *t
            || schema["type"]
                .as_array()
                .is_some_and(|l| l.contains(&json!(t)))
    });
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(n @ Value::Number(_)) if numeric => n,
        _ => Value::String(text.to_string()),
    }
}

/// Checks an answer's headers (`headers`, names in lower case) against the response at
/// `response` (a JSON pointer to a response object): every header it marks `required` is
/// there, every one it declares and the answer carries holds a value of its schema, and of
/// [`SERVICE_HEADERS`] the answer carries only those it declares.
pub fn check_headers(response: &str, headers: &HashMap<String, String>) -> Result<(), String> {
    let object = document()
        .pointer(response)
        .map(deref)
        .ok_or_else(|| format!("openapi.json has nothing at {response}"))?;
    let empty = serde_json::Map::new();
    let declared = object["headers"].as_object().unwrap_or(&empty);
    let mut wrong = Vec::new();
    for (name, header) in declared {
        let pointer = match header["$ref"].as_str() {
            Some(r) => format!("{}/schema", r.trim_start_matches('#')),
            None => format!("{response}/headers/{}/schema", segment(name)),
        };
        let header = deref(header);
        match headers.get(&name.to_ascii_lowercase()) {
            None if header["required"] == true => wrong.push(format!(
                "{name} is required and the answer does not carry it"
            )),
            None => {}
            Some(text) => {
                let validator = validator_at(&pointer)?;
                if let Some(p) = problems(&validator, &header_value(&header["schema"], text)) {
                    wrong.push(format!(
                        "{name}: {text:?} is not of its schema ({pointer}): {p}"
                    ));
                }
            }
        }
    }
    for name in SERVICE_HEADERS {
        let known = declared.keys().any(|k| k.eq_ignore_ascii_case(name));
        if headers.contains_key(name) && !known {
            wrong.push(format!(
                "the answer carries {name}, which {response} does not declare"
            ));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("headers of {response}:\n{}", wrong.join("\n")))
    }
}

/// [`check`], then the answer's headers against the response that describes it
/// ([`check_headers`]).
pub fn check_answer(
    method: Option<&str>,
    path: &str,
    status: u16,
    headers: &HashMap<String, String>,
    body: &Value,
) -> Result<(), String> {
    let response = matched(method, path, status, body)?;
    check_headers(&response, headers)
}

/// [`check_answer`], panicking with the request, the answer and what is wrong with it.
#[track_caller]
pub fn assert_documented(
    method: Option<&str>,
    path: &str,
    status: u16,
    headers: &HashMap<String, String>,
    body: &Value,
) {
    if let Err(e) = check_answer(method, path, status, headers, body) {
        let shown = clip(&body.to_string(), 2000);
        panic!(
            "the answer is not the one src/api/openapi.json documents\n{} {path} -> {status}\nheaders: {headers:?}\nbody: {shown}\n{e}",
            method.unwrap_or("(method unknown)")
        );
    }
}
