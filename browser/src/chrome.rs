//! Bindings to the `chrome.*` extension APIs this project uses, and nothing more.

use js_sys::{Function, Object, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::BrowserError;

#[wasm_bindgen]
extern "C" {
    /// A `chrome.runtime.Port`.
    #[derive(Debug, Clone)]
    pub type Port;

    #[wasm_bindgen(method, catch, js_name = postMessage)]
    fn post_message_js(this: &Port, message: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(method, getter, js_name = onMessage)]
    fn on_message_event(this: &Port) -> ChromeEvent;
    #[wasm_bindgen(method, getter, js_name = onDisconnect)]
    fn on_disconnect_event(this: &Port) -> ChromeEvent;
    #[wasm_bindgen(method)]
    pub fn disconnect(this: &Port);

    /// A `chrome.events.Event`.
    type ChromeEvent;
    #[wasm_bindgen(method, js_name = addListener)]
    fn add_listener(this: &ChromeEvent, listener: &Function);

    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = sendMessage)]
    fn runtime_send_message(message: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = connect)]
    fn runtime_connect(info: &JsValue) -> Result<Port, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getManifest)]
    fn runtime_get_manifest() -> Result<Object, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = get)]
    fn storage_local_get(keys: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = set)]
    fn storage_local_set(items: &JsValue) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["chrome", "i18n"], js_name = getMessage)]
    fn i18n_get_message(name: &str, substitutions: &JsValue) -> Result<JsValue, JsValue>;
}

impl Port {
    pub fn post(&self, message: &JsValue) -> Result<(), BrowserError> {
        self.post_message_js(message).map_err(|e| BrowserError::from_js("posting to the port", e))
    }

    /// Registers `listener` for messages; the closure lives as long as the page.
    pub fn on_message(&self, listener: impl FnMut(JsValue) + 'static) {
        let closure = Closure::<dyn FnMut(JsValue)>::new(listener);
        self.on_message_event().add_listener(closure.as_ref().unchecked_ref());
        closure.forget();
    }

    pub fn on_disconnect(&self, listener: impl FnMut() + 'static) {
        let closure = Closure::<dyn FnMut()>::new(listener);
        self.on_disconnect_event().add_listener(closure.as_ref().unchecked_ref());
        closure.forget();
    }

    /// Whether two handles are the same port object.
    pub fn is(&self, other: &Port) -> bool {
        Object::is(self, other)
    }
}

/// `chrome.runtime.connect({name})`.
pub fn connect(name: &str) -> Result<Port, BrowserError> {
    let info = Object::new();
    js_sys::Reflect::set(&info, &"name".into(), &name.into())
        .map_err(|e| BrowserError::from_js("building connect info", e))?;
    runtime_connect(&info).map_err(|e| BrowserError::from_js("connecting to the worker", e))
}

/// `chrome.runtime.sendMessage(message)`, resolved to the answer.
pub async fn send_message(message: &JsValue) -> Result<JsValue, BrowserError> {
    let promise = runtime_send_message(message)
        .map_err(|e| BrowserError::from_js("sending to the worker", e))?;
    let answer: JsValue = JsFuture::from(promise)
        .await
        .map_err(|e| BrowserError::from_js("waiting for the worker", e))?;
    Ok(answer)
}

/// `version` from the extension's manifest.
pub fn extension_version() -> String {
    runtime_get_manifest()
        .ok()
        .and_then(|m| js_sys::Reflect::get(&m, &"version".into()).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// Reads one key of `chrome.storage.local`; `undefined` when absent.
pub async fn local_get(key: &str) -> Result<JsValue, BrowserError> {
    let promise =
        storage_local_get(&key.into()).map_err(|e| BrowserError::from_js("reading storage", e))?;
    let items: JsValue =
        JsFuture::from(promise).await.map_err(|e| BrowserError::from_js("reading storage", e))?;
    js_sys::Reflect::get(&items, &key.into())
        .map_err(|e| BrowserError::from_js("reading storage", e))
}

/// Writes one key of `chrome.storage.local`.
pub async fn local_set(key: &str, value: &JsValue) -> Result<(), BrowserError> {
    let items = Object::new();
    js_sys::Reflect::set(&items, &key.into(), value)
        .map_err(|e| BrowserError::from_js("writing storage", e))?;
    let promise =
        storage_local_set(&items).map_err(|e| BrowserError::from_js("writing storage", e))?;
    let _: JsValue =
        JsFuture::from(promise).await.map_err(|e| BrowserError::from_js("writing storage", e))?;
    Ok(())
}

/// A localized string from `_locales`, with `$1`… substitutions; the key itself when missing,
/// so a forgotten translation is visible instead of blank.
pub fn message(key: &str, substitutions: &[&str]) -> String {
    let subs: js_sys::Array = substitutions.iter().map(|s| JsValue::from_str(s)).collect();
    match i18n_get_message(key, &subs) {
        Ok(text) => match text.as_string() {
            Some(text) if !text.is_empty() => text,
            _ => key.to_owned(),
        },
        Err(_) => key.to_owned(),
    }
}
