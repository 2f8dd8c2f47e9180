//! Owns one answer as both faces give it: a status, an encoded body (the API's success
//! envelope, a JSON body of its own, a page, a file) and the extra headers it carries.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use serde::Serialize;
use serde_json::Value;

/// The buffer an answer's encoding starts with (as `serde_json::to_vec`'s).
const SMALL: usize = 128;

/// An answer that could not be encoded; the text is for the log.
#[derive(Debug)]
pub struct EncodeError(pub String);

/// The envelope `{"success":true,"data":…,"meta":…}` (without `meta` when there is none),
/// encoded into a buffer of `capacity` bytes to start with (a big answer sized up front is not
/// copied over as its buffer grows), its `data` written by `write`.
fn enveloped(
    meta: Option<&Value>,
    capacity: usize,
    write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
) -> Result<Bytes, EncodeError> {
    let mut body = Vec::with_capacity(capacity);
    body.extend_from_slice(br#"{"success":true,"data":"#);
    write(&mut body).map_err(unencoded)?;
    if let Some(meta) = meta {
        body.extend_from_slice(br#","meta":"#);
        serde_json::to_writer(&mut body, meta).map_err(unencoded)?;
    }
    body.push(b'}');
    Ok(Bytes::from(body))
}

/// The envelope around `data` serialized straight from the handler's data (a list page of
/// hundreds of typed objects never becomes a tree of `Value`s).
fn success<D: Serialize>(
    data: D,
    meta: Option<Value>,
    capacity: usize,
) -> Result<Bytes, EncodeError> {
    enveloped(meta.as_ref(), capacity, |body| {
        serde_json::to_writer(body, &data)
    })
}

/// The error of an answer serde_json could not encode.
fn unencoded(e: serde_json::Error) -> EncodeError {
    EncodeError(format!("the answer could not be encoded: {e}"))
}

pub struct Reply {
    pub status: StatusCode,
    /// The encoded envelope.
    pub body: Bytes,
    pub headers: Vec<(String, String)>,
}

impl Reply {
    /// `{ success: true, data }`.
    pub fn ok<E: From<EncodeError>>(data: impl Serialize) -> Result<Reply, E> {
        Reply::ok_status(StatusCode::OK, data)
    }

    /// `{ success: true, data }` with another success status.
    pub fn ok_status<E: From<EncodeError>>(
        status: StatusCode,
        data: impl Serialize,
    ) -> Result<Reply, E> {
        Ok(Reply {
            status,
            body: success(data, None, SMALL)?,
            headers: Vec::new(),
        })
    }

    /// `{ success: true, data, meta }`.
    pub fn ok_meta<E: From<EncodeError>>(data: impl Serialize, meta: Value) -> Result<Reply, E> {
        Reply::ok_page(data, meta, SMALL)
    }

    /// `{ success: true, data, meta }` for a page expected to take about `size` bytes (a list
    /// of hundreds of objects, encoded without regrowing its buffer).
    pub fn ok_page<E: From<EncodeError>>(
        data: impl Serialize,
        meta: Value,
        size: usize,
    ) -> Result<Reply, E> {
        Ok(Reply {
            status: StatusCode::OK,
            body: success(data, Some(meta), size)?,
            headers: Vec::new(),
        })
    }

    /// [`Reply::ok_page`] with `data` written by `write` straight into the body (a list page
    /// of objects written by hand), in the same envelope.
    pub fn ok_written_page<E: From<EncodeError>>(
        meta: Value,
        size: usize,
        write: impl FnOnce(&mut Vec<u8>),
    ) -> Result<Reply, E> {
        let body = enveloped(Some(&meta), size, |body| {
            write(body);
            Ok(())
        })?;
        Ok(Reply {
            status: StatusCode::OK,
            body,
            headers: Vec::new(),
        })
    }

    /// A JSON body of its own, outside the envelope (the health probes).
    pub fn plain<E: From<EncodeError>>(
        status: StatusCode,
        body: &impl Serialize,
    ) -> Result<Reply, E> {
        let body = serde_json::to_vec(body).map_err(unencoded)?;
        Ok(Reply {
            status,
            body: Bytes::from(body),
            headers: Vec::new(),
        })
    }

    /// A body as it is, `200`, with its own content type (the metrics, the OpenAPI document).
    pub fn raw(body: impl Into<Bytes>, content_type: &str) -> Reply {
        Reply {
            status: StatusCode::OK,
            body: body.into(),
            headers: vec![("content-type".into(), content_type.into())],
        }
    }

    /// An HTML page (the web panel), `200`, never stored by caches, framed by no other site.
    pub fn html(page: String) -> Reply {
        Reply {
            status: StatusCode::OK,
            body: Bytes::from(page),
            headers: vec![
                ("content-type".into(), "text/html; charset=utf-8".into()),
                ("cache-control".into(), "no-store".into()),
                (
                    "content-security-policy".into(),
                    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'".into(),
                ),
                ("x-content-type-options".into(), "nosniff".into()),
                ("referrer-policy".into(), "same-origin".into()),
            ],
        }
    }

    /// The same reply with another status.
    pub fn with_status(mut self, status: StatusCode) -> Reply {
        self.status = status;
        self
    }

    pub fn into_response(self) -> Response<Full<Bytes>> {
        let mut response = Response::new(Full::new(self.body));
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (name, value) in self.headers {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                // A reply may set several cookies; every other header it names once.
                if name == hyper::header::SET_COOKIE {
                    headers.append(name, value);
                } else {
                    headers.insert(name, value);
                }
            }
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_written_page_is_enveloped_as_a_serialized_one() {
        let meta = json!({"limit": 2, "hasMore": true, "cursor": null});
        let written = Reply::ok_written_page::<EncodeError>(meta.clone(), 0, |out| {
            out.extend_from_slice(br#"[{"a":1},"b"]"#)
        })
        .unwrap();
        let serialized = Reply::ok_page::<EncodeError>(json!([{"a": 1}, "b"]), meta, 0).unwrap();
        assert_eq!(written.body, serialized.body);
        assert_eq!(written.status, StatusCode::OK);
        assert_eq!(
            &written.body[..],
            br#"{"success":true,"data":[{"a":1},"b"],"meta":{"cursor":null,"hasMore":true,"limit":2}}"#
        );
    }

    #[test]
    fn an_answer_without_meta_has_none_in_its_envelope() {
        let reply = Reply::ok::<EncodeError>(json!({"id": 1})).unwrap();
        assert_eq!(&reply.body[..], br#"{"success":true,"data":{"id":1}}"#);
    }
}
