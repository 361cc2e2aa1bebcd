//! A tool call of the model's: its route (a server, the browser, the page, an app's own
//! tool), the person's decision when it must be asked, the call through the worker, and its
//! outcome back to the chat; Stop cancels it at the worker.

use std::rc::Rc;

use gemipanel_browser::chrome::{self, word};
use gemipanel_core::gemini::{ToolCall, ToolOutcome};
use gemipanel_core::messages::{Caller, Request, Response};
use gemipanel_core::settings::source::SourceKind;
use gemipanel_core::settings::{SettingsEdit, SourceChange};
use gemipanel_core::tools::confirm::Verdict;
use gemipanel_core::tools::ToolRoute;
use serde_json::Value;

use super::{now_ms, server_id, Confirmation, Decision, Driver};
use crate::state::{Action, ToolCard};
use crate::tool_text::result_text;

impl Driver {
    pub(super) fn start_call(&self, call: ToolCall) {
        let view = self.0.borrow().tools.view_route(&call.name).cloned();
        if let Some(route) = view {
            return self.start_view_call(call, route);
        }
        let route = self.0.borrow().tools.route(&call.name).cloned();
        let Some(route) = route else {
            // The model reads English; the person, their language.
            let message = format!("There is no tool named {} in this chat.", call.name);
            self.dispatch(Action::Notice(chrome::message("panelNoSuchTool", &[&call.name])));
            self.0.borrow_mut().chat.handle_tool_result(&call.call_id, ToolOutcome::Error(message));
            return self.pump();
        };
        let (mut card, verdict) = {
            let inner = self.0.borrow();
            let verdict = inner.verdict(&route);
            let facts = inner.servers.get(&route.server_id);
            let trusted = facts.is_some_and(|f| f.trust);
            let read_only =
                facts.and_then(|f| f.read_only.get(&route.tool_name).copied().flatten());
            let args = serde_json::to_string_pretty(&call.args).unwrap_or_default();
            let name = facts.map(|f| f.name.clone()).unwrap_or_else(|| route.server_id.clone());
            let card = ToolCard::asked(
                &call.call_id,
                &route.server_id,
                &name,
                &route.tool_name,
                args,
                read_only,
                trusted,
            );
            (card, verdict)
        };
        card.found_by_search = call.found_by_search;
        card.asked_for_page_content = verdict == Verdict::Ask { because_of_page_content: true };
        self.dispatch(Action::ToolAsked(card));
        if verdict != Verdict::Run {
            self.0.borrow_mut().waiting.insert(call.call_id.clone(), (call, route));
        } else {
            self.run_allowed(call, route);
        }
    }

    /// Runs a call that may run (its server or tool is trusted, or the person allowed it). Its
    /// app, if it has one, shows and its resource is read only now: nothing of an untrusted
    /// server's app runs before the person agreed to the call.
    pub(super) fn run_allowed(&self, call: ToolCall, route: ToolRoute) {
        if let Some(app) = self.app_card(&route, &call) {
            let (uri, tool) = (app.uri.clone(), app.tool.clone());
            self.dispatch(Action::AppShown { call_id: call.call_id.clone(), app });
            self.0.borrow_mut().apps_starting.insert(call.call_id.clone());
            self.load_app(&call.call_id, &route.server_id, uri, tool);
        }
        self.run_call(call, route, false);
    }

    /// The person answered on a tool card.
    pub fn decide(&self, call_id: &str, decision: Decision) {
        match decision {
            Decision::Confirm(confirmation) => self.confirmed(call_id, confirmation),
            Decision::SignIn(choice) => self.sign_in_decided(call_id, choice),
            Decision::Access(allow) => self.access_decided(call_id, allow),
        }
    }

    pub(super) fn confirmed(&self, call_id: &str, decision: Confirmation) {
        if self.view_call_confirmed(call_id, decision != Confirmation::Deny) {
            return;
        }
        let Some((call, route)) = self.0.borrow_mut().waiting.shift_remove(call_id) else { return };
        let edit = match decision {
            Confirmation::Deny => {
                self.dispatch(Action::ToolDenied { call_id: call_id.to_owned() });
                let outcome = ToolOutcome::Error("The user denied this tool call.".into());
                self.0.borrow_mut().chat.handle_tool_result(call_id, outcome);
                return self.pump();
            }
            Confirmation::AllowOnce => None,
            Confirmation::StopAskingAfterWebContent => Some(SettingsEdit::SetSource {
                source: route.server_id.clone(),
                change: SourceChange::PageContentCheck(false),
            }),
            Confirmation::AlwaysTool if SourceKind::of(&route.server_id) != SourceKind::Mcp => {
                Some(SettingsEdit::SetSource {
                    source: route.server_id.clone(),
                    change: SourceChange::AllowTool(route.tool_name.clone()),
                })
            }
            Confirmation::AlwaysServer if SourceKind::of(&route.server_id) != SourceKind::Mcp => {
                Some(SettingsEdit::SetSource {
                    source: route.server_id.clone(),
                    change: SourceChange::Trust(true),
                })
            }
            Confirmation::AlwaysTool => Some(SettingsEdit::AllowTool {
                id: server_id(&route.server_id),
                tool: route.tool_name.clone(),
            }),
            Confirmation::AlwaysServer => {
                Some(SettingsEdit::SetTrust { id: server_id(&route.server_id), trust: true })
            }
        };
        let mut also_run = Vec::new();
        if let Some(edit) = edit {
            let mut inner = self.0.borrow_mut();
            if decision == Confirmation::StopAskingAfterWebContent {
                inner.skip_page_content_check.insert(route.server_id.clone());
            } else if let Some(facts) = inner.servers.get_mut(&route.server_id) {
                match &edit {
                    SettingsEdit::AllowTool { tool, .. }
                    | SettingsEdit::SetSource { change: SourceChange::AllowTool(tool), .. } => {
                        facts.allowed.insert(tool.clone());
                    }
                    _ => facts.trust = true,
                }
            }
            if decision == Confirmation::AlwaysServer {
                // Other calls of the same server in this round need no question any more,
                // unless they ask because of web content.
                let same: Vec<String> = inner
                    .waiting
                    .iter()
                    .filter(|(_, (_, r))| {
                        r.server_id == route.server_id && inner.verdict(r) == Verdict::Run
                    })
                    .map(|(id, _)| id.clone())
                    .collect();
                also_run.extend(same.iter().filter_map(|id| inner.waiting.shift_remove(id)));
            }
            let port = inner.port.clone();
            let dispatch = inner.dispatch.clone();
            drop(inner);
            wasm_bindgen_futures::spawn_local(async move {
                let answer = port.request(Request::EditSettings { edit }).await;
                let failure = match answer {
                    Ok(Response::Error { error }) => Some(word(&error)),
                    Err(err) => Some(err.to_string()),
                    Ok(_) => None,
                };
                if let Some(message) = failure {
                    dispatch
                        .emit(Action::Notice(chrome::message("panelRememberFailed", &[&message])));
                }
            });
        }
        self.run_allowed(call, route);
        for (call, route) in also_run {
            self.run_allowed(call, route);
        }
    }

    /// Runs a call; `after_sign_in` when it is the one retry after the person signed in.
    pub(super) fn run_call(&self, call: ToolCall, route: ToolRoute, after_sign_in: bool) {
        match SourceKind::of(&route.server_id) {
            SourceKind::Browser => return self.run_browser_call(call, route),
            SourceKind::Page => return self.run_page_call(call, route),
            SourceKind::Mcp => {}
        }
        let call_id = call.call_id.clone();
        self.dispatch(Action::ToolStarted { call_id: call_id.clone(), now_ms: now_ms() });
        let port = self.0.borrow().port.clone();
        let this = self.clone();
        let request = Request::CallTool {
            call_id: call_id.clone(),
            server_id: server_id(&route.server_id),
            tool: route.tool_name.clone(),
            arguments: Value::Object(call.args.clone()),
            caller: Caller::Model,
            consent: Default::default(),
        };
        wasm_bindgen_futures::spawn_local(async move {
            let (outcome, text, is_error) = match port.request(request).await {
                Ok(Response::SignInNeeded { error, .. }) if !after_sign_in => {
                    return this.await_sign_in(call, route, word(&error));
                }
                Ok(Response::ToolResult { result }) => {
                    let result = Rc::new(result);
                    this.dispatch(Action::AppResult {
                        call_id: call_id.clone(),
                        result: result.clone(),
                    });
                    let result = Rc::unwrap_or_clone(result);
                    let (text, is_error) = result_text(&result, word);
                    (ToolOutcome::Mcp(result), text, is_error)
                }
                // The model reads the English; the person, their language.
                Ok(Response::Error { error } | Response::SignInNeeded { error, .. }) => {
                    (ToolOutcome::Error(error.to_string()), word(&error), true)
                }
                Ok(_) => {
                    let message = "unexpected answer from the worker".to_owned();
                    (ToolOutcome::Error(message.clone()), message, true)
                }
                Err(err) => (ToolOutcome::Error(err.to_string()), err.to_string(), true),
            };
            this.finish_tool_call(call_id, outcome, text, is_error);
        });
    }

    /// A tool call ended (a server's or an app's): its card shows the result and the chat goes on.
    pub(super) fn finish_tool_call(
        &self,
        call_id: String,
        outcome: ToolOutcome,
        text: String,
        is_error: bool,
    ) {
        self.dispatch(Action::ToolFinished {
            call_id: call_id.clone(),
            result: text,
            is_error,
            now_ms: now_ms(),
        });
        let Some(outcome) = self.hold_for_app_tools(&call_id, outcome, is_error) else { return };
        self.0.borrow_mut().chat.handle_tool_result(&call_id, outcome);
        self.pump();
    }

    pub(super) fn cancel_call(&self, call_id: String) {
        let was_waiting = {
            let mut inner = self.0.borrow_mut();
            let asked = inner.waiting.shift_remove(&call_id).is_some()
                || inner.waiting_views.shift_remove(&call_id).is_some()
                || inner.needs_access.shift_remove(&call_id).is_some();
            asked || inner.signing_in.shift_remove(&call_id).is_some()
        };
        self.dispatch(Action::ToolCancelled { call_id: call_id.clone() });
        if was_waiting {
            return;
        }
        let port = self.0.borrow().port.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let _ = port.request(Request::CancelToolCall { call_id }).await;
        });
    }
}
