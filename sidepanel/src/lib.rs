//! The side panel: chat with Gemini, with tools from MCP servers.
//!
//! `state` (pure reducer), `markdown_nesting` (the depth cap) and `tool_text` are plain Rust with native tests;
//! `chat_driver` drives core's `Chat` with fetch and the worker port; `components` are the views.

// The saved chat and a reply's markdown blocks live in core (`core::chats`).
use gemipanel_core::chats::doc as markdown;
use gemipanel_core::chats::saved as transcript;

mod app;
mod app_host;
mod app_read;
mod chat_driver;
mod chat_files;
mod chat_merge;
mod chats_store;
mod components;
mod download;
mod files;
mod hooks;
mod markdown_nesting;
mod resource_refresh;
mod shared;
mod state;
mod tool_text;

#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn main() {
    // Into its own element: rendering into the body would clear the static shell before the
    // composer adopted what was typed into it.
    let root =
        web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("app"));
    match root {
        Some(root) => yew::Renderer::<app::App>::with_root(root).render(),
        None => yew::Renderer::<app::App>::new().render(),
    };
}

/// Counts what the panel's wasm allocates, for `heapStats`: what the chat holds and what a
/// streamed reply costs, in bytes that do not depend on the machine's speed.
#[global_allocator]
static ALLOCATOR: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, usize::MAX);

/// For the memory bench and the e2e tests: `[live, most ever live, allocated in all]` bytes of
/// the panel's wasm heap (the last wraps at 4 GiB: compare two reads modulo 2^32).
#[wasm_bindgen::prelude::wasm_bindgen(js_name = heapStats)]
pub fn heap_stats() -> Vec<f64> {
    [ALLOCATOR.allocated(), ALLOCATOR.max_allocated(), ALLOCATOR.total_allocated()]
        .map(|bytes| bytes as f64)
        .to_vec()
}
