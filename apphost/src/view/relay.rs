//! The relay: what the sandbox says goes to the session; what the session decides goes to the
//! frame, to the panel (tool calls, messages, context) or back as answers; its deadlines.

use std::cell::RefCell;
use std::rc::Rc;

use gemipanel_browser::app_frame::SandboxEvent;
use gemipanel_browser::messaging::to_js;
use gemipanel_core::apps::frame_wire::HostWork;
use gemipanel_core::apps::protocol::DisplayMode;
use gemipanel_core::apps::session::{Action, Reply};
use gemipanel_core::apps::view_tools::ViewCall;
use gemipanel_core::jsonrpc::{code, ErrorObject};
use gemipanel_core::mcp::CallToolResult;
use gemipanel_core::url_policy;
use serde_json::{json, Value};
use wasm_bindgen::JsValue;

use super::{now, View, LEGACY_AFTER_MS};

impl View {
    pub(super) fn on_sandbox(view: &Rc<RefCell<View>>, event: SandboxEvent) {
        match event {
            SandboxEvent::App(message, activated) => {
                let actions = view.borrow_mut().session.receive(message, activated, now());
                View::run(view, actions);
            }
            SandboxEvent::Unreadable => {}
            SandboxEvent::Left => view.borrow_mut().stop_for_leaving(),
            SandboxEvent::Hung { suspect: true } => View::stop_for_hanging(view),
            // Its frame went with the stuck process: it starts again from what was saved.
            SandboxEvent::Hung { suspect: false } => {
                view.borrow_mut().forget_frame();
                View::reload(view);
            }
            SandboxEvent::Loaded => {
                let me = view.borrow().me.clone();
                gloo_timers::callback::Timeout::new(LEGACY_AFTER_MS, move || {
                    if let Some(view) = me.upgrade() {
                        let actions = view.borrow_mut().session.loaded_without_initialize();
                        if view.borrow().session.is_legacy() {
                            // It runs, if not the protocol's way: as ready as it will be.
                            let _ = view.borrow().ui.root.set_attribute("data-state", "ready");
                        }
                        View::run(&view, actions);
                    }
                })
                .forget();
            }
        }
    }

    pub(super) fn run(view: &Rc<RefCell<View>>, actions: Vec<Action>) {
        for action in actions {
            View::act(view, action);
        }
        View::schedule(view);
    }

    /// A timer for the session's next deadline (an app that does not answer the host).
    /// Forgotten, not cancelled: a timer that finds another deadline set does nothing.
    pub(super) fn schedule(view: &Rc<RefCell<View>>) {
        let mut this = view.borrow_mut();
        let due = this.session.poll_timeout();
        if due == this.timer_at {
            return;
        }
        this.timer_at = due;
        let Some(at) = due else { return };
        let me = this.me.clone();
        let delay = at.saturating_sub(now()).min(u32::MAX as u64) as u32;
        gloo_timers::callback::Timeout::new(delay, move || {
            let Some(view) = me.upgrade() else { return };
            let actions = {
                let mut this = view.borrow_mut();
                if this.timer_at != Some(at) {
                    return;
                }
                this.timer_at = None;
                this.session.handle_timeout(now())
            };
            View::run(&view, actions);
        })
        .forget();
    }

    pub(super) fn view_tool_answered(
        &mut self,
        call: ViewCall,
        outcome: Result<CallToolResult, String>,
    ) {
        let Some((resolve, reject)) = self.view_calls.remove(&call) else { return };
        let _ = match outcome.map(|result| to_js(&result)) {
            Ok(Ok(result)) => resolve.call1(&JsValue::NULL, &result),
            Ok(Err(e)) => reject.call1(&JsValue::NULL, &e.to_string().into()),
            Err(why) => reject.call1(&JsValue::NULL, &why.into()),
        };
    }

    /// The app stopped running (reloaded or gone): its tools go, and calls waiting fail.
    pub(super) fn view_tools_gone(&mut self) {
        for (_, (_, reject)) in self.view_calls.drain() {
            let _ = reject.call1(&JsValue::NULL, &"the app was closed".into());
        }
        self.timer_at = None;
        self.host.tools(&[], JsValue::NULL);
        let _ = self.ui.root.remove_attribute("data-view-tools");
    }

    pub(super) fn act(view: &Rc<RefCell<View>>, action: Action) {
        match action {
            Action::Post(message) => {
                if let Some(sandbox) = &view.borrow().sandbox {
                    sandbox.post(&message);
                }
            }
            Action::CallTool { reply, name, arguments } => {
                View::work(view, reply, HostWork::CallTool { name, arguments })
            }
            Action::ListTools { reply } => View::work(view, reply, HostWork::ListTools),
            Action::ListResources { reply } => View::work(view, reply, HostWork::ListResources),
            Action::ListResourceTemplates { reply } => {
                View::work(view, reply, HostWork::ListResourceTemplates)
            }
            Action::ReadResource { reply, uri } => {
                View::work(view, reply, HostWork::ReadResource { uri })
            }
            Action::OpenLink { reply, url } => match url_policy::app_link(&url) {
                Ok(link) => View::ask_link(view, reply, link),
                Err(reason) => {
                    view.borrow_mut().log("warning", &format!("ui/open-link refused: {reason}"));
                    View::answer(view, reply, Ok(json!({ "isError": true })));
                }
            },
            Action::Message { reply, text } => {
                view.borrow().host.offer(&text);
                View::answer(view, reply, Ok(json!({})));
            }
            Action::UpdateContext { text } => {
                let this = view.borrow();
                let label = format!(
                    "the app of tool {} ({})",
                    this.setup.tool_name, this.setup.server_name
                );
                this.host.context(&label, &text);
            }
            Action::DisplayMode { reply, mode } => {
                View::set_mode(view, mode);
                let mode = view.borrow().mode;
                View::answer(view, reply, Ok(json!({ "mode": mode })));
            }
            Action::Resize { height } => view.borrow().resize(height),
            Action::Log { level, text } => view.borrow_mut().log(&level, &text),
            Action::Initialized => {
                let _ = view.borrow().ui.root.set_attribute("data-state", "ready");
            }
            Action::TeardownRequested => {
                let actions = view.borrow_mut().session.teardown();
                View::run(view, actions);
            }
            Action::TornDown => view.borrow_mut().close(),
            Action::Escape if view.borrow().mode != DisplayMode::Inline => {
                View::set_mode(view, DisplayMode::Inline);
            }
            Action::Escape => {}
            Action::ViewTools(tools) => {
                let this = view.borrow();
                let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
                let _ = this.ui.root.set_attribute("data-view-tools", &names.join(" "));
                let caller = crate::ViewToolCaller::new(this.me.clone());
                this.host.tools(&tools, caller.into());
            }
            Action::ViewToolAnswered { call, outcome } => {
                view.borrow_mut().view_tool_answered(call, outcome)
            }
        }
    }

    /// Hands `work` to the panel, which asks the worker; the answer goes back to the app.
    pub(super) fn work(view: &Rc<RefCell<View>>, reply: Reply, work: HostWork) {
        let me = view.borrow().me.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let Some(view) = me.upgrade() else { return };
            // Cloned out, so no borrow of the view is held across the wait.
            let host = view.borrow().host.clone();
            let outcome = host.work(&work).await;
            let outcome =
                outcome.map_err(|message| ErrorObject::new(code::INTERNAL_ERROR, message));
            View::answer(&view, reply, outcome);
        });
    }

    pub(super) fn answer(
        view: &Rc<RefCell<View>>,
        reply: Reply,
        outcome: Result<Value, ErrorObject>,
    ) {
        let action = view.borrow_mut().session.answer(reply, outcome);
        View::act(view, action);
    }
}
