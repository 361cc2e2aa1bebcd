//! The answers `static/early.js` asked the worker for while the page was still loading: the
//! worker wakes in parallel with the page's own start, and the first requests of the page cost
//! no round trip once its module runs.

use gemipanel_core::messages::{Response, WorkerMessage};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::messaging::from_js;

/// The early answer `name` (`status`, `settings`), once: later calls get `None`, as does a
/// page without `early.js` or an answer that failed.
pub async fn take(name: &str) -> Option<Response> {
    let early = js_sys::Reflect::get(&js_sys::global(), &"gemipanelEarly".into()).ok()?;
    if !early.is_object() {
        return None;
    }
    let key = JsValue::from_str(name);
    let pending = js_sys::Reflect::get(&early, &key).ok()?;
    let _ = js_sys::Reflect::delete_property(&early.into(), &key);
    let promise = pending.dyn_into::<js_sys::Promise>().ok()?;
    let answer: JsValue = JsFuture::from(promise).await.ok()?;
    match from_js::<WorkerMessage>(answer).ok()? {
        WorkerMessage::Response { response, .. } => Some(response),
        WorkerMessage::Event { .. } => None,
    }
}
