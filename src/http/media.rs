//! Owns `POST /v1/media`: a `multipart/form-data` upload in the field `file`, typed by its
//! bytes, at most 10 MB; the file is handed to the platform, kept in the media folder beside
//! the database, and answered with a token that only its cabinet accepts.

use serde_json::json;

use super::response::Reply;
use super::{write, AppState, Ctx};
use crate::auth::random_hex;
use crate::clock;
use crate::domain::media::{boundary, field, sniff, MAX_FILE};
use crate::error::ApiError;
use crate::store::media;

pub async fn upload(state: &AppState, ctx: &Ctx) -> Result<Reply, ApiError> {
    let cabinet = write::cabinet(ctx, None)?.cabinet.clone();
    let unsupported = |why: &str| ApiError::UnsupportedMedia {
        why: why.to_string(),
    };
    let boundary = ctx
        .content_type
        .as_deref()
        .and_then(boundary)
        .ok_or_else(|| unsupported("the body is not multipart/form-data"))?;
    let file = field(&ctx.body, boundary, "file")
        .ok_or_else(|| unsupported("there is no field named file"))?;
    if file.len() > MAX_FILE {
        return Err(ApiError::FileTooLarge);
    }
    let media_type =
        sniff(file).ok_or_else(|| unsupported("the file's content is not one of these types"))?;
    let bytes = file.to_vec();
    let size = bytes.len() as i64;
    write::platform(state, cabinet.cabinet_type, move |p| {
        p.upload_media(cabinet.id, media_type, &bytes)
    })
    .await?;
    let token = format!("med_{}", random_hex(24));
    let folder = media_folder(state);
    let path = folder.join(&token);
    let content = file.to_vec();
    crate::db::blocking(move || {
        std::fs::create_dir_all(&folder)
            .map_err(|e| ApiError::internal(format!("media folder: {e}")))?;
        std::fs::write(&path, content).map_err(|e| ApiError::internal(format!("media file: {e}")))
    })
    .await?;
    let account = cabinet.id;
    let stored = token.clone();
    state
        .services
        .db
        .write(move |tx| {
            media::insert(
                tx,
                &stored,
                account,
                media_type,
                size,
                &clock::iso(clock::now(tx)?),
            )
        })
        .await?;
    Ok(Reply::ok(json!({ "media": token, "account_id": account })))
}

/// The folder beside the database where uploads are kept.
fn media_folder(state: &AppState) -> std::path::PathBuf {
    let db = state.services.db.path();
    db.parent()
        .unwrap_or(std::path::Path::new("."))
        .join("media")
}
