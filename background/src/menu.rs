//! The context menu ("Ask GemiPanel about this selection / page / image / link"): registered
//! when the extension is installed or updated, and a click kept in `chrome.storage.session`
//! for the side panel of its window, which `background.js` has already opened (inside the
//! click, as `sidePanel.open` requires).

use gemipanel_browser::{chrome, locks};
use gemipanel_core::page::context_menu::{keep_click, MenuItem, PENDING_KEY};
use wasm_bindgen::prelude::*;

/// The items, titled in the browser's language (on install and update, `installed`).
pub async fn register() {
    let items: Vec<(&str, String, &str)> = MenuItem::ALL
        .iter()
        .map(|item| (item.id(), chrome::message(item.title_key(), &[]), item.context()))
        .collect();
    if let Err(err) = chrome::set_context_menu(&items).await {
        web_sys::console::warn_1(&format!("GemiPanel: {err}").into());
    }
}

/// `chrome.contextMenus.onClicked`, with the tab's id, window and title added to the click:
/// kept as Chrome gave it, for the side panel to read.
#[wasm_bindgen]
pub async fn on_context_menu(click: JsValue) {
    // One read-modify-write of the list at a time, here and in the side panels that take
    // from it (Web Locks are shared by the worker and the pages): none loses a click.
    let _turn = locks::exclusive(PENDING_KEY).await;
    let text = js_sys::JSON::stringify(&click).ok().and_then(|t| t.as_string()).unwrap_or_default();
    let Ok(click) = serde_json::from_str(&text) else { return };
    let stored = chrome::session_get(PENDING_KEY).await.ok().and_then(|v| v.as_string());
    let kept = stored.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
    let json = keep_click(kept, click).to_string();
    if let Err(err) = chrome::session_set(PENDING_KEY, &json.into()).await {
        web_sys::console::warn_1(&format!("GemiPanel: keeping a context menu click: {err}").into());
    }
}
