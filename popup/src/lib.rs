//! The toolbar popup: settings; and, on `welcome.html` (a body of class `welcome-body`), the
//! welcome page opened on install, made of the same parts.
//!
//! `state.rs` and `form.rs` are pure and tested natively; `effects.rs` and `hooks.rs` talk to
//! the worker and the browser; `components/` render.

mod app;
mod components;
mod download;
mod effects;
mod first_run;
mod form;
mod hooks;
mod permissions;
mod state;
mod welcome;

#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn main() {
    let welcome = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
        .is_some_and(|body| body.class_list().contains("welcome-body"));
    if welcome {
        yew::Renderer::<welcome::Welcome>::new().render();
    } else {
        yew::Renderer::<app::App>::new().render();
    }
}
