//! The toolbar popup: settings.

mod app;
mod state;

#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn main() {
    yew::Renderer::<app::App>::new().render();
}
