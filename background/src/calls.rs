//! Tool calls in progress: their progress events, the server's questions (elicitations) to the
//! page that made the call, and cancellation.

use std::cell::{Cell, RefCell};

use futures_channel::oneshot;
use gemipanel_browser::chrome::Port;
use gemipanel_core::mcp::{CallEvent, CallHandler, CancelToken, ElicitRequest, ElicitResult};
use gemipanel_core::messages::{ElicitationPrompt, Event};
use gemipanel_core::settings::Server;

use crate::worker::{self, PendingElicitation, RunningCall};
use crate::{ports, registry};

fn running<R>(f: impl FnOnce(&RefCell<Vec<RunningCall>>) -> R) -> R {
    worker::with(|w| f(&w.calls))
}

fn elicitations<R>(f: impl FnOnce(&RefCell<Vec<PendingElicitation>>) -> R) -> R {
    worker::with(|w| f(&w.elicitations))
}

/// The next number of `counter`, from 1.
fn next(counter: impl FnOnce(&worker::Worker) -> &Cell<u64>) -> u64 {
    worker::with(|w| {
        let n = counter(w);
        n.replace(n.get() + 1)
    })
}

/// Whoever made the call: the page's port when it holds one (a one-shot message has none, so
/// its calls get no events and their elicitations are declined).
pub struct PageHandler<'a> {
    pub call_id: String,
    pub port: Option<Port>,
    pub server: &'a Server,
}

impl CallHandler for PageHandler<'_> {
    fn on_event(&self, event: CallEvent) {
        match event {
            CallEvent::Progress(p) => {
                if let Some(port) = &self.port {
                    let event = Event::ToolProgress {
                        call_id: self.call_id.clone(),
                        progress: p.progress,
                        total: p.total,
                        message: p.message,
                    };
                    ports::send(port, event);
                }
            }
            CallEvent::ToolsListChanged => registry::tools_changed(self.server.clone()),
            CallEvent::PromptsListChanged => {
                ports::broadcast(Event::PromptsChanged { server_id: self.server.id.clone() })
            }
            // A subscribed resource changed (`resource_watch`); the pages mark what they follow.
            CallEvent::ResourceUpdated { uri } => {
                ports::broadcast(Event::ResourceUpdated { server_id: self.server.id.clone(), uri })
            }
            _ => {}
        }
    }

    async fn elicit(&self, request: ElicitRequest) -> ElicitResult {
        let Some(port) = &self.port else {
            return ElicitResult::decline();
        };
        let n = next(|w| &w.next_elicitation);
        let elicitation_id = format!("{}#{n}", self.call_id);
        let prompt = match request {
            ElicitRequest::Form { message, requested_schema, defaults } => {
                ElicitationPrompt::Form { message, requested_schema, defaults }
            }
            ElicitRequest::Url { message, url, .. } => ElicitationPrompt::Url { message, url },
        };
        let (answer, receiver) = oneshot::channel();
        let pending = PendingElicitation {
            elicitation_id: elicitation_id.clone(),
            port: port.clone(),
            answer,
        };
        elicitations(|e| e.borrow_mut().push(pending));
        ports::send(
            port,
            Event::Elicitation {
                call_id: self.call_id.clone(),
                elicitation_id: elicitation_id.clone(),
                prompt,
            },
        );
        // Forgets the question however the wait ends, also when the call is cancelled meanwhile.
        let _forget = Forget(elicitation_id);
        // The sender is dropped when the page goes away: then nobody can answer.
        receiver.await.unwrap_or_else(|_| ElicitResult::decline())
    }
}

struct Forget(String);

impl Drop for Forget {
    fn drop(&mut self) {
        take_elicitation(&self.0);
    }
}

/// Registers a running call so [`cancel`] finds it; unregisters when the guard drops.
pub fn register(call_id: &str) -> CallGuard {
    let token = CancelToken::new();
    let serial = next(|w| &w.next_call);
    let call = RunningCall { call_id: call_id.to_owned(), serial, token: token.clone() };
    running(|c| {
        let mut calls = c.borrow_mut();
        // A reused id now names this call only.
        calls.retain(|r| r.call_id != call_id);
        calls.push(call);
    });
    CallGuard { serial, token }
}

pub struct CallGuard {
    serial: u64,
    pub token: CancelToken,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        // A later call may have reused the id; remove only our own.
        running(|c| c.borrow_mut().retain(|r| r.serial != self.serial));
    }
}

/// Cancels the call; false when no call of that id is running.
pub fn cancel(call_id: &str) -> bool {
    let token =
        running(|c| c.borrow().iter().find(|r| r.call_id == call_id).map(|r| r.token.clone()));
    match token {
        Some(token) => {
            token.cancel();
            true
        }
        None => false,
    }
}

/// Hands the person's answer to the waiting call; false when it is no longer waiting.
pub fn answer(elicitation_id: &str, result: ElicitResult) -> bool {
    match take_elicitation(elicitation_id) {
        Some(pending) => pending.answer.send(result).is_ok(),
        None => false,
    }
}

/// A page closed: its open questions are declined (dropping the senders does that).
pub fn port_closed(port: &Port) {
    elicitations(|e| e.borrow_mut().retain(|p| !p.port.is(port)));
}

fn take_elicitation(elicitation_id: &str) -> Option<PendingElicitation> {
    elicitations(|e| {
        let mut pending = e.borrow_mut();
        let at = pending.iter().position(|p| p.elicitation_id == elicitation_id)?;
        Some(pending.swap_remove(at))
    })
}
