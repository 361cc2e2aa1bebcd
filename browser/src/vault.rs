//! WebCrypto for `core::vault` (`browser/js/vault.js`): PBKDF2-SHA256 key derivation and
//! AES-GCM sealing of strings.

use gemipanel_core::vault::Envelope;
use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::BrowserError;

#[wasm_bindgen(module = "/js/vault.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = vaultDerive)]
    fn derive_js(passphrase: &str, salt: &[u8], iterations: u32) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = vaultSeal)]
    fn seal_js(raw: &[u8], text: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = vaultOpen)]
    fn open_js(raw: &[u8], iv: &[u8], ciphertext: &[u8]) -> Result<Promise, JsValue>;
}

async fn settle(
    doing: &'static str,
    promise: Result<Promise, JsValue>,
) -> Result<JsValue, BrowserError> {
    let promise = promise.map_err(|e| BrowserError::from_js(doing, e))?;
    JsFuture::from(promise).await.map_err(|e| BrowserError::from_js(doing, e))
}

/// The key bytes of `passphrase`.
pub async fn derive(
    passphrase: &str,
    salt: &[u8],
    iterations: u32,
) -> Result<Vec<u8>, BrowserError> {
    let bits = settle("deriving the key", derive_js(passphrase, salt, iterations)).await?;
    Ok(Uint8Array::new(&bits).to_vec())
}

/// `text` sealed with `key`.
pub async fn seal(key: &[u8], text: &str) -> Result<Envelope, BrowserError> {
    let parts: Array = settle("sealing a secret", seal_js(key, text)).await?.unchecked_into();
    Ok(Envelope {
        iv: Uint8Array::new(&parts.get(0)).to_vec(),
        ciphertext: Uint8Array::new(&parts.get(1)).to_vec(),
    })
}

/// The text of `envelope`; an error when `key` is not the one it was sealed with.
pub async fn open(key: &[u8], envelope: &Envelope) -> Result<String, BrowserError> {
    let text = settle("opening a secret", open_js(key, &envelope.iv, &envelope.ciphertext)).await?;
    text.as_string().ok_or_else(|| BrowserError::new("an opened secret is not text"))
}
