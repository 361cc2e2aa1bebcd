//! The service worker.
//!
//! `background.js` registers the `chrome.runtime` listeners synchronously (so no message is
//! lost while wasm compiles) and forwards to the exports below once `start` has run. Lasting
//! state lives in `chrome.storage`; what dies with the worker is its one `Worker` (`worker`).
//! `start` installs the dispatcher of the worker's events (`events`, `dispatch`).

mod auth;
mod calls;
mod dispatch;
mod events;
mod installed;
mod listen;
mod local;
mod menu;
mod passphrase;
mod ports;
mod registry;
mod reset;
mod resource_watch;
mod router;
mod servers;
mod settings;
mod settings_sync;
mod store;
mod transport;
mod vault;
mod worker;

use gemipanel_browser::chrome::{self, Port};
use gemipanel_browser::messaging::{from_js, from_text_or_js};
use gemipanel_browser::BrowserError;
use gemipanel_core::messages::{decode_client_message, Event, WorkerMessage};
use wasm_bindgen::prelude::*;

/// Called once by `background.js` after the module is instantiated.
#[wasm_bindgen]
pub fn start() {
    worker::started(dispatch::dispatch);
    // After the first message: this reads all of storage once a browser session.
    wasm_bindgen_futures::spawn_local(async {
        gemipanel_browser::timers::sleep(std::time::Duration::from_secs(2)).await;
        auth::clean_orphans().await;
    });
    settings_sync::start();
}

/// A one-shot message (`chrome.runtime.sendMessage`); resolves to the reply.
#[wasm_bindgen]
pub async fn on_message(message: JsValue) -> JsValue {
    let reply = handle(from_js(message), None).await;
    ports::encode(&reply)
}

/// A page opened a port.
#[wasm_bindgen]
pub fn on_connect(port: Port) {
    let hello = WorkerMessage::Event {
        event: Event::WorkerStarted { extension_version: chrome::extension_version() },
    };
    let _ = port.post(&ports::encode(&hello));
    ports::add(port.clone());
    listen::resume();
    listen::sync();
    // A settings problem is told to every page until the person dismisses it.
    wasm_bindgen_futures::spawn_local(async move {
        if let Some(problem) = store::problem().await {
            ports::send(&port, Event::SettingsProblem { problem });
        }
    });
}

/// A message arrived on a page's port, or on its fast lane (`lane`, see `background.js`): then
/// it came as JSON text and the reply goes back on the lane as JSON text, which each side parses
/// straight into its own types (a page takes an app's HTML out in JS first:
/// `browser::messaging::worker_message_from_js`). Either way the request's events go to `port`.
#[wasm_bindgen]
pub fn on_port_message(port: Port, message: JsValue, lane: Option<js_sys::Function>) {
    wasm_bindgen_futures::spawn_local(async move {
        let message = if lane.is_some() { from_text_or_js(message) } else { from_js(message) };
        let text = ports::to_text(&handle(message, Some(port.clone())).await);
        // The page may have closed meanwhile; nothing is waiting then.
        let _ = match lane {
            Some(lane) => lane.call1(&JsValue::NULL, &text.into()).map(drop),
            None => js_sys::JSON::parse(&text).map(|message| drop(port.post(&message))),
        };
    });
}

#[wasm_bindgen]
pub fn on_disconnect(port: Port) {
    ports::remove(&port);
    calls::port_closed(&port);
    resource_watch::port_closed(&port);
    listen::sync();
}

async fn handle(
    message: Result<serde_json::Value, BrowserError>,
    port: Option<Port>,
) -> WorkerMessage {
    let value = match message {
        Ok(value) => value,
        Err(err) => {
            let reason = err.message().to_owned();
            return gemipanel_core::messages::DecodeError { id: None, reason }.into_reply();
        }
    };
    match decode_client_message(value) {
        Ok(message) => WorkerMessage::Response {
            id: message.id,
            response: router::route(message.request, port).await,
        },
        Err(err) => err.into_reply(),
    }
}
