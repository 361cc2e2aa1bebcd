//! The panel's long-lived connection to the worker: `gemipanel_browser::port::WorkerPort`, but
//! decoding into the panel's narrow [`worker_messages`](crate::worker_messages) types.
//!
//! Messages cross the wasm boundary as JSON text (`JSON.stringify`/`JSON.parse`) so that only
//! serde_json's (de)serializers are compiled in; the Gemini wire types and the saved chats use
//! them anyway, while a second set (serde-wasm-bindgen) for the protocol types costs wasm size.
//! The worker sees the same plain objects either way.
//!
//! Requests carry ids and are matched to their answers; events go to a callback. When Chrome
//! stops the worker, requests in flight fail with a message saying so, and the port reconnects —
//! at once for the first disconnect, lazily on the next request if the worker keeps dropping us.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futures_channel::oneshot;
use gemipanel_browser::chrome::{self, Port};
use gemipanel_browser::BrowserError;
use gemipanel_core::messages::{ClientMessage, Request};
use wasm_bindgen::JsValue;

use crate::worker_messages::{decode, Incoming, Reply, WorkerEvent};

/// Below this interval between two connects, reconnection waits for the next request.
const RECONNECT_QUIET_MS: f64 = 1_000.0;

#[derive(Clone)]
pub struct WorkerPort {
    inner: Rc<RefCell<Inner>>,
}

struct Inner {
    name: String,
    port: Option<Port>,
    last_connect_ms: f64,
    next_id: u64,
    pending: HashMap<u64, oneshot::Sender<Reply>>,
    on_event: Rc<dyn Fn(WorkerEvent)>,
}

impl WorkerPort {
    /// Connects now; `on_event` receives every event the worker pushes.
    pub fn connect(name: &str, on_event: impl Fn(WorkerEvent) + 'static) -> Self {
        let this = Self {
            inner: Rc::new(RefCell::new(Inner {
                name: name.to_owned(),
                port: None,
                last_connect_ms: f64::NEG_INFINITY,
                next_id: 1,
                pending: HashMap::new(),
                on_event: Rc::new(on_event),
            })),
        };
        // A failure here is reported by the first request, which retries the connection.
        let _ = this.ensure_connected();
        this
    }

    /// Sends `request` and waits for the worker's answer. When the worker stops before
    /// answering, a retry-safe request is sent once more on a fresh connection.
    pub async fn request(&self, request: Request) -> Result<Reply, BrowserError> {
        let attempts = if request.is_retry_safe() { 2 } else { 1 };
        let message = encode(&ClientMessage { id: 0, request })?;
        let mut outcome = Err(BrowserError::new("no attempt made"));
        for _ in 0..attempts {
            outcome = self.send_once(&message).await;
            if outcome.is_ok() {
                break;
            }
        }
        outcome
    }

    /// Posts `message` (encoded once, its `id` replaced for each attempt).
    async fn send_once(&self, message: &JsValue) -> Result<Reply, BrowserError> {
        let port = self.ensure_connected()?;
        let (id, answer) = {
            let mut inner = self.inner.borrow_mut();
            let id = inner.next_id;
            inner.next_id += 1;
            let (sender, answer) = oneshot::channel();
            inner.pending.insert(id, sender);
            (id, answer)
        };
        let sent = js_sys::Reflect::set(message, &"id".into(), &JsValue::from_f64(id as f64))
            .map_err(|e| BrowserError::from_js("numbering a request", e))
            .and_then(|_| port.post(message));
        if let Err(err) = sent {
            // Posting fails on a port Chrome already closed; forget it so the retry reconnects.
            let mut inner = self.inner.borrow_mut();
            inner.pending.remove(&id);
            if inner.port.as_ref().is_some_and(|p| p.is(&port)) {
                inner.port = None;
            }
            return Err(err);
        }
        answer.await.map_err(|_| {
            BrowserError::new("the background worker stopped before answering; please try again")
        })
    }

    fn ensure_connected(&self) -> Result<Port, BrowserError> {
        if let Some(port) = self.inner.borrow().port.clone() {
            return Ok(port);
        }
        let name = self.inner.borrow().name.clone();
        let port = chrome::connect(&name)?;
        {
            let mut inner = self.inner.borrow_mut();
            inner.port = Some(port.clone());
            inner.last_connect_ms = js_sys::Date::now();
        }
        let weak = Rc::downgrade(&self.inner);
        port.on_message(move |message| {
            if let Some(inner) = weak.upgrade() {
                deliver(&inner, &message);
            }
        });
        let weak = Rc::downgrade(&self.inner);
        let this_port = port.clone();
        port.on_disconnect(move || {
            let Some(inner) = weak.upgrade() else { return };
            let reconnect_now = {
                let mut state = inner.borrow_mut();
                if !state.port.as_ref().is_some_and(|p| p.is(&this_port)) {
                    return;
                }
                state.port = None;
                // Dropping the senders fails every request in flight.
                state.pending.clear();
                js_sys::Date::now() - state.last_connect_ms > RECONNECT_QUIET_MS
            };
            if reconnect_now {
                let _ = WorkerPort { inner }.ensure_connected();
            }
        });
        Ok(port)
    }
}

/// A plain JS object, as the worker expects it.
fn encode(message: &ClientMessage) -> Result<JsValue, BrowserError> {
    let text = serde_json::to_string(message)
        .map_err(|e| BrowserError::new(format!("encoding a request: {e}")))?;
    js_sys::JSON::parse(&text).map_err(|e| BrowserError::from_js("encoding a request", e))
}

fn deliver(inner: &Rc<RefCell<Inner>>, message: &JsValue) {
    // Only what the worker posted arrives here, and that is plain JSON; anything else is ignored.
    let decoded = match js_sys::JSON::stringify(message).ok().and_then(|t| t.as_string()) {
        Some(text) => decode(&text),
        None => Err("ignoring a worker message that is not JSON".to_owned()),
    };
    match decoded {
        Ok(Incoming::Response { id, response }) => {
            let sender = inner.borrow_mut().pending.remove(&id);
            if let Some(sender) = sender {
                let _ = sender.send(response);
            }
        }
        Ok(Incoming::Event { event }) => {
            let on_event = inner.borrow().on_event.clone();
            on_event(event);
        }
        Err(err) => web_sys::console::warn_1(&err.into()),
    }
}
