//! Exclusive locks across the extension's pages (the Web Locks API): a read-modify-write of a
//! storage key shared by several side panels runs under one, so no panel undoes another's write.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::BrowserError;

#[wasm_bindgen(module = "/js/locks.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = acquireLock)]
    fn acquire_lock(name: &str) -> Result<Promise, JsValue>;
}

/// Holding it means holding the lock; dropping it releases it.
pub struct Held(Function);

impl Drop for Held {
    fn drop(&mut self) {
        let _ = self.0.call0(&JsValue::NULL);
    }
}

/// Waits for the lock `name`; every page of the extension that asks for it takes its turn.
pub async fn exclusive(name: &str) -> Result<Held, BrowserError> {
    let promise = acquire_lock(name).map_err(|e| BrowserError::from_js("taking a lock", e))?;
    let release: JsValue =
        JsFuture::from(promise).await.map_err(|e| BrowserError::from_js("taking a lock", e))?;
    release
        .dyn_into::<Function>()
        .map(Held)
        .map_err(|_| BrowserError::new("the lock came without a way to release it"))
}
