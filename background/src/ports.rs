//! The pages connected right now, and pushing events to them.

use std::cell::RefCell;

use gemipanel_browser::chrome::Port;
use gemipanel_core::messages::{Event, WorkerMessage};
use wasm_bindgen::JsValue;

thread_local! {
    static PORTS: RefCell<Vec<Port>> = const { RefCell::new(Vec::new()) };
}

pub fn add(port: Port) {
    PORTS.with(|ports| ports.borrow_mut().push(port));
}

pub fn remove(port: &Port) {
    PORTS.with(|ports| ports.borrow_mut().retain(|p| !p.is(port)));
}

pub fn is_empty() -> bool {
    PORTS.with(|ports| ports.borrow().is_empty())
}

/// Sends `event` to one page; a page that closed meanwhile is not an error.
pub fn send(port: &Port, event: Event) {
    let _ = port.post(&encode(&WorkerMessage::Event { event }));
}

/// Sends `event` to every open page.
pub fn broadcast(event: Event) {
    let message = encode(&WorkerMessage::Event { event });
    if message.is_undefined() {
        return;
    }
    let ports: Vec<Port> = PORTS.with(|ports| ports.borrow().clone());
    for port in ports {
        let _ = port.post(&message);
    }
}

/// The message as JSON text. Every message holds only JSON values and strings.
pub fn to_text(message: &WorkerMessage) -> String {
    serde_json::to_string(message).unwrap_or_default()
}

/// The message as a plain JS object (numbers stay numbers); `undefined` if that failed.
pub fn encode(message: &WorkerMessage) -> JsValue {
    js_sys::JSON::parse(&to_text(message)).unwrap_or_else(|err| {
        web_sys::console::error_1(&err);
        JsValue::UNDEFINED
    })
}
