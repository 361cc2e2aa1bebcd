//! The side panel's callbacks, as the app host calls them.
//!
//! The panel passes a plain object: `work(work)` returns a promise of the worker's answer to a
//! `core::apps::frame_wire::HostWork` (the MCP result the app is given; it rejects with an
//! error message), `offer(text)` puts a message in the composer, `context(label, text)` keeps an app's
//! context for the next model request, `tools(list, caller)` says which tools the app offers
//! of its own (MCP `Tool`s; `caller.call_tool(name, arguments)` runs one).

use js_sys::{Function, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use gemipanel_browser::messaging::{from_js, to_js, to_object};
use gemipanel_core::apps::frame_wire::HostWork;

#[derive(Clone)]
pub struct HostCallbacks {
    work: Function,
    offer: Function,
    context: Function,
    tools: Function,
}

impl HostCallbacks {
    pub fn new(host: JsValue) -> Result<HostCallbacks, JsValue> {
        let get = |name: &str| -> Result<Function, JsValue> {
            Reflect::get(&host, &name.into())?
                .dyn_into::<Function>()
                .map_err(|_| JsValue::from_str(&format!("the app host needs `{name}`")))
        };
        Ok(HostCallbacks {
            work: get("work")?,
            offer: get("offer")?,
            context: get("context")?,
            tools: get("tools")?,
        })
    }

    /// The worker's answer to `work` (an MCP result document), or the reason it failed.
    pub async fn work(&self, work: &HostWork) -> Result<Value, String> {
        let work = to_object(work).map_err(|e| e.to_string())?;
        let promise: Promise =
            self.work
                .call1(&JsValue::NULL, &work)
                .map_err(reason)?
                .dyn_into()
                .map_err(|_| "the side panel did not answer with a promise".to_owned())?;
        let answer = JsFuture::from(promise).await.map_err(reason)?;
        from_js(answer).map_err(|e| e.to_string())
    }

    pub fn offer(&self, text: &str) {
        let _ = self.offer.call1(&JsValue::NULL, &text.into());
    }

    pub fn context(&self, label: &str, text: &str) {
        let _ = self.context.call2(&JsValue::NULL, &label.into(), &text.into());
    }
}

impl HostCallbacks {
    /// The app's own tools changed (an empty list: it offers none, or no longer runs).
    pub fn tools(&self, tools: &[gemipanel_core::mcp::Tool], caller: JsValue) {
        if let Ok(tools) = to_js(&tools) {
            let _ = self.tools.call2(&JsValue::NULL, &tools, &caller);
        }
    }
}

fn reason(error: JsValue) -> String {
    error.as_string().unwrap_or_else(|| "the request failed".to_owned())
}
