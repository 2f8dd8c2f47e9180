//! Owns the success and failure envelopes and the extra headers a reply carries.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use serde_json::{json, Value};

use super::error::ApiError;

pub struct Reply {
    pub status: StatusCode,
    pub body: Value,
    pub headers: Vec<(String, String)>,
}

impl Reply {
    /// `{ success: true, data }`.
    pub fn ok(data: Value) -> Reply {
        Reply {
            status: StatusCode::OK,
            body: json!({ "success": true, "data": data }),
            headers: Vec::new(),
        }
    }

    /// `{ success: true, data }` with another success status.
    pub fn ok_status(status: StatusCode, data: Value) -> Reply {
        Reply {
            status,
            body: json!({ "success": true, "data": data }),
            headers: Vec::new(),
        }
    }

    /// `{ success: true, data, meta }`.
    pub fn ok_meta(data: Value, meta: Value) -> Reply {
        Reply {
            status: StatusCode::OK,
            body: json!({ "success": true, "data": data, "meta": meta }),
            headers: Vec::new(),
        }
    }

    pub fn error(e: &ApiError, request_id: &str) -> Reply {
        let mut headers: Vec<(String, String)> = Vec::new();
        match e {
            ApiError::RateLimited { retry_after } => {
                headers.push(("retry-after".into(), retry_after.to_string()))
            }
            ApiError::QueueFull { .. }
            | ApiError::IdempotencyUnavailable
            | ApiError::PlatformUnavailable
            | ApiError::Busy => headers.push(("retry-after".into(), "2".into())),
            ApiError::MethodNotAllowed { allow } => headers.push(("allow".into(), allow.clone())),
            _ => {}
        }
        Reply {
            status: e.status(),
            body: e.body(request_id),
            headers,
        }
    }

    pub fn into_response(self) -> Response<Full<Bytes>> {
        let mut response = Response::new(Full::new(Bytes::from(self.body.to_string())));
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (name, value) in self.headers {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                headers.insert(name, value);
            }
        }
        response
    }
}
