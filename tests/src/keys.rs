//! ES256 natively, for what the worker does with WebCrypto: a DPoP key held in memory (the
//! worker keeps a non-extractable `CryptoKey` in IndexedDB) and signatures with a client's
//! private key pasted as PKCS #8 (`private_key_jwt`). The p256 crate (RustCrypto) signs.

use gemipanel_core::oauth::dpop::ProofSigner;
use gemipanel_core::oauth::jose::PublicJwk;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::DecodePrivateKey;
use std::future::Future;
use std::pin::Pin;

use crate::oauth::now_ms;

/// A DPoP key pair made for one host (one "browser profile" of the tests).
pub struct NativeKey {
    key: SigningKey,
    jwk: PublicJwk,
}

impl NativeKey {
    /// A fresh key from the OS's random bytes.
    pub fn generate() -> NativeKey {
        loop {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes).expect("the OS has random bytes");
            // Almost every 32 bytes are a valid scalar; draw again in the rare other case.
            if let Ok(key) = SigningKey::from_bytes(&bytes.into()) {
                let point = key.verifying_key().to_encoded_point(false);
                let (Some(x), Some(y)) = (point.x(), point.y()) else { continue };
                let jwk = PublicJwk::p256(x, y);
                return NativeKey { key, jwk };
            }
        }
    }
}

impl ProofSigner for NativeKey {
    fn public_jwk(&self) -> &PublicJwk {
        &self.jwk
    }

    fn sign<'a>(
        &'a self,
        input: &'a [u8],
    ) -> Pin<Box<dyn Future<Output = Result<Vec<u8>, String>> + 'a>> {
        let signature: Signature = self.key.sign(input);
        Box::pin(std::future::ready(Ok(signature.to_bytes().to_vec())))
    }

    fn now_ms(&self) -> u64 {
        now_ms()
    }

    fn random_id(&self) -> [u8; 16] {
        let mut id = [0u8; 16];
        getrandom::fill(&mut id).expect("the OS has random bytes");
        id
    }
}

/// The ES256 signature (`r || s`) of `input` with a PKCS #8 private key.
pub fn sign_with_pkcs8(pkcs8: &[u8], input: &[u8]) -> Result<Vec<u8>, String> {
    let key = SigningKey::from_pkcs8_der(pkcs8).map_err(|e| format!("the private key: {e}"))?;
    let signature: Signature = key.sign(input);
    Ok(signature.to_bytes().to_vec())
}
