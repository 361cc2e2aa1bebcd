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

/// What was typed into the static shell's input (`static/shell.js`) before the module ran.
pub struct ShellInput {
    pub text: String,
    /// The caret or selection, in UTF-16 units as the browser counts them.
    pub selection: (u32, u32),
    pub focused: bool,
}

/// Takes the static shell's text, caret and focus, and removes the shell: from now on the
/// rendered panel is what shows. `None` when there is no shell (already adopted).
pub fn adopt_shell_input() -> Option<ShellInput> {
    let document = web_sys::window()?.document()?;
    let shell = document.get_element_by_id("shell")?;
    let adopted = document
        .get_element_by_id("shell-input")
        .and_then(|e| e.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
        .map(|input| {
            let focused = document.active_element().is_some_and(|a| a == **input);
            let start = input.selection_start().ok().flatten().unwrap_or(0);
            let end = input.selection_end().ok().flatten().unwrap_or(start);
            ShellInput { text: input.value(), selection: (start, end), focused }
        });
    shell.remove();
    adopted
}
