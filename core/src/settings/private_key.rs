//! A private key the person pastes (for `private_key_jwt`): a PEM block of PKCS #8 holding a
//! P-256 key, the one format both WebCrypto (`importKey("pkcs8")`) and the native signer take.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

/// Why a pasted private key cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyProblem {
    /// Not a PEM block at all.
    NotPem,
    /// A SEC 1 `EC PRIVATE KEY`: WebCrypto imports PKCS #8 only.
    NotPkcs8,
    /// An RSA key (or anything else): only P-256 keys sign here.
    NotP256,
}

impl KeyProblem {
    /// The `_locales` key of the message for the person.
    pub fn message_key(self) -> &'static str {
        match self {
            KeyProblem::NotPem => "errKeyNotPem",
            KeyProblem::NotPkcs8 => "errKeyNotPkcs8",
            KeyProblem::NotP256 => "errKeyNotP256",
        }
    }
}

/// `id-ecPublicKey` (1.2.840.10045.2.1) and `prime256v1` (1.2.840.10045.3.1.7), DER-encoded.
const EC_PUBLIC_KEY_OID: &[u8] = &[0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const P256_OID: &[u8] = &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];

/// The PKCS #8 DER of a pasted `-----BEGIN PRIVATE KEY-----` block holding a P-256 key.
pub fn pkcs8_from_pem(pem: &str) -> Result<Vec<u8>, KeyProblem> {
    let text = pem.trim();
    if text.contains("BEGIN EC PRIVATE KEY") {
        return Err(KeyProblem::NotPkcs8);
    }
    let body = text
        .strip_prefix("-----BEGIN PRIVATE KEY-----")
        .and_then(|rest| rest.strip_suffix("-----END PRIVATE KEY-----"))
        .ok_or(KeyProblem::NotPem)?;
    let base64: String = body.chars().filter(|c| !c.is_whitespace()).collect();
    let der = STANDARD.decode(base64).map_err(|_| KeyProblem::NotPem)?;
    let contains = |needle: &[u8]| der.windows(needle.len()).any(|w| w == needle);
    if !(contains(EC_PUBLIC_KEY_OID) && contains(P256_OID)) {
        return Err(KeyProblem::NotP256);
    }
    Ok(der)
}

#[cfg(test)]
mod tests {
    use super::*;

    const P256_PKCS8: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgv0BAvkftLG1fbmAq
gSlHB+0seRYZjdD0WzUL+TU+VTahRANCAASAJrhgpEVy5o0OXEO0NLMkB2izvBPv
BzsJ5SbTB5WSR9jlbnaowpsP+/nFBeM5yy7hfeUqP4q/pPR9xgyWjh1m
-----END PRIVATE KEY-----";

    #[test]
    fn a_pasted_p256_key_is_read_and_others_are_named() {
        let der = pkcs8_from_pem(&format!("  {P256_PKCS8}\n")).unwrap();
        assert_eq!(der.len(), 138);
        assert_eq!(pkcs8_from_pem("not a key"), Err(KeyProblem::NotPem));
        assert_eq!(
            pkcs8_from_pem("-----BEGIN EC PRIVATE KEY-----\nAA==\n-----END EC PRIVATE KEY-----"),
            Err(KeyProblem::NotPkcs8)
        );
        // The start of an RSA PKCS #8 key: rsaEncryption, no EC OIDs.
        let rsa = "-----BEGIN PRIVATE KEY-----\nMIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAw\n-----END PRIVATE KEY-----";
        assert_eq!(pkcs8_from_pem(rsa), Err(KeyProblem::NotP256));
    }
}
