//! The pages connected right now, and pushing events to them.

use gemipanel_browser::chrome::Port;
use gemipanel_core::messages::{Event, WorkerMessage};
use wasm_bindgen::JsValue;

use crate::worker;

fn open_ports<R>(f: impl FnOnce(&std::cell::RefCell<Vec<Port>>) -> R) -> R {
    worker::with(|w| f(&w.ports))
}

pub fn add(port: Port) {
    open_ports(|ports| ports.borrow_mut().push(port));
}

pub fn remove(port: &Port) {
    open_ports(|ports| ports.borrow_mut().retain(|p| !p.is(port)));
}

pub fn is_empty() -> bool {
    open_ports(|ports| ports.borrow().is_empty())
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
    let ports: Vec<Port> = open_ports(|ports| ports.borrow().clone());
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
