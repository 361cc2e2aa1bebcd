//! ES256 keys through WebCrypto (`browser/js/keys.js`): a non-extractable DPoP key pair per
//! server, kept in IndexedDB as `CryptoKey` objects (the private key never exists as bytes),
//! and signatures with a client's pasted PKCS #8 key for `private_key_jwt`.

use std::future::Future;
use std::pin::Pin;

use gemipanel_core::oauth::dpop::ProofSigner;
use gemipanel_core::oauth::jose::PublicJwk;
use js_sys::{Promise, Uint8Array};
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::chrome;
use crate::messaging::from_js;
use crate::BrowserError;

#[wasm_bindgen(module = "/js/keys.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = dpopKey)]
    fn dpop_key_js(id: &str, create: bool) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = dpopSign)]
    fn dpop_sign_js(id: &str, bytes: &[u8]) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = dpopDelete)]
    fn dpop_delete_js(id: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = dpopIds)]
    fn dpop_ids_js() -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = signPkcs8)]
    fn sign_pkcs8_js(pkcs8: &[u8], bytes: &[u8]) -> Result<Promise, JsValue>;
}

async fn settle(
    doing: &'static str,
    promise: Result<Promise, JsValue>,
) -> Result<JsValue, BrowserError> {
    let promise = promise.map_err(|e| BrowserError::from_js(doing, e))?;
    JsFuture::from(promise).await.map_err(|e| BrowserError::from_js(doing, e))
}

#[derive(Deserialize)]
struct Coordinates {
    x: String,
    y: String,
}

/// A server's DPoP key, as core's proofs need it.
pub struct DpopKey {
    id: String,
    jwk: PublicJwk,
}

impl DpopKey {
    /// Server `id`'s key: the kept one, else with `create` a new one; `None` when there is
    /// none (and none was to be made).
    pub async fn get(id: &str, create: bool) -> Result<Option<DpopKey>, BrowserError> {
        let found = settle("reading the DPoP key", dpop_key_js(id, create)).await?;
        if found.is_null() || found.is_undefined() {
            return Ok(None);
        }
        let Coordinates { x, y } = from_js(found)?;
        let jwk = PublicJwk { kty: "EC".into(), crv: "P-256".into(), x, y };
        if !jwk.is_p256() {
            return Err(BrowserError::new("the kept DPoP key is not a P-256 key"));
        }
        Ok(Some(DpopKey { id: id.to_owned(), jwk }))
    }

    /// Forgets server `id`'s key.
    pub async fn delete(id: &str) -> Result<(), BrowserError> {
        settle("deleting the DPoP key", dpop_delete_js(id)).await.map(drop)
    }

    /// The ids of every server with a key.
    pub async fn ids() -> Result<Vec<String>, BrowserError> {
        from_js(settle("listing DPoP keys", dpop_ids_js()).await?)
    }
}

impl ProofSigner for DpopKey {
    fn public_jwk(&self) -> &PublicJwk {
        &self.jwk
    }

    fn sign<'a>(
        &'a self,
        input: &'a [u8],
    ) -> Pin<Box<dyn Future<Output = Result<Vec<u8>, String>> + 'a>> {
        Box::pin(async move {
            let signature = settle("signing a DPoP proof", dpop_sign_js(&self.id, input))
                .await
                .map_err(|e| e.to_string())?;
            Ok(Uint8Array::new(&signature).to_vec())
        })
    }

    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }

    fn random_id(&self) -> [u8; 16] {
        // getRandomValues only fails for more than 64 KB; a clock-based id would still be unique.
        chrome::random_bytes().unwrap_or_else(|_| {
            let mut id = [0; 16];
            id[..8].copy_from_slice(&(js_sys::Date::now() as u64).to_be_bytes());
            id
        })
    }
}

/// The ES256 signature (`r || s`) of `input` with a private key given as PKCS #8 bytes.
pub async fn sign_with_pkcs8(pkcs8: &[u8], input: &[u8]) -> Result<Vec<u8>, BrowserError> {
    let signature =
        settle("signing with the client's private key", sign_pkcs8_js(pkcs8, input)).await?;
    Ok(Uint8Array::new(&signature).to_vec())
}
