//! Owns the reference page's markup: the document's introduction, its operations grouped by
//! tag (parameters, request body fields, responses, the curl example), its webhook events
//! (headers, the signature recipe, body fields, a signed curl example) and its schemas, with
//! the inline style and script whose hashes the answer's CSP names. The texts are the
//! document's own (English, as the API speaks), written out with a small subset of Markdown:
//! paragraphs, `- ` lists, `code` and **bold**.

use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde_json::Value;

use super::curl::{self, deref, Example, METHODS};

/// The page's style, inline (its hash is in the CSP).
pub const STYLE: &str = r#"
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2430;background:#fff}
a{color:#1456b8}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{background:#f1f3f6;padding:0 .25em;border-radius:3px}
pre{background:#0f1722;color:#e6edf3;padding:.8em 1em;border-radius:6px;overflow-x:auto;margin:.4em 0 1em}
pre code{background:none;padding:0;color:inherit}
.wrap{display:flex;max-width:1200px;margin:0 auto}
nav.toc{flex:0 0 250px;position:sticky;top:0;align-self:flex-start;max-height:100vh;overflow-y:auto;padding:1em;border-right:1px solid #e3e6eb;font-size:14px}
nav.toc ul{list-style:none;padding-left:.6em;margin:.2em 0 .8em}
nav.toc a{text-decoration:none}
main{flex:1;min-width:0;padding:1em 1.5em 4em}
h1{margin:.2em 0}
h2{margin-top:2em;border-bottom:2px solid #e3e6eb;padding-bottom:.2em}
article{border-top:1px solid #e3e6eb;padding-top:.6em;margin-top:1.4em}
h3{font-size:17px;margin:.3em 0;overflow-wrap:anywhere}
h4{margin:1em 0 .3em;font-size:14px;text-transform:uppercase;letter-spacing:.04em;color:#5a6472}
.verb{display:inline-block;min-width:4.2em;text-align:center;border-radius:4px;padding:0 .4em;margin-right:.4em;color:#fff;font-size:13px;background:#5a6472}
.verb.get,.verb.head{background:#1f7a4d}.verb.post{background:#1456b8}.verb.patch{background:#9a5b00}.verb.delete{background:#b3261e}
table{border-collapse:collapse;width:100%;font-size:14px;margin:.3em 0 .8em}
th,td{text-align:left;vertical-align:top;padding:.3em .5em;border-bottom:1px solid #eceef2;overflow-wrap:anywhere}
th{color:#5a6472;font-weight:600}
td p{margin:0 0 .3em}
.req{color:#b3261e;font-size:12px}
.copy{float:right;margin:.5em .5em 0 0;font-size:12px;position:relative;z-index:1}
@media (max-width:760px){.wrap{display:block}nav.toc{position:static;max-height:none;border-right:0;border-bottom:1px solid #e3e6eb}main{padding:1em}table,tbody,tr,td,th{display:block;width:auto}thead{display:none}td{border:0;padding:.1em 0}tr{border-bottom:1px solid #eceef2;padding:.3em 0}}
"#;

/// The page's only script: a Copy button on each example. Without it the page reads the same.
pub const SCRIPT: &str = r#"
document.querySelectorAll('pre.curl').forEach(function (pre) {
  if (!navigator.clipboard) return;
  var b = document.createElement('button');
  b.type = 'button'; b.className = 'copy'; b.textContent = 'Copy';
  b.addEventListener('click', function () {
    navigator.clipboard.writeText(pre.innerText).then(function () {
      b.textContent = 'Copied';
      setTimeout(function () { b.textContent = 'Copy'; }, 1500);
    });
  });
  pre.parentNode.insertBefore(b, pre);
});
"#;

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One line of text: `code` spans and **bold**, everything else escaped.
fn inline(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str(&format!("<code>{}</code>", escape(part)));
        } else {
            for (j, piece) in part.split("**").enumerate() {
                if j % 2 == 1 {
                    out.push_str(&format!("<strong>{}</strong>", escape(piece)));
                } else {
                    out.push_str(&escape(piece));
                }
            }
        }
    }
    out
}

/// A description: paragraphs (blank lines between) and `- ` lists.
fn text(source: &str) -> Markup {
    let mut out = String::new();
    for block in source.split("\n\n") {
        let mut list = false;
        let mut paragraph: Vec<&str> = Vec::new();
        let flush = |paragraph: &mut Vec<&str>, out: &mut String| {
            if !paragraph.is_empty() {
                out.push_str(&format!("<p>{}</p>", inline(&paragraph.join(" "))));
                paragraph.clear();
            }
        };
        for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
            match line.strip_prefix("- ") {
                Some(item) => {
                    flush(&mut paragraph, &mut out);
                    if !list {
                        out.push_str("<ul>");
                        list = true;
                    }
                    out.push_str(&format!("<li>{}</li>", inline(item)));
                }
                None => {
                    if list {
                        out.push_str("</ul>");
                        list = false;
                    }
                    paragraph.push(line);
                }
            }
        }
        flush(&mut paragraph, &mut out);
        if list {
            out.push_str("</ul>");
        }
    }
    PreEscaped(out)
}

fn description(value: &Value) -> Markup {
    text(value["description"].as_str().unwrap_or(""))
}

/// The name of the schema a `$ref` points to.
fn ref_name(schema: &Value) -> Option<&str> {
    schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
}

/// A schema's type in a few words, schema names linked to their section.
fn type_of(schema: &Value) -> Markup {
    if let Some(name) = ref_name(schema) {
        return html! { a href={ "#schema-" (name) } { (name) } };
    }
    if let Some(all) = schema["allOf"].as_array().filter(|a| a.len() == 1) {
        return type_of(&all[0]);
    }
    if let Some(fixed) = schema.get("const") {
        return html! { code { (fixed.to_string()) } };
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(list) = schema[key].as_array() {
            return html! {
                @for (i, s) in list.iter().enumerate() {
                    @if i > 0 { " or " }
                    (type_of(s))
                }
            };
        }
    }
    let kind = match &schema["type"] {
        Value::String(s) => s.clone(),
        Value::Array(list) => list
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => String::new(),
    };
    html! {
        @if kind == "array" {
            "array of " (type_of(&schema["items"]))
        } @else {
            (kind)
        }
        @if let Some(values) = schema["enum"].as_array() {
            " (one of " @for (i, v) in values.iter().enumerate() {
                @if i > 0 { ", " }
                code { (if let Value::String(s) = v { s.clone() } else { v.to_string() }) }
            } ")"
        }
    }
}

/// A schema's fields: its own, those of its `allOf` parts, else those of its first `oneOf`
/// shape; each with whether it is required.
fn fields<'a>(doc: &'a Value, schema: &'a Value, out: &mut Vec<(String, &'a Value, bool)>) {
    let schema = deref(doc, schema);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for part in schema["allOf"].as_array().into_iter().flatten() {
        fields(doc, part, out);
    }
    for (name, field) in schema["properties"].as_object().into_iter().flatten() {
        if field == &Value::Bool(false) {
            continue;
        }
        out.retain(|(n, _, _)| n != name);
        out.push((name.clone(), field, required.contains(&name.as_str())));
    }
    for (name, _, req) in out.iter_mut() {
        *req |= required.contains(&name.as_str());
    }
    if schema["properties"].is_null() && schema["allOf"].is_null() {
        if let Some(first) = schema["oneOf"].as_array().and_then(|l| l.first()) {
            fields(doc, first, out);
        }
    }
}

fn field_table(doc: &Value, schema: &Value) -> Markup {
    let mut list = Vec::new();
    fields(doc, schema, &mut list);
    html! {
        @if !list.is_empty() {
            table {
                thead { tr { th { "Field" } th { "Type" } th { "Description" } } }
                tbody {
                    @for (name, field, required) in &list {
                        tr {
                            td { code { (name) } @if *required { " " span.req { "required" } } }
                            td { (type_of(field)) }
                            td { (description(field)) }
                        }
                    }
                }
            }
        }
    }
}

fn parameter_table(params: &[&Value]) -> Markup {
    html! {
        @if !params.is_empty() {
            h4 { "Parameters" }
            table {
                thead { tr { th { "Name" } th { "In" } th { "Type" } th { "Description" } } }
                tbody {
                    @for p in params {
                        tr {
                            td { code { (p["name"].as_str().unwrap_or("")) } @if p["required"] == true { " " span.req { "required" } } }
                            td { (p["in"].as_str().unwrap_or("")) }
                            td { (type_of(&p["schema"])) }
                            td { (description(p)) }
                        }
                    }
                }
            }
        }
    }
}

fn example_block(example: Option<&Example>) -> Markup {
    html! {
        @if let Some(e) = example {
            h4 { "Example" }
            pre.curl { code { (e.curl) } }
        }
    }
}

fn operation(doc: &Value, path: &str, method: &str, example: Option<&Example>) -> Markup {
    let item = &doc["paths"][path];
    let op = &item[method];
    let params: Vec<&Value> = [&item["parameters"], &op["parameters"]]
        .into_iter()
        .flat_map(|l| l.as_array().into_iter().flatten())
        .map(|p| deref(doc, p))
        .collect();
    let body = deref(doc, &op["requestBody"]);
    html! {
        article id=(op["operationId"].as_str().unwrap_or("")) {
            h3 { span class={ "verb " (method) } { (method.to_ascii_uppercase()) } code { (path) } }
            p { strong { (op["summary"].as_str().unwrap_or("")) } }
            (description(op))
            (parameter_table(&params))
            @if let Some(content) = body["content"].as_object() {
                h4 { "Request body" @if body["required"] != true { " (optional)" } }
                @for (kind, media) in content {
                    p { code { (kind) } }
                    (description(deref(doc, &media["schema"])))
                    (field_table(doc, &media["schema"]))
                }
            }
            h4 { "Responses" }
            table {
                tbody {
                    @for (status, response) in op["responses"].as_object().into_iter().flatten() {
                        tr { td { code { (status) } } td { (description(deref(doc, response))) } }
                    }
                }
            }
            (example_block(example))
        }
    }
}

fn webhook(doc: &Value, event: &str, example: Option<&Example>) -> Markup {
    let op = &doc["webhooks"][event]["post"];
    let params: Vec<&Value> = op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| deref(doc, p))
        .collect();
    let schema = &op["requestBody"]["content"]["application/json"]["schema"];
    html! {
        article id=(op["operationId"].as_str().unwrap_or("")) {
            h3 { span.verb.post { "POST" } code { (event) } }
            p { strong { (op["summary"].as_str().unwrap_or("")) } }
            (description(op))
            (parameter_table(&params))
            h4 { "Body" }
            (field_table(doc, schema))
            (example_block(example))
        }
    }
}

fn schema_section(doc: &Value) -> Markup {
    html! {
        section id="schemas" {
            h2 { "Schemas" }
            @for (name, schema) in doc["components"]["schemas"].as_object().into_iter().flatten() {
                article id={ "schema-" (name) } {
                    h3 { code { (name) } }
                    (description(schema))
                    @if schema["properties"].is_null() && schema["allOf"].is_null() {
                        p { (type_of(schema)) }
                    }
                    (field_table(doc, schema))
                }
            }
        }
    }
}

/// One tag's operations: the tag's name, the tag object, and (path, method) of each.
struct Group<'a> {
    tag: &'a str,
    about: &'a Value,
    ops: Vec<(&'a str, &'static str)>,
}

/// The operations of the document grouped by their first tag, in the tags' order.
fn by_tag(doc: &Value) -> Vec<Group<'_>> {
    let mut groups: Vec<Group<'_>> = doc["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| Group {
            tag: t["name"].as_str().unwrap_or(""),
            about: t,
            ops: Vec::new(),
        })
        .collect();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for method in METHODS {
            if item.get(method).is_none() {
                continue;
            }
            let tag = item[method]["tags"][0].as_str().unwrap_or("other");
            match groups.iter_mut().find(|g| g.tag == tag) {
                Some(group) => group.ops.push((path.as_str(), method)),
                None => groups.push(Group {
                    tag,
                    about: &Value::Null,
                    ops: vec![(path.as_str(), method)],
                }),
            }
        }
    }
    groups.retain(|g| !g.ops.is_empty());
    groups
}

/// The whole page; the examples start from `origin`.
pub fn render(doc: &Value, origin: &str) -> String {
    let examples = curl::operations(doc);
    let hooks = curl::webhooks(doc);
    let find = |list: &'_ [Example], id: &str| list.iter().find(|e| e.id == id).cloned();
    let groups = by_tag(doc);
    let events: Vec<&String> = doc["webhooks"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(e, _)| e)
        .collect();
    let info = &doc["info"];
    let title = info["title"].as_str().unwrap_or("API");
    let setup = format!(
        "export ADCAB_URL={origin}\nexport ADCAB_KEY=...   # an API key from the panel (API & Webhooks)\n# for the webhook examples:\nexport WEBHOOK_URL=https://your-receiver.example/hook\nexport WEBHOOK_SECRET=...   # the key's webhook secret"
    );
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " reference" }
                style { (PreEscaped(STYLE)) }
            }
            body {
                div.wrap {
                    nav.toc aria-label="Contents" {
                        strong { a href="#top" { (title) } }
                        @for Group { tag, ops, .. } in &groups {
                            div { a href={ "#tag-" (tag) } { (tag) } }
                            ul {
                                @for (path, method) in ops {
                                    li { a href={ "#" (doc["paths"][*path][*method]["operationId"].as_str().unwrap_or("")) } {
                                        (method.to_ascii_uppercase()) " " (path.trim_start_matches("/api/v1"))
                                    } }
                                }
                            }
                        }
                        @if !events.is_empty() {
                            div { a href="#webhooks" { "webhooks" } }
                            ul {
                                @for event in &events {
                                    li { a href={ "#" (doc["webhooks"][*event]["post"]["operationId"].as_str().unwrap_or("")) } { (event) } }
                                }
                            }
                        }
                        div { a href="#schemas" { "schemas" } }
                    }
                    main id="top" {
                        h1 { (title) }
                        p { "Version " (info["version"].as_str().unwrap_or("")) ". "
                            (info["summary"].as_str().unwrap_or("")) " The machine-readable document: "
                            a href="/api/v1/openapi.json" { code { "/api/v1/openapi.json" } } "." }
                        (description(info))
                        h4 { "Before the examples" }
                        p { "Every example below reads these shell variables; " code { "uuidgen" } " makes a fresh " code { "Idempotency-Key" } " for each write (where it is missing, " code { "uuidgen() { cat /proc/sys/kernel/random/uuid; }" } " stands in on Linux). With a key that reaches several cabinets, add " code { "account_id" } " (query or body) to name one." }
                        pre { code { (setup) } }
                        @for Group { tag, about, ops } in &groups {
                            section id={ "tag-" (tag) } {
                                h2 { (tag) }
                                (description(about))
                                @for (path, method) in ops {
                                    @let id = doc["paths"][*path][*method]["operationId"].as_str().unwrap_or("");
                                    (operation(doc, path, method, find(&examples, id).as_ref()))
                                }
                            }
                        }
                        @if !events.is_empty() {
                            section id="webhooks" {
                                h2 { "webhooks" }
                                p { "The service sends these events to the webhook URL of each key that receives the cabinet's events. Each example posts the event's example body to " code { "$WEBHOOK_URL" } ", signed with " code { "$WEBHOOK_SECRET" } " exactly as the service signs it: point it at your receiver to test its check." }
                                @for event in &events {
                                    @let id = doc["webhooks"][*event]["post"]["operationId"].as_str().unwrap_or("");
                                    (webhook(doc, event, find(&hooks, id).as_ref()))
                                }
                            }
                        }
                        (schema_section(doc))
                    }
                }
                script { (PreEscaped(SCRIPT)) }
            }
        }
    }
    .into_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_escape_and_keep_code_bold_and_lists() {
        let out = text("Send `<b>` and **this**.\n\n- one `x`\n- two\nafter").into_string();
        assert_eq!(
            out,
            "<p>Send <code>&lt;b&gt;</code> and <strong>this</strong>.</p><ul><li>one <code>x</code></li><li>two</li></ul><p>after</p>"
        );
    }

    #[test]
    fn the_page_renders_every_operation_of_the_document() {
        let doc = super::super::document();
        let page = render(doc, "http://127.0.0.1:8080");
        for e in curl::operations(doc) {
            assert!(page.contains(&format!("id=\"{}\"", e.id)), "{}", e.id);
        }
    }
}
