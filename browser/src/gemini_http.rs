//! Streaming `POST` to the Gemini API from a page: the answer's bytes are handed over as they
//! arrive, so `core::sse` can split them while the reply is still being written.
//!
//! Only the side panel calls this (the worker never talks to Gemini). Nothing here parses the
//! answer; errors say which step failed and never contain the key.

use gloo_net::http::Response;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, Headers, ReadableStreamDefaultReader, RequestCredentials, RequestInit,
    RequestRedirect, ResponseType,
};

use crate::BrowserError;

/// Cancels one request (and its body stream) when asked or dropped.
pub struct Abort {
    controller: AbortController,
}

impl Abort {
    pub fn new() -> Result<Self, BrowserError> {
        let controller =
            AbortController::new().map_err(|e| BrowserError::from_js("creating an abort", e))?;
        Ok(Self { controller })
    }

    pub fn abort(&self) {
        self.controller.abort();
    }

    pub(crate) fn signal(&self) -> web_sys::AbortSignal {
        self.controller.signal()
    }
}

/// How the server answered a request that reached it.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// 2xx; every chunk of the body went to `on_chunk` and the stream ended normally.
    Streamed,
    /// Non-2xx with its body (the API's error JSON, usually).
    Failed { status: u16, body: String },
}

/// POSTs `body` (JSON) to `url` with the key in `x-goog-api-key`, passing each chunk of a 2xx
/// answer to `on_chunk`. `Err` is a transport failure (offline, CORS, dropped mid-stream,
/// aborted): `BrowserError::is_abort` tells the last apart.
pub async fn post_stream(
    url: &str,
    api_key: &str,
    body: &JsValue,
    abort: &Abort,
    mut on_chunk: impl FnMut(&[u8]),
) -> Result<Answer, BrowserError> {
    let headers = Headers::new().map_err(|e| BrowserError::from_js("preparing headers", e))?;
    headers
        .set("content-type", "application/json")
        .map_err(|e| BrowserError::from_js("preparing headers", e))?;
    // The key's value is not repeated in the message: a bad character is all there is to say.
    headers
        .set("x-goog-api-key", api_key)
        .map_err(|_| BrowserError::new("the API key contains characters a header cannot carry"))?;
    let init = RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(body);
    init.set_signal(Some(&abort.controller.signal()));
    // Never followed: the key would go wherever a redirect points.
    init.set_redirect(RequestRedirect::Manual);

    init.set_credentials(RequestCredentials::Omit);
    // Built here and sent by gloo-net as it is: its builder would append `&` to `?alt=sse`.
    let request = web_sys::Request::new_with_str_and_init(url, &init)
        .map_err(|e| network("connecting to Gemini", e))?;
    let response = gloo_net::http::Request::from(request).send().await.map_err(|e| match e {
        gloo_net::Error::JsError(js) if js.name == "AbortError" => BrowserError::new(ABORTED),
        gloo_net::Error::JsError(js) if js.name == "TypeError" => BrowserError::new(format!(
            "connecting to Gemini: {} (offline, or the server is unreachable)",
            js.message
        )),
        other => BrowserError::new(format!("connecting to Gemini: {other}")),
    })?;

    if response.type_() == ResponseType::Opaqueredirect {
        return Err(BrowserError::new(
            "the Gemini API address answered with a redirect, which GemiPanel does not follow \
             (your key would go with it); set the address it redirects to",
        ));
    }
    let status = response.status();
    if !(200..300).contains(&status) {
        let body = read_text(&response).await.unwrap_or_default();
        return Ok(Answer::Failed { status, body });
    }
    let Some(stream) = response.body() else { return Ok(Answer::Streamed) };
    let reader = ReadableStreamDefaultReader::new(&stream)
        .map_err(|e| BrowserError::from_js("reading the reply", e))?;
    loop {
        let step: JsValue =
            JsFuture::from(reader.read()).await.map_err(|e| network("reading the reply", e))?;
        let done = js_sys::Reflect::get(&step, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true);
        if done {
            return Ok(Answer::Streamed);
        }
        let value = js_sys::Reflect::get(&step, &"value".into()).unwrap_or_default();
        if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
            on_chunk(&bytes.to_vec());
        }
    }
}

async fn read_text(response: &Response) -> Option<String> {
    response.text().await.ok()
}

/// Fetch rejects with a bare `TypeError: Failed to fetch`; say what that usually means.
pub(crate) fn network(doing: &str, err: JsValue) -> BrowserError {
    let name =
        err.dyn_ref::<js_sys::Error>().and_then(|e| e.name().as_string()).unwrap_or_default();
    if name == "AbortError" {
        return BrowserError::new(ABORTED);
    }
    let err = BrowserError::from_js(doing, err);
    if name == "TypeError" {
        BrowserError::new(format!("{err} (offline, or the server is unreachable)"))
    } else {
        err
    }
}

const ABORTED: &str = "the request was stopped";

impl BrowserError {
    /// The request failed because [`Abort::abort`] was called.
    pub fn is_abort(&self) -> bool {
        self.message() == ABORTED
    }
}
