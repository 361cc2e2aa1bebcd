//! One app: its frame, its session, and the controls around it.
//!
//! The session (`core::apps::session`) decides what to answer and what to ask; this file only
//! carries it out: posts to the frame, calls the panel's callbacks, and updates the few
//! elements of the UI (height, display mode, the link and permission prompts, the log).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use gemipanel_browser::app_frame::{
    adopt_spare_sandbox, environment, ColorSchemeWatch, Sandbox, SandboxEvent,
};
use gemipanel_browser::chrome::{extension_version, message, ui_language};
use gemipanel_browser::messaging::to_js;
use gemipanel_core::apps::frame_wire::HostWork;
use gemipanel_core::apps::protocol::{
    ContainerDimensions, DeviceCapabilities, DisplayMode, HostCapabilities, HostContext, HostInfo,
    HostStyles, SandboxGrant, Theme, ToolInfo,
};
use gemipanel_core::apps::session::{Action, AppSession, Reply, MAX_HEIGHT};
use gemipanel_core::apps::view_tools::ViewCall;
use gemipanel_core::apps::{csp, document, AppSetup};
use gemipanel_core::jsonrpc::{code, ErrorObject};
use gemipanel_core::mcp::CallToolResult;
use gemipanel_core::url_policy::{self, Link};
use js_sys::{Function, Promise};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use web_sys::{Element, HtmlElement, HtmlIFrameElement, KeyboardEvent};

use crate::dom::{button, element, icon_button, icons, toggle_attribute};
use crate::host::HostCallbacks;

/// Entries the app log keeps.
const MAX_LOG: usize = 200;
/// How long an app may take to start the protocol before it counts as a legacy one.
const LEGACY_AFTER_MS: u32 = 1500;
/// How long a frame that goes waits for its app to answer `ui/resource-teardown`.
const TEARDOWN_GRACE_MS: u32 = 1000;
/// An app's height before it says how tall it is.
const INITIAL_HEIGHT: u32 = 160;

pub struct View {
    setup: AppSetup,
    host: HostCallbacks,
    session: AppSession,
    sandbox: Option<Sandbox>,
    mode: DisplayMode,
    log_count: usize,
    link: Option<(Reply, Link)>,
    /// The person's answer to the app's `_meta.ui.permissions`: `None` until asked.
    permitted: Option<bool>,
    ui: Ui,
    /// Keeps the listeners alive as long as the view.
    listeners: Vec<Closure<dyn FnMut(web_sys::Event)>>,
    _scheme: Option<ColorSchemeWatch>,
    _resize: Option<WindowResize>,
    /// The container width the app was last told.
    width: u32,
    /// The panel's calls of the app's own tools, waiting: their promise's resolve and reject.
    view_calls: HashMap<ViewCall, (Function, Function)>,
    /// The session's deadline a timer is set for.
    timer_at: Option<u64>,
    me: Weak<RefCell<View>>,
}

fn now() -> u64 {
    js_sys::Date::now() as u64
}

/// A `resize` listener on the window, removed when dropped.
struct WindowResize(Closure<dyn FnMut(web_sys::Event)>);

impl WindowResize {
    fn new(on_resize: impl FnMut(web_sys::Event) + 'static) -> Option<Self> {
        let closure = Closure::<dyn FnMut(web_sys::Event)>::new(on_resize);
        let window = web_sys::window()?;
        window.add_event_listener_with_callback("resize", closure.as_ref().unchecked_ref()).ok()?;
        Some(WindowResize(closure))
    }
}

impl Drop for WindowResize {
    fn drop(&mut self) {
        if let Some(window) = web_sys::window() {
            let callback = self.0.as_ref().unchecked_ref();
            let _ = window.remove_event_listener_with_callback("resize", callback);
        }
    }
}

/// The elements the view changes after building them.
struct Ui {
    root: HtmlElement,
    body: Element,
    iframe: Option<HtmlIFrameElement>,
    fullscreen: HtmlElement,
    collapse: HtmlElement,
    reload: HtmlElement,
    prompt: HtmlElement,
    permissions: HtmlElement,
    log: Element,
    log_list: Element,
    log_summary: Element,
}

impl View {
    pub fn mount(
        container: HtmlElement,
        setup: AppSetup,
        host: HostCallbacks,
    ) -> Rc<RefCell<View>> {
        let ui = Ui::build(&container, &setup);
        let view = Rc::new_cyclic(|me: &Weak<RefCell<View>>| {
            let session = new_session(&setup, DisplayMode::Inline, false, &ui.root);
            RefCell::new(View {
                setup,
                host,
                session,
                sandbox: None,
                mode: DisplayMode::Inline,
                log_count: 0,
                link: None,
                permitted: None,
                ui,
                listeners: Vec::new(),
                _scheme: None,
                _resize: None,
                width: 0,
                view_calls: HashMap::new(),
                timer_at: None,
                me: me.clone(),
            })
        });
        Self::wire(&view);
        Self::load(&view);
        view
    }

    /// Buttons, keys and the colour scheme.
    fn wire(view: &Rc<RefCell<View>>) {
        let mut this = view.borrow_mut();
        let me = this.me.clone();
        let on = |target: &Element, event: &str, f: fn(&Rc<RefCell<View>>, web_sys::Event)| {
            let me = me.clone();
            let closure = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
                if let Some(view) = me.upgrade() {
                    f(&view, e);
                }
            });
            let _ =
                target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
            closure
        };
        let listeners = vec![
            on(&this.ui.fullscreen, "click", |v, _| {
                let mode = if v.borrow().mode == DisplayMode::Fullscreen {
                    DisplayMode::Inline
                } else {
                    DisplayMode::Fullscreen
                };
                View::set_mode(v, mode);
            }),
            on(&this.ui.collapse, "click", |v, _| v.borrow_mut().toggle_collapsed()),
            on(&this.ui.root, "keydown", |v, e| {
                let escape = e.dyn_ref::<KeyboardEvent>().is_some_and(|k| k.key() == "Escape");
                if escape && v.borrow().mode != DisplayMode::Inline {
                    View::set_mode(v, DisplayMode::Inline);
                }
            }),
            on(&this.ui.reload, "click", |v, _| View::reload(v)),
            on(&this.ui.prompt, "click", |v, e| {
                let target = e.target().and_then(|t| t.dyn_into::<Element>().ok());
                match target.and_then(|t| t.get_attribute("data-answer")).as_deref() {
                    Some("open") => View::link_answered(v, true),
                    Some("cancel") => View::link_answered(v, false),
                    _ => {}
                }
            }),
            on(&this.ui.permissions, "click", |v, e| {
                let target = e.target().and_then(|t| t.dyn_into::<Element>().ok());
                match target.and_then(|t| t.get_attribute("data-answer")).as_deref() {
                    Some("allow") => View::permissions_answered(v, true),
                    Some("deny") => View::permissions_answered(v, false),
                    _ => {}
                }
            }),
        ];
        this.listeners = listeners;
        let me = this.me.clone();
        this._scheme = Some(ColorSchemeWatch::new(move || {
            if let Some(view) = me.upgrade() {
                let change = looks(&view.borrow().ui.root);
                let actions = view.borrow_mut().session.context_changed(change);
                View::run(&view, actions);
            }
        }));
        let me = this.me.clone();
        this._resize = WindowResize::new(move |_| {
            if let Some(view) = me.upgrade() {
                View::width_changed(&view);
            }
        });
        this.width = environment(Some(&this.ui.root)).width;
    }

    /// The side panel was resized: the app hears of a new container width.
    fn width_changed(view: &Rc<RefCell<View>>) {
        let actions = {
            let mut this = view.borrow_mut();
            let width = environment(Some(&this.ui.root)).width;
            if width == this.width {
                return;
            }
            this.width = width;
            let change = HostContext {
                container_dimensions: Some(this.dimensions()),
                ..HostContext::default()
            };
            this.session.context_changed(change)
        };
        View::run(view, actions);
    }

    /// A fresh frame and session with the app's document; what the call produced is replayed.
    fn load(view: &Rc<RefCell<View>>) {
        // Permissions pass through both frames, and only once the person allowed them. A frame's
        // `allow` counts from its next navigation, so only an app asking for none can have the
        // spare sandbox page, which is loaded already.
        let allow = view.borrow().allow();
        View::ask_permissions(view);
        let body = view.borrow().ui.body.clone();
        body.set_inner_html("");
        let spare = if allow.is_empty() { adopt_spare_sandbox(&body) } else { None };
        let loaded = spare.is_some();
        let iframe = spare.unwrap_or_else(|| {
            let iframe: HtmlIFrameElement = element("iframe", "").unchecked_into();
            let _ = iframe.set_attribute("src", "sandbox.html");
            if !allow.is_empty() {
                let _ = iframe.set_attribute("allow", &allow);
            }
            iframe
        });
        iframe.set_class_name("app-sandbox");
        let _ = iframe.set_attribute("data-testid", "app-iframe");
        iframe.set_title(&view.borrow().setup.tool_name);
        let _ = iframe.style().set_property("height", &format!("{INITIAL_HEIGHT}px"));
        view.borrow_mut().ui.iframe = Some(iframe.clone());
        if loaded {
            return View::connect(view);
        }
        let me = view.borrow().me.clone();
        let onload = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            if let Some(view) = me.upgrade() {
                View::connect(&view);
            }
        });
        let _ = iframe.add_event_listener_with_callback("load", onload.as_ref().unchecked_ref());
        view.borrow_mut().listeners.push(onload);
        let _ = body.append_child(&iframe);
    }

    /// The sandbox page has loaded: hand it the app's document.
    fn connect(view: &Rc<RefCell<View>>) {
        let mut this = view.borrow_mut();
        // The sandbox page loads once per frame; a second load event is not ours to act on.
        if this.sandbox.is_some() {
            return;
        }
        let Some(iframe) = this.ui.iframe.clone() else { return };
        let me = this.me.clone();
        let sandbox = Sandbox::connect(&iframe, move |event| {
            if let Some(view) = me.upgrade() {
                View::on_sandbox(&view, event);
            }
        });
        let sandbox = match sandbox {
            Ok(sandbox) => sandbox,
            Err(err) => return this.log("error", &err.to_string()),
        };
        let policy = csp::policy(this.setup.resource.meta.csp.as_ref());
        for refused in &policy.refused {
            let text =
                format!("CSP {}: {} is not an origin; left out", refused.field, refused.source);
            this.log("warning", &text);
        }
        let allow = this.allow();
        sandbox.load(&document::prepare(&this.setup.resource.html, &policy.header), &allow);
        this.sandbox = Some(sandbox);
        let input = this.setup.input.clone();
        let mut actions = this.session.tool_input(input);
        if let Some(result) = this.setup.result.clone() {
            actions.extend(this.session.tool_result(result));
        } else if this.setup.cancelled {
            actions.extend(this.session.tool_cancelled("user action"));
        }
        drop(this);
        View::run(view, actions);
    }

    fn on_sandbox(view: &Rc<RefCell<View>>, event: SandboxEvent) {
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

    fn run(view: &Rc<RefCell<View>>, actions: Vec<Action>) {
        for action in actions {
            View::act(view, action);
        }
        View::schedule(view);
    }

    /// A timer for the session's next deadline (an app that does not answer the host).
    /// Forgotten, not cancelled: a timer that finds another deadline set does nothing.
    fn schedule(view: &Rc<RefCell<View>>) {
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

    /// The panel calls one of the app's own tools.
    pub fn call_view_tool(
        view: &Rc<RefCell<View>>,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Promise {
        let started = view.borrow_mut().session.call_view_tool(name, arguments, now());
        let (call, post) = match started {
            Ok(started) => started,
            Err(why) => return Promise::reject(&why.into()),
        };
        let mut settle = None;
        let promise = Promise::new(&mut |resolve, reject| settle = Some((resolve, reject)));
        if let Some(settle) = settle {
            view.borrow_mut().view_calls.insert(call, settle);
        }
        View::run(view, vec![post]);
        promise
    }

    fn view_tool_answered(&mut self, call: ViewCall, outcome: Result<CallToolResult, String>) {
        let Some((resolve, reject)) = self.view_calls.remove(&call) else { return };
        let _ = match outcome.map(|result| to_js(&result)) {
            Ok(Ok(result)) => resolve.call1(&JsValue::NULL, &result),
            Ok(Err(e)) => reject.call1(&JsValue::NULL, &e.to_string().into()),
            Err(why) => reject.call1(&JsValue::NULL, &why.into()),
        };
    }

    /// The app stopped running (reloaded or gone): its tools go, and calls waiting fail.
    fn view_tools_gone(&mut self) {
        for (_, (_, reject)) in self.view_calls.drain() {
            let _ = reject.call1(&JsValue::NULL, &"the app was closed".into());
        }
        self.timer_at = None;
        self.host.tools(&[], JsValue::NULL);
        let _ = self.ui.root.remove_attribute("data-view-tools");
    }

    fn act(view: &Rc<RefCell<View>>, action: Action) {
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
    fn work(view: &Rc<RefCell<View>>, reply: Reply, work: HostWork) {
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

    fn answer(view: &Rc<RefCell<View>>, reply: Reply, outcome: Result<Value, ErrorObject>) {
        let action = view.borrow_mut().session.answer(reply, outcome);
        View::act(view, action);
    }

    fn ask_link(view: &Rc<RefCell<View>>, reply: Reply, link: Link) {
        // A link while one waits for the person is refused: the one they are reading is never
        // swapped for another under their click.
        if view.borrow().link.is_some() {
            let refused =
                format!("ui/open-link refused: another link waits for the person ({})", link.host);
            view.borrow_mut().log("warning", &refused);
            return View::answer(view, reply, Ok(json!({ "isError": true })));
        }
        {
            let mut this = view.borrow_mut();
            let prompt = &this.ui.prompt;
            prompt.set_inner_html("");
            let question = message("panelAppOpenLink", &[&link.host]);
            // The dialog is named by its question (a screen reader says it on focus).
            let _ = prompt.set_attribute("aria-label", &question);
            let text = element("p", "");
            text.set_text_content(Some(&question));
            let href = element("p", "href");
            href.set_text_content(Some(&link.href));
            let open = button(&message("panelAppOpen", &[]), "", "primary");
            let _ = open.set_attribute("data-answer", "open");
            let cancel = button(&message("panelCancel", &[]), "", "");
            let _ = cancel.set_attribute("data-answer", "cancel");
            for child in [&text, &href, open.as_ref(), cancel.as_ref()] {
                let _ = prompt.append_child(child);
            }
            toggle_attribute(prompt, "hidden", false);
            this.link = Some((reply, link));
        }
    }

    /// The features the app asked for, as an `allow` attribute, once the person allowed them.
    fn allow(&self) -> String {
        match (self.permitted, &self.setup.resource.meta.permissions) {
            // `*`: both frames have opaque origins, which the default allowlist ('src') misses.
            (Some(true), Some(asked)) => {
                asked.features().iter().map(|f| format!("{f} *")).collect::<Vec<_>>().join("; ")
            }
            _ => String::new(),
        }
    }

    /// Asks once whether the app may have the browser features it declared.
    fn ask_permissions(view: &Rc<RefCell<View>>) {
        let this = view.borrow();
        let asked = this.setup.resource.meta.permissions.as_ref().map(|p| p.features());
        let Some(features) = asked.filter(|f| !f.is_empty() && this.permitted.is_none()) else {
            return;
        };
        let names: Vec<String> = features.iter().map(|f| feature_name(f)).collect();
        let prompt = &this.ui.permissions;
        prompt.set_inner_html("");
        let question = message("panelAppPermissions", &[&names.join(", ")]);
        let _ = prompt.set_attribute("aria-label", &question);
        let text = element("p", "");
        text.set_text_content(Some(&question));
        let allow = button(&message("panelAppAllow", &[]), "", "primary");
        let _ = allow.set_attribute("data-answer", "allow");
        let deny = button(&message("panelAppDeny", &[]), "", "");
        let _ = deny.set_attribute("data-answer", "deny");
        for child in [&text, allow.as_ref(), deny.as_ref()] {
            let _ = prompt.append_child(child);
        }
        toggle_attribute(prompt, "hidden", false);
    }

    /// Allowed: the app starts again with the features (a frame's `allow` is fixed at load).
    fn permissions_answered(view: &Rc<RefCell<View>>, allowed: bool) {
        {
            let mut this = view.borrow_mut();
            this.permitted = Some(allowed);
            toggle_attribute(&this.ui.permissions, "hidden", true);
        }
        if allowed {
            View::reload(view);
        }
    }

    fn link_answered(view: &Rc<RefCell<View>>, open: bool) {
        let pending = {
            let mut this = view.borrow_mut();
            toggle_attribute(&this.ui.prompt, "hidden", true);
            this.link.take()
        };
        let Some((reply, link)) = pending else { return };
        if open {
            if let Some(window) = web_sys::window() {
                let _ = window.open_with_url_and_target_and_features(
                    &link.href,
                    "_blank",
                    "noopener,noreferrer",
                );
            }
        }
        let result = if open { json!({}) } else { json!({ "isError": true }) };
        View::answer(view, reply, Ok(result));
    }

    fn set_mode(view: &Rc<RefCell<View>>, mode: DisplayMode) {
        let actions = {
            let mut this = view.borrow_mut();
            if this.mode == mode {
                return;
            }
            this.mode = mode;
            let name = mode_name(mode);
            this.ui.root.set_class_name(&format!("app-frame {name}{}", this.border_class()));
            let _ = this.ui.root.set_attribute("data-mode", name);
            let (icon, title) = if mode == DisplayMode::Fullscreen {
                (icons::exit(), message("panelAppExitFullscreen", &[]))
            } else {
                (icons::fullscreen(), message("panelAppFullscreen", &[]))
            };
            this.ui.fullscreen.set_inner_html(&icon);
            let _ = this.ui.fullscreen.set_attribute("title", &title);
            let _ = this.ui.fullscreen.set_attribute("aria-label", &title);
            if mode == DisplayMode::Fullscreen {
                let _ = this.ui.root.focus();
            }
            let change = HostContext {
                display_mode: Some(mode),
                container_dimensions: Some(this.dimensions()),
                ..HostContext::default()
            };
            this.session.context_changed(change)
        };
        View::run(view, actions);
    }

    fn reload(view: &Rc<RefCell<View>>) {
        {
            let mut this = view.borrow_mut();
            this.release_frame();
            let permitted = this.permitted == Some(true);
            this.session = new_session(&this.setup, this.mode, permitted, &this.ui.root);
            let _ = this.ui.root.set_attribute("data-state", "starting");
            this.ui.log_list.set_inner_html("");
            this.log_count = 0;
            toggle_attribute(&this.ui.log, "hidden", true);
        }
        View::load(view);
    }

    pub fn tool_result(view: &Rc<RefCell<View>>, result: CallToolResult) {
        let actions = {
            let mut this = view.borrow_mut();
            this.setup.result = Some(result.clone());
            this.session.tool_result(result)
        };
        View::run(view, actions);
    }

    pub fn cancelled(view: &Rc<RefCell<View>>) {
        let actions = {
            let mut this = view.borrow_mut();
            this.setup.cancelled = true;
            this.session.tool_cancelled("user action")
        };
        View::run(view, actions);
    }

    pub fn is_within(view: &Rc<RefCell<View>>, container: &Element) -> bool {
        container.contains(Some(&view.borrow().ui.root))
    }

    /// The app is about to go with its place: asked to clean up, its frame moved aside.
    pub fn depart(view: &Rc<RefCell<View>>) {
        view.borrow_mut().release_frame();
    }

    pub fn destroy(view: &Rc<RefCell<View>>) {
        let mut this = view.borrow_mut();
        this.release_frame();
        this.listeners.clear();
        this._scheme = None;
        this._resize = None;
        this.ui.root.remove();
    }

    /// The room the app has in its display mode, as laid out now: inline it grows, fullscreen
    /// and pip it fills a box of the panel's making.
    fn dimensions(&self) -> ContainerDimensions {
        let body = &self.ui.body;
        match self.mode {
            DisplayMode::Inline => ContainerDimensions::growing(self.width, MAX_HEIGHT),
            _ => {
                ContainerDimensions::fixed(body.client_width() as u32, body.client_height() as u32)
            }
        }
    }

    fn resize(&self, height: u32) {
        if let Some(iframe) = &self.ui.iframe {
            let _ = iframe.style().set_property("height", &format!("{}px", height.max(40)));
        }
    }

    /// The app's frame goes (its place in the chat goes, or it reloads): the app is asked to
    /// clean up (`ui/resource-teardown`), and its frame, out of the layout, waits for the answer
    /// a moment. An app not yet running has nothing to clean up: its frame goes at once.
    fn release_frame(&mut self) {
        let teardown = self.session.teardown().into_iter().find_map(|action| match action {
            Action::Post(message) => Some(message),
            _ => None,
        });
        self.view_tools_gone();
        let sandbox = self.sandbox.take();
        if let (Some(sandbox), Some(iframe), Some(message)) =
            (sandbox, self.ui.iframe.take(), teardown)
        {
            sandbox.depart(&iframe, &message, TEARDOWN_GRACE_MS);
        }
    }

    /// The app tried to load another page in its frame (where nothing may load): it is gone,
    /// and the person is told why; Reload starts it again.
    fn stop_for_leaving(&mut self) {
        self.close();
        let notice = element("p", "app-error");
        let _ = notice.set_attribute("role", "alert");
        let _ = notice.set_attribute("data-testid", "app-error");
        notice.set_text_content(Some(&message("panelAppLeft", &[])));
        let _ = self.ui.body.append_child(&notice);
        let _ = self.ui.root.set_attribute("data-state", "stopped");
    }

    /// The sandbox process stopped answering while this app was the one in use: it is taken to
    /// be stuck in a loop and stays stopped (its frame is gone already) until the person
    /// reloads it.
    fn stop_for_hanging(view: &Rc<RefCell<View>>) {
        let mut this = view.borrow_mut();
        this.forget_frame();
        this.close();
        let notice = element("div", "app-error app-hung");
        let _ = notice.set_attribute("role", "alert");
        let _ = notice.set_attribute("data-testid", "app-hung");
        let text = element("p", "");
        text.set_text_content(Some(&message("panelAppHung", &[])));
        let button = element("button", "");
        let _ = button.set_attribute("type", "button");
        let _ = button.set_attribute("data-testid", "app-hung-reload");
        button.set_text_content(Some(&message("panelAppHungReload", &[])));
        let me = this.me.clone();
        let reload = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            if let Some(view) = me.upgrade() {
                View::reload(&view);
            }
        });
        let _ = button.add_event_listener_with_callback("click", reload.as_ref().unchecked_ref());
        this.listeners.push(reload);
        let _ = notice.append_child(&text);
        let _ = notice.append_child(&button);
        let _ = this.ui.body.append_child(&notice);
        let _ = this.ui.root.set_attribute("data-state", "hung");
    }

    /// The app's frame was removed under it (see `SandboxEvent::Hung`): nothing to ask it.
    fn forget_frame(&mut self) {
        self.view_tools_gone();
        self.sandbox = None;
        self.ui.iframe = None;
    }

    fn close(&mut self) {
        self.view_tools_gone();
        self.sandbox = None;
        self.ui.body.set_inner_html("");
        self.ui.iframe = None;
        let _ = self.ui.root.set_attribute("data-state", "closed");
    }

    fn toggle_collapsed(&mut self) {
        let collapsed = !self.ui.body.has_attribute("hidden");
        toggle_attribute(&self.ui.body, "hidden", collapsed);
        let (icon, title) = if collapsed {
            (icons::collapsed(), message("panelAppExpand", &[]))
        } else {
            (icons::expanded(), message("panelAppCollapse", &[]))
        };
        self.ui.collapse.set_inner_html(&icon);
        let _ = self.ui.collapse.set_attribute("title", &title);
        let _ = self.ui.collapse.set_attribute("aria-label", &title);
        let _ = self
            .ui
            .collapse
            .set_attribute("aria-expanded", if collapsed { "false" } else { "true" });
    }

    fn log(&mut self, level: &str, text: &str) {
        if self.log_count == MAX_LOG {
            if let Some(first) = self.ui.log_list.first_element_child() {
                first.remove();
            }
        } else {
            self.log_count += 1;
        }
        let entry = element("li", level);
        entry.set_text_content(Some(text));
        let _ = self.ui.log_list.append_child(&entry);
        self.ui
            .log_summary
            .set_text_content(Some(&message("panelAppLog", &[&self.log_count.to_string()])));
        toggle_attribute(&self.ui.log, "hidden", false);
    }

    fn border_class(&self) -> &'static str {
        if self.setup.resource.meta.prefers_border == Some(false) {
            ""
        } else {
            " bordered"
        }
    }
}

impl Ui {
    fn build(container: &HtmlElement, setup: &AppSetup) -> Ui {
        let border =
            if setup.resource.meta.prefers_border == Some(false) { "" } else { " bordered" };
        let root: HtmlElement =
            element("section", &format!("app-frame inline{border}")).unchecked_into();
        for (name, value) in [
            ("data-testid", "app-frame"),
            ("data-state", "starting"),
            ("data-mode", "inline"),
            ("tabindex", "-1"),
        ] {
            let _ = root.set_attribute(name, value);
        }
        let bar = element("header", "app-bar");
        let title = element("span", "app-title");
        title.set_text_content(Some(&setup.tool_name));
        let collapse = icon_button(&icons::expanded(), &message("panelAppCollapse", &[]));
        let _ = collapse.set_attribute("data-testid", "app-collapse");
        let _ = collapse.set_attribute("aria-expanded", "true");
        let fullscreen = icon_button(&icons::fullscreen(), &message("panelAppFullscreen", &[]));
        let _ = fullscreen.set_attribute("data-testid", "app-fullscreen");
        let reload = icon_button(&icons::reload(), &message("panelAppReload", &[]));
        let _ = reload.set_attribute("data-testid", "app-reload");
        for child in [&title, collapse.as_ref(), fullscreen.as_ref(), reload.as_ref()] {
            let _ = bar.append_child(child);
        }
        let prompt: HtmlElement = element("div", "app-link").unchecked_into();
        let _ = prompt.set_attribute("role", "alertdialog");
        let _ = prompt.set_attribute("data-testid", "app-link");
        toggle_attribute(&prompt, "hidden", true);
        let permissions: HtmlElement = element("div", "app-link").unchecked_into();
        let _ = permissions.set_attribute("role", "alertdialog");
        let _ = permissions.set_attribute("data-testid", "app-permissions");
        toggle_attribute(&permissions, "hidden", true);
        let body = element("div", "app-body");
        let log = element("details", "app-log");
        let _ = log.set_attribute("data-testid", "app-log");
        toggle_attribute(&log, "hidden", true);
        let log_summary = element("summary", "");
        let log_list = element("ol", "");
        let _ = log.append_child(&log_summary);
        let _ = log.append_child(&log_list);
        for child in [&bar, permissions.as_ref(), prompt.as_ref(), &body, &log] {
            let _ = root.append_child(child);
        }
        let _ = container.append_child(&root);
        Ui {
            root,
            body,
            iframe: None,
            fullscreen,
            collapse,
            reload,
            prompt,
            permissions,
            log,
            log_list,
            log_summary,
        }
    }
}

fn mode_name(mode: DisplayMode) -> &'static str {
    match mode {
        DisplayMode::Inline => "inline",
        DisplayMode::Fullscreen => "fullscreen",
        DisplayMode::Pip => "pip",
    }
}

/// A permission's name for the person.
fn feature_name(feature: &str) -> String {
    let key = match feature {
        "camera" => "panelPermCamera",
        "microphone" => "panelPermMicrophone",
        "geolocation" => "panelPermGeolocation",
        "clipboard-write" => "panelPermClipboard",
        other => return other.to_owned(),
    };
    message(key, &[])
}

/// `permitted`: the person allowed the permissions the app declared, so the host grants them.
/// `root`: the app's place, whose width is the container's.
fn new_session(setup: &AppSetup, mode: DisplayMode, permitted: bool, root: &Element) -> AppSession {
    let applied = csp::policy(setup.resource.meta.csp.as_ref()).applied;
    let granted = setup.resource.meta.permissions.clone().filter(|_| permitted);
    let capabilities = HostCapabilities {
        sandbox: SandboxGrant { csp: applied, permissions: granted.unwrap_or_default() },
        ..HostCapabilities::default()
    };
    let env = environment(Some(root));
    let context = HostContext {
        tool_info: Some(ToolInfo { id: Some(setup.call_id.clone()), tool: setup.tool.clone() }),
        display_mode: Some(mode),
        available_display_modes: Some(vec![
            DisplayMode::Inline,
            DisplayMode::Fullscreen,
            DisplayMode::Pip,
        ]),
        locale: Some(ui_language()),
        time_zone: Some(env.time_zone.clone()),
        user_agent: Some(format!("GemiPanel/{}", extension_version())),
        platform: Some("web"),
        device_capabilities: Some(DeviceCapabilities { touch: env.touch, hover: env.hover }),
        ..looks_of(&env)
    };
    let info = HostInfo { name: "GemiPanel".into(), version: extension_version() };
    AppSession::new(info, capabilities, context)
}

/// The parts of the context that follow the page's look and the frame's width.
fn looks(root: &Element) -> HostContext {
    looks_of(&environment(Some(root)))
}

fn looks_of(env: &gemipanel_browser::app_frame::Environment) -> HostContext {
    HostContext {
        theme: Some(if env.dark { Theme::Dark } else { Theme::Light }),
        styles: Some(HostStyles { variables: env.variables.clone() }),
        container_dimensions: Some(ContainerDimensions::growing(env.width, MAX_HEIGHT)),
        ..HostContext::default()
    }
}
