//! A tool call whose server wants the person to sign in: the card offers Sign in, the worker
//! opens the browser's sign-in window, and the call runs once more after a sign-in. Skipping
//! (or Stop) answers the model with an error.

use gemipanel_browser::chrome::{self, word};
use gemipanel_browser::port::WorkerPort;
use gemipanel_core::gemini::{ToolCall, ToolOutcome};
use gemipanel_core::messages::{Request, Response, SignInOutcome};
use gemipanel_core::settings::ServerId;
use gemipanel_core::tools::ToolRoute;

use super::{server_id, Driver, SignInChoice};
use crate::state::{Action, SignInStep};

pub(super) struct Waiting {
    call: ToolCall,
    route: ToolRoute,
    /// The authorization server's origin, when the browser refused to reach it.
    origin: Option<String>,
}

impl Driver {
    /// The server answered that the person must sign in: the card asks.
    pub(super) fn await_sign_in(&self, call: ToolCall, route: ToolRoute, message: String) {
        let call_id = call.call_id.clone();
        self.0
            .borrow_mut()
            .signing_in
            .insert(call_id.clone(), Waiting { call, route, origin: None });
        self.dispatch(Action::ToolNeedsSignIn { call_id, message, origin: None, busy: false });
    }

    pub(super) fn sign_in_decided(&self, call_id: &str, choice: SignInChoice) {
        let Some(waiting) = self.0.borrow_mut().signing_in.shift_remove(call_id) else { return };
        match choice {
            SignInChoice::AllowAndSignIn => {
                let Some(origin) = waiting.origin.clone() else { return self.sign_in(waiting) };
                // Asked inside the click; the answer comes later.
                let asked = chrome::request_origins(&[format!("{origin}/*")]);
                let this = self.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    match asked.await {
                        Ok(true) => this.sign_in(waiting),
                        Ok(false) => {
                            let message =
                                chrome::message("panelSignInPermissionDenied", &[&origin]);
                            this.still_waiting(waiting, message);
                        }
                        Err(err) => this.still_waiting(waiting, err.to_string()),
                    }
                });
            }
            SignInChoice::Skip => {
                let server = {
                    let inner = self.0.borrow();
                    let facts = inner.servers.get(&waiting.route.server_id);
                    facts.map_or_else(|| waiting.route.server_id.clone(), |f| f.name.clone())
                };
                self.dispatch(Action::ToolCancelled { call_id: call_id.to_owned() });
                let message =
                    format!("The user did not sign in to {server}, so the tool did not run.");
                self.0.borrow_mut().chat.handle_tool_result(call_id, ToolOutcome::Error(message));
                self.pump();
            }
            SignInChoice::SignIn => self.sign_in(waiting),
        }
    }

    fn sign_in(&self, waiting: Waiting) {
        let call_id = waiting.call.call_id.clone();
        self.dispatch(Action::ToolSignInStarted { call_id });
        let port = self.0.borrow().port.clone();
        let server_id = server_id(&waiting.route.server_id);
        let this = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            match sign_in_at(&port, server_id).await {
                Ok(()) => this.run_call(waiting.call, waiting.route, true),
                Err(NotSignedIn { message, origin: Some(origin) }) => {
                    this.still_waiting(Waiting { origin: Some(origin), ..waiting }, message)
                }
                Err(NotSignedIn { message, origin: None }) => this.still_waiting(waiting, message),
            }
        });
    }

    /// The sign-in did not happen: the card asks again, saying why.
    fn still_waiting(&self, waiting: Waiting, message: String) {
        let call_id = waiting.call.call_id.clone();
        let origin = waiting.origin.clone();
        self.0.borrow_mut().signing_in.insert(call_id.clone(), waiting);
        self.dispatch(Action::ToolNeedsSignIn { call_id, message, origin, busy: false });
    }
}

/// A notice that a server's tools wait for a sign-in offers it (the server has no tools in
/// the chat, so no card would): once signed in, the tools are asked for again at once and the
/// notice offers to send the turn again.
impl Driver {
    /// `origin`: the authorization server the browser must first be allowed to reach, asked
    /// inside the click.
    pub fn sign_in_from_notice(&self, server_id: String, origin: Option<String>) {
        let Some(origin) = origin else { return self.notice_sign_in(server_id) };
        let asked = chrome::request_origins(&[format!("{origin}/*")]);
        let this = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let problem = match asked.await {
                Ok(true) => return this.notice_sign_in(server_id),
                Ok(false) => chrome::message("panelSignInPermissionDenied", &[&origin]),
                Err(err) => err.to_string(),
            };
            let step = SignInStep::Offered { problem: Some(problem), origin: Some(origin) };
            this.dispatch(Action::NoticeSignIn { server_id, step });
        });
    }

    fn notice_sign_in(&self, server_id: String) {
        self.dispatch(Action::NoticeSignIn {
            server_id: server_id.clone(),
            step: SignInStep::Busy,
        });
        let port = self.0.borrow().port.clone();
        let this = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let step = match sign_in_at(&port, super::server_id(&server_id)).await {
                Ok(()) => {
                    this.signed_in_from_notice(&server_id);
                    SignInStep::SignedIn
                }
                Err(NotSignedIn { message, origin }) => {
                    SignInStep::Offered { problem: Some(message), origin }
                }
            };
            this.dispatch(Action::NoticeSignIn { server_id, step });
        });
    }
}

/// Why a sign-in did not happen, in words; `origin` when the browser must first be allowed to
/// reach the authorization server.
struct NotSignedIn {
    message: String,
    origin: Option<String>,
}

/// Asks the worker to sign in to `server_id` (the browser's sign-in window).
async fn sign_in_at(port: &WorkerPort, server_id: ServerId) -> Result<(), NotSignedIn> {
    let failed = |message: String| Err(NotSignedIn { message, origin: None });
    match port.request(Request::SignIn { server_id }).await {
        Ok(Response::SignIn { outcome: SignInOutcome::SignedIn { .. } }) => Ok(()),
        Ok(Response::SignIn { outcome: SignInOutcome::Cancelled }) => {
            failed(chrome::message("panelSignInCancelled", &[]))
        }
        Ok(Response::SignIn { outcome: SignInOutcome::NeedsPermission { origin } }) => {
            let message = chrome::message("panelSignInNeedsPermission", &[&origin]);
            Err(NotSignedIn { message, origin: Some(origin) })
        }
        Ok(Response::SignIn { outcome: SignInOutcome::Failed { error } })
        | Ok(Response::Error { error }) => failed(word(&error)),
        Ok(_) => failed(chrome::message("errWorkerUnexpectedAnswer", &[])),
        Err(err) => failed(err.to_string()),
    }
}
