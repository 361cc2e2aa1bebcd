//! The side panel's reach into the person's tabs: reading a page, its selection and visible
//! text, a capture of the visible part, the tab list, opening and switching tabs, and the
//! `tabs` permission. Each call is one function of `browser/js/page.js`; what it answers is
//! core's [`InTab`], and a refusal is core's [`AccessProblem`].

use gemipanel_core::page::access::AccessProblem;
use gemipanel_core::page::extract::MAX_READ_CHARS;
use gemipanel_core::page::screenshot::{MAX_BYTES, MAX_SIDE, QUALITIES};
use gemipanel_core::page::tab::{InTab, Tab};
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/js/page.js")]
extern "C" {
    #[wasm_bindgen(js_name = activeTab)]
    fn active_tab_js() -> Promise;
    #[wasm_bindgen(js_name = tabById)]
    fn tab_by_id_js(tab_id: i32) -> Promise;
    #[wasm_bindgen(catch, js_name = watchTabs)]
    fn watch_tabs_js(on_change: &Function) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = watchPageTools)]
    fn watch_page_tools_js(on_change: &Function) -> Result<(), JsValue>;
    #[wasm_bindgen(js_name = readPage)]
    fn read_page_js(tab_id: Option<i32>, max_chars: u32) -> Promise;
    #[wasm_bindgen(js_name = readSelection)]
    fn read_selection_js(tab_id: Option<i32>, max_chars: u32) -> Promise;
    #[wasm_bindgen(js_name = pageText)]
    fn page_text_js(tab_id: Option<i32>, max_chars: u32) -> Promise;
    #[wasm_bindgen(js_name = listTabs)]
    fn list_tabs_js() -> Promise;
    #[wasm_bindgen(js_name = openTab)]
    fn open_tab_js(url: &str, active: bool) -> Promise;
    #[wasm_bindgen(js_name = switchTab)]
    fn switch_tab_js(tab_id: i32) -> Promise;
    #[wasm_bindgen(js_name = capture)]
    fn capture_js(max_side: u32, max_bytes: u32, qualities: Vec<f64>) -> Promise;
    #[wasm_bindgen(js_name = pageTools)]
    fn page_tools_js(tab_id: Option<i32>) -> Promise;
    #[wasm_bindgen(js_name = callPageTool)]
    fn call_page_tool_js(tab_id: i32, origin: &str, name: &str, args_json: &str) -> Promise;
    #[wasm_bindgen(js_name = fetchImage)]
    fn fetch_image_js(url: &str, max_bytes: u32) -> Promise;
    #[wasm_bindgen(js_name = hasTabsPermission)]
    fn has_tabs_permission_js() -> Promise;
    #[wasm_bindgen(catch, js_name = requestTabsPermission)]
    fn request_tabs_permission_js() -> Result<Promise, JsValue>;
}

/// Awaits one of the script's answers (always JSON text; the script catches its own errors).
async fn answer(promise: Promise) -> Result<InTab, AccessProblem> {
    let text: JsValue =
        JsFuture::from(promise).await.map_err(|e| AccessProblem::Other(format!("{e:?}")))?;
    InTab::parse(&text.as_string().unwrap_or_default()).checked()
}

/// The active tab of the panel's window.
pub async fn active_tab() -> Result<Tab, AccessProblem> {
    answer(active_tab_js()).await?.tab.ok_or(AccessProblem::NoTab)
}

pub async fn tab(tab_id: i32) -> Result<Tab, AccessProblem> {
    answer(tab_by_id_js(tab_id)).await?.tab.ok_or(AccessProblem::NoTab)
}

/// Calls `on_change` with a tab id (-1: a window got focus) whenever the active tab, a tab's
/// address or title changes, or a tab closes. For the life of the page.
pub fn watch_tabs(on_change: impl FnMut(i32) + 'static) {
    let closure = Closure::<dyn FnMut(i32)>::new(on_change);
    if watch_tabs_js(closure.as_ref().unchecked_ref()).is_ok() {
        closure.forget();
    }
}

/// Calls `on_change` with a tab id when the page in that tab, whose tools were listed
/// ([`page_tools`]), registers or removes one (WebMCP's `toolchange`). For the life of the page.
pub fn watch_page_tools(on_change: impl FnMut(i32) + 'static) {
    let closure = Closure::<dyn FnMut(i32)>::new(on_change);
    if watch_page_tools_js(closure.as_ref().unchecked_ref()).is_ok() {
        closure.forget();
    }
}

/// The readable text of tab `tab_id` (the active tab when `None`).
pub async fn read_page(tab_id: Option<i32>) -> Result<InTab, AccessProblem> {
    answer(read_page_js(tab_id, MAX_READ_CHARS as u32)).await
}

pub async fn read_selection(tab_id: Option<i32>, max_chars: usize) -> Result<InTab, AccessProblem> {
    answer(read_selection_js(tab_id, max_chars as u32)).await
}

/// The visible text of a tab (`innerText`), for finding in it.
pub async fn page_text(tab_id: Option<i32>) -> Result<InTab, AccessProblem> {
    answer(page_text_js(tab_id, MAX_READ_CHARS as u32)).await
}

/// The tabs of the panel's window.
pub async fn list_tabs() -> Result<Vec<Tab>, AccessProblem> {
    Ok(answer(list_tabs_js()).await?.tabs)
}

pub async fn open_tab(url: &str, active: bool) -> Result<Tab, AccessProblem> {
    answer(open_tab_js(url, active)).await?.tab.ok_or(AccessProblem::NoTab)
}

pub async fn switch_tab(tab_id: i32) -> Result<Tab, AccessProblem> {
    answer(switch_tab_js(tab_id)).await?.tab.ok_or(AccessProblem::NoTab)
}

/// A JPEG of the visible part of the active tab, within core's limits.
pub async fn capture() -> Result<InTab, AccessProblem> {
    answer(capture_js(MAX_SIDE, MAX_BYTES as u32, QUALITIES.to_vec())).await
}

/// The WebMCP tools the page in a tab registered (`InTab::model_context`).
pub async fn page_tools(tab_id: Option<i32>) -> Result<InTab, AccessProblem> {
    answer(page_tools_js(tab_id)).await
}

/// Calls a page's tool in the tab, if the tab still shows `origin`. `Err` carries the page's
/// or Chrome's words (`AccessProblem::Other` for a tool that threw).
pub async fn call_page_tool(
    tab_id: i32,
    origin: &str,
    name: &str,
    args_json: &str,
) -> Result<InTab, AccessProblem> {
    answer(call_page_tool_js(tab_id, origin, name, args_json)).await
}

/// An image's media type and bytes (base64), or why it could not be fetched.
pub async fn fetch_image(url: &str, max_bytes: usize) -> Result<(String, String), String> {
    let text: JsValue = JsFuture::from(fetch_image_js(url, max_bytes as u32))
        .await
        .map_err(|e| format!("{e:?}"))?;
    let answer = InTab::parse(&text.as_string().unwrap_or_default());
    match (answer.ok, answer.mime, answer.data) {
        (true, Some(mime), Some(data)) => Ok((mime, data)),
        _ => Err(answer.error.unwrap_or_else(|| "no answer".into())),
    }
}

/// Whether GemiPanel holds the optional `tabs` permission.
pub async fn has_tabs_permission() -> bool {
    match JsFuture::from(has_tabs_permission_js()).await {
        Ok(granted) => granted.as_bool() == Some(true),
        Err(_) => false,
    }
}

/// Asks for `tabs`. Call it straight from a click: the request is made before this returns.
pub fn request_tabs_permission() -> impl std::future::Future<Output = bool> {
    let started = request_tabs_permission_js();
    async move {
        let Ok(promise) = started else { return false };
        matches!(JsFuture::from(promise).await.map(|v| v.as_bool()), Ok(Some(true)))
    }
}
