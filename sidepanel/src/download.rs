//! Files in and out of the panel: a download of bytes core made (an `<a download>` on a blob
//! URL) and the text of the file the person picked to import.

use gemipanel_core::chats::archive::MAX_BYTES;
use gemipanel_core::chats::markdown::Download;
use gemipanel_core::text::Text;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Offers `download` to the person as a file.
pub fn save(download: &Download) -> Result<(), String> {
    let fail = |doing: &str| format!("could not save the file ({doing})");
    let bytes = js_sys::Uint8Array::from(download.bytes.as_slice());
    let parts = js_sys::Array::of1(&bytes);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(download.mime_type);
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
    link.set_download(&download.file_name);
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

/// The text of the picked file, refusing one too large to be a chats file before reading it.
pub async fn read_text(file: web_sys::File) -> Result<String, Text> {
    if file.size() > MAX_BYTES as f64 {
        return Err(Text::new("importTooBig").arg(MAX_BYTES / (1024 * 1024)));
    }
    let text = JsFuture::from(file.text()).await.map_err(|_| Text::new("importUnreadableFile"))?;
    text.as_string().ok_or_else(|| Text::new("importUnreadableFile"))
}
