//! Request parameters: turning JSON, form, query and multipart bodies (§1) into one map, typed
//! getters that accept both JSON values and their text forms, and the canonical form used to
//! compare idempotent requests (§6).

use rust_decimal::Decimal;
use serde_json::{Map, Value};

use super::state::{err, parse_decimal};

/// An uploaded file part.
pub struct Upload {
    pub bytes: Vec<u8>,
}

/// The parameters of one call. Form, query and multipart values stay strings; the getters
/// read numbers, booleans, arrays and objects out of that text.
#[derive(Default)]
pub struct Params {
    pub map: Map<String, Value>,
}

impl Params {
    pub fn has(&self, name: &str) -> bool {
        self.map.get(name).is_some_and(|v| !v.is_null())
    }

    fn get(&self, name: &str) -> Option<&Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    /// A string (a number's text is taken as given).
    pub fn str(&self, name: &str, bad: &str) -> Result<Option<String>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.as_str().to_string())),
            Some(_) => err(bad),
        }
    }

    pub fn int(&self, name: &str, bad: &str) -> Result<Option<i64>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => int_value(v).map(Some).ok_or_else(|| bad.to_string()),
        }
    }

    pub fn bool(&self, name: &str, bad: &str) -> Result<Option<bool>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) if s == "true" || s == "1" => Ok(Some(true)),
            Some(Value::String(s)) if s == "false" || s == "0" || s.is_empty() => Ok(Some(false)),
            Some(_) => err(bad),
        }
    }

    /// A decimal from a JSON number's text or a numeric string.
    pub fn dec(&self, name: &str, bad: &str) -> Result<Option<Decimal>, String> {
        let text = match self.get(name) {
            None => return Ok(None),
            Some(Value::Number(n)) => n.as_str().to_string(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return err(bad),
        };
        parse_decimal(&text)
            .map(Some)
            .ok_or_else(|| bad.to_string())
    }

    /// A JSON value, parsing strings that hold JSON text (form and query values).
    pub fn json(&self, name: &str) -> Option<Value> {
        match self.get(name)? {
            Value::String(s) => Some(serde_json::from_str(s).unwrap_or(Value::String(s.clone()))),
            v => Some(v.clone()),
        }
    }

    pub fn array(&self, name: &str, bad: &str) -> Result<Option<Vec<Value>>, String> {
        match self.json(name) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(_) => err(bad),
        }
    }

    pub fn ints(&self, name: &str, bad: &str) -> Result<Option<Vec<i64>>, String> {
        let Some(items) = self.array(name, bad)? else {
            return Ok(None);
        };
        items
            .iter()
            .map(|v| int_value(v).ok_or_else(|| bad.to_string()))
            .collect::<Result<_, _>>()
            .map(Some)
    }
}

/// An integer from a JSON number (`100` or `100.0`) or its text.
pub fn int_value(v: &Value) -> Option<i64> {
    let text = match v {
        Value::Number(n) => n.as_str().to_string(),
        Value::String(s) => s.trim().to_string(),
        _ => return None,
    };
    if let Ok(i) = text.parse::<i64>() {
        return Some(i);
    }
    let d = parse_decimal(&text)?;
    if d.fract().is_zero() {
        d.trunc().to_string().parse().ok()
    } else {
        None
    }
}

/// Decodes `a=1&b=%5B1%2C2%5D` into string values.
pub fn parse_form(text: &str) -> Option<Map<String, Value>> {
    let mut map = Map::new();
    for pair in text.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        map.insert(percent_decode(k)?, Value::String(percent_decode(v)?));
    }
    Some(map)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// Parses a POST body by its content type; None means BAD_REQUEST.
pub async fn parse_body(
    content_type: &str,
    body: bytes::Bytes,
) -> Option<(Map<String, Value>, Option<Upload>)> {
    let ct = content_type.to_ascii_lowercase();
    if ct.starts_with("multipart/form-data") {
        return parse_multipart(content_type, body).await;
    }
    if ct.starts_with("application/x-www-form-urlencoded") {
        return parse_form(std::str::from_utf8(&body).ok()?).map(|m| (m, None));
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Some((Map::new(), None));
    }
    match serde_json::from_slice::<Value>(&body).ok()? {
        Value::Object(m) => Some((m, None)),
        _ => None,
    }
}

async fn parse_multipart(
    content_type: &str,
    body: bytes::Bytes,
) -> Option<(Map<String, Value>, Option<Upload>)> {
    use http_body_util::BodyExt;
    let boundary = multer::parse_boundary(content_type).ok()?;
    let stream = http_body_util::Full::new(body).into_data_stream();
    let mut parts = multer::Multipart::new(stream, boundary);
    let (mut map, mut file) = (Map::new(), None);
    while let Some(field) = parts.next_field().await.ok()? {
        let name = field.name().unwrap_or("").to_string();
        let is_file = field.file_name().is_some() || name == "file";
        let data = field.bytes().await.ok()?;
        if name == "file" && is_file {
            file = Some(Upload {
                bytes: data.to_vec(),
            });
        } else {
            map.insert(name, Value::String(String::from_utf8(data.to_vec()).ok()?));
        }
    }
    Some((map, file))
}

/// The comparable form of a request's parameters: nulls dropped, JSON text parsed, numbers by
/// value, keys sorted.
pub fn canonical(map: &Map<String, Value>) -> String {
    canon(&Value::Object(map.clone())).to_string()
}

fn canon(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let sorted: std::collections::BTreeMap<_, _> = m
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), canon(v)))
                .collect();
            Value::Object(sorted.into_iter().collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(canon).collect()),
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(p @ (Value::Array(_) | Value::Object(_) | Value::Number(_) | Value::Bool(_))) => {
                canon(&p)
            }
            _ => v.clone(),
        },
        Value::Number(n) => match parse_decimal(n.as_str()) {
            Some(d) => super::state::money(d),
            None => v.clone(),
        },
        _ => v.clone(),
    }
}
