//! The small part of JOSE sign-in needs: ES256 JWTs in compact form (RFC 7515 §7.1, RFC 7518
//! §3.4), and the public key as a JWK (RFC 7517) with its thumbprint (RFC 7638).
//!
//! Only the assembly is here: the signature itself comes from the host (WebCrypto in the
//! browser, where the private key never exists as bytes; the p256 crate natively).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The one algorithm this client signs with: ECDSA on P-256 with SHA-256. Every DPoP server
/// met so far offers it, and it is the one both WebCrypto and the conformance suite support.
pub const ES256: &str = "ES256";

pub fn base64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The public half of a P-256 key, as it goes in a DPoP proof's header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicJwk {
    pub kty: String,
    pub crv: String,
    pub x: String,
    pub y: String,
}

impl PublicJwk {
    /// The key from its coordinates (32 bytes each, big-endian).
    pub fn p256(x: &[u8], y: &[u8]) -> PublicJwk {
        PublicJwk { kty: "EC".into(), crv: "P-256".into(), x: base64url(x), y: base64url(y) }
    }

    /// RFC 7638: SHA-256 over the required members in lexicographic order, no spaces.
    pub fn thumbprint(&self) -> String {
        let canonical = format!(
            r#"{{"crv":{},"kty":{},"x":{},"y":{}}}"#,
            json_string(&self.crv),
            json_string(&self.kty),
            json_string(&self.x),
            json_string(&self.y)
        );
        base64url(&Sha256::digest(canonical.as_bytes()))
    }

    /// Whether this is a P-256 key with coordinates of the right length.
    pub fn is_p256(&self) -> bool {
        let coordinate = |c: &str| URL_SAFE_NO_PAD.decode(c).is_ok_and(|b| b.len() == 32);
        self.kty == "EC" && self.crv == "P-256" && coordinate(&self.x) && coordinate(&self.y)
    }
}

fn json_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

/// `BASE64URL(header) . BASE64URL(claims)`: what is signed.
pub fn signing_input(header: &Value, claims: &Value) -> String {
    format!(
        "{}.{}",
        base64url(header.to_string().as_bytes()),
        base64url(claims.to_string().as_bytes())
    )
}

/// The compact JWS of a signing input and its ES256 signature (64 bytes, `r || s`).
pub fn compact(signing_input: &str, signature: &[u8]) -> Result<String, String> {
    if signature.len() != 64 {
        return Err(format!("an ES256 signature is 64 bytes, not {}", signature.len()));
    }
    Ok(format!("{signing_input}.{}", base64url(signature)))
}

/// The claims of a JWT, read without checking its signature: for a token this client only
/// carries (an ID token passed on to the identity provider that issued it), to learn its
/// expiry and check it is the one asked for.
pub fn unverified_claims(jwt: &str) -> Option<Map<String, Value>> {
    let mut parts = jwt.split('.');
    let (_header, claims) = (parts.next()?, parts.next()?);
    parts.next()?;
    let bytes = URL_SAFE_NO_PAD.decode(claims.trim_end_matches('=')).ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_thumbprint_of_rfc_7638s_example_shape() {
        // RFC 7638 §3.1 gives an RSA example; for EC the members are crv, kty, x, y. This key
        // and thumbprint come from RFC 9449 §A (the DPoP example, `jkt` of its proof's key).
        let jwk = PublicJwk {
            kty: "EC".into(),
            crv: "P-256".into(),
            x: "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs".into(),
            y: "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA".into(),
        };
        assert_eq!(jwk.thumbprint(), "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I");
        assert!(jwk.is_p256());
    }

    #[test]
    fn a_compact_jwt_has_three_parts_and_its_claims_read_back() {
        let input = signing_input(&json!({"alg": "ES256"}), &json!({"sub": "a", "exp": 5}));
        let jwt = compact(&input, &[7; 64]).unwrap();
        assert_eq!(jwt.split('.').count(), 3);
        let claims = unverified_claims(&jwt).unwrap();
        assert_eq!(claims["sub"], "a");
        assert_eq!(claims["exp"], 5);
        assert!(compact(&input, &[7; 71]).is_err(), "a DER signature is not a JWS one");
        for broken in ["", "a.b", "a.!!!.c", "a.bm90IGpzb24.c"] {
            assert_eq!(unverified_claims(broken), None, "{broken}");
        }
    }
}
