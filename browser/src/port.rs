//! A page's long-lived connection to the worker.
//!
//! Requests carry ids and are matched to their responses; events are handed to a callback. An
//! open port keeps the worker alive, but Chrome may still stop it (updates, DevTools, crashes):
//! then requests in flight fail with a message saying so (retry-safe ones are sent once more),
//! and the port reconnects: at once, or a second after the last connect if the worker keeps
//! dropping us (a request in between reconnects sooner).
//!
//! Requests and their responses take the connection's fast lane once the worker has paired it
//! (see [`crate::channel`]); the runtime port carries events and the requests sent before that.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use futures_channel::oneshot;
use gemipanel_core::messages::{Event, Request, Response, WorkerMessage};
use wasm_bindgen::JsValue;

use crate::channel::{self, Channel};
use crate::chrome::{self, Port};
use crate::messaging::worker_message_from_js;
use crate::timers;
use crate::BrowserError;

/// The least interval between two connects made because the worker dropped the port.
const RECONNECT_QUIET_MS: f64 = 1_000.0;

pub struct WorkerPort {
    inner: Rc<RefCell<Inner>>,
}

impl Clone for WorkerPort {
    fn clone(&self) -> Self {
        Self { inner: self.inner.clone() }
    }
}

struct Inner {
    name: String,
    port: Option<Port>,
    last_connect_ms: f64,
    /// Whether a connection was attempted before the current one (see `ensure_connected`).
    connected_before: bool,
    next_id: u64,
    pending: HashMap<u64, oneshot::Sender<Response>>,
    on_event: Rc<dyn Fn(Event)>,
    /// The fast lane of the current connection, whether the worker has paired it, and whether
    /// requests already go there.
    lane: Option<Channel>,
    lane_ready: bool,
    lane_in_use: bool,
}

impl WorkerPort {
    /// Connects now; `on_event` receives every event the worker pushes.
    pub fn connect(name: &str, on_event: impl Fn(Event) + 'static) -> Self {
        let this = Self {
            inner: Rc::new(RefCell::new(Inner {
                name: name.to_owned(),
                port: None,
                last_connect_ms: f64::NEG_INFINITY,
                connected_before: false,
                next_id: 1,
                pending: HashMap::new(),
                on_event: Rc::new(on_event),
                lane: None,
                lane_ready: false,
                lane_in_use: false,
            })),
        };
        // A failure here is reported by the first request, which retries the connection.
        let _ = this.ensure_connected();
        this
    }

    /// Sends `request` and waits for the worker's response. When the worker stops before
    /// answering, a retry-safe request is sent once more on a fresh connection.
    pub async fn request(&self, request: Request) -> Result<Response, BrowserError> {
        let attempts = if request.is_retry_safe() { 2 } else { 1 };
        let request = serde_json::to_string(&request)
            .map_err(|e| BrowserError::new(format!("encoding a request: {e}")))?;
        let mut outcome = Err(BrowserError::new("no attempt made"));
        for _ in 0..attempts {
            outcome = self.send_once(&request).await;
            if outcome.is_ok() {
                break;
            }
        }
        outcome
    }

    /// Posts the request (JSON text, encoded once) with a fresh id: as text on the lane, where
    /// the worker parses it straight into its types, as an object on the port.
    async fn send_once(&self, request: &str) -> Result<Response, BrowserError> {
        let port = self.ensure_connected()?;
        let (id, answer, lane) = {
            let mut inner = self.inner.borrow_mut();
            // Onto the lane only with nothing in flight on the port: requests keep their order.
            if inner.lane_ready && inner.pending.is_empty() {
                inner.lane_in_use = true;
            }
            let id = inner.next_id;
            inner.next_id += 1;
            let (sender, answer) = oneshot::channel();
            inner.pending.insert(id, sender);
            (id, answer, inner.lane_in_use)
        };
        // A `ClientMessage`, without copying the request into one.
        let text = format!("{{\"id\":{id},\"request\":{request}}}");
        let sent = match self.inner.borrow().lane.as_ref().filter(|_| lane) {
            Some(lane) => lane.post(&JsValue::from_str(&text)),
            None => js_sys::JSON::parse(&text)
                .map_err(|e| BrowserError::from_js("encoding a request", e))
                .and_then(|message| port.post(&message)),
        };
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
        // The worker greets every connection with `WorkerStarted`. The page's first connection
        // is made as it starts, when it asks for everything anyway: that greeting is no news,
        // and passing it on made each page ask for its status, settings and servers twice.
        // A later one means a new worker (or a new connection to it): the page asks again. A
        // first attempt that failed counts: the page's first requests failed with it.
        let greeting_is_news = Cell::new(self.inner.borrow().connected_before);
        self.inner.borrow_mut().connected_before = true;
        let token = channel::token();
        let name = format!("{}{}{token}", self.inner.borrow().name, channel::TOKEN_SEPARATOR);
        let port = chrome::connect(&name)?;
        {
            let mut inner = self.inner.borrow_mut();
            inner.port = Some(port.clone());
            inner.last_connect_ms = js_sys::Date::now();
            inner.lane = None;
            inner.lane_ready = false;
            inner.lane_in_use = false;
        }
        self.open_lane(&token, &port);
        let weak = Rc::downgrade(&self.inner);
        port.on_message(move |message| {
            if let Some(inner) = weak.upgrade() {
                deliver(&inner, message, &greeting_is_news);
            }
        });
        let weak = Rc::downgrade(&self.inner);
        let this_port = port.clone();
        port.on_disconnect(move || {
            let Some(inner) = weak.upgrade() else { return };
            let quiet_left = {
                let mut state = inner.borrow_mut();
                if !state.port.as_ref().is_some_and(|p| p.is(&this_port)) {
                    return;
                }
                state.port = None;
                state.lane = None;
                state.lane_ready = false;
                state.lane_in_use = false;
                // Dropping the senders fails every request in flight.
                state.pending.clear();
                RECONNECT_QUIET_MS - (js_sys::Date::now() - state.last_connect_ms)
            };
            if quiet_left <= 0.0 {
                let _ = WorkerPort { inner }.ensure_connected();
                return;
            }
            // The worker keeps dropping us: once the quiet interval is over. A page that only
            // listens (the popup) sends no request to reconnect on, and would hear from the
            // worker no more.
            let weak = Rc::downgrade(&inner);
            wasm_bindgen_futures::spawn_local(async move {
                timers::sleep(Duration::from_millis(quiet_left.ceil() as u64)).await;
                if let Some(inner) = weak.upgrade().filter(|i| i.borrow().port.is_none()) {
                    let _ = WorkerPort { inner }.ensure_connected();
                }
            });
        });
        Ok(port)
    }

    /// Opens the fast lane of the connection `port`; until the worker pairs it (or if it never
    /// does) requests go on the port.
    fn open_lane(&self, token: &str, port: &Port) {
        let weak = Rc::downgrade(&self.inner);
        let this_port = port.clone();
        let on_ready = move || {
            let Some(inner) = weak.upgrade() else { return };
            let mut state = inner.borrow_mut();
            if state.port.as_ref().is_some_and(|p| p.is(&this_port)) {
                state.lane_ready = true;
            }
        };
        let weak = Rc::downgrade(&self.inner);
        // The lane carries answers; a greeting, which comes on the port, would be news here.
        let on_message = move |message| {
            if let Some(inner) = weak.upgrade() {
                deliver(&inner, message, &Cell::new(true));
            }
        };
        match Channel::open(token, on_ready, on_message) {
            Ok(lane) => self.inner.borrow_mut().lane = Some(lane),
            Err(err) => web_sys::console::warn_1(&format!("{err}; using the port alone").into()),
        }
    }
}

fn deliver(inner: &Rc<RefCell<Inner>>, message: JsValue, greeting_is_news: &Cell<bool>) {
    match worker_message_from_js(message) {
        Ok(WorkerMessage::Response { id, response }) => {
            let sender = inner.borrow_mut().pending.remove(&id);
            if let Some(sender) = sender {
                let _ = sender.send(response);
            }
        }
        Ok(WorkerMessage::Event { event: Event::WorkerStarted { .. } })
            if !greeting_is_news.replace(true) => {}
        Ok(WorkerMessage::Event { event }) => {
            let on_event = inner.borrow().on_event.clone();
            on_event(event);
        }
        Err(err) => web_sys::console::warn_1(&format!("ignoring a worker message: {err}").into()),
    }
}
