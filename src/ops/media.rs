//! Owns keeping an uploaded file, for every face that takes one: the file (already received
//! into the media folder, its type told by its bytes) is handed to the platform, moved to its
//! new token's name and recorded for the actor's cabinet, which alone may use the token. A
//! failure leaves no kept file behind. Blocking.

use std::path::Path;

use super::{Actor, OpsError};
use crate::clock;
use crate::primitives::random_hex;
use crate::services::Services;
use crate::store::media;

/// Keeps the received `file` (`size` bytes of `media_type`) for the actor's cabinet; returns
/// its token.
pub fn upload(
    s: &Services,
    actor: &Actor,
    file: &Path,
    media_type: &'static str,
    size: usize,
) -> Result<String, OpsError> {
    let account = actor.cabinet().id;
    let platform_ref = s.platform.upload_media(account, media_type, file)?;
    let token = format!("med_{}", random_hex(24));
    let kept = s.db.media_folder().join(&token);
    std::fs::rename(file, &kept)
        .map_err(|e| OpsError::Internal(format!("media file {}: {e}", kept.display())))?;
    let recorded = s.db.write_blocking(|tx| {
        media::insert(
            tx,
            &media::NewMedia {
                token: &token,
                account_id: account,
                media_type,
                size: size as i64,
                platform_ref: platform_ref.as_deref(),
            },
            &clock::iso(clock::now(tx)?),
        )
    });
    if let Err(e) = recorded {
        let _ = std::fs::remove_file(&kept);
        return Err(e.into());
    }
    Ok(token)
}
