//! The MCP client exactly as the service worker runs it, core's [`Client`] over the browser's
//! [`FetchTransport`], exported to a page. `cargo xtask bench` times its calls beside the
//! official TypeScript SDK client's in the same page: the two clients compared like for like,
//! without the page-to-worker hop that the side panel's path adds (measured separately).

use std::rc::Rc;

use gemipanel_browser::http::FetchTransport;
use gemipanel_core::mcp::{Client, ServerConfig};
use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[wasm_bindgen]
pub struct BenchClient {
    client: Rc<Client<FetchTransport>>,
}

#[wasm_bindgen]
impl BenchClient {
    /// Connects to the server at `url` (the protocol negotiation the worker does).
    pub async fn connect(url: String) -> Result<BenchClient, JsValue> {
        let client = Client::new(FetchTransport, ServerConfig::new(url));
        client.connect().await.map_err(|e| JsValue::from_str(&e.to_string()))?;
        Ok(BenchClient { client: Rc::new(client) })
    }

    /// Calls the `echo` tool; resolves to the text it answered.
    pub fn echo(&self, message: String) -> Promise {
        let client = self.client.clone();
        future_to_promise(async move {
            let arguments = serde_json::json!({ "message": message });
            let result = client
                .call_tool("echo", arguments, &(), None)
                .await
                .map_err(|e| JsValue::from_str(&e.to_string()))?;
            Ok(JsValue::from_str(&result.text()))
        })
    }
}
