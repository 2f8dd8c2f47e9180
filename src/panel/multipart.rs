//! Owns a form the panel receives as `multipart/form-data` (a file picked in a form that
//! works without the script): the whole body read up to a limit and a deadline, its text
//! fields as a [`Form`] (the CSRF token among them) and its files' bytes by field name.

use std::time::Duration;

use bytes::Bytes;
use hyper::body::Incoming;
use hyper::http::request::Parts;

use super::{Form, Visit, WebError};
use crate::domain::media::boundary;
use crate::domain::query::Query;
use crate::http::{self, BodyError};

/// Room for the boundaries, headers and text fields around the files.
const OVERHEAD: usize = 16 * 1024;

/// A multipart form as sent: text fields, and each file field's bytes.
pub struct Sent {
    pub form: Form,
    pub files: Vec<(String, Bytes)>,
}

impl Sent {
    /// The bytes of the file field `name`, when one was chosen.
    pub fn file(&self, name: &str) -> Option<&Bytes> {
        self.files
            .iter()
            .find(|(n, b)| n == name && !b.is_empty())
            .map(|(_, b)| b)
    }
}

/// Reads the request's multipart body, its files together at most `limit` bytes; a body
/// larger than that is `Ok(None)`, for the page to say so beside its field.
pub async fn read(
    visit: &Visit<'_>,
    parts: &Parts,
    body: Incoming,
    limit: usize,
) -> Result<Option<Sent>, WebError> {
    let content_type = parts
        .headers
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let Some(boundary) = boundary(content_type).map(str::to_string) else {
        return Err(WebError::BadRequest(visit.t("error-form-unreadable")));
    };
    let deadline = Duration::from_millis(visit.state.services.config.server.body_timeout_ms);
    let bytes = match http::read_body(body, limit + OVERHEAD, deadline).await {
        Ok(bytes) => bytes,
        Err(BodyError::TooLarge) => return Ok(None),
        Err(BodyError::Timeout) => return Err(WebError::BadRequest(visit.t("error-form-late"))),
        Err(BodyError::Unreadable(_)) => {
            return Err(WebError::BadRequest(visit.t("error-form-unreadable")))
        }
    };
    let unreadable = |_| WebError::BadRequest(visit.t("error-form-unreadable"));
    let mut parts = multer::Multipart::new(Once(Some(bytes)), boundary);
    let mut fields = Vec::new();
    let mut files = Vec::new();
    while let Some(field) = parts.next_field().await.map_err(unreadable)? {
        let name = field.name().unwrap_or("").to_string();
        let is_file = field.file_name().is_some();
        let data = field.bytes().await.map_err(unreadable)?;
        if is_file {
            files.push((name, data));
        } else {
            let text = std::str::from_utf8(&data)
                .map_err(|_| WebError::BadRequest(visit.t("error-form-not-utf8")))?;
            fields.push(format!(
                "{}={}",
                crate::primitives::form_encode(&name),
                crate::primitives::form_encode(text)
            ));
        }
    }
    let form = Query::parse(&fields.join("&"))
        .map_err(|_| WebError::BadRequest(visit.t("error-form-encoding")))?;
    Ok(Some(Sent { form, files }))
}

/// A body already read, as the one item of a stream.
struct Once(Option<Bytes>);

impl futures_core::Stream for Once {
    type Item = Result<Bytes, std::convert::Infallible>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        std::task::Poll::Ready(self.0.take().map(Ok))
    }
}
