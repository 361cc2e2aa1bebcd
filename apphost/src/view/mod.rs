//! One app: its frame, its session, and the controls around it.
//!
//! The session (`core::apps::session`) decides what to answer and what to ask; this module only
//! carries it out: posts to the frame, calls the panel's callbacks, and updates the few
//! elements of the UI (height, display mode, the link and permission prompts, the log).
//!
//! `View` is one struct; its methods are in a file per job: mounting, wiring and what the panel
//! calls (here), the frame's life (`frame`), the relay between session, frame and panel
//! (`relay`), the link and permission prompts (`prompts`), the display modes (`display`) and
//! the elements with the log (`ui`).

mod display;
mod frame;
mod prompts;
mod relay;
mod ui;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use gemipanel_browser::app_frame::{environment, ColorSchemeWatch, Sandbox};
use gemipanel_core::apps::protocol::DisplayMode;
use gemipanel_core::apps::session::{AppSession, Reply};
use gemipanel_core::apps::view_tools::ViewCall;
use gemipanel_core::apps::AppSetup;
use gemipanel_core::mcp::CallToolResult;
use gemipanel_core::url_policy::Link;
use js_sys::{Function, Promise};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use web_sys::{Element, HtmlElement, KeyboardEvent};

use crate::host::HostCallbacks;
use frame::{looks, new_session};
use ui::Ui;

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
}
