//! Owns `POST /v1/media`: a `multipart/form-data` upload in the field `file`, typed by its
//! bytes. The body is streamed to a temporary file in the media folder beside the database
//! (never held in memory), within `server.body_timeout_ms`, and cut off past the largest file
//! the platform takes of any kind; the operation (`ops::media`) checks its kind and size
//! against the cabinet's platform, hands it to the platform and keeps it under its token,
//! which is answered and which only its cabinet accepts. A failed upload leaves no file
//! behind. The folder and its files are private to their owner.

use std::path::{Path, PathBuf};
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use serde_json::json;
use tokio::io::AsyncWriteExt;

use super::error::ApiError;
use super::{write, AppState, Ctx};
use crate::db::{in_request, Db, PARTIAL_UPLOAD};
use crate::domain::capabilities::Capabilities;
use crate::domain::media::{boundary, sniff};
use crate::http::Reply;
use crate::ops;
use crate::primitives::{private_dir, private_file, random_hex};

/// What an upload gathers before each write to disk. `tokio::fs::File` copies every write
/// once more for its blocking thread, so a stalled upload holds about twice this.
const WRITE_BUFFER: usize = 64 * 1024;

/// Room for multipart headers, boundaries and small fields around a file of the largest size.
pub const MULTIPART_OVERHEAD: usize = 64 * 1024;
/// Bytes kept from the start of the file to tell its type.
const SIGNATURE: usize = 16;
/// The most of an upload held in memory at once on its way to disk: the parser gets body
/// data in pieces of at most this size, one piece at a time, and the file writes at most
/// this much per step. A stalled upload holds no more than a few of these.
const PIECE: usize = 64 * 1024;

pub async fn upload(state: &AppState, ctx: &Ctx) -> Result<Reply, ApiError> {
    let actor = write::actor(ctx, None)?;
    let caps = state.services.platform.capabilities();
    let boundary = ctx
        .content_type
        .as_deref()
        .and_then(boundary)
        .ok_or_else(|| unsupported(caps, "the body is not multipart/form-data"))?
        .to_string();
    let body = ctx
        .upload
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
        .ok_or_else(|| ApiError::internal("the upload body was already taken"))?;
    let folder = state.services.db.media_folder();
    let deadline = Duration::from_millis(state.services.config.server.body_timeout_ms);
    let received = tokio::time::timeout(deadline, receive(body, boundary, &folder, caps))
        .await
        .map_err(|_| ApiError::RequestTimeout)??;
    let (media_type, size) = (received.media_type, received.size);
    let (account, kind) = (actor.cabinet().id, actor.cabinet().cabinet_type);
    let file = received.file.path.clone();
    let token = write::run(state, kind, move |s| {
        ops::media::upload(s, &actor, &file, media_type, size)
    })
    .await?;
    received.file.keep();
    Reply::ok(json!({ "media": token, "account_id": account }))
}

/// Not an upload of a file of a type the platform of `caps` takes: `why`.
fn unsupported(caps: &Capabilities, why: &str) -> ApiError {
    ApiError::UnsupportedMedia {
        takes: caps.media_names(),
        why: why.to_string(),
    }
}

/// Past the largest file of any kind the platform of `caps` takes.
fn too_large(caps: &Capabilities) -> ApiError {
    ApiError::FileTooLarge {
        limit: caps.largest_media(),
        media_type: None,
    }
}

/// An upload written to disk: its temporary file, type and size.
struct Received {
    file: Partial,
    media_type: &'static str,
    size: usize,
}

/// A file being received; removed when dropped unless kept.
struct Partial {
    path: PathBuf,
    kept: bool,
}

impl Partial {
    fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Streams the `file` part of the body into a temporary file in `folder`; other parts are
/// skipped. The file may not exceed the largest the platform of `caps` takes of any kind, the
/// body that plus [`MULTIPART_OVERHEAD`]; its kind and its own size are the operation's to
/// check.
async fn receive(
    body: Incoming,
    boundary: String,
    folder: &Path,
    caps: &Capabilities,
) -> Result<Received, ApiError> {
    let max_file = caps.largest_media();
    let multipart_error = |e| multipart_error(e, caps);
    let limits = multer::SizeLimit::new()
        .whole_stream((max_file + MULTIPART_OVERHEAD) as u64)
        .per_field(max_file as u64);
    let mut parts = multer::Multipart::with_constraints(
        Pieces::new(body),
        boundary,
        multer::Constraints::new().size_limit(limits),
    );
    while let Some(mut field) = parts.next_field().await.map_err(multipart_error)? {
        if field.name() != Some("file") {
            continue;
        }
        let dir = folder.to_path_buf();
        in_request(move || private_dir(&dir))
            .await
            .map_err(|e| ApiError::internal(format!("media folder {}: {e}", folder.display())))?;
        let file = Partial {
            path: folder.join(format!("{PARTIAL_UPLOAD}{}", random_hex(12))),
            kept: false,
        };
        let disk_error = |e: std::io::Error| {
            ApiError::internal(format!("media file {}: {e}", file.path.display()))
        };
        let target = file.path.clone();
        let created = in_request(move || private_file(&target))
            .await
            .map_err(disk_error)?;
        let mut out =
            tokio::io::BufWriter::with_capacity(WRITE_BUFFER, tokio::fs::File::from_std(created));
        let mut head = Vec::with_capacity(SIGNATURE);
        let mut size = 0usize;
        while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
            size += chunk.len();
            if size > max_file {
                return Err(too_large(caps));
            }
            let wanted = SIGNATURE.saturating_sub(head.len()).min(chunk.len());
            head.extend_from_slice(&chunk[..wanted]);
            out.write_all(&chunk).await.map_err(disk_error)?;
        }
        out.flush().await.map_err(disk_error)?;
        let media_type = sniff(&head)
            .ok_or_else(|| unsupported(caps, "the file's content is not one of these types"))?;
        return Ok(Received {
            file,
            media_type,
            size,
        });
    }
    Err(unsupported(caps, "there is no field named file"))
}

/// The body's data in pieces of at most [`PIECE`] bytes, one piece per poll: the multipart
/// parser takes everything a stream has ready into one buffer, so a client sending in bursts
/// would otherwise make it hold (and keep, while the upload stalls) all of a burst.
struct Pieces {
    body: http_body_util::BodyDataStream<Incoming>,
    left: bytes::Bytes,
    /// A piece was handed out in this round of polling; the next poll yields to the parser.
    handed: bool,
}

impl Pieces {
    fn new(body: Incoming) -> Pieces {
        Pieces {
            body: body.into_data_stream(),
            left: bytes::Bytes::new(),
            handed: false,
        }
    }
}

impl futures_core::Stream for Pieces {
    type Item = Result<bytes::Bytes, hyper::Error>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        if std::mem::take(&mut self.handed) {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        if self.left.is_empty() {
            match futures_core::Stream::poll_next(std::pin::Pin::new(&mut self.body), cx) {
                Poll::Ready(Some(Ok(data))) => self.left = data,
                other => return other,
            }
        }
        let take = self.left.len().min(PIECE);
        let piece = self.left.split_to(take);
        self.handed = true;
        Poll::Ready(Some(Ok(piece)))
    }
}

/// A multipart failure as the client's error: too large, unreadable, or not multipart.
fn multipart_error(e: multer::Error, caps: &Capabilities) -> ApiError {
    match e {
        multer::Error::FieldSizeExceeded { .. } | multer::Error::StreamSizeExceeded { .. } => {
            too_large(caps)
        }
        multer::Error::StreamReadFailed(e) => ApiError::BadRequest {
            why: format!("the body could not be read ({e})"),
        },
        other => unsupported(
            caps,
            &format!("the body is not valid multipart/form-data ({other})"),
        ),
    }
}

/// Removes the temporary files of uploads a stopped process was still receiving.
pub fn remove_partial_uploads(db: &Db) {
    let Ok(entries) = std::fs::read_dir(db.media_folder()) else {
        return;
    };
    for entry in entries.flatten() {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with(PARTIAL_UPLOAD)
        {
            if let Err(e) = std::fs::remove_file(entry.path()) {
                tracing::warn!(file = %entry.path().display(), error = %e, "cannot remove a partial upload");
            }
        }
    }
}
