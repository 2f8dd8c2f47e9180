//! Owns what an upload is: the media type read from the file's first bytes (never its name),
//! its short name in a sentence, a file size as a sentence says it, and the boundary of a
//! `multipart/form-data` body. Which types a platform takes, and how large, are its
//! capabilities.

/// The media type of a file by its signature: JPG, PNG, GIF, WEBP or MP4.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0xFF, 0xD8, 0xFF, ..] => Some("image/jpeg"),
        [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, ..] => Some("image/png"),
        [b'G', b'I', b'F', b'8', b'7' | b'9', b'a', ..] => Some("image/gif"),
        [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => Some("image/webp"),
        [_, _, _, _, b'f', b't', b'y', b'p', ..] => Some("video/mp4"),
        _ => None,
    }
}

/// The short name of a media type in a sentence (`JPG` for `image/jpeg`); the type itself for
/// one [`sniff`] never tells.
pub fn label(media_type: &str) -> &str {
    match media_type {
        "image/jpeg" => "JPG",
        "image/png" => "PNG",
        "image/gif" => "GIF",
        "image/webp" => "WEBP",
        "video/mp4" => "MP4",
        other => other,
    }
}

/// A file size as a sentence says it: whole megabytes (of 1,048,576 bytes) when it is some,
/// else bytes.
pub fn size_words(bytes: usize) -> String {
    const MB: usize = 1024 * 1024;
    if bytes >= MB && bytes.is_multiple_of(MB) {
        format!("{} MB", bytes / MB)
    } else {
        format!("{bytes} bytes")
    }
}

/// The boundary of a `multipart/form-data` content type.
pub fn boundary(content_type: &str) -> Option<&str> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params
        .split(';')
        .filter_map(|p| p.trim().split_once('='))
        .find(|(k, _)| k.eq_ignore_ascii_case("boundary"))
        .map(|(_, v)| v.trim_matches('"'))
        .filter(|b| !b.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_each_accepted_type_and_nothing_else() {
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
        assert_eq!(sniff(b"GIF89a...."), Some("image/gif"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff(b"\0\0\0\x18ftypmp42"), Some("video/mp4"));
        assert_eq!(sniff(b"%PDF-1.7"), None);
        assert_eq!(sniff(b"<svg"), None);
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn names_each_sniffed_type_and_says_sizes() {
        for bytes in [
            &b"\xFF\xD8\xFF\xE0"[..],
            b"\x89PNG\r\n\x1a\n....",
            b"GIF89a....",
            b"RIFF\0\0\0\0WEBPVP8 ",
            b"\0\0\0\x18ftypmp42",
        ] {
            let media_type = sniff(bytes).unwrap();
            assert_ne!(
                label(media_type),
                media_type,
                "{media_type} has a short name"
            );
        }
        assert_eq!(label("image/jpeg"), "JPG");
        assert_eq!(size_words(5 * 1024 * 1024), "5 MB");
        assert_eq!(size_words(1000), "1000 bytes");
        assert_eq!(size_words(5 * 1024 * 1024 + 1), "5242881 bytes");
    }

    #[test]
    fn reads_the_boundary_of_a_multipart_content_type() {
        assert_eq!(boundary("multipart/form-data; boundary=XyZ"), Some("XyZ"));
        assert_eq!(
            boundary("Multipart/Form-Data; charset=utf-8; boundary=\"a b\""),
            Some("a b")
        );
        assert_eq!(boundary("multipart/form-data; boundary="), None);
        assert_eq!(boundary("application/json"), None);
    }
}
