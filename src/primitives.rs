//! Owns the small pieces every layer uses: hex, form encoding and decoding, SHA-256 digests, random tokens,
//! the wall clock in unix seconds (transport time for rate windows and webhook signatures; business
//! time is the service clock in `clock.rs`), and files and folders only their owner can read.

use std::fs::{self, File, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hex (either case) back to bytes; `None` unless every pair is a hex byte.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| {
            text.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect()
}

/// Decodes `application/x-www-form-urlencoded` text: `+` is a space, `%XX` a byte.
pub fn form_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// Percent-encodes a query string or form component: every byte but the unreserved
/// characters (`A-Z a-z 0-9 - . _ ~`) as `%XX`.
pub fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `n` random bytes as lowercase hex.
pub fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    getrandom::getrandom(&mut bytes).expect("the operating system provides randomness");
    hex(&bytes)
}

/// The SHA-256 digest of `text` in hex: the only form in which keys and tokens are stored.
pub fn sha256_hex(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}

/// Bytes as standard base64 with padding (RFC 4648), for `data:` URLs.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Real time in whole unix seconds.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Real time in fractional unix seconds, for token buckets.
pub fn unix_now_f64() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// The mode of every folder adcab creates: only its owner enters it.
const PRIVATE_DIR: u32 = 0o700;
/// The mode of every file adcab creates: only its owner reads and writes it.
const PRIVATE_FILE: u32 = 0o600;

/// Creates the folder `dir` and its missing parents, each only its owner can enter (0700)
/// whatever the umask. Folders already there are left as they are (the operator's choice).
pub fn private_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        private_dir(parent)?;
    }
    match fs::DirBuilder::new().mode(PRIVATE_DIR).create(dir) {
        Ok(()) => restrict(dir),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates the new file `path` (an error when it exists), readable and writable only by its
/// owner (0600) whatever the umask.
pub fn private_file(path: &Path) -> io::Result<File> {
    let file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(PRIVATE_FILE)
        .open(path)?;
    file.set_permissions(Permissions::from_mode(PRIVATE_FILE))?;
    Ok(file)
}

/// Makes an existing folder (0700) or file (0600) private to its owner.
pub fn restrict(path: &Path) -> io::Result<()> {
    let mode = if path.is_dir() {
        PRIVATE_DIR
    } else {
        PRIVATE_FILE
    };
    fs::set_permissions(path, Permissions::from_mode(mode))
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_pads_as_the_rfc_does() {
        assert_eq!(super::base64(b""), "");
        assert_eq!(super::base64(b"f"), "Zg==");
        assert_eq!(super::base64(b"fo"), "Zm8=");
        assert_eq!(super::base64(b"foo"), "Zm9v");
        assert_eq!(super::base64(b"foobar"), "Zm9vYmFy");
    }

    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn private_paths_ignore_a_permissive_umask_and_leave_existing_folders_alone() {
        let dir = tempfile::tempdir().unwrap();
        fs::set_permissions(dir.path(), Permissions::from_mode(0o755)).unwrap();
        let deep = dir.path().join("a/b");
        private_dir(&deep).unwrap();
        assert_eq!(mode(&dir.path().join("a")), 0o700, "a created parent");
        assert_eq!(mode(&deep), 0o700);
        assert_eq!(mode(dir.path()), 0o755, "a folder already there");
        private_dir(&deep).unwrap();
        let file = deep.join("f");
        private_file(&file).unwrap();
        assert_eq!(mode(&file), 0o600);
        let again = private_file(&file).unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::AlreadyExists);
        fs::set_permissions(&file, Permissions::from_mode(0o644)).unwrap();
        restrict(&file).unwrap();
        assert_eq!(mode(&file), 0o600);
    }

    #[test]
    fn sha256_matches_a_known_vector() {
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn hex_round_trips_and_refuses_what_is_not_hex() {
        let bytes = [0u8, 1, 0xab, 0xff];
        assert_eq!(hex(&bytes), "0001abff");
        assert_eq!(unhex("0001ABff").as_deref(), Some(&bytes[..]));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
        assert_eq!(unhex("é1"), None);
    }
}
