//! PKCE with S256 (RFC 7636) and the `state` value, from random bytes the host passes in.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};

use crate::settings::Secret;

/// A code verifier and its S256 challenge.
#[derive(Debug, Clone)]
pub struct Pkce {
    /// 43 characters of base64url: 256 bits, the RFC's recommended entropy.
    pub verifier: Secret,
    pub challenge: String,
}

impl Pkce {
    pub fn from_random(bytes: &[u8; 32]) -> Pkce {
        let verifier = URL_SAFE_NO_PAD.encode(bytes);
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        Pkce { verifier: Secret::new(verifier), challenge }
    }
}

/// An unguessable `state` (128 bits) that ties the authorization response to this attempt.
pub fn state_from_random(bytes: &[u8; 16]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_7636_appendix_b() {
        let bytes = [
            116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212,
            37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
        ];
        let pkce = Pkce::from_random(&bytes);
        assert_eq!(pkce.verifier.expose(), "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
        assert_eq!(pkce.challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
        assert!(!format!("{pkce:?}").contains("dBjf"));
    }

    #[test]
    fn state_is_url_safe() {
        assert_eq!(state_from_random(&[0xff; 16]), "_____________________w");
    }
}
