//! Browser effects behind hooks.

use std::rc::Rc;

use gemipanel_browser::port::WorkerPort;
use gemipanel_core::messages::{Event, Request, Response};
use yew::prelude::*;

use crate::state::{Action, State};

/// The panel's port to the worker, connected once; worker events become actions.
#[hook]
pub fn use_worker_port(dispatcher: UseReducerDispatcher<State>) -> Rc<WorkerPort> {
    use_memo((), move |_| {
        WorkerPort::connect("sidepanel", move |event| match event {
            Event::WorkerStarted { .. } => dispatcher.dispatch(Action::WorkerStarted),
            _ => {}
        })
    })
}

/// Fetches the worker's status each time `epoch` changes.
#[hook]
pub fn use_worker_status(
    port: Rc<WorkerPort>,
    epoch: u32,
    dispatcher: UseReducerDispatcher<State>,
) {
    use_effect_with(epoch, move |_| {
        wasm_bindgen_futures::spawn_local(async move {
            let action = match port.request(Request::Status).await {
                Ok(Response::Status(status)) => Action::StatusLoaded(status),
                Ok(Response::Error { message }) => Action::StatusFailed(message),
                Ok(other) => Action::StatusFailed(format!("unexpected answer: {other:?}")),
                Err(err) => Action::StatusFailed(err.to_string()),
            };
            dispatcher.dispatch(action);
        });
    });
}
