//! The worker's state: everything it holds in memory, in one place.
//!
//! It all dies with the worker (Chrome stops an idle one after 30 s); what must outlive it is in
//! `chrome.storage`. Each part has a cell of its own, so one module's borrow never blocks
//! another's (a step that holds one part may call a module that takes another).

use std::cell::Cell;

use crate::events::{Dispatcher, WorkerEvent};

pub struct Worker {
    started_at_ms: Cell<f64>,
    dispatcher: Cell<Option<Dispatcher>>,
}

thread_local! {
    static WORKER: Worker = const {
        Worker { started_at_ms: Cell::new(0.0), dispatcher: Cell::new(None) }
    };
}

/// Runs `f` on the worker's state.
pub fn with<R>(f: impl FnOnce(&Worker) -> R) -> R {
    WORKER.with(f)
}

/// The worker started (`start`), handing its events to `dispatcher`.
pub fn started(dispatcher: Dispatcher) {
    with(|w| {
        w.started_at_ms.set(js_sys::Date::now());
        w.dispatcher.set(Some(dispatcher));
    });
}

pub fn uptime_ms() -> u64 {
    let started = with(|w| w.started_at_ms.get());
    (js_sys::Date::now() - started).max(0.0) as u64
}

/// Hands `event` to the dispatcher. `background.js` calls `start` before anything else, so
/// there is always one.
pub fn raise(event: WorkerEvent<'_>) {
    match with(|w| w.dispatcher.get()) {
        Some(dispatch) => dispatch(event),
        None => web_sys::console::error_1(&"GemiPanel: an event before the worker started".into()),
    }
}
