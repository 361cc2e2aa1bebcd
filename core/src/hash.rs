//! Short names made from text: the first 8 hex digits of its SHA-256, for a function name cut
//! to Gemini's length (`tools::naming`) and for marking an app's context (`apps::model_context`).

use sha2::{Digest, Sha256};

/// How many hex digits [`short_hash`] keeps.
pub const SHORT_HASH_LEN: usize = 8;

/// The first [`SHORT_HASH_LEN`] hex digits of SHA-256 of `text`.
pub fn short_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().take(SHORT_HASH_LEN / 2).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_hex_digits_of_sha256() {
        // SHA-256("abc") = ba7816bf8f01cfea…
        assert_eq!(short_hash("abc"), "ba7816bf");
        assert_eq!(short_hash("abc").len(), SHORT_HASH_LEN);
    }
}
