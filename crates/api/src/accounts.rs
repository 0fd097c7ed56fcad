//! Accounts' names and passwords (issue 15): what a name and a password may be, and the
//! argon2id hashes the store keeps in their place. A password is never stored or logged.
//!
//! The hash is the `argon2` crate's default: argon2id, version 19, 19 MiB of memory, two
//! passes, one lane (the parameters OWASP recommends), with a random 16-byte salt, written
//! as a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`), so the parameters travel with it.

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};

/// The most characters in an account's name.
pub const MAX_NAME_CHARS: usize = 64;
/// The fewest characters in a password.
pub const MIN_PASSWORD_CHARS: usize = 8;
/// The most bytes of a password: hashing is slow on purpose, so its input is bounded.
pub const MAX_PASSWORD_BYTES: usize = 1024;

/// Why a name or a password is refused, or hashing failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AccountError {
    #[error("an account name {0}")]
    Name(&'static str),
    #[error("a password {0}")]
    Password(&'static str),
    #[error("the password could not be hashed: {0}")]
    Hash(String),
}

/// Whether `name` may name an account: 1 to [`MAX_NAME_CHARS`] characters, no control
/// characters, no space at either end, and no `:` (HTTP Basic authentication and the sync
/// clients' keys separate a name from its password with one).
pub fn check_name(name: &str) -> Result<(), AccountError> {
    if name.is_empty() {
        return Err(AccountError::Name("cannot be empty"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(AccountError::Name("has at most 64 characters"));
    }
    if name.trim() != name {
        return Err(AccountError::Name("cannot begin or end with a space"));
    }
    if name.chars().any(char::is_control) {
        return Err(AccountError::Name("cannot hold control characters"));
    }
    if name.contains(':') {
        return Err(AccountError::Name(
            "cannot hold `:` (clients put it between a name and its password)",
        ));
    }
    Ok(())
}

/// Whether `password` may be a password: at least [`MIN_PASSWORD_CHARS`] characters, at most
/// [`MAX_PASSWORD_BYTES`] bytes.
pub fn check_password(password: &str) -> Result<(), AccountError> {
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(AccountError::Password("needs at least 8 characters"));
    }
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(AccountError::Password("has at most 1024 bytes"));
    }
    Ok(())
}

/// The argon2id hash of `password` (checked first), as a PHC string.
pub fn hash_password(password: &str) -> Result<String, AccountError> {
    check_password(password)?;
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| AccountError::Hash(e.to_string()))?;
    let salt = SaltString::encode_b64(&bytes).map_err(|e| AccountError::Hash(e.to_string()))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| AccountError::Hash(e.to_string()))
}

/// The Fever API's key of account `name` with API password `password`: md5 of `name:password`
/// in lower-case hex, what Fever clients compute and send (a weak hash, the protocol's).
pub fn fever_key(name: &str, password: &str) -> String {
    use md5::Digest;
    hex::encode(md5::Md5::digest(format!("{name}:{password}").as_bytes()))
}

/// What the store keeps of a Fever key: its SHA-256, in hex.
pub fn fever_key_hash(key: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(
        key.trim().to_ascii_lowercase().as_bytes(),
    ))
}

/// A new API password for account `name` (as it was written when made): its argon2id hash
/// and its Fever key's hash.
pub fn api_password(
    name: &str,
    password: &str,
) -> Result<tidings_store::ApiPassword, AccountError> {
    Ok(tidings_store::ApiPassword {
        hash: hash_password(password)?,
        fever_key_hash: fever_key_hash(&fever_key(name, password)),
    })
}

/// Whether `password` is the one `hash` was made from, when there is a hash; with none (no
/// such account, or no API password), the same work is done against a hash no password
/// matches, so the time a refusal takes does not tell whether the account exists.
pub fn verify_login(hash: Option<&str>, password: &str) -> bool {
    static NONE_MATCHES: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    match hash {
        Some(hash) => verify_password(hash, password),
        None => {
            let decoy = NONE_MATCHES.get_or_init(|| {
                let mut bytes = [0u8; 24];
                getrandom::fill(&mut bytes).ok()?;
                hash_password(&hex::encode(bytes)).ok()
            });
            if let Some(decoy) = decoy {
                verify_password(decoy, password);
            }
            false
        }
    }
}

/// Whether `password` is the one `hash` was made from. A hash that cannot be read, or a
/// password longer than any that could have been set, is no match.
pub fn verify_password(hash: &str, password: &str) -> bool {
    if password.len() > MAX_PASSWORD_BYTES {
        return false;
    }
    PasswordHash::new(hash).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_login_without_a_hash_never_matches() {
        let hash = hash_password("right password").unwrap();
        assert!(verify_login(Some(&hash), "right password"));
        assert!(!verify_login(Some(&hash), "wrong password"));
        for password in ["right password", "", "anything at all"] {
            assert!(!verify_login(None, password), "{password:?}");
        }
    }

    #[test]
    fn the_fever_key_is_md5_of_name_and_password_as_clients_compute_it() {
        // md5("ana:secret") as any md5 tool prints it.
        assert_eq!(
            fever_key("ana", "secret"),
            "8bb54329fa7e1fc4a1cf493f24623075"
        );
        assert_ne!(fever_key("Ana", "secret"), fever_key("ana", "secret"));
        // The stored hash does not depend on the case the client wrote the hex in.
        assert_eq!(
            fever_key_hash("8BB54329FA7E1FC4A1CF493F24623075"),
            fever_key_hash("8bb54329fa7e1fc4a1cf493f24623075")
        );
    }

    #[test]
    fn names_are_checked() {
        let long = "n".repeat(MAX_NAME_CHARS + 1);
        let cases: [(&str, bool); 9] = [
            ("ana", true),
            ("Łucja Żak", true),
            ("a.b-c_d@example.org", true),
            ("", false),
            (" ana", false),
            ("ana ", false),
            ("an\u{7}a", false),
            ("ana:secret", false),
            (&long, false),
        ];
        for (name, ok) in cases {
            assert_eq!(check_name(name).is_ok(), ok, "{name:?}");
        }
        assert!(
            check_name(&"ł".repeat(MAX_NAME_CHARS)).is_ok(),
            "characters, not bytes"
        );
    }

    #[test]
    fn passwords_are_checked() {
        assert!(check_password("seven77").is_err());
        assert!(check_password("eight888").is_ok());
        assert!(check_password("ąęśćżźńó").is_ok(), "characters, not bytes");
        assert!(check_password(&"p".repeat(MAX_PASSWORD_BYTES)).is_ok());
        assert!(check_password(&"p".repeat(MAX_PASSWORD_BYTES + 1)).is_err());
        assert_eq!(
            hash_password("short"),
            Err(AccountError::Password("needs at least 8 characters"))
        );
    }

    #[test]
    fn a_hash_is_argon2id_salted_and_verifies_only_its_password() {
        let one = hash_password("correct horse").unwrap();
        let two = hash_password("correct horse").unwrap();
        assert!(one.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{one}");
        assert_ne!(one, two, "each hash has its own salt");
        assert!(!one.contains("correct"), "the password is not in the hash");
        assert!(verify_password(&one, "correct horse"));
        assert!(verify_password(&two, "correct horse"));
        assert!(!verify_password(&one, "correct horsE"));
        assert!(!verify_password(&one, ""));
        assert!(!verify_password("not a hash", "correct horse"));
        assert!(!verify_password(&one, &"p".repeat(MAX_PASSWORD_BYTES + 1)));
    }
}
