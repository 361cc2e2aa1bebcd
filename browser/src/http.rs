//! `fetch` and the shared timer ([`crate::timers`]) behind core's [`HttpTransport`] and [`Timer`].
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
use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, ReadableStreamDefaultReader};

use crate::timers;

// One call per exchange instead of one per header and field: see the module's JavaScript.
#[wasm_bindgen(module = "/js/http.js")]
extern "C" {
    // `catch`: a throwing import inside wasm would leave the caller's promise unsettled.
    #[wasm_bindgen(catch, js_name = fetchExchange)]
    fn fetch_exchange(
        url: &str,
        method: &str,
        headers: &str,
        body: Option<String>,
        controller: &AbortController,
    ) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_name = readChunk)]
    fn read_chunk(reader: &ReadableStreamDefaultReader) -> Promise;
    #[wasm_bindgen(catch, js_name = abortSoon)]
    fn abort_soon(controller: &AbortController) -> Result<(), JsValue>;
}

/// Separates header names and values on their way through JavaScript; HTTP allows it in neither.
const NUL: char = '\0';

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
            if abort_soon(&controller).is_err() {
                controller.abort();
            }
        }
    }
}

/// Sends one request with `fetch`; resolves when the response head is in.
pub async fn send(request: HttpRequest) -> Result<HttpResponse<FetchBody>, TransportError> {
    let connect_error = |e: JsValue| TransportError::connect(fetch_failure(&e));
    let headers = joined_headers(&request.headers)?;
    let controller = AbortController::new().map_err(connect_error)?;
    let mut guard = AbortOnDrop(Some(controller.clone()));
    let promise =
        fetch_exchange(&request.url, request.method.as_str(), &headers, request.body, &controller)
            .map_err(connect_error)?;
    let head: Array = JsFuture::from(promise).await.map_err(connect_error)?.unchecked_into();
    if head.get(3).as_bool() == Some(true) {
        return Err(TransportError::redirect());
    }
    let status = head.get(0).as_f64().unwrap_or_default() as u16;
    let headers = split_headers(&head.get(1).as_string().unwrap_or_default());
    let reader = head.get(2).dyn_into::<ReadableStreamDefaultReader>().ok();
    let abort = guard.0.take();
    Ok(HttpResponse { status, headers, body: FetchBody { reader, abort: AbortOnDrop(abort) } })
}

/// The request's headers as one string for the JavaScript half, checked as `Headers.append`
/// would (a NUL can then only be the separator).
fn joined_headers(headers: &[(String, String)]) -> Result<String, TransportError> {
    let mut joined = String::new();
    for (name, value) in headers {
        if !is_header_name(name) || !is_header_value(value) {
            // The error names the header only: its value may be a token.
            return Err(TransportError::connect(format!(
                "the header \"{name}\" has a value HTTP cannot carry"
            )));
        }
        if !joined.is_empty() {
            joined.push(NUL);
        }
        joined.push_str(name);
        joined.push(NUL);
        joined.push_str(value);
    }
    Ok(joined)
}

/// The response's headers from the JavaScript half's "name\0value\0…".
fn split_headers(joined: &str) -> Vec<(String, String)> {
    let mut parts = joined.split(NUL);
    let mut headers = Vec::new();
    while let (Some(name), Some(value)) = (parts.next(), parts.next()) {
        headers.push((name.to_owned(), value.to_owned()));
    }
    headers
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
        let chunk = JsFuture::from(read_chunk(reader))
            .await
            .map_err(|e| TransportError::io(format!("reading the reply: {}", describe(&e))))?;
        if chunk.is_null() {
            self.reader = None;
            // A body read to its end has nothing left to abort.
            self.abort.0 = None;
            return Ok(None);
        }
        match chunk.dyn_into::<Uint8Array>() {
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
    fn headers_cross_as_one_string_and_come_back_as_pairs() {
        let headers = [("A".to_owned(), "one".to_owned()), ("B".to_owned(), String::new())];
        let joined = joined_headers(&headers).unwrap();
        assert_eq!(joined, "A\0one\0B\0");
        assert_eq!(split_headers(&format!("{joined}\0")), headers);
        assert_eq!(split_headers(""), Vec::new());
    }

    #[wasm_bindgen_test]
    async fn a_refused_fetch_says_what_usually_causes_it() {
        let err = send(get("http://127.0.0.1:9/", &[])).await.err().unwrap();
        assert!(err.is_connect());
        assert!(err.to_string().contains("is the server running"), "{err}");
    }
}
