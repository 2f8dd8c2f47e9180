//! Owns what an upload is: the media type read from the file's first bytes (never its name),
//! and the `file` field of a `multipart/form-data` body.

/// Largest accepted file.
pub const MAX_FILE: usize = 10 * 1024 * 1024;

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

/// The content of the part named `name` in a multipart body.
pub fn field<'a>(body: &'a [u8], boundary: &str, name: &str) -> Option<&'a [u8]> {
    let delimiter = format!("--{boundary}");
    let delimiter = delimiter.as_bytes();
    let mut rest = body;
    while let Some(start) = find(rest, delimiter) {
        rest = &rest[start + delimiter.len()..];
        if rest.starts_with(b"--") {
            return None;
        }
        let head_end = find(rest, b"\r\n\r\n")?;
        let head = String::from_utf8_lossy(&rest[..head_end]);
        let content = &rest[head_end + 4..];
        let end = find(content, delimiter)?;
        let content = content[..end]
            .strip_suffix(b"\r\n")
            .unwrap_or(&content[..end]);
        let named = head.lines().any(|line| {
            line.to_ascii_lowercase()
                .starts_with("content-disposition:")
                && line
                    .split(';')
                    .any(|p| p.trim() == format!("name=\"{name}\""))
        });
        if named {
            return Some(content);
        }
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
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
    fn reads_the_named_part_of_a_multipart_body() {
        let body = b"--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\nDATA\r\n--XyZ--\r\n";
        assert_eq!(boundary("multipart/form-data; boundary=XyZ"), Some("XyZ"));
        assert_eq!(boundary("application/json"), None);
        assert_eq!(
            field(body, "XyZ", "file"),
            Some(&b"\x89PNG\r\n\x1a\nDATA"[..])
        );
        assert_eq!(field(body, "XyZ", "note"), Some(&b"hello"[..]));
        assert_eq!(field(body, "XyZ", "other"), None);
    }
}
