//! An MCP App's frame, from the side panel: the sandbox page's port (see `js/app_frame.js` and
//! `static/sandbox.js`) and what the app's host context says about the page.

use gemipanel_core::apps::frame_wire::{FromSandbox, ToSandbox};
use js_sys::Function;
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use web_sys::{Element, HtmlIFrameElement, MessagePort};

use crate::messaging::{from_js, from_object, to_js, to_object};
use crate::BrowserError;

#[wasm_bindgen(module = "/js/app_frame.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = connectSandbox)]
    fn connect_sandbox(
        iframe: &HtmlIFrameElement,
        on_event: &Function,
        on_hung: &Function,
    ) -> Result<MessagePort, JsValue>;
    #[wasm_bindgen(js_name = loadApp)]
    fn load_app(port: &MessagePort, load: &JsValue, head: &[u8], host: &[u8], rest: &[u8]);
    #[wasm_bindgen(catch, js_name = postControl)]
    fn post_control(port: &MessagePort, message: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(js_name = unloadApp)]
    fn unload_app(port: &MessagePort, unload: &JsValue);
    #[wasm_bindgen(js_name = departApp)]
    fn depart_app(
        port: &MessagePort,
        iframe: &HtmlIFrameElement,
        post: &JsValue,
        unload: &JsValue,
        grace_ms: u32,
    );
    #[wasm_bindgen(js_name = hostEnvironment)]
    fn host_environment(element: Option<&Element>) -> JsValue;
    #[wasm_bindgen(js_name = watchColorScheme)]
    fn watch_color_scheme(on_change: &Function) -> Function;
    #[wasm_bindgen(js_name = watchNearness)]
    fn watch_nearness(element: &Element, margin_px: u32, on_change: &Function) -> Function;
    /// The panel's spare sandbox page, already loaded, moved (not reloaded) to the end of
    /// `container`; `None` when there is none ready (see `js/app_frame.js`).
    #[wasm_bindgen(js_name = adoptSpareSandbox)]
    pub fn adopt_spare_sandbox(container: &Element) -> Option<HtmlIFrameElement>;
}

/// What comes from the sandbox page.
pub enum SandboxEvent {
    /// A message the app posted (any JSON; the session decides what it is), and whether the
    /// person had just clicked or typed in the app (`FromSandbox::App::activated`).
    App(serde_json::Value, bool),
    /// A message that was not JSON (a transferable, a cycle), or not one of the sandbox
    /// page's: dropped.
    Unreadable,
    /// The app's document loaded.
    Loaded,
    /// The app tried to load another page in its frame: the sandbox page removed the frame.
    Left,
    /// The sandbox process stopped answering (an app in an endless loop) and every app's frame
    /// was removed to end it. `suspect`: this app is the one the person last used (or else
    /// the one started last), taken to be the one stuck.
    Hung { suspect: bool },
}

/// The control port of one sandbox frame; dropping it unloads the app.
pub struct Sandbox {
    port: MessagePort,
    /// Handed to `departApp`, which unloads it in its own time.
    departed: bool,
    // Kept alive as long as the port delivers to it.
    _on_event: Closure<dyn FnMut(JsValue)>,
    _on_hung: Closure<dyn FnMut(bool)>,
}

impl Sandbox {
    /// Connects to the sandbox page loaded in `iframe`.
    pub fn connect(
        iframe: &HtmlIFrameElement,
        on_event: impl FnMut(SandboxEvent) + 'static,
    ) -> Result<Sandbox, BrowserError> {
        let on_event = std::rc::Rc::new(std::cell::RefCell::new(on_event));
        let hung = on_event.clone();
        let on_hung = Closure::<dyn FnMut(bool)>::new(move |suspect: bool| {
            // Called from a timer, never while an event is being handled.
            if let Ok(mut on_event) = hung.try_borrow_mut() {
                on_event(SandboxEvent::Hung { suspect });
            }
        });
        // The whole message through JSON: the app's part is a JSON-RPC document.
        let closure = Closure::<dyn FnMut(JsValue)>::new(move |data: JsValue| {
            let Ok(mut on_event) = on_event.try_borrow_mut() else { return };
            on_event(match from_js(data) {
                Ok(FromSandbox::App { message, activated }) => {
                    SandboxEvent::App(message, activated)
                }
                Ok(FromSandbox::Loaded) => SandboxEvent::Loaded,
                Ok(FromSandbox::Left) => SandboxEvent::Left,
                // Answered by browser/js/app_frame.js.
                Ok(FromSandbox::Idle | FromSandbox::Pong) | Err(_) => SandboxEvent::Unreadable,
            })
        });
        let port = connect_sandbox(
            iframe,
            closure.as_ref().unchecked_ref(),
            on_hung.as_ref().unchecked_ref(),
        )
        .map_err(|e| BrowserError::from_js("connecting the app frame", e))?;
        Ok(Sandbox { port, departed: false, _on_event: closure, _on_hung: on_hung })
    }

    /// Loads the app's document (made by `core::apps::document`) with the `allow` attribute.
    /// Loads the document of `parts` (`core::apps::document::prepared_parts`), joined by the
    /// page: an app's HTML is not copied once more in wasm memory to be sent.
    pub fn load(&self, parts: &[impl AsRef<str>; 3], allow: &str) {
        if let Ok(load) = to_js(&ToSandbox::Load { allow: allow.to_owned() }) {
            let [head, host, rest] = parts.each_ref().map(|part| part.as_ref().as_bytes());
            load_app(&self.port, &load, head, host, rest);
        }
    }

    pub fn post(&self, message: &serde_json::Value) {
        if let Ok(value) = to_js(&ToSandbox::Post { message }) {
            let _ = post_control(&self.port, &value);
        }
    }
}

impl Sandbox {
    /// Posts `teardown` (the app's `ui/resource-teardown` request) and lets the app answer it
    /// before its frame goes: `iframe` leaves the page's layout at once, still running, and is
    /// removed when the app answers or after `grace_ms`. Nothing the app sends reaches the
    /// caller any more.
    pub fn depart(
        mut self,
        iframe: &HtmlIFrameElement,
        teardown: &serde_json::Value,
        grace_ms: u32,
    ) {
        let post = to_js(&ToSandbox::Post { message: teardown }).unwrap_or(JsValue::NULL);
        depart_app(&self.port, iframe, &post, &unload(), grace_ms);
        self.departed = true;
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if !self.departed {
            unload_app(&self.port, &unload());
        }
    }
}

fn unload() -> JsValue {
    to_js(&ToSandbox::Unload).unwrap_or(JsValue::NULL)
}

/// The page as an app's host context describes it.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Environment {
    pub dark: bool,
    pub time_zone: String,
    pub touch: bool,
    pub hover: bool,
    pub width: u32,
    pub height: u32,
    pub variables: std::collections::BTreeMap<String, String>,
}

/// Reads the environment, the width being `element`'s.
pub fn environment(element: Option<&Element>) -> Environment {
    from_object(host_environment(element)).unwrap_or_default()
}

/// Calls `on_change` when the colour scheme changes, until the guard drops.
pub struct ColorSchemeWatch {
    stop: Function,
    _closure: Closure<dyn FnMut()>,
}

impl ColorSchemeWatch {
    pub fn new(on_change: impl FnMut() + 'static) -> Self {
        let closure = Closure::<dyn FnMut()>::new(on_change);
        let stop = watch_color_scheme(closure.as_ref().unchecked_ref());
        ColorSchemeWatch { stop, _closure: closure }
    }
}

impl Drop for ColorSchemeWatch {
    fn drop(&mut self) {
        let _ = self.stop.call0(&JsValue::NULL);
    }
}

/// Tells whether an element is within some distance of what is on screen (an
/// `IntersectionObserver`), as long as it lives.
pub struct NearnessWatch {
    stop: Function,
    _closure: Closure<dyn FnMut(bool)>,
}

impl NearnessWatch {
    pub fn new(element: &Element, margin_px: u32, on_change: impl FnMut(bool) + 'static) -> Self {
        let closure = Closure::<dyn FnMut(bool)>::new(on_change);
        let stop = watch_nearness(element, margin_px, closure.as_ref().unchecked_ref());
        NearnessWatch { stop, _closure: closure }
    }
}

impl Drop for NearnessWatch {
    fn drop(&mut self) {
        let _ = self.stop.call0(&JsValue::NULL);
    }
}

#[wasm_bindgen(module = "/js/apphost.js")]
extern "C" {
    /// Loads the app host and keeps a sandbox process warm for the apps to come.
    #[wasm_bindgen(js_name = warmUp)]
    pub fn warm_up();
    /// The apps shown inside `container` are about to go with it: each is asked to clean up
    /// (`ui/resource-teardown`) and its frame moved aside to wait for the answer. Call it
    /// before the page changes: a frame removed along with its place is gone at once.
    #[wasm_bindgen(js_name = departWithin)]
    pub fn depart_within(container: &Element);
    #[wasm_bindgen(catch, js_name = mountApp)]
    fn mount_app(
        container: &Element,
        setup: &JsValue,
        host: &JsValue,
    ) -> Result<js_sys::Promise, JsValue>;
}

/// An app shown by the app host module (loaded on first use).
pub struct MountedApp(JsValue);

impl MountedApp {
    /// Loads the app host if needed and shows `setup` (a `core::apps::AppSetup`) in
    /// `container`. `host` is the object of callbacks the host calls (see apphost/src/host.rs).
    pub async fn mount(
        container: &Element,
        setup: &gemipanel_core::apps::AppSetup,
        host: &JsValue,
    ) -> Result<MountedApp, BrowserError> {
        let setup = to_object(setup)?;
        let promise = mount_app(container, &setup, host)
            .map_err(|e| BrowserError::from_js("loading the app host", e))?;
        let view = wasm_bindgen_futures::JsFuture::from(promise)
            .await
            .map_err(|e| BrowserError::from_js("showing the app", e))?;
        Ok(MountedApp(view))
    }

    fn call(&self, method: &str, args: &[JsValue]) {
        let Ok(function) = js_sys::Reflect::get(&self.0, &method.into()) else { return };
        let Ok(function) = function.dyn_into::<Function>() else { return };
        let _ = match args {
            [] => function.call0(&self.0),
            [a] => function.call1(&self.0, a),
            _ => Ok(JsValue::UNDEFINED),
        };
    }

    pub fn set_result(&self, result: &gemipanel_core::mcp::CallToolResult) {
        if let Ok(result) = to_js(result) {
            self.call("set_result", &[result]);
        }
    }

    pub fn cancel(&self) {
        self.call("cancel", &[]);
    }
}

impl Drop for MountedApp {
    fn drop(&mut self) {
        self.call("destroy", &[]);
    }
}

/// The app host's handle on one app's own tools (`ViewToolCaller` of apphost/src/lib.rs), as
/// it hands it to the panel with the app's tool list.
#[derive(Clone)]
pub struct ViewToolCaller(JsValue);

impl ViewToolCaller {
    /// `None` for anything but an object (the host passes `null` when the app stopped).
    pub fn from_js(caller: JsValue) -> Option<Self> {
        caller.is_object().then_some(ViewToolCaller(caller))
    }

    /// Runs the app's tool `name`: its result, or why there is none, in English (the model
    /// reads it).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<gemipanel_core::mcp::CallToolResult, String> {
        let function = js_sys::Reflect::get(&self.0, &"call_tool".into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
            .ok_or("the app host cannot call tools")?;
        let arguments = to_js(arguments).map_err(|e| e.to_string())?;
        let promise: js_sys::Promise = function
            .call2(&self.0, &name.into(), &arguments)
            .ok()
            .and_then(|p| p.dyn_into().ok())
            .ok_or("the app host did not answer with a promise")?;
        let reason = |e: JsValue| e.as_string().unwrap_or_else(|| "the call failed".into());
        let result = wasm_bindgen_futures::JsFuture::from(promise).await.map_err(reason)?;
        from_js(result).map_err(|e| e.to_string())
    }
}
