//! Owns login passwords: the rules a new one meets, and hashing with Argon2id (the PHC string
//! stores the algorithm, its parameters and the salt, so a later change of parameters still
//! verifies old hashes).

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

/// Fewest characters a password has.
pub const MIN_LEN: usize = 10;
/// Most bytes a password has: Argon2 reads all of it, so a megabyte-long one is refused early.
pub const MAX_LEN: usize = 256;

/// Why a new password is refused; `Display` is the sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasswordError {
    /// Fewer than [`MIN_LEN`] characters.
    TooShort,
    /// More than [`MAX_LEN`] bytes.
    TooLong,
}

impl std::fmt::Display for PasswordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PasswordError::TooShort => write!(f, "a password has at least {MIN_LEN} characters"),
            PasswordError::TooLong => write!(f, "a password has at most {MAX_LEN} bytes"),
        }
    }
}

impl std::error::Error for PasswordError {}

/// Whether a new password meets the rules.
pub fn check(password: &str) -> Result<(), PasswordError> {
    let chars = password.chars().count();
    if chars < MIN_LEN {
        return Err(PasswordError::TooShort);
    }
    if password.len() > MAX_LEN {
        return Err(PasswordError::TooLong);
    }
    Ok(())
}

/// The Argon2id hash of `password` with a fresh random salt, as a PHC string. Takes tens of
/// milliseconds by design: call it off the async runtime.
pub fn hash(password: &str) -> String {
    let mut salt = [0u8; 16];
    getrandom::getrandom(&mut salt).expect("the operating system provides randomness");
    let salt = SaltString::encode_b64(&salt).expect("16 bytes make a valid salt");
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .expect("Argon2 hashes any password within MAX_LEN")
        .to_string()
}

/// Whether `password` matches the stored `hash`. A stored value that is not a PHC string never
/// matches. Takes as long as [`hash`].
pub fn verify(password: &str, hash: &str) -> bool {
    if password.len() > MAX_LEN {
        return false;
    }
    PasswordHash::new(hash)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

/// A hash to verify against when the email is unknown, so that a wrong email takes as long
/// as a wrong password and does not tell which emails have accounts.
pub fn decoy() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash("adcab decoy password"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only_and_is_argon2id_with_a_fresh_salt() {
        let h = hash("correct horse battery");
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(verify("correct horse battery", &h));
        assert!(!verify("correct horse batterx", &h));
        assert_ne!(
            h,
            hash("correct horse battery"),
            "each hash has its own salt"
        );
        assert!(!verify("anything", "not a phc string"));
    }

    #[test]
    fn new_passwords_are_long_enough_and_bounded() {
        assert_eq!(check("short"), Err(PasswordError::TooShort));
        assert!(check("ten chars!").is_ok());
        assert_eq!(check(&"x".repeat(MAX_LEN + 1)), Err(PasswordError::TooLong));
    }
}
