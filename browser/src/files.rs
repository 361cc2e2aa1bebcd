//! Files in and out of the extension's pages: a download of bytes (an `<a download>` on a
//! blob URL) and the text of a file the person picked.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Offers `bytes` to the person as a file named `name`.
pub fn save_bytes(name: &str, mime_type: &str, bytes: &[u8]) -> Result<(), String> {
    let fail = |doing: &str| format!("could not save the file ({doing})");
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime_type);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|_| fail("blob"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| fail("url"))?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or_else(|| fail("document"))?;
    let link: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(|_| fail("link"))?
        .dyn_into()
        .map_err(|_| fail("link"))?;
    link.set_href(&url);
    link.set_download(name);
    link.click();
    // Revoked later: the download may still be reading it.
    let revoke = wasm_bindgen::closure::Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    if let Some(window) = web_sys::window() {
        let _ = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 60_000);
    }
    Ok(())
}

/// Why a picked file's text could not be had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickedFileError {
    /// Larger than the caller accepts: refused before it is read.
    TooLarge,
    Unreadable,
}

/// The text of the file the person picked, refused when larger than `max_bytes`.
pub async fn read_text(file: web_sys::File, max_bytes: usize) -> Result<String, PickedFileError> {
    if file.size() > max_bytes as f64 {
        return Err(PickedFileError::TooLarge);
    }
    let text = JsFuture::from(file.text()).await.map_err(|_| PickedFileError::Unreadable)?;
    text.as_string().ok_or(PickedFileError::Unreadable)
}
