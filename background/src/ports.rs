//! The pages connected right now, and pushing events to them.

use std::cell::RefCell;

use gemipanel_browser::chrome::Port;
use gemipanel_core::messages::{Event, WorkerMessage};

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
    let _ = port.post(&crate::encode(&WorkerMessage::Event { event }));
}

/// Sends `event` to every open page.
pub fn broadcast(event: Event) {
    let message = crate::encode(&WorkerMessage::Event { event });
    if message.is_undefined() {
        return;
    }
    let ports: Vec<Port> = PORTS.with(|ports| ports.borrow().clone());
    for port in ports {
        let _ = port.post(&message);
    }
}
