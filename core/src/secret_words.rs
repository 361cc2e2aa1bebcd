//! Names that look like they hold a secret (`--api-key`, `X-Auth-Token`, `GITHUB_TOKEN`):
//! an export without secrets blanks such arguments, and the confirmation of a local command
//! line hides what such variables expand to.

/// Words that make a name look secret.
const SECRET_WORDS: [&str; 12] = [
    "token",
    "key",
    "apikey",
    "secret",
    "password",
    "passwd",
    "pass",
    "auth",
    "authorization",
    "credential",
    "credentials",
    "cookie",
];

/// A name made of words (`api-key`, `X_Auth_Token`, `apiKey`) of which one is a secret word,
/// or which ends in an unmistakable one (`accesstoken`, not `hotkey`).
pub fn looks_secret(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let mut words = lower.split(|c: char| !c.is_ascii_alphanumeric());
    words.any(|word| SECRET_WORDS.contains(&word))
        || ["token", "apikey", "secret", "password"].iter().any(|end| lower.ends_with(end))
}

#[cfg(test)]
mod tests {
    use super::looks_secret;

    #[test]
    fn secret_names_are_told_from_plain_ones() {
        for name in ["api-key", "X_Auth_Token", "GITHUB_TOKEN", "_authToken", "accesstoken"] {
            assert!(looks_secret(name), "{name}");
        }
        for name in ["registry", "hotkey", "INDEX_URL", "keyfile", "port"] {
            assert!(!looks_secret(name), "{name}");
        }
    }
}
