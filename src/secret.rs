//! Owns secrets at rest: platform tokens are sealed with ChaCha20-Poly1305 under a 256-bit key
//! read from `ADCAB_SECRET_KEY` (64 hex digits) or from the file `secret.key` beside the
//! database, created with mode 0600 the first time a secret is sealed. A copy of the database
//! alone reveals no token; a sealed value that was altered, or sealed under another key, does
//! not open.

use std::path::{Path, PathBuf};

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};

use crate::primitives::{hex, unhex};

/// The environment variable that holds the key, as 64 hex digits.
pub const KEY_ENV: &str = "ADCAB_SECRET_KEY";
/// What every sealed value starts with (the format's version).
const PREFIX: &str = "v1:";
/// Bound into every seal: a value sealed for another purpose does not open as a token.
const CONTEXT: &[u8] = b"adcab platform token";
const NONCE_LEN: usize = 12;

/// The key file's place: `secret.key` in the database's folder.
pub fn key_path(database: &Path) -> PathBuf {
    database
        .parent()
        .unwrap_or(Path::new("."))
        .join("secret.key")
}

pub struct Secrets {
    cipher: ChaCha20Poly1305,
}

impl Secrets {
    /// The key from the environment, else from `file`; `create` makes the file when missing.
    /// Errors are sentences for the operator.
    pub fn load(file: &Path, create: bool) -> Result<Secrets, String> {
        if let Ok(text) = std::env::var(KEY_ENV) {
            return Secrets::from_hex(text.trim())
                .ok_or_else(|| format!("{KEY_ENV} must be 64 hex digits"));
        }
        match std::fs::read_to_string(file) {
            Ok(text) => Secrets::from_hex(text.trim())
                .ok_or_else(|| format!("{} must hold 64 hex digits", file.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
                let mut key = [0u8; 32];
                getrandom::getrandom(&mut key)
                    .map_err(|e| format!("no randomness for a new secret key: {e}"))?;
                write_private(file, &hex(&key))?;
                Ok(Secrets::from_key(&key))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!(
                "no secret key: {} is missing and {KEY_ENV} is not set",
                file.display()
            )),
            Err(e) => Err(format!("cannot read {}: {e}", file.display())),
        }
    }

    fn from_hex(text: &str) -> Option<Secrets> {
        let bytes = unhex(text).filter(|b| b.len() == 32)?;
        Some(Secrets::from_key(&bytes))
    }

    fn from_key(key: &[u8]) -> Secrets {
        Secrets {
            cipher: ChaCha20Poly1305::new(Key::from_slice(key)),
        }
    }

    pub fn seal(&self, plain: &str) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::getrandom(&mut nonce).expect("the system gives random bytes");
        let sealed = self
            .cipher
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: plain.as_bytes(),
                    aad: CONTEXT,
                },
            )
            .expect("sealing a short value cannot fail");
        format!("{PREFIX}{}{}", hex(&nonce), hex(&sealed))
    }

    /// The plain value, or `None` when it was altered or sealed under another key.
    pub fn open(&self, sealed: &str) -> Option<String> {
        let bytes = unhex(sealed.strip_prefix(PREFIX)?)?;
        if bytes.len() < NONCE_LEN {
            return None;
        }
        let (nonce, body) = bytes.split_at(NONCE_LEN);
        let plain = self
            .cipher
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: body,
                    aad: CONTEXT,
                },
            )
            .ok()?;
        String::from_utf8(plain).ok()
    }
}

/// Writes a new file readable only by its owner.
fn write_private(file: &Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut f = crate::primitives::private_file(file)
        .map_err(|e| format!("cannot create {}: {e}", file.display()))?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_token_opens_only_unaltered_and_under_its_key() {
        let a = Secrets::from_key(&[7; 32]);
        let b = Secrets::from_key(&[8; 32]);
        let sealed = a.seal("tok_secret");
        assert!(!sealed.contains("tok_secret"));
        assert_ne!(sealed, a.seal("tok_secret"), "a fresh nonce each time");
        assert_eq!(a.open(&sealed).as_deref(), Some("tok_secret"));
        assert_eq!(b.open(&sealed), None);
        let mut altered = sealed.clone();
        let last = altered.pop().unwrap();
        altered.push(if last == '0' { '1' } else { '0' });
        assert_eq!(a.open(&altered), None);
        assert_eq!(a.open("tok_secret"), None);
    }

    #[test]
    fn the_key_file_is_created_private_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let file = key_path(&dir.path().join("adcab.db"));
        assert!(Secrets::load(&file, false).is_err(), "not created unasked");
        let first = Secrets::load(&file, true).unwrap();
        let sealed = first.seal("t");
        let again = Secrets::load(&file, false).unwrap();
        assert_eq!(again.open(&sealed).as_deref(), Some("t"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
