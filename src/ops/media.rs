//! Owns keeping an uploaded file, for every face that takes one: the file (already received
//! into the media folder, its type told by its bytes) is checked against what the cabinet's
//! platform takes (its kinds, and the size of each), refused before the platform is asked when
//! it does not fit, else handed to the platform, moved to its new token's name and recorded for
//! the actor's cabinet, which alone may use the token. A failure leaves no kept file behind
//! (the received file is the face's to remove). Blocking.

use std::path::Path;

use super::{Actor, OpsError};
use crate::clock;
use crate::domain::capabilities::Capabilities;
use crate::domain::media::{label, size_words};
use crate::primitives::random_hex;
use crate::services::Services;
use crate::store::media;

/// Why an upload is refused before the platform is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaRefusal {
    /// The platform takes no files of `media_type`; `takes` names the types it does take
    /// (`JPG, PNG or MP4`).
    Unsupported {
        media_type: &'static str,
        takes: String,
    },
    /// The file is larger than the platform takes for `media_type`: `limit` bytes.
    TooLarge {
        media_type: &'static str,
        limit: usize,
    },
}

impl MediaRefusal {
    /// The sentence for a person: what the platform takes.
    pub fn sentence(&self) -> String {
        match self {
            MediaRefusal::Unsupported { media_type, takes } => format!(
                "this platform does not take {} files; upload a {takes} file",
                label(media_type)
            ),
            MediaRefusal::TooLarge { media_type, limit } => format!(
                "the file is larger than {}, the most this platform takes for a {} file",
                size_words(*limit),
                label(media_type)
            ),
        }
    }
}

/// Whether the platform of `caps` takes `size` bytes of `media_type`.
pub fn check(
    caps: &Capabilities,
    media_type: &'static str,
    size: usize,
) -> Result<(), MediaRefusal> {
    let kind = caps
        .media_kind(media_type)
        .ok_or_else(|| MediaRefusal::Unsupported {
            media_type,
            takes: caps.media_names(),
        })?;
    if size > kind.max_bytes {
        return Err(MediaRefusal::TooLarge {
            media_type,
            limit: kind.max_bytes,
        });
    }
    Ok(())
}

/// Keeps the received `file` (`size` bytes of `media_type`) for the actor's cabinet when its
/// platform takes it; returns its token.
pub fn upload(
    s: &Services,
    actor: &Actor,
    file: &Path,
    media_type: &'static str,
    size: usize,
) -> Result<String, OpsError> {
    let account = actor.cabinet().id;
    // The cabinet's platform decides; today every cabinet is on the service's one platform.
    check(s.platform.capabilities(), media_type, size).map_err(OpsError::Media)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::capabilities::tests::SMALL;

    #[test]
    fn a_kind_the_platform_does_not_take_is_unsupported() {
        let refused = check(&SMALL, "image/gif", 10).unwrap_err();
        assert_eq!(
            refused,
            MediaRefusal::Unsupported {
                media_type: "image/gif",
                takes: "PNG or MP4".into()
            }
        );
        assert_eq!(
            refused.sentence(),
            "this platform does not take GIF files; upload a PNG or MP4 file"
        );
    }

    #[test]
    fn each_kind_has_its_own_size() {
        assert_eq!(check(&SMALL, "image/png", 1000), Ok(()));
        assert_eq!(
            check(&SMALL, "image/png", 1001),
            Err(MediaRefusal::TooLarge {
                media_type: "image/png",
                limit: 1000
            })
        );
        assert_eq!(
            check(&SMALL, "video/mp4", 1001),
            Ok(()),
            "a video's own limit"
        );
        let big = MediaRefusal::TooLarge {
            media_type: "image/jpeg",
            limit: 5 * 1024 * 1024,
        };
        assert_eq!(
            big.sentence(),
            "the file is larger than 5 MB, the most this platform takes for a JPG file"
        );
    }
}
