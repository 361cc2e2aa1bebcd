//! The MCP Apps host, a module of its own: the side panel loads it the first time a chat shows
//! an app, so a panel without apps neither downloads nor compiles it.
//!
//! [`AppView`] shows one app in a container the side panel gives it: the sandbox frame, its
//! session (`core::apps::session`), and the controls around it. What needs the worker or the
//! chat (tool calls, resources, the composer, the model's context) goes through the `host`
//! object the panel passes in (see `HostCallbacks`).

mod dom;
mod host;
mod view;

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use gemipanel_browser::messaging::{exact_string, from_js, from_object, take_text};
use gemipanel_core::apps::resource::{kept_copy, one_copy, AppResource};
use gemipanel_core::apps::AppSetup;
use gemipanel_core::mcp::CallToolResult;
use js_sys::Reflect;
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;
use web_sys::HtmlElement;

use host::HostCallbacks;
use view::View;

/// One app on the page.
#[wasm_bindgen]
pub struct AppView(Rc<RefCell<View>>);

thread_local! {
    /// Every app shown, for [`depart_within`].
    static SHOWN: RefCell<Vec<Weak<RefCell<View>>>> = const { RefCell::new(Vec::new()) };
    /// The apps' resources the views hold: the views of one app share its HTML.
    static RESOURCES: RefCell<Vec<Weak<AppResource>>> = const { RefCell::new(Vec::new()) };
}

/// The HTML of the app in `setup` (an `AppSetup` object), taken out of it before the rest is
/// read: an app's HTML is hundreds of KB, and a module's memory keeps the most it ever held.
enum Html {
    /// The copy this module holds already of the same app: no second copy, even for a moment.
    Held(Rc<AppResource>),
    /// Brought in at its size (see `exact_string`).
    Taken(String),
}

fn take_html(kept: &[Weak<AppResource>], setup: &JsValue) -> Option<Html> {
    let resource = Reflect::get(setup, &JsValue::from_str("resource")).ok()?;
    let digest = Reflect::get(&resource, &JsValue::from_str("digest")).ok()?.as_string();
    let held = digest.and_then(|digest| kept_copy(kept, &digest));
    let html = take_text(&resource, "html")?;
    Some(match held {
        Some(held) => Html::Held(held),
        None => Html::Taken(exact_string(&html)),
    })
}

/// The apps inside `container` are about to go with it (another chat is opened): each is
/// asked to clean up, its frame moved aside to wait for the answer. The panel calls this
/// before it changes the page, because a frame its removal took along is gone at once.
#[wasm_bindgen(js_name = departWithin)]
pub fn depart_within(container: &web_sys::Element) {
    let shown: Vec<_> = SHOWN.with(|shown| {
        let mut shown = shown.borrow_mut();
        shown.retain(|view| view.strong_count() > 0);
        shown.iter().filter_map(Weak::upgrade).collect()
    });
    for view in shown.iter().filter(|view| View::is_within(view, container)) {
        View::depart(view);
    }
}

#[wasm_bindgen]
impl AppView {
    /// Shows the app `setup` (an `AppSetup`) in `container`; `host` carries the panel's
    /// callbacks.
    #[wasm_bindgen(constructor)]
    pub fn new(container: HtmlElement, setup: JsValue, host: JsValue) -> Result<AppView, JsValue> {
        let html = RESOURCES.with(|kept| take_html(&kept.borrow(), &setup));
        let mut setup: AppSetup = from_object(setup).map_err(|e| JsValue::from_str(e.message()))?;
        match html {
            Some(Html::Held(held)) => setup.resource = setup.resource.with_html_of(&held),
            // Just read, the resource is this setup's alone: no copy is made.
            Some(Html::Taken(html)) => Rc::make_mut(&mut setup.resource).html = html,
            None => {}
        }
        setup.resource =
            RESOURCES.with(|kept| one_copy(&mut kept.borrow_mut(), setup.resource.clone()));
        let host = HostCallbacks::new(host)?;
        let view = View::mount(container, setup, host);
        SHOWN.with(|shown| shown.borrow_mut().push(Rc::downgrade(&view)));
        Ok(AppView(view))
    }

    /// The tool call finished: its result, as the server sent it.
    pub fn set_result(&self, result: JsValue) {
        if let Ok(result) = from_js::<CallToolResult>(result) {
            View::tool_result(&self.0, result);
        }
    }

    /// The person stopped the tool call.
    pub fn cancel(&self) {
        View::cancelled(&self.0);
    }

    /// The app's place in the chat goes away: the app is asked to clean up, the frame removed.
    pub fn destroy(&self) {
        View::destroy(&self.0);
    }
}

/// What the panel calls an app's own tools through; it holds the app weakly, so a caller kept
/// after the app went only gets refusals.
#[wasm_bindgen]
pub struct ViewToolCaller(Weak<RefCell<View>>);

impl ViewToolCaller {
    pub(crate) fn new(view: Weak<RefCell<View>>) -> Self {
        ViewToolCaller(view)
    }
}

#[wasm_bindgen]
impl ViewToolCaller {
    /// Calls the app's tool `name`; resolves to its `CallToolResult`, rejects with the reason.
    pub fn call_tool(&self, name: String, arguments: JsValue) -> js_sys::Promise {
        let arguments: Map<String, Value> = from_js(arguments).unwrap_or_default();
        match self.0.upgrade() {
            Some(view) => View::call_view_tool(&view, &name, arguments),
            None => js_sys::Promise::reject(&"the app is no longer in the chat".into()),
        }
    }
}
