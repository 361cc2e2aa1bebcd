//! `fetch` and the shared timer ([`crate::timers`]) behind core's [`HttpTransport`] and [`Timer`].
//!
//! Works in pages and in the service worker alike: `fetch` and the timer functions are looked up
//! on the global object, never through `window` (which a worker does not have). Every exchange owns an
//! `AbortController`; dropping the future or the body aborts the request, which is how the MCP
//! client cancels calls and enforces timeouts.

use std::time::Duration;

use gemipanel_core::mcp::{
    HttpRequest, HttpResponse, HttpTransport, ResponseBody, Timer, TransportError,
};
use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::timers;
use web_sys::{AbortController, Headers, ReadableStreamDefaultReader, RequestInit, Response};

#[wasm_bindgen]
extern "C" {
    // `catch`: a throwing import inside wasm would leave the caller's promise unsettled.
    #[wasm_bindgen(catch, js_name = fetch)]
    fn fetch_with_init(url: &str, init: &RequestInit) -> Result<Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = queueMicrotask)]
    fn queue_microtask(callback: &Function) -> Result<(), JsValue>;
}

/// The browser's HTTP stack and clock. Stateless: clone it freely.
#[derive(Clone, Copy, Debug, Default)]
pub struct FetchTransport;

impl HttpTransport for FetchTransport {
    type Body = FetchBody;

    async fn send(&self, request: HttpRequest) -> Result<HttpResponse<FetchBody>, TransportError> {
        send(request).await
    }
}

impl Timer for FetchTransport {
    fn sleep(&self, duration: Duration) -> impl std::future::Future<Output = ()> {
        timers::sleep(duration)
    }
}

/// Aborts its exchange when dropped unless disarmed.
struct AbortOnDrop(Option<AbortController>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(controller) = self.0.take() {
            // Once the current turn is over: the client drops a body as soon as the reply it
            // waited for is in, and aborting costs Blink ~0.3 ms that the page would otherwise
            // wait for. A microtask runs after the reply is posted, and needs no timer.
            let abort = Reflect::get(&controller, &"abort".into()).map(Function::unchecked_from_js);
            if abort.and_then(|abort| queue_microtask(&abort.bind0(&controller))).is_err() {
                controller.abort();
            }
        }
    }
}

/// Sends one request with `fetch`; resolves when the response head is in.
pub async fn send(request: HttpRequest) -> Result<HttpResponse<FetchBody>, TransportError> {
    let connect_error = |e: JsValue| TransportError::connect(fetch_failure(&e));
    let controller = AbortController::new().map_err(connect_error)?;
    let mut guard = AbortOnDrop(Some(controller.clone()));

    let headers = Headers::new().map_err(connect_error)?;
    for (name, value) in &request.headers {
        // The error names the header only: its value may be a token.
        headers.append(name, value).map_err(|_| {
            TransportError::connect(format!("the header \"{name}\" has a value HTTP cannot carry"))
        })?;
    }
    let init = RequestInit::new();
    init.set_method(request.method.as_str());
    init.set_headers(&headers);
    if let Some(body) = &request.body {
        init.set_body(&JsValue::from_str(body));
    }
    init.set_signal(Some(&controller.signal()));
    // Service workers of extensions keep no cookies of their own; credentials would be the
    // user's browsing cookies for that site, which an MCP server must not receive implicitly.
    init.set_credentials(web_sys::RequestCredentials::Omit);

    let promise = fetch_with_init(&request.url, &init).map_err(connect_error)?;
    let response = JsFuture::from(promise).await.map_err(connect_error)?;
    let response: Response = response.dyn_into().map_err(|_| {
        TransportError::connect("fetch resolved to something that is not a Response")
    })?;

    let mut head = Vec::new();
    if let Ok(Some(entries)) = js_sys::try_iter(&response.headers()) {
        for entry in entries.flatten() {
            let pair = js_sys::Array::from(&entry);
            if let (Some(name), Some(value)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
                head.push((name, value));
            }
        }
    }
    let reader =
        response.body().map(|s| s.get_reader().unchecked_into::<ReadableStreamDefaultReader>());
    let abort = guard.0.take();
    Ok(HttpResponse {
        status: response.status(),
        headers: head,
        body: FetchBody { reader, abort: AbortOnDrop(abort) },
    })
}

/// The words for a rejected `fetch`. Chrome says only "Failed to fetch" for a refused
/// connection, an unknown host and a missing host permission alike; the caller, which knows the
/// permissions, says more when access is missing (the URL is named by the caller too).
fn fetch_failure(err: &JsValue) -> String {
    format!("{} (is the server running and the address right?)", describe(err))
}

fn describe(err: &JsValue) -> String {
    err.dyn_ref::<js_sys::Error>()
        .and_then(|e| e.message().as_string())
        .or_else(|| err.as_string())
        .unwrap_or_else(|| "the request failed".to_owned())
}

/// A response body, read chunk by chunk from its `ReadableStream`.
pub struct FetchBody {
    reader: Option<ReadableStreamDefaultReader>,
    abort: AbortOnDrop,
}

impl ResponseBody for FetchBody {
    async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, TransportError> {
        let Some(reader) = &self.reader else {
            return Ok(None);
        };
        let chunk = JsFuture::from(reader.read())
            .await
            .map_err(|e| TransportError::io(format!("reading the reply: {}", describe(&e))))?;
        let done = Reflect::get(&chunk, &"done".into()).ok().and_then(|d| d.as_bool());
        if done != Some(false) {
            self.reader = None;
            // A body read to its end has nothing left to abort.
            self.abort.0 = None;
            return Ok(None);
        }
        let value = Reflect::get(&chunk, &"value".into()).unwrap_or_default();
        match value.dyn_into::<Uint8Array>() {
            Ok(bytes) => Ok(Some(bytes.to_vec())),
            Err(_) => Err(TransportError::io("the reply stream gave something other than bytes")),
        }
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    js_sys::Date::now().max(0.0) as u64
}
