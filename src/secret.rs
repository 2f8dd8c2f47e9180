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

/// Why the key did not load; `Display` is the sentence for the operator, naming the file.
#[derive(Debug)]
pub enum SecretError {
    /// `ADCAB_SECRET_KEY` is set but is not 64 hex digits.
    BadEnvKey,
    /// The key file does not hold 64 hex digits.
    BadKeyFile(PathBuf),
    /// The key file is missing and may not be created here; `ADCAB_SECRET_KEY` is not set.
    Missing(PathBuf),
    /// The key file could not be read.
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The system gave no randomness for a new key.
    NoRandomness(getrandom::Error),
    /// The new key file could not be created.
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The new key could not be written to its file.
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl std::fmt::Display for SecretError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SecretError::BadEnvKey => write!(f, "{KEY_ENV} must be 64 hex digits"),
            SecretError::BadKeyFile(path) => {
                write!(f, "{} must hold 64 hex digits", path.display())
            }
            SecretError::Missing(path) => write!(
                f,
                "no secret key: {} is missing and {KEY_ENV} is not set",
                path.display()
            ),
            SecretError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            SecretError::NoRandomness(e) => write!(f, "no randomness for a new secret key: {e}"),
            SecretError::Create { path, source } => {
                write!(f, "cannot create {}: {source}", path.display())
            }
            SecretError::Write { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for SecretError {}

pub struct Secrets {
    cipher: ChaCha20Poly1305,
}

impl Secrets {
    /// The key from the environment, else from `file`; `create` makes the file when missing.
    pub fn load(file: &Path, create: bool) -> Result<Secrets, SecretError> {
        if let Ok(text) = std::env::var(KEY_ENV) {
            return Secrets::from_hex(text.trim()).ok_or(SecretError::BadEnvKey);
        }
        match std::fs::read_to_string(file) {
            Ok(text) => Secrets::from_hex(text.trim())
                .ok_or_else(|| SecretError::BadKeyFile(file.to_path_buf())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
                let mut key = [0u8; 32];
                getrandom::getrandom(&mut key).map_err(SecretError::NoRandomness)?;
                write_private(file, &hex(&key))?;
                Ok(Secrets::from_key(&key))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(SecretError::Missing(file.to_path_buf()))
            }
            Err(source) => Err(SecretError::Read {
                path: file.to_path_buf(),
                source,
            }),
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
fn write_private(file: &Path, text: &str) -> Result<(), SecretError> {
    use std::io::Write;
    let mut f = crate::primitives::private_file(file).map_err(|source| SecretError::Create {
        path: file.to_path_buf(),
        source,
    })?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.sync_all())
        .map_err(|source| SecretError::Write {
            path: file.to_path_buf(),
            source,
        })
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
        assert!(
            matches!(Secrets::load(&file, false), Err(SecretError::Missing(_))),
            "not created unasked"
        );
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
