//! The toolbar popup: settings.
//!
//! `state.rs` and `form.rs` are pure and tested natively; `effects.rs` and `hooks.rs` talk to
//! the worker and the browser; `components/` render.

mod app;
mod components;
mod download;
mod effects;
mod form;
mod hooks;
mod permissions;
mod state;

#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn main() {
    yew::Renderer::<app::App>::new().render();
}
