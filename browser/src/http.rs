//! `fetch` (through gloo-net) and the shared timer ([`crate::timers`]) behind core's
//! [`HttpTransport`] and [`Timer`].
//!
//! Works in pages and in the service worker alike: `fetch` and the timer functions are looked up
//! on the global object, never through `window` (which a worker does not have). Every exchange
//! owns an `AbortController`; dropping the future or the body aborts the request, which is how
//! the MCP client cancels calls and enforces timeouts.

use std::time::Duration;

use gemipanel_core::mcp::{
    is_header_name, is_header_value, HttpRequest, HttpResponse, HttpTransport, ResponseBody, Timer,
    TransportError,
};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, ReadableStreamDefaultReader, RequestCredentials, RequestInit, RequestRedirect,
    ResponseType,
};

use crate::timers;

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
            // wait for. A spawned future runs as a microtask, after the reply is posted.
            wasm_bindgen_futures::spawn_local(async move { controller.abort() });
        }
    }
}

/// Sends one request with `fetch` through gloo-net; resolves when the response head is in.
///
/// The request is built as a `web_sys::Request` and handed to gloo-net as it is: gloo-net's
/// builder rewrites the URL's query (it appends `&` to a URL that has one), and the URL a
/// server is configured with must reach it unchanged.
pub async fn send(request: HttpRequest) -> Result<HttpResponse<FetchBody>, TransportError> {
    let connect_error = |e: JsValue| TransportError::connect(fetch_failure(&e));
    let headers = gloo_net::http::Headers::new();
    for (name, value) in &request.headers {
        if !is_header_name(name) || !is_header_value(value) {
            // The error names the header only: its value may be a token.
            return Err(TransportError::connect(format!(
                "the header \"{name}\" has a value HTTP cannot carry"
            )));
        }
        headers.append(name, value);
    }
    let controller = AbortController::new().map_err(connect_error)?;
    let mut guard = AbortOnDrop(Some(controller.clone()));
    let init = RequestInit::new();
    init.set_method(request.method.as_str());
    init.set_headers(&headers.into_raw());
    if let Some(body) = &request.body {
        init.set_body(&JsValue::from_str(body));
    }
    init.set_signal(Some(&controller.signal()));
    // Extension service workers keep no cookies of their own; credentials would be the person's
    // browsing cookies for that site, which an MCP server must not receive implicitly.
    init.set_credentials(RequestCredentials::Omit);
    // Never followed: a redirect would carry the request's headers (keys, tokens) wherever it
    // points. The browser hides such a redirect's status and target.
    init.set_redirect(RequestRedirect::Manual);
    let raw =
        web_sys::Request::new_with_str_and_init(&request.url, &init).map_err(connect_error)?;
    let response = gloo_net::http::Request::from(raw).send().await.map_err(|e| {
        let message = match e {
            gloo_net::Error::JsError(js) => js.message,
            other => other.to_string(),
        };
        TransportError::connect(format!("{message} (is the server running and the address right?)"))
    })?;
    if response.type_() == ResponseType::Opaqueredirect {
        return Err(TransportError::redirect());
    }
    let headers = response.headers().entries().collect();
    let reader = response.body().and_then(|stream| stream.get_reader().dyn_into().ok());
    let abort = guard.0.take();
    Ok(HttpResponse {
        status: response.status(),
        headers,
        body: FetchBody { reader, abort: AbortOnDrop(abort) },
    })
}

/// The words for a `fetch` that could not start. Chrome says only "Failed to fetch" for a
/// refused connection, an unknown host and a missing host permission alike; the caller, which
/// knows the permissions, says more when access is missing (the URL is named by the caller too).
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
        let done = js_sys::Reflect::get(&chunk, &"done".into()).ok().and_then(|d| d.as_bool());
        if done != Some(false) {
            self.reader = None;
            // A body read to its end has nothing left to abort.
            self.abort.0 = None;
            return Ok(None);
        }
        let value = js_sys::Reflect::get(&chunk, &"value".into()).unwrap_or(JsValue::UNDEFINED);
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

#[cfg(test)]
mod tests {
    use super::*;
    use gemipanel_core::mcp::Method;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    fn get(url: &str, headers: &[(&str, &str)]) -> HttpRequest {
        HttpRequest {
            method: Method::Get,
            url: url.into(),
            headers: headers.iter().map(|(n, v)| ((*n).into(), (*v).into())).collect(),
            body: None,
        }
    }

    #[wasm_bindgen_test]
    async fn an_exchange_gives_status_headers_and_the_whole_body() {
        let url = "data:text/event-stream;charset=utf-8,data%3A%20%7B%7D%0A%0A";
        let mut response = send(get(url, &[("Accept", "text/event-stream")])).await.unwrap();
        assert_eq!(response.status, 200);
        assert_eq!(response.header("content-type"), Some("text/event-stream;charset=utf-8"));
        let mut body = Vec::new();
        while let Some(chunk) = response.body.next_chunk().await.unwrap() {
            body.extend(chunk);
        }
        assert_eq!(body, b"data: {}\n\n");
        // Read to its end: nothing is left to abort.
        assert!(response.body.abort.0.is_none());
    }

    #[wasm_bindgen_test]
    async fn a_header_http_cannot_carry_is_refused_by_name_without_its_value() {
        for value in ["a\nInjected: yes", "nul\0inside", "snowman \u{2603}"] {
            let err = send(get("data:,x", &[("X-Key", value)])).await.err().unwrap();
            assert!(err.is_connect());
            assert_eq!(err.to_string(), "the header \"X-Key\" has a value HTTP cannot carry");
        }
        let err = send(get("data:,x", &[("Bad Name", "v")])).await.err().unwrap();
        assert!(err.to_string().contains("\"Bad Name\""), "{err}");
    }

    #[wasm_bindgen_test]
    async fn a_refused_fetch_says_what_usually_causes_it() {
        let err = send(get("http://127.0.0.1:9/", &[])).await.err().unwrap();
        assert!(err.is_connect());
        assert!(err.to_string().contains("is the server running"), "{err}");
    }
}
