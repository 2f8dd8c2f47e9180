//! Owns the new-campaign form's media upload, `POST /campaigns/new/media?account_id=N`: the
//! page's script sends the chosen file as the request's body (its CSRF token in the
//! `x-csrf-token` header); the body is streamed to a temporary file in the media folder
//! (never held whole in memory), cut off past the largest file the platform takes and past
//! `server.body_timeout_ms`, typed by its bytes, and kept by the operation the API's media
//! upload uses (`ops::media::upload`: the platform's kinds and sizes, the platform call, the
//! token recorded for the cabinet). The answer is a fragment with the token for the form's
//! `media` field, or the refusal in the person's language. A failed upload leaves no file.

use std::path::PathBuf;
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use maud::html;
use tokio::io::AsyncWriteExt;

use super::super::super::session::Session;
use super::super::super::{Visit, WebError};
use super::super::panel_op;
use crate::db::{in_request, PARTIAL_UPLOAD};
use crate::domain::media::{label, size_words, sniff};
use crate::http::Reply;
use crate::ops::media::{upload as keep, MediaRefusal};
use crate::ops::OpsError;
use crate::primitives::{private_dir, private_file, random_hex};

/// Bytes kept from the start of the file to tell its type.
const SIGNATURE: usize = 16;

/// Why a file was not received.
enum NotReceived {
    TooLarge,
    Unreadable,
    Disk(String),
}

/// A received file being kept; removed when dropped unless kept.
struct Partial {
    path: PathBuf,
    kept: bool,
}

impl Drop for Partial {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// `POST /campaigns/new/media`: the file in the body, for cabinet `account_id`.
pub async fn upload<'a>(
    visit: &'a Visit<'a>,
    session: &'a Session,
    body: Incoming,
    _: &'a [&'a str],
) -> Result<Reply, WebError> {
    let account = visit
        .query
        .get("account_id")
        .and_then(|a| a.parse::<i64>().ok())
        .filter(|a| session.person.cabinet(*a).is_some())
        .ok_or(WebError::NotFound)?;
    let actor = session.person.actor(account)?;
    let caps = visit.state.services.platform.capabilities();
    let folder = visit.state.services.db.media_folder();
    let deadline = Duration::from_millis(visit.state.services.config.server.body_timeout_ms);
    let refused = |message: String| {
        let markup = html! { span.error role="alert" data-param="media" { (message) } };
        Ok(Reply::html(markup.into_string()).with_status(hyper::StatusCode::UNPROCESSABLE_ENTITY))
    };
    let limit = caps.largest_media();
    let received = match tokio::time::timeout(deadline, receive(body, folder, limit)).await {
        Err(_) | Ok(Err(NotReceived::Unreadable)) => {
            return refused(visit.t("new-media-unreadable"));
        }
        Ok(Err(NotReceived::TooLarge)) => {
            return refused(visit.ta(
                "new-media-too-large",
                &[("limit", size_words(limit).into())],
            ));
        }
        Ok(Err(NotReceived::Disk(detail))) => {
            return Err(WebError::Store(crate::store::StoreError::Failed(detail)))
        }
        Ok(Ok(received)) => received,
    };
    let (mut file, head, size) = received;
    let kinds = caps
        .media
        .iter()
        .map(|m| label(m.media_type))
        .collect::<Vec<_>>()
        .join(", ");
    let Some(media_type) = sniff(&head) else {
        return refused(visit.ta("new-media-kind", &[("kinds", kinds.into())]));
    };
    let path = file.path.clone();
    let kept = panel_op(visit, move |s| keep(s, &actor, &path, media_type, size)).await;
    match kept {
        Ok(token) => {
            file.kept = true;
            let markup = html! {
                span.media-token data-token=(token) data-media-type=(media_type) {
                    (visit.t("new-media-kept"))
                }
            };
            Ok(Reply::html(markup.into_string()))
        }
        Err(OpsError::Media(MediaRefusal::Unsupported { .. })) => {
            refused(visit.ta("new-media-kind", &[("kinds", kinds.into())]))
        }
        Err(OpsError::Media(MediaRefusal::TooLarge { limit, .. })) => refused(visit.ta(
            "new-media-too-large",
            &[("limit", size_words(limit).into())],
        )),
        Err(e) => Err(super::super::ops_error(e)),
    }
}

/// Streams `body` into a new private file in `folder`, at most `limit` bytes; the file, its
/// first bytes and its size.
async fn receive(
    body: Incoming,
    folder: PathBuf,
    limit: usize,
) -> Result<(Partial, Vec<u8>, usize), NotReceived> {
    let dir = folder.clone();
    in_request(move || private_dir(&dir))
        .await
        .map_err(|e| NotReceived::Disk(format!("media folder: {e}")))?;
    let file = Partial {
        path: folder.join(format!("{PARTIAL_UPLOAD}{}", random_hex(12))),
        kept: false,
    };
    let target = file.path.clone();
    let created = in_request(move || private_file(&target))
        .await
        .map_err(|e| NotReceived::Disk(format!("media file: {e}")))?;
    let mut out = tokio::io::BufWriter::new(tokio::fs::File::from_std(created));
    let mut body = body;
    let mut head = Vec::with_capacity(SIGNATURE);
    let mut size = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| NotReceived::Unreadable)?;
        let Ok(chunk) = frame.into_data() else {
            continue;
        };
        size += chunk.len();
        if size > limit {
            return Err(NotReceived::TooLarge);
        }
        let wanted = SIGNATURE.saturating_sub(head.len()).min(chunk.len());
        head.extend_from_slice(&chunk[..wanted]);
        out.write_all(&chunk)
            .await
            .map_err(|e| NotReceived::Disk(format!("media file: {e}")))?;
    }
    out.flush()
        .await
        .map_err(|e| NotReceived::Disk(format!("media file: {e}")))?;
    if size == 0 {
        return Err(NotReceived::Unreadable);
    }
    Ok((file, head, size))
}
