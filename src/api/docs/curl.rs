//! Owns the curl examples of the reference, each built from the OpenAPI document alone: an
//! operation's method and path (its `{...}` segments as shell variables), the key header its
//! security asks for, an `Idempotency-Key` where the operation requires one, its required
//! query parameters from their examples, and its request body's example; a webhook event's
//! example body, signed as the receiver checks it, with every header the service sends.
//! Examples use `$ADCAB_URL` and `$ADCAB_KEY` (and `$WEBHOOK_URL`, `$WEBHOOK_SECRET`), which
//! the page asks the reader to set once.

use serde_json::Value;

/// The methods an operation of the document can have, in the order the page lists them.
pub const METHODS: [&str; 6] = ["get", "head", "post", "put", "patch", "delete"];

/// One example: the operation (or webhook event) it shows and the command.
#[derive(Debug, Clone)]
pub struct Example {
    /// The operation's `operationId`: the page's anchor for it.
    pub id: String,
    /// In capitals.
    pub method: String,
    /// The document's path (`/api/v1/campaigns/{ad}`), or the event's name for a webhook.
    pub path: String,
    /// The JSON body the example sends, as the document gives it.
    pub body: Option<Value>,
    /// Whether it sends an `Idempotency-Key`.
    pub idempotent: bool,
    pub curl: String,
}

/// Follows a local `$ref` (`#/components/...`) to what it names; anything else as it is.
pub fn deref<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    let mut value = value;
    for _ in 0..8 {
        match value["$ref"]
            .as_str()
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| doc.pointer(p))
        {
            Some(next) => value = next,
            None => return value,
        }
    }
    value
}

/// The shell variable a path's `{name}` segment becomes: `{ad}` `$AD_ID`, an `{id}` after
/// `tasks` `$TASK_ID`, `{token}` `$TRACKER_TOKEN`.
fn variable(previous: &str, name: &str) -> String {
    match name {
        "ad" => "AD_ID".into(),
        "token" => "TRACKER_TOKEN".into(),
        "id" => format!("{}_ID", previous.trim_end_matches('s').to_ascii_uppercase()),
        other => other.to_ascii_uppercase(),
    }
}

/// The path with its `{...}` segments as shell variables.
fn shell_path(path: &str) -> String {
    let mut previous = "";
    let mut out = Vec::new();
    for segment in path.split('/') {
        match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(name) => out.push(format!("${}", variable(previous, name))),
            None => out.push(segment.to_string()),
        }
        previous = segment;
    }
    out.join("/")
}

/// A value percent-encoded for a query string.
fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A JSON value as a query string value (text as it is, anything else as JSON).
fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A parameter's or a schema's example: `example`, else the first of `examples`.
pub fn example_of<'a>(doc: &'a Value, param: &'a Value) -> Option<&'a Value> {
    let schema = deref(doc, &param["schema"]);
    [
        param.get("example"),
        schema.get("example"),
        schema["examples"].get(0),
    ]
    .into_iter()
    .flatten()
    .next()
}

/// Text quoted for a POSIX shell in single quotes.
fn single_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The parameters of an operation, with its path item's.
fn parameters<'a>(doc: &'a Value, item: &'a Value, operation: &'a Value) -> Vec<&'a Value> {
    let listed = |v: &'a Value| v.as_array().into_iter().flatten().map(|p| deref(doc, p));
    listed(&item["parameters"])
        .chain(listed(&operation["parameters"]))
        .collect()
}

/// The header lines the operation's security asks for (an API key in a header).
fn key_headers(doc: &Value, operation: &Value) -> Vec<String> {
    let security = operation.get("security").unwrap_or(&doc["security"]);
    let Some(first) = security.as_array().and_then(|s| s.first()) else {
        return Vec::new();
    };
    first
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(scheme, _)| {
            let scheme = &doc["components"]["securitySchemes"][scheme];
            (scheme["type"] == "apiKey" && scheme["in"] == "header")
                .then(|| format!("{}: $ADCAB_KEY", scheme["name"].as_str().unwrap_or("")))
        })
        .collect()
}

/// The example of one operation.
pub fn operation(doc: &Value, path: &str, method: &str) -> Option<Example> {
    let item = &doc["paths"][path];
    let op = item.get(method)?;
    let params = parameters(doc, item, op);
    let mut headers = key_headers(doc, op);
    let mut idempotent = false;
    let mut query = Vec::new();
    for p in params.iter().filter(|p| p["required"] == true) {
        let name = p["name"].as_str().unwrap_or("");
        match p["in"].as_str() {
            Some("header") if name.eq_ignore_ascii_case("Idempotency-Key") => {
                idempotent = true;
                headers.push(format!("{name}: $(uuidgen)"));
            }
            Some("header") => {
                if let Some(v) = example_of(doc, p) {
                    headers.push(format!("{name}: {}", plain(v)));
                }
            }
            Some("query") => match example_of(doc, p) {
                Some(Value::Object(fields)) if p["explode"] != false => {
                    for (k, v) in fields {
                        query.push(format!("{}={}", encode(k), encode(&plain(v))));
                    }
                }
                Some(v) => query.push(format!("{}={}", encode(name), encode(&plain(v)))),
                None => query.push(format!("{}=", encode(name))),
            },
            _ => {}
        }
    }
    let content = &deref(doc, &op["requestBody"])["content"];
    let body = content["application/json"]["example"].clone();
    let body = (!body.is_null()).then_some(body);
    let mut url = format!("$ADCAB_URL{}", shell_path(path));
    if !query.is_empty() {
        url = format!("{url}?{}", query.join("&"));
    }
    let verb = method.to_ascii_uppercase();
    let mut lines = vec![match method {
        "get" => format!("curl -s \"{url}\""),
        "head" => format!("curl -sI \"{url}\""),
        _ => format!("curl -s -X {verb} \"{url}\""),
    }];
    lines.extend(headers.iter().map(|h| format!("  -H \"{h}\"")));
    if let Some(body) = &body {
        let text = serde_json::to_string_pretty(body).unwrap_or_default();
        lines.push("  -H \"Content-Type: application/json\"".into());
        lines.push(format!("  -d {}", single_quoted(&text)));
    }
    let multipart = deref(doc, &content["multipart/form-data"]["schema"]);
    for field in multipart["required"].as_array().into_iter().flatten() {
        let name = field.as_str().unwrap_or("");
        lines.push(format!("  -F \"{name}=@banner.png\""));
    }
    Some(Example {
        id: op["operationId"].as_str().unwrap_or("").to_string(),
        method: verb,
        path: path.to_string(),
        body,
        idempotent,
        curl: lines.join(" \\\n"),
    })
}

/// The examples of every operation, in the document's order.
pub fn operations(doc: &Value) -> Vec<Example> {
    let mut out = Vec::new();
    for path in doc["paths"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(p, _)| p)
    {
        for method in METHODS {
            out.extend(operation(doc, path, method));
        }
    }
    out
}

/// The value a webhook header carries in the example: the event's name, a fresh delivery
/// id, the timestamp and signature the script computes, else the document's example.
fn webhook_header(doc: &Value, param: &Value) -> String {
    let name = param["name"].as_str().unwrap_or("");
    let schema = deref(doc, &param["schema"]);
    if let Some(fixed) = schema.get("const") {
        return plain(fixed);
    }
    match name {
        "X-Service-Delivery" => "$(uuidgen)".into(),
        "X-Service-Timestamp" => "$ts".into(),
        "X-Service-Signature" => "sha256=$sig".into(),
        "User-Agent" => "Service-Webhook/1.0 (https://adcab.example)".into(),
        _ => example_of(doc, param).map(plain).unwrap_or_default(),
    }
}

/// The example of one webhook event: the body as the service sends it, signed with
/// `$WEBHOOK_SECRET` as the receiver checks it, posted to `$WEBHOOK_URL`. Run against a
/// receiver, it shows what a delivery looks like and whether the check accepts it.
pub fn webhook(doc: &Value, event: &str) -> Option<Example> {
    let op = doc["webhooks"][event].get("post")?;
    let body = op["requestBody"]["content"]["application/json"]["example"].clone();
    let text = body.to_string();
    let mut lines = vec![
        format!("body={}", single_quoted(&text)),
        "ts=$(date +%s)".to_string(),
        "sig=$(printf '%s.%s' \"$ts\" \"$body\" | openssl dgst -sha256 -hmac \"$WEBHOOK_SECRET\" | sed 's/^.* //')".to_string(),
    ];
    let mut curl = vec!["curl -s -X POST \"$WEBHOOK_URL\"".to_string()];
    curl.push("  -H \"Content-Type: application/json\"".into());
    for p in parameters(doc, &Value::Null, op) {
        if p["in"] == "header" {
            let name = p["name"].as_str().unwrap_or("");
            curl.push(format!("  -H \"{name}: {}\"", webhook_header(doc, p)));
        }
    }
    curl.push("  --data-binary \"$body\"".into());
    lines.push(curl.join(" \\\n"));
    Some(Example {
        id: op["operationId"].as_str().unwrap_or("").to_string(),
        method: "POST".into(),
        path: event.to_string(),
        body: Some(body),
        idempotent: false,
        curl: lines.join("\n"),
    })
}

/// The examples of every webhook event, in the document's order.
pub fn webhooks(doc: &Value) -> Vec<Example> {
    doc["webhooks"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(event, _)| webhook(doc, event))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn path_segments_become_shell_variables() {
        assert_eq!(
            shell_path("/api/v1/campaigns/{ad}/budget"),
            "/api/v1/campaigns/$AD_ID/budget"
        );
        assert_eq!(shell_path("/api/v1/tasks/{id}"), "/api/v1/tasks/$TASK_ID");
        assert_eq!(
            shell_path("/api/v1/rules/{id}/log"),
            "/api/v1/rules/$RULE_ID/log"
        );
        assert_eq!(
            shell_path("/api/v1/ingest/{token}"),
            "/api/v1/ingest/$TRACKER_TOKEN"
        );
    }

    #[test]
    fn single_quotes_survive_the_shell() {
        assert_eq!(single_quoted("it's"), r"'it'\''s'");
        assert_eq!(encode("a b&c=é"), "a%20b%26c%3D%C3%A9");
    }

    #[test]
    fn a_write_example_carries_key_idempotency_and_body() {
        let doc = json!({
            "security": [{"ApiKey": []}],
            "components": {
                "securitySchemes": {"ApiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}},
                "parameters": {"Idem": {"name": "Idempotency-Key", "in": "header", "required": true}}
            },
            "paths": {"/api/v1/things/{ad}": {"post": {
                "operationId": "makeThing",
                "parameters": [{"$ref": "#/components/parameters/Idem"},
                    {"name": "q", "in": "query", "required": true, "schema": {"examples": ["a b"]}}],
                "requestBody": {"content": {"application/json": {"example": {"n": 1}}}}
            }}}
        });
        let e = operation(&doc, "/api/v1/things/{ad}", "post").unwrap();
        assert_eq!(e.id, "makeThing");
        assert!(e.idempotent);
        assert_eq!(
            e.curl,
            "curl -s -X POST \"$ADCAB_URL/api/v1/things/$AD_ID?q=a%20b\" \\\n  -H \"X-API-Key: $ADCAB_KEY\" \\\n  -H \"Idempotency-Key: $(uuidgen)\" \\\n  -H \"Content-Type: application/json\" \\\n  -d '{\n  \"n\": 1\n}'"
        );
    }
}
