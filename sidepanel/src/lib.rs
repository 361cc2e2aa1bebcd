//! The side panel: chat with Gemini, with tools from MCP servers.

mod app;
mod components;
mod hooks;
mod state;

#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn main() {
    yew::Renderer::<app::App>::new().render();
}
