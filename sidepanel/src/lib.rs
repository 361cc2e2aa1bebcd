//! The side panel: chat with Gemini, with tools from MCP servers.
//!
//! `state` (pure reducer), `transcript` (entries and saved chats), `markdown` (block splitting),
//! `markdown_nesting` (the depth cap) and `tool_text` are plain Rust with native tests;
//! `chat_driver` drives core's `Chat` with fetch and the worker port; `components` are the views.

mod app;
mod app_host;
mod chat_driver;
mod chat_merge;
mod chats_store;
mod components;
mod files;
mod hooks;
mod markdown;
mod markdown_nesting;
mod shared;
mod state;
mod tool_text;
mod transcript;

#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn main() {
    gemipanel_browser::chrome::install_words();
    yew::Renderer::<app::App>::new().render();
}
