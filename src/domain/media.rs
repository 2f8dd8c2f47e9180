//! Owns what an upload is: the media type read from the file's first bytes (never its name),
//! and the boundary of a `multipart/form-data` body. Which types a platform takes, and how
//! large, are its capabilities.

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
