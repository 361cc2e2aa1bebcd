//! The HTTP of a Files API upload, thin: one request of `core::gemini::attachments::Upload`'s
//! plan sent as it is (its bytes sliced from the file, never copied whole into wasm), and the
//! headers of the answer the plan reads. Reading a small file as base64 for `inlineData` too.

use base64::Engine;
use gemipanel_core::gemini::attachments::{UploadBody, UploadRequest};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, Headers, RequestCredentials, RequestInit, RequestRedirect, Response};

use crate::gemini_http::{network, Abort};
use crate::BrowserError;

/// What the plan reads of an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct UploadAnswer {
    pub status: u16,
    /// `X-Goog-Upload-URL`: the session, in the answer to the start.
    pub upload_url: Option<String>,
    /// `X-Goog-Upload-Chunk-Granularity`.
    pub granularity: Option<String>,
    /// `X-Goog-Upload-Status`: `active`, or `final` with the file in the body.
    pub upload_status: Option<String>,
    pub body: String,
}

/// Sends one request of an upload; the key goes only with the start (`api_key`), the session
/// URL of the others names the upload. `Err` is a transport failure or [`Abort::abort`].
pub async fn send(
    request: &UploadRequest,
    api_key: Option<&str>,
    file: &Blob,
    abort: &Abort,
) -> Result<UploadAnswer, BrowserError> {
    let headers = Headers::new().map_err(|e| BrowserError::from_js("preparing headers", e))?;
    for (name, value) in &request.headers {
        headers
            .set(name, value)
            .map_err(|e| BrowserError::from_js("preparing the upload's headers", e))?;
    }
    if let Some(key) = api_key {
        headers.set("x-goog-api-key", key).map_err(|_| {
            BrowserError::new("the API key contains characters a header cannot carry")
        })?;
    }
    let init = RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    match &request.body {
        UploadBody::Json(text) => init.set_body(&JsValue::from_str(text)),
        UploadBody::Bytes { offset, len } => {
            let part = file
                .slice_with_f64_and_f64(*offset as f64, (*offset + *len) as f64)
                .map_err(|e| BrowserError::from_js("reading the file", e))?;
            init.set_body(&part);
        }
    }
    init.set_signal(Some(&abort.signal()));
    // Never followed: the key would go wherever a redirect points.
    init.set_redirect(RequestRedirect::Manual);
    init.set_credentials(RequestCredentials::Omit);
    let window = web_sys::window().ok_or_else(|| BrowserError::new("no window"))?;
    let response: Response = JsFuture::from(window.fetch_with_str_and_init(&request.url, &init))
        .await
        .map_err(|e| network("uploading to the Files API", e))?
        .dyn_into()
        .map_err(|e| BrowserError::from_js("uploading to the Files API", e))?;
    let header = |name: &str| response.headers().get(name).ok().flatten();
    let (upload_url, granularity, upload_status) = (
        header("x-goog-upload-url"),
        header("x-goog-upload-chunk-granularity"),
        header("x-goog-upload-status"),
    );
    let body = match response.text() {
        Ok(promise) => JsFuture::from(promise)
            .await
            .map_err(|e| network("reading the Files API's answer", e))?
            .as_string()
            .unwrap_or_default(),
        Err(_) => String::new(),
    };
    Ok(UploadAnswer { status: response.status(), upload_url, granularity, upload_status, body })
}

/// A file's bytes as base64, for `inlineData`.
pub async fn read_base64(file: &Blob) -> Result<String, BrowserError> {
    let buffer = JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| BrowserError::from_js("reading the file", e))?;
    let bytes = Uint8Array::new(&buffer).to_vec();
    Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
}
