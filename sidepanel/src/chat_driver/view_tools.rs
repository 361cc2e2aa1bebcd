//! The tools the apps in the chat offer of their own: declared to the model beside the
//! servers' tools while their app runs, always confirmed by the person, and run by the app.

use gemipanel_browser::app_frame::ViewToolCaller;
use std::time::Duration;

use gemipanel_browser::{chrome, timers};
use gemipanel_core::apps::view_tools::SHOWN_APP_TOOLS_WAIT_MS;
use gemipanel_core::gemini::{ToolCall, ToolOutcome};
use gemipanel_core::mcp::Tool;
use gemipanel_core::text::Text;
use gemipanel_core::tools::{ExposedTools, ViewToolRoute};

use super::{now_ms, Driver};
use crate::state::{Action, ToolCard};
use crate::tool_text::result_text;

/// One running app's own tools.
pub(super) struct ViewToolSet {
    /// Which app, for the model ("show_counter (Apps)").
    label: String,
    /// Which app, for the person.
    shown_as: String,
    tools: Vec<Tool>,
    caller: ViewToolCaller,
}

impl Driver {
    /// The app of call `instance` offers `tools` (none: it stopped, or offers none). The next
    /// model request declares them, in this turn too.
    pub fn set_view_tools(
        &self,
        instance: &str,
        (tool_name, server_name): (&str, &str),
        tools: Vec<Tool>,
        caller: Option<ViewToolCaller>,
    ) {
        let mut inner = self.0.borrow_mut();
        match caller.filter(|_| !tools.is_empty()) {
            Some(caller) => {
                let set = ViewToolSet {
                    label: format!("{tool_name} ({server_name})"),
                    shown_as: chrome::message("panelViewToolOrigin", &[tool_name, server_name]),
                    tools,
                    caller,
                };
                inner.view_tools.insert(instance.to_owned(), set);
            }
            None => {
                inner.view_tools.shift_remove(instance);
            }
        }
        inner.apps_starting.shift_remove(instance);
        drop(inner);
        // An app the turn's call just showed can be asked without waiting for the person's
        // next message, and in the very next request when its call's result waits for it.
        self.redeclare_tools();
        self.release_held_result(instance);
    }

    /// The result of a call whose app has not said yet what tools it offers waits for it, at
    /// most `SHOWN_APP_TOOLS_WAIT_MS`, so the next request can offer them ("show the picker
    /// and pick" works in one turn). `None`: held.
    pub(super) fn hold_for_app_tools(
        &self,
        call_id: &str,
        outcome: ToolOutcome,
        is_error: bool,
    ) -> Option<ToolOutcome> {
        let mut inner = self.0.borrow_mut();
        // A failed call's app has nothing to offer for it.
        if !inner.apps_starting.contains(call_id) || is_error {
            inner.apps_starting.shift_remove(call_id);
            return Some(outcome);
        }
        inner.held_results.insert(call_id.to_owned(), outcome);
        drop(inner);
        let (this, call_id) = (self.clone(), call_id.to_owned());
        wasm_bindgen_futures::spawn_local(async move {
            timers::sleep(Duration::from_millis(SHOWN_APP_TOOLS_WAIT_MS)).await;
            this.0.borrow_mut().apps_starting.shift_remove(&call_id);
            this.release_held_result(&call_id);
        });
        None
    }

    fn release_held_result(&self, call_id: &str) {
        let Some(outcome) = self.0.borrow_mut().held_results.shift_remove(call_id) else { return };
        self.0.borrow_mut().chat.handle_tool_result(call_id, outcome);
        self.pump();
    }

    /// Adds the running apps' tools to a turn's tools.
    pub(super) fn add_view_tools(&self, tools: &mut ExposedTools) {
        for (instance, set) in &self.0.borrow().view_tools {
            tools.add_view_tools(instance, &set.label, &set.tools);
        }
    }

    /// A call of an app's tool: shown, and waiting for the person (never trusted).
    pub(super) fn start_view_call(&self, call: ToolCall, route: ViewToolRoute) {
        let shown_as = {
            let inner = self.0.borrow();
            inner.view_tools.get(&route.instance).map(|s| s.shown_as.clone())
        };
        let args = serde_json::to_string_pretty(&call.args).unwrap_or_default();
        let origin = shown_as.unwrap_or_else(|| route.label.clone());
        let mut card =
            ToolCard::asked(&call.call_id, "", &origin, &route.tool_name, args, None, false);
        card.from_app = true;
        card.found_by_search = call.found_by_search;
        self.dispatch(Action::ToolAsked(card));
        self.0.borrow_mut().waiting_views.insert(call.call_id.clone(), (call, route));
    }

    /// The person answered a view tool's card; `false` when the call is not one.
    pub(super) fn view_call_confirmed(&self, call_id: &str, allowed: bool) -> bool {
        let Some((call, route)) = self.0.borrow_mut().waiting_views.shift_remove(call_id) else {
            return false;
        };
        if allowed {
            self.run_view_call(call, route);
        } else {
            self.dispatch(Action::ToolDenied { call_id: call_id.to_owned() });
            let outcome = ToolOutcome::Error("The user denied this tool call.".into());
            self.0.borrow_mut().chat.handle_tool_result(call_id, outcome);
            self.pump();
        }
        true
    }

    fn run_view_call(&self, call: ToolCall, route: ViewToolRoute) {
        let call_id = call.call_id.clone();
        self.dispatch(Action::ToolStarted { call_id: call_id.clone(), now_ms: now_ms() });
        let caller = self.0.borrow().view_tools.get(&route.instance).map(|s| s.caller.clone());
        let this = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let (outcome, text, is_error) = match caller {
                Some(caller) => match caller.call_tool(&route.tool_name, &call.args).await {
                    Ok(result) => {
                        let (text, is_error) = result_text(&result, chrome::word);
                        (ToolOutcome::Mcp(result), text, is_error)
                    }
                    Err(why) => (ToolOutcome::Error(why.clone()), why, true),
                },
                // The model reads English; the person, their language.
                None => {
                    let gone = Text::new("panelViewToolGone");
                    (ToolOutcome::Error(gone.to_string()), chrome::word(&gone), true)
                }
            };
            this.finish_tool_call(call_id, outcome, text, is_error);
        });
    }
}
